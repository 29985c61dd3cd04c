#!/usr/bin/env python3
"""make bench's estimate part: how often the time left fell inside the range.

    lab/bench/estimate.py OUT

Reads OUT/raw/estimate-LOAD-KERNEL.rN.jsonl (lab/bench/bench.sh: the pressure
scenario, kswapd starved, on a quiet host and beside tests/load.sh's CPU hog)
and writes OUT/estimate.md. For every progress record fgraphtop -j -i 1 wrote
during the walk with a time left: the time really left (to the activation's
end) against it. A range (unfixed; fixed walking again, its high end bounded)
holds it when low <= left <= high; an open one ("X or more") when low <= left;
a point (a fixed kernel's one walk, "about X") is left out.
The hit rate is a measure, not a gate: both ends assume the walk goes on at a
pace it has shown, and a host or reclaim that changes its pace ends it
elsewhere (issue 38). Repeatability: the hit rate of each boot, lowest to
highest. Exit 0 whatever the rates; 1 only when there is nothing to read.
"""
import glob
import json
import os
import re
import sys


def walk(path):
    """(activation, progress records of it) of the run's longest walk."""
    acts, prog = [], []
    for line in open(path):
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        rec = r.get("rec") if r.get("type") == "fgt" else None
        if not isinstance(rec, dict):
            continue
        if rec.get("type") == "activation":
            acts.append(rec)
        elif rec.get("type") == "progress":
            prog.append(rec)
    if not acts:
        return None, []
    a = max(acts, key=lambda a: a["sweeps"])
    return a, [p for p in prog if p["seq"] == a["seq"] and p.get("eta_ns") is not None]


def judge(a, pr):
    """(hits, ranges, points): ranges and open ones judged; points apart."""
    hits = ranges = points = 0
    for p in pr:
        left = a["duration_ns"] - p["elapsed_ns"]
        if p["eta_high_ns"] is None:
            ranges += 1
            hits += p["eta_ns"] <= left
        elif p["eta_high_ns"] > p["eta_ns"] or p.get("degraded"):
            ranges += 1
            hits += p["eta_ns"] <= left <= p["eta_high_ns"]
        else:
            points += 1
    return hits, ranges, points


def main(out):
    files = sorted(glob.glob(os.path.join(out, "raw", "estimate-*.jsonl")))
    groups = {}
    for f in files:
        m = re.match(r"estimate-(quiet|loaded)-(.+)\.r(\d+)\.jsonl$", os.path.basename(f))
        if not m:
            continue
        a, pr = walk(f)
        g = groups.setdefault((m[1], m[2]), [])
        if a is None:
            g.append(None)
            continue
        g.append((a, judge(a, pr)))
    if not groups:
        print("estimate: no raw results (BENCH_PARTS=estimate)", file=sys.stderr)
        return 1
    rows = ["| host | kernel | boots | walk (s), each | estimates judged | inside | "
            "hit rate | per boot (repeatability) |",
            "|---|---|---|---|---|---|---|---|"]
    for (load, k), g in sorted(groups.items(), key=lambda x: (x[0][1], x[0][0] != "quiet")):
        ok = [x for x in g if x]
        hits = sum(h for _, (h, _, _) in ok)
        n = sum(r for _, (_, r, _) in ok)
        per = [f"{h}/{r}" for _, (h, r, _) in ok]
        rates = [h / r for _, (h, r, _) in ok if r]
        walks = ", ".join(f"{a['duration_ns'] / 1e9:.2f}" for a, _ in ok)
        spread = (f"{min(rates) * 100:.0f} - {max(rates) * 100:.0f} %: " if rates else "") + " ".join(per)
        rows.append(f"| {load} | {k} | {len(ok)} of {len(g)} | {walks} | {n} | {hits} | "
                    f"{hits / n * 100:.0f} % | {spread} |" if n else
                    f"| {load} | {k} | {len(ok)} of {len(g)} | {walks} | 0 | 0 | - | - |")
    text = ("# The time left: how often it fell inside the range\n\n"
            "make bench's estimate part (lab/bench/estimate.py): the pressure scenario, "
            "kswapd starved, U = 30k, on a quiet host and beside `tests/load.sh`'s "
            "`stress-ng --cpu 1`; every progress record of `fgraphtop -j -i 1` with a time "
            "left, against the time really left to the activation's end. A measure, not a "
            "gate: the range holds while the walk keeps a pace it has shown.\n\n"
            + "\n".join(rows) + "\n")
    with open(os.path.join(out, "estimate.md"), "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
