#!/bin/sh
# tool-int3 MODE=M [N=10] [LOAD=1] [FULL=0] [FILTER=FUNC]
# The "Oops: int3" question (Debian 7.2 under TCG): repeat one code-patching
# sequence N times while LOAD shell loops fork and exec (kmem_cache_alloc from many
# call sites, on every CPU). Modes:
#   explain-graph  fgraphtop --explain (load and attach-test every probe), then
#                  function_graph on and off (FULL=1: every function, else FILTER)
#   graph          function_graph on and off only (no fgraphtop at all)
#   events         the kmem:kmem_cache_alloc trace event on and off, 20 times per
#                  iteration (its static key patched by text_poke; no BPF)
#   fgt-cycle      fgraphtop -j -d 1 (attach the live probes, detach at exit)
#   none           just the load
# A crash shows as the runner's status 125/126 with the splat; a clean run sends
#   {"type":"int3","mode":M,"iterations":N,"done":N}
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

mode=$(fgt_arg MODE explain-graph "$@")
n=$(fgt_arg N 10 "$@")
load=$(fgt_arg LOAD 1 "$@")
full=$(fgt_arg FULL 0 "$@")
filter=$(fgt_arg FILTER bpf_fentry_test1 "$@")
[ "$full" = 1 ] && filter=
EV=$TRACEFS/events/kmem/kmem_cache_alloc/enable

pids=
j=0
while [ "$j" -lt "$load" ]; do
	(while :; do cat /proc/self/stat > /dev/null; done) &
	pids="$pids $!"
	j=$((j + 1))
done
i=0
while [ "$i" -lt "$n" ]; do
	i=$((i + 1))
	case $mode in
	explain-graph)
		fgraphtop --explain > /dev/null 2>&1
		fgt-trigger ${filter:+-f "$filter"} tracefs on > /dev/null
		fgt-trigger ${filter:+-f "$filter"} tracefs off > /dev/null
		;;
	graph)
		fgt-trigger ${filter:+-f "$filter"} tracefs on > /dev/null
		fgt-trigger ${filter:+-f "$filter"} tracefs off > /dev/null
		;;
	events)
		k=0
		while [ "$k" -lt 20 ]; do
			echo 1 > $EV
			echo 0 > $EV
			k=$((k + 1))
		done
		;;
	fgt-cycle)
		fgraphtop -j -d 1 > /dev/null 2>&1
		;;
	none)
		sleep 1
		;;
	esac
	fgt_log "iteration $i done"
done
# shellcheck disable=SC2086 # a list of pids
kill $pids 2>/dev/null
fgt_result "$(fgt_json type int3 mode "$mode" iterations "$n" "done" "$i" load "$load" full "$full")"
