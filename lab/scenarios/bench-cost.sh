#!/bin/sh
# bench-cost REPS=R OPEN_N=N FORK_N=M SHELL_N=K STORM_N=S [FILTER=FUNC]
#            [TOOLS="none fgraphtop floor bpftrace"] [STARTUP_TOOLS=...]
# fgraphtop's own cost, against the floor and bpftrace, and its fidelity under
# a fork storm. Meant for a guest under instruction counting (lab/run.sh -I,
# one vCPU): guest time is then instructions executed, so each figure repeats
# to a fraction of a percent whatever the host does. Tools:
#   none       nothing attached
#   fgraphtop  fgraphtop -j, as a user runs it
#   floor      fgt-floor: empty programs on fgraphtop's always-on hooks
#   bpftrace   the equivalent bpftrace script (/bench/fgt-bench.bt.in)
# Parts, in this order:
#  1. start-up (exec to probes attached) and peak RSS (VmHWM) of fgraphtop,
#     fgt-floor and bpftrace, R times each, rotating which goes first;
#     {"type":"bench_startup","tool":..}; and what reading /proc/kallsyms
#     costs: {"type":"bench_kallsyms",...}
#  2. always-on overhead (fgraph never on yet): per repetition, each tool in turn
#     (rotating), each load: openclose N, fork M, the shell script K rounds
#     (bench-cost-shell.sh); {"type":"bench_overhead","mode":TOOL,"rep":..,"result":..}
#     and per tool run {"type":"bench_overhead_tool",...} (its lost events);
#  3. each BPF program's own cost: per tool and load, the load once under
#     fgt-bpfstats (BPF_ENABLE_STATS through an fd); the floor's run counts are
#     the load's events; {"type":"bench_bpfstats","mode":TOOL,"load":..,"stats":..}
#  4. fork storm while fgraph is on: fgt-load fork S under fgraphtop --events;
#     its task_new events vs a private tracefs instance's vs S;
#     {"type":"bench_storm",...}
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

reps=$(fgt_arg REPS 5 "$@")
open_n=$(fgt_arg OPEN_N 100000 "$@")
fork_n=$(fgt_arg FORK_N 5000 "$@")
shell_n=$(fgt_arg SHELL_N 10 "$@")
storm_n=$(fgt_arg STORM_N 5000 "$@")
filter=$(fgt_arg FILTER bpf_fentry_test1 "$@")
tools=$(fgt_arg TOOLS "none fgraphtop floor bpftrace" "$@")
startup_tools=$(fgt_arg STARTUP_TOOLS "fgraphtop floor bpftrace" "$@")

fgt_has_tracer function_graph || fgt_die "no function_graph tracer"
fgt_result "$(fgt_json type bench_env release "$(uname -r)" \
	cpu "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)" nproc "$(nproc)" \
	bpftrace "$(cat /usr/bin/bpftrace.version 2>/dev/null)" \
	loads "$(fgt_json openclose "$open_n" fork "$fork_n" shell "$shell_n")")"
plan=$(fgraphtop --explain -j 2>&1 | grep '"type":"plan"' | head -n1)
[ -n "$plan" ] && fgt_result "$(echo "$plan" | sed 's/"type":"plan"/"type":"bench_plan"/')"

# The bpftrace script, with the sweep holder's kallsyms range.
lo=$(awk '$3 == "register_ftrace_graph" { print $1; exit }' /proc/kallsyms)
hi=$(awk -v lo="$lo" '($1 "") > (lo "") && (hi == "" || ($1 "") < (hi "")) { hi = $1 } END { print hi }' /proc/kallsyms)
sed -e "s/@LO@/0x$lo/g" -e "s/@HI@/0x$hi/g" /bench/fgt-bench.bt.in > /tmp/fgt-bench.bt

# tool_start TOOL [FGRAPHTOP_OPTION]...: start it under fgt-load run, wait until
# its probes are attached. tool_stop: VmHWM, then SIGINT and wait.
tool_start() {
	local tool="$1"
	shift
	rm -f "$FGT_RUN/tool.ready"
	case $tool in
	none) return 0 ;;
	fgraphtop)
		fgt-load run -r "$FGT_RUN/tool.ready" -p '"type":"start"' -o "$FGT_RUN/tool.out" \
			-- fgraphtop -j -i 3600 "$@" & ;;
	floor)
		fgt-load run -r "$FGT_RUN/tool.ready" -p '"type":"start"' -o "$FGT_RUN/tool.out" \
			-- fgt-floor & ;;
	bpftrace)
		fgt-load run -r "$FGT_RUN/tool.ready" -p 'ready' -o "$FGT_RUN/tool.out" \
			-- bpftrace /tmp/fgt-bench.bt & ;;
	esac
	echo $! > "$FGT_RUN/tool.pid"
	fgt_wait_file "$FGT_RUN/tool.ready" 600 || {
		fgt_log "$tool did not start: $(head -c 2000 "$FGT_RUN/tool.out")"
		kill "$(cat "$FGT_RUN/tool.pid")" 2>/dev/null
		return 1
	}
}
tool_stop() {	# prints {"pid":..,"startup_ns":..,"vmhwm_kb":..,"vmrss_kb":..} ({} for none)
	local pid hwm rss
	[ -f "$FGT_RUN/tool.ready" ] || { echo '{}'; return 0; }
	pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$FGT_RUN/tool.ready")
	hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status")
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
	kill -INT "$pid"
	wait "$(cat "$FGT_RUN/tool.pid")"
	sed "s/}\$/,\"vmhwm_kb\":${hwm:-null},\"vmrss_kb\":${rss:-null}}/" "$FGT_RUN/tool.ready"
	rm -f "$FGT_RUN/tool.ready"
	# Let the kernel finish taking the probes down before the next load.
	sleep 2
}
# rotate N WORDS...: the words, starting at the N-th (1-based, modulo)
rotate() {
	local n="$1" i=0 out='' rest=''
	shift
	n=$(((n - 1) % $#))
	for w in "$@"; do
		if [ $i -lt $n ]; then rest="$rest $w"; else out="$out $w"; fi
		i=$((i + 1))
	done
	echo "$out$rest"
}
loads="openclose:$open_n fork:$fork_n shell:$shell_n"
load() {	# NAME:N [PREFIX...]: run it, print fgt-load's JSON
	local name="${1%%:*}" n="${1#*:}"
	shift
	if [ "$name" = shell ]; then
		"$@" fgt-load exec "$n" sh /scenarios/bench-cost-shell.sh 1
	else
		"$@" fgt-load "$name" "$n"
	fi
}

# 1. Start-up and RSS.
r=1
while [ "$r" -le "$reps" ]; do
	# shellcheck disable=SC2086 # a list of words
	for t in $(rotate "$r" $startup_tools); do
		if tool_start "$t"; then
			sleep 1
			# Some slab work while attached, so the figures are not of an idle tool.
			fgt-load openclose 2000 > /dev/null
			st=$(tool_stop)
			probes=$(grep -o 'Attaching [0-9]* probes' "$FGT_RUN/tool.out" | head -n1)
			fgt_result "$(fgt_json type bench_startup tool "$t" rep "$r" ok true stats "$st" note "$probes")"
		else
			fgt_result "$(fgt_json type bench_startup tool "$t" rep "$r" ok false \
				output "$(head -c 1500 "$FGT_RUN/tool.out")")"
		fi
	done
	r=$((r + 1))
done

# What reading /proc/kallsyms costs (the kernel writing it out): part of the
# start-up floor of any tool that needs kernel symbol ranges, as fgraphtop does.
# sh -c true alone, to subtract.
fgt_result "$(fgt_json type bench_kallsyms \
	read "$(fgt-load exec 3 sh -c 'cat /proc/kallsyms > /dev/null')" \
	shell "$(fgt-load exec 3 sh -c true)" symbols "$(wc -l < /proc/kallsyms)")"

# 2. Always-on overhead (fgraph off, and never on since boot: the fgraph_stack
# cache does not exist yet, as on most machines). One discarded warm-up of each load first:
# the first run of a code path pays for page faults and, under TCG, translation.
for l in $loads; do
	fgt_result "$(fgt_json type bench_overhead_warmup result "$(load "$l")")"
done
r=1
while [ "$r" -le "$reps" ]; do
	# shellcheck disable=SC2086
	for m in $(rotate "$r" $tools); do
		tool_start "$m" || fgt_die "$m did not start"
		[ "$m" = none ] || sleep 1
		for l in $loads; do
			res=$(load "$l") || fgt_die "load $l failed: $res"
			fgt_result "$(fgt_json type bench_overhead mode "$m" rep "$r" result "$res")"
		done
		if [ "$m" != none ]; then
			st=$(tool_stop)
			summ=null
			[ "$m" = fgraphtop ] && summ=$(grep '"type":"summary"' "$FGT_RUN/tool.out" | tail -n1)
			fgt_result "$(fgt_json type bench_overhead_tool mode "$m" rep "$r" stats "$st" summary "${summ:-null}")"
		fi
	done
	r=$((r + 1))
done

# 3. Each program's own cost, per load.
for m in $tools; do
	[ "$m" = none ] && continue
	tool_start "$m" || fgt_die "$m did not start"
	sleep 1
	for l in $loads; do
		res=$(load "$l" fgt-bpfstats -o "$FGT_RUN/stats.json" --) || fgt_die "load $l failed: $res"
		fgt_result "$(fgt_json type bench_bpfstats mode "$m" load "${l%%:*}" result "$res" \
			stats "$(cat "$FGT_RUN/stats.json")")"
	done
	tool_stop > /dev/null
done

# 4. Fork storm while fgraph is on (last: it creates the fgraph_stack cache):
# fgraphtop --events, and a tracefs instance.
inst=$TRACEFS/instances/bench-storm
rmdir "$inst" 2>/dev/null
mkdir "$inst" || fgt_die "tracefs instance"
echo 16384 > "$inst/buffer_size_kb"
tool_start fgraphtop --events || fgt_die "fgraphtop --events did not start"
fgt-trigger -f "$filter" tracefs on > /dev/null || fgt_die "trigger on"
echo 1 > "$inst/events/task/task_newtask/enable"
echo 1 > "$inst/tracing_on"
fgt-load fork "$storm_n" > "$FGT_RUN/storm.json" &
spid=$!
wait $spid
echo 0 > "$inst/tracing_on"
fgt-trigger -f "$filter" tracefs off > /dev/null
sleep 1
st=$(tool_stop)
tr_n=$(grep -c "^ *fgt-load-$spid " "$inst/trace")
tr_overrun=$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' "$inst"/per_cpu/cpu*/stats)
echo 0 > "$inst/events/task/task_newtask/enable"
rmdir "$inst"
ev=$(grep '"event":"task_new"' "$FGT_RUN/tool.out" | grep -c "\"pid\":$spid,")
ev_ok=$(grep '"event":"task_new"' "$FGT_RUN/tool.out" | grep "\"pid\":$spid," | grep -c '"ok":true')
ev_all=$(grep -c '"event":"task_new"' "$FGT_RUN/tool.out")
summ=$(grep '"type":"summary"' "$FGT_RUN/tool.out" | tail -n1)
fgt_result "$(fgt_json type bench_storm n "$storm_n" storm "$(cat "$FGT_RUN/storm.json")" \
	fgt_task_new "$ev" fgt_task_new_ok "$ev_ok" fgt_task_new_all "$ev_all" \
	tracefs_task_new "$tr_n" tracefs_overrun "$tr_overrun" stats "$st" summary "${summ:-null}")"

exit 0
