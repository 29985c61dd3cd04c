#!/usr/bin/env bash
# Regenerate vmlinux/x86/vmlinux.h from the BTF of Debian sid's newest 7.x kernel
# (the widest config we can observe). CO-RE relocations adapt it to older kernels.
#   lab/gen-vmlinux-h.sh [OUT]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../vmlinux/x86/vmlinux.h}
kdir=$("$here/kernels.sh" path debian-7.2)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/extract-vmlinux.sh" "$kdir/bzImage" > "$tmp/vmlinux"
bpftool btf dump file "$tmp/vmlinux" format c > "$tmp/vmlinux.h"
mv "$tmp/vmlinux.h" "$out"
echo "wrote $out from $(jq -r .package "$kdir/info.json") $(jq -r .version "$kdir/info.json")"
