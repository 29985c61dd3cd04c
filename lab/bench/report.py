#!/usr/bin/env python3
"""Render docs/bench/ from the raw results of lab/bench/bench.sh.

    lab/bench/report.py [OUT]      OUT defaults to docs/bench; reads OUT/raw/

Writes OUT/results.json (every figure, with its samples), OUT/results.md (tables,
targets met or not, the machine) and OUT/fix.png, OUT/fix.svg (gnuplot).
Ratios are always of figures from the same run; spreads are min..max of the
samples, medians are what the targets are judged on.
"""
import json
import math
import os
import statistics
import subprocess
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "docs/bench"
RAW = os.path.join(OUT, "raw")


def load(name):
    path = os.path.join(RAW, name + ".jsonl")
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


def stats(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs),
            "samples": xs}


def fit(points):
    """Least-squares slope of log(y) on log(x)."""
    pts = [(math.log(x), math.log(y)) for x, y in points if x and y and x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if sxx == 0:
        return None
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx


def ms(ns, digits=1):
    return "-" if ns is None else f"{ns / 1e6:.{digits}f}"


def spread_ms(s, digits=1):
    if not s:
        return "-"
    return f"{ms(s['median'], digits)} ({ms(s['min'], digits)}..{ms(s['max'], digits)})"


def spread_ratio(s, digits=2):
    if not s:
        return "-"
    return f"{s['median']:.{digits}f} ({s['min']:.{digits}f}..{s['max']:.{digits}f})"


host = {}
if os.path.exists(os.path.join(RAW, "host.json")):
    host = json.load(open(os.path.join(RAW, "host.json")))
KERNELS = ["lab-stock", "lab-fixed"]
fixrows = {k: load("fix-" + k) for k in KERNELS}
cost = load("cost-lab-stock")
missing = []
runs = {}
for k, rows in list(fixrows.items()) + [("cost", cost)]:
    r = [x for x in rows if x.get("type") == "run"]
    runs[k] = r[-1] if r else None
    if not r:
        missing.append(f"{k}: no run record (not run, or the runner failed)")
    elif r[-1]["status"] != 0:
        missing.append(f"{k}: guest run status {r[-1]['status']} (splats: {r[-1]['splats']})")

# ---- 1. The fix -------------------------------------------------------------
fix = {"points": [], "ratios": [], "fits": {}}
perturb = {"points": []}
fidelity_act = []
for k in KERNELS:
    acts = [x for x in fixrows[k] if x.get("type") == "bench_fix"]
    for u in sorted({a["u"] for a in acts}):
        at_u = [a for a in acts if a["u"] == u]
        wi = [a for a in at_u if a["mode"] == "with"]
        wo = [a for a in at_u if a["mode"] == "without"]
        u_or = [a["on"].get("u") for a in at_u if a.get("on")]
        fg = [a["activation"] for a in wi if a.get("activation")]
        exp = [max(1, math.ceil(a["on"]["u"] / 32)) if k == "lab-stock" else 1 for a in wi]
        pt = {
            "kernel": k, "u": u, "u_oracle": u_or,
            "oracle_sweeps_expected": exp,
            "fgt_sweeps": [a.get("sweeps") for a in fg],
            "fgt_served": [a.get("served") for a in fg],
            "fgt_verdict": [a.get("verdict", {}).get("verdict") for a in fg],
            "fgt_alloc_ns": stats([a.get("alloc_ns") for a in fg]),
            "fgt_walk_ns": stats([a.get("walk_ns") for a in fg]),
            "fgt_duration_ns": stats([a.get("duration_ns") for a in fg]),
            "oracle_on_ns_without": stats([a["on"].get("ns") for a in wo]),
            "oracle_on_ns_with": stats([a["on"].get("ns") for a in wi]),
            "fgt_lost": [(a.get("summary") or {}).get("lost") for a in wi],
            "fgt_startup_ns": stats([(a.get("fgt_start") or {}).get("startup_ns") for a in wi]),
            "park_ns": stats([a["park"].get("ns") for a in at_u if a.get("park")]),
        }
        fix["points"].append(pt)
        # Perturbation: with/without pairs of the same repetition.
        pairs = []
        for r in sorted({a["rep"] for a in at_u}):
            w = [a["on"]["ns"] for a in wi if a["rep"] == r]
            o = [a["on"]["ns"] for a in wo if a["rep"] == r]
            if w and o and o[0]:
                pairs.append(w[0] / o[0])
        perturb["points"].append({"kernel": k, "u": u, "ratio_with_without": stats(pairs)})
        if fg:
            fidelity_act.append({
                "kernel": k, "u": u,
                "sweeps_match": all(a.get("sweeps") == e for a, e in zip(fg, exp)),
                "served_match": all(a.get("served") == w["on"]["u"] for a, w in zip(fg, wi)),
                "served_minus_u": [a.get("served") - w["on"]["u"] for a, w in zip(fg, wi)
                                   if a.get("served") is not None],
                "lost": sum(x or 0 for x in pt["fgt_lost"]),
                "lost_known": all(x is not None for x in pt["fgt_lost"]),
                "n": len(fg),
            })

    def series(key):
        return [(p["u"], p[key]["median"]) for p in fix["points"]
                if p["kernel"] == k and p.get(key)]
    fix["fits"][k] = {
        "oracle_on_ns_without": fit(series("oracle_on_ns_without")),
        "fgt_alloc_ns": fit(series("fgt_alloc_ns")),
        "fgt_walk_ns": fit(series("fgt_walk_ns")),
        "fgt_duration_ns": fit(series("fgt_duration_ns")),
    }
byku = {(p["kernel"], p["u"]): p for p in fix["points"]}
for u in sorted({p["u"] for p in fix["points"]}):
    s, f = byku.get(("lab-stock", u)), byku.get(("lab-fixed", u))
    if not s or not f:
        continue
    row = {"u": u}
    for key in ("oracle_on_ns_without", "fgt_alloc_ns", "fgt_duration_ns"):
        if s.get(key) and f.get(key) and f[key]["median"]:
            row[key] = s[key]["median"] / f[key]["median"]
    fix["ratios"].append(row)
all_pairs = [x for p in perturb["points"] if p["ratio_with_without"]
             for x in p["ratio_with_without"]["samples"]]
for k in KERNELS:
    perturb[k] = stats([x for p in perturb["points"] if p["kernel"] == k and p["ratio_with_without"]
                        for x in p["ratio_with_without"]["samples"]])
perturb["all"] = stats(all_pairs)

# ---- 2. Cost ------------------------------------------------------------------
env = next((x for x in cost if x.get("type") == "bench_env"), {})
plan = next((x for x in cost if x.get("type") == "bench_plan"), None)
startup = {}
for tool in ("fgraphtop", "bpftrace"):
    rows = [x for x in cost if x.get("type") == "bench_startup" and x["tool"] == tool]
    ok = [x["stats"] for x in rows if x.get("ok")]
    startup[tool] = {
        "startup_ns": stats([x.get("startup_ns") for x in ok]),
        "vmhwm_kb": stats([x.get("vmhwm_kb") for x in ok]),
        "failed": [x.get("output") for x in rows if not x.get("ok")],
        "note": next((x.get("note") for x in rows if x.get("note")), ""),
    }
for key in ("startup_ns", "vmhwm_kb"):
    a, b = startup["fgraphtop"][key], startup["bpftrace"][key]
    startup[key + "_ratio"] = a["median"] / b["median"] if a and b and b["median"] else None
overhead = {}
ov = [x for x in cost if x.get("type") == "bench_overhead"]
for load in sorted({x["result"]["mode"] for x in ov}):
    pairs, wi, wo = [], [], []
    for r in sorted({x["rep"] for x in ov}):
        w = [x["result"]["ns"] for x in ov if x["rep"] == r and x["mode"] == "with"
             and x["result"]["mode"] == load]
        o = [x["result"]["ns"] for x in ov if x["rep"] == r and x["mode"] == "without"
             and x["result"]["mode"] == load]
        wi += w
        wo += o
        if w and o and o[0]:
            pairs.append(w[0] / o[0])
    n = next(x["result"]["n"] for x in ov if x["result"]["mode"] == load)
    overhead[load] = {"n": n, "ratio_with_without": stats(pairs),
                      "with_ns": stats(wi), "without_ns": stats(wo)}
ovtool = [x for x in cost if x.get("type") == "bench_overhead_tool"]
overhead["lost"] = sum(((x.get("summary") or {}).get("lost") or 0) for x in ovtool)
storm = next((x for x in cost if x.get("type") == "bench_storm"), None)

# ---- Targets --------------------------------------------------------------------
def target(name, goal, value, met, how):
    return {"target": name, "goal": goal, "value": value, "met": met, "how": how}


targets = []
r = startup.get("startup_ns_ratio")
targets.append(target("start-up vs bpftrace", "<= 0.10", r, None if r is None else r <= 0.10,
                      "median fgraphtop / median bpftrace, exec to probes attached"))
r = startup.get("vmhwm_kb_ratio")
targets.append(target("peak RSS vs bpftrace", "<= 0.10", r, None if r is None else r <= 0.10,
                      "median VmHWM fgraphtop / bpftrace"))
for load, o in overhead.items():
    if load == "lost":
        continue
    s = o["ratio_with_without"]
    v = None if not s else s["median"] - 1
    targets.append(target(f"always-on overhead, {load}", "<= 2 %", v,
                          None if v is None else v <= 0.02,
                          "median of per-repetition (with / without) - 1, fgraph off"))
for k in KERNELS:
    s = perturb.get(k)
    v = None if not s else s["median"] - 1
    targets.append(target(f"perturbation of the activation, {k}", "<= 5 %", v,
                          None if v is None else v <= 0.05,
                          "median over all U of per-repetition (with / without) - 1, "
                          "oracle-measured trigger time"))
big = [a for a in fidelity_act if a["u"] == max((b["u"] for b in fidelity_act), default=0)]
for a in big:
    ok = a["sweeps_match"] and a["served_match"] and a["lost"] == 0 and a["lost_known"]
    targets.append(target(f"fidelity, {a['u']}-thread activation, {a['kernel']}",
                          "no loss, counts exact",
                          {"lost": a["lost"], "sweeps_match": a["sweeps_match"],
                           "served_match": a["served_match"]}, ok,
                          "fgraphtop sweeps = oracle's expected, served = oracle's U"))
def storm_fork():
    # fork-path allocations (idle tasks' apart) against new tasks, both counted
    # by fgraphtop over the whole run: every task created while fgraph is on
    # gets one allocation attempt
    fk = (storm.get("summary") or {}).get("fork") or {}
    return (fk.get("allocs", 0) - fk.get("idle_allocs", 0), fk.get("tasks_new"))
if storm:
    fa, tn = storm_fork()
    ok = (storm["fgt_task_new"] == storm["n"] == storm["tracefs_task_new"]
          and storm["fgt_task_new_ok"] == storm["n"] and fa == tn
          and ((storm.get("summary") or {}).get("lost") == 0) and storm["tracefs_overrun"] == 0)
    targets.append(target("fidelity, fork storm with fgraph on", "no loss, counts exact",
                          {"forks": storm["n"], "fgraphtop": storm["fgt_task_new"],
                           "tracefs": storm["tracefs_task_new"], "fork_allocs": fa,
                           "tasks_new": tn,
                           "lost": (storm.get("summary") or {}).get("lost")}, ok,
                          "task_new events from the storm's pid: fgraphtop vs tracefs vs the count"))

results = {
    "schema": 1, "mode": host.get("mode"), "host": host, "guest": env,
    "runs": runs, "missing": missing, "fix": fix, "perturbation": perturb,
    "startup": startup, "overhead": overhead, "storm": storm,
    "fidelity_activations": fidelity_act, "targets": targets, "plan": plan,
}
with open(os.path.join(OUT, "results.json"), "w") as f:
    json.dump(results, f, indent=1)
    f.write("\n")

# ---- Plot -----------------------------------------------------------------------
dat = os.path.join(OUT, "fix.dat")
with open(dat, "w") as f:
    f.write("# u stock_oracle_ms stock_fgt_alloc_ms fixed_oracle_ms fixed_fgt_alloc_ms\n")
    for u in sorted({p["u"] for p in fix["points"]}):
        vals = []
        for k in KERNELS:
            p = byku.get((k, u), {})
            for key in ("oracle_on_ns_without", "fgt_alloc_ns"):
                s = p.get(key)
                vals.append(f"{s['median'] / 1e6:.3f}" if s else "NaN")
        f.write(f"{u} {' '.join(vals)}\n")
accel = ",".join(sorted({(r or {}).get("accel", "?") for r in runs.values() if r}))
gp = f"""
set logscale xy
set xrange [700:45000]
set xlabel "threads lacking a shadow stack (U)"
set ylabel "ms (median)"
set title "fgraph first activation, Linux {(host.get('kernels') or [{}])[0].get('version', '?')} lab kernels, qemu {accel}"
set key top left
set grid
plot '{dat}' using 1:2 with linespoints lw 2 title 'stock: trigger time (oracle)', \\
     '' using 1:3 with linespoints lw 2 title 'stock: allocation phase (fgraphtop)', \\
     '' using 1:4 with linespoints lw 2 title 'fixed: trigger time (oracle)', \\
     '' using 1:5 with linespoints lw 2 title 'fixed: allocation phase (fgraphtop)'
"""
plots_ok = True
for term, ext in (("pngcairo size 900,600", "png"), ("svg size 900,600", "svg")):
    try:
        subprocess.run(["gnuplot"], input=f"set terminal {term}\nset output '{OUT}/fix.{ext}'\n{gp}",
                       text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        plots_ok = False
        print(f"report: gnuplot ({ext}): {e}", file=sys.stderr)

# ---- Markdown ---------------------------------------------------------------------
L = []
w = L.append
w("# fgraphtop benchmarks (`make bench`)")
w("")
w(f"Generated by lab/bench/report.py from the raw results in `raw/` "
  f"({host.get('mode', '?')} run, {host.get('date', '?')}, commit {host.get('commit', '?')}). "
  "Every ratio below is of figures from this same run. Spreads are min..max over the "
  "repetitions; the targets are judged on medians.")
w("")
if host.get("parts") and host["parts"] != "fix cost":
    w(f"This set combines parts of two full-mode runs on the same machine and build: the last one "
      f"re-ran only `{host['parts']}` (BENCH_PARTS) and kept the other parts' raw results; every "
      "ratio is still between figures of one guest run. The header above is the last run's.")
    w("")
w("## The machine")
w("")
w(f"- Host: {host.get('host_cpu', '?')}, {host.get('host_cores', '?')} cores, "
  f"{host.get('host_mem_mb', '?')} MiB, kernel {host.get('host_kernel', '?')}, {host.get('qemu', '?')}. "
  "The cores are shared with other engineers' guests: timings carry their noise.")
tcg_thread = host.get("tcg_thread") or ("multi (qemu's default; this run predates lab/run.sh "
                                         "choosing thread=single)")
w(f"- Guests: qemu accel **{accel}**" + (f" (thread={tcg_thread})" if accel == "tcg" else "") +
  f" (KVM only where the runner's probe boot works; here "
  f"it does not), {env.get('nproc', '?')} vCPUs ({env.get('cpu', '?')}), 2048 MiB (fix runs), "
  "3072 MiB (cost runs: bpftrace's libraries ride in the initramfs).")
for kinfo in host.get("kernels", []):
    w(f"- Kernel {kinfo['name']}: {kinfo['release']}, from {kinfo['package']} {kinfo['version']}"
      + (f", patches: {', '.join(kinfo['patches'])}" if kinfo.get("patches") else ", as shipped"))
if env.get("bpftrace"):
    w(f"- bpftrace: Debian's {env['bpftrace']} (bookworm) with its shared libraries.")
w("")
if accel == "tcg":
    w("**TCG timing noise is large.** Everything runs under qemu's software CPU emulation on 2 "
      "shared host cores: absolute times are 10-100x slower than hardware and vary from run to "
      "run by tens of percent. Read the ratios and the growth exponents, and the spreads next to them; "
      "small percentages (the 2 % and 5 % targets) are below what this setup can resolve reliably.")
    w("")
if missing:
    w("**Missing or failed parts:** " + "; ".join(missing))
    w("")
w("## Targets")
w("")
w("| target | goal | measured | met |")
w("| --- | --- | --- | --- |")
for t in targets:
    v = t["value"]
    if isinstance(v, float):
        vs = f"{v * 100:+.1f} %" if "%" in t["goal"] else f"{v:.3f}"
    else:
        vs = json.dumps(v)
    met = "?" if t["met"] is None else ("**yes**" if t["met"] else "**no**")
    w(f"| {t['target']} | {t['goal']} | {vs} | {met} |")
w("")
w("## 1. The fix, reproduced")
w("")
w("First 0->1 activation (function_graph on one function via tracefs, so the time is the "
  "walk and not the patching of every call site) with U freshly parked idle threads lacking a "
  "shadow stack. *Oracle*: the lab's own figures: U counted from /proc just before the trigger, "
  "the sweeps the kernel must make (stock: max(1, ceil(U/32)); fixed: 1) and the trigger's wall "
  "time (the write to current_tracer), measured **without** fgraphtop running. *fgraphtop*: its "
  "activation record (attributed path), measured in the runs **with** it.")
w("")
w("| kernel | U (oracle) | sweeps: oracle / fgraphtop | served (fgraphtop) | trigger time, ms (oracle) | allocation phase, ms (fgraphtop) | walks, ms (fgraphtop) | verdict |")
w("| --- | --- | --- | --- | --- | --- | --- | --- |")
for p in fix["points"]:
    w(f"| {p['kernel']} | {','.join(str(x) for x in sorted(set(p['u_oracle'])))} | "
      f"{'/'.join(str(x) for x in sorted(set(p['oracle_sweeps_expected'])))} / "
      f"{'/'.join(str(x) for x in sorted(set(p['fgt_sweeps'])))} | "
      f"{'/'.join(str(x) for x in sorted(set(p['fgt_served'])))} | "
      f"{spread_ms(p['oracle_on_ns_without'])} | {spread_ms(p['fgt_alloc_ns'])} | "
      f"{spread_ms(p['fgt_walk_ns'])} | {','.join(sorted(set(str(v) for v in p['fgt_verdict'])))} |")
w("")
w("Stock / fixed, same U, ratio of medians:")
w("")
w("| U | trigger time (oracle) | allocation phase (fgraphtop) |")
w("| --- | --- | --- |")
for r in fix["ratios"]:
    a = r.get("oracle_on_ns_without")
    b = r.get("fgt_alloc_ns")
    w(f"| {r['u']} | {'-' if a is None else f'{a:.1f}x'} | {'-' if b is None else f'{b:.1f}x'} |")
w("")
w("Growth: least-squares slope of log(time) on log(U) over the medians (2 = quadratic, 1 = linear):")
w("")
w("| kernel | trigger time (oracle) | allocation phase (fgraphtop) | walks (fgraphtop) |")
w("| --- | --- | --- | --- |")
for k, fz in fix["fits"].items():
    def f2(x):
        return "-" if x is None else f"{x:.2f}"
    w(f"| {k} | {f2(fz['oracle_on_ns_without'])} | {f2(fz['fgt_alloc_ns'])} | {f2(fz['fgt_walk_ns'])} |")
w("")
if plots_ok:
    w("![first activation: stock vs fixed](fix.png) ([SVG](fix.svg))")
    w("")
w("## 2. fgraphtop's cost")
w("")
w("### Start-up and peak RSS, against bpftrace")
w("")
w("Same guest (lab-stock), alternating which tool starts first. Start-up: from fork+exec to "
  "probes attached: for fgraphtop its `start` JSON line (printed once every probe is attached); for "
  "bpftrace, the first `ready` printed by the last probe of its script "
  "(lab/bench/fgt-bench.bt.in), which fires on a slab allocation the launcher makes every "
  "millisecond: bpftrace attaches in script order, so by then all are attached. "
  "Peak RSS: VmHWM after about a second attached and 2,000 open/close. "
  f"bpftrace script: {startup['bpftrace'].get('note') or '?'} (the kmem tracepoints, fentry/fexit on "
  "kmem_cache_alloc_noprof, fentry on kmem_cache_free, task_newtask).")
w("")
w("| tool | start-up, ms | VmHWM, KiB |")
w("| --- | --- | --- |")
for tool in ("fgraphtop", "bpftrace"):
    s = startup[tool]
    h = s["vmhwm_kb"]
    w(f"| {tool} | {spread_ms(s['startup_ns'], 0)} | "
      + ("-" if not h else f"{h['median']:.0f} ({h['min']:.0f}..{h['max']:.0f})")
      + (f" (failed: {s['failed'][:1]})" if s["failed"] else "") + " |")
sr, rr = startup.get("startup_ns_ratio"), startup.get("vmhwm_kb_ratio")
w("")
w(f"Ratio fgraphtop / bpftrace: start-up {'-' if sr is None else f'{sr:.3f}'}, "
  f"peak RSS {'-' if rr is None else f'{rr:.3f}'}.")
w("")
w("### Always-on overhead (fgraph off)")
w("")
w("fgt-load loops in the guest, without and with fgraphtop running, interleaved "
  "(without/with, with/without, ...). Ratio per repetition, then median and spread.")
w("")
w("| load | ops | without, ms | with, ms | with / without |")
w("| --- | --- | --- | --- | --- |")
for load, o in overhead.items():
    if load == "lost":
        continue
    w(f"| {load} | {o['n']} | {spread_ms(o['without_ns'])} | {spread_ms(o['with_ns'])} | "
      f"{spread_ratio(o['ratio_with_without'], 3)} |")
w("")
w(f"fgraphtop's events lost during these runs: {overhead.get('lost', '-')}.")
w("")
w("### Perturbation of the activation")
w("")
w("The oracle's trigger time with fgraphtop running / without, per repetition at the same U "
  "(table 1's runs):")
w("")
w("| kernel | U | with / without |")
w("| --- | --- | --- |")
for p in perturb["points"]:
    w(f"| {p['kernel']} | {p['u']} | {spread_ratio(p['ratio_with_without'])} |")
w("")
w("## 3. Fidelity under load")
w("")
w("Every activation fgraphtop watched in table 1, against the oracle. U is counted from /proc "
  "by the trigger just before its write; a thread that exits (or is created) between that count "
  "and the walk makes served differ from U by one without anything being wrong, so the "
  "differences are shown, not only whether they are zero.")
w("")
w("| activation | runs | sweeps = oracle's | served - oracle's U, per run | events lost |")
w("| --- | --- | --- | --- | --- |")
for a in fidelity_act:
    w(f"| {a['kernel']}, U = {a['u']} | {a['n']} | {'yes' if a['sweeps_match'] else '**no**'} | "
      f"{', '.join(f'{d:+d}' for d in a['served_minus_u'])} | "
      f"{a['lost'] if a['lost_known'] else 'unknown'} |")
w("")
if storm:
    w(f"Fork storm while fgraph is on (fgt-load fork {storm['n']}, fgraphtop --events): "
      f"fgraphtop saw {storm['fgt_task_new']} task_new events from the storm's pid "
      f"({storm['fgt_task_new_ok']} with a shadow stack; {storm['fgt_task_new_all']} in all), "
      f"a private tracefs instance saw {storm['tracefs_task_new']} task_newtask "
      f"(overrun {storm['tracefs_overrun']}); fgraphtop counted {storm_fork()[0]} fork-path "
      f"allocations for {storm_fork()[1]} new tasks, and lost "
      f"{(storm.get('summary') or {}).get('lost')} events. Lost events here are runs the kernel "
      "skipped (recursion_misses) of the kfree and kmem_cache_free programs: an interrupt "
      "freeing objects (RCU callbacks of the exiting tasks) while one of them runs on that CPU. "
      "They are reported because a skipped run cannot be known not to matter; the counts above "
      "do not depend on them (in a separate `-vv` run of the same storm on 2026-11-29, every "
      "lost event was such a run, and fork-path allocations equalled new tasks, 5,002 = 5,002).")
    w("")
w("## Reading these numbers")
w("")
fz = fix["fits"]
def g(k, key):
    v = fz.get(k, {}).get(key)
    return "-" if v is None else f"{v:.2f}"
w(f"- **The quadratic walk is reproduced and the fix removes it.** Sweeps are exact at every U "
  f"(stock 32..938, fixed 1). fgraphtop's total walk time grows with slope {g('lab-stock', 'fgt_walk_ns')} "
  f"on stock; the oracle's trigger time on stock has slope {g('lab-stock', 'oracle_on_ns_without')} over "
  "1k..30k: below 2 because constant costs dominate at small U and because of TCG noise (see the "
  "spreads: single runs at 10k and 20k doubled). On the fixed kernel the oracle's trigger time hardly "
  f"grows at all (slope {g('lab-fixed', 'oracle_on_ns_without')}): the single walk is cheap next to the "
  "rest of the tracer switch, so its own linear growth is hidden in the constant. Stock / fixed at "
  "30k is the headline ratio.")
w("- **fgraphtop perturbs the activation it measures**: for every thread served, a kmem "
  "tracepoint runs fgraphtop's program, which classifies the allocation (size or cache, call "
  "site) and writes a 48-byte record to the activation log (one clock read, no ring-buffer "
  "lock). No allocator trampoline is attached during an activation and fgraphtop's consumer "
  "stays asleep until it ends (docs/EVENTS.md), so what remains is the tracepoint and that "
  "record: under TCG each costs on the order of a microsecond, comparable to a slab fast-path "
  "allocation itself, which is what the fixed kernel's walk mostly does. Its timing figures "
  "include that cost; the counts do not depend on it. (Earlier designs, with the allocator's "
  "fentry/fexit and a kernel stack walk per allocation, measured +64 % on stock and +486 % on "
  "fixed in this benchmark.)")
def pct(load):
    o = overhead.get(load, {}).get("ratio_with_without")
    return "-" if not o else (f"{(o['median'] - 1) * 100:+.0f} % "
                              f"({(o['min'] - 1) * 100:+.0f}..{(o['max'] - 1) * 100:+.0f} %)")
w(f"- **Always-on** (fgraph off): fork/exit {pct('fork')}, open/close {pct('openclose')}. "
  "While fgraph is off nothing but the four kmem tracepoints, task_newtask and copy_process's "
  "fentry/fexit is attached (the allocator's fentry/fexit come only while fgraph is active). "
  "Each open/close allocates and frees slab objects (names_cache, filp), so it runs the kmem "
  "tracepoints' programs, which reject those objects by comparing constants; under TCG the "
  "tracepoint-to-BPF dispatch is presumably a fair part of a microsecond each (inferred, not "
  "measured separately), against about 5 us for the whole open/close. That floor comes with watching the slab allocator on kernels whose "
  "fgraph.c cannot be attached: the activation's first allocations follow its start by "
  "microseconds, too soon to attach anything then. The spreads show how little TCG can "
  "resolve at 2 %.")
w("- **Start-up**, as broken down with a profiling build on lab-stock (2026-11-29): the plan's "
  "load-and-attach probes about 110 ms (one BTF parse, raw syscalls), /proc/kallsyms about "
  "130..170 ms of which about 90 ms is the kernel writing the file, the main object's load and "
  "attach about 180..230 ms (libbpf parses vmlinux BTF again). Peak RSS: the ring buffer's data "
  "is mapped twice and the activation log once, so they count in full (2 MiB + 768 KiB by "
  "default). bpftrace's start-up is presumably LLVM compiling the script (inferred).")
w("- **Kernel Oops under multi-threaded TCG**: in two earlier full cost runs, with qemu's "
  "multi-threaded TCG, the guest (lab-stock) died with `Oops: int3` at "
  "`kmem_cache_alloc_noprof+0x5`, in the first open/close load after fgraphtop, which has an "
  "fentry on that function, was stopped (excerpt: [oops-int3.txt](oops-int3.txt)). The lab has "
  "traced the same Oops at ftrace call sites to multi-threaded TCG running a stale translation "
  "of a site text_poke_bp() had rewritten on the other vCPU, and lab/run.sh now uses "
  "thread=single: most likely an emulation artifact, not fgraphtop's or the kernel's. This run "
  f"used thread={tcg_thread if accel == 'tcg' else '-'} and passed; the cost scenario also waits "
  "2 s after stopping a tool.")
w("")
w("## How to run")
w("")
w("`make bench` (full, about 11 minutes here under single-threaded TCG on 2 cores), `make bench BENCH_QUICK=1` "
  "(U = 1k and 5k, one repetition), `make bench-report` to re-render from `raw/`. "
  "Separate from `make test`; re-runnable (raw results are replaced only at the end of a run).")
w("")
# ---- README paragraph -------------------------------------------------------------
def snippet():
    s30, f30 = byku.get(("lab-stock", 30000)), byku.get(("lab-fixed", 30000))
    r30 = next((r for r in fix["ratios"] if r["u"] == 30000), {})
    if not (s30 and f30 and s30.get("oracle_on_ns_without") and f30.get("oracle_on_ns_without")
            and startup.get("startup_ns_ratio") and storm and perturb.get("lab-stock")
            and perturb.get("lab-fixed") and "fork" in overhead and "openclose" in overhead):
        return None
    so, fo = s30["oracle_on_ns_without"], f30["oracle_on_ns_without"]
    short = [a for a in fidelity_act if any(d != 0 for d in a["served_minus_u"])]
    served = ("exact" if not short else "exact except " + ", ".join(
        f"{a['kernel']} U = {a['u']} ({', '.join(f'{d:+d}' for d in a['served_minus_u'] if d)})"
        for a in short))
    lost_act = sum(a["lost"] for a in fidelity_act)
    lost_storm = (storm.get("summary") or {}).get("lost") or 0
    ov_f = (overhead["fork"]["ratio_with_without"]["median"] - 1) * 100
    ov_o = (overhead["openclose"]["ratio_with_without"]["median"] - 1) * 100
    return f"""## Benchmarks

`make bench` (separate from `make test`; `BENCH_QUICK=1` for a short version) boots the
lab's Linux {(host.get('kernels') or [{}])[0].get('version', '?').split('-')[0]} kernels, stock and with the fix, in qemu and measures
everything in one run; the full results, the machine and the spreads are in
[docs/bench/results.md](docs/bench/results.md). Measured under qemu {accel} on {host.get('host_cores', '?')} shared
cores, so absolute times are slow and noisy: read the ratios.

- **The fix, reproduced.** With 30,000 threads lacking a shadow stack, the stock kernel
  makes {s30['oracle_sweeps_expected'][0]} sweeps and switching function_graph on takes {so['median'] / 1e6:,.0f} ms
  (median; {so['min'] / 1e6:,.0f}..{so['max'] / 1e6:,.0f} ms); the fixed kernel makes one sweep and takes
  {fo['median'] / 1e6:,.0f} ms: **{r30.get('oracle_on_ns_without', 0):.0f}x** faster. fgraphtop's sweep counts match the lab's
  oracle at every U from {min(p['u'] for p in fix['points']):,} to 30,000 (threads served: {served}),
  and the stock kernel's total walk time it measures grows as U^{fix['fits']['lab-stock']['fgt_walk_ns']:.2f}.
  ![first activation, stock vs fixed](docs/bench/fix.png)
- **Fidelity.** Events lost: {lost_act} over every activation up to 30,000 threads. In a
  {storm['n']:,}-fork storm with fgraph on: {storm['fgt_task_new']:,} forks seen ({storm['tracefs_task_new']:,} by tracefs),
  {storm_fork()[0]:,} fork-path allocations for {storm_fork()[1]:,} new tasks; {lost_storm} runs of the kfree and
  kmem_cache_free programs skipped by the kernel (recursion: interrupts freeing objects while one
  runs), reported as lost although these counts do not depend on them.
- **Cost.** Against an equivalent bpftrace script: start-up {startup['startup_ns_ratio']:.2f}x
  ({startup['fgraphtop']['startup_ns']['median'] / 1e6:,.0f} ms vs {startup['bpftrace']['startup_ns']['median'] / 1e6:,.0f} ms; target 1/10 {'met' if startup['startup_ns_ratio'] <= 0.1 else 'not met'}) and peak RSS
  {startup['vmhwm_kb_ratio']:.3f}x ({startup['fgraphtop']['vmhwm_kb']['median'] / 1024:.1f} MiB vs {startup['bpftrace']['vmhwm_kb']['median'] / 1024:.0f} MiB; target 1/10 {'met' if startup['vmhwm_kb_ratio'] <= 0.1 else 'not met'}).
  Always-on overhead (fgraph off): {ov_f:+.0f} % on a fork/exit loop, {ov_o:+.0f} % on an open/close loop
  (target 2 %). While an activation runs, fgraphtop slows it down
  ({(perturb['lab-stock']['median'] - 1) * 100:+.0f} % on stock, {(perturb['lab-fixed']['median'] - 1) * 100:+.0f} % on fixed; target 5 %): the kmem tracepoint
  and one log record per thread served, which under TCG cost about as much as the
  allocation itself; its counts are unaffected.
"""


snip = snippet()
if snip:
    with open(os.path.join(OUT, "README-snippet.md"), "w") as f:
        f.write(snip)

with open(os.path.join(OUT, "results.md"), "w") as f:
    f.write("\n".join(L))
print(f"report: {OUT}/results.md, results.json" + (", fix.png, fix.svg" if plots_ok else ""))
