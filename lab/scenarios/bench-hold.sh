#!/bin/sh
# bench-hold REPS=R FORK_N=M SWITCH_N=S THREADS=T
# What `fgraphtop hold` costs a host that never traces (make bench's hold
# part). Meant for a guest under instruction counting (lab/run.sh -I, one
# vCPU): guest time is instructions executed, so held and unheld compare to a
# fraction of a percent whatever the host does. Per repetition, unheld and
# held in turn (rotating which goes first), the hold taken with the guest's
# few threads and released after:
#   fork    fgt-load fork M: a fork/exit, and held, a shadow stack at each
#           fork (ftrace_graph_init_task()) and its free at exit;
#   switch  fgt-load switch S: a round trip through two pipes, two context
#           switches, and held, fgraph's sched_switch probe at each;
#   memory  T threads parked: the kernel's unreclaimable slab (SUnreclaim,
#           where shadow stacks are) and MemFree before and after, and the
#           stacks' own cache's objects where it has one (fgraph_stack,
#           6.13 and later), so that the held rise less the unheld one, over
#           T, is what a thread costs held.
# Each mode's block starts from dropped caches, so that held and unheld run
# from the same state whichever goes first.
# Results: {"type":"bench_hold","mode":"unheld"|"held","rep":R,"load":L,
# "result":{fgt-load's JSON}} and, for memory, "result":{"threads":T,
# "memfree_drop_kb":..,"sunreclaim_kb":..,"stack_objs":..|null,
# "stack_objsize":..|null}; {"type":"bench_hold_take","rep":R,"take":{hold -j}}
# (the stack size the hold states for this kernel).
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

reps=$(fgt_arg REPS 5 "$@")
fork_n=$(fgt_arg FORK_N 5000 "$@")
switch_n=$(fgt_arg SWITCH_N 50000 "$@")
threads=$(fgt_arg THREADS 5000 "$@")

[ -d /sys/fs/bpf ] && ! grep -q ' /sys/fs/bpf bpf ' /proc/mounts &&
	mount -t bpf bpf /sys/fs/bpf

fgt_result "$(fgt_json type bench_env release "$(uname -r)" nproc "$(nproc)" \
	loads "$(fgt_json fork "$fork_n" switch "$switch_n" threads "$threads")")"

take() {	# REP: the hold, its record kept
	fgraphtop hold -j > $FGT_RUN/take.json 2>&1 ||
		fgt_die "fgraphtop hold: status $?: $(head -c 1500 $FGT_RUN/take.json)"
	fgt_result "$(fgt_json type bench_hold_take rep "$1" \
		take "$(grep '^{' $FGT_RUN/take.json | tail -n 1)")"
}
release() {
	fgraphtop hold --release -j > $FGT_RUN/release.json 2>&1 ||
		fgt_die "fgraphtop hold --release: status $?: $(head -c 1500 $FGT_RUN/release.json)"
}
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# the stacks' cache: "ACTIVE OBJSIZE", or "" where it has none
stack_cache() { awk '$1 == "fgraph_stack" { print $2, $4 }' /proc/slabinfo 2>/dev/null; }
settle() { sync; echo 3 > /proc/sys/vm/drop_caches; }
# rotate N A B: "A B" for odd N, "B A" for even
rotate() { if [ $(($1 % 2)) = 1 ]; then echo "$2 $3"; else echo "$3 $2"; fi; }

# One discarded warm-up of each load, unheld then held: the first run of a
# code path pays for page faults and, under TCG, translation.
for l in "fork $fork_n" "switch $switch_n"; do
	# shellcheck disable=SC2086 # MODE N
	fgt_result "$(fgt_json type bench_hold_warmup result "$(fgt-load $l)")"
done
take 0
for l in "fork $fork_n" "switch $switch_n"; do
	# shellcheck disable=SC2086
	fgt_result "$(fgt_json type bench_hold_warmup held true result "$(fgt-load $l)")"
done
release

r=1
while [ "$r" -le "$reps" ]; do
	for m in $(rotate "$r" unheld held); do
		[ "$m" = unheld ] || take "$r"
		settle
		for l in "fork $fork_n" "switch $switch_n"; do
			# shellcheck disable=SC2086
			res=$(fgt-load $l) || fgt_die "fgt-load $l failed: $res"
			fgt_result "$(fgt_json type bench_hold mode "$m" rep "$r" load "${l%% *}" result "$res")"
		done
		settle
		f0=$(meminfo MemFree) s0=$(meminfo SUnreclaim) c0=$(stack_cache)
		fgt_park "$threads" > /dev/null
		f1=$(meminfo MemFree) s1=$(meminfo SUnreclaim) c1=$(stack_cache)
		fgt_unpark
		objs=null size=null
		if [ -n "$c0" ] && [ -n "$c1" ]; then
			objs=$((${c1%% *} - ${c0%% *})) size=${c1##* }
		fi
		fgt_result "$(fgt_json type bench_hold mode "$m" rep "$r" load memory \
			result "$(fgt_json threads "$threads" memfree_drop_kb $((f0 - f1)) \
				sunreclaim_kb $((s1 - s0)) stack_objs "$objs" stack_objsize "$size")")"
		[ "$m" = unheld ] || release
		sleep 1
	done
	r=$((r + 1))
done
fgt_log "done"
