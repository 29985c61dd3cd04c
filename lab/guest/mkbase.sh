#!/usr/bin/env bash
# Build (once) the base guest initramfs and print its path:
# busybox-static and Debian's real trace-cmd with its shared libraries and ld.so.
# It is cached in $FGT_CACHE/guest, keyed by the versions of its inputs, so a warm
# call costs a dpkg query and a hash. The per-run files (/init, helpers,
# scenarios, fgraphtop) go into a second cpio appended by lab/guest/mkrun.sh.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}
# shellcheck source=lab/guest/stage-lib.sh
. "$HERE/stage-lib.sh"

need_pkg() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed' && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "mkbase: package $1 is missing; install it (apt-get install $1)" >&2
		exit 1
	fi
	echo "mkbase: installing $1" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$1" >/dev/null
}
need_pkg busybox-static
need_pkg trace-cmd
need_pkg cpio

TRACECMD=$(command -v trace-cmd)
# The key: package versions of everything copied, the library paths it takes
# (never ldd's own output: it carries ASLR load addresses, so the key changed
# on every run and concurrent runs deleted each other's base), plus the scripts.
key=$( {
	dpkg-query -W -f='${Package} ${Version}\n' busybox-static trace-cmd libc6 \
		libtracefs1 libtraceevent1 libzstd1 2>/dev/null || true
	elf_libs "$TRACECMD"
	cat "$0" "$HERE/stage-lib.sh"
} | sha256sum | cut -c1-16)
out=$CACHE/guest/base-$key.cpio
if [ -s "$out" ]; then
	touch "$out"	# in use: the pruning below keeps what was used lately
	echo "$out"
	exit 0
fi

mkdir -p "$CACHE/guest"
stage=$(mktemp -d "$CACHE/guest/stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,etc,proc,sys,dev,tmp,run,root,mnt,lib64}
cp /bin/busybox "$stage/bin/busybox"
for applet in $("$stage/bin/busybox" --list); do
	[ -e "$stage/bin/$applet" ] || ln -s busybox "$stage/bin/$applet"
done

# trace-cmd: the binary plus every library ldd names, at the same paths, and
# ld.so where the ELF interpreter says. Plugins are optional and left out.
stage_elf "$stage" "$TRACECMD" /usr/bin/trace-cmd
# The kernel opens /dev/console for init before devtmpfs is mounted.
mknod -m 600 "$stage/dev/console" c 5 1 2>/dev/null || true
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$stage/etc/passwd"
printf 'root:x:0:\n' > "$stage/etc/group"

(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"
# Older bases are dead weight once their inputs have moved on; but another
# checkout (a branch with other inputs) may be booting one right now, so only
# those unused for a day go.
find "$CACHE/guest" -maxdepth 1 -name "base-*.cpio" ! -name "base-$key.cpio" -mmin +1440 -delete
echo "$out"
