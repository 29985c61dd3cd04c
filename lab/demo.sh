#!/usr/bin/env bash
# make demo: fgraphtop on this host if its kernel can be observed, else the lab demo.
#
#   lab/demo.sh [-u THREADS] [-k "KERNEL KERNEL"] [-o DIR] [-L | -H]
#
#   -u N   threads to park in each guest (default 10000; FGT_DEMO_U)
#   -k K   the lab kernels to compare (default "lab-stock lab-fixed"; any two or
#          more names from lab/kernels.sh list)
#   -o D   keep the runs in D (default a new directory under ${TMPDIR:-/tmp})
#   -L     the lab demo even when this host can be observed
#   -H     this host only: fail (with fgraphtop's reason) when it cannot be observed
#
# Host: `fgraphtop --explain` decides. When it succeeds (root, BPF tracing works,
# the kernel has a function graph tracer), fgraphtop's live view runs for
# FGT_DEMO_SECONDS (60) while, unless FGT_DEMO_TRIGGER=0, `fgraphtop check
# --trigger` causes one activation after 3 s (a private tracefs instance on one
# cold function; the tracing state is restored).
# Lab: for each kernel in turn, lab/run.sh boots it under qemu with the
# demo-live scenario (park N threads, fgraphtop running, function_graph on, off):
# fgraphtop's own output is shown as the guest prints it, then a side-by-side
# table of the kernels: sweeps, threads served, times, verdict, evidence.
# Set-up (host packages, the build, the kernels and the guest image) is done by
# `make demo` before this script runs; run directly, it does it itself.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=${FGT_BUILD:-$ROOT/build}
FGT=$BUILD/fgraphtop

u=${FGT_DEMO_U:-10000} kernels="lab-stock lab-fixed" outdir='' mode=auto
while getopts "u:k:o:LHh" opt; do
	case $opt in
	u) u=$OPTARG ;;
	k) kernels=$OPTARG ;;
	o) outdir=$OPTARG ;;
	L) mode=lab ;;
	H) mode=host ;;
	*) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
case $u in '' | *[!0-9]*) echo "demo: -u wants a number of threads, not '$u'" >&2; exit 2 ;; esac

say() { printf '\n\033[1m== %s\033[0m\n' "$*" 2>/dev/null || printf '\n== %s\n' "$*"; }
[ -t 1 ] || say() { printf '\n== %s\n' "$*"; }

# Set-up when run by hand (make demo has done it already: FGT_DEMO_SETUP=done).
if [ "${FGT_DEMO_SETUP:-}" != "done" ]; then
	make -C "$ROOT" --no-print-directory deps all
fi

# ---- this host --------------------------------------------------------------
host_why=
if [ "$mode" != lab ]; then
	if host_why=$("$FGT" --explain 2>&1 >/dev/null); then
		say "this host's kernel ($(uname -r)) can be observed: fgraphtop live"
		"$FGT" --explain
		secs=${FGT_DEMO_SECONDS:-60}
		tpid=
		if [ "${FGT_DEMO_TRIGGER:-1}" != 0 ]; then
			(sleep 3; "$FGT" check --trigger > "${TMPDIR:-/tmp}/fgraphtop-demo-check.$$" 2>&1 || true) &
			tpid=$!
			echo "in 3 s, \`fgraphtop check --trigger\` causes one activation (FGT_DEMO_TRIGGER=0: no trigger)"
		fi
		echo "watching for $secs s (FGT_DEMO_SECONDS); Ctrl-C stops"
		"$FGT" -d "$secs" || true
		if [ -n "$tpid" ]; then
			wait "$tpid" || true
			say "fgraphtop check --trigger said"
			cat "${TMPDIR:-/tmp}/fgraphtop-demo-check.$$"
			rm -f "${TMPDIR:-/tmp}/fgraphtop-demo-check.$$"
		fi
		exit 0
	fi
	host_why=${host_why#fgraphtop: }
	if [ "$mode" = host ]; then
		echo "demo: this host's kernel cannot be observed: $host_why" >&2
		exit 1
	fi
fi

# ---- the lab ----------------------------------------------------------------
say "the lab demo"
[ -n "$host_why" ] && echo "This host's kernel ($(uname -r)) cannot be observed: fgraphtop says \"$host_why\""
echo "So: the lab's kernels under qemu, one after the other: $kernels."
echo "In each: $u idle threads parked, fgraphtop started, function_graph turned on (the 0->1 step"
echo "gives every thread a shadow stack), then off."

# The kernels (built or fetched once, cached) and the guest image.
# shellcheck disable=SC2086
"$ROOT/lab/kernels.sh" ensure $kernels
make -C "$ROOT" --no-print-directory lab-image >/dev/null

outdir=${outdir:-$(mktemp -d "${TMPDIR:-/tmp}/fgraphtop-demo.XXXXXX")}
mkdir -p "$outdir"
# ~26 KiB per parked thread (FACTS.md), plus the kernel and fgraphtop.
mem=$((512 + u * 40 / 1024))
[ "$mem" -ge 2048 ] || mem=2048
dirs=()
status=0
runpid=
# A background job ignores SIGINT in a script: pass Ctrl-C on to the runner,
# which takes its qemu down.
# shellcheck disable=SC2317 # reached through the trap below
stop() { [ -n "$runpid" ] && kill -TERM "$runpid" 2>/dev/null; wait 2>/dev/null; exit 130; }
trap stop INT TERM
for k in $kernels; do
	d=$outdir/$k
	rm -rf "$d"
	mkdir -p "$d"
	say "$k: booting, parking $u threads, fgraphtop, function_graph on"
	# fgraphtop's lines shown as the guest sends them (the runner writes ttyS1.raw).
	"$ROOT/lab/run.sh" -k "$k" -s demo-live -m "$mem" -t 900 -o "$d" -- \
		"U=$u" FILTER=bpf_fentry_test1 > "$d/run.out" 2> "$d/run.err" &
	runpid=$!
	python3 "$HERE/demo.py" follow "$d/ttyS1.raw" "$runpid" || true
	rc=0
	wait "$runpid" || rc=$?
	runpid=
	if [ "$rc" -ne 0 ]; then
		echo "demo: $k: lab/run.sh exited $rc (console: $d/console.log)" >&2
		tail -n 5 "$d/run.err" >&2 || true
		status=1
		continue
	fi
	dirs+=("$d")
done

if [ ${#dirs[@]} -gt 0 ]; then
	say "side by side ($u threads parked in each)"
	python3 "$HERE/demo.py" table "${dirs[@]}" | tee "$outdir/table.txt"
fi
echo
echo "runs kept in $outdir (results.jsonl, console.log per kernel; the table in table.txt)"
exit $status
