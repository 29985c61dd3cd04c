#!/usr/bin/env bash
# Lab test of fgraphtop-check.service's CapabilityBoundingSet (lab/scenarios/
# unit-caps.sh), on Debian's own kernels (perf_event_paranoid=3):
#   debian-7.2  the tracefs-instance trigger
#   debian-6.1  the top-level tracer trigger (instances refuse function_graph)
# With the unit's CAP_BPF CAP_PERFMON CAP_SYSLOG, `check --trigger` answers
# as plain root does (not_fixed, status 2); with any one of the three left
# out it cannot (unknown, status 3): each is needed, none more is.
# About a minute under single-threaded TCG, warm cache.
#
#   tests/deb/lab-caps.sh [-o OUTDIR]
set -uo pipefail

# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/../lab/lib.sh"
lab_outdir caps "$@"
unit=CAP_BPF,CAP_PERFMON,CAP_SYSLOG
fail=0
note() { echo "lab-caps: $*" >&2; }
bad() { note "FAIL $*"; fail=1; }

for k in debian-7.2 debian-6.1; do
	rc=0
	FGT_KERNELS=$KSH "$ROOT/lab/run.sh" -k "$k" -s unit-caps -o "$out/$k" -t 600 \
		> /dev/null 2> "$out/$k.log" || rc=$?
	[ "$rc" -eq 0 ] || { bad "$k: lab/run.sh exited $rc (see $out/$k)"; continue; }
	r=$out/$k/results.jsonl
	while IFS=$'\t' read -r caps st verdict reason; do
		note "$k: $caps: status $st $verdict: $reason"
		case $caps in
		root|"$unit")
			[ "$st $verdict" = "2 not_fixed" ] ||
				bad "$k: $caps: want status 2 not_fixed (as plain root)" ;;
		*)
			[ "$st $verdict" = "3 unknown" ] ||
				bad "$k: $caps: want status 3 unknown (a capability of the unit's set left out)" ;;
		esac
	done < <(jq -r 'select(.type == "caps") |
		[.caps, .status, (.answer.verdict // "none"), (.answer.reason // .output)] | @tsv' "$r")
	[ "$(jq -s '[.[] | select(.type == "caps")] | length' "$r")" = 5 ] || bad "$k: not 5 runs"
done

if [ $fail -eq 0 ]; then note PASS; else note "FAIL (outputs in $out)"; fi
exit $fail
