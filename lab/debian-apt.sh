#!/usr/bin/env bash
# Private apt view of Debian's suites (bullseye, bookworm, trixie, sid,
# bookworm-backports), without touching the system's apt configuration.
# The mirror address is taken
# from this machine's own apt sources: never written into the repository.
#
#   debian-apt.sh update            refresh the private package lists
#   debian-apt.sh policy PKG...     apt-cache policy through the private view
#   debian-apt.sh search REGEX      apt-cache search
#   debian-apt.sh pkgnames PREFIX   package names starting with PREFIX (fast)
#   debian-apt.sh download PKG...   apt-get download into the current directory
#   debian-apt.sh simulate SUITE PKG...  what installing PKG... from SUITE would
#                                   install on an empty system ("Inst" lines)
#   debian-apt.sh mirror            print the mirror URI in use
#
# FGT_APT_ARCH (default amd64) picks the architecture; another one (arm64)
# gets a view of its own ($FGT_CACHE/apt-ARCH), so that neither refresh
# disturbs the other's lists.
set -euo pipefail

CACHE=${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}
ARCH=${FGT_APT_ARCH:-amd64}
case $ARCH in
amd64) APTDIR=$CACHE/apt ;;
arm64) APTDIR=$CACHE/apt-$ARCH ;;
*)
	echo "debian-apt: FGT_APT_ARCH=$ARCH: only amd64 and arm64" >&2
	exit 2 ;;
esac

mirror() {
	# deb822 sources first, then one-line ones; skip security archives.
	local uri
	uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -v -e security -e '^cdrom' | grep '/debian/\?$' | head -n1 || true)
	if [ -z "$uri" ]; then
		uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }' \
			/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			grep -v security | grep '/debian/\?$' | head -n1 || true)
	fi
	if [ -z "$uri" ]; then
		echo "debian-apt: no Debian mirror found in /etc/apt; add one to the system's apt sources" >&2
		exit 1
	fi
	echo "${uri%/}"
}

setup() {
	local m
	m=$(mirror)
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/archives/partial" "$APTDIR/etc"
	cat > "$APTDIR/etc/sources.list" <<EOT
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $m bullseye main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $m bookworm main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $m bookworm-backports main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $m trixie main
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $m sid main
EOT
	touch "$APTDIR/etc/status"
}

opts() {
	echo -o "Dir::Etc::sourcelist=$APTDIR/etc/sources.list" \
		-o Dir::Etc::sourceparts=- \
		-o "Dir::State::Lists=$APTDIR/lists" \
		-o "Dir::State::status=$APTDIR/etc/status" \
		-o "Dir::Cache=$APTDIR/cache" \
		-o "Dir::Cache::archives=$APTDIR/archives" \
		-o "Dir::Cache::pkgcache=$APTDIR/cache/pkgcache.bin" \
		-o "Dir::Cache::srcpkgcache=$APTDIR/cache/srcpkgcache.bin" \
		-o APT::Architecture="$ARCH" -o APT::Architectures="$ARCH" -o Acquire::Languages=none \
		-o APT::Sandbox::User=root \
		-o Acquire::Check-Valid-Until=false
}

cmd=${1:-}
shift || true
setup
mkdir -p "$APTDIR/cache"
case "$cmd" in
update)
	# shellcheck disable=SC2046
	apt-get $(opts) -q update >&2 ;;
policy)
	# shellcheck disable=SC2046
	apt-cache $(opts) policy "$@" ;;
search)
	# shellcheck disable=SC2046
	apt-cache $(opts) search "$@" ;;
pkgnames)
	# shellcheck disable=SC2046
	apt-cache $(opts) pkgnames "$@" ;;
show)
	# shellcheck disable=SC2046
	apt-cache $(opts) show "$@" ;;
download)
	# shellcheck disable=SC2046
	apt-get $(opts) -q download "$@" ;;
simulate)
	suite=$1
	shift
	# shellcheck disable=SC2046
	apt-get $(opts) -s -q -t "$suite" install "$@" ;;
mirror)
	mirror ;;
*)
	echo "usage: debian-apt.sh update|policy|search|pkgnames|show|download|simulate|mirror" >&2
	exit 2 ;;
esac
