#!/usr/bin/env python3
"""Exact checks of one pressure run (lab/scenarios/pressure.sh, tests/lab/pressure.sh).

    tests/lab/pressure_check.py KERNEL RESULTS.jsonl

fgraphtop's activation record against the oracle (the kernel's own kmem trace
events from the function holding the sweep, read back as text in the guest):
every count equal. The pressure must be real (non-blocking failures, clean
page cache holding most of memory, no OOM kill), the verdict fixed with the
degraded evidence, and the sweeps those of the kernel's code: the series'
reserve of 32 (1 + floor(K / 33) sweeps, each but the last ended by its 33rd
failure), or lab-fixed-plus's doubling one (at most 1 + ceil(log2(K/32 + 1))).
The other fix shapes (issue 39) by their own rules, one walk each:
lab-shape-single leaves a thread without a stack per failure (no reserve, no
blocking allocation); lab-shape-pinned serves each failure by one blocking
allocation with its cursor pinned, and leaves none.
With CHECK=1 (a pressure_check record), `fgraphtop check --trigger` caused the
activation: it must answer fixed with status 1 (0 on a boot whose walk saw
no failure: then that is the right answer) and carry the same figures in
its JSON and its textfile. Otherwise fgraphtop's progress records (-i 1)
through the walk: never taken for unfixed, served never past the
activation's, a degraded range open first (no time or range is judged: they
depend on the host's pace; tests/model/test_progress.c replays recorded walks).
With kswapd starved (STARVE=1) the failures must happen on every kernel:
no boot again. Prints "ok ..." lines, figures on lines starting with five
spaces; exit 1 on any failed check; exit 3 when every check held but the series' kernel saw no
failure on this boot at all (kswapd kept up with the walk: tests/lab/pressure.sh
boots it again).
"""
import json
import math
import sys

failed = False
none = False    # the series' kernel, no failure this boot: exit 3


def check(cond, what):
    global failed
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failed = True


def check_answer(kernel, pc, a, o):
    """`fgraphtop check --trigger` under the pressure: its own activation saw
    the failures, so it answers fixed with status 1, and its JSON and textfile
    carry the oracle's figures."""
    ans, prom = pc["answer"] or {}, pc["prom"] or {}
    act = ans.get("activation") or {}
    k, s = o["nb_failed"], a["sweeps"]
    reserve = a["served"] - a["allocations"]["nonblocking"]
    status = 1 if k > 0 else 0
    check(pc["status"] == status and ans.get("status") == status and ans.get("verdict") == "fixed",
          f"{kernel}: check --trigger: fixed with status {status} (status {pc['status']}, "
          f"{ans.get('verdict')}: {ans.get('reason')!r})")
    check(act.get("triggered_by_check") is True, f"{kernel}: check judged its own activation")
    # the activation's own: nothing of the walk lost (its lost). check's
    # top-level lost_events counts every program run the kernel skipped
    # during the check too: with kswapd starved, three tasks share CPU 0 and
    # one BPF run, preempted, can make another's skip (recursion); that was 1
    # on 2026-12-02, outside the walk (its figures exact), and is printed,
    # not judged
    check(act.get("lost") == 0, f"{kernel}: check's activation lost no event "
          f"({act.get('lost')}; during the check: {ans.get('lost_events')})")
    for mine, want in (("failed_nonblocking", k), ("reserve_served", reserve),
                       ("extra_sweeps", s - 1), ("sweeps", s), ("served", a["served"])):
        check(act.get(mine) == want, f"{kernel}: check's activation.{mine} {act.get(mine)} == {want}")
    for metric, v in (("fgraphtop_check_status", status), ("fgraphtop_activation_sweeps", s),
                      ("fgraphtop_activation_nonblocking_failures", k),
                      ("fgraphtop_activation_extra_sweeps", s - 1)):
        check(prom.get(metric) == v, f"{kernel}: textfile {metric} {prom.get(metric)} == {v}")
    print(f"     {kernel}: check --trigger: status {pc['status']}: {ans.get('reason')}")


def check_progress(kernel, recs, a):
    """fgraphtop's progress records (it ran at -i 1) through the walk: a fixed
    kernel walking again is never taken for an unfixed one, the figures only
    rise, and a degraded range's high end is open first and bounded only from
    a third served. Whatever the host's pace: which records a walk gets (how
    many, at which sweep) and where the time left falls against a range
    depend on it, so those are printed, not judged; the estimate's promise is
    held on recorded walks instead (tests/model/test_progress.c
    test_recorded_starved, tests/data/lab-fixed-*starved*.sweeps, whose
    header says how to add this run's walk: tests/data/sweeps-of.py)."""
    pr = [r["rec"] for r in recs if r.get("type") == "fgt" and r["rec"].get("type") == "progress"
          and r["rec"].get("seq") == a["seq"]]
    print(f"     {kernel}: {len(pr)} progress records through a {a['duration_ns'] / 1e9:.1f} s walk")
    # inconclusive only while the data cannot tell (docs/json.md so_far):
    # the first sweep's blocking batch, the reserve, before the walk's first
    # non-blocking allocation; the CI run of 2026-12-06 caught one record
    # 3.5 ms in, with 1 served, that the rule taken before called wrong
    early = [r for r in pr if r["so_far"] == "inconclusive" and r["sweeps"] <= 1
             and r["served"] <= 32]
    bad = [r for r in pr if r["so_far"] == "not_fixed" or
           (r["served"] and r["so_far"] != "fixed" and r not in early)]
    check(not bad, f"{kernel}: every progress record says fixed once the walk has served "
          f"a thread ({[(r['so_far'], r['sweeps'], r['served']) for r in bad][:3]}; "
          f"{len(early)} inside the reserve's batch)")
    rising = all(x["served"] <= y["served"] and x["sweeps"] <= y["sweeps"] for x, y in zip(pr, pr[1:]))
    check(rising and all(r["served"] <= a["served"] and r["sweeps"] <= a["sweeps"] for r in pr),
          f"{kernel}: served and sweeps only rise, up to the activation's")
    degraded = [r for r in pr if r.get("degraded")]
    # its high end waits for a third of the threads served before the sweep
    # under way (docs/json.md): null until then, a number from then on, so
    # the open ones come first and a bounded one has served a third of U
    # (threads, which is at least the activation's served). How far past a
    # third an open one can be is the size of the sweep under way, which
    # the reclaim's pace sets: replayed (test_recorded_starved), not judged
    opened = [r for r in degraded if r["eta_high_ns"] is None]
    first = all(r["eta_high_ns"] is None for r in degraded[:len(opened)])
    check(first and all(r["served"] >= r["threads"] // 3 for r in degraded if r not in opened),
          f"{kernel}: the high end open first, bounded from a third of U served "
          f"({[(r['served'], r['eta_high_ns']) for r in degraded][:5]})")
    # The time left against the range: printed, not judged. The time left
    # is to the activation's end (after its last sweep it still starts the
    # tracer), the estimate's to the walk's; both move with the host's pace
    # (issue 38: a quiet host missed too, 1.25 s left against 0.06 - 0.75 s)
    inside = 0
    for r in degraded:
        left = a["duration_ns"] - r["elapsed_ns"]
        if r["eta_high_ns"] is None:
            ok = r["eta_ns"] <= left
            rng = f"{r['eta_ns'] / 1e9:.2f} s or more (open)"
        else:
            ok = r["eta_ns"] <= left <= r["eta_high_ns"]
            rng = f"range {r['eta_ns'] / 1e9:.2f} - {r['eta_high_ns'] / 1e9:.2f} s"
        inside += ok
        print(f"     {kernel}: progress at {r['elapsed_ns'] / 1e9:.1f} s, {r['sweeps']} sweeps, "
              f"{r['served']} served: left {left / 1e9:.2f} s, {rng}{'' if ok else ' (outside)'}")
    if degraded:
        print(f"     {kernel}: the time left inside {inside} of {len(degraded)} degraded "
              f"estimates (a measure: make bench)")


# The shapes a fix can take beside the series' reading (lab/patches/shape-*):
# one walk, and what each does with a failed GFP_NOWAIT allocation.
SHAPES = {"lab-shape-single": "single", "lab-shape-pinned": "pinned"}


def check_shape(kernel, shape, u, a, k):
    """One walk, inline; single: every failure a thread left without a
    stack; pinned: every failure served by one blocking allocation."""
    al, v = a["allocations"], a["verdict"]
    check(a["sweeps"] == 1 and a.get("walks") == "inline",
          f"{kernel}: one walk, inline ({a['sweeps']} sweeps, walks {a.get('walks')})")
    check(al["freed"] == 0, f"{kernel}: nothing freed ({al['freed']})")
    s = "s" if k != 1 else ""
    lead = f"one sweep: {k} non-blocking allocation{s} failed under memory pressure, "
    if shape == "single":
        check(al["blocking"] == 0, f"{kernel}: no blocking allocation ({al['blocking']})")
        check(a["served"] == u - k, f"{kernel}: served {a['served']} == U {u} - failures {k}")
        lead += f"{k} thread{s} left without a shadow stack"
    else:
        check(al["blocking"] == k, f"{kernel}: a blocking allocation per failure "
              f"({al['blocking']} for {k})")
        check(a["served"] == u, f"{kernel}: served {a['served']} == U {u}")
        lead += "each served by a blocking allocation"
    check(v["verdict"] == "fixed" and v["evidence"].startswith(lead),
          f"{kernel}: verdict fixed, degraded: {v['evidence']!r}")


def main(kernel, path):
    global none
    recs = [json.loads(line) for line in open(path) if line.startswith("{")]
    run = [r for r in recs if r.get("type") == "run"]
    pr = [r for r in recs if r.get("type") == "pressure"]
    acts = [r["rec"] for r in recs if r.get("type") == "fgt" and r["rec"].get("type") == "activation"]
    check(len(run) == 1 and run[0]["status"] == 0 and not run[0]["splats"],
          f"{kernel}: the guest ran clean (status {run[0]['status'] if run else None})")
    check(len(pr) == 1, f"{kernel}: one pressure record")
    check(len(acts) == 1, f"{kernel}: fgraphtop saw one activation ({len(acts)})")
    if failed:
        return 1
    p, a, o = pr[0], acts[0], pr[0]["oracle"]
    al = a["allocations"]
    k = o["nb_failed"]
    check(p["oom_kills"] == 0, f"{kernel}: no OOM kill")
    check(o["lost"] == 0 and o["events"] > 0, f"{kernel}: the oracle lost no event ({o['events']} seen)")
    # the oracle pairs each free with an allocation by its pointer: the
    # pointers must be the real ones (no_hash_pointers), every reserve stack's
    # distinct
    check(o.get("res_ptrs") == o["blk_ok"],
          f"{kernel}: the oracle's reserve pointers distinct ({o.get('res_ptrs')} of {o['blk_ok']})")
    pc = [r for r in recs if r.get("type") == "pressure_check"]
    starved = bool(p.get("starve"))
    if starved:
        # kswapd starved of CPU: the walk meets the min watermark for sure,
        # and on lab-fixed-plus uses up its reserves of 32 and 64 at least
        need = 33 + 65 if kernel == "lab-fixed-plus" else 33
        check(k >= need, f"{kernel}: kswapd starved: at least {need} non-blocking failures (oracle: {k})")
    elif k == 0 and (kernel == "lab-fixed-plus" or pc):
        # kswapd kept up with this boot's walk: seen on 1 of the 3 boots of
        # lab-fixed-plus at the default watermarks recorded on 2026-12-02
        # (0, 26, 2022 failures; lab-fixed: 66, 99, 231, 264, 165), and on
        # lab-fixed's check run of 2026-12-02 15:20 on a loaded host (its
        # walk took 523 ms, kswapd freed 11 MiB meanwhile): the counts are
        # still checked, the doubling or check's status 1 is not
        print(f"     {kernel}: no non-blocking failure this boot (kswapd kept up): "
              f"{'the reserve doubling' if kernel == 'lab-fixed-plus' else 'check status 1'} "
              "not exercised")
    elif k == 0:
        # the pressure is real only when the walk meets it: another boot
        # (tests/lab/pressure.sh) decides, the counts are still checked here
        none = True
        print(f"NONE {kernel}: no non-blocking failure this boot (kswapd kept up with the walk)")
    else:
        check(k > 0, f"{kernel}: real non-blocking failures under pressure (oracle: {k})")
    mt = p["mem_trigger"]
    check(mt["Cached"] > 4 * mt["MemFree"],
          f"{kernel}: clean page cache holds the memory at the trigger "
          f"(Cached {mt['Cached']} KiB, MemFree {mt['MemFree']} KiB)")
    check(len(p["zones"]) > 0 and all(z["min"] < z["low"] < z["high"] for z in p["zones"]),
          f"{kernel}: watermarks recorded")
    check(a["complete"] and a["lost"] == 0, f"{kernel}: the activation complete, nothing lost")
    # fgraphtop against the oracle, exactly
    for mine, theirs in (("failed_nonblocking", "nb_failed"), ("nonblocking", "nb_ok"),
                         ("blocking", "blk_ok"), ("failed_blocking", "blk_failed"),
                         ("freed", "freed")):
        check(al[mine] == o[theirs], f"{kernel}: {mine} {al[mine]} == oracle {o[theirs]}")
    u = p["u"]
    if kernel in SHAPES:
        check_shape(kernel, SHAPES[kernel], u, a, k)
        check_progress(kernel, recs, a)
        print(f"     {kernel}: U {u}{' starved' if starved else ''}: {k} non-blocking failures, "
              f"{a['served']} served, {al['blocking']} blocking, {a['duration_ns'] / 1e6:.1f} ms")
        return 1 if failed else 0
    check(a["sweeps"] == o["reserve_runs"],
          f"{kernel}: sweeps {a['sweeps']} == oracle's reserves {o['reserve_runs']}")
    if pc:
        # check parks threads of its own before it triggers: its scan, just
        # before, counts the threads lacking a stack; the thread it then
        # triggers from is one more
        u = (((pc[0]["answer"] or {}).get("trigger") or {}).get("unfixed_estimate") or {}).get("lacking")
        u = u + 1 if u is not None else None
    check(a["served"] == u, f"{kernel}: served {a['served']} == U {u} (threads lacking a stack)")
    per = a["per_sweep"]
    s = a["sweeps"]
    reserve = a["served"] - al["nonblocking"]
    check(reserve == k - (s - 1),
          f"{kernel}: from the reserve {reserve} == failures - extra sweeps {k - (s - 1)}")
    if kernel == "lab-fixed-plus":
        want = [32]
        for _ in range(s - 1):
            n = want[-1]
            lim = max(p["threads"], 32)
            want.append(max(n, lim) if n >= lim // 2 else n * 2)
        check([x["batch"] for x in per] == want, f"{kernel}: reserves doubling {want}")
        bound = 1 + math.ceil(math.log2(k / 32 + 1))
        check(s <= bound, f"{kernel}: {s} sweeps <= 1 + ceil(log2(K/32 + 1)) = {bound}")
    else:
        check(s == 1 + k // 33, f"{kernel}: {s} sweeps == 1 + floor({k} / 33)")
        check(all(x["batch"] == 32 for x in per), f"{kernel}: every reserve 32")
        check(all(x["failed_nonblocking"] == 33 for x in per[:-1]) and per[-1]["failed_nonblocking"] <= 32,
              f"{kernel}: each sweep but the last ended by its 33rd failure")
    v = a["verdict"]
    lead = f"1 + {s - 1} sweep{'s' if s != 2 else ''}: " if s > 1 else "one sweep: "
    lead += f"{k} non-blocking allocation{'s' if k != 1 else ''} failed under memory pressure"
    if k == 0:
        lead = "one sweep served"
    check(v["verdict"] == "fixed" and v["evidence"].startswith(lead),
          f"{kernel}: verdict fixed, degraded: {v['evidence']!r}")
    if pc:
        check_answer(kernel, pc[0], a, o)
    else:
        check_progress(kernel, recs, a)
    extra = sum(x["walk_ns"] for x in per[1:])
    print(f"     {kernel}: U {p['u']}{' starved' if starved else ''}: {k} non-blocking failures, {s} sweeps "
          f"({reserve} from the reserve), {a['duration_ns'] / 1e6:.1f} ms "
          f"(walks after the first {extra / 1e6:.1f} ms); MemFree {mt['MemFree']} -> "
          f"{p['mem_after']['MemFree']} KiB, Cached {mt['Cached']} -> {p['mem_after']['Cached']} KiB; "
          f"zones {[(z['zone'], z['min'], z['low'], z['high']) for z in p['zones']]}")
    return 1 if failed else 3 if none else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
