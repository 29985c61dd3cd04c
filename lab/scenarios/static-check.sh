#!/bin/sh
# static-check: the static verdict (fgraphtop check, and fgt-static's detail
# and bad cases) from /proc/kcore on this kernel, next to the dynamic one.
#   U=N        park N idle threads, then answer again (both ways): 0 = no
#   TRIGGER=1  fgraphtop check --trigger --json as well
#   RECORD=1   send the text read from kcore as tests/data/static/ format
#   BAD=1      the bad cases: no kcore, kcore masked (/dev/null), BPF instead of
#              kcore, kallsyms addresses hidden (kptr_restrict=2)
#   LIVE=1     the live tool for a second (fgraphtop -j -d 1): its exit status and
#              error line (type live; under lockdown=confidentiality: 8, lockdown)
# Results: {"type":T,"run":R,"wall_s":S,"status":N,"answer":{...}} per answer
# (T: check_static for `fgraphtop check --json`, check for `... --trigger`,
# static for fgt-static's bad cases), {"type":"state","when":W,"state":S}
# before and after (answering must change nothing), {"type":"record","line":L}.
# fgt-static comes in an extra initramfs archive (tests/static-lab.sh guest).
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

U=$(fgt_arg U 0 "$@")
TRIGGER=$(fgt_arg TRIGGER 1 "$@")
RECORD=$(fgt_arg RECORD 1 "$@")
BAD=$(fgt_arg BAD 1 "$@")
LIVE=$(fgt_arg LIVE 0 "$@")

command -v fgt-static > /dev/null || fgt_die "no fgt-static in this guest"

# What answering could change: the tracer, ftrace's patched functions,
# tracefs instances, BPF programs (JITed ones are in kallsyms once
# bpf_jit_kallsyms is on), the kernel log (less the TSC's refined
# calibration, which a slow boot under TCG logs about when we answer:
# seen on lab-6.12-fixed).
echo 1 > /proc/sys/net/core/bpf_jit_kallsyms 2> /dev/null
state() {
	printf 'tracer=%s enabled_functions=%s instances=%s bpf_progs=%s dmesg=%s' \
		"$(cat $TRACEFS/current_tracer 2> /dev/null)" \
		"$(wc -l < $TRACEFS/enabled_functions 2> /dev/null)" \
		"$(find $TRACEFS/instances -mindepth 1 -maxdepth 1 2> /dev/null | wc -l)" \
		"$(grep -c ' bpf_prog_' /proc/kallsyms)" \
		"$(dmesg | grep -cvE 'tsc: Refined TSC|clocksource')"
}

# One answer as a result line, with the command's exit status and wall time
# (busybox time: 10 ms steps; the answer's own "ms" is finer), its JSON inside.
#   answer TYPE RUN CMD...
answer() {
	local type=$1 run=$2 out t
	shift 2
	t=$( { busybox time -f '%e %x' "$@" > $FGT_RUN/answer.json; } 2>&1 | tail -n 1)
	out=$(head -n 1 $FGT_RUN/answer.json)
	fgt_result "{\"type\":\"$type\",\"run\":\"$run\",\"wall_s\":${t%% *},\"status\":${t##* },\"answer\":${out:-null}}"
}

s0=$(state)
fgt_result "$(fgt_json type state when before state "$s0")"
# fgraphtop check as shipped: from the code alone by default
answer check_static kcore fgraphtop check --json
answer check_static kcore-again fgraphtop check --json
s1=$(state)
fgt_result "$(fgt_json type state when after state "$s1" unchanged "$([ "$s0" = "$s1" ] && echo true || echo false)")"

if [ "$RECORD" = 1 ]; then
	fgt-static --record $FGT_RUN/rec.txt --name "$(uname -r), the running kernel" > /dev/null
	while IFS= read -r l; do
		fgt_result "$(fgt_json type record line "$l")"
	done < $FGT_RUN/rec.txt
fi

if [ "$BAD" = 1 ]; then
	# fgt-static can point the readers elsewhere: the bad cases, and BPF instead of kcore
	answer static no-kcore fgt-static --json --kcore /nonexistent --no-bpf
	answer static masked-kcore fgt-static --json --kcore /dev/null --no-bpf
	answer static bpf fgt-static --json --kcore /nonexistent
	s2=$(state)
	fgt_result "$(fgt_json type state when after-bpf state "$s2")"
	old=$(cat /proc/sys/kernel/kptr_restrict)
	echo 2 > /proc/sys/kernel/kptr_restrict
	answer static kptr-restrict fgt-static --json --kcore /nonexistent
	answer check_static kptr-restrict fgraphtop check --json
	echo "$old" > /proc/sys/kernel/kptr_restrict
fi

if [ "$TRIGGER" = 1 ]; then
	answer check trigger fgraphtop check --trigger --json
fi

if [ "$LIVE" = 1 ]; then
	st=0
	fgraphtop -j -d 1 > $FGT_RUN/live.out 2> $FGT_RUN/live.err || st=$?
	err=$(grep -h '"type":"error"' $FGT_RUN/live.out $FGT_RUN/live.err | head -n 1)
	fgt_result "{\"type\":\"live\",\"run\":\"live\",\"status\":$st,\"error\":${err:-null}}"
fi

if [ "$U" -gt 0 ]; then
	fgt_park "$U" > $FGT_RUN/park.out
	fgt_result "$(fgt_json type parked threads "$U" nr_threads "$(cut -d/ -f2 /proc/loadavg | cut -d' ' -f1)")"
	answer check_static "kcore-$U-threads" fgraphtop check --json
	[ "$TRIGGER" = 1 ] && answer check "trigger-$U-threads" fgraphtop check --trigger --json
	fgt_unpark
fi
exit 0
