# shellcheck shell=bash
# Sourced by tests/deb/test-deb.sh and test-deb-arm64.sh, which define
# bad() and note().
#   built_using_check DEB ARCH   Built-Using (Debian Policy 7.8) names the
#                                source of every library linked in
#                                statically, at the version of its ARCH -dev
#                                package here (the package was built on this
#                                machine); the field is left in BUILT_USING
built_using_check() {
	local deb=$1 arch=$2 bu dev src
	bu=$(dpkg-deb -f "$deb" Built-Using)
	note "Built-Using: $bu"
	for dev in libbpf-dev libcapstone-dev libelf-dev liblzma-dev libzstd-dev zlib1g-dev libc6-dev; do
		src=$(dpkg-query -W -f '${source:Package} (= ${source:Version})' "$dev:$arch" 2>/dev/null)
		case ", $bu, " in
		*", $src, "*) ;;
		*) bad "Built-Using does not name ${src:-the source of $dev:$arch} (linked in statically)" ;;
		esac
	done
	# shellcheck disable=SC2034 # the field, for the caller
	BUILT_USING=$bu
}
