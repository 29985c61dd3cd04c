#!/usr/bin/env bash
# shellcheck disable=SC2317 # its functions run through lab_job (tests/lab/lib.sh)
# Lab test of `fgraphtop check`, one guest boot each, two side by side:
#   check-prom on lab-stock, lab-6.1-stock, lab-6.12-stock, lab-5.10-stock,
#                            lab-6.12-nopreempt-stock
#                            -> status 2, verdict not_fixed, a textfile, nothing left
#   check-prom on lab-fixed, lab-6.1-fixed, lab-6.12-fixed, lab-5.10-fixed (the
#                            stable backports), lab-6.12-nopreempt-fixed (no PREEMPT_RCU)
#                            -> status 0, verdict fixed, a textfile, nothing left;
#                            on lab-fixed also with a live fgraphtop watching next
#                            to the check: still status 0 (its losses are not ours)
#   check-kill on debian-7.2 and debian-6.1
#                            -> SIGKILL once the state file records the tracefs
#                               instance (its mkdir helper may outlive the run:
#                               the next one waits for it), then a new check:
#                               nothing left, status 2
#   check-kill, random        -> FGT_LAB_KILLS (default 10) SIGKILLs each at random
#                               delays spread over a whole run, on debian-6.12 and
#                               debian-7.2 (the instance method) and debian-6.1
#                               (the top-level tracer); after each, a new check:
#                               nothing left (no instance, tracer nop, no filter,
#                               enabled_functions empty, no state or temporary
#                               file, no BPF link or pinned object), status 2
#   lab/preflight.sh on debian-7.2's and debian-5.10's packages and one made of the lab-5.10-fixed
#                            build -> status 2; not_fixed and fixed, both answers
#                            agreeing, one line each as in the JSON, nothing left;
#                            a non-kernel package and no package -> 64, nothing
#                            unpacked
# About 4 minutes under single-threaded TCG on 2 cores, warm cache. The whole
# fleet path (node_exporter, Prometheus, PromQL) is lab/fleet-e2e.sh, not here.
#
#   tests/lab/check.sh [-o OUTDIR]
# Environment: FGT_KERNELS as lab/run.sh; FGT_LAB_TIER (tests/lab/lib.sh
# lab_tier): test (the default) cuts the pairs to make test's kernels, long
# runs the pairs only make test-long has and nothing else (make
# test-lab-check-long).
set -uo pipefail

# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/lib.sh"
lab_opts check o "$@"
fail=0
note() { echo "check: $*" >&2; }
bad() { note "FAIL $*"; lab_failed; }

boot() {	# NAME KERNEL SCENARIO ARGS...: run it, results in $out/NAME/results.jsonl
	local name=$1 k=$2 s=$3 rc=0 t0=$SECONDS
	shift 3
	FGT_KERNELS=$KSH "$ROOT/lab/run.sh" -k "$k" -s "$s" -o "$out/$name" -t 600 -- "$@" \
		> /dev/null 2> "$out/$name.log" || rc=$?
	note "$name: lab/run.sh status $rc, $((SECONDS - t0)) s"
	[ "$rc" -eq 0 ] || bad "$name: lab/run.sh exited $rc (see $out/$name)"
}

prom() {	# KERNEL STATUS VERDICT [NAME SCENARIO_ARGS...]
	local k=$1 want_s=$2 want_v=$3 name=${4:-prom-$1} r
	shift $(($# < 4 ? $# : 4))
	boot "$name" "$k" check-prom TIMEOUT=60 "$@"
	r=$out/$name/results.jsonl
	local got
	got=$(jq -r 'select(.type == "check") | "\(.status) \(.answer.verdict // "none")"' "$r")
	note "$name: check: $got; $(jq -r 'select(.type == "check") | .answer.reason // .output' "$r")"
	[ "$got" = "$want_s $want_v" ] || bad "$name: want status $want_s verdict $want_v, got '$got'"
	jq -s -e 'any(.[]; .type == "prom" and (.textfile_b64 | length > 0))' "$r" > /dev/null ||
		bad "$name: no textfile"
	# The textfile says the same as the JSON, for the release that ran.
	local tf rel
	tf=$(jq -r 'select(.type == "prom") | .textfile_b64' "$r" | base64 -d)
	rel=$(jq -r 'select(.type == "run") | .release' "$r")
	grep -q "^fgraphtop_verdict{verdict=\"$want_v\",release=\"$rel\",.*} 1\$" <<<"$tf" ||
		bad "$name: textfile: no fgraphtop_verdict{verdict=\"$want_v\",release=\"$rel\",...} 1"
	grep -qx "fgraphtop_check_status $want_s" <<<"$tf" ||
		bad "$name: textfile: no fgraphtop_check_status $want_s"
	note "$name: textfile: $(grep -E '^fgraphtop_(verdict.*} 1|activation_sweeps|activation_threads_served)' <<<"$tf" | tr '\n' ' ')"
	jq -s -e 'any(.[]; .type == "leftovers" and .files == "" and .tracer == "nop")' "$r" > /dev/null ||
		bad "$name: left behind: $(jq -c 'select(.type == "leftovers")' "$r")"
}

# the pairs of the tier (FGT_LAB_TIER, tests/lab/lib.sh lab_tier); make
# test-long's tier gets these and nothing else: the rest is make test's
for k in $(lab_tier lab-stock lab-6.1-stock lab-6.12-stock lab-5.10-stock lab-6.12-nopreempt-stock); do
	lab_job prom "$k" 2 not_fixed
done
for k in $(lab_tier lab-fixed lab-6.1-fixed lab-6.12-fixed lab-5.10-fixed lab-6.12-nopreempt-fixed); do
	lab_job prom "$k" 0 fixed
done
whole=true
[ "${FGT_LAB_TIER:-test}" != long ] || whole=false
# a live fgraphtop next to the check: its losses are not the check's, fixed stays OK
monitored() {
	local r=$out/monitored-lab-fixed/results.jsonl
	prom lab-fixed 0 fixed monitored-lab-fixed MONITOR=1
	note "monitored-lab-fixed: the monitor: $(jq -c 'select(.type == "monitor")' "$r")"
	jq -s -e 'any(.[]; .type == "monitor" and .status == 0 and .activations >= 1)' "$r" > /dev/null ||
		bad "monitored-lab-fixed: the monitor did not see the activation"
}
$whole && lab_job monitored

# SIGKILL at a deterministic point on the instance method: as the tracefs
# instance is recorded, i.e. about to be made by the mkdir helper, which may
# outlive the run (debian-7.2; debian-6.1 makes one to look inside, then
# falls back to the top level). Every round's next run must have waited for
# a stopped helper when HELPER=1.
kill_at() {	# KERNEL [HELPER=1]
	local k=$1 r name=kill-$1
	shift
	boot "$name" "$k" check-kill AT=instance ROUNDS=2 "$@"
	r=$out/$name/results.jsonl
	jq -r 'select(.type == "kill") | "round \(.round): state_seen \(.state_seen), killed run left [\(.left_by_killed)], after the next run [\(.left_after_next)], next status \(.next_status), waited for the helper \(.next_waited)"' \
		"$r" | sed "s/^/check: $name: /" >&2
	[ "$(jq -s '[.[] | select(.type == "kill")] | length' "$r")" = 2 ] ||
		bad "$name: not 2 rounds"
	jq -e -s 'all(.[] | select(.type == "kill"); .ok and .state_seen and .left_after_next == ""
		and .next_status == 2)' "$r" > /dev/null || bad "$name: a round failed (see $r)"
	jq -s -e 'any(.[]; .type == "kill-summary" and .failures == 0)' "$r" > /dev/null ||
		bad "$name: summary"
}
$whole && lab_job kill_at debian-7.2
# 6.1 with its helper caught at its fork (lab/guest/fgt-catch.c): stopped
# across the kill, resumed a second into the next run, which must wait for
# it. (A poll for the helper lost the race on Debian's 6.1.176, whose mkdir
# ended before the first look: CI, and the lab, 2 rounds of 2.)
$whole && lab_job kill_at debian-6.1 HELPER=1

# SIGKILLs at random delays over a whole run: what the killed run left (if
# anything) and, after the next run, nothing at all.
kill_random() {	# KERNEL
	local k=$1 n=${FGT_LAB_KILLS:-10} r name=kill-random-$1
	boot "$name" "$k" check-kill ROUNDS="$n" MAX_MS=auto
	r=$out/$name/results.jsonl
	note "$name: window $(jq -r 'select(.type == "kill-window") | "\(.max_ms) ms (a whole run \(.whole_ms) ms)"' "$r");" \
		"$(jq -s '[.[] | select(.type == "kill" and .left_by_killed != "")] | length' "$r") of $n kills left something to undo;" \
		"$(jq -s '[.[] | select(.type == "kill" and .next_waited)] | length' "$r") next runs waited for a mkdir helper"
	jq -r 'select(.type == "kill" and .ok != true) | "round \(.round) at \(.killed_after_ms) ms: after the next run [\(.left_after_next)], status \(.next_status)"' \
		"$r" | sed "s/^/check: FAIL $name: /" >&2
	[ "$(jq -s '[.[] | select(.type == "kill" and .ok and .left_after_next == "" and .next_status == 2)] | length' "$r")" = "$n" ] ||
		bad "$name: not $n clean rounds (see $r)"
}
$whole && for k in debian-6.12 debian-7.2 debian-6.1; do lab_job kill_random "$k"; done

# Preflight: packages booted, both answers; its bad input costs nothing.
preflight() {
	local d=$out/preflight debs rc=0 pc
	mkdir -p "$d/junk/DEBIAN"
	debs=("$(FGT_KERNELS=$KSH "$KSH" deb debian-7.2)" "$(FGT_KERNELS=$KSH "$KSH" deb debian-5.10)"
		"$(FGT_KERNELS=$KSH "$KSH" deb lab-5.10-fixed)")
	FGT_LAB_JOBS=1 "$ROOT/lab/preflight.sh" -o "$d/run" "${debs[@]}" > "$d/lines" 2> "$d/log" || rc=$?
	sed 's/^/check: preflight: /' "$d/lines" >&2
	[ "$rc" = 2 ] || bad "preflight: status $rc, want 2 (see $d/log)"
	# docs/fleet.md's transcript: its lines, as this run's but for its figures
	python3 "$ROOT/tests/docs/shape.py" preflight "$d/lines" >&2 ||
		bad "preflight: docs/samples/preflight.txt is stale (this run's: $d/lines)"
	jq -s -e 'map("\(.verdict) \(.static.verdict) \(.trigger.verdict) \(.run_status) \(.left_behind)")
		== ["not_fixed not_fixed not_fixed 0 false", "not_fixed not_fixed not_fixed 0 false",
		    "fixed fixed fixed 0 false"]' \
		"$d/run/preflight.jsonl" > /dev/null || bad "preflight: records (see $d/run/preflight.jsonl)"
	# the lines say what the records say, in the same order
	[ "$(jq -r '"\(.package) \(.version) [\(.release)]: \(.verdict) "' "$d/run/preflight.jsonl")" = \
		"$(sed 's/(.*//' "$d/lines")" ] || bad "preflight: the lines differ from the records"
	printf 'Package: junk\nVersion: 1\nArchitecture: all\nMaintainer: x <x@x>\nDescription: x\n' \
		> "$d/junk/DEBIAN/control"
	dpkg-deb --build "$d/junk" "$d/junk.deb" > /dev/null
	pc=$(find "${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}/preflight" -mindepth 1 -maxdepth 1 | wc -l)
	rc=0
	"$ROOT/lab/preflight.sh" "${debs[0]}" "$d/junk.deb" > "$d/junk.out" 2> "$d/junk.err" || rc=$?
	if [ "$rc" != 64 ] || [ -s "$d/junk.out" ] || ! grep -q 'junk.deb: not a kernel package' "$d/junk.err"; then
		bad "preflight: a non-kernel package: status $rc, $(head -c 200 "$d/junk.err")"
	fi
	rc=0
	"$ROOT/lab/preflight.sh" 2> /dev/null || rc=$?
	[ "$rc" = 64 ] || bad "preflight: no package: status $rc, want 64"
	[ "$(find "${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}/preflight" -mindepth 1 -maxdepth 1 | wc -l)" = "$pc" ] ||
		bad "preflight: bad input left something in the cache"
}
$whole && lab_job preflight

lab_wait || fail=1
if [ $fail -eq 0 ]; then note PASS; else note "FAIL (outputs in $out)"; fi
exit $fail
