#!/bin/sh
# activation U=N TRIGGER=tracefs|kretmulti|trace-cmd [WAIT=S] [FILTER=FUNC] [CYCLES=K]
#            [INSTANCE=NAME] [CHURN=J]
# Park N idle threads, then K times: count U (threads without a shadow stack),
# turn fgraph on with TRIGGER, wait, turn it off. FILTER traces one function only
# (same walk, no patching of every call site); INSTANCE uses a tracefs instance
# (tracefs trigger, kernels that allow function_graph there); CHURN=J creates and
# reaps threads, J at a time, throughout (U is then a lower bound at the walk).
# One result line per cycle:
#   {"type":"activation","cycle":i,"trigger":..,"parked":N,"u":U,"threads":T,
#    "expected_sweeps":max(1,ceil(U/32)),"on_ns":..,"off_ns":..,"created":..,
#    "exited":..,"oracle":{calls, eagain, ... } or {"attachable":false}}
# Exit 0 when every trigger worked, 3 when the kernel lacks the trigger, else 1.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

n=$(fgt_arg U 1000 "$@")
trigger=$(fgt_arg TRIGGER tracefs "$@")
wait_s=$(fgt_arg WAIT 1 "$@")
filter=$(fgt_arg FILTER "" "$@")
cycles=$(fgt_arg CYCLES 1 "$@")
instance=$(fgt_arg INSTANCE "" "$@")
churn=$(fgt_arg CHURN 0 "$@")

case " $(fgt_triggers) " in
*" $trigger "*) ;;
*)
	fgt_result "$(fgt_json type activation trigger "$trigger" supported false \
		release "$(uname -r)" triggers "$(fgt_triggers)")"
	exit 3
	;;
esac

park=$(fgt_park "$n")
fgt_log "parked: $park"
[ "$churn" -gt 0 ] && fgt_churn_start 100000 "$churn"
status=0
i=1
while [ "$i" -le "$cycles" ]; do
	fgt_oracle_bpf_start || true
	fgt-oracle events start || fgt_log "oracle events unavailable"
	on=$(fgt-trigger ${filter:+-f "$filter"} ${instance:+-i "$instance"} "$trigger" on)
	on_rc=$?
	fgt_log "on: $on"
	sleep "$wait_s"
	ev=$(fgt-oracle events stop 2>/dev/null)
	[ -n "$ev" ] || ev='{"created":null,"exited":null}'
	off=$(fgt-trigger ${filter:+-f "$filter"} ${instance:+-i "$instance"} "$trigger" off)
	off_rc=$?
	fgt_log "off: $off"
	oracle=$(fgt_oracle_bpf_stop)

	u=$(echo "$on" | sed -n 's/.*"u":\([0-9]*\).*/\1/p')
	u=${u:-0}
	exp=$(((u + 31) / 32))
	[ "$exp" -ge 1 ] || exp=1
	field() { echo "$1" | sed -n "s/.*\"$2\":\([^,}]*\).*/\1/p"; }
	fgt_result "$(fgt_json type activation cycle "$i" trigger "$trigger" \
		filter "$filter" instance "$instance" churn "$churn" parked "$(field "$park" threads)" \
		u "$u" threads "$(field "$on" threads)" first "$(field "$on" first)" \
		expected_sweeps "$exp" \
		ok "$( [ $on_rc -eq 0 ] && [ $off_rc -eq 0 ] && echo true || echo false)" \
		on_ns "$(field "$on" ns)" off_ns "$(field "$off" ns)" \
		created "$(field "$ev" created)" exited "$(field "$ev" exited)" \
		lost "$(field "$ev" lost)" \
		oracle "$oracle" on "$on" off "$off")"
	[ $on_rc -eq 0 ] && [ $off_rc -eq 0 ] || status=1
	i=$((i + 1))
done
if [ "$churn" -gt 0 ]; then
	fgt_result "$(fgt_churn_stop | sed 's/^{/{"type":"churn",/')"
fi
fgt_unpark
exit $status
