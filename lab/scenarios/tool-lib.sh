# shellcheck shell=dash
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
#   fgt_failslab_arm_stack TIMES Y|N FUNC    fail the next TIMES slab allocations made
#                                             with FUNC on the call stack (failslab's
#                                             stack filter; kernels whose shadow stacks
#                                             come from the shared kmalloc caches)
#   fgt_failslab_disarm                      stop failing (either way); print how many
#                                             were left
#   fgt_ksym_range FUNC                      "START END" (0x...) of FUNC's text: its
#                                             kallsyms address and the next symbol's
#   fgt_sweep_holder                         alloc_retstack_tasklist where it is out of
#                                             line, else register_ftrace_graph
#   fgt_alloc_classes FILE                   the alloc events of `fgraphtop -j --events`
#                                             output FILE, counted by kind: a JSON array
#                                             of {site,gfp_class,gfp,size,ok,n}

fgt_tool_start() {
	local name=$1 n=1200
	shift
	fgraphtop -j -i 3600 "$@" > "$FGT_RUN/fgt-$name.jsonl" 2> "$FGT_RUN/fgt-$name.err" &
	echo $! > "$FGT_RUN/fgt-$name.pid"
	while ! grep -q '"type":"\(start\|error\)"' "$FGT_RUN/fgt-$name.jsonl" 2>/dev/null; do
		n=$((n - 1))
		if [ $n -le 0 ] || ! kill -0 "$(cat "$FGT_RUN/fgt-$name.pid")" 2>/dev/null; then
			fgt_log "fgraphtop $name did not start"
			cat "$FGT_RUN/fgt-$name.err"
			return 1
		fi
		usleep 100000
	done
	grep -q '"type":"start"' "$FGT_RUN/fgt-$name.jsonl"
}

fgt_tool_stop() {
	local name=$1 pid rc line
	pid=$(cat "$FGT_RUN/fgt-$name.pid" 2>/dev/null) || return 0
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	rm -f "$FGT_RUN/fgt-$name.pid"
	while IFS= read -r line; do
		case $line in
		*'"type":"event"'*) continue ;;
		'{'*) fgt_result "{\"type\":\"fgt\",\"name\":\"$name\",\"rec\":$line}" ;;
		esac
	done < "$FGT_RUN/fgt-$name.jsonl"
	fgt_result "$(fgt_json type fgt_exit name "$name" status "$rc" stderr "$(head -c 2000 "$FGT_RUN/fgt-$name.err")")"
	return $rc
}

# The kernel's failslab knobs, pointed at the fgraph_stack cache only (the cache
# must not be merged: boot with slab_nomerge).
FS=/sys/kernel/debug/failslab
SLAB=/sys/kernel/slab/fgraph_stack

fgt_failslab_arm() {
	local times=$1 ignore_gfp_wait=$2

	if [ ! -d "$FS" ] || [ ! -d "$SLAB" ]; then
		fgt_die "no failslab or no fgraph_stack cache"
	fi
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
	echo 0 > $FS/times
	[ -d $SLAB ] && echo 0 > $SLAB/failslab
	if [ -e $FS/require-start ]; then
		echo 0 > $FS/require-start
		echo 0xffffffffffffffff > $FS/require-end
	fi
	return 0
}

fgt_ksym_range() {
	# /proc/kallsyms lists the kernel's symbols in address order
	awk -v f="$1" 'a && $1 != a { print "0x" a, "0x" $1; exit }
		!a && $3 == f && ($2 == "t" || $2 == "T") { a = $1 }' /proc/kallsyms
}

fgt_sweep_holder() {
	if grep -q ' alloc_retstack_tasklist$' /proc/kallsyms; then
		echo alloc_retstack_tasklist
	else
		echo register_ftrace_graph
	fi
}

# The stack filter: an allocation fails only when some frame of its call
# stack (stacktrace-depth deep) lies in [require-start, require-end).
fgt_failslab_arm_stack() {
	local times=$1 ignore_gfp_wait=$2 range

	[ -d $FS ] || fgt_die "no $FS (kernel without FAILSLAB debugfs)"
	[ -e $FS/require-start ] ||
		fgt_die "no $FS/require-start (kernel without FAULT_INJECTION_STACKTRACE_FILTER)"
	range=$(fgt_ksym_range "$3")
	[ -n "$range" ] || fgt_die "no text range for $3 in /proc/kallsyms"
	echo 0 > $FS/times
	echo 100 > $FS/probability
	echo 1 > $FS/interval
	echo 0 > $FS/space
	echo "$ignore_gfp_wait" > $FS/ignore-gfp-wait
	echo N > $FS/cache-filter
	echo 0 > $FS/verbose
	echo 32 > $FS/stacktrace-depth
	echo "${range% *}" > $FS/require-start
	echo "${range#* }" > $FS/require-end
	echo "$times" > $FS/times
}

fgt_alloc_classes() {
	grep '"event":"alloc"' "$1" |
		sed -n 's/.*"site":"\([a-z]*\)","gfp_class":"\([a-z]*\)","gfp":\([0-9]*\),"size":\([0-9]*\),"ok":\([a-z]*\).*/\1 \2 \3 \4 \5/p' |
		sort | uniq -c |
		awk 'BEGIN { printf "[" }
		{ printf "%s{\"site\":\"%s\",\"gfp_class\":\"%s\",\"gfp\":%s,\"size\":%s,\"ok\":%s,\"n\":%s}",
			(NR > 1 ? "," : ""), $2, $3, $4, $5, $6, $1 }
		END { printf "]" }'
}
