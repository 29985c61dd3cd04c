#!/bin/sh
# live-screen [U=30000] [COLS=120] [ROWS=50] [SMALL="80 30"] [FILTER=FUNC]
# The live view on a terminal (tests/lab/live.sh checks it): fgraphtop's
# screen on a pseudo-terminal (fgt-pty, from the test's extra archive) with
# `fgraphtop -j -i 1` and `fgraphtop --no-screen -i 1` beside it, through one boot:
#   park U idle threads; function_graph at the top level (the 0->1 step over
#   them: the stall watched); a tracefs instance with function_graph (6.9+); a BPF
#   kretprobe.multi link (6.14+); the terminal resized to SMALL; everything
#   off; function_graph on and off again (a second, small activation); q.
#   Then two short runs stopped by Ctrl-C and by SIGTERM.
# Results:
#   {"type":"pty","run":R,"log":"LINE"}     fgt-pty's log (chunks, sizes, marks, exit)
#   {"type":"pty_raw","run":R,"b64":"..."}  what fgraphtop drew, base64, in order
#   {"type":"fgt","name":"json","rec":{...}}  `fgraphtop -j`'s records
#   {"type":"lines","line":"..."}           `fgraphtop --no-screen`'s lines, stdout and stderr
#   {"type":"explain_holders","line":"..."}  `fgraphtop --explain`'s holders part, first
#   {"type":"fgt","name":"explain","rec":{...}}  `fgraphtop --explain -j`, first
#   {"type":"live","parked":N,"u":U,"on_ns":NS,"kret_pid":P,"triggers":"...",
#    "instance":BOOL}   (instance: function_graph allowed in an instance)
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh
# shellcheck source=lab/scenarios/tool-lib.sh
. /scenarios/tool-lib.sh

n=$(fgt_arg U 30000 "$@")
cols=$(fgt_arg COLS 120 "$@")
rows=$(fgt_arg ROWS 50 "$@")
small=$(fgt_arg SMALL "80 30" "$@")
filter=$(fgt_arg FILTER bpf_fentry_test1 "$@")
triggers=$(fgt_triggers)
inst=false
fgt_instance_graph && inst=true
command -v fgt-pty > /dev/null || fgt_die "no fgt-pty (tests/lab/live.sh adds it)"
mkdir -p /dev/pts
grep -q ' /dev/pts ' /proc/mounts || mount -t devpts devpts /dev/pts || fgt_die "no devpts"

field() { echo "$1" | sed -n "s/.*\"$2\":\([^,}]*\).*/\1/p"; }

# pty_start RUN: fgraphtop -i 1 on a COLSxROWS terminal, its pid in $ptypid
pty_start() {
	rm -f "$FGT_RUN/ctl$1"
	mkfifo "$FGT_RUN/ctl$1"
	fgt-pty -c "$cols" -r "$rows" -o "$FGT_RUN/raw$1" -t "$FGT_RUN/log$1" -C "$FGT_RUN/ctl$1" -- \
		fgraphtop -i 1 &
	ptypid=$!
	exec 3> "$FGT_RUN/ctl$1"
}

# pty_wait TEXT [S]: until the screen has shown TEXT
pty_wait() {
	local i=$((${2:-60} * 10))
	while ! grep -q "$1" "$FGT_RUN/raw$run" 2>/dev/null; do
		i=$((i - 1))
		[ $i -gt 0 ] || { fgt_log "screen never showed '$1'"; return 1; }
		usleep 100000
	done
}

ctl() { echo "$*" >&3; }

# pty_seen TEXT: the rows of the screen's output so far that hold TEXT (each
# frame draws its rows anew: it grows by one a frame that shows it)
pty_seen() { grep -c "$1" "$FGT_RUN/raw$run" 2>/dev/null || true; }

# pty_changed TEXT N: until the screen has drawn TEXT in more than N rows,
# 120 s at most: a step waits for the screen to show the holders it made
# (read by a thread of its own once a second, and late on a loaded host:
# the check judges by order, not by time; issue 38)
pty_changed() {
	local i=1200
	while [ "$(pty_seen "$1")" -le "$2" ]; do
		i=$((i - 1))
		[ $i -gt 0 ] || { fgt_log "screen never showed '$1' again"; return 0; }
		usleep 100000
	done
}

# step NAME: a mark on the screen's timeline and on the console; a step that
# has not moved on for a minute gets every process's kernel stack dumped
step() {
	ctl mark "$1"
	echo "$1" > "$FGT_RUN/step"
	fgt_log "step $1 at $(cut -d' ' -f1 /proc/uptime)"
}

watchdog() {
	local last='' same=0 p
	while sleep 5; do
		cur=$(cat "$FGT_RUN/step" 2>/dev/null)
		if [ "$cur" = "$last" ]; then same=$((same + 5)); else same=0 last=$cur; fi
		[ $same -eq 60 ] || [ $same -eq 70 ] || continue
		fgt_log "step $cur: stuck for 60 s; kernel stacks:"
		for p in /proc/[0-9]*; do
			[ "$(cut -d" " -f3 "$p/stat" 2>/dev/null)" = S ] &&
				[ -z "$(cat "$p/cmdline" 2>/dev/null)" ] && continue
			echo "== ${p#/proc/} $(cat "$p/comm" 2>/dev/null) $(cut -d' ' -f3 "$p/stat" 2>/dev/null)"
			cat "$p/stack" 2>/dev/null
			# fgraphtop's own threads (the holders' reader) too
			[ "$(cat "$p/comm" 2>/dev/null)" = fgraphtop ] || continue
			for t in "$p"/task/*; do
				echo "   -- task ${t##*/} $(cut -d' ' -f3,14,15 "$t/stat" 2>/dev/null)" \
					"syscall $(cat "$t/syscall" 2>/dev/null)"
				cat "$t/stack" 2>/dev/null
			done
		done
	done
}

# pty_send RUN: the log and the raw screen to the host
pty_send() {
	local line
	while IFS= read -r line; do
		fgt_result "$(fgt_json type pty run "$1" log "$line")" > /dev/null
	done < "$FGT_RUN/log$1"
	base64 -w 3000 "$FGT_RUN/raw$1" | while IFS= read -r line; do
		printf '{"type":"pty_raw","run":%d,"b64":"%s"}\n' "$1" "$line" > "$FGT_RESULTS"
	done
}

status=0
# who holds fgraph, as --explain says it (nothing does yet)
fgraphtop --explain > "$FGT_RUN/explain.txt" 2>&1 || status=1
sed -n '/^Who holds fgraph now/,$p' "$FGT_RUN/explain.txt" | while IFS= read -r line; do
	fgt_result "$(fgt_json type explain_holders line "$line")" > /dev/null
done
fgraphtop --explain -j > "$FGT_RUN/explain.jsonl" || status=1
fgt_result_json explain < "$FGT_RUN/explain.jsonl" > /dev/null
watchdog &
wdpid=$!
park=$(fgt_park "$n")
fgt_log "parked: $park"
fgt_tool_start json -i 1 || fgt_die "fgraphtop -j did not start: $(cat "$FGT_RUN/fgt-json.err")"
fgraphtop --no-screen -i 1 > "$FGT_RUN/lines.txt" 2>&1 &
linespid=$!

run=1
pty_start 1
pty_wait "HOLDERS  what keeps" || status=1
sleep 2
step toplevel-on
seen=$(pty_seen "function_graph, the top-level tracer")
on=$(fgt-trigger -f "$filter" tracefs on) || status=1
fgt_log "on: $on"
step toplevel-done
pty_changed "function_graph, the top-level tracer" "$seen"
sleep 3
step instance-on
seen=$(pty_seen "function_graph in tracefs instance live")
[ $inst = false ] || fgt-trigger -f "$filter" -i live tracefs on > /dev/null || status=1
step instance-done
[ $inst = false ] || pty_changed "function_graph in tracefs instance live" "$seen"
sleep 3
kret_pid=0
case " $triggers " in
*" kretmulti "*)
	step kretmulti-on
	seen=$(pty_seen "BPF kretprobe.multi link")
	fgt-trigger kretmulti on > /dev/null || status=1
	kret_pid=$(cat "$FGT_RUN/kretmulti.pid" 2>/dev/null || echo 0)
	step kretmulti-done
	pty_changed "BPF kretprobe.multi link" "$seen"
	sleep 3
	;;
esac
step resize
# shellcheck disable=SC2086  # two words: COLS ROWS
ctl size $small
sleep 3
step all-off
seen=$(pty_seen "none: fgraph is off")
case " $triggers " in
*" kretmulti "*) fgt-trigger kretmulti off > /dev/null || status=1 ;;
esac
[ $inst = false ] || fgt-trigger -f "$filter" -i live tracefs off > /dev/null || status=1
fgt-trigger -f "$filter" tracefs off > /dev/null || status=1
# the three offs take seconds under a loaded TCG host: until the last is
# done, a frame rightly shows those still on
step all-off-done
pty_changed "none: fgraph is off" "$seen"
sleep 4
step second-on
fgt-trigger -f "$filter" tracefs on > /dev/null || status=1
sleep 2
fgt-trigger -f "$filter" tracefs off > /dev/null || status=1
step second-off
sleep 3
step quit
ctl "key q"
wait $ptypid
fgt_log "screen run 1: status $?"
exec 3>&-
fgt_unpark
fgt_tool_stop json || status=1
kill -INT $linespid
wait $linespid
lines_rc=$?

# Ctrl-C (the terminal's SIGINT), then SIGTERM: the terminal given back either way
for run in 2 3; do
	pty_start $run
	pty_wait "HOLDERS  what keeps" 30 || status=1
	step stop
	if [ $run = 2 ]; then ctl 'key \003'; else ctl "signal 15"; fi
	wait $ptypid
	fgt_log "screen run $run: status $?"
	exec 3>&-
done

fgt_result "$(fgt_json type live parked "$(field "$park" threads)" u "$(field "$on" u)" \
	threads "$(field "$on" threads)" on_ns "$(field "$on" ns)" kret_pid "$kret_pid" \
	triggers "$triggers" instance "$inst" cols "$cols" rows "$rows" small "$small" lines_status "$lines_rc")"
while IFS= read -r line; do
	fgt_result "$(fgt_json type lines line "$line")" > /dev/null
done < "$FGT_RUN/lines.txt"
kill $wdpid 2>/dev/null
for run in 1 2 3; do
	pty_send $run
done
exit $status
