#!/usr/bin/env bash
# make test-deb-arm64: the arm64 package (make deb ARCH=arm64, cross-built on
# amd64) against the amd64 one, without installing either:
#  1. lintian on the .deb itself, with the overrides it ships: nothing, not
#     even info, as make deb asks of the .changes;
#  2. Architecture: arm64, and usr/sbin/fgraphtop an AArch64 ELF64 with no
#     interpreter (static), its BPF objects arm64's (their BTF's pt_regs);
#  3. the same paths, modes and owners as the amd64 package (dpkg-deb -c),
#     every file but the binary byte for byte the same (units, rules, man
#     page, docs) and the same maintainer scripts; control differs only in
#     Architecture, Installed-Size and Built-Using;
#  4. Built-Using names the source of each library linked in, at its :arm64
#     -dev package's version here (the one linked: /usr/lib/aarch64-linux-gnu);
#  5. the packaged binary under qemu-aarch64-static: --version gives the
#     package's version, check --help its usage (neither needs root or BPF).
#
#   tests/deb/test-deb-arm64.sh build/arm64/fgraphtop_V_arm64.deb build/fgraphtop_V_amd64.deb
set -uo pipefail

deb=${1:?usage: $0 ARM64.deb AMD64.deb}
ref=${2:?usage: $0 ARM64.deb AMD64.deb}
fail=0
note() { echo "test-deb-arm64: $*"; }
bad() { note "FAIL $*"; fail=1; }
# shellcheck source=tests/deb/built-using.sh
. "$(dirname "$0")/built-using.sh"

for f in "$deb" "$ref"; do [ -f "$f" ] || { note "no package $f"; exit 1; }; done
command -v qemu-aarch64-static > /dev/null ||
	{ note "no qemu-aarch64-static (qemu-user-static: make deps)"; exit 1; }
tmp=$(mktemp -d)
# shellcheck disable=SC2317  # called by the trap
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT

# --- 1. lintian ---------------------------------------------------------------
if lintian --fail-on error,warning,info --info --display-info "$deb" > "$tmp/lintian" 2>&1; then
	note "lintian $deb: clean"
else
	bad "lintian $deb: $(grep -E '^[EWIPX]: ' "$tmp/lintian" | tr '\n' ' ')"
fi

# --- 2. the architecture, of the package and of its binary -------------------
want_arch() {
	local arch
	arch=$(dpkg-deb -f "$1" Architecture)
	[ "$arch" = "$2" ] || bad "$1: Architecture '$arch', not $2"
}
want_arch "$deb" arm64
want_arch "$ref" amd64
note "Architecture: $(dpkg-deb -f "$deb" Architecture) (and $(dpkg-deb -f "$ref" Architecture) for $ref)"
if ! dpkg-deb -R "$deb" "$tmp/arm64" || ! dpkg-deb -R "$ref" "$tmp/amd64"; then
	bad "dpkg-deb -R could not unpack the packages"
	exit 1
fi
bin=$tmp/arm64/usr/sbin/fgraphtop
[ -f "$bin" ] || { bad "no usr/sbin/fgraphtop in $deb"; exit 1; }
readelf -h "$bin" > "$tmp/elf" 2>&1 || bad "readelf -h usr/sbin/fgraphtop: $(head -1 "$tmp/elf")"
machine=$(sed -n 's/^ *Machine: *//p' "$tmp/elf")
class=$(sed -n 's/^ *Class: *//p' "$tmp/elf")
if [ "$machine" != AArch64 ] || [ "$class" != ELF64 ]; then
	bad "usr/sbin/fgraphtop is '$class $machine', not ELF64 AArch64"
fi
[ "$(readelf -l "$bin" | grep -c INTERP)" = 0 ] || bad "usr/sbin/fgraphtop is not static"
note "usr/sbin/fgraphtop: $class $machine, $(readelf -l "$bin" | grep -c INTERP) interpreters"
# ... and its BPF objects built for arm64 too (-D__TARGET_ARCH_arm64, arm64's
# vmlinux.h): their BTF, in the skeletons, names the struct pt_regs their
# kprobes read, arm64's (a user_pt_regs inside) and not x86's (orig_ax). A
# userspace cross-built around x86 BPF objects is otherwise an AArch64 ELF
# that runs and passes all else here.
if ! grep -qa user_pt_regs "$bin" || grep -qa orig_ax "$bin"; then
	bad "usr/sbin/fgraphtop's BPF objects are not arm64's: user_pt_regs $(grep -ca user_pt_regs "$bin"), orig_ax $(grep -ca orig_ax "$bin") (BTF of struct pt_regs)"
fi

# --- 3. all else is the amd64 package's ---------------------------------------
# dpkg-deb -c: mode, owner/group, size, date, time, name; sizes may differ
# (the binary), so the comparison is of mode, owner and name
for a in arm64 amd64; do
	[ $a = arm64 ] && p=$deb || p=$ref
	dpkg-deb -c "$p" | awk '{ print $1, $2, $6 }' > "$tmp/list.$a"
done
if diff "$tmp/list.amd64" "$tmp/list.arm64" > "$tmp/list.diff"; then
	note "dpkg-deb -c: the same $(grep -c . "$tmp/list.arm64") paths, modes and owners as $ref"
else
	bad "dpkg-deb -c differs (<: $ref, >: $deb): $(grep '^[<>]' "$tmp/list.diff" | tr '\n' ' ')"
fi
# every file but the binary byte for byte, the maintainer scripts too; of
# DEBIAN/, md5sums differs by the binary's sum and control is compared below
ctl_files() { find "$1/DEBIAN" -type f -printf '%f ' | tr ' ' '\n' | sort | tr '\n' ' '; }
[ "$(ctl_files "$tmp/amd64")" = "$(ctl_files "$tmp/arm64")" ] ||
	bad "DEBIAN/ holds $(ctl_files "$tmp/arm64"), $ref's $(ctl_files "$tmp/amd64")"
same=0
while read -r f; do
	case $f in usr/sbin/fgraphtop|DEBIAN/md5sums|DEBIAN/control) continue ;; esac
	if cmp -s "$tmp/amd64/$f" "$tmp/arm64/$f"; then
		same=$((same + 1))
	else
		bad "$f differs from $ref's"
	fi
done < <(cd "$tmp/amd64" && find . -type f | sed 's|^\./||' | sort)
note "$same files (units, rules, man page, docs, maintainer scripts) the same as $ref's"
strip_ctl() { grep -v -e '^Architecture:' -e '^Installed-Size:' -e '^Built-Using:' "$1"; }
diff <(strip_ctl "$tmp/amd64/DEBIAN/control") <(strip_ctl "$tmp/arm64/DEBIAN/control") > "$tmp/ctl.diff" ||
	bad "control differs from $ref's beyond Architecture, Installed-Size, Built-Using: $(tr '\n' ' ' < "$tmp/ctl.diff")"

# --- 4. Built-Using: the arm64 libraries' sources -----------------------------
built_using_check "$deb" arm64

# --- 5. the packaged binary, under qemu-user ----------------------------------
version=$(dpkg-deb -f "$deb" Version)
got=$(qemu-aarch64-static "$bin" --version 2>&1 | head -n 1)
note "qemu-aarch64-static usr/sbin/fgraphtop --version: $got"
[ "$got" = "fgraphtop $version" ] || bad "--version says '$got', the package is $version"
st=0
qemu-aarch64-static "$bin" check --help > "$tmp/help" 2>&1 || st=$?
note "qemu-aarch64-static usr/sbin/fgraphtop check --help: status $st, $(head -1 "$tmp/help")"
if [ "$st" != 0 ] || ! grep -q '^Usage: fgraphtop check' "$tmp/help"; then
	bad "check --help under qemu: status $st, '$(head -1 "$tmp/help")'"
fi

if [ $fail -eq 0 ]; then note "PASS"; else note "FAILED"; fi
exit $fail
