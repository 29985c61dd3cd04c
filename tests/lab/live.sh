#!/usr/bin/env bash
# Lab test of the live view on a terminal: lab/scenarios/live-screen.sh on
# lab-stock (7.2, unfixed) with 30,000 idle threads: the walk watched on a
# pseudo-terminal (tests/lab/live_pty.c, added to the guest as an extra
# archive), `fgraphtop -j` beside it; every check in tests/lab/live_check.py
# (the screen through a terminal emulator, Debian's python3-pyte), every JSON
# record against docs/json.md (tests/json_schema.py); then the scenario again
# on a 60-column terminal (live_check.py --narrow). About 6 minutes under
# single-threaded TCG, warm cache.
#
#   tests/lab/live.sh [-o OUTDIR] [-k KERNEL] [-u THREADS]
# Two frames, as the emulator shows them, land in OUTDIR: halfway.txt (the walk
# halfway) and holders.txt (every holder on): copied to
# docs/samples/screen-halfway.txt and screen-holders.txt, they are the
# README's and docs/live.md's screens (make test-docs: the blocks equal them);
# lines.txt, an excerpt of `fgraphtop --no-screen` beside it, is
# docs/samples/lines.txt, docs/live.md's lines. The 60-column run's results
# are tests/data/lab/live-narrow-60.jsonl.xz (make check replays them).
# Environment: FGT_KERNELS as lab/run.sh.
set -uo pipefail

# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/lib.sh"
lab_opts live oKu "$@"
k=${only[0]:-lab-stock} u=${lab_u:-30000}
note() { echo "live: $*" >&2; }

# pyte lives in Debian's python3 (lab/host-deps.sh installs python3-pyte)
py=python3
$py -c 'import pyte' 2>/dev/null || py=/usr/bin/python3
$py -c 'import pyte' 2>/dev/null || { note "FAIL: no pyte (make deps installs python3-pyte)"; exit 1; }

# fgt-pty into an archive lab/run.sh appends to the guest's initramfs
mkdir -p "$out/cpio/bin"
${CC:-cc} -O2 -Wall -Wextra -static -o "$out/cpio/bin/fgt-pty" "$ROOT/tests/lab/live_pty.c" ||
	{ note "FAIL: cannot build fgt-pty"; exit 1; }
(cd "$out/cpio" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) > "$out/pty.cpio"

"$KSH" path "$k" > /dev/null 2>&1 || { note "FAIL: no kernel $k (make lab)"; exit 1; }
t0=$SECONDS rc=0
FGT_EXTRA_CPIO="$out/pty.cpio" FGT_KERNELS=$KSH "$ROOT/lab/run.sh" -k "$k" -s live-screen \
	-m 2048 -t 900 -o "$out/$k" -- U="$u" > /dev/null 2> "$out/$k.log" || rc=$?
note "$k: lab/run.sh status $rc, $((SECONDS - t0)) s"
fail=0
[ $rc -eq 0 ] || { note "FAIL: the scenario exited $rc (see $out/$k)"; fail=1; }
$py "$ROOT/tests/lab/live_check.py" "$out/$k/results.jsonl" --screens "$out" \
	> "$out/check.txt" 2>&1 || fail=1
cat "$out/check.txt" >&2
python3 "$ROOT/tests/json_schema.py" "$out/$k/results.jsonl" 2> "$out/schema.txt" ||
	{ note "FAIL: JSON schema"; tail -5 "$out/schema.txt" >&2; fail=1; }
# the same on a 60-column terminal: the verdict first, every fact of the
# activation under way wrapped rather than cut, the remedies whole (issue 43)
t0=$SECONDS rc=0
FGT_EXTRA_CPIO="$out/pty.cpio" FGT_KERNELS=$KSH "$ROOT/lab/run.sh" -k "$k" -s live-screen \
	-m 2048 -t 900 -o "$out/$k-60" -- U="$u" COLS=60 ROWS=50 SMALL="60 40" > /dev/null \
	2> "$out/$k-60.log" || rc=$?
note "$k at 60 columns: lab/run.sh status $rc, $((SECONDS - t0)) s"
[ $rc -eq 0 ] || { note "FAIL: the 60-column scenario exited $rc (see $out/$k-60)"; fail=1; }
$py "$ROOT/tests/lab/live_check.py" "$out/$k-60/results.jsonl" --narrow 60 \
	> "$out/check-60.txt" 2>&1 || fail=1
cat "$out/check-60.txt" >&2
note "outputs in $out"
if [ $fail = 0 ]; then note "all passed"; else note "FAILED"; fi
exit $fail
