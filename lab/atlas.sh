#!/usr/bin/env bash
# The atlas: `fgraphtop check --kernel` on every kernel image package in
# Debian's registry, amd64 and arm64, every suite (issue 40), one row per
# image in a Markdown table.
#
#   atlas.sh list                 resolve the packages now: one line per
#                                 image, "ARCH PKG VERSION SUITES BYTES"
#   atlas.sh fetch                download every listed .deb into the cache
#   atlas.sh run OUT.md           fetch, then check each .deb; write OUT.md
#   atlas.sh files OUT.md FILE... check the given files (a .deb, a vmlinuz,
#                                 an Image) instead: what make check runs on
#                                 two small inputs, offline
#
# The packages are resolved at run time through a private apt view of its
# own ($FGT_CACHE/atlas/apt-ARCH: sources list, lists and state there, the
# system's apt configuration untouched), whose mirror is the one this
# machine's apt sources name (lab/debian-apt.sh mirror): no host name is
# written here. An image package is linux-image-<release>-<flavour>[-unsigned]
# or, from 7.x, linux-binary-<release>-<flavour>; meta packages (no release
# in the name) and -dbg ones are not images. The .debs are kept in
# $FGT_CACHE/atlas/debs, outside the clone (about 3 GB).
#
# FGRAPHTOP (default build/fgraphtop) is the binary checked with; each .deb
# is passed as it is (check --kernel reads a .deb's vmlinuz itself). Seconds
# and peak RSS are the check's own (GNU time's %e and %M).
# Exit status: 0 when every row was written (whatever the verdicts); 1 when
# a step failed; 2 on bad usage.
set -euo pipefail

LAB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$LAB/.." && pwd)
CACHE=${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}
ADIR=$CACHE/atlas
FGRAPHTOP=${FGRAPHTOP:-$ROOT/build/fgraphtop}
SUITES=(bullseye bookworm bookworm-backports trixie trixie-backports sid experimental)
ARCHES=(amd64 arm64)

die() {
	echo "atlas: error: $*" >&2
	exit 1
}

usage() {
	sed -n '6,13p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

aptdir() { echo "$ADIR/apt-$1"; }

apt_setup() {
	local arch=$1 d m s
	d=$(aptdir "$arch")
	m=$("$LAB/debian-apt.sh" mirror)
	mkdir -p "$d/lists/partial" "$d/archives/partial" "$d/etc" "$d/cache"
	: > "$d/etc/sources.list.tmp"
	for s in "${SUITES[@]}"; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $m $s main" \
			>> "$d/etc/sources.list.tmp"
	done
	mv "$d/etc/sources.list.tmp" "$d/etc/sources.list"
	touch "$d/etc/status"
}

apt_opts() {
	local d
	d=$(aptdir "$1")
	echo -o "Dir::Etc::sourcelist=$d/etc/sources.list" \
		-o Dir::Etc::sourceparts=- \
		-o "Dir::State::Lists=$d/lists" \
		-o "Dir::State::status=$d/etc/status" \
		-o "Dir::Cache=$d/cache" \
		-o "Dir::Cache::archives=$d/archives" \
		-o "Dir::Cache::pkgcache=$d/cache/pkgcache.bin" \
		-o "Dir::Cache::srcpkgcache=$d/cache/srcpkgcache.bin" \
		-o APT::Architecture="$1" -o APT::Architectures="$1" -o Acquire::Languages=none \
		-o APT::Sandbox::User=root -o Acquire::Check-Valid-Until=false
}

# The lists, refreshed once a day.
apt_update() {
	local arch=$1 stamp
	stamp=$(aptdir "$arch")/update.stamp
	apt_setup "$arch"
	if [ -f "$stamp" ] && [ -z "$(find "$stamp" -mmin +1440)" ]; then
		return 0
	fi
	# shellcheck disable=SC2046
	apt-get $(apt_opts "$arch") -q update >&2 || die "apt update ($arch) failed"
	touch "$stamp"
}

# "ARCH PKG VERSION SUITE SIZE" for every image package in the lists, read
# from the Packages files themselves (each names its suite). Meta packages
# are left out: those with no release in the name, and from 6.19 on the
# linux-image-REL-FLAVOUR ones too, which only depend on linux-binary-*
# (an Installed-Size of a few KiB; an image is MiBs).
list_arch() {
	local arch=$1 d f suite
	d=$(aptdir "$arch")
	for f in "$d"/lists/*_dists_*_main_binary-"$arch"_Packages*; do
		[ -f "$f" ] || continue
		suite=${f##*_dists_}
		suite=${suite%%_main_*}
		# apt keeps the lists compressed (lz4 here): its helper reads any
		/usr/lib/apt/apt-helper cat-file "$f" | awk -v arch="$arch" -v suite="$suite" '
			function out() {
				if (p ~ /^linux-(image|binary)-[0-9]+\.[0-9]+[.0-9]*[-+][^ ]*$/ &&
				    p !~ /-dbg$/ && isz >= 2048)
					print arch, p, v, suite, sz
				p = v = ""; isz = sz = 0
			}
			/^Package: / { p = $2 }
			/^Version: / { v = $2 }
			/^Installed-Size: / { isz = $2 }
			/^Size: / { sz = $2 }
			/^$/ { out() }
			END { out() }'
	done
}

# Every suite's current image of each flavour (linux-image-* up to 6.18,
# linux-binary-* from 6.19 on): of the packages a suite holds
# for one flavour (linux-image-6.1.0-47-amd64 and -50-amd64 are both in
# bookworm; the backports keep every release they had), the newest version.
# One line per image: "ARCH PKG VERSION SUITES SIZE", a version in two suites
# (a point release in sid and experimental) once.
list() {
	local arch
	for arch in "${ARCHES[@]}"; do
		apt_update "$arch"
		list_arch "$arch"
	done | awk '
		{
			fl = $2
			sub(/^linux-(image|binary)-[0-9]+\.[0-9]+[.0-9]*(-[0-9]+)?(\+deb[0-9.]+)?-/, "", fl)
			print $1, $4, fl, $3, $2, $5
		}' | sort -k1,1 -k2,2 -k3,3 -k4,4V | awk '
		{ k = $1 " " $2 " " $3; last[k] = $1 " " $5 " " $4 " " $2 " " $6 }
		END { for (k in last) print last[k] }' |
		sort -k1,1 -k2,2V -k3,3V -k4,4 | awk '
		{ k = $1 " " $2 " " $3 }
		k == prev { s = s "," $4; next }
		{ if (prev != "") print prev, s, sz; prev = k; s = $4; sz = $5 }
		END { if (prev != "") print prev, s, sz }'
}

debpath() { echo "$ADIR/debs/${2}_${3//:/%3a}_$1.deb"; }

# ARCH PKG VERSION: the cached .deb, downloaded once
fetch_one() {
	local arch=$1 pkg=$2 ver=$3 deb part
	deb=$(debpath "$arch" "$pkg" "$ver")
	[ -s "$deb" ] && { echo "$deb"; return 0; }
	part=$ADIR/debs/partial-$arch-$$
	rm -rf "$part"
	mkdir -p "$part"
	echo "atlas: downloading $pkg $ver ($arch)" >&2
	# shellcheck disable=SC2046
	(cd "$part" && apt-get $(apt_opts "$arch") -q download "$pkg=$ver" >&2) ||
		{ rm -rf "$part"; die "download of $pkg $ver ($arch) failed"; }
	mv "$part"/*.deb "$deb"
	rmdir "$part"
	echo "$deb"
}

fetch() {
	local arch pkg ver suites
	list > "$ADIR/list.txt.tmp"
	mv "$ADIR/list.txt.tmp" "$ADIR/list.txt"
	while read -r arch pkg ver suites _; do
		fetch_one "$arch" "$pkg" "$ver" > /dev/null
	done < "$ADIR/list.txt"
}

# One row: FILE ARCH PKG VERSION SUITES -> "| ... |" on stdout
row() {
	local file=$1 arch=$2 pkg=$3 ver=$4 suites=$5 out tm rc secs rss bid verdict shape why
	out=$(mktemp)
	tm=$(mktemp)
	rc=0
	/usr/bin/time -f '%e %M' -o "$tm" "$FGRAPHTOP" check --kernel "$file" --json \
		> "$out" 2> /dev/null || rc=$?
	# time writes "Command exited with non-zero status N" first when it is not 0
	read -r secs rss < <(tail -n 1 "$tm") || { secs="?"; rss=0; }
	bid=$(jq -r '.static.build_id // .build_id // empty' "$out" 2>/dev/null)
	verdict=$(jq -r '.static.verdict // .verdict // empty' "$out" 2>/dev/null)
	why=$(jq -r '.static.why // empty' "$out" 2>/dev/null)
	# the evidence's shape: how the walk was found, and each shadow-stack
	# allocation's flags and place ("outside" the walk: the batch)
	shape=$(jq -r '.static | select(.walk) | "walk: \(.walk); shadow stacks: " +
		([.sites[]? | select(.kind == "shadow") | "\(.gfp) \(.rcu)"] | unique |
		 if length == 0 then "none" else join(", ") end)' "$out" 2>/dev/null)
	[ -n "$verdict" ] || verdict="status $rc"
	[ -n "$why" ] && [ "$why" != null ] && verdict="$verdict ($why)"
	# shellcheck disable=SC2016 # the backquotes are Markdown's
	printf '| %s | %s | %s | %s | `%s` | %s | %s | %s | %s |\n' "$arch" "$pkg" "$ver" "$suites" \
		"${bid:-none}" "$verdict" "${shape:--}" "$secs" "$((rss / 1024))"
	rm -f "$out" "$tm"
}

header() {
	cat <<EOT
| arch | package | version | suites | build ID | verdict | evidence's shape | s | peak RSS MiB |
|------|---------|---------|--------|----------|---------|------------------|---|--------------|
EOT
}

summary() {
	# the table's rows on stdin
	awk -F' [|] ' '
		{ n++; c[$6]++ }
		END { printf "%d images:", n; for (k in c) printf " %d %s,", c[k], k; print "" }' |
		sed 's/,$/./'
}

write_md() {
	local md=$1 rows=$2 what=$3
	{
		echo "# The atlas: every Debian kernel image, checked offline"
		echo
		echo "Generated by \`make atlas\` (lab/atlas.sh): \`fgraphtop check --kernel\` on $what."
		echo "Do not edit by hand. $(summary < "$rows")"
		echo
		header
		cat "$rows"
	} > "$md.tmp"
	mv "$md.tmp" "$md"
}

cmd=${1:-}
[ -n "$cmd" ] || usage
shift
mkdir -p "$ADIR/debs"
case $cmd in
list)
	list ;;
fetch)
	fetch ;;
run)
	[ $# -eq 1 ] || usage
	[ -x "$FGRAPHTOP" ] || die "$FGRAPHTOP: not built (make)"
	fetch
	rows=$(mktemp)
	trap 'rm -f "$rows"' EXIT
	while read -r arch pkg ver suites _; do
		echo "atlas: $pkg $ver ($arch)" >&2
		row "$(debpath "$arch" "$pkg" "$ver")" "$arch" "$pkg" "$ver" "$suites" >> "$rows"
	done < "$ADIR/list.txt"
	write_md "$1" "$rows" "each package's .deb as Debian ships it, $(date -u +%Y-%m-%d)" ;;
files)
	[ $# -ge 2 ] || usage
	md=$1
	shift
	[ -x "$FGRAPHTOP" ] || die "$FGRAPHTOP: not built (make)"
	rows=$(mktemp)
	trap 'rm -f "$rows"' EXIT
	for f in "$@"; do
		[ -f "$f" ] || die "$f: no such file"
		row "$f" - "$(basename "$f")" - - >> "$rows"
	done
	write_md "$md" "$rows" "the files given" ;;
*)
	usage ;;
esac
