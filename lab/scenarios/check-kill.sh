#!/bin/sh
# check-kill: SIGKILL `fgraphtop check --trigger` at random points, then run it
# again: nothing may be left behind (tracefs instance, tracer, filter, BPF
# link, state file, temporary metrics file). Args: ROUNDS=N (default 8),
# MAX_MS=N kill within 0..N ms of the start (default 5000: under TCG loading
# kallsyms alone takes about a second, so shorter windows miss the trigger);
# MAX_MS=auto first times one whole run and spreads the kills over it (+10 %),
# WAIT=S the runs' --timeout (default 10), PARK=N threads parked by the check.
# AT=KEY instead kills at a deterministic point: as soon as the run's state file
# (/run/fgraphtop/check-PID.state) records KEY (instance: the tracefs instance,
# 6.12 and later; toplevel: the top-level tracer, 6.1), i.e. once the check is
# about to change, or has changed, the tracing state. Such a round fails if the
# killed run never recorded KEY (within AT_WAIT=S, default 60) or left nothing
# for the next run to undo. Each run's process must have started before the
# poll: the state file name carries its pid. HELPER=1 (with AT=instance) kills
# the run at the fork of its mkdir helper instead, a child that outlives a
# killed check (fgt-catch: the fork stop, under ptrace, after the state
# records the instance; no poll, so no race with a quick mkdir): the helper is
# held stopped across the kill and resumed a second into the next run, which
# must wait for it (the lock is the helper's until it ends), then clean up.
# Such a round fails if no helper was caught or the next run did not wait.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

rounds=$(fgt_arg ROUNDS 8 "$@")
park=$(fgt_arg PARK "" "$@")
max_ms=$(fgt_arg MAX_MS 5000 "$@")
wait_s=$(fgt_arg WAIT 10 "$@")
at=$(fgt_arg AT "" "$@")
at_wait=$(fgt_arg AT_WAIT 60 "$@")
helper=$(fgt_arg HELPER 0 "$@")
prom=$FGT_RUN/kill.prom
fails=0

# random delay in busybox sh: 0..MAX_MS-1 ms from /dev/urandom
rand_ms() {
	echo $(( $(od -An -N2 -tu2 /dev/urandom) % max_ms ))
}

# busybox date has no %N: hundredths of a second from /proc/uptime
now_ms() {
	local u
	read -r u _ < /proc/uptime
	# "1$f - 100": the hundredths without a leading 0 (08 is no number)
	echo $(( ${u%.*} * 1000 + (1${u#*.} - 100) * 10 ))
}

if [ "$max_ms" = auto ]; then
	t0=$(now_ms)
	fgraphtop check --trigger --timeout "$wait_s" ${park:+--park $park} > /dev/null 2>&1
	whole=$(( $(now_ms) - t0 ))
	max_ms=$(( whole + whole / 10 + 1 ))
	fgt_result "$(fgt_json type kill-window whole_ms "$whole" max_ms "$max_ms")"
fi
links0=$(fgt-oracle links)

leftovers() {
	# shellcheck disable=SC2012 # our own names, listed for the report
	ls -d $TRACEFS/instances/fgraphtop-check-* /run/fgraphtop/check-*.state \
		/run/fgraphtop/check-*.state.tmp $FGT_RUN/.kill.prom.* 2>/dev/null | tr '\n' ' '
	[ "$(cat $TRACEFS/current_tracer)" = nop ] || printf 'current_tracer=%s ' "$(cat $TRACEFS/current_tracer)"
	grep -q '^#### all functions enabled' $TRACEFS/set_ftrace_filter ||
		printf 'set_ftrace_filter=%s ' "$(head -n1 $TRACEFS/set_ftrace_filter)"
	# an fgraph user left would show as a traced function
	[ -s $TRACEFS/enabled_functions ] && printf 'enabled_functions=%s ' \
		"$(head -n1 $TRACEFS/enabled_functions)"
	# BPF links (a kretprobe.multi trigger's), pinned objects
	l=$(fgt-oracle links)
	[ "$l" = "$links0" ] || printf 'bpf=%s ' "$l"
}

# the next run: with a stopped helper, resumed once the run says (-v) that
# it waits for it, and a second more (how long it takes to get there
# depends on the load, so no fixed delay)
next_run() {
	local npid n=6000
	fgraphtop check --trigger --timeout "$wait_s" --json ${hpid:+-v} > $FGT_RUN/next.out \
		2> $FGT_RUN/next.err &
	npid=$!
	if [ -n "$hpid" ]; then
		while [ $n -gt 0 ] && kill -0 $npid 2>/dev/null &&
			! grep -q 'waiting for its helper' $FGT_RUN/next.err; do
			usleep 10000
			n=$((n - 1))
		done
		sleep 1
		kill -CONT "$hpid"
	fi
	wait $npid
}

# a run killed after MS ms, or (AT=KEY) once its state file records KEY
kill_round() {
	fgraphtop check --trigger --timeout "$wait_s" --prometheus "$prom" ${park:+--park $park} \
		> /dev/null 2>&1 &
	pid=$!
	seen=null
	if [ -n "$at" ]; then
		# poll the state file every 5 ms: the kill lands right after the
		# check recorded KEY (and, one write later, acted on it)
		ms=0 seen=false n=$((at_wait * 200))
		while [ $n -gt 0 ] && kill -0 $pid 2>/dev/null; do
			if grep -q "^$at=" /run/fgraphtop/check-$pid.state 2>/dev/null; then
				seen=true
				break
			fi
			usleep 5000
			n=$((n - 1))
			ms=$((ms + 5))
		done
	else
		usleep $((ms * 1000))
	fi
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	killed_status=$?
}

# a run killed at the fork of its mkdir helper (fgt-catch), the helper stopped
catch_round() {
	local r
	# not through a pipe: the stopped helper holds the check's stdout
	fgt-catch -o $FGT_RUN/catch.json -s /run/fgraphtop -k "$at" -- fgraphtop check --trigger \
		--timeout "$wait_s" --prometheus "$prom" ${park:+--park $park} > /dev/null 2>&1
	r=$(cat $FGT_RUN/catch.json 2>/dev/null)
	pid=$(echo "$r" | sed -n 's/.*"pid":\([0-9]*\).*/\1/p')
	hpid=$(echo "$r" | sed -n 's/.*"helper":\([0-9]*\).*/\1/p')
	killed_status=$(echo "$r" | sed -n 's/.*"status":\([0-9]*\).*/\1/p')
	ms=0 seen=false
	[ -n "$hpid" ] && seen=true
}

i=0
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	ms=$(rand_ms)
	hpid=
	if [ "$helper" = 1 ]; then
		catch_round
	else
		kill_round
	fi
	state=$(grep -v '^#' "/run/fgraphtop/check-$pid.state" 2>/dev/null | tr '\n' ' ')
	before=$(leftovers)
	# the next run cleans up what the killed one left, then answers
	next_run
	status=$?
	out=$(cat $FGT_RUN/next.out)
	# a kill inside the instance mkdir: the next run waited for its helper
	waited=false
	grep -q 'for the instance helper of killed check' $FGT_RUN/next.out && waited=true
	after=$(leftovers)
	ok=true
	[ -z "$after" ] || ok=false
	# a deterministic kill must have hit a run that had changed something
	[ "$seen" != false ] && { [ -z "$at" ] || [ -n "$before" ]; } || ok=false
	[ "$helper" != 1 ] || { [ -n "$hpid" ] && [ $waited = true ]; } || ok=false
	[ $ok = true ] || fails=$((fails + 1))
	case $out in \{*) ;; *) out=null ;; esac
	fgt_result "$(fgt_json type kill round $i at "${at:-random}" state_seen $seen \
		killed_state "$state" killed_after_ms "$ms" killed_status "$killed_status" \
		left_by_killed "$before" left_after_next "$after" next_status $status \
		helper "${hpid:-null}" next_waited $waited ok $ok \
		next "$out")"
done
fgt_result "$(fgt_json type kill-summary rounds "$rounds" failures $fails)"
[ $fails -eq 0 ]
