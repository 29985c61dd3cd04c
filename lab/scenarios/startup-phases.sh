#!/bin/sh
# startup-phases [SECONDS=S] [ARGS="..."] [BIN=fgraphtop-base]
# Where fgraphtop's start-up time and memory go: `fgraphtop -vv` logs each
# start-up phase's time, VmRSS and VmHWM (src/watch/session.c
# fgt_session_phase()). It runs S seconds (default 2) after its start line,
# then SIGINT. Results: one {"type":"phase","what":..,"ms":..,"rss_kib":..,
# "hwm_kib":..} per phase, its static verdict's line, then
# {"type":"phases_end","hwm_kib":..,"rss_kib":..}
# read from /proc/PID/status just before the SIGINT. Exit 1 if it never
# started. BIN: another build of fgraphtop, in an archive of FGT_EXTRA_CPIO
# (as lab/scenarios/bench-fix.sh's base modes), to compare two in one boot.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

secs=$(fgt_arg SECONDS 2 "$@")
args=$(fgt_arg ARGS "" "$@")
bin=$(fgt_arg BIN fgraphtop "$@")
log=$FGT_RUN/phases.log

# shellcheck disable=SC2086 # ARGS: several options
"$bin" -vv -j -i 3600 $args > "$FGT_RUN/phases.out" 2> "$log" &
pid=$!
i=0
until grep -q '"type":"start"' "$FGT_RUN/phases.out" 2> /dev/null; do
	i=$((i + 1))
	if [ $i -gt 600 ] || ! kill -0 $pid 2> /dev/null; then
		fgt_die "fgraphtop did not start: $(tail -n 3 "$log" "$FGT_RUN/phases.out" | tr '\n' ' ')"
	fi
	sleep 0.1
done
sleep "$secs"
kill -0 $pid 2> /dev/null || fgt_die "fgraphtop exited: $(tail -n 3 "$log" "$FGT_RUN/phases.out" | tr '\n' ' ')"
status=$(cat /proc/$pid/status)
kill -INT $pid
wait $pid
# the lines: in JSON mode every message is a JSON line on stdout
sed -n 's/.*start-up: \(.*\): \([0-9.]*\) ms, VmRSS \([0-9-]*\) KiB, VmHWM \([0-9-]*\) KiB.*/\1|\2|\3|\4/p' \
	"$FGT_RUN/phases.out" "$log" |
while IFS='|' read -r what ms rss hwm; do
	fgt_result "$(fgt_json type phase what "$what" ms "$ms" rss_kib "$rss" hwm_kib "$hwm")"
done
# the static verdict it gave, as it printed it
st=$(grep '"type":"static"' "$FGT_RUN/phases.out" | head -n 1)
[ -n "$st" ] && fgt_result "$st"
fgt_result "$(fgt_json type phases_end \
	hwm_kib "$(echo "$status" | sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p')" \
	rss_kib "$(echo "$status" | sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p')")"
