#!/bin/sh
# tool-fork M=N [F=N] [PATHS="direct attributed"|auto] [FILTER=FUNC] [V=1]
#           [INJECT=cache|stack]
# With fgraph active (tracefs, FILTER), park M new threads: each gets its shadow stack
# on the fork path (ftrace_graph_init_task, GFP_KERNEL). Then, when F > 0 (lab
# kernels: FAILSLAB), make failslab fail the next F shadow-stack allocations
# including blocking ones (ignore-gfp-wait N) and park M more: F of them are left
# without a stack. Which allocations failslab may fail (INJECT):
#   cache  the fgraph_stack cache's (6.13 and later; boot with slab_nomerge);
#   stack  those made with ftrace_graph_init_task on the call stack (stack filter:
#          6.1 and 6.12, whose shadow stacks come from the shared kmalloc
#          caches); ftrace_graph_init_task allocates nothing but the stack.
# One `fgraphtop -j --events` per PATHS entry watches all of it (name PATH, see
# tool-lib.sh); its task_new events are counted in the guest:
#   {"type":"fork_events","name":PATH,"task_new":..,"task_new_nostack":..,
#    "spawn":..,"spawn_nostack":..}  (spawn*: created by fgt-spawn, i.e. the 2M
#    parked threads, since a new task's creator is the spawner's thread)
# Result: {"type":"fork","m":M,"f":F,"created":..,"exited":..,"failslab_left":..}:
# created/exited are the oracle's count of all tasks created/exited while fgraph
# was active (from just after "on" to just before "off"), the parked ones included.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh
# shellcheck source=lab/scenarios/tool-lib.sh
. /scenarios/tool-lib.sh

m=$(fgt_arg M 200 "$@")
f=$(fgt_arg F 0 "$@")
paths=$(fgt_arg PATHS auto "$@")
filter=$(fgt_arg FILTER bpf_fentry_test1 "$@")
verbose=$(fgt_arg V "" "$@")	# V=1: fgraphtop -vv (its stderr comes back in fgt_exit)
inject=$(fgt_arg INJECT cache "$@")
case $inject in
cache | stack) ;;
*) fgt_die "INJECT=$inject: want cache or stack" ;;
esac
mount -t debugfs none /sys/kernel/debug 2>/dev/null
field() { echo "$1" | sed -n "s/.*\"$2\":\([^,}]*\).*/\1/p"; }

status=0
for p in $paths; do
	a=
	[ "$p" = auto ] || a="--path $p"
	# shellcheck disable=SC2086 # a: one word or none
	fgt_tool_start "$p" --events $a ${verbose:+-vv} || status=1
done
fgt-trigger -f "$filter" tracefs on > /dev/null || fgt_die "tracefs on"
fgt-oracle events start || fgt_log "oracle events unavailable"
park() {
	rm -f "$FGT_RUN/park.ready"
	fgt-spawn park -n "$m" -r "$FGT_RUN/park.ready" > /dev/null &
	echo $! >> "$FGT_RUN/parked.pids"
	fgt_wait_file "$FGT_RUN/park.ready" 600 || fgt_die "park $m: not ready"
	sleep 1
}
park
left=0
if [ "$f" -gt 0 ]; then
	# GFP_KERNEL allocations fail too: the fork path's.
	if [ "$inject" = cache ]; then
		fgt_failslab_arm "$f" N
	else
		fgt_failslab_arm_stack "$f" N ftrace_graph_init_task
	fi
	park
	left=$(fgt_failslab_disarm)
fi
ev=$(fgt-oracle events stop)
fgt_result "$(fgt_json type fork m "$m" f "$f" created "$(field "$ev" created)" \
	exited "$(field "$ev" exited)" failslab_left "$left")"
fgt-trigger -f "$filter" tracefs off > /dev/null || status=1
sleep 1
for p in $paths; do
	fgt_tool_stop "$p" || status=1
	j=$FGT_RUN/fgt-$p.jsonl
	tn='"event":"task_new"'
	fgt_result "$(fgt_json type fork_events name "$p" \
		task_new "$(grep -c "$tn" "$j")" \
		task_new_nostack "$(grep "$tn" "$j" | grep -c '"ok":false')" \
		spawn "$(grep "$tn" "$j" | grep -c '"comm":"fgt-spawn"')" \
		spawn_nostack "$(grep "$tn" "$j" | grep '"comm":"fgt-spawn"' | grep -c '"ok":false')")"
done
while read -r p; do kill "$p"; wait "$p"; done < "$FGT_RUN/parked.pids" 2>/dev/null
exit $status
