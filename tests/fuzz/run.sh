#!/usr/bin/env bash
# Run the fuzz harnesses for SECONDS each, JOBS side by side (libFuzzer runs
# one process on one core: two fit the two cores CI has), and print each
# one's executions in the order named, once all are done.
#
#   tests/fuzz/run.sh BUILD SECONDS KIMAGE_SEEDS NAME...
# Environment: FGT_FUZZ_JOBS (default: 2, or 1 on one core).
# Exit status: 0 if no harness crashed, 1 if one did (its log and artifact
# are in BUILD), 2 on bad usage.
set -uo pipefail

[ $# -ge 4 ] || { echo "usage: $0 BUILD SECONDS KIMAGE_SEEDS NAME..." >&2; exit 2; }
build=$1 secs=$2 kseeds=$3
shift 3
jobs=${FGT_FUZZ_JOBS:-$(( $(nproc) > 1 ? 2 : 1 ))}

one() {	# NAME: its status in BUILD/NAME.status
	local n=$1 seeds=() rc=0
	mkdir -p "$build/$n.corpus"
	[ "$n" != kimage ] || seeds=("$kseeds")
	"$build/fuzz_$n" -max_total_time="$secs" -print_final_stats=1 -timeout=10 \
		-artifact_prefix="$build/$n-" "$build/$n.corpus" "tests/fuzz/corpus/$n" \
		"${seeds[@]}" > "$build/$n.log" 2>&1 || rc=$?
	echo "$rc" > "$build/$n.status"
}

for n; do
	rm -f "$build/$n.status"
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
	one "$n" &
done
wait

failed=""
for n; do
	if [ "$(cat "$build/$n.status" 2>/dev/null)" = 0 ]; then
		echo "fuzz $n: $(sed -n 's/^stat::number_of_executed_units: *//p' "$build/$n.log") executions in $secs s, no crash"
	else
		echo "fuzz $n: FAILED (see $build/$n.log)"
		grep -m3 -E 'ERROR|SUMMARY|Test unit written' "$build/$n.log"
		failed="$failed $n"
	fi
done
[ -z "$failed" ] || { echo "fuzz: FAILED:$failed"; exit 1; }
