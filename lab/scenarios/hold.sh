#!/bin/sh
# hold N=30000 TRIGGERS="kretmulti ..." TIMED=kretmulti
# `fgraphtop hold` in one boot (tests/lab/hold.sh checks the results):
#   1. fgraphtop hold --dry-run, then fgraphtop hold with the guest's few
#      threads, fgt-oracle allocs around it (and the BPF counter where the
#      sweep is attachable): its own activation;
#   2. park N threads; hold --status;
#   3. under a live fgraphtop -j -i 1, each of TRIGGERS on and off, each
#      inside fgt-oracle allocs (slab allocations from the function holding
#      the sweep: none means no sweep); then fgraphtop --explain -j and
#      fgraphtop check -j;
#   4. hold --release, and what is left: the instance, the pin, the
#      kprobe_multi links, dynamic_events, hold --status;
#   5. unheld: the N threads let go, N fresh ones parked, TIMED on and off
#      under fgt-oracle allocs and a live fgraphtop: the walk the hold spared.
# On a kernel where the hold is not offered (fgraph takes one user), step 1
# must refuse (status 9) and step 4 find nothing; the rest is skipped.
# Results: {"type":"hold","step":S,...} lines and fgraphtop's own records
# ({"type":"fgt","name":"held"|"unheld","rec":...}). Exit 0 when every step
# ran, else 1.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh
# shellcheck source=lab/scenarios/tool-lib.sh
. /scenarios/tool-lib.sh
# shellcheck source=lab/scenarios/trigger-lib.sh
. /scenarios/trigger-lib.sh

n=$(fgt_arg N 30000 "$@")
triggers=$(fgt_arg TRIGGERS kretmulti "$@")
timed=$(fgt_arg TIMED kretmulti "$@")
status=0

[ -d /sys/fs/bpf ] && ! grep -q ' /sys/fs/bpf bpf ' /proc/mounts &&
	mount -t bpf bpf /sys/fs/bpf

step() {	# STEP KEY VALUE...
	local s=$1
	shift
	fgt_result "$(fgt_json type hold step "$s" release "$(uname -r)" "$@")"
}

# a command's one JSON line, or null
js() { grep '^{' "$1" | tail -n 1 | grep . || echo null; }

# what a hold could leave behind
left() {
	local inst='' pin d
	for d in "$TRACEFS"/instances/*; do
		[ -d "$d" ] && inst="$inst${d##*/} "
	done
	pin=false
	[ -e /sys/fs/bpf/fgraphtop ] && pin=true
	fgraphtop hold --status -j > $FGT_RUN/st.json 2>&1
	step "$1" instances "$inst" pin_dir "$pin" \
		dynamic_events "$(cat "$TRACEFS/dynamic_events" 2>/dev/null)" \
		current_tracer "$(cat "$TRACEFS/current_tracer")" \
		links "$(fgt-oracle links)" status "$(js $FGT_RUN/st.json)"
}

allocs_on() { fgt-oracle allocs start -i fgt-allocs || status=1; }
allocs_off() { fgt-oracle allocs stop -i fgt-allocs || echo null; }
bpf_on() { fgt_oracle_bpf_start || true; }

fgraphtop hold --dry-run -j > $FGT_RUN/dry.json 2>&1
step dry_run rc $? rec "$(js $FGT_RUN/dry.json)"

allocs_on
bpf_on
fgraphtop hold -j > $FGT_RUN/take.json 2> $FGT_RUN/take.err
rc=$?
a=$(allocs_off)
b=$(fgt_oracle_bpf_stop)
step take rc $rc rec "$(js $FGT_RUN/take.json)" allocs "$a" bpf "$b" \
	stderr "$(head -c 1000 $FGT_RUN/take.err)"
if [ $rc -ne 0 ]; then
	# refused (or failed): nothing may have changed
	left refused_left
	exit $status
fi
fgraphtop hold -j > $FGT_RUN/again.json 2>&1
step again rc $? rec "$(js $FGT_RUN/again.json)"

fgt_park "$n" > $FGT_RUN/park.json || status=1
fgraphtop hold --status -j > $FGT_RUN/st1.json 2>&1
step status_parked rc $? rec "$(js $FGT_RUN/st1.json)" park "$(js $FGT_RUN/park.json)"

# held: the live view watches every trigger
fgt_tool_start held -i 1 || status=1
for t in $triggers; do
	allocs_on
	bpf_on
	on=$(fgt_trig "$t" on) || status=1
	sleep 1
	off=$(fgt_trig "$t" off) || status=1
	a=$(allocs_off)
	b=$(fgt_oracle_bpf_stop)
	step held_trigger trigger "$t" on "$on" off "$off" allocs "$a" bpf "$b"
done
sleep 2
fgraphtop --explain -j > $FGT_RUN/explain.json 2> $FGT_RUN/explain.err
step explain rc $? rec "$(grep '"type":"holders"' $FGT_RUN/explain.json | tail -n 1 | grep . ||
	js $FGT_RUN/explain.json)"
fgraphtop check -j > $FGT_RUN/check.json 2> $FGT_RUN/check.err
step check rc $? rec "$(js $FGT_RUN/check.json)"
fgt_tool_stop held || status=1

fgraphtop hold --release -j > $FGT_RUN/rel.json 2>&1
step release rc $? rec "$(js $FGT_RUN/rel.json)"
left released
fgraphtop hold --release -j > $FGT_RUN/rel2.json 2>&1
step release_again rc $? rec "$(js $FGT_RUN/rel2.json)"

# unheld: fresh threads, the walk the hold spared
fgt_unpark
fgt_park "$n" > $FGT_RUN/park2.json || status=1
fgt_tool_start unheld -i 1 || status=1
allocs_on
bpf_on
on=$(fgt_trig "$timed" on) || status=1
sleep 1
off=$(fgt_trig "$timed" off) || status=1
a=$(allocs_off)
b=$(fgt_oracle_bpf_stop)
step unheld_trigger trigger "$timed" on "$on" off "$off" allocs "$a" bpf "$b" \
	park "$(js $FGT_RUN/park2.json)"
sleep 2
fgt_tool_stop unheld || status=1
fgt_unpark
exit $status
