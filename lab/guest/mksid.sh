#!/usr/bin/env bash
# Build (once) an extra guest archive with Debian sid's current bpftrace and
# perf (linux-perf) and every shared library they load, under /sid in the
# guest, and print its path. Scenarios run them chrooted there (lib.sh:
# fgt_sid BINARY ARGS...), so sid's glibc never meets the base image's
# bookworm one, and the process is the real binary: comm bpftrace, perf.
#
#   lab/guest/mksid.sh [SUITE]         (default sid; bookworm and trixie give
#                                      the perf of Debian's 6.1 and 6.12)
#
# The userland comes from mmdebstrap (essential + bpftrace + linux-perf; the
# mirror from the machine's apt configuration, lab/debian-apt.sh mirror); only
# the binaries, their ldd closure, ld.so and the merged-/usr links are packed.
# Cached in $FGT_CACHE/guest keyed by the versions apt resolves for the two
# packages and all they depend on, and by this script: a warm call costs one
# apt simulation (a few seconds). The versions packed are in
# /sid/fgt-versions (one "package version" a line), the bpftrace and perf
# versions in the archive's name's .versions file beside it.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}
SUITE=${1:-sid}
PKGS="bpftrace linux-perf"
# shellcheck source=lab/guest/stage-lib.sh
. "$HERE/stage-lib.sh"
note() { echo "mksid: $*" >&2; }

APT=$HERE/../debian-apt.sh
# The closure apt would install today: "name version" lines, the key's input.
closure() {
	# shellcheck disable=SC2086 # PKGS: a list of words
	"$APT" simulate "$SUITE" $PKGS | sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1 \2/p' | sort
}
want=$(closure) || true
if [ -z "$want" ]; then
	"$APT" update
	want=$(closure)
fi
[ -n "$want" ] || { note "apt resolves nothing for $PKGS in $SUITE"; exit 1; }
key=$( { echo "$SUITE"; echo "$want"; cat "$0" "$HERE/stage-lib.sh"; } | sha256sum | cut -c1-16)
out=$CACHE/guest/$SUITE-$key.cpio
if [ -s "$out" ]; then
	touch "$out"
	echo "$out"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || { note "needs root (mmdebstrap)"; exit 1; }
command -v mmdebstrap > /dev/null || { note "mmdebstrap is missing (make deps)"; exit 1; }
mkdir -p "$CACHE/guest"
tmp=$(mktemp -d "$CACHE/guest/stage-$SUITE.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tree=$tmp/root
if [ -n "${FGT_SID_TREE:-}" ]; then	# a tree made before (debugging this script)
	tree=$FGT_SID_TREE
else
mirror=$("$APT" mirror)
note "building the $SUITE userland: mmdebstrap essential + ${PKGS// /,} (a few minutes)"
mmdebstrap --variant=essential --include="${PKGS// /,}" \
	--aptopt='Acquire::Check-Valid-Until "false"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	"$SUITE" "$tree" "deb $mirror $SUITE main" > "$tmp/mmdebstrap.log" 2>&1 || {
	cp "$tmp/mmdebstrap.log" "$CACHE/guest/mksid-mmdebstrap.log"
	note "mmdebstrap failed (see $CACHE/guest/mksid-mmdebstrap.log)"
	exit 1
}
fi
stage=$tmp/stage/sid
mkdir -p "$stage"/{proc,sys,dev,tmp,run,etc,root}
# merged /usr: /bin, /lib, /lib64, /sbin are links into usr/
for d in bin sbin lib lib64; do
	if [ -L "$tree/$d" ]; then
		cp -a "$tree/$d" "$stage/$d"
		mkdir -p "$stage/$(dirname "$d")/$(readlink "$tree/$d")"
	fi
done
# Every file a binary needs, at its real path inside the tree.
put() {	# PATH-INSIDE-THE-TREE
	local real
	real=$(chroot "$tree" readlink -f "$1")
	mkdir -p "$stage$(dirname "$real")"
	[ -e "$stage$real" ] || cp -a "$tree$real" "$stage$real"
	if [ "$real" != "$1" ] && [ ! -e "$stage$1" ] && [ ! -L "$stage$1" ]; then
		mkdir -p "$stage$(dirname "$1")"
		ln -s "$real" "$stage$1"
	fi
}
for bin in /usr/bin/bpftrace /usr/bin/perf; do
	put "$bin"
	# ldd inside the tree: sid's own loader resolves sid's libraries
	for lib in $(chroot "$tree" ldd "$bin" |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		put "$lib"
	done
done
cp -a "$tree/etc/ld.so.cache" "$stage/etc/" 2>/dev/null || true
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$stage/etc/passwd"
printf 'root:x:0:\n' > "$stage/etc/group"
# shellcheck disable=SC2016 # dpkg-query's format, not the shell's
chroot "$tree" dpkg-query -W -f='${Package} ${Version}\n' > "$stage/fgt-versions"
# the binaries must run there as they will in the guest
for bin in bpftrace perf; do
	chroot "$stage" /usr/bin/$bin --version > "$tmp/version" 2>&1 || {
		note "the staged $bin does not run: $(cat "$tmp/version")"
		exit 1
	}
done
(cd "$tmp/stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
grep -E '^(bpftrace|linux-perf) ' "$stage/fgt-versions" > "${out%.cpio}.versions"
find "$CACHE/guest" -maxdepth 1 -name "$SUITE-*.cpio" ! -name "$SUITE-$key.cpio" -mmin +1440 \
	-exec sh -c 'rm -f "$1" "${1%.cpio}.versions"' _ {} \;
note "$(tr '\n' ' ' < "${out%.cpio}.versions")-> $out ($(du -m "$out" | cut -f1) MB)"
echo "$out"
