#!/bin/sh
# tool-failslab KS="5 32 33 100" [U=N] [FILTER=FUNC] [INJECT=cache|stack] [CACHE=NAME]
# A first activation gives every thread there is a stack (and creates the
# fgraph_stack cache where there is one). Then per K: park U fresh threads (the
# previous K's stay parked, holding their stacks), make failslab fail the next K
# shadow-stack allocations that may not direct-reclaim (GFP_NOWAIT:
# ignore-gfp-wait Y), run `fgraphtop -j` across one activation, turn failslab off.
# Which allocations failslab may fail (INJECT):
#   cache  the fgraph_stack cache's (cache-filter; 6.13 and later, boot with
#          slab_nomerge);
#   stack  those made with the function holding the sweep on the call stack
#          (stack filter, require-start/require-end over it: kernels whose
#          shadow stacks come from the shared kmalloc caches, 6.1 and 6.12).
#          With ignore-gfp-wait, that is the sweep's inline GFP_NOWAIT
#          allocation alone: everything else register_ftrace_graph allocates
#          (the reserve, ret_stack_list, idle-task stacks, ftrace hashes,
#          tracepoint probes) is GFP_KERNEL.
# Results per K, besides fgraphtop's lines (name "k-K", see tool-lib.sh):
#   {"type":"failslab","k":K,"u":U,"inject":..,"objects_before":..,"objects_after":..,
#    "failslab_left":..,"expected_sweeps":1+floor(K/33),"created":..,"exited":..}
# objects_* count the live shadow stacks around the activation:
#   cache  /sys/kernel/slab/fgraph_stack/objects (every stack: sweep, fork, idle);
#   stack  the objects of CACHE (the kmalloc cache the stacks come from; boot with
#          slub_debug=U,CACHE) allocated from the sweep holder, per the slab's
#          own allocation tracking (debugfs slab/CACHE/alloc_traces; before
#          5.14 sysfs' slab/CACHE/alloc_calls, the same lines).
# With no stack-holding thread exiting meanwhile, after - before = the stacks
# handed out: a leaked stack would count too.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh
# shellcheck source=lab/scenarios/tool-lib.sh
. /scenarios/tool-lib.sh

ks=$(fgt_arg KS "5 32 33 100" "$@")
n=$(fgt_arg U 300 "$@")
filter=$(fgt_arg FILTER bpf_fentry_test1 "$@")
inject=$(fgt_arg INJECT cache "$@")
cache=$(fgt_arg CACHE "" "$@")
mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -d "$FS" ] || fgt_die "no $FS (kernel without FAILSLAB debugfs)"
case $inject in
cache) ;;
stack)
	[ -n "$cache" ] || fgt_die "INJECT=stack needs CACHE=NAME (the kmalloc cache of the shadow stacks)"
	TRACES=/sys/kernel/debug/slab/$cache/alloc_traces
	# before 5.14 (no debugfs slab/) the same table is sysfs' alloc_calls
	[ -e "$TRACES" ] || TRACES=/sys/kernel/slab/$cache/alloc_calls
	[ -e "$TRACES" ] || fgt_die "no /sys/kernel/debug/slab/$cache/alloc_traces nor $TRACES (kernel without SLUB_DEBUG and DEBUG_FS?)"
	holder=$(fgt_sweep_holder)
	;;
*) fgt_die "INJECT=$inject: want cache or stack" ;;
esac

# The first activation creates the cache (where there is one).
fgt-trigger -f "$filter" tracefs on > /dev/null || fgt_die "tracefs on"
fgt-trigger -f "$filter" tracefs off > /dev/null || fgt_die "tracefs off"
if [ "$inject" = cache ]; then
	[ -d "$SLAB" ] || fgt_die "no $SLAB after the first activation"
	# Objects in use; shrinking first flushes the per-CPU slabs, whose free
	# objects the count would otherwise include.
	objs() { echo 1 > "$SLAB/shrink"; cut -d' ' -f1 "$SLAB/objects"; }
else
	# Live objects by allocation site ("COUNT SYMBOL+OFF/SIZE age=..", then
	# the stack's frames on lines of their own): the sweep holder's sites.
	objs() { awk -v f="$holder+" 'index($2, f) == 1 { s += $1 } END { print s + 0 }' "$TRACES"; }
	[ "$(objs)" -gt 0 ] ||
		fgt_die "$TRACES has no object from $holder after an activation: boot with slub_debug=U,$cache"
fi

status=0
i=0
for k in $ks; do
	i=$((i + 1))
	# Park U more threads, keeping the earlier ones (their stacks stay allocated).
	rm -f "$FGT_RUN/park.ready"
	fgt-spawn park -n "$n" -r "$FGT_RUN/park.ready" > "$FGT_RUN/park-$i.json" &
	echo $! >> "$FGT_RUN/parked.pids"
	fgt_wait_file "$FGT_RUN/park.ready" 600 || fgt_die "park $n: not ready"
	# Only GFP_NOWAIT allocations fail: the fixed walk's inline ones.
	if [ "$inject" = cache ]; then
		fgt_failslab_arm "$k" Y
	else
		fgt_failslab_arm_stack "$k" Y "$holder"
	fi
	fgt_tool_start "k-$k" || status=1
	before=$(objs)
	fgt-oracle events start || fgt_log "oracle events unavailable"
	on=$(fgt-trigger -f "$filter" tracefs on) || status=1
	sleep 1
	left=$(fgt_failslab_disarm)
	fgt-trigger -f "$filter" tracefs off > /dev/null || status=1
	ev=$(fgt-oracle events stop)
	after=$(objs)
	sleep 1
	u=$(echo "$on" | sed -n 's/.*"u":\([0-9]*\).*/\1/p')
	fgt_result "$(fgt_json type failslab k "$k" u "${u:-0}" inject "$inject" \
		holder "${holder:-}" objects_before "$before" \
		objects_after "$after" failslab_left "$left" expected_sweeps $((1 + k / 33)) \
		created "$(echo "$ev" | sed -n 's/.*"created":\([0-9]*\).*/\1/p')" \
		exited "$(echo "$ev" | sed -n 's/.*"exited":\([0-9]*\).*/\1/p')")"
	fgt_tool_stop "k-$k" || status=1
done
while read -r p; do kill "$p"; wait "$p"; done < "$FGT_RUN/parked.pids" 2>/dev/null
exit $status
