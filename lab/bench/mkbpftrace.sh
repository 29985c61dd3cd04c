#!/usr/bin/env bash
# Build (once) an extra guest cpio with Debian's bpftrace (bookworm's package, the
# host's) and every shared library it loads, for bench runs only, and print its path.
# Also /bench/fgt-bench.bt.in, the bench's bpftrace script (its template).
# Cached in $FGT_CACHE/guest keyed by the package versions, the script and this file.
# lab/run.sh appends it after the base and per-run archives (FGT_EXTRA_CPIO).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}
# shellcheck source=lab/guest/stage-lib.sh
. "$HERE/../guest/stage-lib.sh"

if ! dpkg-query -W -f='${Status}' bpftrace 2>/dev/null | grep -q 'install ok installed'; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "mkbpftrace: package bpftrace is missing; install it (apt-get install bpftrace)" >&2
		exit 1
	fi
	echo "mkbpftrace: installing bpftrace" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends bpftrace >/dev/null
fi
BT=$(command -v bpftrace)
libs=$(elf_libs "$BT")
# shellcheck disable=SC2016 # dpkg-query's formats, not the shell's to expand
key=$( {
	dpkg-query -W -f='${Package} ${Version}\n' bpftrace
	for l in $libs; do dpkg -S "$(readlink -f "$l")" 2>/dev/null | cut -d: -f1; done |
		sort -u | xargs -r dpkg-query -W -f='${Package} ${Version}\n'
	cat "$0" "$HERE/fgt-bench.bt.in" "$HERE/../guest/stage-lib.sh"
} | sha256sum | cut -c1-16)
out=$CACHE/guest/bpftrace-$key.cpio
if [ -s "$out" ]; then
	touch "$out"	# in use: kept by the pruning below
	echo "$out"
	exit 0
fi
mkdir -p "$CACHE/guest"
stage=$(mktemp -d "$CACHE/guest/stage-bt.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bench"
cp "$HERE/fgt-bench.bt.in" "$stage/bench/"
stage_elf "$stage" "$BT" /usr/bin/bpftrace
dpkg-query -W -f='${Package} ${Version}\n' bpftrace > "$stage/usr/bin/bpftrace.version"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
find "$CACHE/guest" -maxdepth 1 -name "bpftrace-*.cpio" ! -name "bpftrace-$key.cpio" -mmin +1440 -delete
echo "$out"
