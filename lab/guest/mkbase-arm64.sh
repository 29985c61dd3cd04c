#!/usr/bin/env bash
# Build (once) the arm64 base guest initramfs and print its path: Debian's
# busybox-static for arm64, fetched through the private arm64 apt view
# (lab/debian-apt.sh, FGT_APT_ARCH=arm64) into $FGT_CACHE/arm64/debs. The
# amd64 base (mkbase.sh) also carries Debian's trace-cmd; this one does not
# (a trace-cmd round on arm64 is reported unsupported by the scenario). It
# is cached in $FGT_CACHE/guest, keyed by the busybox package and this
# script, so a warm call costs a hash. lab/run.sh appends the per-run
# archive (lab/guest/mkrun.sh, the arm64 build's helpers) as for amd64.
# Exit status: 0; 1 when busybox cannot be fetched.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
LAB=$(cd "$HERE/.." && pwd)
export FGT_CACHE=${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}
DEBS=$FGT_CACHE/arm64/debs

newest_bb() {
	find "$DEBS" -maxdepth 1 -name 'busybox-static_*_arm64.deb' 2> /dev/null | sort -V | tail -n1
}

bb=$(newest_bb)
if [ -z "$bb" ]; then
	mkdir -p "$DEBS"
	part=$(mktemp -d "$DEBS/partial.XXXXXX")
	trap 'rm -rf "$part"' EXIT
	(cd "$part" && FGT_APT_ARCH=arm64 "$LAB/debian-apt.sh" download busybox-static >&2) ||
		{ echo "mkbase-arm64: cannot fetch busybox-static for arm64" >&2; exit 1; }
	mv "$part"/busybox-static_*_arm64.deb "$DEBS"/
	bb=$(newest_bb)
fi

key=$( { basename "$bb"; cat "$0"; } | sha256sum | cut -c1-16)
out=$FGT_CACHE/guest/base-arm64-$key.cpio
if [ -s "$out" ]; then
	touch "$out"
	echo "$out"
	exit 0
fi

mkdir -p "$FGT_CACHE/guest"
stage=$(mktemp -d "$FGT_CACHE/guest/stage.XXXXXX")
trap 'rm -rf "$stage" ${part:+"$part"}' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,root,mnt}
dpkg-deb --fsys-tarfile "$bb" | tar -xO ./usr/bin/busybox > "$stage/bin/busybox"
chmod 755 "$stage/bin/busybox"
# The applets: this host cannot run an aarch64 busybox to list them, so
# /bin/sh is the one link made here and lab/guest/init makes the others
# (busybox --install) when it finds them missing.
ln -s busybox "$stage/bin/sh"
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$stage/etc/passwd"
printf 'root:x:0:\n' > "$stage/etc/group"
mknod -m 600 "$stage/dev/console" c 5 1 2> /dev/null || true
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
find "$FGT_CACHE/guest" -maxdepth 1 -name "base-arm64-*.cpio" ! -name "base-arm64-$key.cpio" \
	-mmin +1440 -delete
echo "$out"
