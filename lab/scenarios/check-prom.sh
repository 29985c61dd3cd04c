#!/bin/sh
# check-prom: `fgraphtop check --trigger` on this kernel, its JSON answer and the
# node_exporter textfile it writes, both sent to the host (lab/fleet-e2e.sh
# feeds the file to a real node_exporter). Args: TIMEOUT=S (default 60);
# MONITOR=1: a live `fgraphtop -j` watches next to the check (its own
# programs on the same hooks), sent as {"type":"monitor",...} when it stops,
# and each activation it recorded (with its per_sweep figures: the gaps the
# walks are told by) as {"type":"fgt","name":"monitor","rec":...}.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

timeout=$(fgt_arg TIMEOUT 60 "$@")
prom=$FGT_RUN/fgraphtop.prom
rm -f "$prom"

mon=
if [ "$(fgt_arg MONITOR 0 "$@")" = 1 ]; then
	fgraphtop -j -i 3600 > "$FGT_RUN/monitor.jsonl" 2>&1 &
	mon=$!
	n=600
	until grep -q '"type":"start"' "$FGT_RUN/monitor.jsonl" 2>/dev/null || [ $n -eq 0 ]; do
		usleep 100000
		n=$((n - 1))
	done
fi
fgraphtop check --trigger --timeout "$timeout" --json --prometheus "$prom" > "$FGT_RUN/check.jsonl"
status=$?
json=$(fgt_last_of check < "$FGT_RUN/check.jsonl")
if [ -n "$mon" ]; then
	kill -INT "$mon"
	wait "$mon"
	fgt_result "$(fgt_json type monitor status $? activations \
		"$(grep -c '"type":"activation"' "$FGT_RUN/monitor.jsonl")" \
		summary "$(grep '"type":"summary"' "$FGT_RUN/monitor.jsonl" | head -n 1)")"
	grep '"type":"activation"' "$FGT_RUN/monitor.jsonl" | fgt_result_json monitor
fi
fgt_log "check exited $status: $json"
case $json in
\{*) fgt_result "$(fgt_json type check status $status answer "$json")" ;;
*) fgt_result "$(fgt_json type check status $status answer null output "$json")" ;;
esac

[ -f "$prom" ] || fgt_die "no textfile written at $prom (status $status)"
# base64, one line: fgt_json would fold the file's newlines
fgt_result "$(fgt_json type prom status $status release "$(uname -r)" \
	textfile_b64 "$(base64 < "$prom" | tr -d '\n')")"
# left behind: nothing (no instance, no tracer, no state, no temp file)
# shellcheck disable=SC2012 # our own names, listed for the report
left=$(ls -d $TRACEFS/instances/fgraphtop-check-* /run/fgraphtop/check-*.state \
	$FGT_RUN/.fgraphtop.prom.* 2>/dev/null | tr '\n' ' ')
fgt_result "$(fgt_json type leftovers files "$left" tracer "$(cat $TRACEFS/current_tracer)")"
[ -z "$left" ] || exit 1
# the check's own status is the answer, not the scenario's failure
exit 0
