#!/bin/sh
# bench-fix US="1000 5000 ..." REPS=R [REPS_LARGE=R2] [FILTER=FUNC] [WAIT=S]
#           [MODES="with without"]
# The fix, reproduced: for each U and repetition, park U fresh idle threads (so U
# threads lack a shadow stack), turn function_graph on (one function: the walk
# without the patching of every call site), off, and let the threads go.
# Each repetition does it once with fgraphtop running (mode "with": its activation
# record) and once without ("without": the oracle alone), in alternating order
# (A/B, B/A, ...), so the same run also gives the perturbation ratio. Mode
# "floor" runs fgt-floor instead (empty programs on fgraphtop's always-on
# hooks): the perturbation any tool watching those events causes. Mode
# "floor-ts" runs fgt-floor -t, the answers' floor: a timestamp, a log2
# histogram of the gaps and a count per allocation, kept in the kernel. Mode
# "stopped" runs fgraphtop with its process stopped (SIGSTOP) during the
# trigger: what its BPF programs cost, without its consumer draining the log
# on the same CPU (lost records would show in its record; under 16,384 there
# are none). Modes "base" and "base-stopped" do the same with /bin/fgraphtop-base,
# another build of fgraphtop (an archive in FGT_EXTRA_CPIO), so that a change is
# measured against what it replaces in one guest run.
# REPS_LARGE (default REPS) applies from U = 20,000: parking 30,000 threads takes
# about a minute under TCG.
# One result line per activation:
#   {"type":"bench_fix","u":..,"rep":..,"mode":..,"park":{..},"on":{..},"off":{..},
#    "oracle":{..},"fgt_start":{..},"activation":{..},"summary":{..}}
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

us=$(fgt_arg US "1000 5000 10000 20000 30000" "$@")
reps=$(fgt_arg REPS 3 "$@")
reps_large=$(fgt_arg REPS_LARGE "$reps" "$@")
filter=$(fgt_arg FILTER bpf_fentry_test1 "$@")
wait_s=$(fgt_arg WAIT 0.3 "$@")
modes=$(fgt_arg MODES "with without" "$@")

fgt_has_tracer function_graph || fgt_die "no function_graph tracer"
# The first 0->1 step of the boot also serves every task alive at boot and
# creates the fgraph_stack cache: do it once before measuring.
fgt-trigger -f "$filter" tracefs on > /dev/null || fgt_die "warm-up trigger on"
fgt-trigger -f "$filter" tracefs off > /dev/null

one() {	# U REP MODE
	local u=$1 rep=$2 mode=$3 park on off oracle start act summ rc
	park=$(fgt_park "$u")
	start=null act=null summ=null
	if [ "$mode" != without ]; then
		rm -f "$FGT_RUN/fgt.ready"
		case $mode in
		floor) set -- fgt-floor ;;
		floor-ts) set -- fgt-floor -t ;;
		base | base-stopped) set -- fgraphtop-base -j -i 3600 ;;
		*) set -- fgraphtop -j -i 3600 ;;
		esac
		fgt-load run -r "$FGT_RUN/fgt.ready" -p '"type":"start"' -o "$FGT_RUN/fgt.out" -- "$@" &
		echo $! > "$FGT_RUN/fgt.pid"
		fgt_wait_file "$FGT_RUN/fgt.ready" 120 || fgt_die "fgraphtop did not start: $(cat "$FGT_RUN/fgt.out")"
		start=$(cat "$FGT_RUN/fgt.ready")
		# Steady state, as a user would have it running: the perturbation is of
		# its probes, not of its start-up.
		sleep 1
	fi
	fgt_oracle_bpf_start || true
	case $mode in *stopped) kill -STOP "$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$FGT_RUN/fgt.ready")" ;; esac
	on=$(fgt-trigger -f "$filter" tracefs on)
	rc=$?
	case $mode in *stopped) kill -CONT "$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$FGT_RUN/fgt.ready")" ;; esac
	sleep "$wait_s"
	off=$(fgt-trigger -f "$filter" tracefs off)
	oracle=$(fgt_oracle_bpf_stop)
	if [ "$mode" != without ]; then
		pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$FGT_RUN/fgt.ready")
		kill -INT "$pid"
		wait "$(cat "$FGT_RUN/fgt.pid")"
	fi
	if [ "$mode" != without ] && [ "$mode" != floor ] && [ "$mode" != floor-ts ]; then
		act=$(grep '"type":"activation"' "$FGT_RUN/fgt.out" | tail -n1)
		summ=$(grep '"type":"summary"' "$FGT_RUN/fgt.out" | tail -n1)
		[ -n "$act" ] || act=null
		[ -n "$summ" ] || summ=null
	fi
	fgt_unpark
	fgt_result "$(fgt_json type bench_fix u "$u" rep "$rep" mode "$mode" ok \
		"$([ $rc -eq 0 ] && echo true || echo false)" filter "$filter" \
		park "$park" on "$on" off "$off" oracle "$oracle" fgt_start "$start" \
		activation "$act" summary "$summ")"
}

for u in $us; do
	n=$reps
	[ "$u" -ge 20000 ] && n=$reps_large
	r=1
	while [ "$r" -le "$n" ]; do
		if [ $((r % 2)) -eq 1 ]; then order=$modes; else
			order=$(echo "$modes" | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }')
		fi
		for m in $order; do
			one "$u" "$r" "$m"
		done
		r=$((r + 1))
	done
done
exit 0
