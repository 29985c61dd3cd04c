#!/usr/bin/env bash
# The arm64 part of make test (issue 23): the five arm64 kernels, each booted
# under qemu-system-aarch64 TCG (-M virt -cpu max) with the arm64 build
# (make ARCH=arm64: fgraphtop, fgt-static and the lab helpers, cross-built):
# Debian's arm64 6.1, 6.12 and 7.2 and the cross-built lab-arm64-stock and
# lab-arm64-fixed (7.2, the series' fix on the second).
#   act       the live tool against the oracle, U = 1,000 and 10,000, and a
#             kretprobe.multi on the 7.2 kernels; failslab K = 5, 32, 33, 100
#             on lab-arm64-fixed (tests/lab/tool.sh's arm64 rows)
#   check     `fgraphtop check` from the running kernel's code (/proc/kcore)
#             and `check --trigger` agreeing, with the answer from the Image
#             on this host (tests/static-lab.sh guest)
#   preflight lab/preflight.sh on Debian's arm64 6.1 package and one made of
#             lab-arm64-fixed (lab/kdeb.sh pack): the architecture from the
#             .deb, not_fixed and fixed, both answers agreeing, nothing left
#
#   tests/lab/arm64.sh [-o OUTDIR] [-k KERNEL]...   (default: the five of
#                                                FGT_LAB_TIER's tier, test:
#                                                Debian's three; long: the pair)
# About 15 minutes on 2 cores for the five, warm cache. Exit status: 0 all
# passed; 1 a check failed; 2 bad usage or a missing build.
set -uo pipefail

# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/lib.sh"
lab_opts arm64 ok "$@"
note() { echo "arm64: $*" >&2; }

all=(debian-arm64-6.1 debian-arm64-6.12 debian-arm64-7.2 lab-arm64-stock lab-arm64-fixed)
kernels=("${only[@]}")
[ ${#kernels[@]} -gt 0 ] || mapfile -t kernels < <(lab_tier "${all[@]}")
for f in fgraphtop fgt-static lab/fgt-spawn lab/fgt-oracle lab/fgt-trigger; do
	[ -x "$ROOT/build/arm64/$f" ] || {
		note "no build/arm64/$f (make ARCH=arm64 all lab-helpers)"
		exit 2
	}
done

fail=0
ks=()
for k in "${kernels[@]}"; do ks+=(-k "$k"); done
note "act: tests/lab/tool.sh ${ks[*]}"
"$ROOT/tests/lab/tool.sh" -o "$out/tool" "${ks[@]}" || fail=1
note "check: tests/static-lab.sh guest ${kernels[*]}"
"$ROOT/tests/static-lab.sh" guest -o "$out/check" "${kernels[@]}" || fail=1
# preflight: Debian's 6.1 package (cached with make test's kernels), and one
# of lab-arm64-fixed when it is in the list
want='["not_fixed not_fixed not_fixed 0 false"]'
pre=()
[[ " ${kernels[*]} " == *" debian-arm64-6.1 "* || " ${kernels[*]} " == *" lab-arm64-fixed "* ]] &&
	pre=(debian-arm64-6.1)
if [[ " ${kernels[*]} " == *" lab-arm64-fixed "* ]]; then
	pre+=(lab-arm64-fixed)
	want='["not_fixed not_fixed not_fixed 0 false", "fixed fixed fixed 0 false"]'
fi
if [ ${#pre[@]} -gt 0 ]; then
	d=$out/preflight
	debs=()
	for k in "${pre[@]}"; do debs+=("$("$KSH" deb "$k")"); done
	rc=0
	note "preflight: lab/preflight.sh ${debs[*]##*/}"
	FGT_LAB_JOBS=1 "$ROOT/lab/preflight.sh" -o "$d" "${debs[@]}" > "$out/preflight.lines" \
		2> "$out/preflight.log" || rc=$?
	sed 's/^/arm64: preflight: /' "$out/preflight.lines" >&2
	[ "$rc" = 2 ] || { note "FAIL: preflight: status $rc, want 2 (see $out/preflight.log)"; fail=1; }
	jq -s -e --argjson want "$want" \
		'map("\(.verdict) \(.static.verdict) \(.trigger.verdict) \(.run_status) \(.left_behind)")
		== $want' "$d/preflight.jsonl" > /dev/null ||
		{ note "FAIL: preflight: records (see $d/preflight.jsonl)"; fail=1; }
	# docs/fleet.md's transcript, the one or two lines this tier runs
	sample=preflight-arm64
	[ ${#pre[@]} = 1 ] || sample=preflight-arm64-long
	python3 "$ROOT/tests/docs/shape.py" "$sample" "$out/preflight.lines" >&2 ||
		{ note "FAIL: preflight: docs/samples/$sample.txt is stale"; fail=1; }
fi
note "runs in $out"
if [ $fail = 0 ]; then note "all passed"; else note "FAILED"; fi
exit $fail
