#!/usr/bin/env python3
"""The README, docs/*.md and the man page against the tool (make test-docs).

    check_docs.py [--readme F] [--man F] [--troubleshooting F] [--src D]
                  [--fgraphtop BIN] [--only CHECK,...]
    check_docs.py --self-test      each check must fail on a broken copy

Checks (each prints "ok NAME" or "FAIL NAME: why" lines; exit 1 on any FAIL):
  readme-blocks   the man page's marked EXAMPLES (man_examples()), and
                  in the README and every docs/*.md, the fenced blocks right
                  after an <!-- test --> line run as written: "$ cmd" lines run
                  with bash from the repository root (the installed fgraphtop
                  first in PATH); the other lines are output that must appear in
                  that order ("..." matches anything); a command's non-zero
                  status fails unless the block shows it (`; echo "exit $?"`).
                  <!-- test: lab --> blocks are the same, run where the lab's
                  kernels they name (`lab/kernels.sh path NAME`) are in the
                  cache, said as skipped elsewhere; the block right after an
                  <!-- sample: FILE --> line must be FILE's text exactly (a
                  recording of a lab run: tests/lab/live.sh writes the screen's)
  options         every --option the README and the man page name exists in `fgraphtop --help` or `fgraphtop check --help`, and
                  every option there is in the man page's OPTIONS and in the
                  README or docs/*.md
  messages        every error/warning message in src/ (tests/docs/messages.py) is
                  in docs/troubleshooting.md, and every message listed there is
                  in src/
  exit-status     the README and the man page list exactly src/common/exit_codes.h's
                  statuses, and the man page's command-line table says the usage one
  man-lint        mandoc -Tlint and groff -t -ww -z -man: no diagnostics
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import messages  # noqa: E402

# --options the README may name that are not fgraphtop's (make, qemu, tools).
FOREIGN_OPTS = {
    "--no-print-directory",  # make
    "--tier",  # lab/kernels.sh list: the lab's kernel tiers
    "--bogus",  # the README's example of a bad option
    "--now",  # systemctl enable --now (the man page's FILES)
    "--collector",  # node_exporter's --collector.textfile.directory
}

# Options that exist but --help hides (OPTION_HIDDEN), with the source file
# that must still define them: the README's Troubleshooting names their errors.
HIDDEN_OPTS = {"--park": "check_main.c"}

fails = []
# the self-test's copies: the lab's blocks are not what a mutation changes
NO_LAB = False


def report(name, problems):
    if problems:
        for p in problems:
            print(f"FAIL {name}: {p}")
        fails.append(name)
    else:
        print(f"ok {name}")


def section(text, title, level="## "):
    """Markdown section TITLE (its heading starts with TITLE) up to the next heading of its level."""
    m = re.search(rf"^{re.escape(level)}{re.escape(title)}.*?$(.*?)(?=^{re.escape(level)}\S|\Z)",
                  text, re.M | re.S)
    return m.group(1) if m else ""


def norm(s):
    return re.sub(r"\s+", " ", s.replace("`", "")).strip()


# ---- readme-blocks ---------------------------------------------------------

MARK = re.compile(r"^<!-- (test|test: lab|sample: (\S+)) -->$")


def marked_blocks(path):
    """[(line, kind, sample file or None, body)] for every marked block of PATH."""
    lines = Path(path).read_text().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        m = MARK.match(lines[i].strip())
        if m and i + 1 < len(lines) and lines[i + 1].startswith("```"):
            j = i + 2
            body = []
            while j < len(lines) and not lines[j].startswith("```"):
                body.append(lines[j])
                j += 1
            kind = "sample" if m.group(2) else m.group(1)
            blocks.append((i + 2, kind, m.group(2), body))
            i = j
        i += 1
    return blocks


def test_blocks(readme):
    return [(n, body) for n, kind, _, body in marked_blocks(readme) if kind == "test"]


def doc_files(readme):
    """The README and the docs/ pages beside it."""
    return [Path(readme)] + sorted((ROOT / "docs").glob("*.md"))


def parse_block(body):
    """[(command, [expected lines])]"""
    steps, cur = [], None
    k = 0
    while k < len(body):
        line = body[k]
        if line.startswith("$ "):
            cmd = line[2:]
            while cmd.endswith("\\") and k + 1 < len(body):
                k += 1
                cmd = cmd[:-1] + "\n" + body[k]
            cur = [cmd, []]
            steps.append(cur)
        elif cur is not None and line.strip():
            cur[1].append(line)
        k += 1
    return steps


def matches(expected, actual):
    pat = "^" + ".*".join(re.escape(p) for p in expected.strip().split("...")) + "$"
    return re.match(pat, actual.strip()) is not None


def run_steps(where, steps, env):
    problems = []
    for cmd, expected in steps:
        p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=ROOT, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=300)
        out = p.stdout.splitlines()
        if p.returncode != 0:
            problems.append(f"{where}: `{cmd}` exited {p.returncode}: " + " | ".join(out[-3:]))
            continue
        pos = 0
        for e in expected:
            while pos < len(out) and not matches(e, out[pos]):
                pos += 1
            if pos == len(out):
                problems.append(f"{where}: `{cmd}`: expected output line not seen "
                                f"(in order): {e!r}; got: " + " | ".join(out[:12]))
                break
            pos += 1
    return problems


def lab_kernels_present(body, env):
    """The lab kernels a block names, and whether all are in the cache."""
    names = sorted(set(re.findall(r"lab/kernels\.sh path ([\w.-]+)", "\n".join(body))))
    for n in names:
        p = subprocess.run(["lab/kernels.sh", "path", n], cwd=ROOT, env=env, text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if p.returncode != 0 or not p.stdout.strip() or not Path(p.stdout.strip()).is_dir():
            return names, False
    return names, True


def man_examples(man):
    """The man page's marked examples: [(where, kind, {name: path}, steps)].

    A `.\\" test` or `.\\" test: lab NAME=PATH...` comment marks the .EX block
    after it: "$ " lines are commands, the lines up to the next command or a
    line of digits (the status) are one output line, wrapped. For a lab
    block, PATH stands for lab kernel NAME's image when run, and for "..." in
    the output.
    """
    lines = man_text(man).splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r'^\.\\" (test)(?:: lab((?: [\w.-]+=\S+)+))?(?: \(|$)', line)
        if not m:
            continue
        subst = dict(kv.split("=", 1) for kv in (m.group(2) or "").split())
        j = i + 1
        while j < len(lines) and lines[j] != ".EX":
            j += 1
        steps, cur, para = [], None, []
        for k in range(j + 1, len(lines)):
            t = lines[k]
            if t == ".EE":
                break
            if t.startswith("$ ") or re.fullmatch(r"\d+", t):
                if cur is not None and para:
                    cur[1].append(" ".join(para))
                para = []
                if t.startswith("$ "):
                    cur = [t[2:], []]
                    steps.append(cur)
                elif cur is not None:
                    cur[1].append(t)
            else:
                para.append(t)
        if cur is not None and para:
            cur[1].append(" ".join(para))
        out.append((f"man page line {i + 1}", "test: lab" if subst else "test", subst, steps))
    return out


def check_man_examples(man, bindir):
    problems = []
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", LC_ALL="C")
    examples = man_examples(man)
    if len(examples) < 2:
        problems.append("the man page's EXAMPLES have fewer than 2 marked, runnable samples")
    for where, kind, subst, steps in examples:
        if kind == "test: lab" and NO_LAB:
            continue
        if kind == "test: lab":
            body = [f"lab/kernels.sh path {n}" for n in subst]
            names, present = lab_kernels_present(body, env)
            if not present:
                print(f"note: {where} skipped: lab kernel(s) {' '.join(names)} not in the "
                      f"cache (make lab)")
                continue
            for name, path in subst.items():
                steps = [[c.replace(path, f'"$(lab/kernels.sh path {name})/bzImage"'),
                          [e.replace(path, "...") for e in exp]] for c, exp in steps]
        problems += run_steps(where, steps, env)
    return problems


def check_blocks(readme, bindir, files=None, man_path=None):
    problems = []
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", LC_ALL="C")
    files = files or doc_files(readme)
    if not test_blocks(readme):
        problems.append("no <!-- test --> blocks in the README")
    for f in files:
        rel = os.path.relpath(f, ROOT) if Path(f).is_absolute() else str(f)
        for lineno, kind, sample, body in marked_blocks(f):
            where = f"{rel}:{lineno}"
            if kind == "sample":
                want = (ROOT / sample).read_text().splitlines() if (ROOT / sample).is_file() \
                    else None
                if want is None:
                    problems.append(f"{where}: no sample file {sample}")
                elif body != want:
                    problems.append(f"{where}: the block is not {sample} (a lab run's "
                                    f"recording): first difference at line "
                                    f"{next((i + 1 for i, (a, b) in enumerate(zip(body, want)) if a != b), min(len(body), len(want)) + 1)}")
                continue
            steps = parse_block(body)
            if not steps:
                problems.append(f"{where}: a test block without a $ command")
            if kind == "test: lab" and NO_LAB:
                continue
            if kind == "test: lab":
                names, present = lab_kernels_present(body, env)
                if not present:
                    print(f"note: {where} skipped: lab kernel(s) {' '.join(names)} not in "
                          f"the cache (make lab)")
                    continue
            problems += run_steps(where, steps, env)
    return problems + check_man_examples(man_path, bindir)


# ---- options ---------------------------------------------------------------

def help_options(fgt):
    opts = set()
    for args in ([fgt, "--help"], [fgt, "check", "--help"], [fgt, "hold", "--help"]):
        out = subprocess.run(args, stdout=subprocess.PIPE, text=True).stdout
        for line in out.splitlines():
            m = re.match(r"^\s+(?:(-\S), )?(--[\w-]+)", line)
            if m:
                opts.add(m.group(2))
                if m.group(1):
                    opts.add(m.group(1))
    return opts


def man_text(man):
    t = man.read_text()
    t = re.sub(r"\\f[BIRP]", "", t).replace("\\-", "-").replace("\\e", "\\")
    return t


def long_opts(text):
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*[a-z])", text))


def check_options(readme, man, fgt):
    problems = []
    have = help_options(fgt)
    if len([o for o in have if o.startswith("--")]) < 5:
        return [f"could not read the options from {fgt} --help"]
    rtext = readme.read_text()
    alltext = "\n".join(f.read_text() for f in doc_files(readme))
    mtext = man_text(man)
    mopts = re.search(r"^\.SH OPTIONS$(.*?)^\.SH ", mtext, re.M | re.S)
    mopts = mopts.group(1) if mopts else ""
    for o, f in HIDDEN_OPTS.items():
        if f'"{o[2:]}"' not in (Path(ROOT / "src" / f)).read_text():
            problems.append(f"{o}: no longer an option in src/{f}: drop it from HIDDEN_OPTS")
    for name, text in (("README", rtext), ("man page", mtext)):
        for o in sorted(long_opts(text) - have - FOREIGN_OPTS - set(HIDDEN_OPTS)):
            problems.append(f"the {name} names {o}, which is not in fgraphtop's --help")
    for o in sorted(have):
        if o.startswith("--"):
            if o not in long_opts(mopts):
                problems.append(f"{o} (--help) is not in the man page's OPTIONS")
            if o not in long_opts(alltext):
                problems.append(f"{o} (--help) is not in the README or docs/*.md")
        elif not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", mopts):
            problems.append(f"{o} (--help) is not in the man page's OPTIONS")
    return problems


# ---- messages --------------------------------------------------------------

def troubleshooting_entries(ts):
    sec = Path(ts).read_text() if Path(ts).is_file() else ""
    return sec, [m.group(1) for m in re.finditer(r"^\|\s*`([^`]+)`", sec, re.M)]


def check_messages(ts, src):
    problems = []
    sec, entries = troubleshooting_entries(ts)
    if not sec:
        return [f"no {ts}"]
    sec_n = norm(sec)
    for s in messages.stems(src):
        if norm(s) not in sec_n:
            problems.append(f"message in src/ not in docs/troubleshooting.md: {s!r}")
    lits = [norm(g) for g in messages.literals(src)]
    for e in entries:
        for frag in re.split(r"<[^>]*>|\.\.\.", e):
            frag = norm(frag).strip(" :;,()")
            if len(frag) >= 4 and not any(frag in lit for lit in lits):
                problems.append(f"Troubleshooting lists {e!r}: {frag!r} is in no string of src/")
                break
    if len(entries) < 10:
        problems.append(f"only {len(entries)} messages in Troubleshooting's tables")
    return problems


# ---- exit statuses -----------------------------------------------------------

def exit_codes(src):
    h = (Path(src) / "common" / "exit_codes.h").read_text()
    live = {int(v): n for n, v in re.findall(r"FGT_EXIT_(\w+)\s*=\s*(\d+)", h)}
    names = dict((k, v) for k, v in re.findall(r"case FGT_EXIT_(\w+):\s*return \"(\w+)\"", h))
    live = {v: names.get(n, n.lower()) for v, n in live.items()}
    # check's statuses: the monitoring plugin's four, and the one usage status
    check = sorted([int(v) for v in re.findall(r"FGT_CHECK_\w+\s*=\s*(\d+)", h)] +
                   [v for v, n in live.items() if n == "usage"])
    return live, check


def check_exit(readme, man, src):
    problems = []
    live, check = exit_codes(src)
    sec = section(readme.read_text(), "Exit status")
    rows = {int(a): b for a, b in re.findall(r"^\|\s*(\d+)\s*\|\s*`(\w+)`", sec, re.M)}
    if rows != live:
        problems.append(f"README 'Exit status' table {rows} != src/common/exit_codes.h {live}")
    crow = sorted(int(a) for a in re.findall(r"^\|\s*(\d+)\s*\|\s*(?:fixed|not|unknown|`)",
                                             section(sec, "fgraphtop check", "### "), re.M))
    if crow != check:
        problems.append(f"README 'fgraphtop check' statuses {crow} != src/common/exit_codes.h {check}")
    mt = man_text(man)
    ex = re.search(r"^\.SH EXIT STATUS$(.*?)^\.SH ", mt, re.M | re.S)
    ex = ex.group(1) if ex else ""
    parts = re.split(r"^\.SS ", ex, flags=re.M)
    got = {}
    for p in parts[1:]:
        title = p.splitlines()[0].strip()
        got[title] = sorted(int(v) for v in re.findall(r"^\.TP\n\.B (\d+)$", p, re.M))
    if got.get("fgraphtop") != sorted(live):
        problems.append(f"man EXIT STATUS, fgraphtop: {got.get('fgraphtop')} != {sorted(live)}")
    if got.get("fgraphtop check") != check:
        problems.append(f"man EXIT STATUS, fgraphtop check: {got.get('fgraphtop check')} != {check}")
    usage = [v for v, n in live.items() if n == "usage"]
    table = re.search(r"^\.SS Command line$(.*?)^\.TE$", ex, re.M | re.S)
    if not table:
        problems.append("man EXIT STATUS has no 'Command line' table")
    elif usage:
        # the "bad options" row: one cell per mode, each giving the usage status
        row = re.search(r"^T\{\nbad options\nT\}((?:\|T\{.*?T\})+)$", table.group(1), re.M | re.S)
        cells = re.findall(r"\|T\{(.*?)T\}", row.group(1), re.S) if row else []
        if len(cells) < 3 or not all(re.search(rf"status {usage[0]}\b", c) for c in cells):
            problems.append(f"man 'Command line' table does not give status {usage[0]} for "
                            f"bad options in every mode (fgraphtop, check, hold)")
    return problems


# ---- man lint ----------------------------------------------------------------

def check_lint(man):
    problems = []
    p = subprocess.run(["mandoc", "-Tlint", str(man)], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0 or p.stdout.strip():
        problems.append("mandoc -Tlint: " + p.stdout.strip().replace("\n", " | "))
    if shutil.which("groff"):
        p = subprocess.run(["groff", "-t", "-ww", "-z", "-man", str(man)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0 or p.stdout.strip():
            problems.append("groff -ww: " + p.stdout.strip().replace("\n", " | "))
    else:
        print("note: groff not installed, only mandoc checked the man page")
    return problems


def run_checks(a, only=None):
    readme, man, src = Path(a.readme), Path(a.man), Path(a.src)
    checks = {
        "readme-blocks": lambda: check_blocks(readme, a.bindir,
                                              [readme] if a.readme_only else None, man),
        "options": lambda: check_options(readme, man, a.fgraphtop),
        "messages": lambda: check_messages(a.troubleshooting, src),
        "exit-status": lambda: check_exit(readme, man, src),
        "man-lint": lambda: check_lint(man),
    }
    for name, fn in checks.items():
        if only and name not in only:
            continue
        report(name, fn())


# ---- self test: every check can fail ---------------------------------------

def self_test(a):
    global fails, NO_LAB
    NO_LAB = True
    readme, man = Path(a.readme).read_text(), Path(a.man).read_text()
    ts = Path(a.troubleshooting).read_text()
    first_row = re.search(r"^\|\s*`[^`]+`.*$\n", ts, re.M).group(0)
    test_out = None
    for _, body in test_blocks(Path(a.readme)):
        for cmd, exp in parse_block(body):
            if exp:
                test_out = exp[0]
                break
        if test_out:
            break
    mutations = [
        ("readme-blocks", "an expected output line changed",
         lambda r, m: (r.replace(test_out, test_out + " (changed)", 1), m)),
        ("options", "README names --no-such-option",
         lambda r, m: (r + "\nUse `fgraphtop --no-such-option`.\n", m)),
        ("options", "man page loses --ringbuf-size",
         lambda r, m: (r, re.sub(r"\.TP\n\.BR \\-\\-ringbuf\\-size.*?(?=\.TP)", "", m, flags=re.S))),
        ("readme-blocks", "a man page example's output changed",
         lambda r, m: (r, m.replace("usage: invalid \\-\\-timeout: soon", "usage: invalid \\-\\-timeout: late", 1))),
        ("readme-blocks", "a recorded sample changed",
         lambda r, m: (r.replace("\nfgraph: on, ftrace_graph_active 1\n",
                                 "\nfgraph: on, ftrace_graph_active 2\n", 1), m)),
        ("messages", "a Troubleshooting row removed",
         lambda r, m: (r, m, ts.replace(first_row, "", 1))),
        ("messages", "a message src/ never prints",
         lambda r, m: (r, m, ts.replace(first_row, first_row + "| `the flux capacitor is cold` | wait |\n", 1))),
        ("exit-status", "the command-line table loses check's 64",
         lambda r, m: (r, m.replace("status 64; one \\(lqFGRAPH", "status 3; one \\(lqFGRAPH", 1)
                       .replace("object with status 64", "object with status 3", 1))),
        ("man-lint", "a bad macro in the man page",
         lambda r, m: (r, m.replace(".SH NAME\n", ".SH NAME\n.XX bogus\n", 1))),
    ]
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for check, what, mutate in mutations:
            r2, m2, *t2 = mutate(readme, man)
            t2 = t2[0] if t2 else ts
            if (r2, m2, t2) == (readme, man, ts):
                bad.append(f"{check}: the mutation '{what}' changed nothing")
                continue
            Path(tmp, "README.md").write_text(r2)
            Path(tmp, "fgraphtop.8").write_text(m2)
            Path(tmp, "troubleshooting.md").write_text(t2)
            b = argparse.Namespace(**vars(a))
            b.readme, b.man = str(Path(tmp, "README.md")), str(Path(tmp, "fgraphtop.8"))
            b.troubleshooting, b.readme_only = str(Path(tmp, "troubleshooting.md")), True
            fails = []
            import contextlib
            import io
            with contextlib.redirect_stdout(io.StringIO()):
                run_checks(b, {check})
            if check not in fails:
                bad.append(f"{check} did not fail with: {what}")
            else:
                print(f"ok self-test: {check} fails with: {what}")
    fails = []
    for b in bad:
        print(f"FAIL self-test: {b}")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--readme", default=str(ROOT / "README.md"))
    ap.add_argument("--man", default=str(ROOT / "man/fgraphtop.8"))
    ap.add_argument("--troubleshooting", default=str(ROOT / "docs/troubleshooting.md"))
    ap.add_argument("--src", default=str(ROOT / "src"))
    ap.add_argument("--fgraphtop", default=str(ROOT / "build/fgraphtop"))
    ap.add_argument("--bindir", default=str(ROOT / "build"),
                    help="directory put first in PATH for the README's blocks")
    ap.add_argument("--only", default="")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    a.readme_only = False
    if a.self_test:
        return self_test(a)
    run_checks(a, set(a.only.split(",")) if a.only else None)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
