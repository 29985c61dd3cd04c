#!/usr/bin/env bash
# Lab test of `fgraphtop check` (issue 4's "Done when"), one guest boot each:
#   check-prom on lab-stock, lab-6.1-stock, lab-6.12-stock
#                            -> status 2, verdict not_fixed, a textfile, nothing left
#   check-prom on lab-fixed, lab-6.1-fixed, lab-6.12-fixed (the stable backports)
#                            -> status 0, verdict fixed, a textfile, nothing left
#   check-kill on debian-7.2 -> SIGKILL once the state file records the tracefs
#                               instance, then a new check: nothing left, status 2
# About 2 minutes under single-threaded TCG on 2 cores, warm cache. The whole
# fleet path (node_exporter, Prometheus, PromQL) is lab/fleet-e2e.sh, not here.
#
#   tests/lab/check.sh [-o OUTDIR]
# Environment: FGT_KERNELS as lab/run.sh.
set -uo pipefail

# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/lib.sh"
lab_outdir check "$@"
fail=0
note() { echo "check: $*" >&2; }
bad() { note "FAIL $*"; fail=1; }

boot() {	# NAME KERNEL SCENARIO ARGS...: run it, results in $out/NAME/results.jsonl
	local name=$1 k=$2 s=$3 rc=0 t0=$SECONDS
	shift 3
	FGT_KERNELS=$KSH "$ROOT/lab/run.sh" -k "$k" -s "$s" -o "$out/$name" -t 600 -- "$@" \
		> /dev/null 2> "$out/$name.log" || rc=$?
	note "$name: lab/run.sh status $rc, $((SECONDS - t0)) s"
	[ "$rc" -eq 0 ] || bad "$name: lab/run.sh exited $rc (see $out/$name)"
}

prom() {	# KERNEL STATUS VERDICT
	local k=$1 want_s=$2 want_v=$3 r
	boot "prom-$k" "$k" check-prom TIMEOUT=60
	r=$out/prom-$k/results.jsonl
	local got
	got=$(jq -r 'select(.type == "check") | "\(.status) \(.answer.verdict // "none")"' "$r")
	note "prom-$k: check: $got; $(jq -r 'select(.type == "check") | .answer.reason // .output' "$r")"
	[ "$got" = "$want_s $want_v" ] || bad "prom-$k: want status $want_s verdict $want_v, got '$got'"
	jq -s -e 'any(.[]; .type == "prom" and (.textfile_b64 | length > 0))' "$r" > /dev/null ||
		bad "prom-$k: no textfile"
	# The textfile says the same as the JSON, for the release that ran.
	local tf rel
	tf=$(jq -r 'select(.type == "prom") | .textfile_b64' "$r" | base64 -d)
	rel=$(jq -r 'select(.type == "run") | .release' "$r")
	grep -q "^fgraphtop_verdict{verdict=\"$want_v\",release=\"$rel\",.*} 1\$" <<<"$tf" ||
		bad "prom-$k: textfile: no fgraphtop_verdict{verdict=\"$want_v\",release=\"$rel\",...} 1"
	grep -qx "fgraphtop_check_status $want_s" <<<"$tf" ||
		bad "prom-$k: textfile: no fgraphtop_check_status $want_s"
	note "prom-$k: textfile: $(grep -E '^fgraphtop_(verdict.*} 1|activation_sweeps|activation_threads_served)' <<<"$tf" | tr '\n' ' ')"
	jq -s -e 'any(.[]; .type == "leftovers" and .files == "" and .tracer == "nop")' "$r" > /dev/null ||
		bad "prom-$k: left behind: $(jq -c 'select(.type == "leftovers")' "$r")"
}

for k in lab-stock lab-6.1-stock lab-6.12-stock; do prom "$k" 2 not_fixed; done
for k in lab-fixed lab-6.1-fixed lab-6.12-fixed; do prom "$k" 0 fixed; done

# SIGKILL at a deterministic point on the instance method (debian-7.2)
boot kill-debian-7.2 debian-7.2 check-kill AT=instance ROUNDS=2
r=$out/kill-debian-7.2/results.jsonl
jq -r 'select(.type == "kill") | "round \(.round): state_seen \(.state_seen), killed run left [\(.left_by_killed)], after the next run [\(.left_after_next)], next status \(.next_status)"' \
	"$r" | sed 's/^/check: kill-debian-7.2: /' >&2
[ "$(jq -s '[.[] | select(.type == "kill")] | length' "$r")" = 2 ] || bad "kill-debian-7.2: not 2 rounds"
jq -e -s 'all(.[] | select(.type == "kill"); .ok and .state_seen and .left_after_next == ""
	and .next_status == 2)' "$r" > /dev/null || bad "kill-debian-7.2: a round failed (see $r)"
jq -s -e 'any(.[]; .type == "kill-summary" and .failures == 0)' "$r" > /dev/null ||
	bad "kill-debian-7.2: summary"

if [ $fail -eq 0 ]; then note PASS; else note "FAIL (outputs in $out)"; fi
exit $fail
