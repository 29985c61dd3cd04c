#!/usr/bin/env bash
# Boot one of Debian's arm64 kernels under qemu-system-aarch64 (TCG, -M virt
# -cpu max) with a busybox arm64 userland and the arm64 fgraphtop, and answer
# `fgraphtop check --static` there, from /proc/kcore (issue 23, the part that
# needs an arm64 guest).
#
#   lab/arm64-check.sh [-k NAME] [-t TIMEOUT_S] [-m MEM_MB] [-o OUTDIR] [-r]
#
# -r also records the function as /proc/kcore shows it (build/arm64/fgt-static
# --record, tests/data/static/README), into OUTDIR/rec.txt.
# NAME: one of `lab/arm64-kernels.sh list` (default debian-arm64-7.2). The
# busybox is Debian's busybox-static for arm64, fetched once through the
# private arm64 apt view into $FGT_CACHE/arm64/debs (keyed by its version);
# the binary is build/arm64/fgraphtop (make ARCH=arm64). The guest prints
# its answers between markers on its console; this prints them, and the
# console is kept in OUTDIR/console.log.
# Exit status: the guest's check status (0 fixed, 2 not fixed, 3 unknown),
# 124 on timeout, 125 when the guest did not report. The qemu started here is
# stopped by its pid whatever happens.
set -euo pipefail

LAB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$LAB/.." && pwd)
export FGT_CACHE=${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}
BIN=${FGT_ARM64_BIN:-$ROOT/build/arm64/fgraphtop}
name=debian-arm64-7.2 timeout=600 mem=1024 outdir='' rec=''
while getopts k:t:m:o:r opt; do
	case $opt in
	k) name=$OPTARG ;;
	t) timeout=$OPTARG ;;
	m) mem=$OPTARG ;;
	o) outdir=$OPTARG ;;
	r) rec=1 ;;
	*) sed -n '7p' "$0" >&2; exit 2 ;;
	esac
done
[ -x "$BIN" ] || { echo "arm64-check: no $BIN (make ARCH=arm64)" >&2; exit 2; }
command -v qemu-system-aarch64 > /dev/null ||
	{ echo "arm64-check: no qemu-system-aarch64 (make deps)" >&2; exit 2; }

img=$("$LAB/arm64-kernels.sh" path "$name")
work=$(mktemp -d "${TMPDIR:-/tmp}/fgt-arm64-guest.XXXXXX")
qpid=
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	[ -z "$qpid" ] || kill "$qpid" 2> /dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# busybox-static for arm64, once
debs=$FGT_CACHE/arm64/debs
newest_bb() {
	find "$debs" -maxdepth 1 -name 'busybox-static_*_arm64.deb' 2> /dev/null | sort -V | tail -n1
}
bb=$(newest_bb)
if [ -z "$bb" ]; then
	mkdir -p "$debs/partial"
	(cd "$debs/partial" && FGT_APT_ARCH=arm64 "$LAB/debian-apt.sh" download busybox-static >&2)
	mv "$debs"/partial/busybox-static_*.deb "$debs"/
	rmdir "$debs/partial"
	bb=$(newest_bb)
fi

root=$work/root
mkdir -p "$root"/{bin,proc,sys,dev,tmp}
dpkg-deb --fsys-tarfile "$bb" | tar -xO ./usr/bin/busybox > "$root/bin/busybox"
chmod 755 "$root/bin/busybox"
cp "$BIN" "$root/bin/fgraphtop"
if [ -n "$rec" ]; then
	cp "$(dirname "$BIN")/fgt-static" "$root/bin/fgt-static"
	: > "$root/record"
fi
cat > "$root/init" << 'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2> /dev/null
echo "FGT-ARM64 uname $(uname -m) $(uname -r)"
echo "FGT-ARM64 begin"
/bin/fgraphtop check --static
echo "FGT-ARM64 status $?"
/bin/fgraphtop check --static --json
echo
if [ -e /record ]; then
	/bin/fgt-static --no-bpf --record /tmp/rec.txt --name "$(uname -r), /proc/kcore" > /dev/null
	echo "FGT-ARM64 record"
	cat /tmp/rec.txt
	echo "FGT-ARM64 record-end"
fi
echo "FGT-ARM64 end"
poweroff -f
EOF
chmod 755 "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) > "$work/initrd.cpio"

log=$work/console.log
qemu-system-aarch64 -M virt -cpu max -accel tcg -smp 1 -m "$mem" -nographic -no-reboot \
	-kernel "$img" -initrd "$work/initrd.cpio" \
	-append "console=ttyAMA0 rdinit=/init panic=-1 quiet" > "$log" 2>&1 &
qpid=$!
st=124
for ((i = 0; i < timeout; i++)); do
	if grep -q "FGT-ARM64 end" "$log"; then
		st=0
		break
	fi
	if ! kill -0 "$qpid" 2> /dev/null; then
		grep -q "FGT-ARM64 end" "$log" && st=0 || st=125
		break
	fi
	sleep 1
done
sleep 1
kill "$qpid" 2> /dev/null || true
wait "$qpid" 2> /dev/null || true
qpid=
[ -z "$outdir" ] || { mkdir -p "$outdir"; cp "$log" "$outdir/console.log"; }
if [ -n "$rec" ] && [ -n "$outdir" ]; then
	tr -d '\r' < "$log" | sed -n '/FGT-ARM64 record$/,/FGT-ARM64 record-end/p' |
		sed '1d;$d' > "$outdir/rec.txt"
fi
tr -d '\r' < "$log" | sed -n '/FGT-ARM64 uname/p; /FGT-ARM64 begin/,/FGT-ARM64 status/p'
if [ $st -eq 0 ]; then
	st=$(tr -d '\r' < "$log" | awk '$1 == "FGT-ARM64" && $2 == "status" { print $3 }')
	[ -n "$st" ] || st=125
fi
echo "arm64-check: $name: status $st after ${i}s"
exit "$st"
