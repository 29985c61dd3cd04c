#!/usr/bin/env python3
"""Check fgraphtop JSON lines against docs/json.md (schema 1).

    tests/json_schema.py FILE...     (JSON lines; "-" for stdin)

Every line must be one object of a documented type with every documented field,
of the documented JSON type and, where the document lists them, one of the
documented values. New fields are allowed (the schema says they may appear
without a bump). Lines wrapped by the lab's tool-* scenarios
({"type":"fgt","rec":{...}}) are unwrapped; other lab lines are skipped.
Exit 0 when every record conforms, 1 otherwise (each problem on stderr),
2 when no fgraphtop record was found at all.
"""
import json
import sys

INT, NUM, STR, BOOL, ARR, OBJ = "int", "number", "string", "bool", "array", "object"
INT_OR_NULL = "int or null"
OBJ_OR_NULL = "object or null"	# present; checked against its own spec below
PATH = ("direct", "attributed")
VERDICT = ("fixed", "not_fixed", "inconclusive", "not_affected")
EXIT_CODES = {0: "ok", 1: "error", 2: "usage", 3: "no_fgraph", 4: "no_permission",
              5: "no_btf", 6: "no_bpf_tracing", 7: "no_path", 8: "lockdown", 9: "refused"}

FORK = {"allocs": INT, "failed": INT, "tasks_new": INT, "tasks_without_stack": INT,
        "idle_allocs": INT, "latency_p50_ns": INT, "latency_max_ns": INT}
TRIGGER = {"pid": INT, "tid": INT, "comm": STR, "via": STR, "stack": (ARR, STR)}
ALLOCS = {"blocking": INT, "nonblocking": INT, "failed_blocking": INT,
          "failed_nonblocking": INT, "freed": INT}
PER_SWEEP = {"served": INT, "batch": INT, "nonblocking": INT, "failed_blocking": INT,
             "failed_nonblocking": INT, "freed": INT, "ret": INT, "ret_known": BOOL,
             "walk_ns": INT, "alloc_ns": INT}
LATENCY = {"count": INT, "p50": INT, "p99": INT, "max": INT}
PROBE = {"kind": ("fentry", "fexit", "tp_btf", "raw_tp"), "target": STR, "tried": BOOL,
         "ok": BOOL, "load_err": INT, "attach_err": INT, "why": STR, "role": STR, "change": STR}
CHECK_VERDICT = ("fixed", "not_fixed", "not_affected", "unknown")
FIGURE = {"figure": STR, "path": PATH, "how": STR}
HOLDER = {"kind": ("tracer", "latency_tracer", "profiler", "fprobe", "bpf_link"), "name": STR,
          "instance": STR, "maybe": BOOL, "return": BOOL, "text": STR, "undo": STR, "pid": INT,
          "comm": STR, "fgraphtop_hold": BOOL}
HOLD_SEEN = {"held": BOOL, "stale": BOOL, "method": ("kretprobe.multi", "instance", "none"),
             "where": STR}
HOLDER_LINK = {"link_id": INT, "prog_id": INT, "functions": INT, "owners": INT}
HOLDERS = {"graph_active": INT, "count": INT, "named": INT, "maybe": INT, "unnamed": INT,
           "tracefs": STR, "bpf_links_listed": BOOL, "bpf_links_error": STR,
           "holders": (ARR, HOLDER)}
STATIC_SITE = {"site": STR, "call": STR, "tail": BOOL, "thunk": BOOL,
               "rcu": ("outside", "inside", "mixed", "unreached"),
               "kind": ("shadow", "other", "unclassified")}
STATIC = {"verdict": CHECK_VERDICT, "evidence": STR, "ms": NUM, "sites": (ARR, STATIC_SITE),
          "rcu_read_lock": (ARR, STR), "rcu_read_unlock": (ARR, STR)}

TYPES = {
    "plan": {"kernel": {"sweep_holder": STR, "start_holder": STR,
                        "shadow_stack": ("kmem_cache", "kmalloc"), "shadow_stack_bytes": INT},
             "probes": (ARR, PROBE), "figures": (ARR, FIGURE)},
    "start": {"activation_path": PATH, "sweep_path": PATH, "fork_path": PATH, "latency": BOOL},
    "warning": {"code": ("fgraph_active", "latency_probe", "no_exposure", "stale_state"), "message": STR},
    "log": {"level": ("error", "info", "debug"), "message": STR},
    "check": {"verdict": CHECK_VERDICT, "status": (0, 1, 2, 3), "reason": STR,
              "kernel": {"release": STR}, "check_time": NUM, "activations_seen": INT,
              "lost_events": INT},
    "event": {"event": ("act_begin", "act_end", "sweep_begin", "sweep_end", "alloc", "free",
                        "task_new", "task_exit"),
              "src": PATH, "time_s": NUM, "cpu": INT, "pid": INT, "tid": INT, "comm": STR},
    "activation": {"seq": INT, "src": PATH, "complete": BOOL, "time_s": NUM,
                   "trigger": TRIGGER, "nr_threads": INT, "ret": INT, "sweeps": INT_OR_NULL,
                   "walks": ("calls", "inline", "gaps", "one", "not_observable", None),
                   "batches": INT, "served": INT, "duration_ns": INT, "alloc_ns": INT, "walk_ns": INT,
                   "lost": INT, "allocations": ALLOCS, "per_sweep": (ARR, PER_SWEEP),
                   "latency_ns": LATENCY, "verdict": {"verdict": VERDICT, "evidence": STR}},
    "progress": {"time": STR, "seq": INT, "src": PATH, "time_s": NUM,
                 "trigger": {"pid": INT, "tid": INT, "comm": STR, "via": STR},
                 "elapsed_ns": INT, "data_age_ns": INT, "threads": INT,
                 "threads_from": ("nr_threads", "exposure", "threads_now", "none"),
                 "served": INT, "lacking": INT, "lacking_exact": BOOL, "sweeps": INT,
                 "so_far": VERDICT, "sweeps_to_come": INT_OR_NULL, "eta_ns": INT_OR_NULL,
                 "eta_high_ns": INT_OR_NULL,
                 "eta_sweeps": INT, "lost": INT},
    "holders": dict({"time": STR}, **HOLDERS),
    "hold": {"action": ("take", "release", "status"), "status": INT, "message": STR,
             "kernel": {"release": STR}, "before": HOLD_SEEN, "after": HOLD_SEEN, "undo": STR},
    "interval": {"time": STR, "activations": INT, "in_progress": BOOL, "exposure": OBJ_OR_NULL,
                 "in_progress_sweeps": INT, "fork": FORK, "lost": INT, "verdict": VERDICT},
    "summary": {"activations": INT, "verdict": VERDICT, "evidence": STR, "fork": FORK,
                "lost": INT},
    "error": {"code": tuple(EXIT_CODES.values()), "exit": INT, "message": STR},
    "static": STATIC,
}
EXPOSURE = {"threads": INT, "lacking": INT, "sweeps": INT, "visits": INT, "estimate_s": NUM,
            "ns_per_visit": NUM, "cost": ("default", "observed"), "calib_visits": INT}
EVENT_FIELDS = {
    "alloc": {"site": ("sweep", "fork", "idle"), "gfp_class": ("blocking", "nonblocking"),
              "gfp": INT, "size": INT, "ok": BOOL, "latency_ns": INT},
    "act_begin": {"nr_threads": INT, "stack": (ARR, STR)},
    "act_end": {"ret": INT, "duration_ns": INT},
    "sweep_end": {"ret": INT, "duration_ns": INT},
    "task_new": {"target_tid": INT, "ok": BOOL},
    "task_exit": {"target_tid": INT},
}


def check(v, spec, where, errs):
    if isinstance(spec, dict):
        if not isinstance(v, dict):
            errs.append(f"{where}: not an object")
            return
        for k, s in spec.items():
            if k not in v:
                errs.append(f"{where}.{k}: missing")
            else:
                check(v[k], s, f"{where}.{k}", errs)
    elif isinstance(spec, tuple) and spec and spec[0] == ARR:
        if not isinstance(v, list):
            errs.append(f"{where}: not an array")
            return
        for i, x in enumerate(v):
            check(x, spec[1], f"{where}[{i}]", errs)
    elif isinstance(spec, tuple):
        if v not in spec:
            errs.append(f"{where}: {v!r} not one of {spec}")
    elif spec == INT:
        if not isinstance(v, int) or isinstance(v, bool):
            errs.append(f"{where}: {v!r} not an integer")
    elif spec == INT_OR_NULL:
        if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
            errs.append(f"{where}: {v!r} not an integer or null")
    elif spec == OBJ_OR_NULL:
        if v is not None and not isinstance(v, dict):
            errs.append(f"{where}: {v!r} not an object or null")
    elif spec == NUM:
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            errs.append(f"{where}: {v!r} not a number")
    elif spec == STR:
        if not isinstance(v, str):
            errs.append(f"{where}: {v!r} not a string")
    elif spec == BOOL:
        if not isinstance(v, bool):
            errs.append(f"{where}: {v!r} not a boolean")
    else:
        raise ValueError(spec)


def check_record(r, where):
    """Problems with one fgraphtop record (a list of strings, empty when it conforms)."""
    errs = []
    if not isinstance(r, dict):
        return [f"{where}: not an object"]
    if r.get("schema") != 1 or isinstance(r.get("schema"), bool):
        errs.append(f"{where}.schema: {r.get('schema')!r}, want 1")
    t = r.get("type")
    if t not in TYPES:
        return errs + [f"{where}.type: {t!r} not a documented type"]
    check(r, TYPES[t], f"{where}({t})", errs)
    if t == "event" and r.get("event") in EVENT_FIELDS:
        check(r, EVENT_FIELDS[r["event"]], f"{where}(event {r['event']})", errs)
    if t == "error" and isinstance(r.get("exit"), int):
        if EXIT_CODES.get(r["exit"]) != r.get("code"):
            errs.append(f"{where}: exit {r['exit']} with code {r.get('code')!r}")
    for where_h, hs in ([(f"{where}(holders)", r)] if t == "holders" else
                        [(f"{where}(plan).holders", r["holders"])]
                        if t == "plan" and isinstance(r.get("holders"), dict) else []):
        if t == "plan":
            check(hs, HOLDERS, where_h, errs)
        for i, h in enumerate(hs.get("holders") or []):
            if isinstance(h, dict) and h.get("kind") == "bpf_link":
                check(h, HOLDER_LINK, f"{where_h}.holders[{i}]", errs)
    if t == "plan" and r.get("holders", None) is not None and not isinstance(r["holders"], dict):
        errs.append(f"{where}(plan).holders: not an object or null")
    # the exposure: check's and the interval's, one writer (docs/json.md)
    if t in ("interval", "check") and isinstance(r.get("exposure"), dict) and \
            "error" not in r["exposure"]:
        check(r["exposure"], EXPOSURE, f"{where}({t}).exposure", errs)
    if t == "progress" and r.get("sweeps_to_come") is not None and r.get("so_far") != "not_fixed":
        errs.append(f"{where}: sweeps_to_come given for a pattern that is not unfixed")
    # sweeps null exactly when they are not observable, and then no per-sweep lines
    if t == "activation" and (r.get("sweeps") is None) != (r.get("walks") == "not_observable"):
        errs.append(f"{where}: sweeps {r.get('sweeps')!r} with walks {r.get('walks')!r}")
    if t == "activation" and r.get("sweeps") is None and r.get("per_sweep"):
        errs.append(f"{where}: per_sweep entries for sweeps that are not observable")
    if t == "activation" and isinstance(r.get("per_sweep"), list) and \
            isinstance(r.get("sweeps"), int) and len(r["per_sweep"]) != r["sweeps"]:
        errs.append(f"{where}: {len(r['per_sweep'])} per_sweep entries for {r['sweeps']} sweeps")
    return errs


def main(argv):
    n = bad = 0
    for name in argv or ["-"]:
        f = sys.stdin if name == "-" else open(name)
        for i, line in enumerate(f, 1):
            line = line.strip()
            if not line.startswith("{"):
                continue
            where = f"{name}:{i}"
            try:
                r = json.loads(line)
            except ValueError as e:
                print(f"{where}: not JSON: {e}", file=sys.stderr)
                bad += 1
                continue
            if r.get("type") == "fgt" and "rec" in r:
                r = r["rec"]
            elif "schema" not in r:
                continue	# a lab line, not fgraphtop's
            n += 1
            for e in check_record(r, where):
                print(e, file=sys.stderr)
                bad += 1
    if n == 0:
        print("json_schema: no fgraphtop records", file=sys.stderr)
        return 2
    print(f"json_schema: {n} records, {bad} problems", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
