#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check --kernel, as shipped, on hostile files (issue 20).

  tests/kimage-bad.py FGRAPHTOP FGT-KIMAGE-GEN

Each file fgt-kimage-gen makes (one per class of bad input), a FIFO, a device
as the System.map and a 5 GiB sparse vmlinux: status 3 (unknown), one line on
stdout, within CPU and memory bounds; and a SIGTERM during a long step
(3 million symbols to read) ends the check within a second, status 3, "interrupted".
Prints each case's figures (the bounds measured).
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

MAX_CPU_S = 5.0            # per answer, user + system
MAX_RSS_KB = 512 << 10     # per answer's peak (the payload cap is 256 MiB)


def run(binary, args, term_after=None):
    t0 = time.monotonic()
    p = subprocess.Popen([binary, "check", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    sent = None
    if term_after is not None:
        # once the file is open (the handlers are in place and the read has
        # begun), a little later: inside the long step whatever the host's speed
        target = os.path.realpath(term_after)
        deadline = t0 + 30
        while p.poll() is None and time.monotonic() < deadline:
            try:
                fds = os.listdir(f"/proc/{p.pid}/fd")
                if any(os.path.realpath(f"/proc/{p.pid}/fd/{fd}") == target for fd in fds):
                    break
            except OSError:
                pass
            time.sleep(0.002)
        time.sleep(0.05)
        sent = time.monotonic()
        p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    end = time.monotonic()
    return p.returncode, out.decode(), err.decode(), end - t0, sent and end - sent


def child_usage(binary, args):
    """Status, stdout, CPU seconds and peak RSS (KiB) of one answer."""
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execv(binary, [binary, "check", *args])
    _, status, ru = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), ru.ru_utime + ru.ru_stime, ru.ru_maxrss


failed = 0


def case(binary, name, args, want_in=None):
    global failed
    st, out, err, wall, _ = run(binary, args)
    code, cpu, rss = child_usage(binary, args)
    lines = out.splitlines()
    ok = st == 3 and code == 3 and len(lines) == 1 and cpu < MAX_CPU_S and rss < MAX_RSS_KB
    if want_in and want_in not in out:
        ok = False
    print(f"{'ok  ' if ok else 'FAIL'} {name:34s} status {st}, {cpu:.3f} s CPU, "
          f"{rss / 1024:.1f} MiB peak: {lines[0] if lines else '(no output)'}")
    if not ok:
        failed += 1
        print(f"     stdout: {out!r}\n     stderr: {err[:300]!r}")


def main():
    binary, gen = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="fgt-kimage-bad.") as d:
        subprocess.run([gen, d], check=True)
        # issue 40's crafted files: each one's line too
        with open(os.path.join(d, "c40.expect")) as ex:
            expect = dict(line.rstrip("\n").split("\t", 1) for line in ex)
        for f in sorted(os.listdir(d)):
            if f in ("many-symbols.elf", "c40.expect"):
                continue
            case(binary, f, ["--kernel", os.path.join(d, f)], expect.get(f))
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        case(binary, "a FIFO as --kernel", ["--kernel", fifo], "a FIFO")
        elf = os.path.join(d, "one-symbol.elf")
        case(binary, "/dev/zero as --system-map", ["--kernel", elf, "--system-map", "/dev/zero"],
             "a device")
        case(binary, "a FIFO as --system-map", ["--kernel", elf, "--system-map", fifo], "a FIFO")
        sparse = os.path.join(d, "sparse")
        with open(elf, "rb") as src, open(sparse, "wb") as dst:
            dst.write(src.read())
            dst.truncate(5 << 30)
        case(binary, "a 5 GiB sparse vmlinux", ["--kernel", sparse])
        # issue 40, class 7: a path holding a newline and escape sequences
        # forges no line and drives no terminal, on stdout nor stderr; nor
        # does an unknown option echoed back
        forged = os.path.join(d, "x\n\x1b[32mFGRAPH OK - fixed\x1b[0m\r")
        os.link(os.path.join(d, "c40-not-a-kernel.elf"), forged)
        # (a bad command line is status 64, one line on stdout too: issue 43)
        for name, args, want, err_lines, status in (
                ("a forged path", ["--kernel", forged], "x\\x0a\\x1b[32mFGRAPH OK", 1, 3),
                ("an unknown option", ["--\x1b[2J\nFGRAPH OK", "--kernel", forged],
                 "--\\x1b[2J\\x0aFGRAPH OK", 2, 64)):
            st, out, err, _, _ = run(binary, args)
            ok = (st == status and len(out.splitlines()) <= 1 and
                  len(err.splitlines()) <= err_lines and
                  not any(c in out + err for c in "\x1b\r") and want in out + err)
            print(f"{'ok  ' if ok else 'FAIL'} {name + ' (class 7)':34s} status {st}: "
                  f"{(out or err).strip()[:160]!r}")
            if not ok:
                print(f"     stdout: {out!r}\n     stderr: {err!r}")
                globals()["failed"] += 1
        # JSON too: the same answer, unknown with its why
        st, out, _, _, _ = run(binary, ["--json", "--kernel", elf])
        j = json.loads(out)
        ok = st == 3 and j["static"]["verdict"] == "unknown" and j["static"]["why"] == "no_symbols"
        print(f"{'ok  ' if ok else 'FAIL'} {'one-symbol.elf --json':34s} status {st}, "
              f"static {j['static']['verdict']} ({j['static']['why']})")
        failed_json = not ok
        # SIGTERM while the symbols of a large image are read
        many = os.path.join(d, "many-symbols.elf")
        st, out, err, wall, after = run(binary, ["--kernel", many], term_after=many)
        # "interrupted" is the proof that the signal stopped it; how soon is
        # printed, and only a hang (10 s) fails: a busy host's pace is no
        # property of the code (issue 38)
        ok = st == 3 and after < 10.0 and "interrupted" in out
        print(f"{'ok  ' if ok else 'FAIL'} {'SIGTERM while 3M symbols are read':34s} status {st}, "
              f"ended {after:.3f} s after the signal: {out.strip()}")
        if not ok or failed_json:
            global failed
            failed += 1
    print(f"kimage-bad: {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
