#!/usr/bin/env bash
# Write the per-run cpio (appended to the cached base by lab/run.sh): /init, the
# lab helpers and fgraphtop as currently built, and lab/scenarios/*.
#   mkrun.sh OUT.cpio [BUILD_DIR]
# Missing helpers are left out rather than failing: smoke still runs without them.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
out=$1
build=${2:-$ROOT/build}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/scenarios"
install -m 0755 "$HERE/init" "$stage/init"
[ -x "$build/fgraphtop" ] ||
	echo "mkrun: no $build/fgraphtop: the guest gets none (make first)" >&2
for f in "$build/fgraphtop" "$build"/lab/fgt-*; do
	[ -f "$f" ] && [ -x "$f" ] && install -m 0755 "$f" "$stage/bin/"
done
cp "$ROOT"/lab/scenarios/*.sh "$stage/scenarios/" 2>/dev/null || true
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) > "$out"
