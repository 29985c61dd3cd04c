#!/usr/bin/env python3
"""A docs sample against a fresh run's transcript, by shape (make test's lab
tests call it on what they print; make test-docs checks that the docs'
<!-- sample: --> blocks equal the sample files).

    shape.py NAME FRESH      docs/samples/NAME.txt against FRESH

Both are cut to their shape: every hex run of 8 or more (build IDs), then
every run of digits, made one symbol, so that a run's own figures (pids,
threads served, milliseconds) do not matter and everything else does: the
lines, their order and their words; and "N sweeps" is one shape with
"sweeps not observable" (whether a small activation's walks show is the
host's pace: docs/EVENTS.md, "Walks"). Exit 0 when the shapes agree; 1, with
the first line that differs and what to copy, when the sample is stale.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
HEX = re.compile(r"\b[0-9a-f]{8,}\b")
NUM = re.compile(r"\d+(?:[.,]\d+)*")


SWEEPS = re.compile(r"\bN sweeps?\b|\bsweeps not observable\b")


def shape(text):
    return [SWEEPS.sub("SWEEPS", NUM.sub("N", HEX.sub("H", line.rstrip())))
            for line in text.splitlines() if line.strip()]


def main(argv):
    if len(argv) != 3:
        print("usage: shape.py NAME FRESH", file=sys.stderr)
        return 2
    name, fresh = argv[1], Path(argv[2])
    sample = ROOT / "docs" / "samples" / f"{name}.txt"
    if not sample.is_file() or not fresh.is_file():
        print(f"FAIL sample {name}: {sample if not sample.is_file() else fresh} is missing")
        return 1
    a, b = shape(sample.read_text()), shape(fresh.read_text())
    if a == b:
        print(f"ok   sample {name}: this run's transcript has the shape of "
              f"docs/samples/{name}.txt ({len(a)} lines)")
        return 0
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    print(f"FAIL sample {name}: docs/samples/{name}.txt is stale at its line {at + 1} "
          f"({len(a)} lines, this run {len(b)}):\n  sample: "
          f"{a[at] if at < len(a) else '(none)'}\n  run:    {b[at] if at < len(b) else '(none)'}\n"
          f"  copy {fresh} to it, and the docs' block with it")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
