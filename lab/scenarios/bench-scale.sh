#!/bin/sh
# bench-scale U=N [MODES="without with"] [STACK_KB=16] [FILTER=FUNC] [WAIT=S]
#             [PARK_TIMEOUT=S]
# The fix at the series' own scale: one U per boot (the host sizes the guest's
# memory for it). For each mode: park U fresh idle threads, start fgraphtop
# (mode "with" only), the oracle's event counter, function_graph on (one
# function: the walk, not the patching of every call site), off, stop, let the
# threads go. One result line per activation:
#   {"type":"bench_scale","u":..,"mode":..,"park":{..},"mem":{..},"on":{..},
#    "events":{..},"activation":{..},"summary":{..},"per_sweep":{..}}
# "activation" is fgraphtop's record without its per_sweep array (12,500
# entries at U = 400,000 on stock: megabytes over the serial port); "per_sweep"
# summarizes it: how many sweeps served how many threads.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

u=$(fgt_arg U 50000 "$@")
modes=$(fgt_arg MODES "without with" "$@")
stack_kb=$(fgt_arg STACK_KB 16 "$@")
filter=$(fgt_arg FILTER bpf_fentry_test1 "$@")
wait_s=$(fgt_arg WAIT 0.3 "$@")
park_tmo=$(fgt_arg PARK_TIMEOUT 7200 "$@")

fgt_has_tracer function_graph || fgt_die "no function_graph tracer"
fgt_result "$(fgt_json type bench_scale_env release "$(uname -r)" nproc "$(nproc)" \
	pid_max "$(cat /proc/sys/kernel/pid_max)" threads_max "$(cat /proc/sys/kernel/threads-max)" \
	mem_total_kb "$(awk '/^MemTotal/ { print $2 }' /proc/meminfo)")"
# The first 0->1 step of the boot serves every task alive at boot and creates
# the fgraph_stack cache: do it once before measuring.
fgt-trigger -f "$filter" tracefs on > /dev/null || fgt_die "warm-up trigger on"
fgt-trigger -f "$filter" tracefs off > /dev/null

# Touch the guest's memory once, before anything is timed: the first touch of a
# guest page makes qemu allocate it on the host, and the first mode would pay
# for it (the fixed kernel's 200,000 stacks took 1.6 s in the first mode, 0.4 s
# in the second, before this).
pretouch() {	# KiB
	mkdir -p /tmp/pretouch
	mount -t tmpfs -o size=95% tmpfs /tmp/pretouch || return 0
	dd if=/dev/zero of=/tmp/pretouch/fill bs=1M count=$(($1 / 1024)) 2> /dev/null
	rm -f /tmp/pretouch/fill
	umount /tmp/pretouch
}
t0=$(awk '{ print $1 }' /proc/uptime)
pretouch $((u * stack_kb * 2))
fgt_result "$(fgt_json type bench_scale_pretouch kb $((u * stack_kb * 2)) \
	seconds "$(awk -v t0="$t0" '{ print $1 - t0 }' /proc/uptime)")"

avail_kb() {
	awk '/^MemAvailable/ { print $2 }' /proc/meminfo
}

# After the threads are gone, wait until their memory is back (within 5 % of
# what was available before they were parked, at most 10 minutes): it comes
# back lazily (RCU callbacks free the tasks and their stacks), and the next
# mode's walk otherwise runs beside that work. On lab-fixed at 400,000 it did,
# and fgraphtop's consumer, sharing the CPU with it, fell 36,449 records
# behind the log (reported as lost; with the memory back, none).
settle() {	# KiB available before
	local n=600
	while [ "$(avail_kb)" -lt $(($1 - $1 / 20)) ] && [ $n -gt 0 ]; do
		sleep 1
		n=$((n - 1))
	done
}

# lib.sh's fgt_park waits 10 minutes; 400,000 threads take longer under TCG.
park() {	# N
	rm -f "$FGT_RUN/park.ready"
	fgt-spawn park -n "$1" -s "$stack_kb" -r "$FGT_RUN/park.ready" > "$FGT_RUN/park.json" &
	echo $! > "$FGT_RUN/park.pid"
	fgt_wait_file "$FGT_RUN/park.ready" "$park_tmo" || fgt_die "fgt-spawn park $1: not ready ($(cat "$FGT_RUN/park.json"))"
	cat "$FGT_RUN/park.json"
}

# How many sweeps served how many threads: {"32":12499,"3":1}.
per_sweep() {	# FILE
	grep '"type":"activation"' "$1" | tail -n1 | grep -o '"per_sweep":\[[^]]*\]' |
		grep -o '"served":[0-9]*' | cut -d: -f2 | sort -n | uniq -c |
		awk 'BEGIN { printf "{" } { printf "%s\"%s\":%s", (NR > 1 ? "," : ""), $2, $1 } END { print "}" }'
}

one() {	# MODE
	local mode="$1" a0 a1 p on rc off ev start act summ ps pid
	a0=$(avail_kb)
	p=$(park "$u")
	a1=$(avail_kb)
	start=null act=null summ=null ps=null
	if [ "$mode" = with ]; then
		rm -f "$FGT_RUN/fgt.ready"
		fgt-load run -r "$FGT_RUN/fgt.ready" -p '"type":"start"' -o "$FGT_RUN/fgt.out" \
			-- fgraphtop -j -i 3600 &
		echo $! > "$FGT_RUN/fgt.pid"
		fgt_wait_file "$FGT_RUN/fgt.ready" 300 || fgt_die "fgraphtop did not start: $(head -c 2000 "$FGT_RUN/fgt.out")"
		start=$(cat "$FGT_RUN/fgt.ready")
		sleep 1
	fi
	fgt-oracle events start || fgt_log "oracle events unavailable"
	on=$(fgt-trigger -f "$filter" tracefs on)
	rc=$?
	sleep "$wait_s"
	ev=$(fgt-oracle events stop 2>/dev/null)
	[ -n "$ev" ] || ev=null
	off=$(fgt-trigger -f "$filter" tracefs off)
	if [ "$mode" = with ]; then
		pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$FGT_RUN/fgt.ready")
		kill -INT "$pid"
		wait "$(cat "$FGT_RUN/fgt.pid")"
		act=$(grep '"type":"activation"' "$FGT_RUN/fgt.out" | tail -n1 |
			sed 's/"per_sweep":\[[^]]*\]/"per_sweep":null/')
		summ=$(grep '"type":"summary"' "$FGT_RUN/fgt.out" | tail -n1)
		ps=$(per_sweep "$FGT_RUN/fgt.out")
		[ -n "$act" ] || act=null
		[ -n "$summ" ] || summ=null
		[ -n "$ps" ] || ps=null
	fi
	fgt_unpark
	settle "$a0"
	fgt_result "$(fgt_json type bench_scale u "$u" mode "$mode" ok \
		"$([ $rc -eq 0 ] && echo true || echo false)" filter "$filter" stack_kb "$stack_kb" \
		park "$p" mem "$(fgt_json avail_before_kb "$a0" avail_parked_kb "$a1")" \
		on "$on" off "$off" events "$ev" fgt_start "$start" \
		activation "$act" summary "$summ" per_sweep "$ps")"
}

for m in $modes; do
	one "$m"
done
exit 0
