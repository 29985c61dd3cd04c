#!/usr/bin/env python3
"""Checks of lab/scenarios/join.sh's results (tests/lab/join.sh).

    join_check.py RESULTS.jsonl          the asserts, one line each; exit 1 on a FAIL
    join_check.py --table RESULTS...     per run: when the trigger and the tools
                                         started and first answered (guest uptime),
                                         and the counts against the oracle

Counts only, never the host's pace (a tool that did not join and printed
nothing until the walk had ended was not exercised, and says so):
  live-first      `fgraphtop -j`'s first record after its `start` is `joined`
  lines-first     `fgraphtop --no-screen` says "ACTIVATION UNDER WAY (joined" before
                  its first interval line
  record          the live view's activation record says "joined": true
  served          its served_total (inferred before + counted since) is the
                  oracle's U (fgt-trigger's count just before the walk; for
                  bpftrace, the stacks allocated less those freed: oracle_u())
  sweeps-before   the sweeps it inferred before joining are within one batch of
                  the kernel's: the kernel's in all (unfixed: ceil(U / 32), one
                  more when U is a multiple of 32) less those the tracepoints saw
  check           `fgraphtop check -j` answered, and said the step was under way,
                  with the trigger's pid
  explain         `fgraphtop --explain -j` answered, and marked its fentry/fexit
                  probes deferred
  schema          every record of the four against docs/json.md
  no-silent-wait  a tool whose main thread was seen in a kernel mutex or an
                  RCU grace period's wait over
                  a second of samples said so ("lock_wait")
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import json_schema  # noqa: E402

BATCH = 32
# the sampler's period is 0.25 s: over a second of samples is five in a row
BLOCK_SPAN_S = 1.0
BLOCK_GAP_S = 0.6


def load(path):
    recs = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    recs.append(json.loads(line))
                except ValueError:
                    pass
    return recs


def parse(path):
    recs = load(path)
    run = next((r for r in recs if r.get("type") == "join_run"), None)
    lines, texts, blocks = {}, {}, {}
    for r in recs:
        t = r.get("type")
        if t == "join_line":
            lines.setdefault(r["name"], []).append((r["t"], r["rec"]))
        elif t == "join_text":
            texts.setdefault(r["name"], []).append((r["t"], r["line"]))
        elif t == "join_block":
            blocks.setdefault(r["name"], []).append((r["t"], r["stack"]))
    kern = next((r for r in recs if r.get("type") == "run"), {})
    return run, lines, texts, blocks, kern


def oracle_u(run):
    """The threads the walk served. fgt-trigger counts them just before its
    walk; for bpftrace (bt-*), which compiles for seconds first, the shell's
    count at the walk's start also holds tasks that exit before it reaches
    them (bpftrace's own threads: 3 of 30,063 in a lab run), so the
    kernel's own allocations say it: the stacks allocated from
    register_ftrace_graph less those it freed unused (fgt-oracle allocs;
    each allocation of another size, the list, freed once by kfree)."""
    al = run.get("allocs")
    if not isinstance(al, dict) or "kmem_cache_free" not in al or al.get("lost"):
        return run["rec"].get("u")
    by = {int(k): v for k, v in al["by_size"].items()}
    stack = max(by, key=by.get)
    lists = al["allocs"] - by[stack]
    return by[stack] - (al["kfree"] + al["kmem_cache_free"] - lists)


def kernel_sweeps(u):
    # FACTS: max(1, ceil(U/32)), one empty sweep more when U is a multiple of 32
    return max(1, math.ceil(u / BATCH)) + (1 if u and u % BATCH == 0 else 0)


def joined_activation(live):
    for _, r in live:
        if r.get("type") == "activation" and r.get("joined"):
            return r
    return None


def spans(samples):
    """Runs of consecutive samples (gaps under BLOCK_GAP_S): (first, last)."""
    out, cur = [], None
    for t, _ in sorted(samples):
        if cur and t - cur[1] <= BLOCK_GAP_S:
            cur[1] = t
        else:
            cur = [t, t]
            out.append(cur)
    return out


def said_wait(name, lines, texts):
    for _, r in lines.get(name, []):
        if r.get("type") == "warning" and r.get("code") == "lock_wait":
            return True
    for _, l in texts.get(name, []):
        if "waiting for the kernel's ftrace lock" in l or "trace_types_lock" in l:
            return True
    return False


def check(path):
    results = []

    def ok(name, cond, why):
        results.append((name, bool(cond), why))

    run, lines, texts, blocks, _ = parse(path)
    if not run:
        return [("run", False, "no join_run record")]
    u = oracle_u(run)
    live = lines.get("live", [])
    types = [r.get("type") for _, r in live]
    first = types[types.index("start") + 1] if "start" in types and \
        types.index("start") + 1 < len(types) else None
    tl = [l for _, l in texts.get("lines", [])]
    ju = next((i for i, l in enumerate(tl) if "ACTIVATION UNDER WAY (joined" in l), None)
    iv = next((i for i, l in enumerate(tl) if len(l) > 8 and l[2] == ":" and l[5] == ":"
               and l[:2].isdigit()), len(tl))
    act = joined_activation(live)
    late = {n: unexercised(n, run, lines, texts) for n in ("live", "lines", "check", "explain")}
    if late["live"]:
        ok("live-first", True, late["live"])
    else:
        ok("live-first", first == "joined", f"first record after start: {first!r}")
    if late["lines"]:
        ok("lines-first", True, late["lines"])
    else:
        ok("lines-first", ju is not None and ju < iv,
           f"joined line at {ju}, first interval line at {iv}")
    ok("record", act is not None or late["live"], late["live"] or
       "an activation record with joined: true")
    if act:
        js = act["joined_step"]
        total = js["inferred"]["served_total"]
        # bt-*: the kernel's served (u) and the shell's count at the walk's
        # start differ by the tasks that exited before the walk reached
        # them; the count cannot tell those from tasks that exited after
        # it served them (src/model/joined.c), so it may land anywhere
        # between. Exact everywhere else.
        hi = max(u, run["rec"].get("u") or u) if str(run.get("trigger", "")).startswith("bt-") else u
        ok("served", u <= total <= hi, f"served_total {total}, oracle U {u}" +
           (f" (to {hi}: exits during the walk)" if hi != u else ""))
        kb = kernel_sweeps(u) - js["seen"]["sweeps"]
        sb = js["inferred"]["sweeps_before"]
        ok("sweeps-before", abs(sb - kb) <= 1,
           f"inferred {sb}, the kernel's {kb} (of {kernel_sweeps(u)}, {js['seen']['sweeps']} seen)")
    chk = [r for _, r in lines.get("check", []) if r.get("type") == "check"]
    uw = chk[0].get("under_way") if chk else None
    ok("check", late["check"] or (chk and isinstance(uw, dict) and uw.get("trigger_known") and
                                  uw.get("pid")),
       late["check"] or (f"check's under_way: {uw!r}" if chk else "no check record"))
    pl = [r for _, r in lines.get("explain", []) if r.get("type") == "plan"]
    deferred = [p for p in pl[0].get("probes", []) if p.get("deferred")] if pl else []
    ok("explain", late["explain"] or (pl and isinstance(pl[0].get("under_way"), dict) and deferred),
       late["explain"] or
       f"{len(deferred)} probes deferred, under_way {pl[0].get('under_way') if pl else None!r}")
    errs, v = [], json_schema.validator()
    for name in ("live", "check", "explain"):
        for i, (_, r) in enumerate(lines.get(name, [])):
            if "schema" in r:
                errs += json_schema.check_record(v, r, f"{name}[{i}]")
    ok("schema", not errs, "; ".join(errs[:5]) or "every record conforms")
    for name in sorted(set(lines) | set(texts)):
        long_ = [s for s in spans(blocks.get(name, [])) if s[1] - s[0] >= BLOCK_SPAN_S]
        ok(f"no-silent-wait {name}", not long_ or said_wait(name, lines, texts),
           f"{len(long_)} waits of a second or more seen, notice "
           f"{'given' if said_wait(name, lines, texts) else 'not given'}")
    return results


def unexercised(name, run, lines, texts):
    """Why tool NAME need not have joined, or None. On a loaded host a tool
    can take longer to start than the walk lasts (a CPU hog beside make
    test, 2026-12-07: lab-stock's 22 s walk was over before any of the four
    printed a line; its count's iterator took 302 s to load under the
    tracer). A tool that joined is held to every check; one that did not,
    and printed nothing until the walk had ended, was not exercised: said,
    not failed. The pace of the host decides only how much is checked."""
    said = first_said(name, lines, texts)
    joined = any(r.get("type") == "joined" or isinstance(r.get("under_way"), dict)
                 for _, r in lines.get(name, []))
    joined = joined or any("(joined" in l for _, l in texts.get(name, []))
    if joined or said is None or said < run["t_trigger_done"]:
        return None
    return (f"not exercised: {name}'s first line at {said:.1f} s, after the walk "
            f"ended at {run['t_trigger_done']:.1f} s (the host's pace)")


def first_said(name, lines, texts):
    """The guest's uptime at tool NAME's first line, None if it said nothing."""
    ts = [t for t, r in lines.get(name, []) if r.get("type") not in ("log",)]
    ts += [t for t, _ in texts.get(name, [])]
    return min(ts) if ts else None


def first_answer(name, run, lines, texts):
    t = first_said(name, lines, texts)
    return None if t is None else t - run["t_tools"]


def table(paths):
    print("run | kernel | trigger | t_trigger | t_tools | walk in (s) | first answer: live, lines, "
          "check, explain (s after start) | U (oracle) | served (fgraphtop) | sweeps before: "
          "inferred / kernel | seen")
    for p in paths:
        run, lines, texts, _, kern = parse(p)
        if not run:
            print(f"{p}: no run")
            continue
        act = joined_activation(lines.get("live", []))
        u = oracle_u(run)
        fa = [first_answer(n, run, lines, texts) for n in ("live", "lines", "check", "explain")]
        fa = ", ".join("-" if x is None else f"{x:.2f}" for x in fa)
        if act:
            js = act["joined_step"]
            served = js["inferred"]["served_total"]
            sb = js["inferred"]["sweeps_before"]
            kb = kernel_sweeps(u) - js["seen"]["sweeps"]
            seen = js["seen"]["sweeps"]
        else:
            served = sb = kb = seen = "-"
        print(f"{os.path.basename(os.path.dirname(p))} | {kern.get('kernel', '?')} "
              f"{kern.get('release', '')} | {run['trigger']} | {run['t_trigger']:.2f} | "
              f"{run['t_tools']:.2f} | {run['t_tools'] - run.get('t_walk', run['t_trigger']):.2f} | "
              f"{fa} | {u} | "
              f"{served} | {sb} / {kb} | {seen}")


def main(argv):
    if argv and argv[0] == "--table":
        table(argv[1:])
        return 0
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    res = check(argv[0])
    bad = 0
    for name, good, why in res:
        print(f"{'ok' if good else 'FAIL'} {name}: {why}")
        bad += not good
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
