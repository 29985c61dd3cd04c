#!/usr/bin/env python3
"""A recorded walk for the replays (tests/data/*.sweeps), from a lab run.

    tests/data/sweeps-of.py RESULTS.jsonl [SEQ] < HEADER > NAME.sweeps

RESULTS.jsonl is lab/run.sh's (fgraphtop -j's records inside "fgt" lines,
or fgraphtop -j's own lines); SEQ picks the activation (default: the one
with the most sweeps). HEADER on stdin is the prose the file starts with:
where and how it was recorded (kernel, scenario, the host's load), each line
written out as a comment. Then the line the replays read U from, and one
line per sweep: "served walk_ns alloc_ns" for an unfixed walk, "served
walk_ns alloc_ns batch nonblocking failed_nonblocking" for a fixed one
(tests/model/test_progress.c load_sweeps()).
"""
import json
import sys


def activations(path):
    for line in open(path):
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        rec = r.get("rec") if r.get("type") == "fgt" else r
        if isinstance(rec, dict) and rec.get("type") == "activation":
            yield rec


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    acts = list(activations(sys.argv[1]))
    if len(sys.argv) == 3:
        acts = [a for a in acts if a["seq"] == int(sys.argv[2])]
    if not acts:
        print("sweeps-of: no such activation", file=sys.stderr)
        return 1
    a = max(acts, key=lambda a: a["sweeps"])
    fixed = a["verdict"]["verdict"] == "fixed"
    for line in sys.stdin.read().rstrip("\n").split("\n"):
        print(("# " + line).rstrip())
    print("# One line per sweep: served walk_ns alloc_ns"
          + (" batch nonblocking failed_nonblocking." if fixed else "."))
    print(f"# sweeps={a['sweeps']} served={a['served']} nr_threads={a['nr_threads']} "
          f"duration_ns={a['duration_ns']}")
    for s in a["per_sweep"]:
        extra = f" {s['batch']} {s['nonblocking']} {s['failed_nonblocking']}" if fixed else ""
        print(f"{s['served']} {s['walk_ns']} {s['alloc_ns']}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
