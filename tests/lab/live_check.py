#!/usr/bin/env python3
"""The live view on a terminal, checked from what it drew (tests/lab/live.sh).

    live_check.py RESULTS.jsonl [--screens DIR]

RESULTS.jsonl is lab/scenarios/live-screen.sh's: fgt-pty's logs and raw
bytes (what fgraphtop wrote to its terminal) and `fgraphtop -j`'s records.
The bytes go through a terminal emulator (pyte, Debian's python3-pyte) frame
by frame, the terminal resized where the scenario resized it. Checked:

  frames     every frame is drawn in place (no clear-screen), no row wider
             than the terminal was then, no more rows than it had, and the
             emulator's screen is the rows drawn (nothing wrapped)
  progress   the activation under way: its figures rise from frame to frame;
             the trigger (pid, comm, system call) is named; U is the
             activation's nr_threads; sweeps so far + to come = its sweeps
             (+-1); the time left is a range, low end first; the same for
             -j's progress. Where the time really left falls against the
             range is printed, not judged: it depends on the host's pace
             (tests/model/test_progress.c replays recorded walks instead)
  history    the first activation's row matches its record (threads, sweeps,
             verdict); after the second, both rows, newest first, and they
             stay on screen to the end
  holders    none, then function_graph at the top level, then a tracefs
             instance, then (6.14+) the kretprobe.multi link held by the
             trigger's pid, then none again: on the screen and in -j
  terminal   q, Ctrl-C and SIGTERM each end fgraphtop with status 0, the
             alternate screen left and the terminal's modes as they were
  lines      `fgraphtop --no-screen` beside it: the progress, the holders as
             they change and the history at the end, as plain lines
  explain    `fgraphtop --explain` (and -j) name the holders (none, before)

Prints one "ok ..." or "FAIL ..." line per check and the figures read; exit 1
on any FAIL. --screens DIR writes, as the emulator shows them, the frame
nearest the walk's halfway point (halfway.txt) and the last one before the
resize, with every holder on (holders.txt), for the README, and an excerpt
of the lines (lines.txt) for docs/live.md.
"""
import argparse
import base64
import json
import math
import lzma
import re
import sys

import pyte

SYNC_BEGIN, SYNC_END = "\033[?2026h", "\033[?2026l"
explain = {}
LEAVE = "\033[?25h\033[?1049l"
fails = []


def ok(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails.append(what)
    return cond


def load(path):
    logs, raw, recs, live, exits, lines = {}, {}, [], None, {}, []
    explain.clear()
    # a recorded run is kept xz-compressed (tests/data/lab, make check)
    f = lzma.open(path, "rt") if path.endswith(".xz") else open(path)
    for line in f:
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        t = r.get("type")
        if t == "pty":
            logs.setdefault(r["run"], []).append(r["log"])
        elif t == "pty_raw":
            raw.setdefault(r["run"], []).append(r["b64"])
        elif t == "fgt" and r.get("name") == "json":
            recs.append(r["rec"])
        elif t == "fgt" and r.get("name") == "explain" and r["rec"].get("type") == "plan":
            explain["plan"] = r["rec"]
        elif t == "explain_holders":
            explain.setdefault("text", []).append(r["line"])
        elif t == "fgt_exit":
            exits[r["name"]] = r["status"]
        elif t == "live":
            live = r
        elif t == "lines":
            lines.append(r["line"])
    raw = {k: base64.b64decode("".join(v)).decode("latin-1") for k, v in raw.items()}
    return logs, raw, recs, live, exits, lines


class Run:
    """One fgt-pty run: its log parsed, its bytes cut into timed frames."""

    def __init__(self, log, data):
        self.data, self.chunks, self.sizes, self.marks = data, [], [], []
        self.start = self.exit = None
        off = 0
        for line in log:
            w = line.split()
            if w[0] == "start":
                self.start = (int(w[1]), int(w[2]), w[3])
                self.sizes.append((0, int(w[1]), int(w[2])))
            elif w[0] == "chunk":
                self.chunks.append((int(w[1]), off, off + int(w[2])))
                off += int(w[2])
            elif w[0] == "size":
                self.sizes.append((int(w[1]), int(w[2]), int(w[3])))
            elif w[0] == "mark":
                self.marks.append((int(w[1]), w[2]))
            elif w[0] == "exit":
                self.exit = (int(w[1]), int(w[2]), w[3])
        self.frames = self.cut()
        self.mark_flight()

    def time_of(self, off):
        for ns, a, b in self.chunks:
            if a <= off < b:
                return ns
        return self.chunks[-1][0] if self.chunks else 0

    def size_at(self, ns):
        cols, rows = self.sizes[0][1:]
        for t, c, r in self.sizes:
            if t <= ns:
                cols, rows = c, r
        return cols, rows

    def in_flight(self, ns):
        """Was the frame done at ns laid out before the resize just before
        it? (SIGWINCH comes while a frame may be on its way, or written and
        not read yet.) Then the size it was drawn for, else None. By order,
        not by time: a loaded host takes its time to redraw (issue 38), so
        the frames after a resize up to the first one that fits the new size
        are those in flight; every one after must fit (check_frames)."""
        return self.flight.get(ns)

    def mark_flight(self):
        self.flight = {}
        for i, (t, c, r) in enumerate(self.sizes):
            if not i:
                continue
            end = self.sizes[i + 1][0] if i + 1 < len(self.sizes) else None
            for ns, _, _, body, _ in self.frames:
                if ns < t or (end is not None and ns >= end):
                    continue
                try:
                    rs = drawn_rows(body)
                except AssertionError:
                    break
                if len(rs) <= r and all(len(x) <= c for x in rs):
                    break
                self.flight[ns] = self.sizes[i - 1][1:]

    def mark(self, name):
        return next((ns for ns, m in self.marks if m == name), None)

    def cut(self):
        """Frames: (ns, cols, rows, drawn rows, emulator rows)."""
        cols, rows = self.size_at(0)
        screen = pyte.Screen(cols, rows)
        stream = pyte.Stream(screen)
        frames, pos = [], 0
        while True:
            end = self.data.find(SYNC_END, pos)
            if end < 0:
                break
            end += len(SYNC_END)
            begin = self.data.rfind(SYNC_BEGIN, pos, end)
            ns = self.time_of(end - 1)
            c, r = self.size_at(ns)
            if (c, r) != (cols, rows):
                cols, rows = c, r
                screen.resize(lines=rows, columns=cols)
            stream.feed(self.data[pos:end])
            body = self.data[begin + len(SYNC_BEGIN):end - len(SYNC_END)]
            frames.append((ns, cols, rows, body, [l.rstrip() for l in screen.display]))
            pos = end
        return frames


def drawn_rows(body):
    """The rows a frame draws, from its bytes: home, rows, erase below. The
    terminal's output processing (ONLCR) makes each "\\r\\n" a "\\r\\r\\n"."""
    assert body.startswith("\033[H") and body.endswith("\033[J"), repr(body[:20])
    return [r.rstrip("\r").replace("\033[K", "") for r in body[3:-3].split("\n")]


def check_frames(name, run):
    bad, in_flight = [], 0
    for ns, cols, rows, body, shown in run.frames:
        try:
            rs = drawn_rows(body)
        except AssertionError as e:
            bad.append(f"not drawn in place: {e}")
            continue
        if "\033[2J" in body:
            bad.append("a frame clears the screen")
        old = run.in_flight(ns)
        if old and (max(len(r) for r in rs) > cols or len(rs) > rows):
            # laid out for the size before: must fit that one
            in_flight += 1
            cols, rows = old
            if len(rs) > rows or any(len(r) > cols for r in rs):
                bad.append(f"a frame in flight at a resize fits neither size")
            continue
        if len(rs) > rows:
            bad.append(f"{len(rs)} rows on a {rows}-row terminal")
        for r in rs:
            if len(r) > cols:
                bad.append(f"{len(r)} columns on a {cols}-column terminal: {r!r}")
            if re.search(r"[\x00-\x1f\x7f]", r):
                bad.append(f"control bytes in a row: {r!r}")
        if [r.rstrip() for r in rs] + [""] * (rows - len(rs)) != shown:
            bad.append("the emulator's screen is not the rows drawn (wrapped?)")
    widths = sorted({(c, r) for ns, c, r, _, _ in run.frames if not run.in_flight(ns)})
    ok(run.frames and not bad, f"{name}: {len(run.frames)} frames drawn in place, sizes "
       f"{widths}, every row within the width ({in_flight} in flight at a resize, laid out "
       f"for the size before)" + (f": {bad[:3]}" if bad else ""))
    # re-laid after a resize: how soon is the host's pace, printed, not judged
    for t, c, r in run.sizes[1:]:
        nxt = [f for f in run.frames if f[0] >= t and (f[1], f[2]) == (c, r) and
               all(len(x) <= c for x in drawn_rows(f[3]))]
        ok(nxt, f"{name}: re-laid at {c}x{r} {(nxt[0][0] - t) / 1e6:.0f} ms after the resize"
           if nxt else f"{name}: never re-laid at {c}x{r}")
    return widths


UNIT = {"s": 1.0, "ms": 1e-3, "us": 1e-6}


def secs(v, u):
    return float(v) * UNIT[u]


def num(s):
    return int(s.replace(",", ""))


def progress_of(shown):
    """The activation under way as a frame shows it, or None."""
    text = "\n".join(shown)
    m = re.search(r"^ACTIVATION #(\d+) UNDER WAY  pid (\d+) \((.*?)\)  (.*?)$", text, re.M)
    if not m:
        return None
    p = {"seq": int(m[1]), "pid": int(m[2]), "comm": m[3], "via": m[4].strip()}
    m = re.search(r"^  elapsed    ([\d.]+) (s|ms|us)", text, re.M)
    p["elapsed"] = secs(m[1], m[2]) if m else None
    m = re.search(r"^  threads    ([\d,]+) served of ([\d,]+) at the start, ([\d,]+) still "
                  r"lacking", text, re.M)
    if m:
        p["served"], p["threads"], p["lacking"] = num(m[1]), num(m[2]), num(m[3])
    m = re.search(r"^  sweeps     (\d+) so far(?:, (\d+) to come)?", text, re.M)
    if m:
        p["sweeps"], p["to_come"] = int(m[1]), int(m[2]) if m[2] else None
    # "about X" (a point: a fixed kernel's) or "X to Y" (unfixed: a range; X may be 0)
    p["eta"] = p["eta_high"] = None
    m = re.search(r"^  time left  about ([\d.]+) (s|ms|us)", text, re.M)
    if m:
        p["eta"] = p["eta_high"] = secs(m[1], m[2])
    m = re.search(r"^  time left  (0|[\d.]+ (?:s|ms|us)) to ([\d.]+) (s|ms|us)", text, re.M)
    if m:
        p["eta"] = 0 if m[1] == "0" else secs(*m[1].split())
        p["eta_high"] = secs(m[2], m[3])
    return p


def inside(lo, hi, actual):
    """The actual time left inside [lo, hi], to the printed precision (1 ms)."""
    return lo - 0.001 <= actual <= hi + 0.001


def check_progress(run, act, recs):
    ps = [p for p in (progress_of(f[4]) for f in run.frames) if p and p["seq"] == act["seq"]]
    dur = act["duration_ns"] / 1e9
    print(f"     activation #{act['seq']}: {act['nr_threads']} threads, {act['sweeps']} sweeps, "
          f"served {act['served']}, {dur:.3f} s, {act['verdict']['verdict']}")
    for p in ps:
        actual = dur - p["elapsed"] if p["elapsed"] is not None else None
        print(f"     frame: elapsed {p['elapsed']:.3f} s, served {p.get('served')}, lacking "
              f"{p.get('lacking')}, sweeps {p.get('sweeps')}+{p.get('to_come')}, "
              f"time left {p['eta']} to {p['eta_high']}, actual remaining {actual:.3f} s"
              f"{'' if p['eta'] is None else ' (inside)' if inside(p['eta'], p['eta_high'], actual) else ' (OUTSIDE)'}")
    if not ok(len(ps) >= 2, f"screen: {len(ps)} frames of activation #{act['seq']} under way"):
        return None
    served = [p.get("served", 0) for p in ps]
    sweeps = [p.get("sweeps", 0) for p in ps]
    el = [p["elapsed"] for p in ps]
    ok(served == sorted(served) and sweeps == sorted(sweeps) and el == sorted(el) and
       served[-1] > served[0] and sweeps[-1] > sweeps[0],
       f"screen: progress rises: served {served}, sweeps {sweeps}")
    trig = act["trigger"]
    ok(all(p["pid"] == trig["pid"] and p["comm"] == trig["comm"] for p in ps) and
       any(p["via"] == trig["via"] for p in ps),
       f"screen: the trigger named: pid {trig['pid']} ({trig['comm']}) {trig['via']}")
    ok(all(p.get("threads") == act["nr_threads"] for p in ps),
       f"screen: U = {act['nr_threads']} (the activation's nr_threads)")
    tc = [p["sweeps"] + p["to_come"] for p in ps if p.get("to_come") is not None]
    ok(tc and all(abs(t - act["sweeps"]) <= 1 for t in tc),
       f"screen: sweeps so far + to come = {sorted(set(tc))}, the activation made {act['sweeps']}")
    with_eta = [p for p in ps if p["eta"] is not None]
    if not ok(with_eta, "screen: a time left estimated"):
        return None
    # the time left against the range: printed, not judged (it holds only
    # while the host lends the walk a pace it has shown:
    # tests/model/test_progress.c replays recorded walks for that); its ends
    # are ordered
    half = min(with_eta, key=lambda p: abs(p["elapsed"] - dur / 2))
    actual = dur - half["elapsed"]
    ok(all(p["eta"] <= p["eta_high"] + 0.001 for p in with_eta),
       f"screen: every time left a range, low end first ({len(with_eta)} frames)")
    print(f"     screen: time left at the halfway point ({half['elapsed']:.3f} s of {dur:.3f} s): "
          f"{half['eta']:.3f} to {half['eta_high']:.3f} s, {actual:.3f} s actual"
          f"{'' if inside(half['eta'], half['eta_high'], actual) else ' (outside)'}; "
          f"inside in {sum(inside(p['eta'], p['eta_high'], dur - p['elapsed']) for p in with_eta)} "
          f"of {len(with_eta)} frames (a measure: make bench)")
    # -j's progress records of the same activation
    jp = [r for r in recs if r["type"] == "progress" and r["seq"] == act["seq"]]
    for r in jp:
        eta = r["eta_ns"] / 1e9 if r["eta_ns"] is not None else None
        high = r["eta_high_ns"] / 1e9 if r["eta_high_ns"] is not None else None
        a = dur - r["elapsed_ns"] / 1e9
        print(f"     json progress: elapsed {r['elapsed_ns'] / 1e9:.3f} s, served {r['served']}, "
              f"sweeps {r['sweeps']}+{r['sweeps_to_come']}, time left {eta} to {high}, actual "
              f"{a:.3f} s{'' if eta is None else ' (inside)' if eta <= a <= high else ' (OUTSIDE)'}")
    if ok(len(jp) >= 2 and [r["served"] for r in jp] == sorted(r["served"] for r in jp) and
          jp[-1]["served"] > jp[0]["served"], f"json: {len(jp)} progress records, rising"):
        je = [r for r in jp if r["eta_ns"] is not None]
        if ok(je, "json: a time left estimated"):
            h = min(je, key=lambda r: abs(r["elapsed_ns"] / 1e9 - dur / 2))
            a = dur - h["elapsed_ns"] / 1e9
            ok(all(r["eta_high_ns"] is not None and r["eta_ns"] <= r["eta_high_ns"] for r in je),
               f"json: every time left a range, low end first ({len(je)} records)")
            print(f"     json: time left at {h['elapsed_ns'] / 1e9:.3f} s: {h['eta_ns'] / 1e9:.3f} to "
                  f"{h['eta_high_ns'] / 1e9:.3f} s, {a:.3f} s actual"
                  f"{'' if h['eta_ns'] / 1e9 <= a <= h['eta_high_ns'] / 1e9 else ' (outside)'}")
        ok(all(r["threads"] == act["nr_threads"] and r["trigger"]["pid"] == trig["pid"]
               for r in jp), "json: progress names the trigger and U")
    return half


def history_rows(shown):
    rows, on = [], False
    for line in shown:
        if line.startswith("HISTORY"):
            on = True
            continue
        if on:
            m = re.match(r"^\s*(\d+)  (\d\d:\d\d:\d\d)  (.{15})  +([\d,]+)  +(\d+)  +([\d.]+ \w+)  "
                         r"(\S+)", line)
            if m:
                rows.append({"seq": int(m[1]), "comm": m[3].strip(), "threads": num(m[4]),
                             "sweeps": int(m[5]), "verdict": m[7]})
            elif not line.strip().startswith("#"):
                break
    return rows


def check_history(run, acts):
    t1, t2 = run.mark("instance-on"), run.mark("second-off")
    after1 = [f for f in run.frames if t1 and f[0] >= t1 and not run.in_flight(f[0])]
    a1 = acts[0]
    h1 = [history_rows(f[4]) for f in after1]
    ok(h1 and all(h and h[-1]["seq"] == a1["seq"] and h[-1]["threads"] == a1["nr_threads"] and
                  h[-1]["sweeps"] == a1["sweeps"] and h[-1]["verdict"] == a1["verdict"]["verdict"]
                  and h[-1]["comm"] == a1["trigger"]["comm"] for h in h1),
       f"screen: history row #1 in every frame after it ({len(h1)}): {h1[0] if h1 else None}")
    if len(acts) < 2:
        ok(False, "json: a second activation")
        return
    a2 = acts[1]
    # from the first frame after the second activation that shows it (how
    # soon after it ended is the host's pace: not judged), to the end
    hs = [history_rows(f[4]) for f in run.frames
          if t2 and f[0] >= t2 and not run.in_flight(f[0])]
    first = next((i for i, h in enumerate(hs) if h and h[0]["seq"] == a2["seq"]), None)
    last = hs[first:] if first is not None else []
    ok(last and all([r["seq"] for r in h] == [a2["seq"], a1["seq"]] and
                    h[0]["sweeps"] == a2["sweeps"] and h[0]["threads"] == a2["nr_threads"]
                    for h in last),
       f"screen: history at the end, newest first, in the {len(last)} frames from its "
       f"first: {last[-1] if last else None}")


def holders_on_screen(shown):
    text = "\n".join(shown)
    m = re.search(r"^HOLDERS.*?$\n(.*?)(?:\n\n|\Z)", text, re.M | re.S)
    return m[1] if m else None


def check_holders(run, live, recs):
    tfs_top = "function_graph, the top-level tracer"
    inst = "function_graph in tracefs instance live"
    kret = bool(live["kret_pid"])
    # function_graph in an instance from 6.9 (lib.sh fgt_instance_graph)
    has_inst = live["instance"]
    link = re.compile(r"BPF kretprobe\.multi link \d+ \(prog \d+, 1 function\), held by pid "
                      + str(live["kret_pid"]) + r" \(fgt-trigger\)")
    # each phase from the step's trigger done (-done: the scenario marks it
    # once the trigger returned) to the next step
    inst_done = "instance-done" if run.mark("instance-done") else "instance-on"
    kret_done = "kretmulti-done" if run.mark("kretmulti-done") else "kretmulti-on"
    phases = [("toplevel-on", None, lambda h: "none: fgraph is off" in h),
              ("instance-on", "toplevel-done", lambda h: tfs_top in h and inst not in h),
              ("kretmulti-on" if kret else "resize", inst_done,
               lambda h: tfs_top in h and (inst in h) == has_inst and not link.search(h))]
    if kret:
        phases.append(("resize", kret_done,
                       lambda h: tfs_top in h and inst in h and link.search(h)))
    # from the last off done: the offs themselves take seconds under load
    phases.append(("second-on", "all-off-done", lambda h: "none: fgraph is off" in h))
    first = next((f[0] for f in run.frames if "HOLDERS  not read yet" not in "\n".join(f[4])), 0)
    for until, since, want in phases:
        t0 = run.mark(since) if since else first
        t1 = run.mark(until)
        # the holders are read once a second, by a thread of their own, and
        # again at once when fgraph changes: frames laid out before the
        # change was seen show the list before it; from the first frame
        # that shows the new list or says its list is from before the change
        # (a read slowed by a loaded machine), every one does, and the last
        # one before the next step is the new list (the scenario waits for
        # it). By order, not by time: how soon is the host's pace (issue 38)
        fr = [f for f in run.frames
              if t0 is not None and t1 and t0 <= f[0] < t1 and
              not run.in_flight(f[0]) and holders_on_screen(f[4]) is not None]
        fs = [holders_on_screen(f[4]) for f in fr]
        stale = [f for f in fr if any(r.startswith("HOLDERS  as read at ") for r in f[4])]
        k = next((i for i, (f, h) in enumerate(zip(fr, fs)) if want(h) or f in stale), len(fr))
        ok(fs and fr[-1] not in stale and want(fs[-1]) and
           all(want(h) or f in stale for f, h in zip(fr[k:], fs[k:])),
           f"screen: holders after {since or 'start'} ({len(fs)} frames, {k} before the change "
           f"was seen" + (f", {len(stale)} saying theirs was read before the change" if stale else "")
           + "): " + (repr(fs[-1][:300]) if fs else "none"))
    if kret:
        t0, t1 = run.mark(kret_done), run.mark("resize")
        act = [f for f in run.frames if t0 <= f[0] < t1]
        # the state row, wherever the header's wrapped notes put it
        def active3(shown):
            return any(r.startswith("fgraph: ") and "ftrace_graph_active 3" in r for r in shown)
        k = next((i for i, f in enumerate(act) if active3(f[4])), len(act))
        ok(act[k:] and all(active3(f[4]) for f in act[k:]),
           "screen: ftrace_graph_active 3 with the three (the links share fprobe's one), "
           f"in the {len(act) - k} frames from the first that shows it to the resize")
    # -j: one record per change, each naming every user ftrace_graph_active counts
    seq, bad = [], []
    for r in recs:
        if r["type"] != "holders":
            continue
        if r["named"] + r["maybe"] != r["graph_active"] or r["unnamed"]:
            bad.append(f"{r['time']}: {r['named']} named for ftrace_graph_active {r['graph_active']}")
        seq.append(tuple(sorted(
            (h["kind"], h["instance"], h["pid"] if h["kind"] == "bpf_link" else 0)
            for h in r["holders"])))
    want = [(), (("tracer", "", 0),)]
    if has_inst:
        want.append((("tracer", "", 0), ("tracer", "live", 0)))
    if kret:
        want.append((("bpf_link", "", live["kret_pid"]), ("tracer", "", 0), ("tracer", "live", 0)))
    want += [(), (("tracer", "", 0),), ()]
    it = iter(seq)
    ok(all(w in it for w in want) and not bad and
       all(seq[i] != seq[i - 1] for i in range(1, len(seq))),
       f"json: {len(seq)} holders records, one per change, each naming all of "
       f"ftrace_graph_active: {seq}" + (f"; {bad}" if bad else ""))


def check_terminal(name, run, key):
    data = run.data
    ok(run.exit is not None and run.exit[1] == 0, f"{name}: {key} ends fgraphtop with status "
       f"{run.exit[1] if run.exit else None}")
    ok(run.exit is not None and run.start is not None and run.exit[2] == run.start[2],
       f"{name}: the terminal's modes given back (lflag {run.start[2] if run.start else '?'} "
       f"-> {run.exit[2] if run.exit else '?'})")
    at = data.rfind(LEAVE)
    ok(at > data.rfind(SYNC_END), f"{name}: the alternate screen left after the last frame")
    return data[at + len(LEAVE):] if at >= 0 else ""


def check_lines(lines, acts, live):
    text = "\n".join(lines)
    ok(live.get("lines_status") == 0, f"lines: fgraphtop --no-screen exited {live.get('lines_status')}")
    ok(lines and "\033" not in text, f"lines: {len(lines)} lines, no terminal control")
    trig = acts[0]["trigger"] if acts else {}
    pr = [l for l in lines if re.match(r"^\d\d:\d\d:\d\d activation #1 under way ", l)]
    ok(pr and all(f": pid {trig.get('pid')} (fgt-trigger) write() -> tracing_set_tracer; served "
                  in l and f" of {acts[0]['nr_threads']:,} threads at the start" in l for l in pr),
       f"lines: {len(pr)} progress lines naming the trigger: {pr[:1]}")
    heads = [(i, l) for i, l in enumerate(lines) if re.match(r"^\d\d:\d\d:\d\d fgraph holders: ", l)]
    got = [re.sub(r"^\S+ ", "", l) for _, l in heads]
    want = ["fgraph holders: 0 (ftrace_graph_active 0)", "fgraph holders: 1 (ftrace_graph_active 1)"]
    if live["instance"]:
        want.append("fgraph holders: 2 (ftrace_graph_active 2)")
    if live["kret_pid"]:
        want.append("fgraph holders: 3 (ftrace_graph_active 3)")
    want.append("fgraph holders: 0 (ftrace_graph_active 0)")
    it = iter(got)
    ok(all(w in it for w in want), f"lines: holders as they change: {got}")
    top = "  function_graph, the top-level tracer; to turn it off: echo nop > "
    link = (r"\(prog \d+, 1 function\), held by pid " + str(live["kret_pid"]) +
            r" \(fgt-trigger\); to turn it off: stop pid " + str(live["kret_pid"]) +
            r" \(fgt-trigger\)")
    ok(any(l.startswith(top) for l in lines) and
       (not live["kret_pid"] or any(re.search(r"BPF kretprobe\.multi link \d+ " + link, l)
                                    for l in lines)),
       "lines: each holder with what turning it off takes")
    if ok("history (newest first):" in lines, "lines: the history at the end"):
        i = lines.index("history (newest first):")
        rows = [re.match(r"^\s*(\d+)  ", l) for l in lines[i + 2:i + 4]]
        ok([int(m[1]) for m in rows if m] == [2, 1], f"lines: history rows {lines[i + 2:i + 4]}")


def lines_excerpt(lines):
    """docs/live.md's sample of the lines: the start, the first interval,
    the first and the last progress line of activation #1, its record up to
    the verdict (the histograms left out), each holders report after it, and
    the history and summary at the end."""
    def block(i, more):
        """Line i and the lines right after it while more(line)."""
        j = i + 1
        while j < len(lines) and more(lines[j]):
            j += 1
        return range(i, j)

    first = next((i for i, l in enumerate(lines) if re.match(r"^\d\d:\d\d:\d\d activations ", l)), None)
    prog = [i for i, l in enumerate(lines) if re.match(r"^\d\d:\d\d:\d\d activation #1 under way ", l)]
    rec = next((i for i, l in enumerate(lines) if l.startswith("activation #1 at ")), None)
    if first is None or not prog or rec is None:
        return None
    keep = list(range(first + 1)) + [prog[0], prog[-1]]
    end = next((i for i in range(rec, len(lines)) if lines[i].startswith("  verdict: ")), rec)
    keep += range(rec, end + 1)
    for i in range(end, len(lines)):
        if re.match(r"^\d\d:\d\d:\d\d fgraph holders: ", lines[i]):
            keep += block(i, lambda l: l.startswith("  "))
        elif lines[i].startswith("history (newest first):"):
            keep += block(i, lambda l: not l.startswith("fork path:"))
            break
    return [lines[i] for i in sorted(set(keep))]


def unwrapped(shown):
    """A frame's text with the rows a narrow screen wrapped joined again."""
    return re.sub(r"\s+", " ", " ".join(r.strip() for r in shown))


# (the words a statement starts with, the words it ends with): as
# src/render/out_screen.c writes them
WHOLE = (("verdict ", "(q quits)"),
         ("lacking a stack:", " cost)"),
         ("HOLDERS  as read at", "while it runs)"),
         ("no activation seen yet:", "(fgraphtop never causes one)"),
         ("fork path:", "idle-task allocations"))


def check_narrow(run, cols, acts, live):
    """A narrow terminal (issue 43): the verdict first, every fact of the
    activation under way there (wrapped, not cut), the header's statements
    whole, and the remedies whole."""
    during = [f for f in run.frames if not run.in_flight(f[0]) and
              any(r.startswith("ACTIVATION #") for r in f[4])]
    by_seq = {a["seq"]: a for a in acts}

    def wanted(text):
        """The facts of the activation this frame shows (the run makes more
        than one: each frame is held to its own)."""
        m = re.search(r"ACTIVATION #(\d+) UNDER WAY", text)
        act = by_seq.get(int(m[1])) if m else None
        if not act:
            return [m[0] if m else "ACTIVATION #? UNDER WAY"] + ["(no activation record)"]
        return [f"ACTIVATION #{act['seq']} UNDER WAY pid {act['trigger']['pid']} "
                f"({act['trigger']['comm']}) {act['trigger']['via']}",
                "elapsed", "served of", "at the start,", "still lacking", "so far",
                "time left"]

    missing = [(w, t[:400]) for f in during for t in [unwrapped(f[4])] for w in wanted(t)
               if w not in t]
    shown = sorted({int(m[1]) for f in during
                    for m in [re.search(r"ACTIVATION #(\d+) UNDER WAY", unwrapped(f[4]))] if m})
    ok(during and acts and not missing and
       all(f[4][0].startswith("verdict ") for f in during),
       f"narrow: {len(during)} frames of the activations {shown} under way at {cols} columns, "
       f"the verdict first and all the facts of the one shown in each" +
       (f": missing {missing[:2]}" if missing else ""))
    # the rest of the frame wraps too: each statement the screen makes is
    # there to its last words, in every frame that makes it
    cut = [(a, t[:300]) for f in run.frames if not run.in_flight(f[0])
           for t in [unwrapped(f[4])] for a, z in WHOLE
           if a in t and z not in t[t.index(a):]]
    ok(not cut, f"narrow: the header, the holders' heading and the fork path whole in "
       f"{len(run.frames)} frames" + (f": cut {cut[:2]}" if cut else ""))
    remedy = "off: echo nop > /sys/kernel/tracing/current_tracer"
    held = [f for f in run.frames if "function_graph, the top-level tracer" in unwrapped(f[4])]
    ok(held and all(remedy in unwrapped(f[4]) for f in held),
       f"narrow: the top-level tracer's remedy whole in {len(held)} frames")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--screens")
    ap.add_argument("--narrow", type=int, help="a run at this many columns: its own checks")
    a = ap.parse_args()
    logs, raw, recs, live, exits, lines = load(a.results)
    if not ok(live is not None and 1 in logs and 1 in raw, "the scenario's results are there"):
        return 1
    runs = {k: Run(logs[k], raw.get(k, "")) for k in logs}
    run = runs[1]
    if a.narrow:
        check_frames("narrow run", run)
        check_narrow(run, a.narrow, [r for r in recs if r["type"] == "activation"], live)
        print(f"live_check: {len(fails)} failed" if fails else "live_check: all passed")
        return 1 if fails else 0
    print(f"     kernel triggers: {live['triggers']}; parked {live['parked']}, U {live['u']}, "
          f"threads {live['threads']}, on {int(live['on_ns']) / 1e9:.3f} s")
    widths = check_frames("run 1", run)
    small = tuple(int(x) for x in live["small"].split())
    ok(small in widths, f"screen: re-laid at {small[0]}x{small[1]} after the resize")
    acts = [r for r in recs if r["type"] == "activation"]
    if ok(acts and acts[0]["verdict"]["verdict"] == "not_fixed" and
          acts[0]["nr_threads"] >= live["parked"], f"json: {len(acts)} activations, the first "
          f"not_fixed over {acts[0]['nr_threads'] if acts else 0} threads"):
        half = check_progress(run, acts[0], recs)
        check_history(run, acts)
        if half and a.screens:
            f = min((f for f in run.frames if (p := progress_of(f[4])) and p["eta"] is not None),
                    key=lambda f: abs(progress_of(f[4])["elapsed"] - acts[0]["duration_ns"] / 2e9))
            open(f"{a.screens}/halfway.txt", "w").write("\n".join(f[4]).rstrip() + "\n")
            before = [f for f in run.frames if f[0] < (run.mark("resize") or 0)]
            if before:
                open(f"{a.screens}/holders.txt", "w").write("\n".join(before[-1][4]).rstrip() + "\n")
    check_holders(run, live, recs)
    rest = check_terminal("run 1", run, "q")
    ok("summary: " in rest and "history (newest first" in rest,
       "run 1: the summary and the history printed after the screen")
    ok(exits.get("json") == 0, f"json: fgraphtop -j exited {exits.get('json')}")
    ph = (explain.get("plan") or {}).get("holders")
    ok(isinstance(ph, dict) and ph["count"] == 0 and ph["holders"] == [] and
       ph["graph_active"] == 0 and ph["tracefs"].endswith("/tracing"),
       f"explain -j: plan.holders {ph}")
    ok(explain.get("text", [""])[:2] == ["Who holds fgraph now (ftrace_graph_active 0):",
                                         "  none: fgraph is off; its next user makes the 0->1 step"],
       f"explain: {explain.get('text')}")
    if acts:
        check_lines(lines, acts, live)
        ex = lines_excerpt(lines)
        if ok(ex, "lines: the excerpt for docs/live.md (start, progress, record, holders, "
              "history)") and a.screens:
            open(f"{a.screens}/lines.txt", "w").write("\n".join(ex) + "\n")
    for k, key in ((2, "Ctrl-C"), (3, "SIGTERM")):
        if ok(k in runs, f"run {k} ({key}) recorded"):
            check_frames(f"run {k}", runs[k])
            check_terminal(f"run {k}", runs[k], key)
    print(f"live_check: {len(fails)} failed" if fails else "live_check: all passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
