#!/usr/bin/env python3
"""The error and warning messages fgraphtop prints, extracted from src/**/*.c.

A message is the format string of one of the calls that produce the one line
the tool prints when something is wrong (snprintf into msg/why/err/reason/hint
or the option parser's error, fgt_cli_error(), unknown(), prom.c's fail(),
the message channel's p_err(), p_warn(), log_err()). Each string-literal group in such a call (adjacent literals
joined, ternary branches apart) gives a stem: its text up to the first printf
conversion, trimmed. Stems shorter than MIN_STEM characters ("%s", ": ") say
nothing to a reader and are skipped.

    messages.py SRC_DIR            print the stems, one a line
"""
import re
import sys
from pathlib import Path

MIN_STEM = 7
CALL = re.compile(
    r"\b(?:v?snprintf\s*\(\s*(?:msg|why|hint|insane|a->cli\.err|cli->err|r->reason)\s*,[^,]+,"
    r"|fgt_cli_error\s*\(\s*state\s*,"
    r"|p_err\s*\(\s*[^,]+,|p_warn\s*\(\s*[^,]+,"
    r"|unknown\s*\(\s*r\s*,"
    r"|fail\s*\(\s*err\s*,\s*errlen\s*,[^,]+,"
    r"|fgt_clause_add\s*\(\s*\w+\s*,\s*\w+\s*,"
    r"|log_err\s*\()")
LIT = re.compile(r'"((?:[^"\\]|\\.)*)"')
CONV = re.compile(r"%[-+ #0-9.*]*(?:hh|h|ll|l|z|j|t)?[diouxXcspfeEgGm%]")


def call_args(text, start):
    """Text from start to the parenthesis closing the call (start is after '(')."""
    depth, i, in_str = 1, start, False
    while i < len(text) and depth:
        c = text[i]
        if in_str:
            if c == "\\":
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        i += 1
    return text[start:i - 1]


def groups(args):
    """Adjacent string literals joined: one string per group (PRIu64 & co join too)."""
    args = re.sub(r'"\s*PRI[diux](?:8|16|32|64)\s*"', "llu", args)
    out, cur, pos = [], None, 0
    for m in LIT.finditer(args):
        between = args[pos:m.start()]
        if cur is not None and between.strip() == "":
            cur += m.group(1)
        else:
            if cur is not None:
                out.append(cur)
            cur = m.group(1)
        pos = m.end()
    if cur is not None:
        out.append(cur)
    return out


def stem(s):
    """The first piece between printf conversions that says something."""
    s = s.replace("\\n", "\n").split("\n")[0].replace('\\"', '"')
    for piece in CONV.split(s):
        piece = piece.strip().strip(":(),;").strip()
        if len(piece) >= MIN_STEM:
            return piece
    return ""


# Programs of src/ the package does not ship: their messages are for the
# developers who run them (src/src.mk), not rows of docs/troubleshooting.md.
DEV_ONLY = {"static_main.c"}	# fgt-static


def source_text(src):
    """src/**/*.c but DEV_ONLY, comments and character literals ('"' would open
    a string) blanked."""
    text = "".join(p.read_text() for p in sorted(Path(src).glob("**/*.c"))
                   if p.name not in DEV_ONLY)
    text = re.sub(r"'(?:[^'\\\n]|\\.)+'", "' '", text)
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)


def stems(src):
    text = source_text(src)
    out = []
    for m in CALL.finditer(text):
        for g in groups(call_args(text, m.end())):
            s = stem(g)
            if len(s) >= MIN_STEM and s not in out:
                out.append(s)
    return out


def literals(src):
    """Every string literal group of the sources, joined, for 'is this in the source'."""
    text = source_text(src)
    return [g.replace("\\n", "\n").replace('\\"', '"') for g in groups(text)]


if __name__ == "__main__":
    for s in stems(sys.argv[1] if len(sys.argv) > 1 else "src"):
        print(s)
