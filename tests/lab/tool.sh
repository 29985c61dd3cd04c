#!/usr/bin/env bash
# Lab test of fgraphtop itself against the lab's oracle (issue 3's "Done when"),
# one guest boot per line of the matrix below; every check is in
# tests/lab/tool_check.py, and every fgraphtop record is checked against
# docs/json.md by tests/json_schema.py.
#
#   tests/lab/tool.sh [-o OUTDIR] [-k KERNEL]...    (default: the whole matrix)
#
# Matrix (about 8 minutes under single-threaded TCG on 2 cores, warm cache):
#   act on all seven kernels, U = 1,000 and 10,000 (tracefs, one traced function:
#     the walk is the same, the minutes of call-site patching are not); on the
#     traceable kernels direct and attributed forced side by side on the same
#     activation and checked against the oracle's BPF counter; on the 7.2 kernels
#     also trace-cmd and kretprobe.multi, for the trigger's name;
#   failslab on lab-fixed: K = 5, 32, 33, 100 non-blocking failures;
#   fork on lab-traceable-fixed (both paths) and lab-stock with F = 7 injected
#     failures, and on debian-6.1 (kmalloc shadow stacks) without.
#   int3 on debian-7.2: fgraphtop --explain then function_graph on/off, 10 times,
#     under fork/exec load: the "Oops: int3" sequence, which must stay clean.
# lab/run.sh runs TCG single-threaded: under multi-threaded TCG any kernel code
# patching (static keys of trace events toggled through tracefs, fentry attach,
# ftrace) can leave the other vCPU on a stale int3 and crash the guest with
# "Oops: int3"; seen on Debian 6.12 and 7.2 and lab-stock without fgraphtop
# involved, never with one vCPU or with tcg,thread=single (lab/scenarios/tool-int3.sh).
# Environment: FGT_KERNELS as lab/run.sh; FGT_LAB_TOOL_U overrides "1000 10000".
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KSH=${FGT_KERNELS:-$ROOT/lab/kernels.sh}
out='' only=()
while getopts "o:k:" opt; do
	case $opt in
	o) out=$OPTARG ;;
	k) only+=("$OPTARG") ;;
	*) exit 2 ;;
	esac
done
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/fgt-lab-tool.XXXXXX")}
mkdir -p "$out"
us=${FGT_LAB_TOOL_U:-1000 10000}
nus=$(wc -w <<<"$us")	# rounds per kernel
fail=0
note() { echo "tool: $*" >&2; }

want() {	# KERNEL: in the -k list (or no list)
	[ ${#only[@]} -eq 0 ] && return 0
	local k
	for k in "${only[@]}"; do [ "$k" = "$1" ] && return 0; done
	return 1
}

run() {	# NAME KERNEL CHECK "CHECK_OPTS" RUN_OPTS... -- SCENARIO_ARGS...
	local name=$1 k=$2 check=$3 copts=$4
	shift 4
	want "$k" || return 0
	"$KSH" path "$k" > /dev/null 2>&1 || { note "FAIL $name: no kernel $k"; fail=1; return; }
	local t0=$SECONDS rc=0
	FGT_KERNELS=$KSH "$ROOT/lab/run.sh" -k "$k" -o "$out/$name" -t 900 "$@" \
		> /dev/null 2> "$out/$name.log" || rc=$?
	note "$name: status $rc, $((SECONDS - t0)) s"
	# shellcheck disable=SC2086
	if ! python3 "$ROOT/tests/lab/tool_check.py" "$check" "$k" "$out/$name/results.jsonl" \
		$copts > "$out/$name.check" 2>&1; then
		grep -v '^ok' "$out/$name.check" >&2
		fail=1
	else
		grep '^     ' "$out/$name.check" >&2
	fi
	[ "$check" = int3 ] ||	# no fgraphtop records of its own
	python3 "$ROOT/tests/json_schema.py" "$out/$name/results.jsonl" 2>> "$out/$name.check" ||
		{ note "FAIL $name: JSON schema"; tail -5 "$out/$name.check" >&2; fail=1; }
}

rounds() {	# TRIGGERS...: "U:tracefs" for each U, then "100:T" for each extra trigger
	local r='' u t
	for u in $us; do r="$r $u:tracefs"; done
	for t in "$@"; do r="$r 100:$t"; done
	echo "$r"
}

for k in lab-traceable-stock lab-traceable-fixed; do
	run "act-$k" "$k" act "paths=direct:attributed rounds=$nus" -s tool-act -- \
		"ROUNDS=$(rounds)" "PATHS=direct attributed" FILTER=bpf_fentry_test1 EXPLAIN=1
done
for k in debian-7.2 lab-stock; do
	run "act-$k" "$k" act "rounds=$((nus + 2))" -s tool-act -- \
		"ROUNDS=$(rounds trace-cmd kretmulti)" FILTER=bpf_fentry_test1 EXPLAIN=1
done
for k in debian-6.1 debian-6.12 lab-fixed; do
	run "act-$k" "$k" act "rounds=$nus" -s tool-act -- \
		"ROUNDS=$(rounds)" FILTER=bpf_fentry_test1 EXPLAIN=1
done
run failslab-lab-fixed lab-fixed failslab "ks=5:32:33:100" -s tool-failslab -a slab_nomerge -- \
	"KS=5 32 33 100" U=300
run fork-lab-traceable-fixed lab-traceable-fixed fork "m=200 f=7 paths=direct:attributed" \
	-s tool-fork -a slab_nomerge -- M=200 F=7 "PATHS=direct attributed"
run fork-lab-stock lab-stock fork "m=200 f=7" -s tool-fork -a slab_nomerge -- M=200 F=7
run fork-debian-6.1 debian-6.1 fork "m=200 f=0" -s tool-fork -- M=200 F=0
run int3-debian-7.2 debian-7.2 int3 "mode=explain-graph n=10" -s tool-int3 -- \
	MODE=explain-graph N=10

note "runs in $out"
if [ $fail = 0 ]; then note "all passed"; else note "FAILED"; fi
exit $fail
