#!/bin/sh
# unit-caps [SETS="..."] [TIMEOUT=S]
# fgraphtop-check.service's capability set, checked where it matters: on a
# kernel with fgraph. `fgraphtop check --json` (what the unit runs) and
# `fgraphtop check --trigger --json` (what a drop-in may add) run first as
# plain root, then once each per set under fgt-capbound (bounding, effective
# and permitted sets limited to the set, no_new_privs), as the unit runs them.
# SETS: space-separated comma lists (default: the unit's set, then the unit's
# set less each one of its capabilities).
# Results: {"type":"caps","caps":SET|"root","mode":"check"|"trigger",
#           "status":N,"answer":{check's JSON}}
# Exit 0 when every run gave an answer, else 1.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

unit=CAP_BPF,CAP_PERFMON,CAP_SYSLOG,CAP_SYS_RAWIO
sets=$(fgt_arg SETS "$unit CAP_PERFMON,CAP_SYSLOG,CAP_SYS_RAWIO CAP_BPF,CAP_SYSLOG,CAP_SYS_RAWIO CAP_BPF,CAP_PERFMON,CAP_SYS_RAWIO CAP_BPF,CAP_PERFMON,CAP_SYSLOG" "$@")
timeout=$(fgt_arg TIMEOUT 30 "$@")
status=0

run() {	# SET|root check|trigger
	# (no local: plain sh)
	opts=--json
	[ "$2" = trigger ] && opts="--trigger --json --timeout $timeout"
	if [ "$1" = root ]; then
		# shellcheck disable=SC2086 # opts is a list of options
		fgraphtop check $opts > "$FGT_RUN/caps.jsonl"
	else
		# shellcheck disable=SC2086
		fgt-capbound "$1" -- fgraphtop check $opts > "$FGT_RUN/caps.jsonl"
	fi
	rc=$?
	# check's object (a "lock_wait" warning may come first); else all it said
	json=$(fgt_last_of check < "$FGT_RUN/caps.jsonl")
	[ -n "$json" ] || json=$(cat "$FGT_RUN/caps.jsonl")
	fgt_log "$1 $2: status $rc: $json"
	case $json in
	\{*) fgt_result "$(fgt_json type caps caps "$1" mode "$2" status $rc release "$(uname -r)" answer "$json")" ;;
	*) fgt_result "$(fgt_json type caps caps "$1" mode "$2" status $rc release "$(uname -r)" answer null output "$json")"
		status=1 ;;
	esac
}

fgt_log "kptr_restrict $(cat /proc/sys/kernel/kptr_restrict) perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)"
for m in check trigger; do
	run root $m
	for s in $sets; do
		run "$s" $m
	done
done
exit $status
