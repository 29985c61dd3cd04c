#!/usr/bin/env bash
# Kernel packages, both ways.
#
#   kdeb.sh unpack DEB DIR        DIR/bzImage from a linux-image .deb (the
#                                 vmlinuz, named so whatever it is); prints
#                                 its release (the modules directory's name)
#   kdeb.sh pack KDIR OUTDIR      a linux-image .deb of a lab kernel directory
#                                 (lab/kernels.sh path NAME), as Debian lays
#                                 one out (amd64, or arm64 where info.json
#                                 says so: its Image as the vmlinuz); prints
#                                 its path
#
# pack is deterministic (fixed mtimes, owner root): the same kernel gives the
# same bytes, so its sha256 can key a cache.
# Exit status: 0; 1 when DEB is not a kernel package or a step failed (one
# "kdeb: error:" line says what); 2 on bad usage.
set -euo pipefail

die() {
	printf 'kdeb: error: %s\n' "$*" >&2
	exit 1
}

usage() {
	sed -n '4,11p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

# 6.1/6.12 ship ./boot/vmlinuz-REL, 7.x ships ./usr/lib/modules/REL/vmlinuz;
# the modules directory's name is the kernel's `uname -r` either way.
unpack() {
	local deb=$1 dir=$2 list rel member
	[ -f "$deb" ] || die "$deb: no such file"
	list=$(dpkg-deb -c "$deb" 2>/dev/null | awk '{ print $6 }') ||
		die "$deb: not a Debian package"
	rel=$(grep -m1 -oE 'lib/modules/[^/]+/' <<<"$list" | cut -d/ -f3) || true
	member=$(grep -m1 -E '^\./boot/vmlinuz-|/lib/modules/[^/]+/vmlinuz$' <<<"$list") || true
	if [ -z "$rel" ] || [ -z "$member" ]; then
		die "$deb: not a kernel package (no vmlinuz, or no modules directory)"
	fi
	mkdir -p "$dir"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "$member" >"$dir/bzImage.tmp"
	[ -s "$dir/bzImage.tmp" ] || die "$deb: $member is empty"
	mv "$dir/bzImage.tmp" "$dir/bzImage"
	echo "$rel"
}

pack() {
	local kdir=$1 out=$2 rel ver pkg tmp deb arch img
	arch=$(jq -r '.arch // "amd64"' "$kdir/info.json" 2>/dev/null) || arch=
	img=$kdir/bzImage
	[ "$arch" = arm64 ] && img=$kdir/Image
	if [ -z "$arch" ] || [ ! -f "$img" ]; then
		die "$kdir: not a lab kernel directory (no info.json, or no bzImage or Image)"
	fi
	rel=$(jq -r .release "$kdir/info.json")
	# The source package's version, then what the lab made of it.
	ver=$(jq -r .version "$kdir/info.json")+fgt${rel##*-fgt-}
	pkg=linux-image-$rel
	mkdir -p "$out"
	deb=$out/${pkg}_${ver//:/%3a}_$arch.deb
	[ -f "$deb" ] && { echo "$deb"; return; }
	tmp=$(mktemp -d "$out/.pack.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	mkdir -p "$tmp/root/DEBIAN" "$tmp/root/boot" "$tmp/root/lib/modules/$rel"
	cp "$img" "$tmp/root/boot/vmlinuz-$rel"
	[ -f "$kdir/System.map" ] && cp "$kdir/System.map" "$tmp/root/boot/System.map-$rel"
	[ -f "$kdir/.config" ] && cp "$kdir/.config" "$tmp/root/boot/config-$rel"
	cat >"$tmp/root/DEBIAN/control" <<-EOF
		Package: $pkg
		Version: $ver
		Architecture: $arch
		Maintainer: fgraphtop lab <lab@localhost>
		Section: kernel
		Priority: optional
		Description: fgraphtop lab kernel $rel
		 Built by lab/kernels.sh from $(jq -r .package "$kdir/info.json") $(jq -r .version "$kdir/info.json"),
		 patches: $(jq -r '.patches | join(" ") | if . == "" then "none" else . end' "$kdir/info.json").
	EOF
	find "$tmp/root" -exec touch -h -d @0 {} +
	SOURCE_DATE_EPOCH=0 dpkg-deb --root-owner-group -Zxz --build "$tmp/root" "$tmp/out.deb" >/dev/null
	mv "$tmp/out.deb" "$deb"
	echo "$deb"
}

case ${1:-} in
unpack) [ $# -eq 3 ] || usage; unpack "$2" "$3" ;;
pack) [ $# -eq 3 ] || usage; pack "$2" "$3" ;;
*) usage ;;
esac
