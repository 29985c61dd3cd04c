#!/usr/bin/env bash
# `make bench`: every benchmark in one run, sequentially (the machine's
# cores are shared), then docs/bench/ from the raw results (lab/bench/report.py).
#
#   lab/bench/bench.sh          full run (about 11 minutes here, single-threaded TCG)
#   BENCH_QUICK=1 lab/bench/bench.sh     reduced: U = 1k, 5k; fewer repetitions
#
# Environment: BENCH_OUT (default docs/bench), BENCH_US, BENCH_REPS,
# BENCH_REPS_LARGE (U >= 20k), BENCH_COST_REPS, BENCH_PARTS, FGT_ACCEL (as lab/run.sh).
# Raw results: $BENCH_OUT/raw/*.jsonl (one file per guest run) and host.json.
# A run whose guest fails is recorded as such; the report says what is missing.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT" || exit 1
OUT=${BENCH_OUT:-docs/bench}
RAW=$OUT/raw
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	US=${BENCH_US:-1000 5000}
	REPS=${BENCH_REPS:-1}
	REPS_LARGE=${BENCH_REPS_LARGE:-1}
	COST="REPS=${BENCH_COST_REPS:-2} OPEN_N=5000 FORK_N=100 STORM_N=1000"
	mode=quick
else
	US=${BENCH_US:-1000 5000 10000 20000 30000}
	REPS=${BENCH_REPS:-3}
	REPS_LARGE=${BENCH_REPS_LARGE:-3}
	COST="REPS=${BENCH_COST_REPS:-7} OPEN_N=20000 FORK_N=500 STORM_N=5000"
	mode=full
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fgt-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# BENCH_PARTS: "fix cost" by default; a subset re-runs only those parts and keeps
# the other parts' raw results from the previous run.
PARTS=${BENCH_PARTS:-fix cost}
rm -rf "$RAW.new"
mkdir -p "$RAW.new"
[ "$PARTS" != "fix cost" ] && [ -d "$RAW" ] && cp -a "$RAW/." "$RAW.new/"

# The host, for the report (the guest's own view comes from its results).
{
	jq -n --arg mode "$mode" --arg parts "$PARTS" --arg tcg_thread "${FGT_TCG_THREAD:-single}" --arg us "$US" --arg reps "$REPS" --arg reps_large "$REPS_LARGE" \
		--arg cost "$COST" \
		--arg cpu "$(lscpu | sed -n 's/^Model name: *//p' | head -n1)" \
		--arg cores "$(nproc)" --arg host_kernel "$(uname -r)" \
		--arg qemu "$(qemu-system-x86_64 --version | head -n1)" \
		--arg mem_mb "$(free -m | awk '/^Mem:/ { print $2 }')" \
		--arg commit "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src bpf lab || echo +dirty)" \
		--arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		--argjson kernels "$(for k in lab-stock lab-fixed; do cat "$(lab/kernels.sh path $k)/info.json"; done | jq -cs .)" \
		'{mode: $mode, parts: $parts, tcg_thread: $tcg_thread, us: ($us | split(" ") | map(tonumber)), reps: ($reps | tonumber),
		  reps_large: ($reps_large | tonumber), cost_args: $cost, host_cpu: $cpu,
		  host_cores: ($cores | tonumber), host_kernel: $host_kernel, qemu: $qemu,
		  host_mem_mb: ($mem_mb | tonumber), commit: $commit, date: $date, kernels: $kernels}'
} > "$RAW.new/host.json"

status=0
run() {	# NAME RUN.SH-ARGS...
	local name=$1
	shift
	echo "bench: $name: lab/run.sh $*" >&2
	lab/run.sh -o "$tmp/$name" "$@" > "$RAW.new/$name.jsonl"
	local rc=$?
	echo "bench: $name: status $rc" >&2
	rm -f "$RAW.new/$name.console.log"
	if [ $rc -ne 0 ]; then
		status=1
		# The console says why (splat, panic): keep it with the results.
		cp "$tmp/$name/console.log" "$RAW.new/$name.console.log" 2>/dev/null
	fi
}

# 1. The fix: stock and fixed, same U list, same repetitions.
for k in lab-stock lab-fixed; do
	case " $PARTS " in *" fix "*) ;; *) break ;; esac
	run "fix-$k" -k "$k" -s bench-fix -m 2048 -t 5400 -- \
		"US=$US" "REPS=$REPS" "REPS_LARGE=$REPS_LARGE"
done
# 2 and 3. fgraphtop's cost against bpftrace, overhead, fork storm.
case " $PARTS " in
*" cost "*)
	bt=$("$HERE/mkbpftrace.sh") || { echo "bench: no bpftrace cpio" >&2; exit 1; }
	# shellcheck disable=SC2086
	FGT_EXTRA_CPIO=$bt run cost-lab-stock -k lab-stock -s bench-cost -m 3072 -t 3600 -- $COST
	;;
esac

rm -rf "$RAW"
mv "$RAW.new" "$RAW"
"$HERE/report.py" "$OUT" || status=1
echo "bench: results in $OUT/results.md" >&2
exit $status
