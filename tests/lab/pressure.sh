#!/usr/bin/env bash
# Lab test of the memory-pressure scenario (lab/scenarios/pressure.sh): real
# GFP_NOWAIT failures, no failslab. One boot per kernel (lab-fixed's again if
# it met no failure, below), one guest at a time (about 2 minutes each under
# TCG):
#   lab-fixed       the series: non-blocking failures, 1 + floor(K/33)-style
#                   extra sweeps of a 32-stack reserve;
#   lab-fixed-plus  the same pressure, the reserve doubling on each -EAGAIN;
#   lab-fixed again (lab-fixed-check), with `fgraphtop check --trigger` as the
#                   trigger: fixed, status 1, its JSON and textfile exact
#                   (FGT_PRESSURE_CHECK: the kernels given this run, default
#                   lab-fixed).
# kswapd is starved of CPU (the scenario's STARVE=1: kswapd at nice 19 beside
# two busy loops on the other vCPU, as on a host whose CPUs are all busy), so
# the walk meets the min watermark on every boot. FGT_PRESSURE_STARVE=0 runs
# the default instead, where kswapd races the walk and sometimes wins.
# Guests boot with no_hash_pointers: the oracle pairs frees by pointer.
# Checks (tests/lab/pressure_check.py): failures really happened (unstarved, a
# boot of lab-fixed that met none, every count still checked, is booted
# again, FGT_PRESSURE_BOOTS times at most, default 3), no OOM kill,
# fgraphtop's counts equal the oracle's (the kernel's own kmem trace events,
# no BPF) exactly, the verdict is fixed with the degraded evidence, and on
# lab-fixed-plus the walks stay within 1 + log2(K/32 + 1).
#
#   tests/lab/pressure.sh [-o OUTDIR] [-k KERNEL]...
# Environment: FGT_KERNELS as lab/run.sh; FGT_PRESSURE_U (30000), FGT_PRESSURE_STARVE (1),
# FGT_PRESSURE_MEM (guest MiB, 1536), FGT_PRESSURE_ARGS (more scenario args).
set -uo pipefail

# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/lib.sh"
lab_opts pressure ok "$@"
[ ${#only[@]} -gt 0 ] || only=(lab-fixed lab-fixed-plus)
runs=()
for k in "${only[@]}"; do
	runs+=("$k")
	case " ${FGT_PRESSURE_CHECK-lab-fixed} " in *" $k "*) runs+=("$k:check") ;; esac
done
u=${FGT_PRESSURE_U:-30000}
mem=${FGT_PRESSURE_MEM:-1536}
disk=$("$ROOT/lab/guest/mkdisk.sh") || { echo "pressure: no disk image" >&2; exit 1; }
fail=0
boots=${FGT_PRESSURE_BOOTS:-3}
starve=${FGT_PRESSURE_STARVE:-1}
for run in "${runs[@]}"; do
	k=${run%:check} extra=""
	[ "$k" = "$run" ] || extra=CHECK=1
	run=${run/:/-}
	for boot in $(seq "$boots"); do
		t0=$SECONDS rc=0 dir=$out/$run
		[ "$boot" = 1 ] || dir=$out/$run.boot$boot
		# shellcheck disable=SC2086 # FGT_PRESSURE_ARGS: words
		FGT_KERNELS=$KSH "$ROOT/lab/run.sh" -k "$k" -s pressure -m "$mem" -t 900 -d "$disk" \
			-a no_hash_pointers -o "$dir" -- U="$u" STARVE="$starve" $extra \
			${FGT_PRESSURE_ARGS:-} > /dev/null 2> "$dir.log" || rc=$?
		echo "pressure: $run: boot $boot: status $rc, $((SECONDS - t0)) s" >&2
		crc=0
		python3 "$ROOT/tests/lab/pressure_check.py" "$k" "$dir/results.jsonl" > "$dir.check" 2>&1 || crc=$?
		# 3: every check held, but kswapd kept up with this boot's walk
		if [ "$crc" != 3 ] || [ "$boot" -ge "$boots" ]; then
			break
		fi
		grep '^NONE\|^     ' "$dir.check" >&2
		echo "pressure: $run: no GFP_NOWAIT failure on boot $boot: booting again" >&2
	done
	if [ "$crc" = 0 ]; then
		grep '^     ' "$dir.check" >&2
	else
		grep -v '^ok' "$dir.check" >&2
		[ "$crc" != 3 ] || echo "pressure: $run: no GFP_NOWAIT failure in $boots boots" >&2
		fail=1
	fi
	python3 "$ROOT/tests/json_schema.py" "$dir/results.jsonl" > "$dir.schema" 2>&1 || {
		echo "pressure: $run: records off the schema (docs/json.md):" >&2
		tail -n 5 "$dir.schema" >&2
		fail=1
	}
done
[ $fail = 0 ] && echo "pressure: all passed ($out)" >&2
exit $fail
