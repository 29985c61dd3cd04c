# Scenario helpers, sourced by lab/scenarios/*.sh inside the guest (busybox sh).
#   fgt_result JSON              send one JSON line to the host (results.jsonl)
#   fgt_json k v [k v]...        print a JSON object; numbers, true/false/null and
#                                values starting with { or [ are kept raw
#   fgt_log MSG                  a line on the console, prefixed with the scenario
#   fgt_die MSG                  log, send {"type":"error"}, exit 1
#   fgt_arg NAME DEFAULT "$@"    value of NAME=VALUE among the scenario's arguments
#   fgt_has_tracer NAME          function_graph & co in available_tracers
#   fgt_kver                     kernel version as one integer, 6.14 -> 614
#   fgt_triggers                 the triggers this kernel supports, space-separated
#   fgt_park N                   park N idle threads (fgt-spawn), wait until parked
#   fgt_unpark                   let them go
#   fgt_churn_start SECONDS [J]  create and reap threads in the background
#   fgt_churn_stop               stop it; prints its JSON
#   fgt_oracle_bpf_start         start the BPF counter on alloc_retstack_tasklist
#                                (only where attachable; returns 1 otherwise)
#   fgt_oracle_bpf_stop          stop it; prints its JSON (or {"attachable":false})
#   fgt_wait_file FILE [SECONDS [PID]]  wait until FILE exists (status 1: SECONDS
#                                passed, or PID ended first)
#   fgt_alive PID                PID runs: not gone, not a zombie

TRACEFS=/sys/kernel/tracing
[ -d $TRACEFS/events ] || TRACEFS=/sys/kernel/debug/tracing
export TRACEFS
FGT_NAME=${FGT_NAME:-$(basename "$0" .sh)}
FGT_RESULTS=${FGT_RESULTS:-/dev/ttyS1}
FGT_RUN=/run/fgt
mkdir -p $FGT_RUN

fgt_result() {
	printf '%s\n' "$*" > "$FGT_RESULTS"
	echo "$FGT_NAME: result $*"
}

# fgt_result_json NAME: each JSON line of fgraphtop's on stdin as a result,
# {"type":"fgt","name":NAME,"rec":LINE}: one run may print more than one
# (--explain -j's "lock_wait" warning before its plan, on a slow guest)
fgt_result_json() {
	local line
	while IFS= read -r line; do
		[ -n "$line" ] && fgt_result "{\"type\":\"fgt\",\"name\":\"$1\",\"rec\":$line}"
	done
	return 0
}

# fgt_last_of TYPE: the last JSON line of that type on stdin (check -j's
# object, --explain -j's plan: a "lock_wait" warning may come before it)
fgt_last_of() {
	local line last=
	while IFS= read -r line; do
		case $line in *"\"type\":\"$1\""*) last=$line ;; esac
	done
	printf '%s' "$last"
}

fgt_log() {
	echo "$FGT_NAME: $*"
}

fgt_json_str() {
	printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | tr '\n\t' '  '
}

fgt_json() {
	local out='' sep='' k v
	while [ $# -ge 2 ]; do
		k=$1 v=$2
		shift 2
		case $v in
		true | false | null | \{* | \[*) ;;
		*)
			if ! printf '%s' "$v" | grep -Eq '^-?(0|[1-9][0-9]*)(\.[0-9]+)?$'; then
				v="\"$(fgt_json_str "$v")\""
			fi
			;;
		esac
		out="$out$sep\"$k\":$v"
		sep=,
	done
	printf '{%s}\n' "$out"
}

fgt_die() {
	fgt_log "error: $*"
	fgt_result "$(fgt_json type error scenario "$FGT_NAME" message "$*")"
	exit 1
}

fgt_arg() {
	local name=$1 def=$2 a
	shift 2
	for a in "$@"; do
		case $a in
		"$name"=*) echo "${a#*=}"; return ;;
		esac
	done
	echo "$def"
}

fgt_wait_file() {
	local f=$1 n=$((${2:-60} * 10)) pid=${3:-}
	while [ ! -e "$f" ]; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		[ -z "$pid" ] || fgt_alive "$pid" || return 1
		usleep 100000
	done
}

# (an orphan that exited stays a zombie until init reaps it; the shell's
# own read: no fork while a walk may be running)
fgt_alive() {
	local l
	[ -r "/proc/$1/status" ] || return 1
	while read -r l; do
		case $l in
		State:*Z*) return 1 ;;
		State:*) return 0 ;;
		esac
	done < "/proc/$1/status"
	return 1
}

fgt_has_tracer() {
	grep -qw "$1" $TRACEFS/available_tracers 2>/dev/null
}

fgt_kver() {
	uname -r | awk -F '[.-]' '{ printf "%d\n", $1 * 100 + $2 }'
}

# tracefs: wherever function_graph exists. trace-cmd: the same, if the binary
# runs. kretmulti: kprobe_multi attaches from 5.18, but only from 6.14 does its
# return side go through fgraph (fprobe on fgraph), so only then is it a trigger.
fgt_triggers() {
	local t=
	if fgt_has_tracer function_graph; then
		t=tracefs
		trace-cmd list -t 2>/dev/null | grep -qw function_graph && t="$t trace-cmd"
	fi
	[ "$(fgt_kver)" -ge 614 ] && t="$t kretmulti"
	echo "$t"
}

# function_graph in a tracefs instance: an instance's available_tracers lists
# only the tracers that allow instances, and function_graph does once fgraph
# takes more than one user (6.9); on 6.1 only the top level can have it.
fgt_instance_graph() {
	local d="$TRACEFS/instances/fgt-probe-$$" r=1
	fgt_has_tracer function_graph || return 1
	mkdir "$d" 2>/dev/null || return 1
	grep -qw function_graph "$d/available_tracers" 2>/dev/null && r=0
	rmdir "$d"
	return $r
}

fgt_park() {
	local n=$1
	rm -f $FGT_RUN/park.ready
	fgt-spawn park -n "$n" -r $FGT_RUN/park.ready > $FGT_RUN/park.json &
	echo $! > $FGT_RUN/park.pid
	fgt_wait_file $FGT_RUN/park.ready 600 || fgt_die "fgt-spawn park $n: not ready"
	cat $FGT_RUN/park.json
}

fgt_unpark() {
	[ -f $FGT_RUN/park.pid ] || return 0
	kill "$(cat $FGT_RUN/park.pid)" 2>/dev/null
	wait "$(cat $FGT_RUN/park.pid)" 2>/dev/null
	rm -f $FGT_RUN/park.pid
}

fgt_churn_start() {
	rm -f $FGT_RUN/churn.ready
	fgt-spawn churn -d "${1:-3600}" -j "${2:-4}" -r $FGT_RUN/churn.ready > $FGT_RUN/churn.json &
	echo $! > $FGT_RUN/churn.pid
	fgt_wait_file $FGT_RUN/churn.ready 60 || fgt_die "fgt-spawn churn: not ready"
}

fgt_churn_stop() {
	[ -f $FGT_RUN/churn.pid ] || return 0
	kill "$(cat $FGT_RUN/churn.pid)" 2>/dev/null
	wait "$(cat $FGT_RUN/churn.pid)" 2>/dev/null
	rm -f $FGT_RUN/churn.pid
	cat $FGT_RUN/churn.json
}

fgt_oracle_bpf_start() {
	rm -f $FGT_RUN/oracle.ready $FGT_RUN/oracle.json
	grep -q ' alloc_retstack_tasklist$' /proc/kallsyms 2>/dev/null || return 1
	fgt-oracle bpf -r $FGT_RUN/oracle.ready > $FGT_RUN/oracle.json &
	echo $! > $FGT_RUN/oracle.pid
	fgt_wait_file $FGT_RUN/oracle.ready 60 && return 0
	# It exited (could not attach): its JSON says why.
	wait "$(cat $FGT_RUN/oracle.pid)" 2>/dev/null
	rm -f $FGT_RUN/oracle.pid
	return 1
}

fgt_oracle_bpf_stop() {
	if [ -f $FGT_RUN/oracle.pid ]; then
		kill "$(cat $FGT_RUN/oracle.pid)" 2>/dev/null
		wait "$(cat $FGT_RUN/oracle.pid)" 2>/dev/null
		rm -f $FGT_RUN/oracle.pid
	fi
	if [ -s $FGT_RUN/oracle.json ]; then
		cat $FGT_RUN/oracle.json
	else
		echo '{"attachable":false}'
	fi
}
