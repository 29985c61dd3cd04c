#!/usr/bin/env bash
# make test-atlas: lab/atlas.sh, as make atlas runs it, on two small inputs:
# a generated lz4 bzImage (tests/lib/kimage_gen.c: a kernel, plainly one,
# without fgraph) and Debian's arm64 6.1 Image from the lab cache (lab/arm64-kernels.sh
# fetches it once). Each must be one row with its verdict, its build ID, its
# seconds and peak RSS.
#
#   tests/atlas.sh FGRAPHTOP FGT-KIMAGE-GEN
set -euo pipefail

bin=$1
gen=$2
d=$(mktemp -d /tmp/fgt-atlas.XXXXXX)
trap 'rm -rf "$d"' EXIT

"$gen" "$d" --atlas
img=$(lab/arm64-kernels.sh path debian-arm64-6.1)
FGRAPHTOP=$bin lab/atlas.sh files "$d/atlas.md" "$d/kernel-plain.lz4.bzImage" "$img"
cat "$d/atlas.md"

fail=0
row() { grep -F "| $1 |" "$d/atlas.md" || true; }
check() {
	local name=$1 want=$2 r
	r=$(row "$name")
	if [ -z "$r" ] || ! grep -qF "| $want |" <<<"$r"; then
		echo "atlas: FAIL: $name: want verdict $want: ${r:-no row}"
		fail=1
	elif ! grep -qE '\| [0-9]+\.[0-9]+ \| [0-9]+ \|$' <<<"$r"; then
		echo "atlas: FAIL: $name: no seconds and peak RSS: $r"
		fail=1
	fi
}
check kernel-plain.lz4.bzImage not_affected
check Image not_fixed
# Debian's arm64 image has a GNU build ID note: the row gives it whole
# shellcheck disable=SC2016 # the backquotes are Markdown's
row Image | grep -qE '`[0-9a-f]{40}`' || { echo "atlas: FAIL: no build ID for the arm64 Image"; fail=1; }
grep -q '^Do not edit by hand. 2 images: ' "$d/atlas.md" || { echo "atlas: FAIL: no summary"; fail=1; }
[ "$fail" = 0 ] && echo "atlas: ok (2 rows)"
exit "$fail"
