#!/usr/bin/env bash
# shellcheck disable=SC2317 # its functions run through lab_job (tests/lab/lib.sh)
# Lab test of fgraphtop started during a stall (issue 42): the trigger starts
# first; fgraphtop -j, fgraphtop --no-screen, fgraphtop check -j and
# fgraphtop --explain -j start 1 s and 3 s into its walk
# (lab/scenarios/join.sh, one boot for each: a second walk in the same boot
# would find old threads holding stacks ahead of the new ones). Kernels:
#   lab-stock      function_graph at the top level, U = 30,000
#   debian-7.2     fgt-trigger's BPF kretprobe.multi link (fprobe on fgraph, 6.14+)
#   debian-6.12    function_graph at the top level (Debian's own kernel)
# and, named KERNEL+bt (make test-long: about 19 minutes a row, loaded):
#   debian-7.2+bt  sid's bpftrace -e 'kretprobe:vfs_read* {...}' (a kretprobe.multi
#                  link), as the SRE's stalled tool runs it; its guest gets
#                  sid's userland (lab/guest/mksid.sh, cached)
# tests/lab/join_check.py asserts counts only, never the host's pace: the
# live view's first record after its start is the step under way; the served
# count at the end is the oracle's U; the sweeps inferred before joining are
# within one batch of the kernel's; a tool seen waiting in a kernel mutex for
# a second or more said so (a "lock_wait" notice). About 6 guests, two at a
# time: a few minutes under TCG, warm.
#
#   tests/lab/join.sh [-o OUTDIR] [-k KERNEL]... [-u THREADS]
# Environment: FGT_KERNELS as lab/run.sh.
set -uo pipefail

# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/lib.sh"
lab_opts join okbu "$@"
u=${lab_u:-30000}
note() { echo "join: $*" >&2; }
trigger_of() {
	case $1 in
	*+bt) echo bt-kretprobe ;;
	debian-7.2 | lab-arm64-*) echo kretmulti ;;
	*) echo tracefs ;;
	esac
}
[ ${#only[@]} -gt 0 ] || mapfile -t only < <(lab_tier lab-stock debian-7.2 debian-6.12)

one() {	# KERNEL AT
	local k=$1 at=$2 d="$out/$1-at$2" rc=0 t0=$SECONDS trig extra=
	trig=$(trigger_of "$k")
	case $trig in bt-*) extra=$sid ;; esac
	FGT_EXTRA_CPIO=$extra FGT_KERNELS=$KSH "$ROOT/lab/run.sh" -k "${k%+bt}" -s join -m 2048 \
		-t 1500 -o "$d" -- U="$u" TRIGGER="$trig" AT="$at" > /dev/null 2> "$d.log" || rc=$?
	note "$k at $at s: lab/run.sh status $rc, $((SECONDS - t0)) s"
	if [ "$rc" -ne 0 ]; then
		note "FAIL: $k at $at s: the scenario exited $rc (see $d)"
		lab_failed
		return
	fi
	python3 "$ROOT/tests/lab/join_check.py" "$d/results.jsonl" > "$d.check" 2>&1 || lab_failed
	sed "s/^/join: $k at $at s: /" "$d.check" >&2
}

sid=
mkdir -p "$out"
for k in "${only[@]}"; do
	"$KSH" path "${k%+bt}" > /dev/null 2>&1 || { note "FAIL: no kernel ${k%+bt} (make lab)"; exit 1; }
	case $(trigger_of "$k") in
	bt-*)
		# sid's bpftrace, built once and cached
		[ -n "$sid" ] || sid=$("$ROOT/lab/guest/mksid.sh" 2> "$out/mksid.log") ||
			{ note "FAIL: no sid userland for bpftrace: $(tail -1 "$out/mksid.log")"; exit 1; } ;;
	esac
done
for k in "${only[@]}"; do
	for at in 1 3; do
		mkdir -p "$out"
		lab_job one "$k" "$at"
	done
done
fail=0
lab_wait || fail=1
python3 "$ROOT/tests/lab/join_check.py" --table "$out"/*/results.jsonl > "$out/table.txt" 2>&1
cat "$out/table.txt" >&2
note "outputs in $out"
if [ $fail = 0 ]; then note "all passed"; else note "FAILED"; fi
exit $fail
