# Helpers for the tool-* scenarios (sourced after lib.sh, busybox sh):
#   fgt_tool_start NAME [FGRAPHTOP ARGS...]  run `fgraphtop -j ARGS` in the background,
#                                             wait for its "start" (or "error") line
#   fgt_tool_stop NAME                        SIGINT it, wait, forward each of its JSON
#                                             lines as {"type":"fgt","name":NAME,"rec":LINE}
#                                             (events excepted); exit status in
#                                             {"type":"fgt_exit","name":NAME,"status":N}
#   fgt_failslab_arm TIMES Y|N               fail the next TIMES allocations from the
#                                             fgraph_stack cache; Y spares blocking ones
#                                             (ignore-gfp-wait), N fails them too
#   fgt_failslab_disarm                      stop failing; print how many were left

fgt_tool_start() {
	local name=$1 n=1200
	shift
	fgraphtop -j -i 3600 "$@" > $FGT_RUN/fgt-$name.jsonl 2> $FGT_RUN/fgt-$name.err &
	echo $! > $FGT_RUN/fgt-$name.pid
	while ! grep -q '"type":"\(start\|error\)"' $FGT_RUN/fgt-$name.jsonl 2>/dev/null; do
		n=$((n - 1))
		if [ $n -le 0 ] || ! kill -0 "$(cat $FGT_RUN/fgt-$name.pid)" 2>/dev/null; then
			fgt_log "fgraphtop $name did not start"
			cat $FGT_RUN/fgt-$name.err
			return 1
		fi
		usleep 100000
	done
	grep -q '"type":"start"' $FGT_RUN/fgt-$name.jsonl
}

fgt_tool_stop() {
	local name=$1 pid rc line
	pid=$(cat $FGT_RUN/fgt-$name.pid 2>/dev/null) || return 0
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	rm -f $FGT_RUN/fgt-$name.pid
	while IFS= read -r line; do
		case $line in
		*'"type":"event"'*) continue ;;
		'{'*) fgt_result "{\"type\":\"fgt\",\"name\":\"$name\",\"rec\":$line}" ;;
		esac
	done < $FGT_RUN/fgt-$name.jsonl
	fgt_result "$(fgt_json type fgt_exit name "$name" status "$rc" stderr "$(head -c 2000 $FGT_RUN/fgt-$name.err)")"
	return $rc
}

# The kernel's failslab knobs, pointed at the fgraph_stack cache only (the cache
# must not be merged: boot with slab_nomerge).
FS=/sys/kernel/debug/failslab
SLAB=/sys/kernel/slab/fgraph_stack

fgt_failslab_arm() {
	local times=$1 ignore_gfp_wait=$2

	[ -d $FS ] && [ -d $SLAB ] || fgt_die "no failslab or no fgraph_stack cache"
	# times 0 first: until cache-filter is set, failslab would hit every cache.
	echo 0 > $FS/times
	echo 100 > $FS/probability
	echo 1 > $FS/interval
	echo 0 > $FS/space
	echo "$ignore_gfp_wait" > $FS/ignore-gfp-wait
	echo Y > $FS/cache-filter
	echo 0 > $FS/verbose
	echo 1 > $SLAB/failslab || fgt_die "cannot set $SLAB/failslab (merged cache? boot with slab_nomerge)"
	echo "$times" > $FS/times
}

fgt_failslab_disarm() {
	cat $FS/times
	echo 0 > $SLAB/failslab
	echo 0 > $FS/times
}
