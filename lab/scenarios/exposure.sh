#!/bin/sh
# exposure ROUNDS="1000 10000" [TRIGGER=tracefs] [FILTER=FUNC]
# The exposure count (fgt-exposure, src/watch/exposure.c) next to the lab's oracle.
# Each round parks N more threads (earlier rounds' stay parked, holding the
# stacks their activation gave them: the walk then goes over them first), then:
#   before  fgt-exposure and fgt-oracle count, back to back;
#   at      fgraphtop -j -i 1 watching (once its interval shows its own
#           count), fgt-exposure once more: the walk the activation is about
#           to make; then TRIGGER on and off, and fgraphtop on until its
#           interval shows a count priced by that walk (or 60 s);
#   after   fgt-exposure and fgt-oracle count again.
# From the second round on the before-scan is calibrated (-c) with the
# previous round's observed walk: sweeps, walk_ns, and the visits its
# at-scan modelled.
# Results, per round and phase:
#   {"type":"exposure","round":i,"parked":N,"phase":P,"scan":{...},"oracle":{...}}
# and fgraphtop's records ({"type":"fgt","name":"act<i>","rec":...}).
# Exit 0 when every step ran, 3 when the kernel lacks TRIGGER, else 1.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh
# shellcheck source=lab/scenarios/tool-lib.sh
. /scenarios/tool-lib.sh

rounds=$(fgt_arg ROUNDS "1000 10000" "$@")
trigger=$(fgt_arg TRIGGER tracefs "$@")
filter=$(fgt_arg FILTER "" "$@")

case " $(fgt_triggers) " in
*" $trigger "*) ;;
*)
	fgt_result "$(fgt_json type exposure supported false trigger "$trigger" \
		release "$(uname -r)")"
	exit 3
	;;
esac

# first "KEY":NUMBER of a JSON line (top-level keys come before per_sweep's)
num() { printf '%s' "$1" | grep -o "\"$2\":[0-9]*" | head -n 1 | cut -d: -f2; }

report() {	# ROUND N PHASE SCAN ORACLE
	fgt_result "$(fgt_json type exposure round "$1" parked "$2" phase "$3" \
		release "$(uname -r)" scan "$4" oracle "${5:-null}")"
}

# wait_interval NAME PATTERN: until fgraphtop NAME prints an interval record
# matching PATTERN (60 s at most)
wait_interval() {
	local n=600
	until grep '"type":"interval"' "$FGT_RUN/fgt-$1.jsonl" | grep -q "$2"; do
		n=$((n - 1))
		[ $n -gt 0 ] || { fgt_log "fgraphtop $1: no interval with $2 in 60 s"; return 1; }
		usleep 100000
	done
}

status=0
calib=
i=1
pids=
for n in $rounds; do
	rm -f "$FGT_RUN/park$i.ready"
	fgt-spawn park -n "$n" -r "$FGT_RUN/park$i.ready" > "$FGT_RUN/park$i.json" &
	pids="$pids $!"
	fgt_wait_file "$FGT_RUN/park$i.ready" 600 || fgt_die "fgt-spawn park $n: not ready"

	scan=$(fgt-exposure ${calib:+-c "$calib"}) || status=1
	oracle=$(fgt-oracle count) || status=1
	report $i "$n" before "$scan" "$oracle"

	fgt_tool_start act$i -i 1 || fgt_die "fgraphtop did not start"
	wait_interval act$i '"exposure":{' || status=1
	scan=$(fgt-exposure) || status=1
	report $i "$n" at "$scan"
	visits=$(num "$scan" visits)
	fgt-trigger ${filter:+-f "$filter"} "$trigger" on > /dev/null || status=1
	sleep 1
	fgt-trigger ${filter:+-f "$filter"} "$trigger" off > /dev/null || status=1
	wait_interval act$i '"cost":"observed"'
	act=$(grep '"type":"activation"' "$FGT_RUN/fgt-act$i.jsonl" | head -n 1)
	fgt_tool_stop act$i || status=1

	scan=$(fgt-exposure) || status=1
	oracle=$(fgt-oracle count) || status=1
	report $i "$n" after "$scan" "$oracle"

	# the next round's estimate: this walk's cost per modelled visit
	calib=
	if [ -n "$act" ] && [ -n "$visits" ]; then
		calib="$(num "$act" sweeps),$(num "$act" walk_ns),$visits"
	fi
	i=$((i + 1))
done
for p in $pids; do
	kill "$p" 2>/dev/null
	wait "$p" 2>/dev/null
done
exit $status
