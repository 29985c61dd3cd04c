#!/usr/bin/env bash
# Install the host packages the build, the tests and the lab need (Debian).
# Only missing packages are installed, so a warm machine pays one dpkg query.
set -euo pipefail

PKGS=(
	make gcc clang llvm libbpf-dev libelf-dev zlib1g-dev bpftool
	libcmocka-dev pkg-config
	# check --static: Capstone and the bzImage payloads' decompressors, as static
	# archives (libcapstone-dev ships libcapstone.a; libzydis-dev has no .a)
	libcapstone-dev liblzma-dev libzstd-dev liblz4-dev libbz2-dev liblzo2-dev
	# check --kernel PKG.deb: the package's data member, through libarchive
	libarchive-dev
	qemu-system-x86 busybox-static cpio xz-utils zstd
	bc flex bison libssl-dev dwarves kmod rsync
	python3 jq mandoc prometheus trace-cmd
	# make deb, make test-deb (debhelper, lintian; systemd-analyze, man for its verify)
	build-essential dpkg-dev debhelper lintian systemd man-db mmdebstrap
	python3-pyte
	# tests/load.sh: a documented CPU hog beside the lab (issue 38)
	stress-ng
	# the JSON outputs against docs/fgraphtop.schema.json (draft 2020-12): tests/json_schema.py
	python3-jsonschema
	# make bench: its plot (docs/bench/fix.svg, fix.png)
	gnuplot-nox
	# the pressure scenario's disk (lab/guest/mkdisk.sh: mke2fs -d)
	e2fsprogs
	# make ARCH=arm64 (build/arm64/fgraphtop) and the arm64 static table:
	# the cross compiler, the arm64 libraries as static archives (multiarch),
	# aarch64 objdump for the table's cross-check, qemu to run and boot it.
	# make deb ARCH=arm64 needs no more (dpkg-buildpackage -a arm64 checks
	# build-essential:native; dh_strip uses aarch64-linux-gnu-strip): not
	# crossbuild-essential-arm64, whose g++ and dpkg-cross it never runs
	gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
	libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libcapstone-dev:arm64
	liblzma-dev:arm64 libzstd-dev:arm64 liblz4-dev:arm64 libbz2-dev:arm64 liblzo2-dev:arm64
	libarchive-dev:arm64
	qemu-user-static qemu-system-arm
	# make test-long's lab-clang-* kernels (LLVM=-19): 7.x needs LLVM 17 or
	# later, Debian 12's clang is 14 (issue 39)
	clang-19 lld-19 llvm-19
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "host-deps: missing packages: ${missing[*]}; run as root or install them" >&2
	exit 1
fi
echo "host-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# the :arm64 packages need the architecture in dpkg (multiarch)
if printf '%s\n' "${missing[@]}" | grep -q ':arm64$' &&
	! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
fi
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
