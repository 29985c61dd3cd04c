#!/bin/sh
# demo-live [U=N] [TRIGGER=tracefs|trace-cmd|kretmulti] [WAIT=S] [FILTER=FUNC]
#           [EXPLAIN=1] [CHECK=1]
# The `make demo` scenario (lab/demo.sh): park N idle threads, start fgraphtop
# twice (its human output, `--no-screen -i 1`, and `-j` for the comparison
# table), turn fgraph on with TRIGGER (0 -> 1: the walk), wait, turn it off, stop
# both with SIGINT. Results:
#   {"type":"demo_text","line":"..."}   each line fgraphtop prints (human view), live
#   {"type":"fgt","name":"json","rec":{...}}  each of its JSON lines but events
#   {"type":"demo_explain","line":"..."}  with EXPLAIN=1: `fgraphtop --explain`, first
#   {"type":"demo_check","line":"...","status":N}  with CHECK=1: `fgraphtop check
#        --trigger` and `fgraphtop check --trigger --json`, last (threads unparked)
#   {"type":"demo","u":U,"threads":T,"trigger":..,"on_ns":..,"status_text":N,"status_json":N}
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh
. /scenarios/tool-lib.sh

n=$(fgt_arg U 10000 "$@")
trigger=$(fgt_arg TRIGGER tracefs "$@")
wait_s=$(fgt_arg WAIT 2 "$@")
filter=$(fgt_arg FILTER "" "$@")

case " $(fgt_triggers) " in
*" $trigger "*) ;;
*) fgt_die "trigger $trigger: not supported by $(uname -r) (has: $(fgt_triggers))" ;;
esac

if [ "$(fgt_arg EXPLAIN 0 "$@")" = 1 ]; then
	fgraphtop --explain > $FGT_RUN/explain.txt 2>&1
	echo "exit status $?" >> $FGT_RUN/explain.txt
	while IFS= read -r line; do
		fgt_result "$(fgt_json type demo_explain line "$line")" > /dev/null
	done < $FGT_RUN/explain.txt
fi

park=$(fgt_park "$n")
fgt_log "parked: $park"

# The human view: interval summaries once a second, then the final summary,
# each line sent to the host as it is printed (lab/demo.sh shows them live).
rm -f $FGT_RUN/demo.fifo
mkfifo $FGT_RUN/demo.fifo
# Shell builtins only: a fork here would show up in fgraphtop's fork path.
while IFS= read -r line; do
	printf '%s\n' "$line" >> $FGT_RUN/demo.txt
	# busybox ash has ${v//p/r}, which dash (shellcheck's stand-in) has not
	# shellcheck disable=SC3060
	line=${line//\\/\\\\}
	# shellcheck disable=SC3060
	line=${line//\"/\\\"}
	printf '{"type":"demo_text","line":"%s"}\n' "$line" > "$FGT_RESULTS"
done < $FGT_RUN/demo.fifo &
rpid=$!
fgraphtop --no-screen -i 1 > $FGT_RUN/demo.fifo 2>&1 &
tpid=$!
fgt_tool_start json || fgt_die "fgraphtop -j did not start: $(cat $FGT_RUN/fgt-json.err)"
while ! grep -q 'watching' $FGT_RUN/demo.txt 2>/dev/null; do
	kill -0 $tpid 2>/dev/null || break
	usleep 100000
done

on=$(fgt-trigger ${filter:+-f "$filter"} "$trigger" on)
on_rc=$?
fgt_log "on: $on"
sleep "$wait_s"
off=$(fgt-trigger ${filter:+-f "$filter"} "$trigger" off)
fgt_log "off: $off"
sleep 1

kill -INT $tpid 2>/dev/null
wait $tpid
trc=$?
wait $rpid
fgt_tool_stop json
jrc=$?

field() { echo "$1" | sed -n "s/.*\"$2\":\([^,}]*\).*/\1/p"; }
fgt_result "$(fgt_json type demo trigger "$trigger" parked "$(field "$park" threads)" \
	u "$(field "$on" u)" threads "$(field "$on" threads)" on_ns "$(field "$on" ns)" \
	status_text "$trc" status_json "$jrc")"
fgt_unpark
if [ "$(fgt_arg CHECK 0 "$@")" = 1 ]; then
	for a in "" "--json"; do
		fgraphtop check --trigger $a > $FGT_RUN/check.txt 2>&1
		rc=$?
		while IFS= read -r line; do
			fgt_result "$(fgt_json type demo_check args "check --trigger $a" line "$line" status "$rc")" > /dev/null
		done < $FGT_RUN/check.txt
	done
fi
[ $on_rc -eq 0 ] && [ $trc -eq 0 ] && [ $jrc -eq 0 ]
