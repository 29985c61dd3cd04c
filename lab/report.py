#!/usr/bin/env python3
"""Turn lab runs' JSON lines into a table.

    lab/report.py [--md] RESULTS.jsonl|OUTDIR ... (or JSON lines on stdin)

Each file is one run (lab/run.sh's results.jsonl). A run gives one row per result
line that carries "u" (an activation: U, the oracle's sweeps, its duration), or one
row for the run itself. Columns: kernel, version, scenario, trigger, U, sweeps
(oracle; "-" where alloc_retstack_tasklist is not attachable), expected
(max(1, ceil(U/32)) unfixed, 1 on kernels named *fixed*), -EAGAIN, activation time, splats, status.
"""
import json
import os
import sys


def load(src):
    lines = []
    for raw in src:
        raw = raw.strip()
        if not raw.startswith("{"):
            continue
        try:
            lines.append(json.loads(raw))
        except ValueError:
            pass
    return lines


def runs_of(lines):
    """Split a stream into runs: each ends with its {"type":"run"} line."""
    cur = []
    for obj in lines:
        cur.append(obj)
        if obj.get("type") == "run":
            yield cur
            cur = []
    if cur:
        yield cur


def fmt_ns(ns):
    if ns is None or ns == "":
        return "-"
    ns = float(ns)
    return "%.1f ms" % (ns / 1e6) if ns < 1e10 else "%.2f s" % (ns / 1e9)


def rows_of(run_lines):
    run = next((o for o in run_lines if o.get("type") == "run"), {})
    base = {
        "kernel": run.get("kernel", "?"),
        "version": run.get("version") or run.get("release", "?"),
        "scenario": run.get("scenario", "?"),
        "splats": str(len(run.get("splats", []))) if run else "?",
        "status": str(run.get("status", "?")),
    }
    rows = []
    for o in run_lines:
        if "u" not in o or o.get("type") in ("run", "trigger"):
            continue
        u = o.get("u")
        oracle = o.get("oracle") or {}
        sweeps = o.get("sweeps")
        if oracle.get("attachable"):
            sweeps = oracle.get("calls")
        exp = o.get("expected_sweeps")
        if exp is None and isinstance(u, int):
            exp = max(1, (u + 31) // 32)
        # The fix's promise: one sweep whatever U (lab kernels say "fixed").
        if "fixed" in base["kernel"] and exp is not None:
            exp = 1
        eagain = oracle.get("eagain") if oracle.get("attachable") else o.get("eagain")
        r = dict(base)
        r.update({
            "trigger": str(o.get("trigger", "-")),
            "U": str(u),
            "sweeps": "-" if sweeps is None else str(sweeps),
            "expected": "-" if exp is None else str(exp),
            "eagain": "-" if eagain is None else str(eagain),
            "activation": fmt_ns(o.get("activation_ns", o.get("on_ns"))),
        })
        rows.append(r)
    if not rows:
        r = dict(base)
        r.update({k: "-" for k in ("trigger", "U", "sweeps", "expected", "eagain",
                                   "activation")})
        rows.append(r)
    return rows


COLS = ["kernel", "version", "scenario", "trigger", "U", "sweeps", "expected",
        "eagain", "activation", "splats", "status"]


def main(argv):
    md = "--md" in argv
    paths = [a for a in argv if a != "--md"]
    streams = []
    if not paths:
        streams.append(load(sys.stdin))
    for p in paths:
        if os.path.isdir(p):
            p = os.path.join(p, "results.jsonl")
        with open(p) as f:
            streams.append(load(f))
    rows = []
    for s in streams:
        for run in runs_of(s):
            rows.extend(rows_of(run))
    width = {c: max([len(c)] + [len(r[c]) for r in rows]) for c in COLS}
    if md:
        print("| " + " | ".join(COLS) + " |")
        print("|" + "|".join(" --- " for _ in COLS) + "|")
        for r in rows:
            print("| " + " | ".join(r[c] for c in COLS) + " |")
    else:
        print("  ".join(c.ljust(width[c]) for c in COLS))
        for r in rows:
            print("  ".join(r[c].ljust(width[c]) for c in COLS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
