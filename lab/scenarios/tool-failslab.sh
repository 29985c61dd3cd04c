#!/bin/sh
# tool-failslab KS="5 32 33 100" [U=N] [FILTER=FUNC]  (boot with slab_nomerge)
# A first activation creates the fgraph_stack cache (its threads keep their stacks).
# Then per K: park U fresh threads (the previous K's stay parked, holding their
# stacks), make failslab fail the next K allocations from fgraph_stack that may not
# direct-reclaim (GFP_NOWAIT: ignore-gfp-wait Y), run `fgraphtop -j` across one
# activation, turn failslab off. Results per K, besides fgraphtop's lines (name
# "k-K", see tool-lib.sh):
#   {"type":"failslab","k":K,"u":U,"objects_before":..,"objects_after":..,
#    "failslab_left":..,"expected_sweeps":1+floor(K/33),"created":..,"exited":..}
# objects_* are /sys/kernel/slab/fgraph_stack/objects around the activation: with
# no stack-holding thread exiting meanwhile, after - before = the stacks handed out.
. /scenarios/lib.sh
. /scenarios/tool-lib.sh

ks=$(fgt_arg KS "5 32 33 100" "$@")
n=$(fgt_arg U 300 "$@")
filter=$(fgt_arg FILTER bpf_fentry_test1 "$@")
mount -t debugfs none /sys/kernel/debug 2>/dev/null
[ -d $FS ] || fgt_die "no $FS (kernel without FAILSLAB debugfs)"

# The first activation creates the cache.
fgt-trigger -f "$filter" tracefs on > /dev/null || fgt_die "tracefs on"
fgt-trigger -f "$filter" tracefs off > /dev/null || fgt_die "tracefs off"
[ -d $SLAB ] || fgt_die "no $SLAB after the first activation"
# Objects in use; shrinking first flushes the per-CPU slabs, whose free objects
# the count would otherwise include.
objs() { echo 1 > $SLAB/shrink; cut -d' ' -f1 $SLAB/objects; }

status=0
i=0
for k in $ks; do
	i=$((i + 1))
	# Park U more threads, keeping the earlier ones (their stacks stay allocated).
	rm -f $FGT_RUN/park.ready
	fgt-spawn park -n "$n" -r $FGT_RUN/park.ready > $FGT_RUN/park-$i.json &
	echo $! >> $FGT_RUN/parked.pids
	fgt_wait_file $FGT_RUN/park.ready 600 || fgt_die "park $n: not ready"
	# Only GFP_NOWAIT allocations fail: the fixed walk's inline ones.
	fgt_failslab_arm "$k" Y
	fgt_tool_start "k-$k" || status=1
	before=$(objs)
	fgt-oracle events start || fgt_log "oracle events unavailable"
	on=$(fgt-trigger -f "$filter" tracefs on) || status=1
	sleep 1
	left=$(fgt_failslab_disarm)
	off=$(fgt-trigger -f "$filter" tracefs off) || status=1
	ev=$(fgt-oracle events stop)
	after=$(objs)
	sleep 1
	u=$(echo "$on" | sed -n 's/.*"u":\([0-9]*\).*/\1/p')
	fgt_result "$(fgt_json type failslab k "$k" u "${u:-0}" objects_before "$before" \
		objects_after "$after" failslab_left "$left" expected_sweeps $((1 + k / 33)) \
		created "$(echo "$ev" | sed -n 's/.*"created":\([0-9]*\).*/\1/p')" \
		exited "$(echo "$ev" | sed -n 's/.*"exited":\([0-9]*\).*/\1/p')")"
	fgt_tool_stop "k-$k" || status=1
done
for p in $(cat $FGT_RUN/parked.pids); do kill "$p"; wait "$p"; done 2>/dev/null
exit $status
