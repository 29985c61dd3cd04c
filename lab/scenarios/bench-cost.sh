#!/bin/sh
# bench-cost REPS=R OPEN_N=N FORK_N=M STORM_N=S [FILTER=FUNC]
# fgraphtop's own cost, and its fidelity under a fork storm:
#  1. start-up (exec to probes attached) and peak RSS (VmHWM) of fgraphtop and of
#     a bpftrace script on the same events (/scenarios/../bench: fgt-bench.bt),
#     alternating, R times each;  {"type":"bench_startup","tool":..}
#  2. (run last) always-on overhead: fgt-load openclose N and fork M, without and with
#     fgraphtop running (fgraph off), interleaved A/B/B/A..., R pairs;
#     {"type":"bench_overhead","mode":"with"|"without","load":..}
#  3. (run second) fork storm while fgraph is on: fgt-load fork S under fgraphtop --events;
#     fgraphtop's task_new events from the storm's pid vs a private tracefs
#     instance's task_newtask lines vs S;  {"type":"bench_storm",...}
. /scenarios/lib.sh

reps=$(fgt_arg REPS 5 "$@")
open_n=$(fgt_arg OPEN_N 20000 "$@")
fork_n=$(fgt_arg FORK_N 500 "$@")
storm_n=$(fgt_arg STORM_N 5000 "$@")
filter=$(fgt_arg FILTER bpf_fentry_test1 "$@")

fgt_has_tracer function_graph || fgt_die "no function_graph tracer"
fgt_result "$(fgt_json type bench_env release "$(uname -r)" \
	cpu "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)" nproc "$(nproc)" \
	bpftrace "$(cat /usr/bin/bpftrace.version 2>/dev/null)")"
plan=$(fgraphtop --explain -j 2>&1 | grep '"type":"plan"' | head -n1)
[ -n "$plan" ] && fgt_result "$(echo "$plan" | sed 's/"type":"plan"/"type":"bench_plan"/')"

# The bpftrace script, with the sweep holder's kallsyms range.
lo=$(awk '$3 == "register_ftrace_graph" { print $1; exit }' /proc/kallsyms)
hi=$(awk -v lo="$lo" '($1 "") > (lo "") && (hi == "" || ($1 "") < (hi "")) { hi = $1 } END { print hi }' /proc/kallsyms)
sed -e "s/@LO@/0x$lo/g" -e "s/@HI@/0x$hi/g" /bench/fgt-bench.bt.in > /tmp/fgt-bench.bt

# tool_start NAME: start fgraphtop (-j) or bpftrace under fgt-load run; waits for
# probes attached. tool_stop: VmHWM, then SIGINT and wait. EXTRA: more options.
tool_start() {	# TOOL [FGRAPHTOP_OPTION]...
	local tool=$1
	shift
	rm -f $FGT_RUN/tool.ready
	case $tool in
	fgraphtop)
		fgt-load run -r $FGT_RUN/tool.ready -p '"type":"start"' -o $FGT_RUN/tool.out \
			-- fgraphtop -j -i 3600 "$@" & ;;
	bpftrace)
		fgt-load run -r $FGT_RUN/tool.ready -p 'ready' -o $FGT_RUN/tool.out \
			-- bpftrace /tmp/fgt-bench.bt & ;;
	esac
	echo $! > $FGT_RUN/tool.pid
	fgt_wait_file $FGT_RUN/tool.ready 300 || {
		fgt_log "$tool did not start: $(head -c 2000 $FGT_RUN/tool.out)"
		kill "$(cat $FGT_RUN/tool.pid)" 2>/dev/null
		return 1
	}
}
tool_stop() {	# prints {"pid":..,"startup_ns":..,"vmhwm_kb":..,"vmrss_kb":..}
	local pid hwm rss
	pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' $FGT_RUN/tool.ready)
	hwm=$(awk '/^VmHWM/ { print $2 }' /proc/$pid/status)
	rss=$(awk '/^VmRSS/ { print $2 }' /proc/$pid/status)
	kill -INT "$pid"
	wait "$(cat $FGT_RUN/tool.pid)"
	sed "s/}\$/,\"vmhwm_kb\":${hwm:-null},\"vmrss_kb\":${rss:-null}}/" $FGT_RUN/tool.ready
	# Let the kernel finish taking the probes down before the next load: twice,
	# under TCG, an allocation right after fgraphtop detached hit a stray int3 at
	# kmem_cache_alloc_noprof+0x5 (Oops, panic; docs/bench/results.md): stale
	# code under multi-threaded TCG, which lab/run.sh no longer uses by default.
	sleep 2
}

# 1. Start-up and RSS, alternating which tool goes first.
r=1
while [ "$r" -le "$reps" ]; do
	if [ $((r % 2)) -eq 1 ]; then order="fgraphtop bpftrace"; else order="bpftrace fgraphtop"; fi
	for t in $order; do
		if tool_start $t; then
			sleep 1
			# Some slab work while attached, so the figures are not of an idle tool.
			fgt-load openclose 2000 > /dev/null
			st=$(tool_stop)
			probes=$(grep -o 'Attaching [0-9]* probes' $FGT_RUN/tool.out | head -n1)
			fgt_result "$(fgt_json type bench_startup tool $t rep $r ok true stats "$st" note "$probes")"
		else
			fgt_result "$(fgt_json type bench_startup tool $t rep $r ok false \
				output "$(head -c 1500 $FGT_RUN/tool.out)")"
		fi
	done
	r=$((r + 1))
done

# 3. Fork storm while fgraph is on, fgraphtop --events, and a tracefs instance.
inst=$TRACEFS/instances/bench-storm
rmdir $inst 2>/dev/null
mkdir $inst || fgt_die "tracefs instance"
echo 16384 > $inst/buffer_size_kb
tool_start fgraphtop --events || fgt_die "fgraphtop --events did not start"
fgt-trigger -f "$filter" tracefs on > /dev/null || fgt_die "trigger on"
echo 1 > $inst/events/task/task_newtask/enable
echo 1 > $inst/tracing_on
fgt-load fork "$storm_n" > $FGT_RUN/storm.json &
spid=$!
wait $spid
echo 0 > $inst/tracing_on
fgt-trigger -f "$filter" tracefs off > /dev/null
sleep 1
st=$(tool_stop)
tr_n=$(grep -c "^ *fgt-load-$spid " $inst/trace)
tr_overrun=$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' $inst/per_cpu/cpu*/stats)
echo 0 > $inst/events/task/task_newtask/enable
rmdir $inst
ev=$(grep '"event":"task_new"' $FGT_RUN/tool.out | grep -c "\"pid\":$spid,")
ev_ok=$(grep '"event":"task_new"' $FGT_RUN/tool.out | grep "\"pid\":$spid," | grep -c '"ok":true')
ev_all=$(grep -c '"event":"task_new"' $FGT_RUN/tool.out)
summ=$(grep '"type":"summary"' $FGT_RUN/tool.out | tail -n1)
fgt_result "$(fgt_json type bench_storm n "$storm_n" storm "$(cat $FGT_RUN/storm.json)" \
	fgt_task_new "$ev" fgt_task_new_ok "$ev_ok" fgt_task_new_all "$ev_all" \
	tracefs_task_new "$tr_n" tracefs_overrun "$tr_overrun" stats "$st" summary "${summ:-null}")"
# 2. Always-on overhead (fgraph off): A/B, B/A, ...
# One discarded warm-up of each load first: under TCG the first run of a code
# path also pays for its translation, which would bias whichever mode goes first.
for load in "openclose $open_n" "fork $fork_n"; do
	fgt_result "$(fgt_json type bench_overhead_warmup result "$(fgt-load $load)")"
done
r=1
while [ "$r" -le "$reps" ]; do
	if [ $((r % 2)) -eq 1 ]; then order="without with"; else order="with without"; fi
	for m in $order; do
		if [ $m = with ]; then tool_start fgraphtop || fgt_die "fgraphtop did not start"; fi
		for load in "openclose $open_n" "fork $fork_n"; do
			res=$(fgt-load $load)
			fgt_result "$(fgt_json type bench_overhead mode $m rep $r result "$res")"
		done
		if [ $m = with ]; then
			st=$(tool_stop)
			summ=$(grep '"type":"summary"' $FGT_RUN/tool.out | tail -n1)
			fgt_result "$(fgt_json type bench_overhead_tool rep $r stats "$st" summary "${summ:-null}")"
		fi
	done
	r=$((r + 1))
done

exit 0
