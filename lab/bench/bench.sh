#!/usr/bin/env bash
# `make bench`: the benchmarks, one part after the other (the machine's cores
# are shared), then docs/bench/ from the raw results (lab/bench/report.py).
#
#   lab/bench/bench.sh                   the default parts (fix cost perturb consumer ksyms static pressure estimate hold)
#   BENCH_QUICK=1 lab/bench/bench.sh     reduced: U = 1k, 5k; fewer repetitions
#   BENCH_PARTS=scale lab/bench/bench.sh the series' own scale (long: see below)
#
# Parts (BENCH_PARTS, space-separated; the raw results of the parts not run are
# kept from the previous run):
#   fix       first activation, stock vs fixed, U = 1k..30k (TCG, wall clock)
#   cost      fgraphtop's own cost against bpftrace and the floor (icount; and
#             wall clock beside it)
#   perturb   how much fgraphtop slows the activation down, U = 10k, 30k (icount)
#   consumer  the consumer natively on this host (build/bench/fgt-consumer-bench)
#   ksyms     the symbol table natively on this host (build/bench/fgt-ksyms-bench):
#             load and lookups at 50k..400k symbols, BENCH_KSYMS_REPS (default
#             7, quick 3) each; judged on the growth from one size to the next
#   static    check --static's own time (static.ms) on every lab kernel built,
#             BENCH_STATIC_N answers in a row from boot, BENCH_STATIC_BOOTS boots
#             (default 3) per kernel (the first answer of each pays for cold
#             caches and, under TCG, for translating the code it runs)
#   scale     first activation at U = 50k..400k (BENCH_SCALE_US), one guest per
#             kernel and U, memory sized for U; resumable: a (kernel, U) whose raw
#             result is there with status 0 is not run again (BENCH_SCALE_REDO=1:
#             run it anyway), and each one is saved as soon as it is done
#   pressure  memory pressure, no failslab (lab/scenarios/pressure.sh, the disk
#             of lab/guest/mkdisk.sh): lab-stock, lab-fixed and lab-fixed-plus
#             at U = 30k and 100k (BENCH_PRESSURE_US), BENCH_PRESSURE_REPS
#             (default 3) boots each, in two regimes (BENCH_PRESSURE_REGIMES):
#             starved (kswapd starved of CPU, STARVE=1: persistent pressure)
#             and free (kswapd races the walk): non-blocking failures, sweeps,
#             visits, time, fgraphtop against the kernel's own kmem events;
#             the results of regimes and U not asked for are kept
#   estimate  how often the time left fell inside the live view's range
#             (lab/bench/estimate.py, docs/bench/estimate.md): the pressure
#             scenario, kswapd starved, U = 30k, on lab-stock and lab-fixed,
#             BENCH_ESTIMATE_REPS (default 3) boots each on a quiet host and
#             as many beside tests/load.sh's CPU hog (stress-ng --cpu 1); a
#             measure, not a gate
#   hold      what `fgraphtop hold` costs a host that never traces
#             (lab/scenarios/bench-hold.sh, icount, one vCPU): fork/exit, a
#             context-switch round trip and the memory of a parked thread,
#             held against unheld, BENCH_HOLD_REPS (default 5) rotating
#             repetitions, on lab-stock (7.x: a kretprobe.multi link) and
#             debian-6.12 (a tracefs instance's function_graph), or on
#             BENCH_HOLD_KERNELS (the others' results are kept)
#
# Environment: BENCH_OUT (default docs/bench), BENCH_US, BENCH_REPS,
# BENCH_REPS_LARGE (U >= 20k), BENCH_COST_REPS, BENCH_PARTS, BENCH_SCALE_US,
# BENCH_ICOUNT (the cost part's icount shift, default 0), BENCH_ICOUNT_CPU (its
# qemu -cpu, default max,-erms,-fsrm,-rdrand,-rdseed), BENCH_PERTURB_US,
# BENCH_PERTURB_REPS, BENCH_STATIC_N (default 5),
# BENCH_SCALE_KB (guest KiB per parked thread, default 32), BENCH_SCALE_KERNELS,
# FGT_ACCEL (as lab/run.sh),
# BENCH_COMMIT (what to record as the commit, for a run from an exported tree).
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
	COST="REPS=${BENCH_COST_REPS:-2} OPEN_N=20000 FORK_N=1000 SHELL_N=2 STORM_N=1000"
	HOLD="REPS=${BENCH_HOLD_REPS:-2} FORK_N=1000 SWITCH_N=10000 THREADS=1000"
	PERTURB_US=${BENCH_PERTURB_US:-10000}
	PERTURB_REPS=1
	KSYMS_REPS=${BENCH_KSYMS_REPS:-3}
	mode=quick
else
	US=${BENCH_US:-1000 5000 10000 20000 30000}
	REPS=${BENCH_REPS:-3}
	REPS_LARGE=${BENCH_REPS_LARGE:-3}
	COST="REPS=${BENCH_COST_REPS:-5} OPEN_N=100000 FORK_N=10000 SHELL_N=10 STORM_N=5000"
	HOLD="REPS=${BENCH_HOLD_REPS:-5} FORK_N=5000 SWITCH_N=50000 THREADS=5000"
	PERTURB_US=${BENCH_PERTURB_US:-10000 30000}
	PERTURB_REPS=${BENCH_PERTURB_REPS:-3}
	KSYMS_REPS=${BENCH_KSYMS_REPS:-7}
	mode=full
fi
CONSUMER=${BENCH_CONSUMER:-build/bench/fgt-consumer-bench}
KSYMS=${BENCH_KSYMS:-build/bench/fgt-ksyms-bench}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fgt-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
PARTS=${BENCH_PARTS:-fix cost perturb consumer ksyms static pressure estimate hold}
# qemu's icount shift for the cost part: 0, one instruction per guest ns, the
# fastest virtual CPU it can model and the nearest to a real core (1-4 per ns):
# time-driven work (ticks, fgraphtop's 100 ms poll) weighs per instruction as
# little as it can, as on real hardware.
ICOUNT=${BENCH_ICOUNT:-0}
# ... and a CPU without ERMS and FSRM: icount counts each iteration of a rep
# string instruction as one instruction, and with them the kernel clears and
# copies memory a byte per iteration (rep stosb/movsb), 4,096 per page: that was
# two thirds of a fork/exit (207 us a fork/exit, 137 without them). Without, it
# uses rep stosq/movsq, 8 bytes an iteration, nearer to what hardware spends.
# Nor RDRAND and RDSEED: under TCG they hand the guest the host's entropy, the
# one input icount does not make the same every run.
ICOUNT_CPU=${BENCH_ICOUNT_CPU:-max,-erms,-fsrm,-rdrand,-rdseed}
# ... and no address-space randomization in the guest: each repetition execs
# its load anew, and with ASLR its layout, and with that how many page tables
# each of its forks copies, changed every time. fork/exit, 7 repetitions of
# 5,000 on lab-stock: spread 1.6 % with ASLR, 0.37 % with norandmaps, 0.29 %
# with RDRAND and RDSEED off as well (5.4 % with those off and ASLR on).
ICOUNT_ARGS=(-a norandmaps -a randomize_kstack_offset=off)
SCALE_US=${BENCH_SCALE_US:-50000 100000 200000 400000}
HOLD_KERNELS=${BENCH_HOLD_KERNELS:-lab-stock debian-6.12}
has_part() {
	case " $PARTS " in *" $1 "*) return 0 ;; esac
	return 1
}
# Each part's raw files, by name: a part not run keeps the previous run's.
part_of() {	# RAW FILE NAME
	case $1 in
	fix-*) echo fix ;;
	cost-*) echo cost ;;
	perturb-*) echo perturb ;;
	consumer*) echo consumer ;;
	ksyms*) echo ksyms ;;
	static-*) echo static ;;
	scale-*) echo scale ;;
	pressure-*) echo pressure ;;
	estimate-*) echo estimate ;;
	hold-*) echo hold ;;
	*) echo other ;;
	esac
}
# hold_runs FILE: this run makes FILE again (its kernel is asked for)
hold_runs() {
	local k=${1%.jsonl}
	k=${k#hold-}
	case " $HOLD_KERNELS " in *" $k "*) return 0 ;; esac
	return 1
}
# pressure_runs FILE: this run makes FILE again (its regime and U are asked for)
pressure_runs() {
	local b=${1%%.*} regime=free u
	case $b in pressure-starved-*) regime=starved ;; esac
	u=${b##*-}
	case " ${BENCH_PRESSURE_REGIMES:-starved free} " in *" $regime "*) ;; *) return 1 ;; esac
	case " ${BENCH_PRESSURE_US:-30000 100000} " in *" $u "*) return 0 ;; esac
	return 1
}
rm -rf "$RAW.new"
mkdir -p "$RAW.new"
if [ -d "$RAW" ]; then
	for f in "$RAW"/*; do
		[ -f "$f" ] || continue
		b=$(basename "$f")
		p=$(part_of "$b")
		# scale: kept even when it runs (resumable); it decides per (kernel, U);
		# pressure: the regimes and U not run this time are kept
		if [ "$p" = scale ] || { [ "$p" != other ] && ! has_part "$p"; } ||
			{ [ "$p" = pressure ] && ! pressure_runs "$b"; } ||
			{ [ "$p" = hold ] && ! hold_runs "$b"; }; then
			cp -a "$f" "$RAW.new/"
		fi
	done
	# the previous run's part list, so the report can say which parts are old
	[ -f "$RAW/host.json" ] && cp "$RAW/host.json" "$RAW.new/host-previous.json"
fi

# The host, for the report (the guest's own view comes from its results).
{
	jq -n --arg mode "$mode" --arg parts "$PARTS" --arg scale_us "$SCALE_US" --arg tcg_thread "${FGT_TCG_THREAD:-single}" --arg us "$US" --arg reps "$REPS" --arg reps_large "$REPS_LARGE" \
		--arg cost "$COST" --arg icount "$ICOUNT" --arg icount_cpu "$ICOUNT_CPU" \
		--arg icount_args "${ICOUNT_ARGS[*]}" \
		--arg perturb_us "$PERTURB_US" \
		--arg perturb_reps "$PERTURB_REPS" \
		--arg cpu "$(lscpu | sed -n 's/^Model name: *//p' | head -n1)" \
		--arg cores "$(nproc)" --arg host_kernel "$(uname -r)" \
		--arg qemu "$(qemu-system-x86_64 --version | head -n1)" \
		--arg mem_mb "$(free -m | awk '/^Mem:/ { print $2 }')" \
		--arg commit "${BENCH_COMMIT:-$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src bpf lab || echo +dirty)}" \
		--arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
		--argjson kernels "$(for k in lab-stock lab-fixed lab-fixed-plus; do cat "$(lab/kernels.sh path $k)/info.json"; done | jq -cs .)" \
		'{mode: $mode, parts: ($parts | split(" ")), scale_us: ($scale_us | split(" ") | map(tonumber)), tcg_thread: $tcg_thread, us: ($us | split(" ") | map(tonumber)), reps: ($reps | tonumber),
		  reps_large: ($reps_large | tonumber), cost_args: $cost, host_cpu: $cpu,
		  icount_shift: ($icount | tonumber), icount_cpu: $icount_cpu, icount_kernel_args: ($icount_args | gsub("-a "; "")), perturb_us: ($perturb_us | split(" ") | map(tonumber)),
		  perturb_reps: ($perturb_reps | tonumber),
		  host_cores: ($cores | tonumber), host_kernel: $host_kernel, qemu: $qemu,
		  host_mem_mb: ($mem_mb | tonumber), commit: $commit, date: $date, kernels: $kernels}'
} > "$RAW.new/host.json"

status=0
run() {	# NAME RUN.SH-ARGS...
	local name=$1
	shift
	echo "bench: $name: lab/run.sh $*" >&2
	# RUN_NICE=nice: the long scale guests yield to others' interactive work
	${RUN_NICE:-} lab/run.sh -o "$tmp/$name" "$@" > "$RAW.new/$name.jsonl"
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
if has_part fix; then
	for k in lab-stock lab-fixed; do
		run "fix-$k" -k "$k" -s bench-fix -m 2048 -t 5400 -- \
			"US=$US" "REPS=$REPS" "REPS_LARGE=$REPS_LARGE"
	done
fi
# 2 and 3. fgraphtop's cost against the floor and bpftrace, and the fork storm;
# the perturbation of the activation. Judged under instruction counting (guest
# time = instructions executed, 2^ICOUNT ns each) with one vCPU: every figure
# then repeats to a fraction of a percent, whatever the host does. The same
# scenario once more under plain TCG gives the wall-clock figures beside them.
if has_part cost; then
	bt=$("$HERE/mkbpftrace.sh") || { echo "bench: no bpftrace cpio" >&2; exit 1; }
	# shellcheck disable=SC2086
	FGT_TCG_CPU=$ICOUNT_CPU FGT_EXTRA_CPIO=$bt run cost-lab-stock -k lab-stock -s bench-cost \
		-I "$ICOUNT" "${ICOUNT_ARGS[@]}" -c 1 -m 3072 -t 7200 -- $COST
	# shellcheck disable=SC2086
	FGT_TCG_CPU=$ICOUNT_CPU FGT_EXTRA_CPIO=$bt run cost-wall-lab-stock -k lab-stock -s bench-cost \
		-m 3072 -t 7200 -- \
		$COST TOOLS="none fgraphtop floor bpftrace"
fi
# The perturbation of the activation, under instruction counting too: without
# fgraphtop, with it, with the floor, with the answers' floor (fgt-floor -t),
# and with fgraphtop stopped during the trigger (its BPF programs' share,
# without its consumer's).
if has_part perturb; then
	for k in lab-stock lab-fixed; do
		FGT_TCG_CPU=$ICOUNT_CPU run "perturb-$k" -k "$k" -s bench-fix -I "$ICOUNT" "${ICOUNT_ARGS[@]}" -c 1 \
			-m 2048 -t 7200 -- \
			"US=$PERTURB_US" "REPS=$PERTURB_REPS" "MODES=without with floor floor-ts stopped"
	done
fi
# 4. The consumer, natively: seconds.
if has_part consumer; then
	echo "bench: consumer: $CONSUMER" >&2
	if ! "$CONSUMER" -u 400000 -r "${BENCH_CONSUMER_REPS:-11}" > "$RAW.new/consumer.jsonl"; then
		echo "bench: consumer: a record was wrong (see above)" >&2
		status=1
	fi
fi
# The symbol table, natively: CPU and wall nanoseconds at each size.
if has_part ksyms; then
	echo "bench: ksyms: $KSYMS" >&2
	if ! "$KSYMS" -r "$KSYMS_REPS" > "$RAW.new/ksyms.jsonl"; then
		echo "bench: ksyms: a lookup was wrong (see above)" >&2
		status=1
	fi
fi
# 5. check --static's time, on every kernel the lab has built (one guest each).
if has_part static; then
	for k in $(lab/kernels.sh list --arch x86_64); do
		d=$(lab/kernels.sh path "$k" 2> /dev/null) || d=
		if [ ! -f "$d/bzImage" ]; then
			echo "bench: static-$k: not built (lab/kernels.sh ensure $k)" >&2
			continue
		fi
		# several boots: a first answer is cold, and one alone on a shared host
		# can land on a hiccup (debian-7.2: 120.8 ms once, 56-63 in three more)
		for b in $(seq "${BENCH_STATIC_BOOTS:-3}"); do
			run "static-$k.b$b" -k "$k" -s static-time -m 2048 -t 900 -- "N=${BENCH_STATIC_N:-5}"
		done
	done
fi
# 6. The series' scale: one guest per kernel and U, the biggest ones alone.
if has_part pressure; then
	disk=$(lab/guest/mkdisk.sh) || { echo "bench: no pressure disk" >&2; exit 1; }
	# starved: kswapd starved of CPU (STARVE=1, the persistent pressure);
	# free: kswapd races the walk (failures vary from boot to boot)
	for regime in ${BENCH_PRESSURE_REGIMES:-starved free}; do
	st=0 pre=pressure
	[ "$regime" = free ] || st=1 pre=pressure-starved
	for u in ${BENCH_PRESSURE_US:-30000 100000}; do
		# 30k threads take about 0.8 GiB of it, the stacks 0.12: the rest is
		# page cache (as in tests/lab/pressure.sh); 100k: the same shares
		mem=$((u <= 30000 ? 1536 : 4096 * u / 100000))
		for k in lab-stock lab-fixed lab-fixed-plus; do
			for r in $(seq "${BENCH_PRESSURE_REPS:-3}"); do
				# the oracle's trace buffer per CPU grows with U: 8 MiB
				# overran at 100k (100k events of about 100 bytes); starved,
				# the series' sweeps add a reserve's 32 events each
				run "$pre-$k-$u.r$r" -k "$k" -s pressure -d "$disk" -m "$mem" \
					-a no_hash_pointers -t 3600 -- "U=$u" "STARVE=$st" \
					"BUF_KB=$(((8192 + 8192 * st) * u / 30000 + 4096))"
			done
		done
	done
	done
fi
# 7. The estimate's hit rate, quiet and loaded: the same walks each way.
if has_part estimate; then
	disk=$(lab/guest/mkdisk.sh) || { echo "bench: no pressure disk" >&2; exit 1; }
	for load in quiet loaded; do
		hog=()
		[ "$load" = quiet ] || hog=(tests/load.sh run)
		for k in lab-stock lab-fixed; do
			for r in $(seq "${BENCH_ESTIMATE_REPS:-3}"); do
				RUN_NICE="${hog[*]}" run "estimate-$load-$k.r$r" -k "$k" -s pressure \
					-d "$disk" -m 1536 -a no_hash_pointers -t 1800 -- U=30000 STARVE=1
			done
		done
	done
fi
# 8. What a hold costs a host that never traces, under instruction counting:
# each kernel family's holder, held against unheld in the same boot.
if has_part hold; then
	for k in $HOLD_KERNELS; do
		# shellcheck disable=SC2086
		FGT_TCG_CPU=$ICOUNT_CPU run "hold-$k" -k "$k" -s bench-hold -I "$ICOUNT" \
			"${ICOUNT_ARGS[@]}" -c 1 -m 2048 -t 3600 -- $HOLD
	done
fi
scale_done() {	# FILE: a finished run with status 0
	[ -s "$1" ] && jq -e 'select(.type == "run") | .status == 0' "$1" 2>/dev/null | grep -q true
}
scale_one() {	# KERNEL U
	local k=$1 u=$2 name mem avail waited=0
	name=scale-$k-$u
	if [ "${BENCH_SCALE_REDO:-0}" != 1 ] && scale_done "$RAW.new/$name.jsonl"; then
		echo "bench: $name: kept from an earlier run (BENCH_SCALE_REDO=1 runs it again)" >&2
		return
	fi
	# The guest's memory: what U parked threads take (about 27 KiB each, measured
	# by the scenario) plus a shadow stack each (4 KiB), over a 768 MiB base.
	mem=$((768 + u * ${BENCH_SCALE_KB:-32} / 1024))
	# Never start a big guest the machine cannot hold right now: others' guests
	# and kernel builds share it. Wait for them (at most BENCH_SCALE_MEM_WAIT s).
	while avail=$(free -m | awk '/^Mem:/ { print $7 }'); [ "$avail" -lt $((mem + 1024)) ]; do
		if [ "$waited" -ge "${BENCH_SCALE_MEM_WAIT:-3600}" ]; then
			echo "bench: $name: needs $mem MiB, $avail available: not run" >&2
			status=1
			return
		fi
		echo "bench: $name: needs $mem MiB + 1 GiB, $avail available: waiting" >&2
		sleep 60
		waited=$((waited + 60))
	done
	RUN_NICE="nice" run "$name" -k "$k" -s bench-scale -m "$mem" -t "${BENCH_SCALE_TIMEOUT:-14400}" -- \
		"U=$u" "MODES=${BENCH_SCALE_MODES:-without with}"
	# Saved at once, so an interrupted part resumes from here.
	mkdir -p "$RAW"
	cp "$RAW.new/$name.jsonl" "$RAW/"
	[ -f "$RAW.new/$name.console.log" ] && cp "$RAW.new/$name.console.log" "$RAW/"
	rm -rf "${tmp:?}/$name"
}
if has_part scale; then
	for u in $SCALE_US; do
		for k in ${BENCH_SCALE_KERNELS:-lab-stock lab-fixed}; do
			scale_one "$k" "$u"
		done
	done
fi

rm -rf "$RAW"
mv "$RAW.new" "$RAW"
"$HERE/report.py" "$OUT" || status=1
if has_part estimate || ls "$RAW"/estimate-*.jsonl > /dev/null 2>&1; then
	"$HERE/estimate.py" "$OUT" || status=1
fi
echo "bench: results in $OUT/results.md" >&2
exit $status
