#!/usr/bin/env python3
"""The checks of tests/lab/hold.sh on one kernel's results (lab/scenarios/hold.sh).

    hold_check.py KERNEL N RESULTS.jsonl

Prints one line per check ("ok ..." or "FAIL ..."), then the times held and
unheld (reported, never asserted); exits 1 when a check failed.
"""
import json
import sys

BATCH = 32	# FTRACE_RETSTACK_ALLOC_SIZE: the unfixed sweep's batch

kernel, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
recs = []
with open(path) as f:
    for line in f:
        try:
            recs.append(json.loads(line))
        except ValueError:
            pass
fails = 0


def check(ok, what):
    global fails
    print(f"hold: {kernel}: {'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        fails += 1


def step(name):
    for r in recs:
        if r.get("type") == "hold" and r.get("step") == name:
            return r
    return None


def steps(name):
    return [r for r in recs if r.get("type") == "hold" and r.get("step") == name]


def tool(name):
    return [r["rec"] for r in recs if r.get("type") == "fgt" and r.get("name") == name]


def stack_allocs(allocs, size):
    """Stack-sized allocations from the function holding the sweep."""
    if not isinstance(allocs, dict):
        return None
    return allocs.get("by_size", {}).get(str(size), 0)


def nothing_left(r, what):
    st = (r or {}).get("status") or {}
    check(r is not None and "fgraphtop-hold" not in r.get("instances", "x").split()
          and r.get("pin_dir") is False and r.get("dynamic_events") == ""
          and (r.get("links") or {}).get("kprobe_multi") == 0
          and (r.get("links") or {}).get("pinned") == 0
          and st.get("after", {}).get("held") is False and not st.get("after", {}).get("stale"),
          f"{what}: no instance, no pin, no kprobe_multi link, no dynamic event, not held "
          f"(instances '{(r or {}).get('instances')}', links {(r or {}).get('links')})")


take = step("take")
if take is None:
    check(False, "no take step")
    sys.exit(1)
if take.get("rc") == 9:
    # a kernel where the hold is not offered: refused, and nothing changed
    err = take.get("rec") or {}
    check(err.get("type") == "error" and err.get("code") == "refused"
          and "not offered on this kernel" in err.get("message", ""),
          f"refused with status 9: {err.get('message', '')[:90]}...")
    nothing_left(step("refused_left"), "after the refusal")
    check(step("refused_left") and step("refused_left").get("current_tracer") == "nop",
          "the top-level tracer untouched (nop)")
    sys.exit(1 if fails else 0)

t = take.get("rec") or {}
act = t.get("activation") or {}
stack = (t.get("memory") or {}).get("stack_bytes", 0)
method = (t.get("after") or {}).get("method")
check(take.get("rc") == 0 and t.get("taken") and t.get("after", {}).get("held"),
      f"taken: {method} on {t.get('function')} at {t.get('after', {}).get('where')}")
dry = (step("dry_run") or {}).get("rec") or {}
check(dry.get("dry_run") is True and dry.get("method") == t.get("method")
      and not dry.get("after", {}).get("held"),
      f"--dry-run named the same holder ({dry.get('method')}) and took nothing")
check(stack == 4096, f"one stack is {stack} bytes (4096 on x86-64 6.12 and 7.x)")
# its own activation: exactly what the oracle saw, 32 stack allocations a sweep
ora = stack_allocs(take.get("allocs"), stack)
# (a few blocking batches may show no walk between them on the attributed
# path: then the sweeps are not observable and the verdict unknown, issue
# 39; the oracle's count still fixes the batches)
nb = -(-act.get("served", 0) // BATCH)
seen_ok = (act.get("sweeps") == nb and act.get("verdict") == "not_fixed") or \
    (act.get("sweeps") is None and act.get("walks") == "not_observable" and nb < 32
     and act.get("verdict") == "unknown")
check(nb >= 1 and ora == BATCH * nb and seen_ok
      and act.get("served") == act.get("nr_threads")
      and (take.get("allocs") or {}).get("lost") == 0,
      f"its own activation: {act.get('sweeps')} sweeps served {act.get('served')} of "
      f"{act.get('nr_threads')} threads in {act.get('duration_ns', 0) / 1e9:.3f} s; the oracle: {ora} "
      f"stack allocations")
check(t.get("exposure", {}).get("lacking") is not None and t["exposure"]["lacking"] <= act.get(
    "served", -1), f"stated before: {t.get('exposure', {}).get('lacking')} lacking, "
      f"estimate {t.get('exposure', {}).get('estimate_s')} s")
again = (step("again") or {}).get("rec") or {}
check(again.get("message", "").startswith("already held") and step("again").get("rc") == 0,
      "a second hold: already held, status 0")

# N parked while held: every one has a stack
st = step("status_parked") or {}
sr = st.get("rec") or {}
ex = sr.get("exposure") or {}
check(sr.get("after", {}).get("held") and ex.get("lacking") == 0 and ex.get("threads", 0) >= n
      and (sr.get("memory") or {}).get("stacks", 0) >= n,
      f"{n} parked while held: exposure {ex.get('lacking')} lacking of {ex.get('threads')}; "
      f"memory {(sr.get('memory') or {}).get('bytes')} bytes in stacks")

# the later triggers: no sweep
held = steps("held_trigger")
check(len(held) >= 1, f"{len(held)} later triggers")
for h in held:
    on = h.get("on") or {}
    b = h.get("bpf") or {}
    a = h.get("allocs") or {}
    check(on.get("ok") is True and a.get("allocs") == 0 and a.get("lost") == 0
          and (not b.get("attachable") or b.get("calls") == 0),
          f"held, {h.get('trigger')}: the oracle saw {a.get('allocs')} allocations from the sweep's "
          f"function{'' if not b.get('attachable') else ', %s sweeps' % b.get('calls')}")
live = tool("held")
acts = [r for r in live if r.get("type") == "activation"]
summ = [r for r in live if r.get("type") == "summary"]
holders = [r for r in live if r.get("type") == "holders"]
named = any(any(x.get("fgraphtop_hold") for x in r.get("holders", [])) for r in holders)
check(not acts and summ and summ[-1].get("activations") == 0,
      f"the live view: {len(acts)} activations (summary: {summ[-1].get('activations') if summ else None})")
check(named and all(r.get("graph_active", 0) >= 1 for r in holders),
      "the live view's HOLDERS name the hold (fgraphtop_hold), fgraph never at 0")
ivals = [r.get("exposure") for r in live if r.get("type") == "interval" and r.get("exposure")]
check(ivals and all(e.get("lacking") == 0 for e in ivals),
      f"the live view's exposure: {sorted(set(e.get('lacking') for e in ivals))} lacking")
exp = json.dumps((step("explain") or {}).get("rec"))
check(step("explain") and step("explain").get("rc") == 0 and "fgraphtop hold's" in exp,
      "--explain names the hold")
ck = (step("check") or {}).get("rec") or {}
check(ck.get("hold", {}).get("held") is True and ck.get("hold", {}).get("method") == method,
      f"check: verdict {ck.get('verdict')}, hold {ck.get('hold')}")

# release: nothing left
rel = (step("release") or {}).get("rec") or {}
check(step("release") and step("release").get("rc") == 0 and rel.get("left") == ""
      and rel.get("removed"), f"released: {rel.get('removed')}")
nothing_left(step("released"), "after the release")
rel2 = (step("release_again") or {}).get("rec") or {}
check(rel2.get("message") == "not held: nothing to release", "a second release: nothing to release")

# unheld: the walk the hold spared
u = step("unheld_trigger") or {}
ua = stack_allocs(u.get("allocs"), stack)
uacts = [r for r in tool("unheld") if r.get("type") == "activation"]
ux = uacts[0] if uacts else {}
check(ux and ua == BATCH * ux.get("sweeps", -1) and ux.get("sweeps", 0) >= n // BATCH
      and (u.get("allocs") or {}).get("lost") == 0,
      f"unheld, {u.get('trigger')} over {n} fresh threads: {ux.get('sweeps')} sweeps served "
      f"{ux.get('served')} in {ux.get('duration_ns', 0) / 1e9:.3f} s; the oracle: {ua} stack "
      f"allocations")

# times: reported
for h in held:
    print(f"hold: {kernel}: time  held, {h.get('trigger')}: on in "
          f"{(h.get('on') or {}).get('ns', 0) / 1e6:.1f} ms, no walk")
print(f"hold: {kernel}: time  unheld, {u.get('trigger')}: on in "
      f"{(u.get('on') or {}).get('ns', 0) / 1e6:.1f} ms, its walk "
      f"{ux.get('duration_ns', 0) / 1e6:.1f} ms ({ux.get('sweeps')} sweeps); the hold's own "
      f"activation {act.get('duration_ns', 0) / 1e6:.1f} ms ({act.get('sweeps')} sweeps)")
sys.exit(1 if fails else 0)
