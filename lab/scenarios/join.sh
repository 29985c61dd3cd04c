#!/bin/sh
# join [U=30000] [TRIGGER=tracefs] [AT=1] [FILTER=]
# fgraphtop started during a 0->1 step (tests/lab/join.sh checks it): park U
# idle threads, start TRIGGER (tracefs: function_graph at the top level;
# kretmulti: fgt-trigger's BPF kretprobe.multi link, an fgraph user from
# 6.14; bt-kretprobe: sid's bpftrace -e 'kretprobe:vfs_read* {...}', as an
# SRE runs it, lab/scenarios/trigger-lib.sh) in the background, and AT
# seconds into its walk start, together,
# `fgraphtop -j -i 1`, `fgraphtop --no-screen -i 1`, `fgraphtop check -j`
# and `fgraphtop --explain -j`. Every line they print is stamped with the
# guest's uptime as it is read; their tasks' kernel stacks are sampled
# four times a second, to tell whether a step waited on a lock.
# Nothing forks between the oracle's count and the walk's end but the tools
# (whose threads get their stack from the fork path): the waits are the
# shell's own `read -t`. bpftrace compiles for seconds before its bpf()
# call walks: its walk's start is its first slab allocation from
# register_ftrace_graph (fgt-oracle allocs' tracefs instance, read by the
# shell itself), and the oracle's U the tasks then, counted by the shell's
# own glob of /proc (no fork: each thread there lacks a stack, and nothing
# made after has one to be served).
# Results:
#   {"type":"join_run","trigger":T,"at":S,"t_trigger":UP,"t_walk":UP,"t_tools":UP,
#    "t_trigger_done":UP,"kver":N,"parked":N,"rec":{fgt-trigger's JSON: u, threads, ok;
#    for bt-*: u and threads from the shell's count},
#    "allocs":{fgt-oracle allocs' JSON, bt-* only}}
# AT counts from t_walk, when fgt-trigger made its mark (FGT_TRIGGER_MARK)
# just before the call that walks (bt-*: bpftrace's first allocation from
# register_ftrace_graph), not from the trigger's launch.
#   {"type":"join_line","name":N,"t":UP,"rec":{...}}  a JSON line of tool N
#   {"type":"join_text","name":N,"t":UP,"line":"..."}  a text line of tool N
#   {"type":"join_block","name":N,"t":UP,"stack":"f1<f2<..."}  tool N's main
#       thread seen in mutex_lock or an RCU grace period's wait
#   {"type":"join_exit","name":N,"status":S}
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

n=$(fgt_arg U 30000 "$@")
trig=$(fgt_arg TRIGGER tracefs "$@")
at=$(fgt_arg AT 1 "$@")
filter=$(fgt_arg FILTER '' "$@")
case $trig in
bt-*)
	# shellcheck source=lab/scenarios/trigger-lib.sh
	. /scenarios/trigger-lib.sh
	fgt_trig_supported "$trig" ||
		fgt_die "trigger $trig: needs 6.14 or later and sid's bpftrace (FGT_EXTRA_CPIO: lab/guest/mksid.sh)" ;;
*)
	case " $(fgt_triggers) " in
	*" $trig "*) ;;
	*) fgt_die "trigger $trig: not one this kernel has ($(fgt_triggers))" ;;
	esac ;;
esac

up() { read -r u _ < /proc/uptime; echo "$u"; }
# pause S: no process made (read's timeout on a fifo nobody writes)
mkfifo "$FGT_RUN/never"
exec 4<> "$FGT_RUN/never"
# shellcheck disable=SC3045  # busybox ash's read has -t (dash, shellcheck's model, has not)
pause() { read -r -t "$1" _ <&4; }

# stamp NAME: each line of stdin as a result, with the uptime it was read at
stamp() {
	local l t
	while IFS= read -r l; do
		read -r t _ < /proc/uptime
		case $l in
		'{'*) printf '{"type":"join_line","name":"%s","t":%s,"rec":%s}\n' "$1" "$t" "$l" ;;
		*) printf '{"type":"join_text","name":"%s","t":%s,"line":"%s"}\n' "$1" "$t" \
			"$(fgt_json_str "$l")" ;;
		esac
	done >> "$FGT_RUN/join.jsonl"
}

# blocked: the tools' main threads seen in a mutex or waiting for an RCU
# grace period (names and pids in
# $FGT_RUN/tools); shell builtins only, four times a second
sampler() {
	local p t l s name hit
	while [ ! -e "$FGT_RUN/stop-sampler" ]; do
		while read -r name p; do
			# the main thread: each tool's steps run there
			t=/proc/$p/task/$p
			s='' hit=false
			while read -r l; do
				l=${l#*] }
				l=${l%%+*}
				s="$s${s:+<}$l"
				case $l in *mutex_lock* | *synchronize_*rcu* | wait_rcu_gp) hit=true ;; esac
			done < "$t/stack" 2>/dev/null
			$hit && printf '{"type":"join_block","name":"%s","t":%s,"stack":"%s"}\n' \
				"$name" "$(up)" "$s" >> "$FGT_RUN/join.jsonl"
		done < "$FGT_RUN/tools"
		usleep 250000
	done
}

# walk_started: the oracle's instance has seen a slab allocation from
# register_ftrace_graph (its per-CPU entries), read by the shell itself
walk_started() {
	local f l
	for f in "$TRACEFS"/instances/fgt-join-allocs/per_cpu/cpu*/stats; do
		while read -r l; do
			case $l in
			"entries: 0") ;;
			entries:*) return 0 ;;
			esac
		done < "$f"
	done
	return 1
}

# count_tasks: the tasks now into $tasks, by the shell's own glob (no fork)
count_tasks() {
	local t
	tasks=0
	for t in /proc/[0-9]*/task/[0-9]*; do
		tasks=$((tasks + 1))
	done
}

# bt_start: bpftrace in the background, then wait (without forking) for its
# walk to start; $trigpid, $t_walk and the oracle's U into trigger.json
bt_start() {
	local n=0
	fgt-oracle allocs start -i fgt-join-allocs > /dev/null || fgt_die "fgt-oracle allocs start"
	fgt_trig_bg "$trig" /usr/bin/bpftrace -e 'kretprobe:vfs_read* { @[func] = count(); }'
	trigpid=$(cat "$FGT_RUN/trig-$trig.pid")
	# LLVM under TCG: tens of seconds before the bpf() that walks
	while ! walk_started; do
		fgt_alive "$trigpid" || fgt_die "bpftrace exited before its walk: $(tail -c 600 "$FGT_RUN/trig-$trig.out")"
		n=$((n + 1))
		[ $n -lt 30000 ] || fgt_die "bpftrace's walk did not start in 10 minutes"
		usleep 20000
	done
	count_tasks
	t_walk=$(up)
	printf '{"u":%d,"threads":%d,"ok":true,"t_walk":%s}\n' "$tasks" "$tasks" "$t_walk" \
		> "$FGT_RUN/trigger.json"
}

# bt_wait: the walk is over once bpftrace holds its BPF link
bt_wait() {
	fgt_trig_wait_links "$trigpid" 1 1200
}

# tool_of PID: which of the four a fgraphtop is, by its arguments
tool_of() {
	local a
	a=$(tr '\0' ' ' < "/proc/$1/cmdline" 2>/dev/null)
	case $a in
	*" check"*) echo check ;;
	*--explain*) echo explain ;;
	*--no-screen*) echo lines ;;
	*) echo live ;;
	esac
}

[ -z "$filter" ] || [ "$trig" != tracefs ] || echo "$filter" > "$TRACEFS/set_ftrace_filter"
park=$(fgt_park "$n")
fgt_log "parked: $park"
: > "$FGT_RUN/join.jsonl"
: > "$FGT_RUN/tools"

t_trig=$(up)
case $trig in
bt-*)
	bt_start ;;
*)
	FGT_TRIGGER_MARK=$FGT_RUN/walking fgt-trigger "$trig" on > "$FGT_RUN/trigger.json" 2>&1 &
	trigpid=$!
	# AT seconds into the walk, not after the trigger's launch: on a loaded
	# host fgt-trigger counted its 30,000 threads for seconds before its
	# write, and the tools, started before the walk, rightly found no step
	# (2026-12-07). fgt-trigger makes the mark just before the call that walks.
	if ! fgt_wait_file "$FGT_RUN/walking" 600 $trigpid && fgt_alive $trigpid; then
		fgt_die "the trigger's walk did not start in 10 minutes"
	fi
	t_walk=$(up) ;;
esac
pause "$at"
t_tools=$(up)
(fgraphtop -j -i 1 2>&1 | stamp live) &
(fgraphtop --no-screen -i 1 2>&1 | stamp lines) &
(fgraphtop check -j 2>&1; echo "{\"type\":\"exit\",\"status\":$?}") | stamp check &
checkpid=$!
(fgraphtop --explain -j 2>&1; echo "{\"type\":\"exit\",\"status\":$?}") | stamp explain &
explainpid=$!
usleep 300000
for p in $(pidof fgraphtop); do
	echo "$(tool_of "$p") $p" >> "$FGT_RUN/tools"
done
sampler &
sampid=$!
case $trig in
bt-*) bt_wait ;;
*) wait "$trigpid" ;;
esac
trig_rc=$?
t_done=$(up)
fgt_log "trigger: $(cat "$FGT_RUN/trigger.json") (status $trig_rc)"
wait $checkpid $explainpid
# the walk is over; the live views go on until their deferred probes are on
pause 5
for p in $(pidof fgraphtop); do kill -INT "$p" 2>/dev/null; done
pause 3
: > "$FGT_RUN/stop-sampler"
wait $sampid
# bpftrace runs until its SIGINT: stopped before the wait for every job
allocs=null
case $trig in
bt-*)
	fgt_trig_bg_stop "$trig"
	allocs=$(fgt-oracle allocs stop -i fgt-join-allocs) || allocs=null ;;
esac
wait
fgt_result "$(fgt_json type join_run trigger "$trig" at "$at" t_trigger "$t_trig" \
	t_walk "$t_walk" t_tools "$t_tools" t_trigger_done "$t_done" kver "$(fgt_kver)" \
	parked "$park" trigger_status "$trig_rc" rec "$(head -1 "$FGT_RUN/trigger.json")" \
	allocs "$allocs")" > /dev/null
while IFS= read -r line; do
	printf '%s\n' "$line" > "$FGT_RESULTS"
done < "$FGT_RUN/join.jsonl"
case $trig in
bt-*) ;;
*) fgt-trigger "$trig" off > /dev/null 2>&1 ;;
esac
fgt_unpark
exit 0
