# Helpers for the tool-* scenarios (sourced after lib.sh, busybox sh):
#   fgt_tool_start NAME [FGRAPHTOP ARGS...]  run `fgraphtop -j ARGS` in the background,
#                                             wait for its "start" (or "error") line
#   fgt_tool_stop NAME                        SIGINT it, wait, forward each of its JSON
#                                             lines as {"type":"fgt","name":NAME,"rec":LINE}
#                                             (events excepted); exit status in
#                                             {"type":"fgt_exit","name":NAME,"status":N}

fgt_tool_start() {
	local name=$1 n=1200
	shift
	fgraphtop -j -i 3600 "$@" > $FGT_RUN/fgt-$name.jsonl 2> $FGT_RUN/fgt-$name.err &
	echo $! > $FGT_RUN/fgt-$name.pid
	while ! grep -q '"type":"\(start\|error\)"' $FGT_RUN/fgt-$name.jsonl 2>/dev/null; do
		n=$((n - 1))
		if [ $n -le 0 ] || ! kill -0 "$(cat $FGT_RUN/fgt-$name.pid)" 2>/dev/null; then
			fgt_log "fgraphtop $name did not start"
			cat $FGT_RUN/fgt-$name.err
			return 1
		fi
		usleep 100000
	done
	grep -q '"type":"start"' $FGT_RUN/fgt-$name.jsonl
}

fgt_tool_stop() {
	local name=$1 pid rc line
	pid=$(cat $FGT_RUN/fgt-$name.pid 2>/dev/null) || return 0
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	rm -f $FGT_RUN/fgt-$name.pid
	while IFS= read -r line; do
		case $line in
		*'"type":"event"'*) continue ;;
		'{'*) fgt_result "{\"type\":\"fgt\",\"name\":\"$name\",\"rec\":$line}" ;;
		esac
	done < $FGT_RUN/fgt-$name.jsonl
	fgt_result "$(fgt_json type fgt_exit name "$name" status "$rc" stderr "$(head -c 2000 $FGT_RUN/fgt-$name.err)")"
	return $rc
}
