#!/usr/bin/env bash
# The lab's twenty-eight kernels, fetched (Debian's) or built (ours) once and
# cached outside the clone, keyed by their inputs: twenty-three x86-64 ones
# and five arm64 ones (issue 23). See docs/DESIGN.md, "Kernels".
#
#   kernels.sh list [--arch x86_64|arm64] [--tier test|long|all]
#                                   print the kernel names (of one architecture;
#                                   of one tier: test, make test's; long, those
#                                   only make test-long adds; all, the default)
#   kernels.sh ensure NAME...|all|test|long|x86_64|arm64
#                                   fetch or build what is missing (no-op warm);
#                                   all is both architectures, test and long
#                                   the tiers
#   kernels.sh path NAME            print the kernel's directory
#   kernels.sh patches NAME         print the patches a lab kernel is built with
#   kernels.sh source NAME          print the pristine source tree a lab kernel
#                                   is built from (extracted if missing)
#   kernels.sh deb NAME             print the path of the kernel's package: the
#                                   one fetched for debian-*, one made from the
#                                   build for lab-* (lab/kdeb.sh pack; for
#                                   lab/preflight.sh)
#   kernels.sh check-apply NAME     apply NAME's patches, in order, to a copy of
#                                   the files they touch; fails naming the version
#
# Each kernel directory holds bzImage (arm64: Image), info.json and, but for
# Debian's arm64 ones (their Image holds no ELF), vmlinux; lab kernels also
# System.map and .config. info.json's "arch" is "arm64" on arm64 and absent on
# x86-64. Environment: FGT_CACHE (cache root),
# FGT_JOBS (build parallelism, default nproc).
# Exit status: 0; 1 on any failure (one "kernels: error:" line says what);
# 2 on bad usage.
set -euo pipefail

LAB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}
export FGT_CACHE=$CACHE # debian-apt.sh keeps its state in the same cache
APT=$LAB/debian-apt.sh
DEBS=$CACHE/debs
KDIR=$CACHE/kernels
RESOLVED=$CACHE/resolved.env
STAMP=$CACHE/apt/update.stamp
JOBS=${FGT_JOBS:-$(nproc)}
# The clang the lab-clang-* kernels are built with, as LLVM=SUFFIX: 7.x
# needs LLVM 17.0.1 or later (scripts/min-tool-version.sh); Debian 12's
# clang is 14, its clang-19 package is 19 (lab/host-deps.sh).
CLANG_SUFFIX=${FGT_CLANG_SUFFIX:--19}

NAMES=(debian-5.10 debian-6.1 debian-6.12 debian-7.2
	lab-stock lab-fixed lab-fixed-plus lab-traceable-stock lab-traceable-fixed
	lab-shape-single lab-shape-pinned lab-shape-blocking lab-shape-v1
	lab-6.1-stock lab-6.1-fixed lab-6.12-stock lab-6.12-fixed
	lab-5.10-stock lab-5.10-fixed lab-6.12-nopreempt-stock lab-6.12-nopreempt-fixed
	lab-clang-stock lab-clang-fixed lab-lto-stock lab-lto-fixed
	lab-os-stock lab-os-fixed lab-debug-stock lab-debug-fixed)
# arm64: Debian's, fetched through lab/arm64-kernels.sh (an arm64 apt view of
# its own), and the 7.x pair cross-built (the arm64 flavour of series 7).
ARM64_NAMES=(debian-arm64-6.1 debian-arm64-6.12 debian-arm64-7.2 lab-arm64-stock lab-arm64-fixed)
# The kernels only make test-long uses (issue 23): each series here is a full
# build of 9 to 15 minutes on 2 cores (lab-6.1-stock 9, lab-6.12-stock 13,
# lab-6.12-nopreempt-stock 15), and with them a cold make test cannot fit 80
# minutes. make test keeps a kernel of every walk they show: the 6.1 and 6.12
# families through Debian's own (debian-6.1, debian-6.12), a stable backport
# of the fix through the 5.10 pair, a walk with no __rcu_read_lock call
# through debian-5.10 (PREEMPT_VOLUNTARY: rcu_read_lock() is no code) and the
# unit tests' recorded code of the nopreempt pair (tests/static/test_static.c).
# The clang pair (issue 39: a compiler's shapes, the static judge must answer
# them right) is another full build of series 7 with LLVM=1, make test-long's.
# So are the ThinLTO, -Os and debug pairs (lab-lto-*, lab-os-*, lab-debug-*:
# issue 39's builds that must be answered right or unknown, never wrong), each
# a full build of series 7 with a flavour of its own. So is the arm64 pair, a
# cross-built series 7 (about 18 minutes cold on 2 cores, the longest build
# left): make test keeps arm64 through Debian's
# three arm64 kernels, live, and the pair's recorded code in the unit tests
# (tests/static/test_static_arm64.c); a cold make test measured 2026-12-06
# ran past 90 minutes with it.
LONG_NAMES=(lab-6.1-stock lab-6.1-fixed lab-6.12-stock lab-6.12-fixed
	lab-6.12-nopreempt-stock lab-6.12-nopreempt-fixed lab-clang-stock lab-clang-fixed
	lab-lto-stock lab-lto-fixed lab-os-stock lab-os-fixed lab-debug-stock lab-debug-fixed
	lab-arm64-stock lab-arm64-fixed)
# Lab variants in build order. Four series, each with its own source and
# object tree: 7 (linux-source-7.x, the lab-* kernels), 6.1, 6.12 and 5.10
# (the stable backports, lab-6.1-*, lab-6.12-* and lab-5.10-*), the 6.12
# nopreempt flavour with an object tree of its own. Within a series each step
# changes only kernel/trace/fgraph.c (and, into and out of the traceable pair,
# kernel/trace/Makefile), so every variant after a series' first is an
# incremental rebuild plus a relink. A flavour (lab-6.12-nopreempt-*: another
# preemption model, so nearly every object differs) shares its series' source
# tree but has an object tree of its own, so that neither pair rebuilds the
# other's objects. The arm64 flavour (lab-arm64-*) is another architecture:
# cross-built, an object tree of its own.
LAB_ORDER=(lab-stock lab-fixed lab-fixed-plus
	lab-shape-single lab-shape-pinned lab-shape-blocking lab-shape-v1
	lab-traceable-fixed lab-traceable-stock
	lab-6.1-stock lab-6.1-fixed lab-6.12-stock lab-6.12-fixed
	lab-5.10-stock lab-5.10-fixed lab-6.12-nopreempt-stock lab-6.12-nopreempt-fixed
	lab-clang-stock lab-clang-fixed lab-os-stock lab-os-fixed
	lab-lto-stock lab-lto-fixed lab-debug-stock lab-debug-fixed
	lab-arm64-stock lab-arm64-fixed)
# Part of every key: bump when the recipe below changes the artifacts.
RECIPE=1

log() { printf 'kernels: %s\n' "$*" >&2; }
die() {
	printf 'kernels: error: %s\n' "$*" >&2
	exit 1
}
usage_die() {
	printf 'kernels: %s\n' "$*" >&2
	exit 2
}

is_name() {
	local n
	for n in "${NAMES[@]}" "${ARM64_NAMES[@]}"; do [ "$n" = "$1" ] && return 0; done
	return 1
}

# Source series of a lab kernel: 7, 6.1, 6.12 or 5.10.
lab_series() {
	case $1 in
	lab-6.1-*) echo 6.1 ;;
	lab-6.12-*) echo 6.12 ;;
	lab-5.10-*) echo 5.10 ;;
	*) echo 7 ;;
	esac
}

# Flavour of a lab kernel within its series: a config delta of its own
# (lab/config/SERIES-FLAVOUR.config) and an object tree of its own; "" for none.
lab_flavour() {
	case $1 in
	lab-6.12-nopreempt-*) echo nopreempt ;;
	lab-arm64-*) echo arm64 ;;
	lab-clang-*) echo clang ;;
	lab-lto-*) echo lto ;;
	lab-os-*) echo os ;;
	lab-debug-*) echo debug ;;
	*) echo "" ;;
	esac
}

# Is FLAVOUR built with clang (LLVM=CLANG_SUFFIX)? The clang pair and
# ThinLTO's, which only clang does.
clang_flavour() { [ "$1" = clang ] || [ "$1" = lto ]; }

# resolved.env variable suffix of a series' source package.
src_var() {
	case $1 in
	7) echo source_7 ;;
	6.1) echo source_6_1 ;;
	6.12) echo source_6_12 ;;
	5.10) echo source_5_10 ;;
	esac
}

sha() { sha256sum | cut -c1-16; }

# ---------------------------------------------------------------- versions

# The private lists are refreshed once a day: versions move, but a warm
# `ensure` must not touch the network.
refresh_lists() {
	if [ -f "$STAMP" ] && [ -z "$(find "$STAMP" -mmin +1440)" ]; then
		return 0
	fi
	log "refreshing the private Debian package lists"
	if "$APT" update; then
		touch "$STAMP"
	elif [ -f "$RESOLVED" ]; then
		log "warning: list refresh failed, keeping the versions resolved earlier"
	else
		die "cannot refresh the Debian package lists"
	fi
}

# newest PREFIX REGEX: the highest-versioned package name matching REGEX
newest() {
	"$APT" pkgnames "$1" | grep -E "$2" | sort -V | tail -n1 || true
}

candidate() {
	# no early exit from awk: with pipefail, SIGPIPE upstream is a failure
	"$APT" policy "$1" | awk '$1 == "Candidate:" && !v { v = $2 } END { print v }'
}

# What to resolve: VAR:PREFIX:REGEX, the newest package named PREFIX... that
# matches REGEX, and its candidate version, recorded as PKG_VAR and VER_VAR.
RESOLVE=(debian_5_10:linux-image-5.10.0-:'^linux-image-5\.10\.0-[0-9]+-amd64-unsigned$'
	debian_6_1:linux-image-6.1.0-:'^linux-image-6\.1\.0-[0-9]+-amd64$'
	debian_6_12:linux-image-6.12.:'^linux-image-6\.12\.[0-9]+\+deb13-amd64$'
	debian_7:linux-binary-7.:'^linux-binary-7\.[0-9]+\.[0-9]+\+deb14-amd64$'
	source_7:linux-source-7.:'^linux-source-7\.[0-9]+$'
	source_6_1:linux-source-6.1:'^linux-source-6\.1$'
	source_6_12:linux-source-6.12:'^linux-source-6\.12$'
	source_5_10:linux-source-5.10:'^linux-source-5\.10$')

# Every variable of RESOLVE is in resolved.env (an older recipe wrote fewer).
resolved_complete() {
	local var
	for var in "${RESOLVE[@]}"; do
		grep -q "^VER_${var%%:*}=" "$RESOLVED" || return 1
	done
}

# Resolution is redone only when the lists were refreshed (or a variable is
# missing), so warm runs just read the recorded result.
resolve() {
	# A variable missing from resolved.env may be a suite the lists were
	# fetched without (an older recipe's debian-apt.sh): refresh them first.
	[ -f "$RESOLVED" ] && ! resolved_complete && rm -f "$STAMP"
	refresh_lists
	if [ ! -f "$RESOLVED" ] || [ "$STAMP" -nt "$RESOLVED" ] || ! resolved_complete; then
		log "resolving kernel versions"
		local var v prefix re pkg ver out=""
		for var in "${RESOLVE[@]}"; do
			IFS=: read -r v prefix re <<<"$var"
			pkg=$(newest "$prefix" "$re")
			[ -n "$pkg" ] || die "no package matching $re in the Debian lists"
			ver=$(candidate "$pkg")
			if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
				die "no candidate version for $pkg"
			fi
			out+="PKG_$v=$pkg"$'\n'"VER_$v=$ver"$'\n'
		done
		printf '%s' "$out" >"$RESOLVED.tmp"
		mv "$RESOLVED.tmp" "$RESOLVED"
	fi
	# shellcheck disable=SC1090
	. "$RESOLVED"
}

# ------------------------------------------------------------ downloads

# fetch_deb PKG VER: print the path of the cached .deb, downloading it once.
fetch_deb() {
	local pkg=$1 ver=$2 f
	f="$DEBS/${pkg}_${ver//:/%3a}_"
	for f in "$f"*.deb; do [ -f "$f" ] && break; done
	if [ ! -f "$f" ]; then
		log "downloading $pkg $ver"
		rm -rf "$DEBS/partial"
		mkdir -p "$DEBS/partial"
		(cd "$DEBS/partial" && "$APT" download "$pkg=$ver" >&2) ||
			die "download of $pkg $ver failed"
		mv "$DEBS"/partial/*.deb "$DEBS"/
		rmdir "$DEBS/partial"
		f="$DEBS/${pkg}_${ver//:/%3a}_"
		for f in "$f"*.deb; do [ -f "$f" ] && break; done
	fi
	[ -f "$f" ] || die "no .deb for $pkg $ver after download"
	echo "$f"
}

# ---------------------------------------------------------- kernel dirs

# info NAME RELEASE PACKAGE VERSION KEY PATCH...: write info.json to stdout;
# INFO_EXTRA, when set, is more members (raw JSON) after "patches".
INFO_EXTRA=
info_json() {
	local name=$1 rel=$2 pkg=$3 ver=$4 key=$5 p sep=""
	shift 5
	printf '{"name":"%s","release":"%s","package":"%s","version":"%s","key":"%s","patches":[' \
		"$name" "$rel" "$pkg" "$ver" "$key"
	for p; do
		printf '%s"%s"' "$sep" "$p"
		sep=,
	done
	printf ']%s}\n' "${INFO_EXTRA:+,$INFO_EXTRA}"
}

# publish NAME KEY TMPDIR: move a finished kernel dir into the store and
# point the NAME link at it (the link is what `path` reads).
publish() {
	local name=$1 key=$2 tmp=$3 dst=$KDIR/store/$1-$2
	rm -rf "$dst"
	mv "$tmp" "$dst"
	ln -sfn "store/$name-$key" "$KDIR/$name"
}

# present NAME KEY: is this exact kernel already in the store?
present() {
	[ -f "$KDIR/store/$1-$2/info.json" ] || return 1
	[ "$(readlink "$KDIR/$1" 2>/dev/null)" = "store/$1-$2" ] ||
		ln -sfn "store/$1-$2" "$KDIR/$1"
}

# ------------------------------------------------------ Debian kernels

deb_var() {
	case $1 in
	debian-5.10) echo debian_5_10 ;;
	debian-6.1) echo debian_6_1 ;;
	debian-6.12) echo debian_6_12 ;;
	debian-7.2) echo debian_7 ;;
	esac
}

ensure_debian() {
	local name=$1 v pkg ver key
	v=$(deb_var "$name")
	pkg=PKG_$v ver=VER_$v
	pkg=${!pkg} ver=${!ver}
	key=$(printf '%s\n' "$RECIPE" "$pkg" "$ver" | sha)
	present "$name" "$key" && return 0

	local deb tmp rel
	deb=$(fetch_deb "$pkg" "$ver")
	log "$name: unpacking $pkg $ver"
	tmp=$(mktemp -d "$KDIR/.tmp-$name.XXXXXX")
	rel=$("$LAB/kdeb.sh" unpack "$deb" "$tmp") || die "$name: $deb: no kernel in it"
	"$LAB/extract-vmlinux.sh" "$tmp/bzImage" "$tmp/vmlinux"
	info_json "$name" "$rel" "$pkg" "$ver" "$key" >"$tmp/info.json"
	publish "$name" "$key" "$tmp"
	log "$name: $rel ready"
}

# Debian's arm64 kernels: lab/arm64-kernels.sh fetches the package (from an
# arm64 apt view of its own) and unpacks its Image; the directory holds that
# Image, named so, and no vmlinux: Debian's arm64 vmlinuz is an uncompressed
# Image, with no ELF or symbols in it.
ensure_debian_arm64() {
	local name=$1 pkg ver key img tmp rel
	read -r pkg ver < <("$LAB/arm64-kernels.sh" package "$name") ||
		die "$name: no package resolved"
	key=$(printf '%s\n' "$RECIPE" "$pkg" "$ver" arm64 | sha)
	present "$name" "$key" && return 0
	img=$("$LAB/arm64-kernels.sh" path "$name") || die "$name: no Image"
	tmp=$(mktemp -d "$KDIR/.tmp-$name.XXXXXX")
	cp "$img" "$tmp/Image"
	rel=${pkg#linux-image-}
	rel=${rel#linux-binary-}
	INFO_EXTRA='"arch":"arm64"' info_json "$name" "$rel" "$pkg" "$ver" "$key" >"$tmp/info.json"
	publish "$name" "$key" "$tmp"
	log "$name: $rel ready"
}

# --------------------------------------------------------- lab kernels

lab_patches() {
	case $1 in
	lab-stock) ;;
	lab-fixed) ls "$LAB"/patches/fix/*.patch ;;
	# fix-plus/: lab only, on top of the series: the walk in a helper under
	# guard(rcu)(), and a reserve that grows on each -EAGAIN
	# (two ls: one would sort fix-plus/ before fix/)
	lab-fixed-plus) ls "$LAB"/patches/fix/*.patch && ls "$LAB"/patches/fix-plus/*.patch ;;
	lab-traceable-stock) ls "$LAB"/patches/traceable/*.patch ;;
	# shape-*/: lab only, each alone on stock 7.x: the other shapes a fix
	# of the quadratic walk can take (issue 39; docs/static.md, "Shapes").
	# single: one walk, GFP_NOWAIT, no reserve, a task whose allocation
	# fails runs without a stack; pinned: GFP_NOWAIT, and on failure one
	# GFP_KERNEL allocation with the cursor pinned outside RCU; blocking:
	# every stack GFP_KERNEL before one walk (counted first); v1: the batch
	# of 32 and its -EAGAIN loop with cond_resched(), still quadratic.
	lab-shape-single) ls "$LAB"/patches/shape-single/*.patch ;;
	lab-shape-pinned) ls "$LAB"/patches/shape-pinned/*.patch ;;
	lab-shape-blocking) ls "$LAB"/patches/shape-blocking/*.patch ;;
	lab-shape-v1) ls "$LAB"/patches/shape-v1/*.patch ;;
	lab-traceable-fixed) ls "$LAB"/patches/fix/*.patch "$LAB"/patches/traceable/*.patch ;;
	# lab-6.1/: lab-only, lets failslab's stack filter be configured on
	# x86-64; in both 6.1 kernels so that they differ by the fix alone.
	lab-6.1-stock) ls "$LAB"/patches/lab-6.1/*.patch ;;
	lab-6.1-fixed) ls "$LAB"/patches/lab-6.1/*.patch "$LAB"/patches/fix-6.1/*.patch ;;
	lab-6.12-stock) ;;
	lab-6.12-fixed) ls "$LAB"/patches/fix-6.12/*.patch ;;
	# lab-5.10/: lab-only, as lab-6.1/ (the stack filter on x86-64)
	lab-5.10-stock) ls "$LAB"/patches/lab-5.10/*.patch ;;
	lab-5.10-fixed) ls "$LAB"/patches/lab-5.10/*.patch "$LAB"/patches/fix-5.10/*.patch ;;
	# the same fix on a kernel without PREEMPT_RCU: rcu_read_lock() is no call
	lab-6.12-nopreempt-stock) ;;
	lab-6.12-nopreempt-fixed) ls "$LAB"/patches/fix-6.12/*.patch ;;
	# the series as on x86: fgraph.c is the same on every architecture
	lab-arm64-stock) ;;
	lab-arm64-fixed) ls "$LAB"/patches/fix/*.patch ;;
	# the series built by clang (LLVM=1): another compiler's shapes
	lab-clang-stock) ;;
	lab-clang-fixed) ls "$LAB"/patches/fix/*.patch ;;
	# clang with ThinLTO, the whole kernel at -Os, and a debug build
	# (lockdep, PROVE_RCU, KASAN): shapes that must be right or unknown
	lab-lto-stock | lab-os-stock | lab-debug-stock) ;;
	lab-lto-fixed | lab-os-fixed | lab-debug-fixed) ls "$LAB"/patches/fix/*.patch ;;
	esac
}

# Every patch some kernel of SERIES applies: the files they touch get
# pristine copies in that series' tree.
series_patches() {
	case $1 in
	7) ls "$LAB"/patches/fix/*.patch "$LAB"/patches/fix-plus/*.patch "$LAB"/patches/traceable/*.patch \
		"$LAB"/patches/shape-*/*.patch ;;
	6.1) ls "$LAB"/patches/lab-6.1/*.patch "$LAB"/patches/fix-6.1/*.patch ;;
	6.12) ls "$LAB"/patches/fix-6.12/*.patch ;;
	5.10) ls "$LAB"/patches/lab-5.10/*.patch "$LAB"/patches/fix-5.10/*.patch ;;
	esac
}

lab_localversion() {
	case $1 in
	lab-stock | lab-6.1-stock | lab-6.12-stock | lab-5.10-stock) echo -fgt-stock ;;
	lab-fixed | lab-6.1-fixed | lab-6.12-fixed | lab-5.10-fixed) echo -fgt-fixed ;;
	lab-fixed-plus) echo -fgt-fplus ;;
	lab-traceable-stock) echo -fgt-tstock ;;
	lab-traceable-fixed) echo -fgt-tfixed ;;
	lab-shape-single) echo -fgt-ssingle ;;
	lab-shape-pinned) echo -fgt-spinned ;;
	lab-shape-blocking) echo -fgt-sblocking ;;
	lab-shape-v1) echo -fgt-sv1 ;;
	lab-6.12-nopreempt-stock) echo -fgt-npstock ;;
	lab-6.12-nopreempt-fixed) echo -fgt-npfixed ;;
	lab-arm64-stock) echo -fgt-astock ;;
	lab-arm64-fixed) echo -fgt-afixed ;;
	lab-clang-stock) echo -fgt-cstock ;;
	lab-clang-fixed) echo -fgt-cfixed ;;
	lab-lto-stock) echo -fgt-lstock ;;
	lab-lto-fixed) echo -fgt-lfixed ;;
	lab-os-stock) echo -fgt-ostock ;;
	lab-os-fixed) echo -fgt-ofixed ;;
	lab-debug-stock) echo -fgt-dstock ;;
	lab-debug-fixed) echo -fgt-dfixed ;;
	esac
}

# Config fragments of a series (and flavour), merged onto tinyconfig in this
# order: the one lab.config, then the series' delta where it needs one
# (lab/config/6.1.config, 6.12.config, 5.10.config), then the flavour's
# (lab/config/6.12-nopreempt.config). The 7.x kernels use lab.config alone.
series_config() {
	echo "$LAB/config/lab.config"
	[ "$1" = 7 ] || echo "$LAB/config/$1.config"
	[ -z "${2:-}" ] || echo "$LAB/config/$1-$2.config"
}

# The toolchain shapes the artifacts (inlining, BTF), so it is in the key: the
# cross compiler for the arm64 flavour.
toolchain() {
	if [ "$1" = arm64 ]; then
		aarch64-linux-gnu-gcc --version | sed -n 1p
	elif clang_flavour "$1"; then
		"clang$CLANG_SUFFIX" --version | sed -n 1p
	else
		gcc --version | sed -n 1p
	fi
	pahole --version 2>/dev/null || echo no-pahole
}

# The key of a lab kernel: everything its artifacts depend on. For the 7.x
# kernels this is byte for byte what it was before the other series came, so
# their cached builds stay valid.
lab_key() {
	local s p v pkg ver f
	s=$(lab_series "$1")
	f=$(lab_flavour "$1")
	v=$(src_var "$s")
	pkg=PKG_$v ver=VER_$v
	{
		echo "$RECIPE ${!pkg} ${!ver} $(lab_localversion "$1")"
		toolchain "$f"
		# shellcheck disable=SC2046
		cat $(series_config "$s" "$f")
		for p in $(lab_patches "$1"); do cat "$p"; done
	} | sha
}

# PKG_source_* and VER_source_* come from resolved.env (resolve()); these
# from prepare_source(); KMAKE (the architecture's make arguments) from
# ensure_lab().
SERIES='' SRC_PKG='' SRC_VER='' SRCROOT='' SRC='' OBJ='' FLAVOUR=''
KMAKE=()

# make in the series' tree, for the flavour's architecture
kmake() { make -C "$SRC" O="$OBJ" "${KMAKE[@]}" "$@"; }

# Is DIR (under src/) a source tree of SERIES?
tree_of_series() {
	local d
	case $1 in
	7) for d in "$2"/linux-source-7.*; do [ -d "$d" ] && return 0; done ;;
	*) [ -d "$2/linux-source-$1" ] && return 0 ;;
	esac
	return 1
}

# One source tree per series and source version, extracted once, with a
# separate object tree (O=) shared by the series' variants so they rebuild
# incrementally. Sets SERIES, SRC_PKG, SRC_VER, SRCROOT, SRC and OBJ.
prepare_source() {
	local v pkg ver
	SERIES=$1
	v=$(src_var "$SERIES")
	pkg=PKG_$v ver=VER_$v
	SRC_PKG=${!pkg} SRC_VER=${!ver}
	SRCROOT=$CACHE/src/$SRC_VER
	SRC=$SRCROOT/$SRC_PKG
	OBJ=$SRCROOT/obj
	[ -f "$SRCROOT/.extracted" ] && return 0
	local deb tarball
	deb=$(fetch_deb "$SRC_PKG" "$SRC_VER")
	tarball=$(dpkg-deb -c "$deb" | awk '$6 ~ /^\.\/usr\/src\/linux-source-.*\.tar\.xz$/ { print $6 }')
	[ -n "$tarball" ] || die "no source tarball in $deb"
	tarball=${tarball%%$'\n'*}
	log "extracting $SRC_PKG $SRC_VER"
	rm -rf "$SRCROOT"
	mkdir -p "$SRCROOT"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "$tarball" | xz -dc -T0 | tar -x -C "$SRCROOT"
	[ -d "$SRC" ] || die "$tarball did not unpack into $SRC"
	touch "$SRCROOT/.extracted"
	# Older source versions' trees of this series (2-3 GiB each) are only
	# build caches: their kernels stay in the store and their .debs in debs/.
	# The other series' trees stay; half-extracted ones go (we hold the lock).
	local d
	for d in "$CACHE"/src/*; do
		[ "$d" = "$SRCROOT" ] && continue
		if tree_of_series "$SERIES" "$d" || [ ! -f "$d/.extracted" ]; then
			rm -rf "$d"
		fi
	done
}

# Every file any lab patch of the series touches gets a pristine copy the
# first time it is about to be patched; restoring copies them all back (new
# mtime, so make rebuilds what depends on them). Survives interrupted runs.
restore_pristine() {
	local f
	[ -f "$SRCROOT/touched" ] || return 0
	while read -r f; do
		cp "$SRCROOT/pristine/$f" "$SRC/$f"
	done <"$SRCROOT/touched"
}

# The files a list of patches touches.
touched_by() {
	[ $# -gt 0 ] || return 0
	sed -n 's|^+++ b/||p' "$@" | sort -u
}

save_pristine() {
	local f
	local -a all
	mapfile -t all < <(series_patches "$SERIES")
	touched_by "${all[@]}" |
		while read -r f; do
			[ -f "$SRCROOT/pristine/$f" ] && continue
			[ -f "$SRC/$f" ] || continue # created by a patch: nothing to save
			mkdir -p "$(dirname "$SRCROOT/pristine/$f")"
			cp "$SRC/$f" "$SRCROOT/pristine/$f.tmp"
			mv "$SRCROOT/pristine/$f.tmp" "$SRCROOT/pristine/$f"
			echo "$f" >>"$SRCROOT/touched"
		done
}

# apply_patches DIR PATCH...: apply them in order to DIR, which holds the
# series' files; the first that does not apply is a loud failure naming the
# version the registry serves now.
apply_patches() {
	local dir=$1 p
	shift
	for p; do
		patch -d "$dir" -p1 --batch --forward --dry-run --silent <"$p" >/dev/null ||
			die "lab/${p#"$LAB"/} does not apply to $SRC_PKG $SRC_VER, the version the Debian registry serves now: port it"
		patch -d "$dir" -p1 --batch --forward --silent <"$p" >/dev/null
	done
}

# tinyconfig + the series' fragments, made once per fragment set; variants
# only differ in LOCALVERSION on top of it.
base_config() {
	local want
	local -a frags
	mapfile -t frags < <(series_config "$SERIES" "$FLAVOUR")
	want=$(cat "${frags[@]}" | sha)
	[ -f "$OBJ/lab-base.config" ] && [ "$(cat "$OBJ/lab-base.sha" 2>/dev/null)" = "$want" ] && return 0
	log "configuring (tinyconfig + ${frags[*]#"$LAB"/})"
	mkdir -p "$OBJ"
	kmake tinyconfig >/dev/null
	(cd "$SRC" && env "${KMAKE[@]}" scripts/kconfig/merge_config.sh -m -O "$OBJ" "$OBJ/.config" "${frags[@]}") >/dev/null 2>&1
	cp "$OBJ/.config" "$OBJ/lab-base.config"
	echo "$want" >"$OBJ/lab-base.sha"
}

# The settings of the series' fragments, the last one of each option winning
# (a series delta replaces lab.config's setting).
effective_config() {
	# shellcheck disable=SC2046
	awk 'match($0, /^CONFIG_[A-Za-z0-9_]+=/) {
		k = substr($0, 1, RLENGTH - 1)
		if (!(k in v))
			order[++n] = k
		v[k] = $0
	}
	END { for (i = 1; i <= n; i++) print v[order[i]] }' $(series_config "$SERIES" "$FLAVOUR")
}

# tinyconfig silently drops options whose dependencies are unmet: every
# setting of the fragments must be in the final .config.
check_config() {
	local line k v bad=""
	while IFS= read -r line; do
		[[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]] || continue
		k=${BASH_REMATCH[1]} v=${BASH_REMATCH[2]}
		if [ "$v" = n ]; then
			grep -q "^$k=" "$1" && bad+=" $k=n"
		else
			grep -qxF "$k=$v" "$1" || bad+=" $k=$v"
		fi
	done < <(effective_config)
	[ -z "$bad" ] || die "these settings of $(series_config "$SERIES" "$FLAVOUR" | sed "s|^$LAB/||" | paste -sd+) did not survive olddefconfig (unmet dependencies?):$bad"
}

# The function holding the sweep: alloc_retstack_tasklist where it is out of
# line, else register_ftrace_graph, which it is inlined into.
sweep_holder() {
	local f
	for f in alloc_retstack_tasklist register_ftrace_graph; do
		awk -v f=$f '$3 == f { found = 1 } END { exit !found }' "$OBJ/System.map" && { echo $f; return; }
	done
}

# sweep_allocs FUNC: the allocator calls in FUNC's machine code, one line
# each, "ALLOCATOR GFP SIZE": the call's target and the constants last loaded
# into %esi and %edx before it ("?" when none): the gfp argument of every
# allocator this can be, and the size of kmalloc_trace and
# __kmalloc_cache_noprof (x86-64 passes arguments in rdi, rsi, rdx).
sweep_allocs() {
	local lo hi
	lo=$(awk -v f="$1" '$3 == f { print $1; exit }' "$OBJ/System.map")
	hi=$(awk -v a="$lo" 'found && $1 != a { print $1; exit } $1 == a { found = 1 }' "$OBJ/System.map")
	if [ -z "$lo" ] || [ -z "$hi" ]; then
		die "no address range for $1 in System.map"
	fi
	objdump -d --no-show-raw-insn --start-address=0x"$lo" --stop-address=0x"$hi" "$OBJ/vmlinux" |
		awk '/mov +\$0x[0-9a-f]+,%esi$/ { split($NF, a, ","); gfp = substr(a[1], 2); next }
		/mov +\$0x[0-9a-f]+,%edx$/ { split($NF, a, ","); size = substr(a[1], 2); next }
		/call/ {
			if (match($0, /<[A-Za-z0-9_.]+>/)) {
				t = substr($0, RSTART + 1, RLENGTH - 2)
				if (t ~ /^(kmalloc|__kmalloc|kmem_cache_alloc)/)
					print t, (gfp == "" ? "?" : gfp), (size == "" ? "?" : size)
			}
			gfp = size = ""
		}'
}

# Catch a patch or config that silently fails to do its job.
check_build() {
	local name=$1 sym holder allocs nb a g sz
	sym=$(${CROSS_NM:-nm} "$OBJ/vmlinux" | awk '$3 == "alloc_retstack_tasklist"')
	case $name in
	lab-traceable-*)
		[ -n "$sym" ] || die "$name: alloc_retstack_tasklist is not out of line"
		# objtool turns the __fentry__ calls into nops and lists them in
		# __mcount_loc: that section is what dynamic ftrace patches.
		[[ $(readelf -SW "$OBJ/kernel/trace/fgraph.o") == *__mcount_loc* ]] ||
			die "$name: fgraph.o has no ftrace call sites (__mcount_loc)"
		;;
	*)
		[ -z "$sym" ] || log "note: $name: alloc_retstack_tasklist is out of line"
		;;
	esac
	[[ $(readelf -SW "$OBJ/vmlinux") == *" .BTF "* ]] || die "$name: vmlinux has no BTF"
	INFO_EXTRA=
	[ "$SERIES" = 7 ] && return 0
	# The backports, in the machine code: the fixed sweep makes non-blocking
	# allocations (no __GFP_DIRECT_RECLAIM, 0x400), the stock one none. The
	# calls found go into info.json: the allocator and gfp this kernel uses.
	holder=$(sweep_holder)
	[ -n "$holder" ] || die "$name: neither alloc_retstack_tasklist nor register_ftrace_graph in System.map"
	allocs=$(sweep_allocs "$holder")
	[ -n "$allocs" ] || die "$name: no allocator call in $holder"
	nb=
	while read -r a g sz; do
		if [ "$g" != "?" ] && (((g & 0x400) == 0)); then
			nb+="$a $g $sz;"
		fi
	done <<<"$allocs"
	case $name in
	*-fixed) [ -n "$nb" ] || die "$name: no non-blocking allocation in $holder: is the fix applied? (calls: $(paste -sd, <<<"$allocs"))" ;;
	*) [ -z "$nb" ] || die "$name: a non-blocking allocation in $holder on a stock kernel: $nb" ;;
	esac
	INFO_EXTRA=$(awk -v h="$holder" 'BEGIN { printf "\"sweep_holder\":\"%s\",\"sweep_allocs\":[", h }
		{ printf "%s{\"allocator\":\"%s\",\"gfp\":\"%s\",\"size\":\"%s\"}", (NR > 1 ? "," : ""), $1, $2, $3 }
		END { printf "]" }' <<<"$allocs")
	log "$name: allocator calls in $holder: $(paste -sd, <<<"$allocs")"
}

build_lab() {
	local name=$1 key=$2 lv tmp rel logf img
	local -a patches
	mapfile -t patches < <(lab_patches "$name")
	lv=$(lab_localversion "$name")
	logf=$CACHE/logs/$name.log
	mkdir -p "$CACHE/logs"

	restore_pristine
	save_pristine
	apply_patches "$SRC" "${patches[@]}"
	base_config
	cp "$OBJ/lab-base.config" "$OBJ/.config"
	"$SRC/scripts/config" --file "$OBJ/.config" --set-str LOCALVERSION "$lv" --disable LOCALVERSION_AUTO
	kmake olddefconfig >/dev/null
	check_config "$OBJ/.config"

	log "$name: building $SRC_PKG $SRC_VER (-j$JOBS, log in $logf)"
	local t0=$SECONDS
	img=arch/x86/boot/bzImage
	[ "$FLAVOUR" = arm64 ] && img=arch/arm64/boot/Image
	if ! kmake -j"$JOBS" "${img##*/}" >"$logf" 2>&1; then
		tail -n 30 "$logf" >&2
		restore_pristine
		die "$name: build failed, see $logf"
	fi
	restore_pristine
	check_build "$name"
	[ "$FLAVOUR" = arm64 ] && INFO_EXTRA='"arch":"arm64"'
	rel=$(cat "$OBJ/include/config/kernel.release")

	tmp=$(mktemp -d "$KDIR/.tmp-$name.XXXXXX")
	cp "$OBJ/$img" "$OBJ/vmlinux" "$OBJ/System.map" "$tmp/"
	cp "$OBJ/.config" "$tmp/.config"
	# patches are named as in the repo, relative to lab/patches/
	info_json "$name" "$rel" "$SRC_PKG" "$SRC_VER" "$key" \
		"${patches[@]#"$LAB"/patches/}" >"$tmp/info.json"
	publish "$name" "$key" "$tmp"
	log "$name: $rel built in $((SECONDS - t0)) s"
}

ensure_lab() {
	local name key s series todo=()
	for name in "${LAB_ORDER[@]}"; do
		[[ " $* " == *" $name "* ]] || continue
		key=$(lab_key "$name")
		present "$name" "$key" || todo+=("$name:$key")
	done
	[ ${#todo[@]} -gt 0 ] || return 0
	# LAB_ORDER keeps a series' variants together: one source tree at a time.
	for s in "${todo[@]}"; do
		name=${s%%:*}
		series=$(lab_series "$name")
		[ "$series" = "$SERIES" ] || prepare_source "$series"
		FLAVOUR=$(lab_flavour "$name")
		OBJ=$SRCROOT/obj${FLAVOUR:+-$FLAVOUR}
		KMAKE=() CROSS_NM=
		if [ "$FLAVOUR" = arm64 ]; then
			KMAKE=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
			CROSS_NM=aarch64-linux-gnu-nm
		elif clang_flavour "$FLAVOUR"; then
			KMAKE=(LLVM="$CLANG_SUFFIX")
		fi
		build_lab "$name" "${s#*:}"
	done
}

# ------------------------------------------------------------- commands

is_lab() { is_name "$1" && [[ $1 == lab-* ]]; }

# The lock (one kernels.sh at a time touches the trees) and the versions.
lock_and_resolve() {
	mkdir -p "$CACHE" "$DEBS" "$KDIR/store"
	exec 9>"$CACHE/.kernels.lock"
	flock 9
	resolve
}

ensure() {
	local n
	local -a names=()
	[ $# -gt 0 ] || usage_die "usage: kernels.sh ensure NAME...|all|test|long|x86_64|arm64"
	for n; do
		if [ "$n" = all ]; then
			names+=("${NAMES[@]}" "${ARM64_NAMES[@]}")
		elif [ "$n" = x86_64 ]; then
			names+=("${NAMES[@]}")
		elif [ "$n" = arm64 ]; then
			names+=("${ARM64_NAMES[@]}")
		elif [ "$n" = test ] || [ "$n" = long ]; then
			mapfile -t -O ${#names[@]} names < <(tier_names "$n" "${NAMES[@]}" "${ARM64_NAMES[@]}")
		elif is_name "$n"; then
			names+=("$n")
		else
			usage_die "unknown kernel '$n' (see: kernels.sh list)"
		fi
	done
	lock_and_resolve
	for n in "${names[@]}"; do
		case $n in
		debian-arm64-*) ensure_debian_arm64 "$n" ;;
		debian-*) ensure_debian "$n" ;;
		esac
	done
	ensure_lab "${names[@]}"
}

path() {
	if [ $# -ne 1 ] || ! is_name "$1"; then
		usage_die "usage: kernels.sh path NAME (see: kernels.sh list)"
	fi
	[ -f "$KDIR/$1/info.json" ] || die "$1 is not in the cache: run lab/kernels.sh ensure $1"
	readlink -f "$KDIR/$1"
}

# The package a kernel came in (debian-*), or one made from its build (lab-*,
# kept in the kernel's directory: the same build gives the same bytes).
deb() {
	local d pkg ver f debs=$DEBS
	if [ $# -ne 1 ] || ! is_name "$1"; then
		usage_die "usage: kernels.sh deb NAME (see: kernels.sh list)"
	fi
	d=$(path "$1")
	case $1 in
	debian-*)
		# the arm64 ones are fetched by lab/arm64-kernels.sh, into its own
		[[ $1 == debian-arm64-* ]] && debs=$CACHE/arm64/debs
		pkg=$(jq -r .package "$d/info.json")
		ver=$(jq -r .version "$d/info.json")
		for f in "$debs/${pkg}_${ver//:/%3a}_"*.deb; do
			[ -f "$f" ] && { echo "$f"; return; }
		done
		die "$1: its package is gone from $debs: run lab/kernels.sh ensure $1"
		;;
	*) "$LAB/kdeb.sh" pack "$d" "$d" ;;
	esac
}

patches() {
	if [ $# -ne 1 ] || ! is_lab "$1"; then
		usage_die "usage: kernels.sh patches LAB-KERNEL (a lab-* name of kernels.sh list)"
	fi
	lab_patches "$1"
}

# The series' tree, pristine (a build restores it when done; an interrupted
# one is undone here).
source_tree() {
	if [ $# -ne 1 ] || ! is_lab "$1"; then
		usage_die "usage: kernels.sh source LAB-KERNEL (a lab-* name of kernels.sh list)"
	fi
	lock_and_resolve
	prepare_source "$(lab_series "$1")"
	restore_pristine
	echo "$SRC"
}

# NAME's patches applied in order, as a build would, to a scratch copy of the
# files they touch: the check that they still apply to the version the
# registry serves now, without a build.
check_apply() {
	if [ $# -ne 1 ] || ! is_lab "$1"; then
		usage_die "usage: kernels.sh check-apply LAB-KERNEL (a lab-* name of kernels.sh list)"
	fi
	local -a patches
	local f
	mapfile -t patches < <(lab_patches "$1")
	lock_and_resolve
	prepare_source "$(lab_series "$1")"
	restore_pristine
	SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/fgt-apply.XXXXXX")
	trap 'rm -rf "$SCRATCH"' EXIT
	while read -r f; do
		[ -f "$SRC/$f" ] || continue
		mkdir -p "$SCRATCH/$(dirname "$f")"
		cp "$SRC/$f" "$SCRATCH/$f"
	done < <(touched_by "${patches[@]}")
	apply_patches "$SCRATCH" "${patches[@]}"
	log "$1: ${#patches[@]} patch(es) apply to $SRC_PKG $SRC_VER"
}

is_long() {
	local n
	for n in "${LONG_NAMES[@]}"; do [ "$n" = "$1" ] && return 0; done
	return 1
}

# tier_names TIER NAME...: those of the names in the tier (test, long or all).
tier_names() {
	local tier=$1 n
	shift
	for n; do
		case $tier in
		test) is_long "$n" && continue ;;
		long) is_long "$n" || continue ;;
		esac
		echo "$n"
	done
}

list() {
	local tier=all usage="usage: kernels.sh list [--arch x86_64|arm64] [--tier test|long|all]"
	local -a names=("${NAMES[@]}" "${ARM64_NAMES[@]}")
	while [ $# -gt 0 ]; do
		case ${1}/${2:-} in
		--arch/x86_64) names=("${NAMES[@]}") ;;
		--arch/arm64) names=("${ARM64_NAMES[@]}") ;;
		--tier/test | --tier/long | --tier/all) tier=$2 ;;
		*) usage_die "$usage" ;;
		esac
		shift 2
	done
	tier_names "$tier" "${names[@]}"
}

cmd=${1:-}
shift || true
case $cmd in
list) list "$@" ;;
ensure) ensure "$@" ;;
path) path "$@" ;;
deb) deb "$@" ;;
patches) patches "$@" ;;
source) source_tree "$@" ;;
check-apply) check_apply "$@" ;;
*) usage_die "usage: kernels.sh list [--arch x86_64|arm64] [--tier test|long|all] | ensure NAME...|all|test|long|x86_64|arm64 | path NAME | deb NAME | patches NAME | source NAME | check-apply NAME" ;;
esac
