#!/bin/sh
# trig-demo [U=30000] [TRIGGER=bt-kretprobe]: the README's "bpftrace hangs at
# start" walk-through. U parked threads, `fgraphtop --no-screen -i 1` in the
# background, then TRIGGER (trigger-lib.sh) on, held 3 s, off. fgraphtop's
# lines go to the console and, one result each, to the host:
#   {"type":"line","text":...}, then the trigger's own {"type":"trigger",...}
#   and what it printed ({"type":"trigger_out"}).
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh
# shellcheck source=lab/scenarios/trigger-lib.sh
. /scenarios/trigger-lib.sh

u=$(fgt_arg U 30000 "$@")
trigger=$(fgt_arg TRIGGER bt-kretprobe "$@")
fgt_trig_supported "$trigger" || fgt_die "$trigger: not on this kernel or guest"
fgt_park "$u" > /dev/null
fgraphtop --no-screen -i 1 > "$FGT_RUN/lines" 2>&1 &
fgt=$!
sleep 5
t0=$(fgt_trig_ms)
on=$(fgt_trig "$trigger" on)
rc=$?
fgt_log "$trigger on after $(($(fgt_trig_ms) - t0)) ms: $on"
sleep 3
fgraphtop --explain | sed -n '/^Who holds fgraph/,$p' >> "$FGT_RUN/lines"
fgt_trig "$trigger" off > /dev/null
sleep 2
kill -INT $fgt
wait $fgt
while IFS= read -r l; do
	fgt_result "$(fgt_json type line text "$l")"
done < "$FGT_RUN/lines"
fgt_result "$on"
fgt_result "$(fgt_json type trigger_out out "$(tail -c 600 "$FGT_RUN/trig-$trigger.out" 2>/dev/null)")"
fgt_unpark
exit $rc
