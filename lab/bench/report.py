#!/usr/bin/env python3
"""Render docs/bench/ from the raw results of lab/bench/bench.sh.

    lab/bench/report.py [OUT]      OUT defaults to docs/bench; reads OUT/raw/

Writes OUT/results.json (every figure, with its samples), OUT/results.md (tables,
each target met or the floor that blocks it, the machine), OUT/fix.png and
OUT/fix.svg (gnuplot) and OUT/README-snippet.md (the README's benchmark section).
Ratios are always of figures from the same guest run; spreads are min..max of
the samples, medians are what the targets are judged on. The cost part's figures
are judged under instruction counting (guest time = instructions executed), its
wall-clock figures are beside them, labelled.

Read from the top: main() says what is computed, in the order of the report;
each function follows its first caller.
"""
import json
import re
import math
import os
import statistics
import subprocess
import sys

KERNELS = ["lab-stock", "lab-fixed"]
# The series' bare metal (seed cover letter): 400,000 idle threads, a 60-core
# Sapphire Rapids machine, the whole bpf() system call.
SERIES = {"u": 400000, "stock_s": 227.0, "fixed_s": 0.092}
SERIES["ratio"] = SERIES["stock_s"] / SERIES["fixed_s"]
SERIES["rate"] = SERIES["u"] / SERIES["fixed_s"]          # allocations per second, fixed
COST_TOOLS = ["none", "fgraphtop", "floor", "bpftrace"]
LOADS = ["openclose", "fork", "exec"]
LOAD_NAMES = {"openclose": "open/close", "fork": "fork/exit", "exec": "shell script"}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "docs/bench"
    raw = Raw(os.path.join(out, "raw"))
    res = {"schema": 2, "host": raw.host, "series": SERIES}
    res["runs"], res["missing"] = runs_of(raw)
    res["fix"] = fix_part(raw.load("fix-lab-stock") + raw.load("fix-lab-fixed"))
    res["scale"] = scale_part(raw)
    res["consumer"] = consumer_part(raw.load("consumer"))
    res["ksyms"] = ksyms_part(raw.load("ksyms"))
    res["cost"] = cost_part(raw.load("cost-lab-stock"))
    res["cost_wall"] = cost_part(raw.load("cost-wall-lab-stock"))
    res["perturbation"] = perturbation_part(raw.load("perturb-lab-stock") +
                                            raw.load("perturb-lab-fixed"))
    res["static"] = static_part(raw)
    res["pressure"] = pressure_part(raw)
    res["hold"] = hold_part(raw)
    res["storm"] = next((x for x in raw.load("cost-lab-stock") if x.get("type") == "bench_storm"),
                        None)
    res["targets"] = targets(res)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
        f.write("\n")
    res["plots"] = plot(out, res)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(markdown(res)) + "\n")
    snip = readme_snippet(res)
    if snip:
        with open(os.path.join(out, "README-snippet.md"), "w") as f:
            f.write(snip)
    print(f"report: {out}/results.md, results.json" + (", fix.png, fix.svg" if res["plots"] else ""))


# ---- reading the raw results ---------------------------------------------------------

class Raw:
    """The raw/ directory: JSON lines per guest run, host.json."""

    def __init__(self, path):
        self.path = path
        self.host = {}
        p = os.path.join(path, "host.json")
        if os.path.exists(p):
            with open(p) as f:
                self.host = json.load(f)

    def names(self, prefix):
        if not os.path.isdir(self.path):
            return []
        return sorted(n[:-6] for n in os.listdir(self.path)
                      if n.startswith(prefix) and n.endswith(".jsonl"))

    def load(self, name):
        path = os.path.join(self.path, name + ".jsonl")
        rows = []
        if not os.path.exists(path):
            return rows
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    try:
                        rows.append(json.loads(line))
                    except json.JSONDecodeError:
                        pass
        return rows


def runs_of(raw):
    """Each guest run's record (kernel, accel, icount, seconds, status) and what failed."""
    runs, missing = {}, []
    names = [n for n in ("fix-lab-stock", "fix-lab-fixed", "cost-lab-stock", "cost-wall-lab-stock",
                         "perturb-lab-stock", "perturb-lab-fixed")] + raw.names("scale-") + \
        raw.names("static-") + raw.names("pressure-") + raw.names("hold-")
    for name in names:
        r = [x for x in raw.load(name) if x.get("type") == "run"]
        runs[name] = r[-1] if r else None
        if not r:
            missing.append(f"{name}: no run record (not run, or the runner failed)")
        elif r[-1]["status"] != 0:
            missing.append(f"{name}: guest run status {r[-1]['status']} (splats: {r[-1]['splats']})")
    return runs, missing



# ---- the hold's cost (lab/scenarios/bench-hold.sh) -------------------------------------

HOLD_LOADS = ("fork", "switch")


def hold_part(raw):
    """Per kernel: each load's ns per operation held and unheld, the held/unheld
    ratio of each repetition (one boot, so pairs compare), and the memory a
    parked thread costs held: (held MemFree drop - unheld) / threads."""
    out = {}
    for name in raw.names("hold-"):
        rows = raw.load(name)
        k = name[len("hold-"):]
        run = next((x for x in rows if x.get("type") == "run"), {})
        take = next((x.get("take") for x in rows if x.get("type") == "bench_hold_take"
                     and isinstance(x.get("take"), dict)), {}) or {}
        by = {}
        for x in rows:
            if x.get("type") != "bench_hold":
                continue
            by.setdefault((x.get("load"), x.get("mode")), {})[x.get("rep")] = x.get("result") or {}
        h = {"icount": run.get("icount"), "seconds": run.get("seconds"),
             "release": next((x.get("release") for x in rows if x.get("type") == "bench_env"), None),
             "method": take.get("method") or (take.get("after") or {}).get("method"),
             "stack_bytes": (take.get("memory") or {}).get("stack_bytes"), "loads": {}}
        for load in HOLD_LOADS:
            un, he = by.get((load, "unheld"), {}), by.get((load, "held"), {})
            reps = sorted(set(un) & set(he))
            h["loads"][load] = {
                "unheld_ns": stats([un[r].get("ns_per_op") for r in reps]),
                "held_ns": stats([he[r].get("ns_per_op") for r in reps]),
                "ratio": stats([he[r]["ns_per_op"] / un[r]["ns_per_op"] for r in reps
                                if un[r].get("ns_per_op") and he[r].get("ns_per_op")])}
        un, he = by.get(("memory", "unheld"), {}), by.get(("memory", "held"), {})
        reps = sorted(set(un) & set(he))

        def per_thread(key):
            return stats([(he[r][key] - un[r][key]) * 1024 / he[r]["threads"] for r in reps
                          if he[r].get("threads") and he[r].get(key) is not None and
                          un[r].get(key) is not None])
        h["memory"] = {
            # the unreclaimable slab, where shadow stacks are: what a thread costs held
            "per_thread_bytes": per_thread("sunreclaim_kb"),
            "memfree_per_thread_bytes": per_thread("memfree_drop_kb"),
            # the stacks' own cache (6.13+): objects per parked thread, held and unheld
            "stack_objs_held": stats([he[r]["stack_objs"] / he[r]["threads"] for r in reps
                                      if he[r].get("stack_objs") is not None]),
            "stack_objs_unheld": stats([un[r]["stack_objs"] / un[r]["threads"] for r in reps
                                        if un[r].get("stack_objs") is not None]),
            "stack_objsize": next((he[r].get("stack_objsize") for r in reps
                                   if he[r].get("stack_objsize")), None)}
        out[k] = h
    return out or None


def hold_md(res):
    h = res.get("hold")
    if not h:
        return []
    L = ["## What a hold costs a host that never traces", "",
         "lab/scenarios/bench-hold.sh under instruction counting (one vCPU: guest time is "
         "instructions executed), held and unheld in turn in one boot, rotating which goes "
         "first. fork: a fork/exit; switch: a round trip of a byte through two pipes, two "
         "context switches, fgraph's sched_switch probe at each while held; memory: parking the "
         "threads, the rise of the kernel's unreclaimable slab (where shadow stacks are) "
         "held less unheld, per thread, and MemFree's drop the same way (page cache and "
         "per-CPU lists make it noisy). Each mode starts from dropped caches. Ratios are "
         "held/unheld per repetition; spreads min..max.", "",
         "| kernel | holder | load | unheld ns/op (spread) | held ns/op (spread) | held against unheld (spread) |",
         "|---|---|---|---|---|---|"]
    for k, v in h.items():
        for load in HOLD_LOADS:
            x = v["loads"].get(load) or {}
            u, e, r = x.get("unheld_ns"), x.get("held_ns"), x.get("ratio")
            if not (u and e and r):
                L.append(f"| {k} | {v.get('method') or '?'} | {load} | missing | | |")
                continue
            L.append(f"| {k} | {v.get('method') or '?'} | {load} | {u['median']:,.0f} "
                     f"({u['spread'] * 100:.2f} %) | {e['median']:,.0f} ({e['spread'] * 100:.2f} %) | "
                     f"{pct_spread(r)}, n={r['n']} |")
    L += ["", "| kernel | stack the hold states | unreclaimable slab per parked thread, held less "
          "unheld (spread) | MemFree per thread, the same | fgraph_stack objects per thread, held / unheld |",
          "|---|---|---|---|---|"]

    def rng(m):
        return f"{m['median']:,.0f} bytes ({m['min']:,.0f}..{m['max']:,.0f}, n={m['n']})" if m else "missing"
    for k, v in h.items():
        mem = v.get("memory") or {}
        st = v.get("stack_bytes")
        oh, ou = mem.get("stack_objs_held"), mem.get("stack_objs_unheld")
        objs = (f"{oh['median']:.3f} / {ou['median']:.3f} ({mem.get('stack_objsize')} bytes each)"
                if oh and ou else "not in /proc/slabinfo (kmalloc'ed, or merged by SLUB)")
        L.append(f"| {k} | {f'{st:,} bytes' if st else '?'} | {rng(mem.get('per_thread_bytes'))} | "
                 f"{rng(mem.get('memfree_per_thread_bytes'))} | {objs} |")
    return L + [""]


# ---- memory pressure (lab/scenarios/pressure.sh) ---------------------------------------

PRESSURE_KERNELS = ("lab-stock", "lab-fixed", "lab-fixed-plus")


def pressure_visits(act):
    """Thread visits of the walks, from the sweeps' served counts: a sweep that
    said -EAGAIN walked up to the thread after its last one served, the last one
    the whole list. Exact when every thread lacked a stack (a first activation),
    which pressure.sh's is."""
    per, cum, v = act["per_sweep"], 0, 0
    for i, s in enumerate(per):
        cum += s["served"]
        v += act["nr_threads"] if i == len(per) - 1 else cum + 1
    return v


def pressure_part(raw):
    rows = []
    for name in raw.names("pressure-"):
        recs = raw.load(name)
        run = [x for x in recs if x.get("type") == "run"]
        pr = [x for x in recs if x.get("type") == "pressure"]
        acts = [x["rec"] for x in recs if x.get("type") == "fgt" and x["rec"].get("type") == "activation"]
        if not run or run[-1]["status"] != 0 or not pr or len(acts) != 1:
            continue
        p, a, o = pr[0], acts[0], pr[0]["oracle"]
        al = a["allocations"]
        exact = (al["failed_nonblocking"] == o["nb_failed"] and al["nonblocking"] == o["nb_ok"] and
                 al["blocking"] == o["blk_ok"] and al["freed"] == o["freed"] and
                 a["sweeps"] == (o["reserve_runs"] if o["nb_ok"] + o["nb_failed"] else a["sweeps"]))
        rows.append({"name": name, "kernel": run[-1]["kernel"], "u": p["u"], "threads": p["threads"],
                     "regime": "starved" if p.get("starve") else "free",
                     "failures": al["failed_nonblocking"], "sweeps": a["sweeps"],
                     "reserve": a["served"] - al["nonblocking"] if al["nonblocking"] else 0,
                     "visits": pressure_visits(a), "ms": a["duration_ns"] / 1e6,
                     "served": a["served"], "oracle_exact": exact, "oom": p["oom_kills"],
                     "lost": a["lost"], "oracle_failures": o["nb_failed"],
                     "oracle_sweeps": o["reserve_runs"] if o["nb_ok"] + o["nb_failed"] else None,
                     "mem_free_kb": p["mem_trigger"]["MemFree"], "cached_kb": p["mem_trigger"]["Cached"],
                     "zones": p["zones"], "verdict": a["verdict"]["verdict"],
                     "evidence": a["verdict"]["evidence"]})
    pts = []
    # starved first (the persistent pressure), then U upwards
    for regime, u in sorted({(r["regime"], r["u"] // 1000 * 1000) for r in rows},
                            key=lambda x: (x[0] != "starved", x[1])):
        for k in PRESSURE_KERNELS:
            rs = [r for r in rows if r["kernel"] == k and r["u"] // 1000 * 1000 == u and
                  r["regime"] == regime]
            if rs:
                pts.append({"kernel": k, "u": u, "regime": regime, "n": len(rs),
                            **{f: stats([r[f] for r in rs]) for f in ("failures", "sweeps", "visits", "ms")},
                            "exact": all(r["oracle_exact"] for r in rs), "oom": sum(r["oom"] for r in rs),
                            "lost": sum(r["lost"] for r in rs),
                            "oracle_failures": stats([r["oracle_failures"] for r in rs]),
                            "oracle_sweeps": stats([r["oracle_sweeps"] for r in rs if r["oracle_sweeps"]])})
    return {"rows": rows, "points": pts}


def pressure_md(res):
    pr = res.get("pressure") or {}
    pts = pr.get("points") or []
    L = ["## Memory pressure: GFP_NOWAIT failing for real", ""]
    if not pts:
        return L + ["Not run (`make bench BENCH_PARTS=pressure`).", ""]
    L += ["lab/scenarios/pressure.sh, no failslab: U idle threads parked, then an ext2 disk "
          "(virtio-blk, lab/guest/mkdisk.sh) read so that clean page cache holds the memory the "
          "threads left, then function_graph on. GFP_NOWAIT cannot reclaim: it fails whenever "
          "free memory is under the zone's min watermark, however much page cache could be "
          "freed. Two regimes, default watermarks (vm.watermark_scale_factor 10) in both. "
          "*starved*: kswapd at nice 19 beside two busy loops on the other vCPU, the walk on "
          "CPU 0 (a host whose CPUs are all busy, STARVE=1): the walk reaches the min watermark "
          "within its first MiBs and stays there, every reserve refilled by direct reclaim, "
          "the pressure persistent. *free*: kswapd has a vCPU to itself and races the walk, "
          "which allocates a 4 KiB stack per thread faster than kswapd frees memory beside it "
          "on some boots. "
          "Failures are counted by fgraphtop and by the oracle (the kernel's own kmem trace "
          "events from the function holding the sweep, read in the guest); visits from the "
          "sweeps' served counts (every thread lacked a stack). Medians, min..max over the "
          "boots; plain TCG, wall clock.", "",
          "| kswapd | kernel | U | boots | non-blocking failures | sweeps | thread visits | activation | "
          "= oracle | events lost | oracle: failures, sweeps | series' sweeps at K | OOM kills |",
          "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |"]

    def rng(s, fmt="{:,.0f}"):
        if not s:
            return "-"
        m = fmt.format(s["median"])
        return m if s["min"] == s["max"] else f"{m} ({fmt.format(s['min'])}..{fmt.format(s['max'])})"
    for p in pts:
        L.append(f"| {p['regime']} | {p['kernel']} | {p['u']:,} | {p['n']} | {rng(p['failures'])} | {rng(p['sweeps'])} | "
                 f"{rng(p['visits'])} | {rng(p['ms'], '{:,.1f}')} ms | "
                 f"{'yes' if p['exact'] else 'NO'} | {p['lost']:,} | "
                 f"{rng(p['oracle_failures'])}, {rng(p['oracle_sweeps'])} | "
                 f"{1 + int(med(p['oracle_failures'])) // 33 if p['kernel'] != 'lab-stock' else '-'} | {p['oom']} |")
    L += ["", "The failures K differ from boot to boot (free: kswapd races the walk; starved: "
          "by how much kswapd's 0.7 % of a vCPU reclaims), so each "
          "kernel's sweeps are best read against its own K: the series makes 1 + floor(K / 33) "
          "(the column before last, from the oracle's K), lab-fixed-plus at most "
          "1 + log2(K / 32 + 1). The ratios below are of medians at unequal K.", ""]
    for regime, u in sorted({(p["regime"], p["u"]) for p in pts}, key=lambda x: (x[0] != "starved", x[1])):
        at = {p["kernel"]: p for p in pts if p["u"] == u and p["regime"] == regime}
        parts = []
        for num, den in (("lab-stock", "lab-fixed"), ("lab-fixed", "lab-fixed-plus"),
                         ("lab-stock", "lab-fixed-plus")):
            if num in at and den in at:
                parts.append(f"{num}/{den}: sweeps {med(at[num]['sweeps']) / med(at[den]['sweeps']):,.1f}x, "
                             f"visits {med(at[num]['visits']) / med(at[den]['visits']):,.1f}x, "
                             f"time {med(at[num]['ms']) / med(at[den]['ms']):,.1f}x")
        if parts:
            L.append(f"- {regime}, U = {u:,}: " + "; ".join(parts) + " (medians).")
    if any(not p["exact"] for p in pts):
        L += ["", "A row that is not \"= oracle\" lost events on one side: fgraphtop's (its "
              "log overran while memory was short: its figures are then a lower bound, and its "
              "evidence says so) or the oracle's (its trace buffer, the scenario's BUF_KB, "
              "overran: the oracle's figures are then short, fgraphtop's complete record with "
              "served = U the one to read). The bench sizes the oracle's buffer with U."]
    ex = [r for r in pr["rows"] if r["kernel"] != "lab-stock" and r["failures"] and r["oracle_exact"]]
    if ex:
        r = ex[0]
        L += ["", f"fgraphtop's evidence on {r['kernel']} ({r['name']}): \"{r['evidence']}\"; at the "
              f"trigger MemFree {r['mem_free_kb']:,} KiB, Cached {r['cached_kb']:,} KiB, watermarks "
              + ", ".join(f"{z['zone']} min/low/high {z['min']}/{z['low']}/{z['high']} pages"
                          for z in r["zones"]) + "."]
    return L + [""]

# ---- 1. the fix, U = 1k..30k (TCG, wall clock) ----------------------------------------

def fix_part(rows):
    """Per kernel and U: the oracle's trigger time without fgraphtop, fgraphtop's record
    with it, the perturbation (with / without per repetition), and the growth."""
    acts = [x for x in rows if x.get("type") == "bench_fix"]
    points = [fix_point(k, u, [a for a in acts if a["u"] == u and a["_k"] == k])
              for k in KERNELS for u in sorted({a["u"] for a in tag_kernel(acts, rows)
                                                if a["_k"] == k})]
    fits = {k: {key: fit([(p["u"], med(p[key])) for p in points if p["kernel"] == k])
                for key in ("oracle_on_ns_without", "fgt_alloc_ns", "fgt_walk_ns")}
            for k in KERNELS}
    return {"points": points, "fits": fits, "ratios": ratios(points, ("oracle_on_ns_without",
                                                                      "fgt_alloc_ns"))}


def tag_kernel(acts, rows):
    """bench_fix rows carry no kernel: the run record after them does."""
    k = None
    for x in reversed(rows):
        if x.get("type") == "run":
            k = x.get("kernel")
        elif x.get("type") == "bench_fix":
            x["_k"] = k
    return acts


def fix_point(k, u, at_u):
    wi = [a for a in at_u if a["mode"] == "with"]
    wo = [a for a in at_u if a["mode"] == "without"]
    fg = [a["activation"] for a in wi if a.get("activation")]
    exp = [expected_sweeps(k, a["on"]["u"]) for a in wi]
    return {
        "kernel": k, "u": u, "u_oracle": [a["on"].get("u") for a in at_u if a.get("on")],
        "oracle_sweeps_expected": exp,
        "fgt_sweeps": [a.get("sweeps") for a in fg],
        "fgt_served": [a.get("served") for a in fg],
        "fgt_verdict": [a.get("verdict", {}).get("verdict") for a in fg],
        "fgt_alloc_ns": stats([a.get("alloc_ns") for a in fg]),
        "fgt_walk_ns": stats([a.get("walk_ns") for a in fg]),
        "oracle_on_ns_without": stats([a["on"].get("ns") for a in wo]),
        "oracle_on_ns_with": stats([a["on"].get("ns") for a in wi]),
        "fgt_lost": [(a.get("summary") or {}).get("lost") for a in wi],
        "perturbation": stats(pair_ratios(at_u, "with", "without")),
        "sweeps_match": all(a.get("sweeps") == e for a, e in zip(fg, exp)) if fg else None,
        "served_minus_u": [a.get("served") - w["on"]["u"] for a, w in zip(fg, wi)
                           if a.get("served") is not None],
    }


def expected_sweeps(kernel, u):
    return max(1, math.ceil(u / 32)) if kernel == "lab-stock" else 1


def pair_ratios(at_u, num, den):
    """Per repetition: the trigger time in mode num / in mode den."""
    out = []
    for r in sorted({a["rep"] for a in at_u}):
        a = [x["on"]["ns"] for x in at_u if x["rep"] == r and x["mode"] == num]
        b = [x["on"]["ns"] for x in at_u if x["rep"] == r and x["mode"] == den]
        if a and b and b[0]:
            out.append(a[0] / b[0])
    return out


def ratios(points, keys):
    """Stock / fixed at each U, ratio of medians."""
    by = {(p["kernel"], p["u"]): p for p in points}
    out = []
    for u in sorted({p["u"] for p in points}):
        s, f = by.get(("lab-stock", u)), by.get(("lab-fixed", u))
        if not s or not f:
            continue
        row = {"u": u}
        for key in keys:
            if med(s.get(key)) and med(f.get(key)):
                row[key] = med(s[key]) / med(f[key])
        out.append(row)
    return out


def stats(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    m = statistics.median(xs)
    return {"median": m, "min": min(xs), "max": max(xs), "n": len(xs), "samples": xs,
            "spread": (max(xs) - min(xs)) / m if m else None}


def med(s):
    return s["median"] if s else None


def fit(points):
    """Least-squares slope of log(y) on log(x): 2 = quadratic, 1 = linear."""
    pts = [(math.log(x), math.log(y)) for x, y in points if x and y and x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx else None


# ---- 2. the series' scale, U = 50k..400k (TCG, wall clock) ----------------------------

def scale_part(raw):
    """One guest per kernel and U: the oracle without fgraphtop, fgraphtop's record with it,
    exactness against the oracle's bounds, stock / fixed, growth, run times."""
    points = []
    for name in raw.names("scale-"):
        rows = raw.load(name)
        run = next((x for x in rows if x.get("type") == "run"), None)
        res = [x for x in rows if x.get("type") == "bench_scale"]
        if not res or not run:
            continue
        points.append(scale_point(run["kernel"], res, run))
    points.sort(key=lambda p: (KERNELS.index(p["kernel"]), p["u"]))
    fits = {k: {key: fit([(p["u"], p[key]) for p in points if p["kernel"] == k])
                for key in ("trigger_ns", "trigger_ns_with", "walk_ns", "alloc_ns")} for k in KERNELS}
    by = {(p["kernel"], p["u"]): p for p in points}
    rat = []
    for u in sorted({p["u"] for p in points}):
        s, f = by.get(("lab-stock", u)), by.get(("lab-fixed", u))
        if s and f:
            rat.append({"u": u, **{k: s[k] / f[k] for k in ("trigger_ns", "trigger_ns_with",
                                                            "walk_ns", "visits")
                                   if s.get(k) and f.get(k)}})
    return {"points": points, "fits": fits, "ratios": rat,
            "seconds": sum(p["seconds"] or 0 for p in points)}


def scale_point(k, res, run):
    wo = next((x for x in res if x["mode"] == "without"), None)
    wi = next((x for x in res if x["mode"] == "with"), None)
    a = (wi or {}).get("activation") or {}
    ev = (wi or {}).get("events") or {}
    u_or = (wi or {}).get("on", {}).get("u")
    cr, ex = ev.get("created") or 0, ev.get("exited") or 0
    served, sweeps = a.get("served"), a.get("sweeps")
    lost = ((wi or {}).get("summary") or {}).get("lost")
    first = wo or wi
    park = first["park"]
    mem = first.get("mem") or {}
    p = {
        "kernel": k, "u": first["u"], "u_oracle": u_or, "u_oracle_without": (wo or {}).get("on", {}).get("u"),
        "created": cr, "exited": ex, "threads": (wi or {}).get("on", {}).get("threads"),
        "trigger_ns": (wo or {}).get("on", {}).get("ns"),
        "trigger_ns_with": (wi or {}).get("on", {}).get("ns"),
        "sweeps": sweeps, "served": served, "walk_ns": a.get("walk_ns"),
        "alloc_ns": a.get("alloc_ns"), "duration_ns": a.get("duration_ns"),
        "lost": lost, "act_lost": a.get("lost"), "verdict": (a.get("verdict") or {}).get("verdict"),
        "per_sweep": (wi or {}).get("per_sweep"), "blocking": (a.get("allocations") or {}).get("blocking"),
        "nonblocking": (a.get("allocations") or {}).get("nonblocking"),
        "park_ns": park.get("ns"), "parked": park.get("threads"),
        "kb_per_thread": ((mem.get("avail_before_kb") - mem.get("avail_parked_kb")) / park["threads"]
                          if mem.get("avail_before_kb") and park.get("threads") else None),
        "seconds": run.get("seconds"), "mem_mb": run.get("mem_mb"), "status": run.get("status"),
    }
    p["visits"] = sweeps * p["threads"] if sweeps and p["threads"] else None
    p["sweeps_expected"] = expected_sweeps(k, u_or) if u_or else None
    # Exact: served within the threads the oracle saw created or exiting around the
    # count, sweeps as the kernel must make them for what was served, nothing lost.
    p["served_ok"] = served is not None and u_or is not None and u_or - ex <= served <= u_or + cr
    p["sweeps_ok"] = sweeps is not None and served is not None and \
        sweeps == expected_sweeps(k, served)
    p["exact"] = bool(p["served_ok"] and p["sweeps_ok"] and lost == 0 and p["act_lost"] == 0)
    return p


# ---- 3. the consumer, natively ---------------------------------------------------------

def consumer_part(rows):
    """Records per second (CPU time, the judged figure: the host's cores are shared, so
    wall time holds others' work) and the log's headroom at the series' rate."""
    shapes = []
    for x in rows:
        if x.get("type") != "bench_consumer":
            continue
        cpu, wall = stats(x["cpu_ns"]), stats(x["wall_ns"])
        shapes.append({
            "shape": x["shape"], "u": x["u"], "records": x["records"], "sweeps": x["sweeps"],
            "served": x["served"], "reps": x["reps"], "cpu_ns": cpu, "wall_ns": wall,
            "rate_cpu": x["records"] / cpu["median"] * 1e9,
            "rate_cpu_worst": x["records"] / cpu["max"] * 1e9,
            "rate_wall": x["records"] / wall["median"] * 1e9,
            "ns_per_record": cpu["median"] / x["records"],
            "log_entries": x["log_entries"], "wake_every": x["wake_every"],
        })
    if not shapes:
        return None
    worst = min(shapes, key=lambda s: s["rate_cpu_worst"])
    n, q, p, c = worst["log_entries"], worst["wake_every"], SERIES["rate"], worst["rate_cpu_worst"]
    head = {
        "producer_rate": p, "worst_shape": worst["shape"], "worst_rate": c,
        "log_fill_ms": n / p * 1e3,                # an empty log fills in
        "wake_period_ms": q / p * 1e3,             # a wake-up every
        "drain_quarter_ms": q / c * 1e3,           # what draining one costs at the worst rate
        "duty": p / c,                             # the consumer's share of one CPU
        "latency_budget_ms": (n - q) / p * 1e3,    # how late a wake-up may be served
    }
    return {"shapes": shapes, "headroom": head,
            "target_rate": 2 * SERIES["rate"],
            "min_rate": min(s["rate_cpu"] for s in shapes)}


# ---- the symbol table, natively -------------------------------------------------------

def ksyms_part(rows):
    """Per size: load and lookup times (CPU, judged; wall beside). Between each size and
    the next (twice as many symbols): the ratio of the medians, the range the repetitions
    allow (slowest over fastest, fastest over slowest), and the exponent fitted over all
    sizes: N log N grows a little over 2x a doubling (exponent about 1.1 here), N^2 4x (2)."""
    sizes = []
    for x in rows:
        if x.get("type") != "bench_ksyms":
            continue
        p = {"n": x["n"], "bytes": x["bytes"], "reps": x["reps"]}
        for k in ("load_cpu_ns", "load_wall_ns", "lookup_cpu_ns", "lookup_wall_ns"):
            p[k] = stats(x[k])
        sizes.append(p)
    if not sizes:
        return None
    sizes.sort(key=lambda p: p["n"])
    steps = []
    for a, b in zip(sizes, sizes[1:]):
        st = {"from": a["n"], "to": b["n"], "size_ratio": b["n"] / a["n"]}
        for k in ("load_cpu_ns", "lookup_cpu_ns"):
            sa, sb = a[k], b[k]
            st[k] = {"ratio": sb["median"] / sa["median"],
                     "min": sb["min"] / sa["max"], "max": sb["max"] / sa["min"]}
        steps.append(st)
    return {"sizes": sizes, "steps": steps,
            "exponent": {k: fit([(p["n"], p[k]["median"]) for p in sizes])
                         for k in ("load_cpu_ns", "lookup_cpu_ns")}}


# ---- check --static's time ------------------------------------------------------------

STATIC_GOAL_MS = 100


def static_part(raw):
    """Per kernel: static.ms of each answer in a row from boot, over each boot
    (raw static-KERNEL.bN), the first of each boot apart (cold caches; under TCG it
    also pays for translating the code it runs)."""
    by = {}
    for name in raw.names("static-"):
        k = re.sub(r"\.b\d+$", "", name[len("static-"):])
        ms = [x["answer"]["static"]["ms"] for x in raw.load(name)
              if x.get("type") == "time" and isinstance(x.get("answer"), dict)
              and "ms" in (x["answer"].get("static") or {})]
        if not ms:
            continue
        v = next((x["answer"]["static"]["verdict"] for x in raw.load(name)
                  if x.get("type") == "time" and isinstance(x.get("answer"), dict)), None)
        b = by.setdefault(k, {"kernel": k, "firsts": [], "later": [], "every": [], "verdict": v})
        b["firsts"].append(ms[0])
        b["later"] += ms[1:]
        b["every"] += ms
    return [{"kernel": b["kernel"], "verdict": b["verdict"], "boots": len(b["firsts"]),
             "first": stats(b["firsts"]), "after": stats(b["later"]), "all": stats(b["every"])}
            for _, b in sorted(by.items())]


def static_md(res):
    rows = res.get("static") or []
    L = ["## check --static's time", ""]
    if not rows:
        return L + ["Not run.", ""]
    L += ["lab/scenarios/static-time.sh in a guest of each kernel (plain TCG, 2 vCPUs, wall "
          "clock: noisy on a shared host): `fgraphtop check` answered from the code "
          f"{rows[0]['all']['n']} times in a row from boot, each answer's own `static.ms` (src/"
          "static_kernel.c, fgt_static_check: kcore, VMCOREINFO, the kallsyms tables, the text, "
          "BTF, the decoder). The first answer after boot pays for cold caches and, under TCG, "
          "for translating every piece of code it runs for the first time. "
          "`fgraphtop check --static -v` prints each step's time.", "",
          f"{rows[0]['boots']} boots of each kernel; the first answer of each boot apart. "
          "The target is judged on each kernel's median first answer (one alone can land on a "
          "host hiccup), the slowest answer of all beside it.", "",
          "| kernel | verdict | first, median (min..max) over boots, ms | after, median (min..max), ms |",
          "| --- | --- | --- | --- |"]
    span = lambda a: f"{a['median']:.1f} ({a['min']:.1f}..{a['max']:.1f})" if a else "-"
    for r in rows:
        L.append(f"| {r['kernel']} | {r['verdict']} | {span(r['first'])} | {span(r['after'])} |")
    return L + [""]


# ---- 4. fgraphtop's cost (icount and wall) ----------------------------------------------

def cost_part(rows):
    """Start-up and RSS, always-on overhead per load and tool, each program's own cost,
    kallsyms. None when the part did not run."""
    if not rows:
        return None
    run = next((x for x in rows if x.get("type") == "run"), {})
    env = next((x for x in rows if x.get("type") == "bench_env"), {})
    c = {"icount": run.get("icount"), "accel": run.get("accel"), "cpus": run.get("cpus"),
         "seconds": run.get("seconds"), "env": env,
         "startup": startup_of(rows), "overhead": overhead_of(rows),
         "bpfstats": bpfstats_of(rows), "kallsyms": kallsyms_of(rows)}
    tl = [x for x in rows if x.get("type") == "bench_overhead_tool" and x.get("mode") == "fgraphtop"]
    c["lost"] = sum(((x.get("summary") or {}).get("lost") or 0) for x in tl)
    c["lost_known"] = all((x.get("summary") or {}).get("lost") is not None for x in tl)
    return c


def startup_of(rows):
    out = {}
    for tool in ("fgraphtop", "floor", "bpftrace"):
        r = [x for x in rows if x.get("type") == "bench_startup" and x["tool"] == tool]
        ok = [x["stats"] for x in r if x.get("ok")]
        out[tool] = {"startup_ns": stats([x.get("startup_ns") for x in ok]),
                     "vmhwm_kb": stats([x.get("vmhwm_kb") for x in ok]),
                     "vmrss_kb": stats([x.get("vmrss_kb") for x in ok]),
                     "failed": [x.get("output") for x in r if not x.get("ok")],
                     "note": next((x.get("note") for x in r if x.get("note")), "")}
    return out


def overhead_of(rows):
    """Per load: each tool's time per repetition, its ratio to 'none' of the same
    repetition, and the spread of the repetitions (the repeatability)."""
    ov = [x for x in rows if x.get("type") == "bench_overhead"]
    out = {}
    for load in LOADS:
        at = [x for x in ov if x["result"]["mode"] == load]
        if not at:
            continue
        o = {"n": at[0]["result"]["n"], "tools": {}}
        for tool in COST_TOOLS:
            ns = [x["result"]["ns"] for x in at if x["mode"] == tool]
            rat = []
            for r in sorted({x["rep"] for x in at}):
                a = [x["result"]["ns"] for x in at if x["rep"] == r and x["mode"] == tool]
                b = [x["result"]["ns"] for x in at if x["rep"] == r and x["mode"] == "none"]
                if a and b:
                    rat.append(a[0] / b[0])
            if ns:
                o["tools"][tool] = {"ns": stats(ns), "ratio": stats(rat),
                                    "ns_per_op": med(stats(ns)) / o["n"]}
        out[load] = o
    return out


def bpfstats_of(rows):
    """Per tool and load: each program's run count and time (BPF_ENABLE_STATS)."""
    out = {}
    for x in rows:
        if x.get("type") != "bench_bpfstats":
            continue
        n = x["result"]["n"]
        progs = [{"name": p["name"], "run_cnt": p["run_cnt"], "run_time_ns": p["run_time_ns"],
                  "ns_per_run": p["run_time_ns"] / p["run_cnt"] if p["run_cnt"] else None,
                  "per_op": p["run_cnt"] / n, "recursion_misses": p["recursion_misses"]}
                 for p in x["stats"]["progs"]]
        load = "exec" if x["load"] == "shell" else x["load"]
        out.setdefault(x["mode"], {})[load] = {
            "n": n, "progs": progs,
            "run_time_ns": sum(p["run_time_ns"] for p in progs),
            "run_cnt": sum(p["run_cnt"] for p in progs)}
    return out


def kallsyms_of(rows):
    k = next((x for x in rows if x.get("type") == "bench_kallsyms"), None)
    if not k:
        return None
    per = (k["read"]["ns"] - k["shell"]["ns"]) / k["read"]["n"]
    return {"ns_per_read": per, "symbols": k.get("symbols")}


def perturbation_part(rows):
    """The first activation at U = 10k and 30k under icount: trigger time with fgraphtop,
    with the floor, with fgraphtop stopped (its BPF programs alone) / without, per
    repetition."""
    acts = tag_kernel([x for x in rows if x.get("type") == "bench_fix"], rows)
    out = []
    for k in KERNELS:
        for u in sorted({a["u"] for a in acts if a["_k"] == k}):
            at = [a for a in acts if a["_k"] == k and a["u"] == u]
            fg = [a["activation"] for a in at if a["mode"] == "with" and a.get("activation")]
            sp = [a["activation"] for a in at if a["mode"] == "stopped" and a.get("activation")]
            out.append({"kernel": k, "u": u,
                        "stopped": stats(pair_ratios(at, "stopped", "without")),
                        "stopped_lost": [a.get("lost") for a in sp],
                        "without_ns": stats([a["on"]["ns"] for a in at if a["mode"] == "without"]),
                        "with_ns": stats([a["on"]["ns"] for a in at if a["mode"] == "with"]),
                        "floor_ns": stats([a["on"]["ns"] for a in at if a["mode"] == "floor"]),
                        "with": stats(pair_ratios(at, "with", "without")),
                        "floor": stats(pair_ratios(at, "floor", "without")),
                        "floor_ts": stats(pair_ratios(at, "floor-ts", "without")),
                        "sweeps": [a.get("sweeps") for a in fg],
                        "served": [a.get("served") for a in fg],
                        "lost": [a.get("lost") for a in fg]})
    return out


# ---- targets ------------------------------------------------------------------------------

def targets(res):
    """Each target: met, or not met with the floor measured in the same guest; the
    cost targets on the icount figures."""
    t = []
    c = res.get("cost") or {}
    ov = c.get("overhead") or {}
    for row in res.get("perturbation") or []:
        v = ratio_pct(row["with"])
        # the answers' floor where it was measured: what the served count and the
        # latency need at the least; else the empty programs'
        ts = ratio_pct(row.get("floor_ts"))
        fl = ts if ts is not None else ratio_pct(row["floor"])
        # issue 26: within max(1 point, 10 % of the floor's own overhead) of it
        lim = fl + max(0.01, 0.1 * fl) if fl is not None else None
        t.append(target(f"perturbation of the activation, {row['kernel']}, U = {row['u']:,}",
                        f"<= floor + max(1 pt, 10 %) = {pct(lim)}", v, fl,
                        None if None in (v, lim) else v <= lim, "pct",
                        "trigger time with fgraphtop / without, per repetition (icount); floor: "
                        + ("the answers' floor (fgt-floor -t)" if ts is not None else
                           "empty programs (fgt-floor)")))
    for load, goal in (("fork", 0.02), ("exec", 0.02)):
        v = tool_pct(ov, load, "fgraphtop")
        fl = tool_pct(ov, load, "floor")
        t.append(target(f"always-on overhead, {LOAD_NAMES[load]}", "<= 2 %", v, fl,
                        v is not None and v <= goal, "pct",
                        "(time with fgraphtop / without) - 1, per repetition, fgraph off (icount)"))
    v, fl, bt = (tool_pct(ov, "openclose", x) for x in ("fgraphtop", "floor", "bpftrace"))
    t.append(target("always-on overhead, open/close", "<= floor x 1.25, < bpftrace", v, fl,
                    None if None in (v, fl, bt) else (v <= fl * 1.25 and v < bt), "pct",
                    f"floor x 1.25 = {pct(fl * 1.25) if fl is not None else '-'}, bpftrace "
                    f"{pct(bt)} (icount)"))
    st = c.get("startup") or {}
    a, b, f = (med((st.get(x) or {}).get("startup_ns")) for x in ("fgraphtop", "bpftrace", "floor"))
    v = a / b if a and b else None
    fl = f / b if f and b else None
    t.append(target("start-up vs bpftrace", "<= 0.10", v, fl, v is not None and v <= 0.10,
                    "ratio", "floor: empty programs on the same hooks loaded by libbpf (fgt-floor), "
                    "over bpftrace's (icount)"))
    a, b, f = (med((st.get(x) or {}).get("vmhwm_kb")) for x in ("fgraphtop", "bpftrace", "floor"))
    v = a / b if a and b else None
    fl = f / b if f and b else None
    t.append(target("peak RSS vs bpftrace", "<= floor x 1.25" + (f" = {fl * 1.25:.3f}" if fl else ""),
                    v, fl, None if None in (v, fl) else v <= fl * 1.25, "ratio",
                    "VmHWM; floor: fgt-floor's (static libbpf, the same hooks)"))
    for p in (res.get("scale") or {}).get("points", []):
        if p["u"] in (100000, 400000):
            t.append(target(f"exact at scale, {p['kernel']}, U = {p['u']:,}",
                            "sweeps, served = oracle's, lost 0",
                            {"sweeps": p["sweeps"], "served": p["served"], "oracle_u": p["u_oracle"],
                             "created": p["created"], "exited": p["exited"], "lost": p["lost"]},
                            None, p["exact"], "json", "served within [U - exited, U + created]"))
    con = res.get("consumer")
    if con:
        t.append(target("consumer rate vs the series' 4.35 M/s", ">= 2x", con["min_rate"] / SERIES["rate"],
                        None, con["min_rate"] >= con["target_rate"], "x",
                        "records per CPU-second, slowest shape, median of repetitions"))
    st = res.get("static") or []
    if st:
        slow = max(st, key=lambda r: r["first"]["median"])
        worst = max(st, key=lambda r: r["all"]["max"])
        t.append(target("check --static, every lab kernel, first answer included",
                        f"< {STATIC_GOAL_MS} ms", slow["first"]["median"], None,
                        all(r["first"]["median"] < STATIC_GOAL_MS for r in st), "ms",
                        f"the slowest kernel's median first answer over {slow['boots']} boots, "
                        f"{slow['kernel']}; the slowest answer of all {worst['all']['max']:.1f} ms, "
                        f"{worst['kernel']} (static.ms, TCG wall clock)"))
    storm = res.get("storm")
    if storm:
        summ = storm.get("summary") or {}
        fk = summ.get("fork") or {}
        fa, tn = fk.get("allocs", 0) - fk.get("idle_allocs", 0), fk.get("tasks_new")
        ok = (storm["fgt_task_new"] == storm["n"] == storm["tracefs_task_new"]
              and storm["fgt_task_new_ok"] == storm["n"] and fa == tn and storm["tracefs_overrun"] == 0)
        t.append(target("fork storm with fgraph on", "counts exact", {
            "forks": storm["n"], "fgraphtop": storm["fgt_task_new"], "tracefs": storm["tracefs_task_new"],
            "fork_allocs": fa, "tasks_new": tn, "lost": summ.get("lost")}, None, ok, "json",
            "task_new events from the storm's pid: fgraphtop vs tracefs vs the count (icount guest)"))
    return t


def target(name, goal, value, floor, met, kind, how):
    return {"target": name, "goal": goal, "value": value, "floor": floor, "met": met,
            "kind": kind, "how": how}


def ratio_pct(s):
    return s["median"] - 1 if s else None


def tool_pct(ov, load, tool):
    return ratio_pct(((ov.get(load) or {}).get("tools", {}).get(tool) or {}).get("ratio"))


def pct(v, digits=1):
    return "-" if v is None else f"{v * 100:+.{digits}f} %"


# ---- the plot -----------------------------------------------------------------------------

def plot(out, res):
    """Trigger time (oracle, without fgraphtop) and fgraphtop's walks, stock and fixed,
    U = 1k..400k, with the series' two bare-metal points."""
    dat = os.path.join(out, "fix.dat")
    rows = {}
    for p in res["fix"]["points"]:
        rows.setdefault(p["u"], {})[p["kernel"]] = (med(p["oracle_on_ns_without"]), med(p["fgt_walk_ns"]))
    for p in (res.get("scale") or {}).get("points", []):
        rows.setdefault(p["u"], {})[p["kernel"]] = (p["trigger_ns"], p["walk_ns"])
    with open(dat, "w") as f:
        f.write("# u stock_trigger_ms stock_walk_ms fixed_trigger_ms fixed_walk_ms\n")
        for u in sorted(rows):
            vals = []
            for k in KERNELS:
                for v in rows[u].get(k, (None, None)):
                    vals.append(f"{v / 1e6:.3f}" if v else "NaN")
            f.write(f"{u} {' '.join(vals)}\n")
    ser = os.path.join(out, "series.dat")
    with open(ser, "w") as f:
        f.write(f"# the series' bare metal\n{SERIES['u']} {SERIES['stock_s'] * 1e3} {SERIES['fixed_s'] * 1e3}\n")
    version = (res["host"].get("kernels") or [{}])[0].get("version", "?")
    gp = f"""
set logscale xy
set xrange [700:600000]
set format x "%.0s%c"
set xlabel "threads lacking a shadow stack (U)"
set ylabel "ms"
set title "fgraph first activation, Linux {version} lab kernels, qemu TCG (wall clock)"
set key top left
set grid
plot '{dat}' using 1:2 with linespoints lw 2 title 'stock: trigger time (oracle)', \\
     '' using 1:3 with linespoints lw 2 dt 2 title 'stock: walks (fgraphtop)', \\
     '' using 1:4 with linespoints lw 2 title 'fixed: trigger time (oracle)', \\
     '' using 1:5 with linespoints lw 2 dt 2 title 'fixed: walks (fgraphtop)', \\
     '{ser}' using 1:2 with points pt 7 ps 2 title 'series, bare metal: unfixed 227 s', \\
     '' using 1:3 with points pt 5 ps 2 title 'series, bare metal: fixed 0.092 s'
"""
    ok = True
    for term, ext in (("pngcairo size 900,600", "png"), ("svg size 900,600", "svg")):
        try:
            subprocess.run(["gnuplot"], input=f"set terminal {term}\nset output '{out}/fix.{ext}'\n{gp}",
                           text=True, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            ok = False
            print(f"report: gnuplot ({ext}): {e}", file=sys.stderr)
    return ok


# ---- results.md ---------------------------------------------------------------------------

def markdown(res):
    L = []
    host = res["host"]
    runs = "; ".join(f"{a['parts']}: commit {a['commit']}, {a['date']}" for a in host.get("assembled", []))
    L += [f"# fgraphtop benchmarks (`make bench`)", "",
          f"Generated by lab/bench/report.py from the raw results in `raw/` "
          f"({host.get('mode', '?')} run, {host.get('date', '?')}, commit {host.get('commit', '?')}; "
          f"parts run: {parts_of(host)}, the others' raw results kept from earlier runs"
          + (f"; the parts' own runs: {runs}" if runs else "") + "). Every ratio is of figures from "
          "one guest run. Spreads are min..max over the repetitions; the targets are judged on "
          "medians.", ""]
    L += machine_md(res)
    if res["missing"]:
        L += ["**Missing or failed parts:** " + "; ".join(res["missing"]), ""]
    L += targets_md(res)
    L += fix_md(res)
    L += scale_md(res)
    L += consumer_md(res)
    L += ksyms_md(res)
    L += static_md(res)
    L += pressure_md(res)
    L += hold_md(res)
    L += cost_md(res)
    L += fidelity_md(res)
    L += reading_md(res)
    L += how_md(res)
    return L


def parts_of(host):
    p = host.get("parts") or "?"
    return p if isinstance(p, str) else " ".join(p)


def machine_md(res):
    host = res["host"]
    c = res.get("cost") or {}
    env = c.get("env") or {}
    L = ["## The machine", "",
         f"- Host: {host.get('host_cpu', '?')}, {host.get('host_cores', '?')} cores, "
         f"{host.get('host_mem_mb', '?')} MiB, kernel {host.get('host_kernel', '?')}, {host.get('qemu', '?')}. "
         "The cores are shared with other engineers' guests and builds.",
         "- Guests: qemu TCG, single-threaded (KVM hangs on this host). The fix and scale parts: "
         "2 vCPUs, wall clock (noisy: read the ratios, the exponents and the spreads). The cost part: "
         f"**instruction counting** (`-icount shift={host.get('icount_shift', 0)},sleep=off`, 1 vCPU): guest "
         "time advances 1 ns per instruction executed and skips idle time, so every figure is "
         "instructions, repeatable to a fraction of a percent whatever the host does (repeatability "
         "below); the same scenario under plain TCG gives the wall-clock figures beside them.",
         "- Why shift 0: one instruction per guest nanosecond is the fastest virtual CPU icount models "
         "and the nearest to a real core (1-4 instructions per ns). What happens per unit of time "
         "(the timer tick, fgraphtop's 100 ms poll) then weighs as little per instruction of work as "
         "it can, as on real hardware; a bigger shift would model a slower CPU and overweight it. "
         "Why one vCPU: with two, the same load varied by up to 5 % (which CPU a child ran on, "
         "cross-CPU wake-ups); icount serializes the vCPUs anyway, so guest time is total "
         "instructions either way, and with one the whole system's work is on one clock.",
         f"- Why `-cpu {host.get('icount_cpu', 'max,-erms,-fsrm')}` for the cost part: icount counts "
         "each iteration of a rep string instruction as one instruction, and with ERMS/FSRM the "
         "kernel clears and copies memory a byte per iteration (rep stosb/movsb), 4,096 per page: "
         "that was two thirds of a fork/exit (207 us per fork/exit with them, 137 without, in "
         "trial runs). Without them it uses rep stosq/movsq, 8 bytes an iteration, nearer to what "
         "hardware spends on it; open/close did not move (3.52 us either way).",
         f"- Why `{host.get('icount_kernel_args', 'norandmaps randomize_kstack_offset=off')}` and no "
         "RDRAND/RDSEED: each repetition execs its load anew, and with ASLR its layout, and with that "
         "how many page tables each of its forks copies, changed every time; under TCG, RDRAND and "
         "RDSEED are the host's entropy, the one input icount does not repeat. fork/exit, 7 "
         "repetitions of 5,000 on lab-stock: spread 1.6 % with ASLR, 0.37 % with norandmaps, 0.29 % "
         "with RDRAND and RDSEED off as well (5.4 % with those off and ASLR on).",
         "- Why these loads are this long: fork/exit 10,000 (about 1.4 s of guest time) and open/close "
         "100,000: work the kernel defers (RCU callbacks freeing the exiting tasks) spills over the "
         "end of a short loop by a varying amount; at 500 forks the spread was 2.4 %, at 5,000 0.3 %. "
         "With fgraphtop it was 0.64 % at 5,000 (without ASLR): its own work once a second (its "
         "holders and exposure passes) falls into a repetition once more or once less, and twice "
         "the forks halve that share."]
    for k in host.get("kernels", []):
        L.append(f"- Kernel {k['name']}: {k['release']}, from {k['package']} {k['version']}"
                 + (f", patches: {', '.join(k['patches'])}" if k.get("patches") else ", as shipped"))
    if env.get("bpftrace"):
        L.append(f"- bpftrace: Debian's {env['bpftrace']} (bookworm) with its shared libraries.")
    return L + [""]


def targets_md(res):
    L = ["## Targets", "",
         "Cost targets judged on the instruction-counted figures. *Floor*: the same measurement "
         "with what the answers need and nothing else (for the overheads: empty BPF programs on "
         "fgraphtop's always-on hooks, fgt-floor; for start-up: fgt-floor's own start-up, as "
         "fgraphtop reads the few symbols its plan needs from the kernel's kallsyms tables "
         "(kcore) and the whole /proc/kallsyms only after its start line; for RSS: fgt-floor's, a static libbpf loader as fgraphtop is). A target below its "
         "floor cannot be met with the probes the answers need.", "",
         "| target | goal | measured | floor | met |", "| --- | --- | --- | --- | --- |"]
    for t in res["targets"]:
        v, fl = fmt_val(t["value"], t["kind"]), fmt_val(t["floor"], t["kind"])
        if t["met"] is None:
            met = "?"
        elif t["met"]:
            met = "**yes**"
        elif t["floor"] is not None and floor_blocks(t):
            met = "**no**: floor-bound"
        else:
            met = "**no**"
        L.append(f"| {t['target']} | {t['goal']} | {v} | {fl} | {met} |")
    return L + ["", "How each is measured: " + "; ".join(
        f"*{t['target']}*: {t['how']}" for t in res["targets"] if t["how"]) + ".", ""]


def fmt_val(v, kind):
    if v is None:
        return "-"
    if kind == "pct":
        return pct(v)
    if kind == "ratio":
        return f"{v:.3f}"
    if kind == "x":
        return f"{v:.1f}x"
    if kind == "ms":
        return f"{v:.1f} ms"
    return "`" + json.dumps(v, separators=(",", ":")) + "`"


def floor_blocks(t):
    """Is the goal below the floor? (the goal's number from its text)"""
    goal = {"<= 5 %": 0.05, "<= 2 %": 0.02, "<= 0.10": 0.10, "<= 0.05": 0.05}.get(t["goal"])
    return goal is not None and t["floor"] > goal


def fix_md(res):
    fx = res["fix"]
    L = ["## 1. The fix, reproduced (U = 1,000 to 30,000)", "",
         "First 0->1 activation (function_graph on one function via tracefs: the walk, not the "
         "patching of every call site) with U freshly parked idle threads lacking a shadow stack, "
         "plain TCG, wall clock. *Oracle*: the lab's own figures: U counted from /proc just before "
         "the trigger, the sweeps the kernel must make (stock: max(1, ceil(U/32)); fixed: 1), the "
         "trigger's time (the write to current_tracer) **without** fgraphtop. *fgraphtop*: its "
         "activation record (attributed path) in the runs **with** it.", "",
         "| kernel | U (oracle) | sweeps: oracle / fgraphtop | served (fgraphtop) | trigger, ms (oracle) "
         "| allocation phase, ms (fgraphtop) | walks, ms (fgraphtop) | verdict |",
         "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for p in fx["points"]:
        L.append(f"| {p['kernel']} | {join_set(p['u_oracle'], ',')} | "
                 f"{join_set(p['oracle_sweeps_expected'])} / {join_set(p['fgt_sweeps'])} | "
                 f"{join_set(p['fgt_served'])} | {spread_ms(p['oracle_on_ns_without'])} | "
                 f"{spread_ms(p['fgt_alloc_ns'])} | {spread_ms(p['fgt_walk_ns'])} | "
                 f"{join_set(p['fgt_verdict'], ',')} |")
    L += ["", "Stock / fixed, ratio of medians:", "", "| U | trigger (oracle) | allocation phase (fgraphtop) |",
          "| --- | --- | --- |"]
    for r in fx["ratios"]:
        L.append(f"| {r['u']:,} | {x_(r.get('oracle_on_ns_without'))} | {x_(r.get('fgt_alloc_ns'))} |")
    L += ["", "Growth, least-squares slope of log(time) on log(U) (2 = quadratic):", "",
          "| kernel | trigger (oracle) | allocation phase (fgraphtop) | walks (fgraphtop) |",
          "| --- | --- | --- | --- |"]
    for k, fz in fx["fits"].items():
        L.append(f"| {k} | {f2(fz['oracle_on_ns_without'])} | {f2(fz['fgt_alloc_ns'])} | {f2(fz['fgt_walk_ns'])} |")
    L += ["", "Perturbation, wall clock (trigger with fgraphtop / without, per repetition; the judged "
          "figures are the instruction-counted ones in section 4):", "",
          "| kernel | U | with / without |", "| --- | --- | --- |"]
    for p in fx["points"]:
        L.append(f"| {p['kernel']} | {p['u']:,} | {spread_ratio(p['perturbation'])} |")
    L.append("")
    if res["plots"]:
        L += ["![first activation: stock vs fixed, U = 1k..400k](fix.png) ([SVG](fix.svg))", ""]
    return L


def join_set(xs, sep="/"):
    return sep.join(str(x) for x in sorted(set(x for x in xs if x is not None))) or "-"


def spread_ms(s, digits=1):
    if not s:
        return "-"
    return f"{s['median'] / 1e6:,.{digits}f} ({s['min'] / 1e6:,.{digits}f}..{s['max'] / 1e6:,.{digits}f})"


def spread_ratio(s, digits=3):
    if not s:
        return "-"
    return f"{s['median']:.{digits}f} ({s['min']:.{digits}f}..{s['max']:.{digits}f})"


def x_(v, digits=1):
    return "-" if v is None else f"{v:,.{digits}f}x"


def f2(v):
    return "-" if v is None else f"{v:.2f}"


def ms(ns, digits=1):
    return "-" if ns is None else f"{ns / 1e6:,.{digits}f}"


def scale_md(res):
    sc = res.get("scale") or {}
    pts = sc.get("points") or []
    L = ["## 2. At the series' scale (U = 50,000 to 400,000)", ""]
    if not pts:
        return L + ["Not run (`make bench BENCH_PARTS=scale`).", ""]
    L += ["One guest per kernel and U (`BENCH_PARTS=scale`), plain TCG, 2 vCPUs, wall clock, memory "
          "sized for U (about 27 KiB per parked thread, measured, plus a 4 KiB shadow stack each), "
          "pid_max 4,194,304 and threads-max 1,000,000 in the guest, 16 KiB thread stacks (fgt-spawn's "
          "smallest: glibc's PTHREAD_STACK_MIN), of which only the top page is ever touched. In each "
          "guest: the activation without fgraphtop (the oracle's trigger time), then over freshly "
          "parked threads with it (fgraphtop's record). *Exact*: served within [U - exited, U + "
          "created] of the oracle (threads its private tracefs instance saw created or exiting "
          "around the count), sweeps = max(1, ceil(served / 32)) on stock and 1 on fixed, nothing "
          "lost.", "",
          "| kernel | U (oracle) | created / exited | sweeps (fgraphtop / expected) | served | thread visits | "
          "trigger, s (oracle; with fgraphtop) | walks, s (fgraphtop) | allocation phase, s | lost | exact | KiB per thread | guest, MiB | run, s |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for p in pts:
        L.append(f"| {p['kernel']} | {n_(p['u_oracle'])} | {p['created']} / {p['exited']} | "
                 f"{n_(p['sweeps'])} / {n_(p['sweeps_expected'])} | {n_(p['served'])} | {n_(p['visits'])} | "
                 f"{s_(p['trigger_ns'])}; {s_(p['trigger_ns_with'])} | {s_(p['walk_ns'])} | "
                 f"{s_(p['alloc_ns'], 3)} | {p['lost']} | "
                 f"{'yes' if p['exact'] else '**no**'} | {f1(p['kb_per_thread'])} | "
                 f"{n_(p['mem_mb'])} | {n_(p['seconds'])} |")
    L += ["", "The machine's two cores were shared with other guests (other engineers', and this "
          "branch's own cost runs) during these runs, so one activation's wall time can differ "
          "from the next one's by 2x (trigger without vs with fgraphtop above, at 400,000 on stock: "
          "the first overlapped the heaviest load); the counts are exact regardless.", "",
          f"Stock / fixed at each U, next to the series' bare metal at 400,000 threads "
          f"({SERIES['stock_s']:g} s / {SERIES['fixed_s']:g} s = {SERIES['ratio']:,.0f}x):", "",
          "| U | trigger time (oracle) | trigger time (with fgraphtop) | walks (fgraphtop) | thread visits |",
          "| --- | --- | --- | --- | --- |"]
    for r in sc["ratios"]:
        L.append(f"| {r['u']:,} | {x_(r.get('trigger_ns'))} | {x_(r.get('trigger_ns_with'))} | "
                 f"{x_(r.get('walk_ns'))} | {x_(r.get('visits'), 0)} |")
    L.append(f"| {SERIES['u']:,} (series, bare metal) | {SERIES['ratio']:,.0f}x | - | - | - |")
    L += ["", "Growth over U = 50k..400k, slope of log(time) on log(U):", "",
          "| kernel | trigger time (oracle) | trigger time (with fgraphtop) | walks (fgraphtop) | allocation phase (fgraphtop) |",
          "| --- | --- | --- | --- | --- |"]
    for k, fz in sc["fits"].items():
        L.append(f"| {k} | {f2(fz['trigger_ns'])} | {f2(fz['trigger_ns_with'])} | {f2(fz['walk_ns'])} | "
                 f"{f2(fz['alloc_ns'])} |")
    each = ", ".join(f"{p['kernel']} {p['u'] // 1000}k {n_(p['seconds'])} s" for p in pts)
    L += ["", f"Run time: {sc['seconds'] / 60:,.0f} minutes of guest runs in all ({each}).", ""]
    return L


def f1(v):
    return "-" if v is None else f"{v:.1f}"


def n_(v):
    return "-" if v is None else f"{v:,}"


def s_(ns, digits=2):
    return "-" if ns is None else f"{ns / 1e9:,.{digits}f}"


def consumer_md(res):
    con = res.get("consumer")
    L = ["## 3. The consumer, natively", ""]
    if not con:
        return L + ["Not run.", ""]
    h = con["headroom"]
    L += ["build/bench/fgt-consumer-bench (tests/bench/consumer.c) on this host: everything "
          "fgraphtop does from the activation log to the finished record "
          "(src/model/act_log_reader.c fgt_log_drain -> src/model/activation.c "
          "fgt_assembler_feed -> src/model/record.c "
          "fgt_recorder_activation, with src/watch/drain.c's glue), fed a 400,000-thread activation "
          "that tests/lib/gen.c generates, a quarter of the log at a time as BPF wakes it; the run "
          "fails if any record is wrong (sweeps, served, verdict). Judged on this thread's CPU "
          "time: the cores are shared, so wall time holds other people's work (shown beside it). "
          "*fixed-cold*: each quarter flushed from the caches before it is read, as if another "
          "core had written it.", "",
          "| shape | records | sweeps | CPU ns / record | records / s (CPU) | records / s (wall) | vs the series' 4.35 M/s |",
          "| --- | --- | --- | --- | --- | --- | --- |"]
    for s in con["shapes"]:
        c = s["cpu_ns"]
        L.append(f"| {s['shape']} | {s['records']:,} | {s['sweeps']:,} | "
                 f"{s['ns_per_record']:.1f} ({c['min'] / s['records']:.1f}..{c['max'] / s['records']:.1f}) | "
                 f"{s['rate_cpu'] / 1e6:,.1f} M | {s['rate_wall'] / 1e6:,.1f} M | {s['rate_cpu'] / SERIES['rate']:,.1f}x |")
    L += ["", f"Headroom at the series' rate ({SERIES['rate'] / 1e6:.2f} M records/s: 400,000 served in "
          f"92 ms), from the slowest repetition of the slowest shape ({h['worst_shape']}, "
          f"{h['worst_rate'] / 1e6:,.1f} M/s): the {con['shapes'][0]['log_entries']:,}-record log fills "
          f"in {h['log_fill_ms']:.2f} ms; BPF wakes the consumer every {con['shapes'][0]['wake_every']:,} "
          f"records, every {h['wake_period_ms']:.2f} ms; draining them takes {h['drain_quarter_ms']:.3f} ms, "
          f"{h['duty'] * 100:.0f} % of one CPU. So a wake-up may be served up to "
          f"**{h['latency_budget_ms']:.2f} ms** late before a record is lost (the three other quarters "
          "fill meanwhile), and the consumer then catches up: the consumer's speed leaves "
          f"{1 / h['duty']:.0f}x headroom, the log's size leaves {h['latency_budget_ms']:.2f} ms of "
          "scheduling delay. A consumer that waits longer than that for a CPU (a machine whose "
          "CPUs are all busy, or one CPU and a kernel that does not preempt the walk, which "
          "allocates with GFP_NOWAIT and never sleeps) loses records: to ride out D ms of delay "
          f"at this rate the log would need 4/3 x {SERIES['rate'] / 1e6:.2f} M x D records "
          f"({4 / 3 * SERIES['rate'] * 0.010:,.0f} for 10 ms, {4 / 3 * SERIES['rate'] * 0.010 * 48 / 2**20:.1f} MiB). "
          "That is what the first scale run at 400,000 threads on lab-fixed met: its walk ran "
          "while the previous 400,000 threads' memory was still being freed, and the consumer, "
          "sharing the CPU with that work, lost 36,449 records, counted in the activation's "
          "`lost` and its verdict (\"figures are a lower bound\"), never silently; the scale part "
          "now waits for that memory to come back. Since the activation's figures are kept in "
          "the kernel (bpf/agg.h, 2026-12-02) the log is written only with --events: a loss "
          "there takes printed records, never the figures.", ""]
    return L


def ksyms_md(res):
    k = res.get("ksyms")
    L = ["## The symbol table, natively", ""]
    if not k:
        return L + ["Not run.", ""]
    L += ["build/bench/fgt-ksyms-bench (tests/bench/ksyms.c) on this host: src/host/ksyms.c "
          "loading N kallsyms lines (parse, sort, index; addresses out of order, as "
          "tests/host/test_ksyms.c's test_large writes them), then looking every symbol up by name and "
          "by an address inside it, every answer checked. Debian 7.2's /proc/kallsyms has about "
          "200,000 lines. Judged on this thread's CPU time, and on how it grows rather than on "
          "what it is: each size doubles the last, so N log N code takes a little over 2x as "
          "long at the next, quadratic code 4x. Spread = (max - min) / median over the "
          f"{k['sizes'][0]['reps']} repetitions.", "",
          "| symbols | load ms (CPU) | spread | lookups ms (CPU) | spread | ns / lookup | load ms (wall) | lookups ms (wall) |",
          "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for p in k["sizes"]:
        lc, kc = p["load_cpu_ns"], p["lookup_cpu_ns"]
        L.append(f"| {p['n']:,} | {lc['median'] / 1e6:,.1f} | {lc['spread'] * 100:.0f} % | "
                 f"{kc['median'] / 1e6:,.1f} | {kc['spread'] * 100:.0f} % | {kc['median'] / p['n']:,.0f} | "
                 f"{p['load_wall_ns']['median'] / 1e6:,.1f} | {p['lookup_wall_ns']['median'] / 1e6:,.1f} |")
    L += ["", "| step | symbols | load (CPU) | lookups (CPU) |", "| --- | --- | --- | --- |"]
    for st in k["steps"]:
        lo, lk = st["load_cpu_ns"], st["lookup_cpu_ns"]
        L.append(f"| {st['from']:,} -> {st['to']:,} | x{st['size_ratio']:.1f} | "
                 f"x{lo['ratio']:.2f} ({lo['min']:.2f}..{lo['max']:.2f}) | "
                 f"x{lk['ratio']:.2f} ({lk['min']:.2f}..{lk['max']:.2f}) |")
    e = k["exponent"]
    fmt = lambda v: "-" if v is None else f"{v:.2f}"
    L += ["", f"Fitted exponent (log time on log N, medians): load {fmt(e['load_cpu_ns'])}, "
          f"lookups {fmt(e['lookup_cpu_ns'])} (1 linear, 2 quadratic). In brackets: the range the "
          "repetitions allow, the slowest of one size over the fastest of the other.", ""]
    return L


def cost_md(res):
    c = res.get("cost")
    L = ["## 4. fgraphtop's own cost", ""]
    if not c:
        return L + ["Not run.", ""]
    cw = res.get("cost_wall") or {}
    L += repeat_md(c)
    L += overhead_md(c, cw)
    L += bpfstats_md(c)
    L += startup_md(c, cw)
    L += perturb_md(res)
    return L


def repeat_md(c):
    L = ["### Repeatability (instruction counting)", "",
         f"Each load {len(spread_list(c))} times per tool, in the same guest (the always-on "
         "repetitions below), spread = (max - min) / median; the target is under 0.5 %:", "",
         "| load | " + " | ".join(COST_TOOLS) + " |", "| --- |" + " --- |" * len(COST_TOOLS)]
    for load, o in c["overhead"].items():
        L.append(f"| {LOAD_NAMES[load]} x {o['n']:,} | " + " | ".join(
            f"{(o['tools'].get(t) or {}).get('ns', {}).get('spread', 0) * 100:.2f} %"
            if o["tools"].get(t) else "-" for t in COST_TOOLS) + " |")
    return L + [""]


def spread_list(c):
    o = next(iter(c["overhead"].values()), {})
    return ((o.get("tools") or {}).get("none") or {}).get("ns", {}).get("samples", [])


def overhead_md(c, cw):
    L = ["### Always-on overhead (fgraph off, never on since boot)", "",
         "Per repetition each tool in turn (rotating who goes first), each load; the ratio is to "
         "the same repetition's run with nothing attached. *floor*: fgt-floor, empty programs on "
         "fgraphtop's always-on hooks (the four kmem raw tracepoints, tp_btf/task_newtask, "
         "fentry/fexit copy_process). *bpftrace*: lab/bench/fgt-bench.bt.in, the same events "
         "with the same filters, written as a bpftrace user would (tracepoints).", "",
         "| load | nothing, us/op | floor | fgraphtop | bpftrace | wall clock: floor, fgraphtop, bpftrace |",
         "| --- | --- | --- | --- | --- | --- |"]
    for load, o in c["overhead"].items():
        t = o["tools"]
        wl = ((cw.get("overhead") or {}).get(load) or {}).get("tools", {})
        wall = ", ".join(pct_spread((wl.get(x) or {}).get("ratio")) for x in ("floor", "fgraphtop", "bpftrace"))
        L.append(f"| {LOAD_NAMES[load]} x {o['n']:,} | {t['none']['ns_per_op'] / 1e3:,.2f} | "
                 + " | ".join(pct_spread((t.get(x) or {}).get("ratio")) for x in ("floor", "fgraphtop", "bpftrace"))
                 + f" | {wall} |")
    L += ["", f"fgraphtop's events lost during these runs: {c['lost'] if c['lost_known'] else 'unknown'}.", ""]
    return L


def pct_spread(s):
    if not s:
        return "-"
    return f"{(s['median'] - 1) * 100:+.2f} % ({(s['min'] - 1) * 100:+.2f}..{(s['max'] - 1) * 100:+.2f})"


def bpfstats_md(c):
    bs = c.get("bpfstats") or {}
    L = ["### Each program's own cost (BPF_ENABLE_STATS)", "",
         "Each load once more per tool under fgt-bpfstats (run-time statistics enabled through an "
         "fd for that load only): per program, runs per operation and nanoseconds (= instructions, "
         "under icount) per run, including the two clock reads the statistics add. The floor's run "
         "counts are the load's own traffic: kmem events and new tasks per operation.", ""]
    for load in LOADS:
        tools = [t for t in ("floor", "fgraphtop", "bpftrace") if load in bs.get(t, {})]
        if not tools:
            continue
        L += [f"{LOAD_NAMES[load]} (x {bs[tools[0]][load]['n']:,}):", "",
              "| tool | program | runs / op | ns / run |", "| --- | --- | --- | --- |"]
        for t in tools:
            d = bs[t][load]
            for p in d["progs"]:
                L.append(f"| {t} | {p['name']} | {p['per_op']:.2f} | {f0(p['ns_per_run'])} |")
            L.append(f"| {t} | **all** | {d['run_cnt'] / d['n']:.2f} | "
                     f"**{d['run_time_ns'] / d['n']:,.0f} per op** |")
        L.append("")
    return L


def f0(v):
    return "-" if v is None else f"{v:.0f}"


def startup_md(c, cw):
    st = c["startup"]
    wst = (cw or {}).get("startup") or {}
    ks = c.get("kallsyms") or {}
    L = ["### Start-up and peak RSS", "",
         "From fork+exec to probes attached (fgraphtop: its `start` line; fgt-floor the same; "
         "bpftrace: the first `ready` from its last probe, on getsid(), which only the launcher "
         "calls); VmHWM after about a second attached and 2,000 open/close.", "",
         "| tool | start-up, ms (icount) | start-up, ms (wall clock) | VmHWM, KiB | VmRSS, KiB |",
         "| --- | --- | --- | --- | --- |"]
    for t in ("fgraphtop", "floor", "bpftrace"):
        s = st[t]
        L.append(f"| {t} | {spread_ms(s['startup_ns'])} | {spread_ms((wst.get(t) or {}).get('startup_ns'))} | "
                 f"{kb(s['vmhwm_kb'])} | {kb(s['vmrss_kb'])} |")
    if ks:
        L += ["", f"Reading /proc/kallsyms ({ks['symbols']:,} symbols) costs {ks['ns_per_read'] / 1e6:,.1f} ms "
              "of the kernel writing it out (icount, `cat` to /dev/null, less a bare `sh -c true`): "
              "fgraphtop reads it after its start line, its plan's symbols before from the "
              "kernel's kallsyms tables through /proc/kcore."]
    return L + [""]


def kb(s):
    return "-" if not s else f"{s['median']:,.0f} ({s['min']:,.0f}..{s['max']:,.0f})"


def perturb_md(res):
    rows = res.get("perturbation") or []
    L = ["### Perturbation of the activation (instruction counting)", ""]
    if not rows:
        return L + ["Not run.", ""]
    L += ["The first activation (as in section 1) at U = 10,000 and 30,000, one vCPU, "
          "icount: the oracle's trigger time with each of these running / without, per "
          "repetition. *floor*: fgt-floor (what the kmem tracepoints cost any tool). *answers' "
          "floor*: fgt-floor -t, whose allocation programs also take a timestamp, put the gap "
          "since the last into a log2 histogram and count, in the kernel, as libbpf-tools keep "
          "theirs: the least a tool giving the served count and the per-allocation latency "
          "does per allocation, with no record and no consumer. *BPF only*: "
          "fgraphtop stopped (SIGSTOP) during the trigger, so its programs run and its consumer "
          "does not. The programs keep the activation's figures themselves (bpf/agg.h), so "
          "*fgraphtop* as a user runs it adds only its consumer reading finished sweeps, once "
          "a second, on the same CPU here (with a second CPU it would run beside it; under "
          "icount the clock is total instructions either way).", "",
          "| kernel | U | without, ms | floor | answers' floor | BPF only | fgraphtop | sweeps / served (fgraphtop) | lost |",
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        L.append(f"| {r['kernel']} | {r['u']:,} | {spread_ms(r['without_ns'], 2)} | {pct_spread(r['floor'])} | "
                 f"{pct_spread(r.get('floor_ts'))} | {pct_spread(r.get('stopped'))} | {pct_spread(r['with'])} | "
                 f"{join_set(r['sweeps'])} / {join_set(r['served'])} | {join_set(r['lost'])} |")
    return L + [""]


def fidelity_md(res):
    L = ["## 5. Fidelity", "",
         "Every activation fgraphtop watched in section 1, against the oracle (a thread that exits "
         "or is created between the oracle's count and the walk moves served by one):", "",
         "| activation | runs | sweeps = oracle's | served - oracle's U, per run | events lost |",
         "| --- | --- | --- | --- | --- |"]
    for p in res["fix"]["points"]:
        if p["sweeps_match"] is None:
            continue
        lost = [x for x in p["fgt_lost"]]
        L.append(f"| {p['kernel']}, U = {p['u']:,} | {len(p['served_minus_u'])} | "
                 f"{'yes' if p['sweeps_match'] else '**no**'} | "
                 f"{', '.join(f'{d:+d}' for d in p['served_minus_u'])} | "
                 f"{sum(x or 0 for x in lost) if all(x is not None for x in lost) else 'unknown'} |")
    storm = res.get("storm")
    if storm:
        summ = storm.get("summary") or {}
        fk = summ.get("fork") or {}
        L += ["", f"Fork storm while fgraph is on (fgt-load fork {storm['n']:,}, fgraphtop --events, "
              f"icount guest): fgraphtop saw {storm['fgt_task_new']:,} task_new events from the storm's "
              f"pid ({storm['fgt_task_new_ok']:,} with a shadow stack), a private tracefs instance saw "
              f"{storm['tracefs_task_new']:,} (overrun {storm['tracefs_overrun']}); fgraphtop counted "
              f"{fk.get('allocs', 0) - fk.get('idle_allocs', 0):,} fork-path allocations for "
              f"{n_(fk.get('tasks_new'))} new tasks; events lost {summ.get('lost')} (runs the kernel "
              "skipped for recursion are counted as lost: an interrupt's free inside a free program)."]
    return L + [""]


def reading_md(res):
    """What the figures say, with the measurements behind each reading."""
    c = res.get("cost") or {}
    bs = c.get("bpfstats") or {}
    L = ["## Reading these numbers", ""]

    def per_run(tool, load, name):
        for p in ((bs.get(tool) or {}).get(load) or {}).get("progs", []):
            if p["name"].startswith(name):
                return p["ns_per_run"]
        return None
    fa, fl = per_run("fgraphtop", "openclose", "tp_kmem_cache_a"), per_run("floor", "openclose", "floor_kmem_cach")
    if fa and fl:
        L.append(f"- **Always-on cost is the kmem tracepoints' dispatch.** An empty program on "
                 f"kmem_cache_alloc runs in {fl:.0f} ns (icount, statistics on), fgraphtop's in {fa:.0f} "
                 "(a pointer comparison against the fgraph_stack cache, no helper call); what "
                 "dominates is the kernel calling into BPF at all, which the floor pays too. "
                 "Every open/close makes about four such events, every fork/exit about eighty "
                 "(the floor's run counts above): that is why the fork/exit and shell targets "
                 "(2 %) are below the floor, and why open/close is judged against it.")
    pr = res.get("perturbation") or []
    for r in pr:
        if r["u"] != 10000 or not r.get("stopped") or not med(r["without_ns"]):
            continue
        w = med(r["without_ns"])
        served = max([x for x in r["served"] if x] or [r["u"]])
        per = lambda a, b: (b - a) * w / served if a is not None and b is not None else None
        fl, sp, wi = ratio_pct(r["floor"]), ratio_pct(r["stopped"]), ratio_pct(r["with"])
        ts = per(fl, ratio_pct(r.get("floor_ts")))
        answers = f"{ts:.0f}" if ts is not None else "-"
        L.append(f"- **The activation pays per thread served**, {r['kernel']}, U = {r['u']:,}: the "
                 f"floor adds {pct(fl)} ({per(0, fl):.0f} instructions per thread served: the "
                 f"kmem tracepoint calling into BPF), fgraphtop's programs with its consumer "
                 f"stopped {pct(sp)} ({per(fl, sp):.0f} more: telling the walk's allocation "
                 "from the rest and aggregating it, bpf/agg.h's fast path; the answers' floor "
                 f"takes {answers} for a clock read, a histogram slot and a count), fgraphtop "
                 f"as run {pct(wi)} ({per(sp, wi):.0f} more: its consumer reading finished "
                 "sweeps).")
    if pr:
        L.append("- **icount counts instructions, not memory stalls**, so it weighs this "
                 "per-thread work heavily: here a stock walk costs a few instructions per thread "
                 "visited, where on the series' machine a visit costs about 91 ns of cache misses "
                 "(FACTS), and the fixed kernel's walk is an allocation per thread. The "
                 "perturbation figures are therefore the work fgraphtop adds, in the kernel's "
                 "own currency, not the slowdown a memory-bound walk would show on hardware; "
                 "the floor shows what any tool on these tracepoints adds in the same currency. "
                 "The per-sweep counts and the histogram are kept in the kernel, as libbpf-tools "
                 "keep theirs (bpf/agg.h, 2026-12-02): the consumer's share is gone, and what "
                 "is left over the answers' floor is the filter (the fgraph_stack cache, the "
                 "sweep's range) and what exact answers need beyond a count and a histogram: "
                 "each sweep's end, the batch, the non-blocking allocations, max and min.")
    L += ["- **Start-up**, broken down under icount with a profiling build (lab-stock, "
          "2026-12-01; not part of `make bench`; `fgraphtop -vv` logs the phases): 305 ms "
          "were /proc/kallsyms 143 (118 of them the kernel writing it out), the plan 40 "
          "(vmlinux BTF parsed 11, its targets found 7, the probes 12, closing them 10), "
          "libbpf's open and configure 20 (vmlinux BTF parsed again 10, attach targets found "
          "one linear search each, 7), its load 88 (CO-RE 12, the programs about 74: 7.2's "
          "verifier spends about 25 us per instruction loaded, mostly in "
          "compute_live_registers(), and 6 per instruction processed), attach 12. Now the "
          "plan's symbols come from the kernel's kallsyms tables through /proc/kcore (8 ms; "
          "the whole /proc/kallsyms is read after the start line, for stacks and the static "
          "verdict), and the stack walk shared by two programs is a loop, not 457 unrolled "
          "instructions in each (-16 ms of verifier). The in-kernel aggregation (2026-12-02) "
          "first made the load phase 180 ms (tp_kmem_cache_alloc: 25,749 instructions "
          "verified); its cold code now runs in global functions, verified once, its end is "
          "finished by the consumer, and a kernel with fgraph_stack_cachep loads kmalloc and "
          "kfree programs that hold only the list's path: 91.9 ms, against 71.5 before it. "
          "Then (2026-12-06) vmlinux BTF searched once, by the plan: no CO-RE relocation "
          "(the plan reads task_struct's and kmem_cache's offsets), and the attach "
          "targets' ids handed to the kernel by handlers of our own where libbpf searched "
          "the types for each name: open and configure 20.7 -> 1.3 ms, load 104.0 -> 96.3, "
          "exec to the start line 192.1 -> 165.0 (icount phases, lab-stock; "
          "docs/bench/startup.md). The stock walk's next batch, inline in the cold "
          "allocation path since b8376fa (agg_alloc_cold: 376 -> 583 instructions loaded, "
          "to take 1.4 points off the activation at lab-stock, U = 10,000), costs start-up "
          "about 10 ms: 161.3 -> 171.7 ms in the cost part. "
          "What is left beyond the floor: the separate probe phase "
          "and its BTF parse, libbpf's own parse (for nothing now, but it makes one for any "
          "tracing program), and the verifier's time per instruction loaded.",
          "- **Peak RSS**, phase by phase (`fgraphtop -vv`, lab/scenarios/startup-phases.sh, "
          "lab-fixed under TCG, 2026-12-06; not part of `make bench`): VmHWM 2,128 KiB after "
          "the symbols, 8,144 after the plan (vmlinux BTF parsed by libbpf for its probes' "
          "ids, then freed), 8,512 after libbpf's open, load and attach (its own parse); "
          "VmRSS then 2,708. After the start line /proc/kallsyms (62,817 symbols) brought "
          "VmRSS to 7,276, and the static verdict to 8,740, with a peak of 8,980: it keeps "
          "1.46 MB that malloc_trim() does not return, pages of Capstone's decoder tables "
          "and code, part of the binary. Since 2026-12-06 the executable's clean pages are "
          "given back (MADV_DONTNEED) after the start line and after the static verdict: "
          "VmRSS after /proc/kallsyms 6,284, the peak 8,688 at the static verdict, VmRSS "
          "6,920 at the end (lab-stock; docs/bench/startup.md). Two loads used to "
          "parse vmlinux BTF once more each after the first: the exposure's task iterator, "
          "an object of its own (VmHWM 10,748 at its load), now loaded with the other "
          "programs; and the static verdict's reader of task_struct::ret_stack, a page a "
          "read from sysfs (10,392, and half a second under TCG), now answered from the "
          "plan's parse. The ring buffer and the activation log are mapped after the peak: "
          "shrinking them lowers the steady RSS, not the peak. The floor's VmHWM is libbpf's "
          "parse with nothing else resident.",
          "- **Lost events with fgraph off** are runs the kernel skipped (recursion: an "
          "interrupt's free inside one of the free programs, on one vCPU): counted as lost "
          "because a skipped run cannot be known not to matter, although no event was due.",
          "- **At scale under TCG** the stock walk grows faster than U^2 and the stock/fixed "
          "ratio falls short of the series': TCG's cost per thread visited grows with the "
          "number of threads (presumably its software TLB missing on a working set of "
          "hundreds of MiB of task_structs; inferred, not measured), and it inflates an "
          "allocation far more than a pointer walk (FACTS: about 173 ns per visit and 10.5 us "
          "per fixed allocation under TCG, against 91 and 230 ns on the series' machine). "
          "The visit counts are exact anywhere.", ""]
    return L


def how_md(res):
    sc = res.get("scale") or {}
    cost_s = sum((r or {}).get("seconds") or 0 for n, r in res["runs"].items()
                 if n.startswith(("cost", "perturb")))
    fix_s = sum((r or {}).get("seconds") or 0 for n, r in res["runs"].items() if n.startswith("fix"))
    return ["## How to run", "",
            f"`make bench` runs the default parts, fix, cost, perturb, consumer, ksyms, static and "
            f"pressure (here: fix "
            f"{fix_s / 60:.0f} min, cost and perturb {cost_s / 60:.0f} min of guest runs, consumer "
            "seconds); "
            f"`make bench BENCH_PARTS=scale` the scale part ({sc.get('seconds', 0) / 60:,.0f} min here; "
            "resumable: a kernel and U already done is kept, each is saved as it ends); "
            "`BENCH_QUICK=1` a short version; `make bench-report` re-renders from `raw/`. Separate "
            "from `make test`.", ""]


# ---- the README's section -------------------------------------------------------------------

def readme_snippet(res):
    """The README's measured figures (its Overhead section, after "What that costs,
    measured"), from the same results; pasted by hand."""
    sc = res.get("scale") or {}
    by = {(p["kernel"], p["u"]): p for p in sc.get("points", [])}
    s4, f4 = by.get(("lab-stock", 400000)), by.get(("lab-fixed", 400000))
    r4 = next((r for r in sc.get("ratios", []) if r["u"] == 400000), {})
    c, con, fx = res.get("cost"), res.get("consumer"), res["fix"]
    if not (s4 and f4 and c and con and r4 and fx["points"]):
        return None
    t = {x["target"]: x for x in res["targets"]}
    ov, st = c["overhead"], c["startup"]
    version = (res["host"].get("kernels") or [{}])[0].get("version", "?").split("-")[0]
    exact = all(p["exact"] for p in sc["points"])
    storm = res.get("storm") or {}
    ssum = storm.get("summary") or {}

    def row(name, label, bt=None):
        x = t.get(name)
        if not x:
            return ""
        met = "met" if x["met"] else ("floor-bound" if x["floor"] is not None and floor_blocks(x)
                                      else "not met")
        return (f"| {label} | {fmt_val(x['value'], x['kind'])} | {fmt_val(x['floor'], x['kind'])} | "
                f"{bt if bt is not None else '-'} | {x['goal']}: {met} |\n")
    rows = "".join([
        row("always-on overhead, fork/exit", "always on, fork/exit", pct(tool_pct(ov, "fork", "bpftrace"))),
        row("always-on overhead, shell script", "always on, shell-heavy script",
            pct(tool_pct(ov, "exec", "bpftrace"))),
        row("always-on overhead, open/close", "always on, open/close", pct(tool_pct(ov, "openclose", "bpftrace"))),
    ] + [row(f"perturbation of the activation, {r['kernel']}, U = {r['u']:,}",
             f"the activation itself, {r['kernel']}, U = {r['u']:,}")
         for r in res.get("perturbation") or []] + [
        row("start-up vs bpftrace", f"start-up, vs bpftrace's {med(st['bpftrace']['startup_ns']) / 1e6:,.0f} ms",
            "1"),
        row("peak RSS vs bpftrace", f"peak RSS, vs bpftrace's {med(st['bpftrace']['vmhwm_kb']) / 1024:,.0f} MiB",
            "1"),
    ])
    spread = {load: max((o["tools"].get(x) or {}).get("ns", {}).get("spread") or 0
                        for x in ("none", "fgraphtop")) for load, o in ov.items()}
    fl10 = next((r for r in res.get("perturbation") or [] if r["kernel"] == "lab-fixed"
                 and r["u"] == 10000 and r.get("stopped")), None)
    per = ""
    if fl10 and med(fl10["without_ns"]):
        w, n = med(fl10["without_ns"]), max([x for x in fl10["served"] if x] or [10000])
        bpf = (ratio_pct(fl10["stopped"]) - ratio_pct(fl10["floor"])) * w / n
        cons = (ratio_pct(fl10["with"]) - ratio_pct(fl10["stopped"])) * w / n
        per = (f" (on lab-fixed at 10,000: {bpf:.0f} instructions of BPF and {cons:.0f} of its "
               "consumer per thread served, on one CPU)")
    wi4 = r4.get("trigger_ns_with")
    st30 = next((r for r in res.get("perturbation") or [] if r["kernel"] == "lab-stock"
                 and r["u"] == 30000 and r.get("floor_ts") and r.get("stopped")), None)
    answers = ""
    if st30:
        answers = (f"\n  The activation's floor is the answers' floor (fgt-floor -t: each allocation also "
                   "takes a timestamp, puts the gap\n  since the last into a log2 histogram and counts, "
                   "in the kernel, the least the served count and the latency\n  need; empty programs "
                   f"alone: {pct(ratio_pct(st30['floor']))} at lab-stock, U = 30,000). There fgraphtop's "
                   f"programs, its consumer stopped, cost\n  {pct(ratio_pct(st30['stopped']))} against "
                   f"that floor's {pct(ratio_pct(st30['floor_ts']))}, and as run "
                   f"{pct(ratio_pct(st30['with']))}: the programs keep the\n  per-sweep counts and "
                   "the histogram in the kernel (bpf/agg.h), so its consumer only reads finished\n  "
                   "sweeps; the rest over the floor is the filter and what exact answers need beyond "
                   "a count\n  and a histogram (each sweep's end, the batch, the non-blocking "
                   "allocations, max and min).")
    return f"""`make bench` boots the lab's Linux {version} kernels, stock and with the fix, under
qemu; `make bench BENCH_PARTS=scale` repeats the fix at the series' own scale. The
results, the machine and the spreads: [docs/bench/results.md](docs/bench/results.md).

- **The fix, at the series' scale.** With 400,000 idle threads lacking a shadow stack
  the stock kernel made {s4['sweeps']:,} sweeps ({s4['visits'] / 1e9:.1f} billion thread visits) and
  switching function_graph on took {s4['trigger_ns'] / 1e9:,.0f} s; the fixed kernel made one sweep
  and took {f4['trigger_ns'] / 1e9:.2f} s: **{r4.get('trigger_ns', 0):,.0f}x**, where the series measured
  **227 s / 0.092 s = {SERIES['ratio']:,.0f}x** on bare metal (qemu TCG slows memory allocation far
  more than the pointer walk, so the lab's ratio is the smaller one; wall clock on shared
  cores, too: in the run with fgraphtop the same two activations gave {wi4 or 0:,.0f}x; the thread
  visits, {r4.get('visits', 0):,.0f}x, are the same anywhere). fgraphtop's counts were exact against the
  lab's oracle at {', '.join(f'{u // 1000}k' for u in sorted({p['u'] for p in sc['points']}))} threads on
  both kernels ({'every one' if exact else 'not every one: see the results'}), with nothing lost, and
  at every U from 1,000 to 30,000; the stock walk it timed grows as
  U^{sc['fits']['lab-stock']['walk_ns']:.2f} over 50k..400k.
  ![first activation, stock vs fixed](docs/bench/fix.png)
- **The consumer keeps up with bare metal.** The activation's figures are kept in the
  kernel; with `--events` fgraphtop also reads a record per shadow stack, at
  {con['min_rate'] / 1e6:,.0f} million records per CPU-second natively (the slowest shape;
  the series' fixed kernel makes 4.35 million per second), so the 16,384-record log leaves
  a wake-up {con['headroom']['latency_budget_ms']:.1f} ms to be served before a printed
  record is lost (counted, and the figures are whole).
- **Cost**, under qemu's instruction counting (guest time = instructions executed: the
  same load repeats within {spread.get('openclose', 0) * 100:.2f} % (open/close), {spread.get('exec', 0) * 100:.2f} % (a shell-heavy
  script) and {spread.get('fork', 0) * 100:.2f} % (fork/exit); the targets are judged on
  medians), against the floor (empty BPF programs on the
  same hooks: what watching these events costs any tool) and an equivalent bpftrace script:

| measure | fgraphtop | floor | bpftrace | target |
| --- | --- | --- | --- | --- |
{rows}
  A target below its floor cannot be met with the kmem tracepoints attached, and they must
  be: on kernels whose fgraph.c cannot be attached they are the only way to see the 0->1
  step, whose first allocations follow its start by microseconds. icount counts
  instructions, not cache misses, so it weighs fgraphtop's work per thread served{per}
  heavily against a walk that costs a few instructions per thread visited (on hardware a
  visit is cache misses: about 91 ns on the series' machine). Start-up's floor is
  libbpf loading the same hooks (fgraphtop takes the sweep's address range from the
  kernel's kallsyms tables through /proc/kcore, and reads /proc/kallsyms after its start
  line); peak RSS's is libbpf's, with vmlinux BTF parsed.{answers}
  In a {storm.get('n', 0):,}-fork storm with fgraph on, fgraphtop saw every fork
  ({storm.get('fgt_task_new', 0):,}; tracefs {storm.get('tracefs_task_new', 0):,}); lost {ssum.get('lost')} (runs the
  kernel skipped: an interrupt's free inside a free program, counted, never silent).
"""


if __name__ == "__main__":
    main()
