#!/usr/bin/env bash
# shellcheck disable=SC2317 # its functions run through lab_job (tests/lab/lib.sh)
# Lab test: on each kernel, smoke, then one activation per supported trigger for
# each U, checked against the oracle; ends with the table.
#
#   tests/lab/basic.sh [-o OUTDIR] [KERNEL...]     (default: every kernel that
#                                                   lab/kernels.sh can give now)
# Environment: FGT_LAB_U ("1000"), FGT_LAB_FULL=1 to trace every function (the
# default limits tracing to one cold function: the 0 -> 1 walk is the same, the
# minutes of call-site patching under TCG are not), FGT_KERNELS as lab/run.sh.
# Checks: every run exits 0 (3 = trigger unsupported, skipped) with no splat;
# U >= the threads parked; where the oracle's BPF counter attaches, unfixed
# kernels make max(1, ceil(U/32)) calls, all but the last -EAGAIN, and "fixed"
# kernels one call returning 0. A thread created or exiting between the
# oracle's count and the walk moves ceil(U/32) when U sits on a multiple of
# 32: the bound is taken over U - exited .. U + created (the counts of calls
# and -EAGAIN stay exact against each other).
set -euo pipefail

# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/lib.sh"
lab_opts basic oa "$@"
shift $((OPTIND - 1))

kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
	# x86-64's: the arm64 ones boot with the arm64 build (tests/lab/arm64.sh)
	for k in $("$KSH" list --arch x86_64); do
		"$KSH" path "$k" > /dev/null 2>&1 && kernels+=("$k")
	done
fi
[ ${#kernels[@]} -gt 0 ] || { echo "basic: no kernels (lab/kernels.sh ensure all)" >&2; exit 1; }

filter=bpf_fentry_test1
[ "${FGT_LAB_FULL:-0}" = 1 ] && filter=
fail=0

# True when the run has activation lines and COND holds for all of them.
acts() {	# COND RESULTS
	jq -se "[.[] | select(.type == \"activation\")] | length > 0 and all($1)" "$2" > /dev/null
}
note() { echo "basic: $*" >&2; }
bad() { note "FAIL: $*"; lab_failed; }

run() {	# NAME KERNEL SCENARIO ARGS...
	local dir=$out/$1
	shift
	local k=$1 s=$2
	shift 2
	local rc=0
	FGT_KERNELS=$KSH "$ROOT/lab/run.sh" -k "$k" -s "$s" -o "$dir" -t 600 -- "$@" \
		> /dev/null 2> "$dir.log" || rc=$?
	echo "$rc"
}

# One kernel's smoke and activations, one boot after the other.
activations() {	# KERNEL
	local k=$1 rc triggers t u name f res want
	rc=$(run "$k-smoke" "$k" smoke)
	[ "$rc" = 0 ] || { bad "$k smoke: status $rc"; return; }
	triggers=$(jq -r 'select(.type == "smoke") | .triggers' "$out/$k-smoke/results.jsonl")
	note "$k: triggers: $triggers"
	for t in $triggers; do
		for u in ${FGT_LAB_U:-1000}; do
			name=$k-$t-$u
			# kretmulti has no filter: it attaches to one function anyway.
			f=
			[ "$t" != kretmulti ] && [ -n "$filter" ] && f=FILTER=$filter
			rc=$(run "$name" "$k" activation U="$u" TRIGGER="$t" ${f:+"$f"})
			res=$out/$name/results.jsonl
			[ "$rc" = 3 ] && { note "$name: unsupported"; continue; }
			[ "$rc" = 0 ] || { bad "$name: status $rc (see $out/$name)"; continue; }
			acts '.u >= '"$u" "$res" || bad "$name: U below the threads parked"
			if acts '.oracle.attachable' "$res"; then
				case $k in
				*fixed*) want='.oracle.calls == 1 and .oracle.eagain == 0' ;;
				*) want='.oracle.calls >= ([1, ((.u - (.exited // 0)) / 32 | ceil)] | max) and
					.oracle.calls <= ([1, ((.u + (.created // 0)) / 32 | ceil)] | max) and
					.oracle.eagain == .oracle.calls - 1' ;;
				esac
				acts "$want" "$res" ||
					bad "$name: oracle $(jq -c 'select(.type == "activation") |
						{u, expected_sweeps, calls: .oracle.calls, eagain: .oracle.eagain}' "$res")"
			fi
		done
	done
}

cycles() {	# KERNEL N
	local k=$1 n=$2 name=$1-cycles rc res
	rc=$(run "$name" "$k" activation U=1000 CYCLES="$n" CHURN=10 WAIT=1 \
		${filter:+FILTER=$filter})
	res=$out/$name/results.jsonl
	if [ "$rc" != 0 ]; then
		bad "$name: status $rc (see $out/$name)"
	elif ! jq -se "[.[] | select(.type == \"activation\")] | length == $n and all(.ok)" \
		"$res" > /dev/null; then
		bad "$name: not $n good cycles"
	fi
}

mkdir -p "$out"
for k in "${kernels[@]}"; do
	lab_job activations "$k"
done

# The fixed kernels under stress, and both 6.1 and 6.12 lab kernels (the
# stable backports and what they replace): 20 on/off cycles of function_graph
# while threads are created and reaped (CHURN), every cycle a 0 -> 1 walk
# racing fork and exit. The runner turns any splat into status 126.
cycles=${FGT_LAB_CYCLES:-20}
for k in "${kernels[@]}"; do
	case $k in
	lab-fixed | lab-6.1-* | lab-6.12-*) ;;
	*) continue ;;
	esac
	lab_job cycles "$k" "$cycles"
done
lab_wait || fail=1

"$ROOT/lab/report.sh" "$out"/*/results.jsonl
note "$(find "$out" -mindepth 1 -maxdepth 1 -type d | wc -l) runs in $out"
exit $fail
