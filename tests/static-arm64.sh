#!/usr/bin/env bash
# The static verdict on Debian's arm64 kernels, read on this host (issue 23).
#
#   tests/static-arm64.sh [NAME...]     debian-arm64-6.1, debian-arm64-6.12,
#                                       debian-arm64-7.2 (default: all three)
#
# Per kernel: its Image from lab/arm64-kernels.sh (the newest package of its
# series, downloaded once into the cache, keyed by its version). Then `fgraphtop check --kernel` as shipped must answer not_fixed (status 2:
# none of Debian's kernels carries the series) from the code, and
# tests/static_arm64_check.py confirms each shadow-stack site with
# aarch64-linux-gnu-objdump over the same bytes: a bl to the allocator, the
# gfp in w1 and the size in x2 set before it.
#
# Environment: FGT_CACHE (cache root, lab/arm64-kernels.sh), FGT_BUILD (build dir), FGT_BIN
# (fgraphtop), FGT_STATIC (fgt-static). Exit status: 0, 1 on a failure, 2 on
# bad usage or a missing tool.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=${FGT_BUILD:-$ROOT/build}
BIN=${FGT_BIN:-$BUILD/fgraphtop}
STATIC=${FGT_STATIC:-$BUILD/fgt-static}
KERNELS=$ROOT/lab/arm64-kernels.sh

die() {
	echo "static-arm64: $*" >&2
	exit 1
}

for t in "$BIN" "$STATIC"; do
	[ -x "$t" ] || { echo "static-arm64: no $t (make)" >&2; exit 2; }
done
command -v aarch64-linux-gnu-objdump > /dev/null ||
	{ echo "static-arm64: no aarch64-linux-gnu-objdump (make deps)" >&2; exit 2; }

names=("$@")
[ ${#names[@]} -gt 0 ] || mapfile -t names < <("$KERNELS" list)
out=$(mktemp -d "${TMPDIR:-/tmp}/fgt-arm64.XXXXXX")
trap 'rm -rf "$out"' EXIT
failed=0
for n in "${names[@]}"; do
	read -r pkg ver < <("$KERNELS" package "$n") || die "$n: no package"
	img=$("$KERNELS" path "$n") || die "$n: no Image"
	st=0
	"$BIN" check --kernel "$img" --json > "$out/$n.json" || st=$?
	"$STATIC" --kernel "$img" --record "$out/$n.rec" --name "$n" > /dev/null || true
	python3 "$HERE/static_arm64_check.py" "$n" "$pkg" "$ver" "$img" "$st" \
		"$out/$n.json" "$out/$n.rec" || failed=1
done
exit $failed
