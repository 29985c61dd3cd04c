#!/usr/bin/env bash
# A documented load generator: a CPU hog beside the lab, to show that a test
# gives the same answer on a busy host (issue 38) and to record loaded walks
# for the replays (tests/data) and make bench's hit rate (lab/bench).
#
#   tests/load.sh run [-n CPUS] CMD...   start the hog, run CMD, stop the hog;
#                                        exits with CMD's status
#   tests/load.sh start [-n CPUS]        start it in the background (prints its pid)
#   tests/load.sh stop                   stop the one start started
#
# The hog is Debian's stress-ng (lab/host-deps.sh): `stress-ng --cpu CPUS`
# (default 1), each worker busy on one host CPU at the default priority, so a
# TCG guest (one host thread per guest) shares a core with it. It runs in a
# process group of its own, stopped with SIGTERM then SIGKILL: nothing is
# left behind. start/stop keep its pid in $FGT_LOAD_PIDFILE (default
# ${XDG_RUNTIME_DIR:-/tmp}/fgt-load.$UID.pid).
set -euo pipefail

pidfile=${FGT_LOAD_PIDFILE:-${XDG_RUNTIME_DIR:-/tmp}/fgt-load.$(id -u).pid}
usage() { sed -n '7,10p' "$0" | sed 's/^# *//' >&2; exit 2; }

hog_start() {	# CPUS: the group leader's pid on stdout
	command -v stress-ng > /dev/null ||
		{ echo "load: stress-ng is missing (lab/host-deps.sh installs it)" >&2; exit 1; }
	setsid stress-ng --cpu "$1" --timeout 0 --quiet > /dev/null 2>&1 < /dev/null &
	echo $!
}

hog_stop() {	# PID: its process group, TERM then KILL
	local p=$1 _
	kill -TERM -- "-$p" 2>/dev/null || return 0
	for _ in $(seq 50); do
		kill -0 -- "-$p" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL -- "-$p" 2>/dev/null || true
}

cmd=${1:-}
[ -n "$cmd" ] || usage
shift
n=1
if [ "${1:-}" = -n ]; then
	n=${2:?}
	shift 2
fi
case $cmd in
run)
	[ $# -gt 0 ] || usage
	pid=$(hog_start "$n")
	trap 'hog_stop "$pid"' EXIT
	trap 'exit 130' INT TERM
	echo "load: stress-ng --cpu $n (pid $pid) beside: $*" >&2
	rc=0
	"$@" || rc=$?
	exit $rc
	;;
start)
	if [ -s "$pidfile" ] && kill -0 -- "-$(cat "$pidfile")" 2>/dev/null; then
		echo "load: already running (pid $(cat "$pidfile"))" >&2
		exit 1
	fi
	pid=$(hog_start "$n")
	echo "$pid" > "$pidfile"
	echo "$pid"
	;;
stop)
	[ -s "$pidfile" ] || { echo "load: not running" >&2; exit 0; }
	hog_stop "$(cat "$pidfile")"
	rm -f "$pidfile"
	;;
*)
	usage
	;;
esac
