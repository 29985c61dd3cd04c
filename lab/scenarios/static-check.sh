#!/bin/sh
# static-check: the static verdict (fgt-static, until `fgraphtop check
# --static` is wired) from /proc/kcore on this kernel, next to the dynamic one.
#   U=N        park N idle threads, then answer again (both ways): 0 = no
#   TRIGGER=1  fgraphtop check --trigger --json as well
#   RECORD=1   send the text read from kcore as tests/data/static/ format
#   BAD=1      the bad cases: no kcore, kcore masked (/dev/null), BPF instead of
#              kcore, kallsyms addresses hidden (kptr_restrict=2)
# Results: {"type":"static","run":R,...fgt-static --json...} per run,
# {"type":"state","when":W,"state":S} before and after (it must change nothing),
# {"type":"check",...} from check --trigger, {"type":"record","line":L}.
# fgt-static comes in an extra initramfs archive (tests/static-lab.sh guest).
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

U=$(fgt_arg U 0 "$@")
TRIGGER=$(fgt_arg TRIGGER 1 "$@")
RECORD=$(fgt_arg RECORD 1 "$@")
BAD=$(fgt_arg BAD 1 "$@")

command -v fgt-static > /dev/null || fgt_die "no fgt-static in this guest"

# What answering could change: the tracer, ftrace's patched functions,
# tracefs instances, BPF programs (JITed ones are in kallsyms once
# bpf_jit_kallsyms is on), the kernel log.
echo 1 > /proc/sys/net/core/bpf_jit_kallsyms 2> /dev/null
state() {
	printf 'tracer=%s enabled_functions=%s instances=%s bpf_progs=%s dmesg=%s' \
		"$(cat $TRACEFS/current_tracer 2> /dev/null)" \
		"$(wc -l < $TRACEFS/enabled_functions 2> /dev/null)" \
		"$(ls $TRACEFS/instances 2> /dev/null | wc -l)" \
		"$(grep -c ' bpf_prog_' /proc/kallsyms)" \
		"$(dmesg | wc -l)"
}

# One answer as a result line, with the command's exit status and wall time
# (busybox time: 10 ms steps; fgt-static's own "ms" is finer).
answer() {
	local run=$1 out t
	shift
	t=$( { busybox time -f '%e %x' fgt-static --json "$@" > $FGT_RUN/static.json; } 2>&1 | tail -n 1)
	out=$(head -n 1 $FGT_RUN/static.json)
	out=${out#\{\"type\":\"static\",}
	fgt_result "{\"type\":\"static\",\"run\":\"$run\",\"wall_s\":${t%% *},\"status\":${t##* },$out"
}

# what reading kallsyms costs here, the bulk of an answer under TCG
t=$( { busybox time -f '%e' cat /proc/kallsyms > /dev/null; } 2>&1 | tail -n 1)
fgt_result "$(fgt_json type kallsyms lines "$(wc -l < /proc/kallsyms)" cat_s "$t" \
	kcore "$([ -e /proc/kcore ] && echo true || echo false)")"

s0=$(state)
fgt_result "$(fgt_json type state when before state "$s0")"
answer kcore
answer kcore-again
s1=$(state)
fgt_result "$(fgt_json type state when after state "$s1" unchanged "$([ "$s0" = "$s1" ] && echo true || echo false)")"

if [ "$RECORD" = 1 ]; then
	fgt-static --record $FGT_RUN/rec.txt --name "$(uname -r), the running kernel" > /dev/null
	while IFS= read -r l; do
		fgt_result "$(fgt_json type record line "$l")"
	done < $FGT_RUN/rec.txt
fi

if [ "$BAD" = 1 ]; then
	answer no-kcore --kcore /nonexistent --no-bpf
	answer masked-kcore --kcore /dev/null --no-bpf
	answer bpf --kcore /nonexistent
	s2=$(state)
	fgt_result "$(fgt_json type state when after-bpf state "$s2")"
	old=$(cat /proc/sys/kernel/kptr_restrict)
	echo 2 > /proc/sys/kernel/kptr_restrict
	answer kptr-restrict
	echo "$old" > /proc/sys/kernel/kptr_restrict
fi

if [ "$TRIGGER" = 1 ]; then
	j=$(fgraphtop check --trigger --json 2> /dev/null | tail -n 1)
	fgt_result "{\"type\":\"check\",\"threads\":0,${j#\{\"type\":\"check\",}"
fi

if [ "$U" -gt 0 ]; then
	fgt_park "$U" > $FGT_RUN/park.out
	fgt_result "$(fgt_json type parked threads "$U" nr_threads "$(cat /proc/loadavg | cut -d/ -f2 | cut -d' ' -f1)")"
	answer "kcore-$U-threads"
	if [ "$TRIGGER" = 1 ]; then
		j=$(fgraphtop check --trigger --json 2> /dev/null | tail -n 1)
		fgt_result "{\"type\":\"check\",\"threads\":$U,${j#\{\"type\":\"check\",}"
	fi
	fgt_unpark
fi
exit 0
