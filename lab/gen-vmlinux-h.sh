#!/usr/bin/env bash
# Regenerate vmlinux/ARCH/vmlinux.h from the BTF of Debian sid's newest 7.x kernel
# (the widest config we can observe). CO-RE relocations adapt it to older kernels.
#   lab/gen-vmlinux-h.sh [OUT]              x86: from the amd64 bzImage
#   lab/gen-vmlinux-h.sh --arch arm64 [OUT] arm64: from the arm64 Image (its .BTF
#                                           found by fgt-static, as check reads it)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
arch=x86
if [ "${1:-}" = --arch ]; then
	arch=$2
	shift 2
fi
out=${1:-$here/../vmlinux/$arch/vmlinux.h}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $arch in
x86)
	kdir=$("$here/kernels.sh" path debian-7.2)
	"$here/extract-vmlinux.sh" "$kdir/bzImage" > "$tmp/vmlinux"
	bpftool btf dump file "$tmp/vmlinux" format c > "$tmp/vmlinux.h"
	from="$(jq -r .package "$kdir/info.json") $(jq -r .version "$kdir/info.json")" ;;
arm64)
	static=${FGT_STATIC:-$here/../build/fgt-static}
	[ -x "$static" ] || { echo "gen-vmlinux-h: no $static (make)" >&2; exit 1; }
	img=$("$here/arm64-kernels.sh" path debian-arm64-7.2)
	"$static" --dump-btf "$tmp/vmlinux.btf" --kernel "$img"
	bpftool btf dump file "$tmp/vmlinux.btf" format c > "$tmp/vmlinux.h"
	from=$("$here/arm64-kernels.sh" package debian-arm64-7.2) ;;
*)
	echo "gen-vmlinux-h: --arch x86 or arm64" >&2
	exit 2 ;;
esac
mkdir -p "$(dirname "$out")"
mv "$tmp/vmlinux.h" "$out"
echo "wrote $out from $from"
