#!/usr/bin/env bash
# make test's targets that boot one guest at a time, run two at a time.
#
#   tests/paired.sh LOGDIR TARGET...
#
# A TCG guest is one host thread (lab/run.sh: tcg,thread=single), so a target
# that boots its guests one after another leaves the other core of a 2-core
# CI machine idle; tests/lab/tool.sh and check.sh already run two guests side
# by side and stay out of here (the Makefile's TEST_PAIRED). Each target's
# output goes to LOGDIR/TARGET.log and is printed whole when it ends, then
# "-- make TARGET: N s, passed|FAILED"; the targets start in the order given
# (longest first, so that the two lanes end together). The targets must share
# nothing that they build: make test builds their common prerequisites
# before (the kernels, the guest image, the packages).
# Exit status: 0 if all passed, 1 if any failed (named on the last line and
# in LOGDIR/failed), 2 on bad usage.
# FGT_TEST_JOBS: how many at a time (default 2, 1 on one core).
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: tests/paired.sh LOGDIR TARGET..." >&2; exit 2; }
dir=$1
shift
mkdir -p "$dir" || exit 2
max=${FGT_TEST_JOBS:-$(( $(nproc) > 1 ? 2 : 1 ))}
make=${MAKE:-make}
failed=''
declare -A start=()

# run TARGET: in the background, its status into LOGDIR/TARGET.rc at the end
run() {
	local t=$1

	rm -f "$dir/$t.rc"
	start[$t]=$(date +%s)
	echo "== make $t (two at a time: $dir/$t.log)"
	( "$make" --no-print-directory "$t" > "$dir/$t.log" 2>&1; echo $? > "$dir/$t.rc" ) &
}

# report [gone]: print every target that has ended since the last call;
# gone: no job is left, so a target without its status died with its shell
report() {
	local t rc

	for t in "${!start[@]}"; do
		if [ -f "$dir/$t.rc" ]; then
			rc=$(cat "$dir/$t.rc")
		elif [ "${1:-}" = gone ]; then
			rc='none'
		else
			continue
		fi
		cat "$dir/$t.log"
		if [ "$rc" = 0 ]; then
			echo "-- make $t: $(( $(date +%s) - start[$t] )) s, passed"
		else
			echo "-- make $t: $(( $(date +%s) - start[$t] )) s, FAILED (status $rc)"
			failed="$failed $t"
		fi
		unset "start[$t]"
	done
}

trap 'kill $(jobs -p) 2>/dev/null; exit 130' INT TERM
for t in "$@"; do
	while [ "${#start[@]}" -ge "$max" ]; do
		wait -n
		report
		[ -n "$(jobs -rp)" ] || report gone
	done
	run "$t"
done
while [ "${#start[@]}" -gt 0 ]; do
	wait -n
	report
	[ -n "$(jobs -rp)" ] || report gone
done
echo "${failed# }" > "$dir/failed"
if [ -n "$failed" ]; then
	echo "paired: FAILED:$failed"
	exit 1
fi
exit 0
