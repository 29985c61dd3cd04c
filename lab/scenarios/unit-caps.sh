#!/bin/sh
# unit-caps [SETS="..."] [TIMEOUT=S]
# fgraphtop-check.service's capability set, checked where it matters: on a
# kernel with fgraph. `fgraphtop check --trigger --json` runs first as plain
# root, then once per set under fgt-capbound (bounding, effective and
# permitted sets limited to the set, no_new_privs), as the unit runs it.
# SETS: space-separated comma lists (default: the unit's set, then the unit's
# set less each one of its capabilities).
# Results: {"type":"caps","caps":SET|"root","status":N,"answer":{check's JSON}}
# Exit 0 when every run gave an answer, else 1.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

unit=CAP_BPF,CAP_PERFMON,CAP_SYSLOG
sets=$(fgt_arg SETS "$unit CAP_PERFMON,CAP_SYSLOG CAP_BPF,CAP_SYSLOG CAP_BPF,CAP_PERFMON" "$@")
timeout=$(fgt_arg TIMEOUT 30 "$@")
status=0

run() {	# SET|root
	# (no local: plain sh)
	if [ "$1" = root ]; then
		json=$(fgraphtop check --trigger --json --timeout "$timeout")
	else
		json=$(fgt-capbound "$1" -- fgraphtop check --trigger --json --timeout "$timeout")
	fi
	rc=$?
	fgt_log "$1: status $rc: $json"
	case $json in
	\{*) fgt_result "$(fgt_json type caps caps "$1" status $rc release "$(uname -r)" answer "$json")" ;;
	*) fgt_result "$(fgt_json type caps caps "$1" status $rc release "$(uname -r)" answer null output "$json")"
		status=1 ;;
	esac
}

fgt_log "kptr_restrict $(cat /proc/sys/kernel/kptr_restrict) perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)"
run root
for s in $sets; do
	run "$s"
done
exit $status
