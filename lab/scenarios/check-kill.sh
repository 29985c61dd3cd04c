#!/bin/sh
# check-kill: SIGKILL `fgraphtop check --trigger` at random points, then run it
# again: nothing may be left behind (tracefs instance, tracer, filter, BPF
# link, state file, temporary metrics file). Args: ROUNDS=N (default 8),
# MAX_MS=N kill within 0..N ms of the start (default 5000: under TCG loading
# kallsyms alone takes about a second, so shorter windows miss the trigger),
# WAIT=S the runs' --timeout (default 10), PARK=N threads parked by the check.
. /scenarios/lib.sh

rounds=$(fgt_arg ROUNDS 8 "$@")
park=$(fgt_arg PARK "" "$@")
max_ms=$(fgt_arg MAX_MS 5000 "$@")
wait_s=$(fgt_arg WAIT 10 "$@")
prom=$FGT_RUN/kill.prom
fails=0

# random delay in busybox sh: 0..MAX_MS-1 ms from /dev/urandom
rand_ms() {
	echo $(( $(od -An -N2 -tu2 /dev/urandom) % max_ms ))
}

leftovers() {
	ls -d $TRACEFS/instances/fgraphtop-check-* /run/fgraphtop/check-*.state \
		/run/fgraphtop/check-*.state.tmp $FGT_RUN/.kill.prom.* 2>/dev/null | tr '\n' ' '
	[ "$(cat $TRACEFS/current_tracer)" = nop ] || printf 'current_tracer=%s ' "$(cat $TRACEFS/current_tracer)"
	grep -q '^#### all functions enabled' $TRACEFS/set_ftrace_filter ||
		printf 'set_ftrace_filter=%s ' "$(head -n1 $TRACEFS/set_ftrace_filter)"
	# an fgraph user left would show as a traced function
	[ -s $TRACEFS/enabled_functions ] && printf 'enabled_functions=%s ' \
		"$(head -n1 $TRACEFS/enabled_functions)"
}

i=0
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	ms=$(rand_ms)
	fgraphtop check --trigger --timeout "$wait_s" --prometheus "$prom" ${park:+--park $park} \
		> /dev/null 2>&1 &
	pid=$!
	usleep $((ms * 1000))
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	killed_status=$?
	before=$(leftovers)
	# the next run cleans up what the killed one left, then answers
	out=$(fgraphtop check --trigger --timeout "$wait_s" --json 2>/dev/null)
	status=$?
	after=$(leftovers)
	ok=true
	[ -z "$after" ] || { ok=false; fails=$((fails + 1)); }
	case $out in \{*) ;; *) out=null ;; esac
	fgt_result "$(fgt_json type kill round $i killed_after_ms $ms killed_status $killed_status \
		left_by_killed "$before" left_after_next "$after" next_status $status ok $ok \
		next "$out")"
done
fgt_result "$(fgt_json type kill-summary rounds $rounds failures $fails)"
[ $fails -eq 0 ]
