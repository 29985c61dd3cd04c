#!/usr/bin/env bash
# The lab's seven kernels, fetched (Debian's) or built (ours) once and cached
# outside the clone, keyed by their inputs. See docs/DESIGN.md, "Kernels".
#
#   kernels.sh list                 print the kernel names
#   kernels.sh ensure NAME...|all   fetch or build what is missing (no-op warm)
#   kernels.sh path NAME            print the kernel's directory
#
# Each kernel directory holds bzImage, vmlinux, info.json and, for lab
# kernels, System.map and .config. Environment: FGT_CACHE (cache root),
# FGT_JOBS (build parallelism, default nproc).
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

NAMES=(debian-6.1 debian-6.12 debian-7.2
	lab-stock lab-fixed lab-traceable-stock lab-traceable-fixed)
# Lab variants in build order: each step changes only kernel/trace/fgraph.c
# (and, into and out of the traceable pair, kernel/trace/Makefile), so every
# variant after the first is an incremental rebuild plus a relink.
LAB_ORDER=(lab-stock lab-fixed lab-traceable-fixed lab-traceable-stock)
# Part of every key: bump when the recipe below changes the artifacts.
RECIPE=1

log() { printf 'kernels: %s\n' "$*" >&2; }
die() {
	printf 'kernels: error: %s\n' "$*" >&2
	exit 1
}

is_name() {
	local n
	for n in "${NAMES[@]}"; do [ "$n" = "$1" ] && return 0; done
	return 1
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

# Resolution is redone only when the lists were refreshed, so warm runs just
# read the recorded result.
resolve() {
	refresh_lists
	if [ ! -f "$RESOLVED" ] || [ "$STAMP" -nt "$RESOLVED" ]; then
		log "resolving kernel versions"
		local var pkg ver out=""
		for var in debian_6_1:linux-image-6.1.0-:'^linux-image-6\.1\.0-[0-9]+-amd64$' \
			debian_6_12:linux-image-6.12.:'^linux-image-6\.12\.[0-9]+\+deb13-amd64$' \
			debian_7:linux-binary-7.:'^linux-binary-7\.[0-9]+\.[0-9]+\+deb14-amd64$' \
			source_7:linux-source-7.:'^linux-source-7\.[0-9]+$'; do
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

# info NAME RELEASE PACKAGE VERSION KEY PATCH...: write info.json to stdout
info_json() {
	local name=$1 rel=$2 pkg=$3 ver=$4 key=$5 p sep=""
	shift 5
	printf '{"name":"%s","release":"%s","package":"%s","version":"%s","key":"%s","patches":[' \
		"$name" "$rel" "$pkg" "$ver" "$key"
	for p; do
		printf '%s"%s"' "$sep" "$p"
		sep=,
	done
	printf ']}\n'
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

	local deb tmp list member rel
	deb=$(fetch_deb "$pkg" "$ver")
	log "$name: unpacking $pkg $ver"
	tmp=$(mktemp -d "$KDIR/.tmp-$name.XXXXXX")
	list=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
	# 6.1/6.12 ship /boot/vmlinuz-REL, 7.x ships usr/lib/modules/REL/vmlinuz;
	# the modules directory name is the kernel's uname -r either way.
	rel=$(grep -m1 -oE 'lib/modules/[^/]+/' <<<"$list" | cut -d/ -f3)
	member=$(grep -m1 -E '^\./boot/vmlinuz-|/lib/modules/[^/]+/vmlinuz$' <<<"$list")
	if [ -z "$rel" ] || [ -z "$member" ]; then
		die "$name: no vmlinuz or modules dir in $deb"
	fi
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "$member" >"$tmp/bzImage"
	"$LAB/extract-vmlinux.sh" "$tmp/bzImage" "$tmp/vmlinux"
	info_json "$name" "$rel" "$pkg" "$ver" "$key" >"$tmp/info.json"
	publish "$name" "$key" "$tmp"
	log "$name: $rel ready"
}

# --------------------------------------------------------- lab kernels

lab_patches() {
	case $1 in
	lab-stock) ;;
	lab-fixed) ls "$LAB"/patches/fix/*.patch ;;
	lab-traceable-stock) ls "$LAB"/patches/traceable/*.patch ;;
	lab-traceable-fixed) ls "$LAB"/patches/fix/*.patch "$LAB"/patches/traceable/*.patch ;;
	esac
}

lab_localversion() {
	case $1 in
	lab-stock) echo -fgt-stock ;;
	lab-fixed) echo -fgt-fixed ;;
	lab-traceable-stock) echo -fgt-tstock ;;
	lab-traceable-fixed) echo -fgt-tfixed ;;
	esac
}

# The toolchain shapes the artifacts (inlining, BTF), so it is in the key.
toolchain() {
	gcc --version | sed -n 1p
	pahole --version 2>/dev/null || echo no-pahole
}

lab_key() {
	local p
	{
		echo "$RECIPE $PKG_source_7 $VER_source_7 $(lab_localversion "$1")"
		toolchain
		cat "$LAB/config/lab.config"
		for p in $(lab_patches "$1"); do cat "$p"; done
	} | sha
}

# Set by resolve() from resolved.env, and by prepare_source().
PKG_source_7='' VER_source_7=''
SRCROOT='' SRC='' OBJ=''

# One source tree per source version, extracted once; a separate object
# tree (O=) shared by all variants so they rebuild incrementally.
prepare_source() {
	SRCROOT=$CACHE/src/$VER_source_7
	SRC=$SRCROOT/$PKG_source_7
	OBJ=$SRCROOT/obj
	[ -f "$SRCROOT/.extracted" ] && return 0
	local deb tarball
	deb=$(fetch_deb "$PKG_source_7" "$VER_source_7")
	tarball=$(dpkg-deb -c "$deb" | awk '$6 ~ /^\.\/usr\/src\/linux-source-.*\.tar\.xz$/ { print $6 }')
	[ -n "$tarball" ] || die "no source tarball in $deb"
	tarball=${tarball%%$'\n'*}
	log "extracting $PKG_source_7 $VER_source_7"
	rm -rf "$SRCROOT"
	mkdir -p "$SRCROOT"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "$tarball" | xz -dc -T0 | tar -x -C "$SRCROOT"
	[ -d "$SRC" ] || die "$tarball did not unpack into $SRC"
	touch "$SRCROOT/.extracted"
	# Older source versions' trees (2-3 GiB each) are only build caches:
	# their kernels stay in the store and their .debs in debs/.
	local d
	for d in "$CACHE"/src/*; do
		[ "$d" = "$SRCROOT" ] || rm -rf "$d"
	done
}

# Every file any lab patch touches gets a pristine copy the first time it
# is about to be patched; restoring copies them all back (new mtime, so make
# rebuilds what depends on them). Survives interrupted runs.
restore_pristine() {
	local f
	[ -f "$SRCROOT/touched" ] || return 0
	while read -r f; do
		cp "$SRCROOT/pristine/$f" "$SRC/$f"
	done <"$SRCROOT/touched"
}

save_pristine() {
	local f
	sed -n 's|^+++ b/||p' "$LAB"/patches/*/*.patch | sort -u |
		while read -r f; do
			[ -f "$SRCROOT/pristine/$f" ] && continue
			[ -f "$SRC/$f" ] || continue # created by a patch: nothing to save
			mkdir -p "$(dirname "$SRCROOT/pristine/$f")"
			cp "$SRC/$f" "$SRCROOT/pristine/$f.tmp"
			mv "$SRCROOT/pristine/$f.tmp" "$SRCROOT/pristine/$f"
			echo "$f" >>"$SRCROOT/touched"
		done
}

apply_patches() {
	local p
	for p; do
		patch -d "$SRC" -p1 --batch --forward --dry-run --silent <"$p" >/dev/null ||
			die "patch $(basename "$p") does not apply to $PKG_source_7 $VER_source_7: port it (lab/patches/)"
		patch -d "$SRC" -p1 --batch --forward --silent <"$p" >/dev/null
	done
}

# tinyconfig + our fragment, made once per fragment; variants only differ in
# LOCALVERSION on top of it.
base_config() {
	local want
	want=$(sha <"$LAB/config/lab.config")
	[ -f "$OBJ/lab-base.config" ] && [ "$(cat "$OBJ/lab-base.sha" 2>/dev/null)" = "$want" ] && return 0
	log "configuring (tinyconfig + lab/config/lab.config)"
	mkdir -p "$OBJ"
	make -C "$SRC" O="$OBJ" tinyconfig >/dev/null
	(cd "$SRC" && scripts/kconfig/merge_config.sh -m -O "$OBJ" "$OBJ/.config" "$LAB/config/lab.config") >/dev/null 2>&1
	cp "$OBJ/.config" "$OBJ/lab-base.config"
	echo "$want" >"$OBJ/lab-base.sha"
}

# tinyconfig silently drops options whose dependencies are unmet: every
# setting of the fragment must be in the final .config.
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
	done <"$LAB/config/lab.config"
	[ -z "$bad" ] || die "these lab.config settings did not survive olddefconfig (unmet dependencies?):$bad"
}

# Catch a patch or config that silently fails to do its job.
check_build() {
	local name=$1 sym
	sym=$(nm "$OBJ/vmlinux" | awk '$3 == "alloc_retstack_tasklist"')
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
}

build_lab() {
	local name=$1 key=$2 lv tmp rel logf
	local -a patches
	mapfile -t patches < <(lab_patches "$name")
	lv=$(lab_localversion "$name")
	logf=$CACHE/logs/$name.log
	mkdir -p "$CACHE/logs"

	restore_pristine
	save_pristine
	apply_patches "${patches[@]}"
	base_config
	cp "$OBJ/lab-base.config" "$OBJ/.config"
	"$SRC/scripts/config" --file "$OBJ/.config" --set-str LOCALVERSION "$lv" --disable LOCALVERSION_AUTO
	make -C "$SRC" O="$OBJ" olddefconfig >/dev/null
	check_config "$OBJ/.config"

	log "$name: building (-j$JOBS, log in $logf)"
	local t0=$SECONDS
	if ! make -C "$SRC" O="$OBJ" -j"$JOBS" bzImage >"$logf" 2>&1; then
		tail -n 30 "$logf" >&2
		restore_pristine
		die "$name: build failed, see $logf"
	fi
	restore_pristine
	check_build "$name"
	rel=$(cat "$OBJ/include/config/kernel.release")

	tmp=$(mktemp -d "$KDIR/.tmp-$name.XXXXXX")
	cp "$OBJ/arch/x86/boot/bzImage" "$OBJ/vmlinux" "$OBJ/System.map" "$tmp/"
	cp "$OBJ/.config" "$tmp/.config"
	# patches are named as in the repo, relative to lab/patches/
	info_json "$name" "$rel" "$PKG_source_7" "$VER_source_7" "$key" \
		"${patches[@]#"$LAB"/patches/}" >"$tmp/info.json"
	publish "$name" "$key" "$tmp"
	log "$name: $rel built in $((SECONDS - t0)) s"
}

ensure_lab() {
	local name key todo=()
	for name in "${LAB_ORDER[@]}"; do
		[[ " $* " == *" $name "* ]] || continue
		key=$(lab_key "$name")
		present "$name" "$key" || todo+=("$name:$key")
	done
	[ ${#todo[@]} -gt 0 ] || return 0
	prepare_source
	for name in "${todo[@]}"; do
		build_lab "${name%%:*}" "${name#*:}"
	done
}

# ------------------------------------------------------------- commands

ensure() {
	local n
	local -a names=()
	[ $# -gt 0 ] || die "usage: kernels.sh ensure NAME...|all"
	for n; do
		if [ "$n" = all ]; then
			names+=("${NAMES[@]}")
		elif is_name "$n"; then
			names+=("$n")
		else
			die "unknown kernel '$n' (see: kernels.sh list)"
		fi
	done
	mkdir -p "$CACHE" "$DEBS" "$KDIR/store"
	# One ensure at a time: they share the source and object trees.
	exec 9>"$CACHE/.kernels.lock"
	flock 9
	resolve
	for n in "${names[@]}"; do
		case $n in debian-*) ensure_debian "$n" ;; esac
	done
	ensure_lab "${names[@]}"
}

path() {
	if [ $# -ne 1 ] || ! is_name "$1"; then
		die "usage: kernels.sh path NAME (see: kernels.sh list)"
	fi
	[ -f "$KDIR/$1/info.json" ] || die "$1 is not in the cache: run lab/kernels.sh ensure $1"
	readlink -f "$KDIR/$1"
}

cmd=${1:-}
shift || true
case $cmd in
list) printf '%s\n' "${NAMES[@]}" ;;
ensure) ensure "$@" ;;
path) path "$@" ;;
*)
	echo "usage: kernels.sh list | ensure NAME...|all | path NAME" >&2
	exit 2
	;;
esac
