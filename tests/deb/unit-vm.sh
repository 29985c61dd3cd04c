#!/usr/bin/env bash
# make test-deb-vm: the package under a real systemd, on a kernel with fgraph.
# systemd is not PID 1 on the build machine, so the service's sandbox
# (ProtectSystem=strict, the capability bounding set, the system call filter,
# ReadWritePaths, RuntimeDirectory, ...) can only run in a guest: Debian 12's
# own userland (mmdebstrap, minbase + systemd; cached in $FGT_CACHE) booted as
# an initramfs with systemd as PID 1, on Debian's 6.12 kernel (unfixed), under
# qemu TCG. Inside (tests/deb/unit-vm-guest.sh, run by a unit at boot): dpkg -i,
# the timer neither enabled nor started, `systemctl start
# fgraphtop-check.service` with and without the textfile directory and with
# --trigger (tracefs written through the sandbox), the sandbox's mounts as the
# service sees them (/sys and /proc/sys read-only, tracefs writable), the
# timer enabled, then dpkg -r stopping it, dpkg -P.
#
#   tests/deb/unit-vm.sh PACKAGE.deb [-k KERNEL] [-o OUTDIR]
# Needs root (mmdebstrap), qemu, the kernel (`lab/kernels.sh ensure debian-6.12`).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}
deb=${1:?usage: $0 PACKAGE.deb [-k KERNEL] [-o OUTDIR]}
shift
kernel=debian-6.12 out=
while getopts "k:o:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
note() { echo "unit-vm: $*" >&2; }
[ "$(id -u)" -eq 0 ] || { note "needs root (mmdebstrap)"; exit 1; }
[ -f "$deb" ] || { note "no package $deb"; exit 1; }
kdir=$("$ROOT/lab/kernels.sh" path "$kernel") || exit 1
# a temp directory of our own goes when the run passes (as tests/lab/lib.sh's
# lab_leave()): make test made one a run, and they piled up in /tmp
scratch=
[ -n "$out" ] || { out=$(mktemp -d "${TMPDIR:-/tmp}/fgt-unit-vm.XXXXXX"); scratch=$out; }
mkdir -p "$out"

# --- the userland, once: Debian 12 minbase with systemd, as a cpio ----------
PKGS=systemd,systemd-sysv,udev,dbus
key=$( (mmdebstrap --version; echo "$PKGS"; sed -n '/^# --- the userland/,/^# --- end userland/p' "$0") |
	sha256sum | cut -c1-16)
base=$CACHE/unit-vm/bookworm-$key.cpio
if [ ! -s "$base" ]; then
	note "building the guest userland (mmdebstrap bookworm minbase + $PKGS)"
	mkdir -p "$CACHE/unit-vm"
	tmp=$(mktemp -d "$CACHE/unit-vm/root.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	mirror=$("$ROOT/lab/debian-apt.sh" mirror)
	mmdebstrap --variant=minbase --include="$PKGS" \
		--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
		bookworm "$tmp/root" "deb $mirror bookworm main" > "$CACHE/unit-vm/mmdebstrap.log" 2>&1 ||
		{ note "mmdebstrap failed (see $CACHE/unit-vm/mmdebstrap.log)"; exit 1; }
	# the kernel starts /init from an initramfs; no root= means it stays there
	ln -sf lib/systemd/systemd "$tmp/root/init"
	echo fgt-unit-vm > "$tmp/root/etc/hostname"
	(cd "$tmp/root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc -R 0:0 --quiet) > "$base.tmp"
	mv "$base.tmp" "$base"
	rm -rf "$tmp"
	trap - EXIT
fi
# --- end userland

# --- this run: the package, the guest script and the unit that runs it -----
stage=$(mktemp -d)
trap 'rm -rf "$stage"; [ -n "${qpid:-}" ] && kill "$qpid" 2>/dev/null' EXIT
mkdir -p "$stage/root" "$stage/etc/systemd/system/multi-user.target.wants"
install -m 0644 "$deb" "$stage/root/fgraphtop.deb"
install -m 0755 "$ROOT/tests/deb/unit-vm-guest.sh" "$stage/root/unit-vm-guest.sh"
cat > "$stage/etc/systemd/system/fgt-unit-vm.service" <<'EOT'
[Unit]
Description=fgraphtop package test (tests/deb/unit-vm.sh)
[Service]
Type=oneshot
ExecStart=/root/unit-vm-guest.sh
ExecStopPost=/bin/systemctl --no-block poweroff -f
EOT
ln -s ../fgt-unit-vm.service "$stage/etc/systemd/system/multi-user.target.wants/fgt-unit-vm.service"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc -R 0:0 --quiet) \
	> "$out/run.cpio"
cat "$base" "$out/run.cpio" > "$out/initrd.cpio"

# --- boot ---------------------------------------------------------------------
: > "$out/console.log"
: > "$out/results.txt"
t0=$SECONDS
qemu-system-x86_64 -accel "tcg,thread=${FGT_TCG_THREAD:-single}" -cpu max -m 2048 -smp 1 \
	-nodefaults -display none -no-reboot \
	-kernel "$kdir/bzImage" -initrd "$out/initrd.cpio" \
	-append "console=ttyS0,115200 panic=-1 tsc=reliable mitigations=off systemd.log_target=console systemd.journald.forward_to_console=1" \
	-serial "file:$out/console.log" -serial "file:$out/results.txt" \
	< /dev/null > "$out/qemu.log" 2>&1 &
qpid=$!
deadline=$((SECONDS + ${FGT_UNIT_VM_TIMEOUT:-900}))
while kill -0 "$qpid" 2>/dev/null; do
	if [ $SECONDS -ge $deadline ]; then
		kill "$qpid" 2>/dev/null
		note "timeout after $((SECONDS - t0)) s (see $out/console.log)"
		exit 124
	fi
	sleep 1
done
wait "$qpid" 2>/dev/null || true
qpid=
# the initramfs is regenerable input, hundreds of MiB a run: only results stay
rm -f "$out/initrd.cpio" "$out/run.cpio"
tr -d '\r' < "$out/results.txt" | sed 's/^/unit-vm: guest: /' >&2
note "$kernel, $((SECONDS - t0)) s (outputs in $out)"
grep -q '^PASS' "$out/results.txt" || { note FAILED; exit 1; }
note PASS
if [ -n "$scratch" ] && rm -rf "$scratch"; then
	note "passed, so $scratch is removed (-o OUTDIR keeps the runs)"
fi
