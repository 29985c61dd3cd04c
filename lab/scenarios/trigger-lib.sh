# shellcheck shell=dash
# The triggers SREs hit, for the tool-* scenarios (sourced after lib.sh):
#   fgt_trig TRIGGER on|off        one of the triggers below, on or off; prints
#                                  one JSON line as fgt-trigger does
#                                  ({"type":"trigger","trigger","action","ok","ns",
#                                  on: "u","threads","first","pid","comm",
#                                  "tracer" (latency), "instance" (perf-*: its
#                                  tracefs instance, "" for the top level); off:
#                                  "snapshot_threads"}); status 0, 1 failed, 3
#                                  unsupported here
#   fgt_trig_supported TRIGGER     0 when this kernel and guest have it
#   fgt_sid BINARY ARGS...         run sid's BINARY (lab/guest/mksid.sh's archive,
#                                  under /sid) chrooted there; exec, so its pid is $$
# FGT_TRIG_FUNC (default bpf_fentry_test1, which nothing calls) limits the
# tracefs ones to one function: the 0->1 walk stays, the minutes of patching
# every call site under TCG go.
#
# Triggers (tracefs, kretmulti and trace-cmd are fgt-trigger's own):
#   bt-kretprobe  sid's bpftrace -e 'kretprobe:vfs_read* { @[func] = count(); }':
#                 one kprobe_multi link with a return handler (an fprobe), held
#                 by bpftrace until "off" sends it SIGINT; a trigger from 6.14
#   bt-probe      bpftrace -e 'kretprobe:vfs_read* { @[probe] = count(); }': the
#                 probe builtin makes bpftrace (0.27) expand the wildcard into one
#                 program and one legacy perf-event kretprobe per function: no
#                 kprobe_multi, no fgraph user, no activation
#   bt-pair       bpftrace with kprobe:vfs_* and kretprobe:vfs_* (many functions):
#                 a kprobe_multi link per side, or one kprobe.session link where
#                 bpftrace merges the two
#   perf-G        perf ftrace -a -G FUNC -T FUNC: function_graph in a tracefs
#                 instance of perf's own (perf-ftrace-XXXXXX; perf 7.2 never
#                 touches the top level; 6.12's and 6.1's trace at the top level). -T alone makes perf pick the function
#                 tracer (no fgraph user), whatever --tracer says
#   perf-graph    perf ftrace -a -G FUNC: the same, every function patched
#   fprobe        dynamic_events: f:fgt/fgtret FUNC%return, enabled; from 6.14
#   profiler      function_profile_enabled (the function profiler on fgraph),
#                 set_ftrace_filter FUNC
#   latency       the first latency tracer of wakeup, wakeup_rt, irqsoff, preemptoff
#                 this kernel has, with options/display-graph on, set_ftrace_filter FUNC
# The u/threads/first of "on" are fgt-oracle count's just before it: the
# trigger's own new threads (bpftrace's, perf's) are not in it, the oracle's
# created count is (tool_check.py allows [u - exited, u + created]).

FGT_TRIG_FUNC=${FGT_TRIG_FUNC:-bpf_fentry_test1}
SID=/sid

fgt_sid_ready() {
	[ -x $SID/usr/bin/bpftrace ] || return 1
	[ -e $SID/proc/self ] && return 0
	# devtmpfs has no /dev/fd: clang (in bpftrace) writes its output to /dev/fd/N
	[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
	[ -e /dev/stdin ] || ln -s /proc/self/fd/0 /dev/stdin
	[ -e /dev/stdout ] || ln -s /proc/self/fd/1 /dev/stdout
	[ -e /dev/stderr ] || ln -s /proc/self/fd/2 /dev/stderr
	mount -o bind /proc $SID/proc &&
		mount -o bind /sys $SID/sys &&
		mount -o bind /dev $SID/dev &&
		mount -o bind /tmp $SID/tmp &&
		mount -o bind /run $SID/run || return 1
	# submounts are not carried by a plain bind
	mount -t tracefs tracefs $SID/sys/kernel/tracing 2>/dev/null
	mount -t debugfs debugfs $SID/sys/kernel/debug 2>/dev/null
	mount -t bpf bpf $SID/sys/fs/bpf 2>/dev/null
	return 0
}

fgt_sid() {
	fgt_sid_ready || { echo "fgt_sid: no sid userland in $SID (FGT_EXTRA_CPIO: lab/guest/mksid.sh)" >&2; return 127; }
	exec chroot $SID "$@"
}

fgt_trig_supported() {
	case $1 in
	tracefs | trace-cmd | kretmulti)
		case " $(fgt_triggers) " in *" $1 "*) return 0 ;; esac
		return 1 ;;
	bt-*) [ "$(fgt_kver)" -ge 614 ] && [ -x $SID/usr/bin/bpftrace ] ;;
	perf-*) fgt_has_tracer function_graph && [ -x $SID/usr/bin/perf ] ;;
	fprobe) [ "$(fgt_kver)" -ge 614 ] && [ -e "$TRACEFS/dynamic_events" ] &&
		grep -qF 'f[:[<group>/][<event>]]' "$TRACEFS/README" 2>/dev/null ;;
	profiler) fgt_has_tracer function_graph && [ -e "$TRACEFS/function_profile_enabled" ] ;;
	latency) fgt_has_tracer function_graph && [ -n "$(fgt_latency_tracer)" ] ;;
	*) return 1 ;;
	esac
}

fgt_latency_tracer() {
	local t
	for t in wakeup wakeup_rt irqsoff preemptoff; do
		fgt_has_tracer $t && { echo $t; return; }
	done
}

fgt_trig_ms() {	# monotonic-ish milliseconds (uptime), for "ns"
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# The BPF link fds PID holds (kprobe_multi ones, or perf-event ones for
# legacy kprobes: bpftrace makes a link for each).
fgt_trig_links() {
	local f n=0
	for f in /proc/"$1"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = anon_inode:bpf_link ] && n=$((n + 1))
	done
	echo $n
}

# Wait until PID holds at least N BPF links and the count settles over 2 s
# (bpftrace attaches a link per probe), at most S seconds; 0 when it does.
fgt_trig_wait_links() {
	local pid=$1 want=$2 n=$3 have last=-1 same=0
	while [ "$n" -gt 0 ]; do
		fgt_alive "$pid" || return 1
		have=$(fgt_trig_links "$pid")
		if [ "$have" -ge "$want" ] && [ "$have" = "$last" ]; then
			same=$((same + 1))
			[ $same -ge 2 ] && return 0
		else
			same=0
		fi
		last=$have
		n=$((n - 1))
		sleep 1
	done
	return 1
}

# A background trigger: its command line in $FGT_RUN/trig-T.cmd, pid in .pid.
fgt_trig_bg() {	# TRIGGER CMD...
	local t=$1
	shift
	# stdin read-write: perf ftrace writes its (unused) workload cork to
	# fd 0 and stops at EBADF on a read-only /dev/null
	( fgt_sid "$@" ) <> /dev/null > "$FGT_RUN/trig-$t.out" 2>&1 &
	echo $! > "$FGT_RUN/trig-$t.pid"
}

fgt_trig_bg_stop() {	# TRIGGER
	local pid
	pid=$(cat "$FGT_RUN/trig-$1.pid" 2>/dev/null) || return 0
	kill -INT "$pid" 2>/dev/null
	# bpftrace prints its maps at SIGINT; perf its buffer
	local n=300
	while fgt_alive "$pid" && [ "$n" -gt 0 ]; do usleep 100000; n=$((n - 1)); done
	fgt_alive "$pid" && kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rm -f "$FGT_RUN/trig-$1.pid"
}

# function_graph in perf ftrace's instance (or at the top level, older perf:
# 6.12's perf still traces there); prints the instance, "" for the top level
fgt_trig_perf_graph() {
	local f
	for f in "$TRACEFS/current_tracer" "$TRACEFS"/instances/perf-ftrace-*/current_tracer; do
		if [ "$(cat "$f" 2>/dev/null)" = function_graph ]; then
			f=${f%/current_tracer}
			[ "$f" = "$TRACEFS" ] || echo "${f##*/}"
			return 0
		fi
	done
	return 1
}

fgt_trig_write() {	# FILE VALUE: one write, its error on stderr
	printf '%s\n' "$2" > "$1"
}

fgt_trig() {
	local t=$1 act=$2 uc='' rc=0 t0 t1 pid='' comm='' err='' snap inst=
	case $t in
	tracefs | trace-cmd | kretmulti)
		fgt-trigger -f "$FGT_TRIG_FUNC" "$t" "$act"
		return ;;
	esac
	if ! fgt_trig_supported "$t"; then
		fgt_json type trigger trigger "$t" action "$act" ok false ns 0 error unsupported
		return 3
	fi
	if [ "$act" = off ]; then
		snap=$(fgt-oracle snapshot)
		case $t in
		bt-* | perf-*) fgt_trig_bg_stop "$t" ;;
		fprobe)
			fgt_trig_write "$TRACEFS/events/fgt/fgtret/enable" 0
			fgt_trig_write "$TRACEFS/dynamic_events" '-:fgt/fgtret' ;;
		profiler)
			fgt_trig_write "$TRACEFS/function_profile_enabled" 0
			: > "$TRACEFS/set_ftrace_filter" ;;
		latency)
			fgt_trig_write "$TRACEFS/current_tracer" nop
			fgt_trig_write "$TRACEFS/options/display-graph" 0
			: > "$TRACEFS/set_ftrace_filter" ;;
		esac
		fgt_json type trigger trigger "$t" action off ok true ns 0 \
			snapshot_threads "$(echo "$snap" | sed -n 's/.*"threads":\([0-9]*\).*/\1/p')"
		return 0
	fi
	uc=$(fgt-oracle count) || { fgt_json type trigger trigger "$t" action on ok false ns 0 error "oracle count"; return 1; }
	t0=$(fgt_trig_ms)
	case $t in
	bt-kretprobe | bt-probe | bt-pair)
		case $t in
		bt-kretprobe) fgt_trig_bg "$t" /usr/bin/bpftrace -e 'kretprobe:vfs_read* { @[func] = count(); }' ;;
		bt-probe) fgt_trig_bg "$t" /usr/bin/bpftrace -e 'kretprobe:vfs_read* { @[probe] = count(); }' ;;
		*) fgt_trig_bg "$t" /usr/bin/bpftrace -e \
			'kprobe:vfs_* { @in[func] = count(); } kretprobe:vfs_* { @out[func] = count(); }' ;;
		esac
		pid=$(cat "$FGT_RUN/trig-$t.pid")
		# LLVM's compile under TCG takes a while before the bpf() that attaches
		fgt_trig_wait_links "$pid" 1 120 || { rc=1; err="bpftrace attached no BPF link: $(tail -c 600 "$FGT_RUN/trig-$t.out")"; }
		;;
	perf-graph | perf-G)
		if [ "$t" = perf-graph ]; then
			fgt_trig_bg "$t" /usr/bin/perf ftrace -a -G "$FGT_TRIG_FUNC"
		else
			fgt_trig_bg "$t" /usr/bin/perf ftrace -a -G "$FGT_TRIG_FUNC" -T "$FGT_TRIG_FUNC"
		fi
		pid=$(cat "$FGT_RUN/trig-$t.pid")
		# current_tracer reads under trace_types_lock: it answers once the switch is done
		local n=120
		while ! fgt_trig_perf_graph > /dev/null && [ "$n" -gt 0 ]; do
			fgt_alive "$pid" || break
			sleep 1
			n=$((n - 1))
		done
		inst=$(fgt_trig_perf_graph) ||
			{ rc=1; err="perf ftrace did not set function_graph: $(tail -c 600 "$FGT_RUN/trig-$t.out")"; }
		;;
	fprobe)
		if ! { fgt_trig_write "$TRACEFS/dynamic_events" "f:fgt/fgtret $FGT_TRIG_FUNC%return" &&
			fgt_trig_write "$TRACEFS/events/fgt/fgtret/enable" 1; }; then
			rc=1 err="fprobe event refused"
		fi
		pid=$$ ;;
	profiler)
		if ! { fgt_trig_write "$TRACEFS/set_ftrace_filter" "$FGT_TRIG_FUNC" &&
			fgt_trig_write "$TRACEFS/function_profile_enabled" 1; }; then
			rc=1 err="function profiler refused"
		fi
		pid=$$ ;;
	latency)
		if ! { fgt_trig_write "$TRACEFS/set_ftrace_filter" "$FGT_TRIG_FUNC" &&
			fgt_trig_write "$TRACEFS/options/display-graph" 1 &&
			fgt_trig_write "$TRACEFS/current_tracer" "$(fgt_latency_tracer)"; }; then
			rc=1 err="latency tracer refused"
		fi
		pid=$$ ;;
	esac
	t1=$(fgt_trig_ms)
	comm=$(cat /proc/"$pid"/comm 2>/dev/null)
	fgt_json type trigger trigger "$t" action on ok "$([ $rc = 0 ] && echo true || echo false)" \
		ns "$(((t1 - t0) * 1000000))" \
		u "$(echo "$uc" | sed -n 's/.*"u":\([0-9]*\).*/\1/p')" \
		threads "$(echo "$uc" | sed -n 's/.*"threads":\([0-9]*\).*/\1/p')" \
		first "$(echo "$uc" | sed -n 's/.*"first":\([a-z]*\).*/\1/p')" \
		pid "$pid" comm "$comm" tracer "$([ "$t" = latency ] && fgt_latency_tracer)" \
		instance "$inst" \
		${err:+error "$err"}
	return $rc
}
