#!/usr/bin/env python3
"""Formatting for lab/demo.sh.

    demo.py follow FILE PID   the same, reading FILE as it grows until PID is gone
    demo.py stream            stdin: the guest's result lines (ttyS1) as they come;
                              prints fgraphtop's own output (demo_text) live, empty
                              rows at both ends of a latency histogram left out
    demo.py table DIR...      the side-by-side comparison of the runs in DIR...
                              (each a lab/run.sh -o directory of demo-live)
"""
import json
import re
import sys
import textwrap

ROW = re.compile(r"^\s+\d+ -> \d+\s+: (\d+)\s+\|")


def stream(inp, out):
    rows = []

    def flush():
        nz = [i for i, r in enumerate(rows) if ROW.match(r).group(1) != "0"]
        if nz:
            for r in rows[nz[0]:nz[-1] + 1]:
                print("  " + r, file=out)
        rows.clear()

    for raw in inp:
        raw = raw.strip().replace("\r", "")
        if not raw.startswith('{"type":"demo_text"'):
            continue
        try:
            line = json.loads(raw)["line"]
        except (ValueError, KeyError):
            continue
        if ROW.match(line):
            rows.append(line)
            continue
        flush()
        print("  " + line, file=out, flush=True)
    flush()


def follow(path, pid, out):
    """Yield FILE's lines as they are written, until process PID has exited."""
    import os
    import time

    def alive():
        try:
            os.kill(pid, 0)
            return True
        except ProcessLookupError:
            return False
        except PermissionError:
            return True

    def lines():
        f, buf, pos = None, "", 0
        while True:
            running = alive()
            if f is None and os.path.exists(path):
                f = open(path, "rb")
            if f is not None:
                if os.path.getsize(path) < pos:     # truncated: started again
                    f.seek(0)
                    buf, pos = "", 0
                chunk = f.read()
                pos = f.tell()
                buf += chunk.decode("utf-8", "replace")
                *done, buf = buf.split("\n")
                yield from done
            if not running:
                if buf:
                    yield buf
                return
            time.sleep(0.2)

    stream(lines(), out)


def load(d):
    run, act, summ, demo = {}, None, None, {}
    with open(f"{d}/results.jsonl") as f:
        for raw in f:
            try:
                r = json.loads(raw)
            except ValueError:
                continue
            t = r.get("type")
            if t == "run":
                run = r
            elif t == "demo":
                demo = r
            elif t == "fgt" and r.get("name") == "json":
                rec = r.get("rec", {})
                if rec.get("type") == "activation" and act is None:
                    act = rec
                elif rec.get("type") == "summary":
                    summ = rec
    return run, act, summ, demo


def ms(ns):
    return "-" if ns is None else f"{ns / 1e6:,.1f} ms"


def table(dirs, out):
    cols = []
    for d in dirs:
        run, act, summ, demo = load(d)
        a = act or {}
        al = a.get("allocations", {})
        per = a.get("per_sweep", [])
        v = (a.get("verdict") or {}) if act else {
            "verdict": (summ or {}).get("verdict", "-"),
            "evidence": (summ or {}).get("evidence", "no activation seen")}
        cols.append({
            "kernel": run.get("kernel", d),
            "release": run.get("release", "?"),
            "threads parked": f"{demo.get('parked', '?'):,}" if isinstance(demo.get("parked"), int) else "?",
            "threads (nr_threads)": f"{a['nr_threads']:,}" if "nr_threads" in a else "-",
            "lacking a stack (lab's U)": f"{demo['u']:,}" if isinstance(demo.get("u"), int) else "?",
            "trigger": (a.get("trigger") or {}).get("via", "-"),
            "sweeps": f"{a['sweeps']:,}" if "sweeps" in a else "-",
            "served": f"{a['served']:,}" if "served" in a else "-",
            "thread visits (sweeps x threads)": f"{a['sweeps'] * a['nr_threads']:,}" if "sweeps" in a and "nr_threads" in a else "-",
            "served per sweep (max)": f"{max(p['served'] for p in per):,}" if per else "-",
            "allocations blocking": f"{al.get('blocking', 0):,}" if al else "-",
            "allocations non-blocking": f"{al.get('nonblocking', 0):,}" if al else "-",
            "failed allocations": f"{al.get('failed_blocking', 0) + al.get('failed_nonblocking', 0):,}" if al else "-",
            "walk (all sweeps)": ms(a.get("walk_ns")),
            "allocation phase": ms(a.get("alloc_ns")),
            "end to end": ms(a.get("duration_ns")),
            "events lost during the activation": str(a.get("lost", "?")) if act else "-",
            "events lost, whole run": str((summ or {}).get("lost", "?")),
            "verdict": v.get("verdict", "-"),
            "evidence": v.get("evidence", "-"),
            "_visits": a["sweeps"] * a["nr_threads"] if "sweeps" in a and "nr_threads" in a else None,
            "_dur": a.get("duration_ns"),
            "_status": run.get("status"),
        })
    keys = [k for k in cols[0] if not k.startswith("_")]
    width = 36
    lw = max(len(k) for k in keys)
    sep = "-" * lw + "-+-" + "-+-".join("-" * width for _ in cols)

    def row(k, vals):
        wrapped = [textwrap.wrap(str(v), width) or [""] for v in vals]
        for i in range(max(len(w) for w in wrapped)):
            cells = [(w[i] if i < len(w) else "").ljust(width) for w in wrapped]
            print((k if i == 0 else "").ljust(lw) + " | " + " | ".join(cells).rstrip(), file=out)

    print(sep, file=out)
    row("", [c["kernel"] for c in cols])
    print(sep, file=out)
    for k in keys[1:]:
        row(k, [c[k] for c in cols])
    print(sep, file=out)
    if len(cols) == 2 and all(c["_dur"] and c["_visits"] for c in cols):
        a, b = cols
        print(f"{a['kernel']} / {b['kernel']}: thread visits x{a['_visits'] / b['_visits']:,.0f}, "
              f"end to end x{a['_dur'] / b['_dur']:.1f} (times under qemu TCG vary from run to "
              "run; the counts do not)", file=out)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "follow":
        try:
            follow(sys.argv[2], int(sys.argv[3]), sys.stdout)
        except KeyboardInterrupt:
            sys.exit(130)
    elif len(sys.argv) >= 2 and sys.argv[1] == "stream":
        stream(sys.stdin, sys.stdout)
    elif len(sys.argv) >= 3 and sys.argv[1] == "table":
        table(sys.argv[2:], sys.stdout)
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
