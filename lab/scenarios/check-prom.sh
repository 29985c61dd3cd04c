#!/bin/sh
# check-prom: `fgraphtop check --trigger` on this kernel, its JSON answer and the
# node_exporter textfile it writes, both sent to the host (lab/fleet-e2e.sh
# feeds the file to a real node_exporter). Args: TIMEOUT=S (default 60).
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

timeout=$(fgt_arg TIMEOUT 60 "$@")
prom=$FGT_RUN/fgraphtop.prom
rm -f "$prom"

json=$(fgraphtop check --trigger --timeout "$timeout" --json --prometheus "$prom")
status=$?
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
