#!/bin/sh
# tool-act ROUNDS="U:TRIGGER ..." [PATHS="direct attributed"|auto] [FILTER=FUNC] [WAIT=S]
#          [EXPLAIN=1] [EVENTS=1]
# EXPLAIN=1 first sends `fgraphtop --explain -j`'s plan (fgt name "explain"),
# and after the rounds once more with function_graph on ("explain-on").
# EVENTS=1 runs each fgraphtop with --events and sends, per instance, its
# allocation events counted by kind (tool-lib.sh's fgt_alloc_classes):
#   {"type":"alloc_classes","name":NAME,"classes":[{site,gfp_class,gfp,size,ok,n}...]}
# One round per U:TRIGGER (TRIGGER tracefs|kretmulti|trace-cmd, fgt-trigger's, or one
# of trigger-lib.sh's: bt-kretprobe, bt-pair, perf-graph, perf-G, fprobe, profiler,
# latency; a trigger the kernel or guest lacks gives {"type":"activation",
# "supported":false} and the round is skipped). trigger-lib.sh's are held for
# at least 3 s, so that fgraphtop's holders (read once a second) name them.
# Each round: park U fresh idle threads (the previous round's are reaped), start
# one `fgraphtop -j` per entry of PATHS (auto: no --path; all watch the same
# activation), start the oracle, turn fgraph on with TRIGGER, wait, off, stop all.
# Results: the oracle's {"type":"activation",...} line as lab/scenarios/activation.sh
# writes it, plus "round", then each fgraphtop's lines ({"type":"fgt",...}, see
# tool-lib.sh) with "round" in the name: NAME = PATH-R.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh
# shellcheck source=lab/scenarios/tool-lib.sh
. /scenarios/tool-lib.sh
# shellcheck source=lab/scenarios/trigger-lib.sh
. /scenarios/trigger-lib.sh

paths=$(fgt_arg PATHS auto "$@")
rounds=$(fgt_arg ROUNDS 1000:tracefs "$@")
filter0=$(fgt_arg FILTER "" "$@")
wait_s=$(fgt_arg WAIT 1 "$@")
events=
[ "$(fgt_arg EVENTS 0 "$@")" = 1 ] && events=--events
explain=$(fgt_arg EXPLAIN 0 "$@")
if [ "$explain" = 1 ]; then
	fgraphtop --explain -j | fgt_result_json explain
fi

field() { echo "$1" | sed -n "s/.*\"$2\":\([^,}]*\).*/\1/p"; }
status=0
r=0
for spec in $rounds; do
	r=$((r + 1))
	n=${spec%%:*}
	trigger=${spec#*:}
	filter=$filter0
	[ "$trigger" = kretmulti ] && filter=
	if ! fgt_trig_supported "$trigger"; then
		fgt_result "$(fgt_json type activation round "$r" trigger "$trigger" supported false)"
		continue
	fi
	hold=$wait_s
	case $trigger in
	tracefs | trace-cmd | kretmulti) native=1 ;;
	*) native=0; [ "$hold" -ge 3 ] || hold=3 ;;
	esac
	fgt_unpark
	park=$(fgt_park "$n")
	for p in $paths; do
		a=
		[ "$p" = auto ] || a="--path $p"
		# shellcheck disable=SC2086 # a and events: one word or none
		fgt_tool_start "$p-$r" $a $events || status=1
	done
	fgt_oracle_bpf_start || true
	fgt-oracle events start || fgt_log "oracle events unavailable"
	if [ $native = 1 ]; then
		on=$(fgt-trigger ${filter:+-f "$filter"} "$trigger" on)
	else
		on=$(FGT_TRIG_FUNC=${filter:-bpf_fentry_test1} fgt_trig "$trigger" on)
	fi
	on_rc=$?
	[ $on_rc = 0 ] || fgt_log "$trigger on failed: $on"
	sleep "$hold"
	ev=$(fgt-oracle events stop 2>/dev/null)
	[ -n "$ev" ] || ev='{"created":null,"exited":null}'
	if [ $native = 1 ]; then
		fgt-trigger ${filter:+-f "$filter"} "$trigger" off > /dev/null
	else
		FGT_TRIG_FUNC=${filter:-bpf_fentry_test1} fgt_trig "$trigger" off > /dev/null
	fi
	off_rc=$?
	# what bpftrace or perf printed (its attach count, its maps at SIGINT)
	[ -s "$FGT_RUN/trig-$trigger.out" ] && fgt_result "$(fgt_json type trigger_out round "$r" \
		trigger "$trigger" out "$(tail -c 1500 "$FGT_RUN/trig-$trigger.out")")"
	oracle=$(fgt_oracle_bpf_stop)
	u=$(field "$on" u)
	u=${u:-0}
	exp=$(((u + 31) / 32))
	[ "$exp" -ge 1 ] || exp=1
	fgt_result "$(fgt_json type activation round "$r" trigger "$trigger" supported true \
		parked "$(field "$park" threads)" u "$u" threads "$(field "$on" threads)" \
		expected_sweeps "$exp" \
		ok "$( [ $on_rc -eq 0 ] && [ $off_rc -eq 0 ] && echo true || echo false)" \
		on_ns "$(field "$on" ns)" created "$(field "$ev" created)" \
		trigger_pid "$(field "$on" pid)" trigger_comm "$(field "$on" comm | tr -d '"')" \
		tracer "$(field "$on" tracer | tr -d '"')" instance "$(field "$on" instance | tr -d '"')" \
		exited "$(field "$ev" exited)" oracle "$oracle")"
	[ $on_rc -eq 0 ] && [ $off_rc -eq 0 ] || status=1
	sleep 1
	for p in $paths; do
		fgt_tool_stop "$p-$r" || status=1
		[ -z "$events" ] || fgt_result "$(fgt_json type alloc_classes name "$p-$r" \
			classes "$(fgt_alloc_classes "$FGT_RUN/fgt-$p-$r.jsonl")")"
	done
done
fgt_unpark
# ... and once more with function_graph on (fgt name "explain-on"): the
# ftrace_graph_active it reads from kernel memory must say 1, its holder named.
if [ "$explain" = 1 ]; then
	fgt-trigger -f "${filter0:-bpf_fentry_test1}" tracefs on > /dev/null || status=1
	fgraphtop --explain -j | fgt_result_json explain-on
	fgt-trigger -f "${filter0:-bpf_fentry_test1}" tracefs off > /dev/null || status=1
fi
exit $status
