#!/bin/sh
# preflight: what `fgraphtop check` says on this kernel before it is rolled
# out (lab/preflight.sh): from its code (`check --static`) and from an
# activation it causes (`check --trigger`); the static one first, since it
# only reads: it sees the kernel as booted. Args: TIMEOUT=S for the trigger (default 60).
# Results: {"type":"answer","how":"static"|"trigger","status":N,"answer":{...}}
# each, {"type":"leftovers","tracer":T,"instances":N} at the end.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

timeout=$(fgt_arg TIMEOUT 60 "$@")

answer() {	# HOW ARGS...
	local how=$1 out status
	shift
	fgraphtop check "$@" --json > "$FGT_RUN/answer.jsonl"
	status=$?
	out=$(fgt_last_of check < "$FGT_RUN/answer.jsonl")
	fgt_log "check $* exited $status: $out"
	case $out in
	\{*) ;;
	*) out=null ;;
	esac
	fgt_result "$(fgt_json type answer how "$how" status "$status" answer "$out")"
}

answer static --static
answer trigger --trigger --timeout "$timeout"
fgt_result "$(fgt_json type leftovers \
	tracer "$(cat $TRACEFS/current_tracer 2> /dev/null)" \
	instances "$(find $TRACEFS/instances -mindepth 1 -maxdepth 1 2> /dev/null | wc -l)")"
exit 0
