#!/usr/bin/env bash
# Lab test of fgraphtop itself against the lab's oracle, one guest boot per
# line of the matrix below, two at a time (tests/lab/lib.sh: lab_job); every
# check is in
# tests/lab/tool_check.py, and every fgraphtop record is checked against
# docs/json.md by tests/json_schema.py.
#
#   tests/lab/tool.sh [-o OUTDIR] [-k KERNEL]...    (default: the whole matrix but
#                                                 arm64, whose rows run when named)
#
# Matrix (about 8 minutes under single-threaded TCG on 2 cores, warm cache, for
# the seven kernels of 7.x and Debian; the four 6.1/6.12 lab kernels add about 4,
# the 5.10 trio about 4, the 6.12 nopreempt pair about 2):
#   act on all sixteen kernels, U = 1,000 and 10,000 (tracefs, one traced function:
#     the walk is the same, the minutes of call-site patching are not); on the
#     traceable kernels direct and attributed forced side by side on the same
#     activation and checked against the oracle's BPF counter; on the 7.2 kernels
#     also trace-cmd and kretprobe.multi, for the trigger's name; on the 6.1, 6.12
#     and 5.10 lab kernels (the stable backports, lab/patches/fix-*.*) also an odd
#     U, not a multiple of 32, and the allocation events: the sweep's allocator and
#     gfp, against the calls the build found in its machine code (info.json),
#     the two lab-6.12-nopreempt kernels (no PREEMPT_RCU) alike;
#   failslab on lab-fixed, lab-6.1-fixed, lab-6.12-fixed and lab-5.10-fixed: K = 5,
#     32, 33, 100 non-blocking failures (6.1/6.12/5.10: failslab's stack filter over
#     the function holding the sweep, the stacks' kmalloc cache tracked with
#     slub_debug=U);
#   fork on lab-traceable-fixed (both paths), lab-stock and the six 6.1/6.12/5.10
#     lab kernels with F = 7 injected failures, and on debian-6.1 and debian-5.10
#     (kmalloc shadow stacks) without.
#   trig on debian-7.2, lab-stock and lab-fixed: the triggers SREs hit
#     (lab/scenarios/trigger-lib.sh), with Debian sid's bpftrace in the guest
#     (lab/guest/mksid.sh, its archive cached by package versions): bpftrace
#     kretprobe:vfs_read* with @[func] (a kretprobe.multi link), the same with
#     @[probe] (legacy perf-event kretprobes: no activation), a kprobe+kretprobe
#     pair on vfs_* (76 functions), an fprobe event (f:...%return), sid's
#     perf ftrace -G FUNC -T FUNC (function_graph in perf's own tracefs
#     instance), and on the lab kernels the function profiler and a latency
#     tracer with display-graph (Debian's kernels have neither:
#     CONFIG_FUNCTION_PROFILER, CONFIG_SCHED_TRACER); each named (comm, via,
#     stack), counted against the oracle, and its link or event listed in
#     fgraphtop's HOLDERS with its pid and how to end it. About 3 minutes a
#     kernel.
#   trig on debian-6.1 and lab-6.1-stock with bookworm's perf (6.1), on
#     debian-6.12 and lab-6.12-fixed with trixie's (6.12): perf ftrace -G, and
#     on the two lab kernels the function profiler and a latency tracer.
#   shapes (issue 39): act on lab-shape-v1 (U as above, unfixed), on -single,
#     -pinned and -blocking (U = 1,000: their end seen by the walker's leaving); check
#     --trigger on lab-shape-v1, -single, -pinned and -blocking: the activation's
#     own answer, how its sweeps were seen, served against the task iterator's
#     count (tool_check.py trigger). About 4 minutes, the kernels incremental
#     builds on lab-stock.
#   builds (issue 39): act (U = 1,000 and 10,000; the debug pair 1,000) and
#     check --trigger on series 7 built with clang, clang ThinLTO, -Os, and as a
#     debug build (lab-clang-*, lab-lto-*, lab-os-*, lab-debug-*; make
#     test-long's kernels): the activation exact, and the code answered right
#     beside it (static+trigger) on every one.
#   int3 on debian-7.2: fgraphtop --explain then function_graph on/off, 10 times,
#     under fork/exec load: the "Oops: int3" sequence, which must stay clean.
# lab/run.sh runs TCG single-threaded: under multi-threaded TCG any kernel code
# patching (static keys of trace events toggled through tracefs, fentry attach,
# ftrace) can leave the other vCPU on a stale int3 and crash the guest with
# "Oops: int3"; seen on Debian 6.12 and 7.2 and lab-stock without fgraphtop
# involved, never with one vCPU or with tcg,thread=single (lab/scenarios/tool-int3.sh).
# Environment: FGT_KERNELS as lab/run.sh; FGT_LAB_TOOL_U overrides "1000 10000",
# FGT_LAB_TOOL_ODD_U the 6.1/6.12/5.10 lab kernels' odd U (3333 parked threads),
# FGT_LAB_JOBS the guests side by side (default 2).
set -uo pipefail

# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/lib.sh"
lab_opts tool ok "$@"
us=${FGT_LAB_TOOL_U:-1000 10000}
nus=$(wc -w <<<"$us")	# rounds per kernel
fail=0
note() { echo "tool: $*" >&2; }

named() {	# KERNEL: in the -k list
	local k
	for k in "${only[@]}"; do [ "$k" = "$1" ] && return 0; done
	return 1
}

want() {	# KERNEL: in the -k list (or no list)
	[ ${#only[@]} -eq 0 ] || named "$1"
}

# One boot and its checks; a failure is said, and left for lab_wait to count.
# shellcheck disable=SC2317 # called through lab_job
run_one() {	# NAME KERNEL CHECK "CHECK_OPTS" RUN_OPTS... -- SCENARIO_ARGS...
	local name=$1 k=$2 check=$3 copts=$4 fail=0
	shift 4
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
	# int3: no fgraphtop records of its own; trigger: check's answer, a
	# field of the scenario's line (tests/lab/check.sh's ground)
	[ "$check" = int3 ] || [ "$check" = trigger ] ||
	python3 "$ROOT/tests/json_schema.py" "$out/$name/results.jsonl" 2>> "$out/$name.check" ||
		{ note "FAIL $name: JSON schema"; tail -5 "$out/$name.check" >&2; fail=1; }
	[ "$fail" = 0 ] || lab_failed
}

run() {	# as run_one, side by side with the others
	want "$2" || return 0
	"$KSH" path "$2" > /dev/null 2>&1 || { note "FAIL $1: no kernel $2"; lab_failed; return; }
	lab_job run_one "$@"
}

rounds() {	# TRIGGERS...: "U:tracefs" for each U, then "100:T" for each extra trigger
	local r='' u t
	for u in $us; do r="$r $u:tracefs"; done
	for t in "$@"; do r="$r 100:$t"; done
	echo "$r"
}

info_of() {	# KERNEL: its info.json
	echo "$("$KSH" path "$1" 2>/dev/null)/info.json"
}

# The kmalloc cache a kernel's shadow stacks come from: the size of its
# sweep's reserve allocation (info.json, from the machine code: the largest
# call; the other is the 256-byte ret_stack_list), rounded up to a power of
# two and named as mm/slab_common.c does from 1024 up (1600 -> kmalloc-2k).
# The shadow stacks are never small enough for kmalloc-96 or kmalloc-192.
kmalloc_cache() {	# KERNEL
	local s sz=0 c=8
	for s in $(jq -r '.sweep_allocs[].size' "$(info_of "$1")" 2>/dev/null); do
		[[ $s == 0x* ]] && [ $((s)) -gt "$sz" ] && sz=$((s))
	done
	[ "$sz" -gt 0 ] || { echo "kmalloc-unknown"; return; }
	while [ $c -lt "$sz" ]; do c=$((c * 2)); done
	if [ $c -ge 1024 ]; then echo "kmalloc-$((c / 1024))k"; else echo "kmalloc-$c"; fi
}

for k in lab-traceable-stock lab-traceable-fixed; do
	run "act-$k" "$k" act "paths=direct:attributed rounds=$nus" -s tool-act -- \
		"ROUNDS=$(rounds)" "PATHS=direct attributed" FILTER=bpf_fentry_test1 EXPLAIN=1
done
for k in debian-7.2 lab-stock; do
	run "act-$k" "$k" act "rounds=$((nus + 2))" -s tool-act -- \
		"ROUNDS=$(rounds trace-cmd kretmulti)" FILTER=bpf_fentry_test1 EXPLAIN=1
done
# The shapes a fix can take (issue 39; docs/EVENTS.md, "Walks"): v1's (the
# batch of 32 with cond_resched() in the retry loop) walks as the unfixed
# code, live; and on each, check --trigger (1,024 threads parked): its
# activation's own answer, how its sweeps were seen, served against the task
# iterator's count. single, pinned and blocking drop the ret_stack_list:
# the live tool ends their activation when its walker leaves
# register_ftrace_graph() (docs/EVENTS.md), one round of U = 1,000 each
# (fixed=1: one walk, inline; blocking=1: not observable, whatever U).
run act-lab-shape-v1 lab-shape-v1 act "rounds=$nus" -s tool-act -- \
	"ROUNDS=$(rounds)" FILTER=bpf_fentry_test1 EXPLAIN=1
for ks in lab-shape-single:fixed=1 lab-shape-pinned:fixed=1 lab-shape-blocking:blocking=1; do
	IFS=: read -r k o <<<"$ks"
	run "act-$k" "$k" act "rounds=1 $o" -s tool-act -- "ROUNDS=1000:tracefs" \
		FILTER=bpf_fentry_test1 EXPLAIN=1
done
for ks in lab-shape-v1:not_fixed:gaps:batches lab-shape-single:fixed:inline:one \
	lab-shape-pinned:fixed:inline:one lab-shape-blocking:unknown:not_observable:null; do
	IFS=: read -r k a wk sw <<<"$ks"
	run "trigger-$k" "$k" trigger "act=$a walks=$wk sweeps=$sw" -s check-prom -- TIMEOUT=60
done
# The compiler and config builds of series 7 (issue 39): clang, clang with
# ThinLTO, the whole kernel at -Os, the debug build (lockdep, PROVE_RCU,
# KASAN). The activation exact: live, U as above (the debug pair U = 1,000
# only: lockdep and KASAN under TCG make 10,000 quadratic sweeps minutes
# long), and check --trigger's own answer, the code's beside it.
for k in lab-clang-stock lab-clang-fixed lab-lto-stock lab-lto-fixed \
	lab-os-stock lab-os-fixed lab-debug-stock lab-debug-fixed; do
	r=$(rounds) n=$nus
	[[ $k != lab-debug-* ]] || r=1000:tracefs n=1
	run "act-$k" "$k" act "rounds=$n" -s tool-act -- "ROUNDS=$r" \
		FILTER=bpf_fentry_test1 EXPLAIN=1
	case $k in
	*-stock) o="act=not_fixed walks=gaps sweeps=batches" ;;
	*) o="act=fixed walks=inline sweeps=one" ;;
	esac
	run "trigger-$k" "$k" trigger "$o" -s check-prom -- TIMEOUT=120
done
for k in debian-5.10 debian-6.1 debian-6.12 lab-fixed; do
	run "act-$k" "$k" act "rounds=$nus" -s tool-act -- \
		"ROUNDS=$(rounds)" FILTER=bpf_fentry_test1 EXPLAIN=1
done
lts=(lab-6.1-stock lab-6.1-fixed lab-6.12-stock lab-6.12-fixed lab-5.10-stock lab-5.10-fixed)
odd=${FGT_LAB_TOOL_ODD_U:-3333}
# partial=N: round N, the odd U (the last), must end on a partial batch; the
# 6.12 kernels without PREEMPT_RCU get these rounds too (not the fork ones)
for k in "${lts[@]}" lab-6.12-nopreempt-stock lab-6.12-nopreempt-fixed; do
	run "act-$k" "$k" act "rounds=$((nus + 1)) partial=$((nus + 1)) info=$(info_of "$k")" -s tool-act -- \
		"ROUNDS=$(us="$us $odd" rounds)" FILTER=bpf_fentry_test1 EXPLAIN=1 EVENTS=1
done
run failslab-lab-fixed lab-fixed failslab "ks=5:32:33:100" -s tool-failslab -a slab_nomerge -- \
	"KS=5 32 33 100" U=300
for k in lab-6.1-fixed lab-6.12-fixed lab-5.10-fixed; do
	c=$(kmalloc_cache "$k")
	run "failslab-$k" "$k" failslab "ks=5:32:33:100" -s tool-failslab -a "slub_debug=U,$c" -- \
		"KS=5 32 33 100" U=300 INJECT=stack CACHE="$c"
done
run fork-lab-traceable-fixed lab-traceable-fixed fork "m=200 f=7 paths=direct:attributed" \
	-s tool-fork -a slab_nomerge -- M=200 F=7 "PATHS=direct attributed"
run fork-lab-stock lab-stock fork "m=200 f=7" -s tool-fork -a slab_nomerge -- M=200 F=7
for k in "${lts[@]}"; do
	run "fork-$k" "$k" fork "m=200 f=7" -s tool-fork -- M=200 F=7 INJECT=stack
done
for k in debian-6.1 debian-5.10; do
	run "fork-$k" "$k" fork "m=200 f=0" -s tool-fork -- M=200 F=0
done
# The sid userland: built once (mmdebstrap, a few minutes cold), then a hash.
if want debian-7.2 || want lab-stock || want lab-fixed; then
	if sid=$("$ROOT/lab/guest/mksid.sh" 2> "$out/mksid.log"); then
		for k in debian-7.2 lab-stock lab-fixed; do
			# Debian's kernels have no function profiler and no latency
			# tracer; the lab's have both (lab/config/lab.config)
			lack=""
			case $k in debian-*) lack=profiler:latency ;; esac
			FGT_EXTRA_CPIO=$sid run "trig-$k" "$k" act "rounds=7 may_lack=$lack" -s tool-act -- \
				"ROUNDS=1000:bt-kretprobe 1000:bt-probe 1000:bt-pair 1000:fprobe 1000:perf-G 1000:profiler 1000:latency" \
				FILTER=bpf_fentry_test1 EXPLAIN=1
		done
	else
		note "FAIL trig: no sid userland: $(tail -1 "$out/mksid.log")"
		fail=1
	fi
fi
# The 6.1 and 6.12 families: each one's own Debian perf (bookworm's 6.1,
# trixie's 6.12) on Debian's kernel and on a lab kernel of the family, and
# there also the function profiler and a latency tracer. No bpftrace or fprobe
# trigger: kprobe_multi and fprobe are on fgraph from 6.14 only.
for kv in debian-6.1:bookworm lab-6.1-stock:bookworm debian-6.12:trixie lab-6.12-fixed:trixie; do
	k=${kv%%:*} suite=${kv#*:} r="1000:perf-G"
	want "$k" || continue
	case $k in lab-*) r="$r 1000:profiler 1000:latency" ;; esac
	if arc=$("$ROOT/lab/guest/mksid.sh" "$suite" 2> "$out/mksid-$suite.log"); then
		FGT_EXTRA_CPIO=$arc run "trig-$k" "$k" act "rounds=$(wc -w <<<"$r") may_lack=" \
			-s tool-act -- "ROUNDS=$r" FILTER=bpf_fentry_test1 EXPLAIN=1
	else
		note "FAIL trig-$k: no $suite userland: $(tail -1 "$out/mksid-$suite.log")"
		fail=1
	fi
done
run int3-debian-7.2 debian-7.2 int3 "mode=explain-graph n=10" -s tool-int3 -- \
	MODE=explain-graph N=10
# arm64 (issue 23): the five arm64 kernels under qemu-system-aarch64 TCG, with
# the arm64 build (make ARCH=arm64): act as above, kretprobe.multi on the 7.2
# ones (fgraph holds kprobe_multi from 6.14), failslab on lab-arm64-fixed.
# Only when named with -k: tests/lab/arm64.sh names them (make test-lab-arm64).
for k in debian-arm64-6.1 debian-arm64-6.12 debian-arm64-7.2 lab-arm64-stock lab-arm64-fixed; do
	named "$k" || continue
	case $k in
	*-6.1 | *-6.12) r=$(rounds) n=$nus ;;
	*) r=$(rounds kretmulti) n=$((nus + 1)) ;;
	esac
	# Debian's 6.1 arm64 has no CONFIG_KALLSYMS_ALL: ftrace_graph_active has
	# no address, and --explain says it is unknown
	ga=
	[ "$k" = debian-arm64-6.1 ] && ga=" graph_active=unknown"
	run "act-$k" "$k" act "rounds=$n$ga" -s tool-act -- "ROUNDS=$r" FILTER=bpf_fentry_test1 EXPLAIN=1
done
named lab-arm64-fixed &&
	run failslab-lab-arm64-fixed lab-arm64-fixed failslab "ks=5:32:33:100" -s tool-failslab \
		-a slab_nomerge -- "KS=5 32 33 100" U=300

lab_wait || fail=1
note "runs in $out"
if [ $fail = 0 ]; then note "all passed"; else note "FAILED"; fi
exit $fail
