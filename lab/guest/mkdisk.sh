#!/usr/bin/env bash
# The pressure scenario's disk (lab/scenarios/pressure.sh, lab/run.sh -d): an
# ext2 file system holding FILES files of FILE_MB MiB each, made once and kept
# in the cache. Reading them in the guest fills its page cache with clean,
# reclaimable pages: memory only reclaim can free, so GFP_NOWAIT (no direct
# reclaim) fails under it while GFP_KERNEL succeeds.
#
#   mkdisk.sh [FILES [FILE_MB]]      prints the image's path (default 4 x 512)
#
# The files are sparse, and so is the image (mke2fs -d keeps the holes): a
# hole reads as zeros into page-cache pages like any other, so the guest's
# cache fills as it would from data, without the host writing gigabytes.
# Each file's first 4 KiB is data, so the file system holds real blocks too.
set -euo pipefail

files=${1:-4}
mb=${2:-512}
CACHE=${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}
# Part of the name: bump when the recipe changes the image.
RECIPE=1
dir=$CACHE/disks
img=$dir/pressure-r$RECIPE-${files}x${mb}.ext2
if [ -s "$img" ]; then
	echo "$img"
	exit 0
fi
command -v mke2fs >/dev/null || { echo "mkdisk: no mke2fs (e2fsprogs)" >&2; exit 1; }
mkdir -p "$dir"
stage=$(mktemp -d "$dir/.stage.XXXXXX")
trap 'rm -rf "$stage" "$img.tmp"' EXIT
for i in $(seq 1 "$files"); do
	head -c 4096 /dev/urandom > "$stage/f$i"
	truncate -s "${mb}M" "$stage/f$i"
done
# the file system's size: the files' plus room for metadata; a sparse image
truncate -s $((files * mb + 64))M "$img.tmp"
mke2fs -q -F -t ext2 -L fgt-pressure -m 0 -d "$stage" "$img.tmp" >&2
mv "$img.tmp" "$img"
echo "$img"
