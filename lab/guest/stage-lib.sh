# Sourced by lab/guest/mkbase.sh and lab/bench/mkbpftrace.sh: putting a
# dynamically linked Debian binary into a cpio stage so that it runs in the guest.
# shellcheck shell=bash

# elf_libs BINARY: every shared library ldd names for it, and ld.so, one per line.
elf_libs() {
	ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
}

# stage_elf STAGE BINARY DEST: BINARY at STAGE/DEST, plus its libraries at the
# paths ldd gives. usrmerge: the loader may look in /lib or /usr/lib, so a /lib
# library also gets a /usr/lib link.
stage_elf() {
	local stage=$1 bin=$2 dest=$3 lib

	mkdir -p "$stage$(dirname "$dest")"
	cp "$bin" "$stage$dest"
	for lib in $(elf_libs "$bin"); do
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
		case $lib in
		/lib/*) mkdir -p "$stage/usr$(dirname "$lib")"
			[ -e "$stage/usr$lib" ] || ln -s "$lib" "$stage/usr$lib" ;;
		esac
	done
}
