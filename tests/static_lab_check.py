#!/usr/bin/env python3
"""Checks for tests/static-lab.sh (the static verdict on every lab kernel).

  static_lab_check.py offline FILE.jsonl   one line per kernel: the answers of
                                           fgt-static from each of its files
  static_lab_check.py guest DIR            DIR/KERNEL/{results.jsonl,offline.json,kernel.json}

Offline, per kernel: every answer is the expected verdict (from its patches),
all of them (vmlinux, bzImage, bzImage + System.map, a kcore made of the
vmlinux) give the same evidence and sites, there is a shadow-stack site of the
right kind (fixed: non-blocking inside the walk; not_fixed: blocking outside,
none inside), and objdump, not Capstone, shows each shadow-stack site as a
call of that allocator after `mov $GFP,%esi` (and `mov $SIZE,%edx` where the
allocator takes one; on arm64, `bl` after the immediates into w1 and x2). The symbols for objdump are System.map's, or for
Debian's kernels the image's own kallsyms tables as fgt-static decodes them,
checked against System.map on the lab's kernels first.
Prints a table and exits 1 on any failure.
"""
import bisect
import json
import os
import re
import subprocess
import sys

EXIT = {"fixed": 0, "not_fixed": 2}
failures = []


def fail(kernel, msg):
    failures.append(f"{kernel}: {msg}")


def load_map(path):
    """kallsyms/System.map lines -> (sorted addresses, names by address, address by name)."""
    by_addr, by_name = {}, {}
    for line in open(path):
        f = line.split()
        if len(f) < 3:
            continue
        a = int(f[0], 16)
        by_addr.setdefault(a, f[2])
        by_name.setdefault(f[2], a)
    return sorted(by_addr), by_addr, by_name


def objdump_calls(vmlinux, lo, hi, names_by_addr, arch):
    """Every call in [lo, hi): (address, callee name, the gfp and size arguments).

    The gfp is the second argument and the size the third (where the allocator
    takes one): the last immediates loaded into %esi and %edx on x86-64
    (`mov $IMM,%esi`), into w1/x1 and w2/x2 on arm64 (`mov` or `movz`, then
    any `movk ..., lsl #N`), read by binutils' objdump for the architecture."""
    tool = "aarch64-linux-gnu-objdump" if arch == "arm64" else "objdump"
    out = subprocess.run([tool, "-d", "--no-show-raw-insn", f"--start-address={lo:#x}",
                          f"--stop-address={hi:#x}", vmlinux], capture_output=True, text=True,
                         check=True).stdout
    calls, regs = [], {}
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)\s*(.*)", line)
        if not m:
            continue
        addr, op, args = int(m.group(1), 16), m.group(2), m.group(3)
        if arch == "arm64":
            mm = re.match(r"[wx]([12]), #(0x[0-9a-f]+|\d+)(?:, lsl #(\d+))?", args)
            reg = {"1": "esi", "2": "edx"}.get(mm.group(1)) if mm else None
            if reg and op in ("mov", "movz"):
                regs[reg] = int(mm.group(2), 0) << int(mm.group(3) or 0)
            elif reg and op == "movk" and reg in regs:
                sh = int(mm.group(3) or 0)
                regs[reg] = (regs[reg] & ~(0xffff << sh)) | (int(mm.group(2), 0) << sh)
            is_call = op == "bl"
        else:
            mm = re.match(r"\$0x([0-9a-f]+),%(esi|edx)$", args)
            if op == "mov" and mm:
                regs[mm.group(2)] = int(mm.group(1), 16)
            is_call = op == "call"
        if is_call:
            t = int(re.match(r"(?:0x)?([0-9a-f]+)", args).group(1), 16)
            calls.append((addr, names_by_addr.get(t, hex(t)), regs.get("esi"), regs.get("edx")))
            regs = {}
    return calls


def site_addr(site, by_name):
    fn, off = site.rsplit("+", 1)
    return by_name[fn] + int(off, 16)


def oracle(kernel, vmlinux, mapfile, answer, arch):
    """objdump's view of the shadow-stack sites the answer names."""
    addrs, by_addr, by_name = load_map(mapfile)
    fn = answer["function"]
    lo = by_name[fn]
    hi = addrs[bisect.bisect_right(addrs, lo)]
    calls = {a: (n, esi, edx) for a, n, esi, edx in objdump_calls(vmlinux, lo, hi, by_addr, arch)}
    cold = by_name.get(fn + ".cold")
    if cold:
        chi = addrs[bisect.bisect_right(addrs, cold)]
        calls.update({a: (n, esi, edx) for a, n, esi, edx in objdump_calls(vmlinux, cold, chi, by_addr, arch)})
    checked = 0
    for s in answer["sites"]:
        if s["kind"] != "shadow":
            continue
        a = site_addr(s["site"], by_name)
        if a not in calls:
            fail(kernel, f"objdump shows no call at {s['site']}")
            continue
        name, esi, edx = calls[a]
        if name != s["call"]:
            fail(kernel, f"{s['site']}: objdump calls {name}, the answer says {s['call']}")
        if esi != s.get("gfp_flags"):
            fail(kernel, f"{s['site']}: objdump's gfp {esi}, the answer's {s.get('gfp_flags')}")
        if "size" in s and edx != s["size"]:
            fail(kernel, f"{s['site']}: objdump's size {edx}, the answer's {s['size']}")
        checked += 1
    return checked


# The shape each answer must name first (docs/static.md, "The rule"), by the
# kind of its deciding site.
SHAPES = {
    "inline": "one walk allocating inline, ",
    "batch32": "the batch of 32 and its -EAGAIN loop at ",
    "every": "every stack allocated before one walk at ",
}


def shape(kernel, verdict, answer):
    shadow = [s for s in answer["sites"] if s["kind"] == "shadow"]
    inside_nb = [s for s in shadow if s["rcu"] == "inside" and not s["blocking"]]
    outside_b = [s for s in shadow if s["rcu"] == "outside" and s["blocking"]]
    ev = answer["evidence"]
    if verdict == "fixed" and not inside_nb and not ev.startswith(SHAPES["every"]):
        fail(kernel, "fixed without a non-blocking shadow-stack site inside the walk, "
             "nor every stack before one walk")
    if verdict == "not_fixed" and (not outside_b or any(s["rcu"] == "inside" for s in shadow)):
        fail(kernel, "not_fixed, but not only blocking shadow-stack sites outside the walk")
    # the shape named first, with the deciding site's address
    if inside_nb:
        want, site = SHAPES["inline"], inside_nb[0]["site"]
    elif verdict == "fixed":
        want, site = SHAPES["every"], (outside_b or [{"site": "?"}])[0]["site"]
    else:
        want, site = SHAPES["batch32"], (outside_b or [{"site": "?"}])[0]["site"]
    if not ev.startswith(want) or site not in ev.split(";")[0]:
        fail(kernel, f"the evidence does not begin with its shape ({want.strip()}) at the "
             f"deciding site {site}")
    # shadow stacks told by where their pointer goes: the fix's inline one
    # into t->ret_stack, the batch and the reserve into ret_stack_list[]; a
    # pinned cursor's blocking fallback (outside the RCU section) into
    # t->ret_stack too
    for s in shadow:
        want_dest = "ret_stack" if s["rcu"] == "inside" else "ret_stack_list"
        if s["rcu"] == "outside" and s.get("stored") == "ret_stack" and "(a pinned cursor)" in ev:
            continue
        if s.get("stored") != want_dest:
            fail(kernel, f"{s['site']}: stored {s.get('stored')}, expected {want_dest}")
    # the walk: by its rcu_read_lock() calls, or on the kernels without
    # PREEMPT_RCU (lab-6.12-nopreempt-*, and Debian's arm64 ones:
    # PREEMPT_VOLUNTARY, no PREEMPT_DYNAMIC) by the loop over the thread list
    walk = "thread_loop" if "nopreempt" in kernel or kernel.startswith("debian-arm64-") \
        else "rcu_read_lock"
    if answer.get("walk") != walk:
        fail(kernel, f"the walk found by {answer.get('walk')}, expected {walk}")
    if walk == "rcu_read_lock" and not answer["rcu_read_lock"]:
        fail(kernel, "no rcu_read_lock() site named")
    if walk == "thread_loop" and answer["rcu_read_lock"]:
        fail(kernel, "a thread-loop walk, but rcu_read_lock() calls named")
    if walk == "thread_loop" and verdict == "not_fixed" and \
            "the loop over the thread list closed at" not in answer["evidence"]:
        fail(kernel, "a thread-loop walk, but the evidence names no loop")


def offline(path):
    rows = []
    maps_checked = {}
    for line in open(path):
        k = json.loads(line)
        name, want, d = k["kernel"], k["expected"], k["dir"]
        runs = {r["how"]: r for r in k["runs"]}
        ref = None
        for how, r in runs.items():
            a = r["answer"]
            if "function" not in a or "sites" not in a:
                fail(name, f"{how}: no answer from the code: {a.get('evidence', a)}")
                continue
            if a["verdict"] != want:
                fail(name, f"{how}: {a['verdict']} ({a['evidence']}), expected {want}")
            if r["status"] != EXIT.get(want, 3):
                fail(name, f"{how}: exit {r['status']}")
            key = (a["evidence"], json.dumps(a["sites"], sort_keys=True), a["function"])
            if ref is None:
                ref = (how, key)
            elif key != ref[1]:
                fail(name, f"{how} and {ref[0]} differ: {a['evidence']!r}")
        first = next(iter(runs.values()))["answer"]
        shape(name, want, first)
        vml = os.path.join(d, "vmlinux")
        sysmap = os.path.join(d, "System.map")
        syms = k.get("symbols")
        if os.path.exists(sysmap) and syms:
            # the image's own kallsyms tables against System.map
            _, _, real = load_map(sysmap)
            _, _, ours = load_map(syms)
            bad = [n for n, a in ours.items() if real.get(n) != a]
            maps_checked[name] = (len(ours), len(bad))
            if bad or len(ours) < 0.99 * len(real):
                fail(name, f"kallsyms tables decoded: {len(bad)} of {len(ours)} differ from System.map")
        checked = 0
        if first["verdict"] == want and os.path.exists(vml):
            with open(os.path.join(d, "info.json")) as f:
                arch = json.load(f).get("arch", "x86_64")
            checked = oracle(name, vml, sysmap if os.path.exists(sysmap) else syms, first, arch)
            if not checked:
                fail(name, "objdump checked no site")
        rows.append((name, want, first["verdict"], " ".join(
            f"{h}:{r['wall_ms']}ms" for h, r in runs.items()), checked,
            next((s["site"] for s in first["sites"] if s["kind"] == "shadow"
                  and s["rcu"] == ("inside" if want == "fixed" else "outside")), "-")))
    print(f"{'kernel':22} {'expected':10} {'static':10} {'site (objdump-checked)':34} runs")
    for n, w, v, t, c, site in rows:
        print(f"{n:22} {w:10} {v:10} {site + ' (' + str(c) + ')':34} {t}")
    for n, (tot, bad) in maps_checked.items():
        print(f"{n}: {tot} symbols decoded from the image's kallsyms tables, {bad} differ from System.map")
    return report(len(rows))


def results(path):
    out = []
    for line in open(path):
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return out


def same_answer(live, off):
    """The running kernel's answer is the file's. One difference is allowed,
    and only that one: a cache the file names that the running text leaves
    unknown ("?"). Debian's 7.2 arm64 boots with a static branch of
    register_ftrace_graph() patched to a nop, whose fall-through reaches the
    batch with the register holding fgraph.c's statics not set on every path
    (tests/static/test_static_arm64.c, test_debian_72_live); the site is still a
    shadow stack by where its pointer goes."""
    if live.get("evidence") == off["evidence"] and live.get("sites") == off["sites"]:
        return True
    ls, os_ = live.get("sites") or [], off["sites"] or []
    if len(ls) != len(os_):
        return False
    ev = live.get("evidence") or ""
    for a, b in zip(ls, os_):
        if a == b:
            continue
        if a.get("cache") != "?" or {**a, "cache": b.get("cache")} != b:
            return False
        ev = ev.replace(f"{a['call']}(?,", f"{b['call']}({b['cache']},", 1)
    return ev == off["evidence"]


def guest(d):
    """Per kernel: `fgraphtop check` (the code) from the running kernel must be the
    expected verdict with the offline answer's evidence and sites; `check
    --trigger` must agree (method static+trigger), and with many threads parked
    the code still answers while the trigger is refused (method static); the
    tracing state is the same before and after."""
    rows = []
    for name in sorted(os.listdir(d)):
        kd = os.path.join(d, name)
        if not os.path.exists(os.path.join(kd, "kernel.json")):
            continue
        kj = json.load(open(os.path.join(kd, "kernel.json")))
        want, append = kj["expected"], kj.get("append", "")
        res = results(os.path.join(kd, "results.jsonl"))
        off = json.load(open(os.path.join(kd, "offline.json")))
        code = {r["run"]: r for r in res if r.get("type") == "check_static"}
        trig = {r["run"]: r for r in res if r.get("type") == "check"}
        bad = {r["run"]: r for r in res if r.get("type") == "static"}
        run = next((r for r in res if r.get("type") == "run"), {})
        state = [r for r in res if r.get("type") == "state"]
        live = code.get("kcore")
        if not live or not live.get("answer"):
            fail(name, "no answer from the guest")
            continue
        a = live["answer"]
        tool = next((r for r in res if r.get("type") == "live"), None)
        if append == "lockdown=confidentiality":
            # kernel memory is off limits: the code's answer is unknown
            # (lockdown), --trigger names lockdown in its line, the live tool
            # exits 8 (lockdown); the file still answers (offline)
            t = trig.get("trigger", {}).get("answer") or {}
            if a["verdict"] != "unknown" or a.get("static", {}).get("why") != "lockdown":
                fail(name, f"check: {a['verdict']} ({a.get('reason')}), expected unknown, lockdown")
            if t.get("verdict") != "unknown" or "locked down (lockdown=confidentiality)" not in \
                    t.get("reason", ""):
                fail(name, f"check --trigger: {t.get('verdict')}: {t.get('reason')}")
            if trig.get("trigger", {}).get("status") != 3:
                fail(name, f"check --trigger: exit {trig.get('trigger', {}).get('status')}")
            if not tool or tool["status"] != 8 or (tool.get("error") or {}).get("code") != "lockdown":
                fail(name, f"the live tool: {tool}")
            if off["verdict"] != want:
                fail(name, f"offline: {off['verdict']}, expected {want}")
            if run.get("splats"):
                fail(name, f"splats: {run['splats']}")
            rows.append((name, want, off["verdict"], a["verdict"], t.get("verdict", "-"),
                         t.get("method", "-"), "lockdown", live["wall_s"], 0,
                         f"live tool exit {tool and tool['status']}", ""))
            continue
        if tool and tool["status"] != 0:
            fail(name, f"the live tool: {tool}")
        st = a.get("static", {})
        t = trig.get("trigger", {}).get("answer") or {}
        if a["verdict"] != want or a.get("method") != "static":
            fail(name, f"check: {a['verdict']} by {a.get('method')} ({a['reason']}), expected {want}")
        if not same_answer(st, off):
            fail(name, f"live and offline differ: {st.get('evidence')!r} / {off['evidence']!r}")
        # the activation agrees, or its blocking batches showed no walk on
        # the host's pace (docs/EVENTS.md, "Walks") and the code answers
        hidden = (t.get("method") == "static" and
                  (t.get("activation") or {}).get("walks") == "not_observable")
        if t and (t.get("verdict") != want or (t.get("method") != "static+trigger" and not hidden)):
            fail(name, f"check --trigger: {t.get('verdict')} by {t.get('method')}: {t.get('reason')}")
        if any(r.get("unchanged") is False for r in state):
            fail(name, "the tracing state changed while answering")
        many = [r for k, r in code.items() if k.endswith("-threads")]
        many_t = [r for k, r in trig.items() if k.endswith("-threads")]
        for r in many:
            if r["answer"]["verdict"] != want:
                fail(name, f"{r['run']}: {r['answer']['verdict']}")
        for r in many_t:
            ta = r["answer"]
            if ta["verdict"] != want or "refusing to trigger" not in ta["reason"]:
                fail(name, f"{r['run']}: {ta['verdict']} by {ta.get('method')}: {ta['reason'][:200]}")
        why = {k: (r.get("answer") or {}).get("why") for k, r in bad.items()}
        kptr = code.get("kptr-restrict", {}).get("answer") or {}
        if run.get("splats"):
            fail(name, f"splats: {run['splats']}")
        rows.append((name, want, off["verdict"], a["verdict"], t.get("verdict", "-"),
                     t.get("method", "-"), st.get("source", "").split(" (")[0][:28],
                     live["wall_s"], st.get("ms", 0),
                     " ".join(f"{r['run']}:{r['answer']['verdict']}/{r['wall_s']}s" for r in many) +
                     " " + " ".join(f"{r['run']}:{r['answer']['method']}" for r in many_t),
                     ",".join(f"{k}={v}" for k, v in sorted(why.items()) if v) +
                     (f",check-kptr={kptr.get('verdict')}" if kptr else "")))
    print(f"{'kernel':22} {'expected':10} {'offline':10} {'check':10} {'--trigger':10} "
          f"{'method':15} {'text from':28} {'wall_s':7} {'ms':7} many threads | bad cases")
    for r in rows:
        print(f"{r[0]:22} {r[1]:10} {r[2]:10} {r[3]:10} {r[4]:10} {r[5]:15} {r[6]:28} "
              f"{r[7]!s:7} {r[8]:<7.1f} {r[9]} | {r[10]}")
    return report(len(rows))


def report(n):
    for f in failures:
        print("FAIL " + f)
    print(f"static-lab: {n - len({f.split(':')[0] for f in failures})} passed, "
          f"{len({f.split(':')[0] for f in failures})} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("offline", "guest"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(offline(sys.argv[2]) if sys.argv[1] == "offline" else guest(sys.argv[2]))
