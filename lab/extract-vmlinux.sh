#!/usr/bin/env bash
# Extract the uncompressed vmlinux ELF from a bzImage (or vmlinuz).
# In the spirit of the kernel's scripts/extract-vmlinux: look for the magic of
# each supported compressor, try to decompress from every offset where it
# occurs, and keep the first result that is an ELF file. Debian's System.map
# is a placeholder, so this is how we get real kallsyms ranges and BTF.
#
#   extract-vmlinux.sh BZIMAGE OUT
set -euo pipefail

img=${1:?usage: extract-vmlinux.sh BZIMAGE OUT}
out=${2:?usage: extract-vmlinux.sh BZIMAGE OUT}
tmp=$(mktemp "${out}.XXXXXX")
trap 'rm -f "$tmp"' EXIT

is_elf() {
	[ "$(head -c4 "$1" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]
}

# try MAGIC(perl regex of bytes) DECOMPRESSOR...
try() {
	local magic=$1 pos
	shift
	command -v "$1" >/dev/null || return 1
	# shellcheck disable=SC2013 # byte offsets, one number a line: words are lines
	for pos in $(LC_ALL=C grep -obUaP "$magic" "$img" | cut -d: -f1); do
		# The payload is followed by other data: decompressors complain
		# about trailing garbage after writing everything, so ignore status.
		tail -c+$((pos + 1)) "$img" | "$@" >"$tmp" 2>/dev/null || true
		if [ -s "$tmp" ] && is_elf "$tmp"; then
			return 0
		fi
	done
	return 1
}

if is_elf "$img"; then
	cp "$img" "$tmp"
elif try '\x28\xb5\x2f\xfd' zstd -dc ||
	try '\xfd\x37\x7a\x58\x5a\x00' xz -dc ||
	try '\x1f\x8b\x08' gzip -dc ||
	try '\x5d\x00\x00\x00' unlzma -c ||
	try '\x42\x5a\x68' bzip2 -dc ||
	try '\x02\x21\x4c\x18' lz4 -dc; then
	:
else
	echo "extract-vmlinux: no vmlinux found in $img" >&2
	exit 1
fi
chmod 0644 "$tmp"
mv "$tmp" "$out"
trap - EXIT
