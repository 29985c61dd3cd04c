#!/usr/bin/env bash
# Lab test of `fgraphtop hold` (lab/scenarios/hold.sh), one boot a kernel:
#   debian-7.2   the pinned kretprobe.multi link; later triggers bpftrace's
#                kretprobe (sid's, lab/guest/mksid.sh; kretmulti, the lab's
#                own kretprobe.multi link, when that cannot be had) and kretmulti
#   debian-6.12  the tracefs instance; later triggers perf ftrace -G (sid's
#                perf, when it can be had) and the function_graph tracer
#   debian-6.1   refused (status 9), nothing changed
# Exact, by tests/lab/hold_check.py: the hold's own activation as fgraphtop saw
# it is the one fgt-oracle allocs saw (32 stacks a sweep); with N threads
# parked after it, the exposure is 0; every later trigger makes no allocation
# from the function holding the sweep (no sweep), fgraphtop's live view
# reports no activation and names the hold among the holders, check says
# held; the release leaves no instance, no pin, no link, no dynamic event;
# unheld, the same trigger over N fresh threads walks (its sweeps exact
# against the oracle). Times, held and unheld, are printed, never asserted.
#
#   tests/lab/hold.sh [-o OUTDIR] [-k KERNEL]... [-u THREADS]
# Environment: FGT_KERNELS as lab/run.sh.
set -uo pipefail

# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/lib.sh"
lab_opts hold oku "$@"
n=${lab_u:-30000}
fail=0
note() { echo "hold: $*" >&2; }
bad() { note "FAIL $*"; fail=1; }

sid=
if sid=$("$ROOT/lab/guest/mksid.sh" 2> "$out/mksid.log"); then
	note "sid userland: $sid"
else
	sid=
	note "no sid userland ($(tail -n 1 "$out/mksid.log")): the lab's own triggers only"
fi

run() {	# KERNEL ARGS...: results in $out/KERNEL/results.jsonl
	local k=$1 rc=0 t0=$SECONDS
	shift
	FGT_EXTRA_CPIO=$sid FGT_KERNELS=$KSH "$ROOT/lab/run.sh" -k "$k" -s hold -m 3072 -t 1500 \
		-o "$out/$k" -- "$@" > /dev/null 2> "$out/$k.log" || rc=$?
	note "$k: lab/run.sh status $rc, $((SECONDS - t0)) s"
	[ "$rc" -eq 0 ] || bad "$k: lab/run.sh exited $rc (see $out/$k)"
	[ -s "$out/$k/results.jsonl" ] || { bad "$k: no results"; return; }
	python3 "$ROOT/tests/lab/hold_check.py" "$k" "$n" "$out/$k/results.jsonl" || fail=1
}

want() {	# KERNEL: selected (no -k: all)
	[ ${#only[@]} -eq 0 ] && return 0
	local k
	for k in "${only[@]}"; do [ "$k" = "$1" ] && return 0; done
	return 1
}

if want debian-7.2; then
	run debian-7.2 N="$n" TRIGGERS="${sid:+bt-kretprobe }kretmulti" TIMED=kretmulti
fi
if want debian-6.12; then
	run debian-6.12 N="$n" TRIGGERS="${sid:+perf-G }tracefs" TIMED=tracefs
fi
if want debian-6.1; then
	run debian-6.1 N="$n"
fi

if [ $fail -eq 0 ]; then note PASS; else note "FAIL (outputs in $out)"; fi
exit $fail
