#!/usr/bin/env bash
# Debian's arm64 kernels, fetched once and cached outside the clone, keyed by
# their package version (for the static verdict's arm64 table and
# vmlinux/arm64/vmlinux.h; booting them is issue 23's lab part).
#
#   arm64-kernels.sh list          print the names
#   arm64-kernels.sh path NAME     print the path of NAME's Image (its vmlinuz:
#                                  Debian's arm64 vmlinuz is an uncompressed
#                                  Image), downloading and unpacking it once
#   arm64-kernels.sh package NAME  print "PKG VERSION"
#
# The newest package of each series is resolved through lab/debian-apt.sh
# with FGT_APT_ARCH=arm64 (a private apt view of its own, the mirror from
# this machine's apt sources), once per daily refresh of its lists; the
# .deb lands in $FGT_CACHE/arm64/debs, its Image in
# $FGT_CACHE/arm64/kernels/PKG_VERSION/. Exit status: 0; 1 on a failure;
# 2 on bad usage.
set -euo pipefail

LAB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export FGT_CACHE=${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}
export FGT_APT_ARCH=arm64
APT=$LAB/debian-apt.sh
DIR=$FGT_CACHE/arm64
STAMP=$FGT_CACHE/apt-arm64/update.stamp
NAMES=(debian-arm64-6.1 debian-arm64-6.12 debian-arm64-7.2)

die() {
	echo "arm64-kernels: error: $*" >&2
	exit 1
}

# NAME -> the package name prefix and its pattern, as lab/kernels.sh resolves
# the amd64 ones
series() {
	case $1 in
	debian-arm64-6.1) echo 'linux-image-6.1.0- ^linux-image-6\.1\.0-[0-9]+-arm64$' ;;
	debian-arm64-6.12) echo 'linux-image-6.12. ^linux-image-6\.12\.[0-9]+\+deb13-arm64$' ;;
	debian-arm64-7.2) echo 'linux-binary-7. ^linux-binary-7\.[0-9]+\.[0-9]+\+deb14-arm64$' ;;
	*) return 1 ;;
	esac
}

# The private lists are refreshed once a day; a warm run reads the versions
# resolved then and touches no network.
refresh() {
	if [ -f "$STAMP" ] && [ -z "$(find "$STAMP" -mmin +1440)" ]; then
		return 0
	fi
	if "$APT" update; then
		touch "$STAMP"
	elif [ ! -f "$DIR/resolved.env" ]; then
		die "cannot refresh the Debian arm64 package lists"
	fi
}

# NAME: "PKG VERSION", resolved once per list refresh
resolve() {
	local name=$1 prefix re pkg ver
	if [ -f "$DIR/resolved.env" ] && [ "$DIR/resolved.env" -nt "$STAMP" ] &&
		grep -q "^$name " "$DIR/resolved.env"; then
		grep "^$name " "$DIR/resolved.env" | cut -d' ' -f2-
		return
	fi
	read -r prefix re < <(series "$name")
	pkg=$("$APT" pkgnames "$prefix" | grep -E "$re" | sort -V | tail -n1 || true)
	[ -n "$pkg" ] || die "$name: no package matching $re"
	ver=$("$APT" policy "$pkg" | awk '$1 == "Candidate:" && !v { v = $2 } END { print v }')
	if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
		die "$name: no candidate version for $pkg"
	fi
	mkdir -p "$DIR"
	{ grep -v "^$name " "$DIR/resolved.env" 2> /dev/null || true; echo "$name $pkg $ver"; } \
		> "$DIR/resolved.env.tmp"
	mv "$DIR/resolved.env.tmp" "$DIR/resolved.env"
	echo "$pkg $ver"
}

# PKG VERSION: the cached Image, downloaded and unpacked once
image() {
	local pkg=$1 ver=$2 deb img
	img=$DIR/kernels/${pkg}_${ver//:/%3a}/Image
	if [ ! -s "$img" ]; then
		deb=$DIR/debs/${pkg}_${ver//:/%3a}_arm64.deb
		if [ ! -s "$deb" ]; then
			echo "arm64-kernels: downloading $pkg $ver" >&2
			rm -rf "$DIR/debs/partial"
			mkdir -p "$DIR/debs/partial"
			(cd "$DIR/debs/partial" && "$APT" download "$pkg=$ver" >&2) ||
				die "download of $pkg $ver failed"
			mv "$DIR"/debs/partial/*.deb "$deb"
			rmdir "$DIR/debs/partial"
		fi
		mkdir -p "$(dirname "$img")"
		"$LAB/kdeb.sh" unpack "$deb" "$(dirname "$img")" > /dev/null
		mv "$(dirname "$img")/bzImage" "$img"
	fi
	echo "$img"
}

cmd=${1:-}
case $cmd in
list)
	printf '%s\n' "${NAMES[@]}" ;;
path | package)
	if [ $# -ne 2 ] || ! series "$2" > /dev/null; then
		echo "arm64-kernels: usage: $cmd NAME (one of: ${NAMES[*]})" >&2
		exit 2
	fi
	refresh
	read -r pkg ver < <(resolve "$2")
	if [ "$cmd" = package ]; then
		echo "$pkg $ver"
	else
		image "$pkg" "$ver"
	fi ;;
*)
	echo "usage: arm64-kernels.sh list|path NAME|package NAME" >&2
	exit 2 ;;
esac
