#!/usr/bin/env bash
# Boot one kernel with the lab initramfs and run one scenario in it.
#
#   lab/run.sh (-k NAME | -K BZIMAGE) -s SCENARIO [-t TIMEOUT_S] [-m MEM_MB]
#              [-c CPUS] [-o OUTDIR] [-a KERNEL_ARG]... [-A tcg|kvm|auto] [-I SHIFT]
#              [-d DISK] [-- ARGS...]
#
# -d DISK: a raw disk image attached read-only as a virtio-blk disk (/dev/vda
# in the guest), e.g. the pressure scenario's (lab/guest/mkdisk.sh).
#
# -I SHIFT: qemu's instruction counting (TCG only, single-threaded): guest time
# advances 2^SHIFT ns per instruction executed and jumps over idle time
# (sleep=off), so guest clocks measure work, whatever the host's load.
#
# Results: the JSON lines the scenario sends over the guest's ttyS1 are printed on
# stdout and kept in OUTDIR/results.jsonl, followed by one
# {"type":"run",...} line. The console is OUTDIR/console.log.
# Exit status: the scenario's; 124 on timeout; 126 when the guest's kernel log shows
# a splat; 125 when the guest did not report (crash). No qemu is left behind.
# The run record's exit_via says where the guest's status came from: ttyS1, or
# the console when ttyS1 stalled (lab/guest/init).
# Environment: FGT_CACHE, FGT_ACCEL (tcg|kvm|auto, as -A), FGT_BUILD (build dir),
# FGT_KERNELS (the kernels.sh to ask for -k NAME; default lab/kernels.sh),
# FGT_EXTRA_CPIO (archives appended to the initramfs), FGT_TCG_CPU (TCG's -cpu,
# default max), FGT_KEEP_INITRD=1 (keep OUTDIR/initrd.cpio after the run).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CACHE=${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}
BUILD=${FGT_BUILD:-$ROOT/build}

usage() {
	sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

kname='' kimage='' scenario='' timeout=300 mem=2048 cpus=2 outdir='' accel=${FGT_ACCEL:-auto}
icount=
disk=
extra=()
while getopts "k:K:s:t:m:c:o:a:A:I:d:h" opt; do
	case $opt in
	k) kname=$OPTARG ;;
	K) kimage=$OPTARG ;;
	s) scenario=$OPTARG ;;
	t) timeout=$OPTARG ;;
	m) mem=$OPTARG ;;
	c) cpus=$OPTARG ;;
	o) outdir=$OPTARG ;;
	a) extra+=("$OPTARG") ;;
	A) accel=$OPTARG ;;
	I) icount=$OPTARG ;;
	d) disk=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$scenario" ] || usage
[ -n "$kname" ] || [ -n "$kimage" ] || usage
if [ -n "$disk" ] && [ ! -f "$disk" ]; then
	echo "run.sh: no disk image $disk" >&2
	exit 2
fi
[ -f "$ROOT/lab/scenarios/$scenario.sh" ] || {
	echo "run.sh: no scenario lab/scenarios/$scenario.sh" >&2
	exit 2
}

# An arm64 Image says so at byte 56 ("ARM\x64", the arm64 boot protocol's
# magic); anything else boots as x86.
image_arch() {
	[ "$(od -An -c -j56 -N4 "$1" 2>/dev/null | tr -d ' ')" = 'ARMd' ] && echo arm64 || echo x86
}

# Kernel: by name through lab/kernels.sh, or a raw image.
info=
if [ -n "$kimage" ]; then
	[ -f "$kimage" ] || { echo "run.sh: no kernel image $kimage" >&2; exit 2; }
	kname=${kname:-$(basename "$kimage")}
	kdir=$(dirname "$kimage")
	[ -f "$kdir/info.json" ] && info=$kdir/info.json
else
	kdir=$("${FGT_KERNELS:-$HERE/kernels.sh}" path "$kname") || {
		echo "run.sh: lab/kernels.sh path $kname failed (try lab/kernels.sh ensure $kname)" >&2
		exit 2
	}
	kimage=$kdir/bzImage
	[ -f "$kimage" ] || kimage=$kdir/Image
	info=$kdir/info.json
	[ -f "$kimage" ] || { echo "run.sh: no $kdir/bzImage or Image" >&2; exit 2; }
fi
arch=$(image_arch "$kimage")
resport=ttyS1
[ "$arch" = arm64 ] && resport=ttyS0
# The guest's binaries are its architecture's build (make ARCH=arm64).
[ "$arch" = arm64 ] && BUILD=${FGT_BUILD_ARM64:-$ROOT/build/arm64}
if [ "$arch" = arm64 ] && [ ! -x "$BUILD/fgraphtop" ]; then
	echo "run.sh: no $BUILD/fgraphtop for this arm64 kernel (make ARCH=arm64 all lab-helpers)" >&2
	exit 2
fi
kversion=
krelease=
if [ -n "$info" ] && [ -f "$info" ]; then
	kversion=$(jq -r '.version // empty' "$info")
	krelease=$(jq -r '.release // empty' "$info")
fi

if [ -z "$outdir" ]; then
	outdir=$(mktemp -d "${TMPDIR:-/tmp}/fgt-run.XXXXXX")
fi
mkdir -p "$outdir"
console=$outdir/console.log
ttys1=$outdir/ttyS1.raw
results=$outdir/results.jsonl
: > "$console"
: > "$ttys1"
: > "$results"
echo "run.sh: $kname $scenario $* -> $outdir" >&2

# The initramfs: the cached base, then this run's files (the kernel unpacks
# concatenated archives in order).
if [ "$arch" = arm64 ]; then
	base=$("$HERE/guest/mkbase-arm64.sh")
else
	base=$("$HERE/guest/mkbase.sh")
fi
"$HERE/guest/mkrun.sh" "$outdir/run.cpio" "$BUILD"
cat "$base" "$outdir/run.cpio" > "$outdir/initrd.cpio"
# FGT_EXTRA_CPIO: more archives (space-separated) appended after those, e.g. the
# bench's bpftrace (lab/bench/mkbpftrace.sh).
for x in ${FGT_EXTRA_CPIO:-}; do
	cat "$x" >> "$outdir/initrd.cpio"
done

# Arguments travel base64-encoded, comma-separated (see lab/guest/init).
enc=
for a in "$@"; do
	enc+=${enc:+,}$(printf '%s' "$a" | base64 -w0)
done
# no_timer_check: on a loaded host TCG's IO-APIC timer check can fail, and the
# x86 guest panics ("IO-APIC + timer doesn't work!") before its init starts
# (seen with an 11 GiB lab-fixed guest beside a make test). arm64's console
# is the virt board's PL011.
if [ "$arch" = arm64 ]; then
	cmdline="console=ttyAMA0 panic=-1 printk.time=1 mitigations=off"
else
	cmdline="console=ttyS0,115200 panic=-1 printk.time=1 tsc=reliable mitigations=off no_timer_check"
fi
# A guest starved by its host (TCG shares a core with a loaded host's other
# work) sees its vCPUs stop for seconds: the soft-lockup watchdog calls that
# a lockup and RCU a stall (seen on debian-6.1 beside two other guests), and
# either fails a run that did nothing wrong. So the lockup watchdogs are off
# and the RCU stall timeouts at their most (300 s, the kernel's clamp; the
# expedited one in ms, 5.19 and later), and the splat scan below keeps every
# other report: BUG, WARNING, KASAN, lockdep, a hung task (docs/DESIGN.md,
# "The lab's guests and their splats"). A kernel without the lockup detector
# (the lab's minimal ones) hands nowatchdog to init, which ignores it. The
# hung-task timeout is 600 s, not 120: an unfixed walk holds tracefs's and
# ftrace's locks throughout, and a tool waiting on them as long is the stall
# under study (debian-6.12's walk passed 120 s beside a loaded make test).
cmdline+=" nowatchdog rcupdate.rcu_cpu_stall_timeout=300 rcupdate.rcu_exp_cpu_stall_timeout=300000"
cmdline+=" sysctl.kernel.hung_task_timeout_secs=600"
# A KASAN kernel (lab-debug-*) boots with 4-level paging. TCG's "max" CPU
# has LA57, and identify_cpu() clears boot_cpu_data's capabilities while
# interrupts are on: for that window pgtable_l5_enabled() is false, so
# KASAN_SHADOW_START is 4-level's and an interrupt's lock in the 5-level
# direct map (0xff11...) reads as a wild access (seen: "BUG: KASAN:
# wild-memory-access in do_raw_spin_lock" from handle_edge_irq at 0.007 s,
# before any userland). The kernel's, not fgraphtop's; no5lvl closes it.
if [ "$arch" = x86 ] && [ -f "$kdir/System.map" ] && grep -q ' kasan_report$' "$kdir/System.map"; then
	cmdline+=" no5lvl"
fi
cmdline+=" fgt_scenario=$scenario${enc:+ fgt_args=$enc}"
[ ${#extra[@]} -gt 0 ] && cmdline+=" ${extra[*]}"

pdeath=
setpriv --help 2>/dev/null | grep -q pdeathsig && pdeath="setpriv --pdeathsig KILL"
qpid=
cleanup() {
	local p=$qpid
	qpid=
	if [ -n "$p" ] && kill -0 "$p" 2>/dev/null; then
		kill -TERM "$p" 2>/dev/null || true
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	fi
}
# The initramfs (the cached base and this run's part, about 40 MB) is input
# that lab/run.sh makes again at every run: OUTDIR keeps results and logs
# only (a make test makes about 200 runs). FGT_KEEP_INITRD=1 keeps it.
# shellcheck disable=SC2317 # called by the EXIT trap only
drop_inputs() {
	[ "${FGT_KEEP_INITRD:-0}" = 1 ] || rm -f "$outdir/initrd.cpio" "$outdir/run.cpio"
}
trap 'cleanup; drop_inputs' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# qemu in the background (its own stdin closed, so it never grabs the terminal),
# then wait with a deadline. Sets qpid; returns 0 when qemu exited, 1 on timeout.
qemu_run() {	# ACCEL CONSOLE TTYS1 TIMEOUT CMDLINE
	local acc=$1 con=$2 out1=$3 tmo=$4 cl=$5 cpu ic=() dk=()
	# Multi-threaded TCG lets one vCPU run stale code after ftrace's text_poke_bp()
	# rewrote a call site on the other ("Oops: int3" at an ftrace site while
	# function_graph was being enabled, seen on lab kernels in 5 of 7 boots; none
	# in thread=single). One TCG thread serializes the vCPUs, as real CPUs are
	# by the IPIs text_poke_bp() sends. FGT_TCG_THREAD=multi brings it back.
	case $acc in
	kvm) cpu=host ;;
	*) cpu=${FGT_TCG_CPU:-max}; acc=tcg,thread=${FGT_TCG_THREAD:-single} ;;
	esac
	# Deterministic guest time: the RTC follows the guest's clock too, so
	# nothing the guest reads depends on the host's.
	[ -n "$icount" ] && [ "$acc" != kvm ] && ic=(-icount "shift=$icount,sleep=off" -rtc clock=vm)
	# read-only: every run sees the same disk, and runs can share it
	[ -n "$disk" ] && dk=(-drive "file=$disk,if=virtio,format=raw,readonly=on")
	# --pdeathsig: even a SIGKILLed runner takes qemu down with it.
	if [ "$arch" = arm64 ]; then
		# pauth-impdef: TCG's architected pointer authentication (QARMA)
		# costs a large share of a guest's time; the implementation
		# defined one is cheap and the kernel cannot tell. The results
		# port is a PCI 16550, the guest's ttyS0 (lab/guest/init).
		[ "$acc" = kvm ] || cpu=${FGT_TCG_CPU_ARM64:-max,pauth-impdef=on}
		$pdeath qemu-system-aarch64 -M virt -accel "$acc" -cpu "$cpu" -m "$mem" -smp "$cpus" \
			"${ic[@]}" "${dk[@]}" -nodefaults -display none -no-reboot \
			-kernel "$kimage" -initrd "$outdir/initrd.cpio" -append "$cl" \
			-serial "file:$con" -chardev "file,id=results,path=$out1" \
			-device pci-serial,chardev=results \
			</dev/null >>"$outdir/qemu.log" 2>&1 &
	else
		$pdeath qemu-system-x86_64 -accel "$acc" -cpu "$cpu" -m "$mem" -smp "$cpus" \
			"${ic[@]}" "${dk[@]}" -nodefaults -display none -no-reboot \
			-kernel "$kimage" -initrd "$outdir/initrd.cpio" -append "$cl" \
			-serial "file:$con" -serial "file:$out1" \
			</dev/null >>"$outdir/qemu.log" 2>&1 &
	fi
	qpid=$!
	local end=$((SECONDS + tmo))
	while kill -0 "$qpid" 2>/dev/null; do
		if [ "$SECONDS" -ge "$end" ]; then
			cleanup
			return 1
		fi
		sleep 0.2
	done
	wait "$qpid" 2>/dev/null || true
	qpid=
	return 0
}

# KVM only where a short boot proves it works; the answer is kept per host boot,
# since a host that hangs KVM guests hangs them until it reboots.
probe_kvm() {
	local bootid f
	if ! [ -r /dev/kvm ] || ! [ -w /dev/kvm ]; then
		echo tcg
		return
	fi
	bootid=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)
	f=$CACHE/kvm-probe-$bootid
	if [ ! -s "$f" ]; then
		mkdir -p "$CACHE"
		local con=$outdir/kvm-probe.console out1=$outdir/kvm-probe.ttyS1
		: > "$con"
		: > "$out1"
		if qemu_run kvm "$con" "$out1" 15 "console=ttyS0 panic=-1 fgt_scenario=__probe" &&
			grep -q '"type":"boot"' "$out1"; then
			echo kvm > "$f"
		else
			echo tcg > "$f"
		fi
		echo "run.sh: KVM probe: $(cat "$f") (cached in $f)" >&2
	fi
	cat "$f"
}
case $accel in
auto) [ -n "$icount" ] || [ "$arch" = arm64 ] && accel=tcg || accel=$(probe_kvm) ;;
kvm | tcg) ;;
*) echo "run.sh: -A tcg|kvm|auto" >&2; exit 2 ;;
esac

# Did the guest's init start? It prints its boot line on ttyS1 first; its
# console lines say "fgt-init:".
init_started() {
	grep -q '"type":"boot"' "$ttys1" 2>/dev/null || grep -q 'fgt-init' "$console" 2>/dev/null
}

start=$SECONDS
timed_out=false
retried=
qemu_run "$accel" "$console" "$ttys1" "$timeout" "$cmdline" || timed_out=true
# A guest that died (not hung) before its init started is booted once more: a
# boot-time failure of a busy host (the timer check above) is not the test's.
# The first boot's console stays in console.first.log; the run record says so.
if ! $timed_out && ! init_started; then
	why=$(tr -d '\r' < "$console" | grep -E '^\[ *[0-9]+\.[0-9]+\]' | grep -E 'Kernel panic|Oops|BUG:' |
		head -n1 | sed 's/^\[ *[0-9]*\.[0-9]*\] *//' || true)
	mv "$console" "$outdir/console.first.log"
	: > "$ttys1"
	echo "run.sh: the guest died before its init started (${why:-no panic line}): booting it once more" >&2
	retried=$(jq -cn --arg why "$why" '{reason: "died before its init started", first_console: "console.first.log", panic: $why}')
	rem=$((timeout - (SECONDS - start)))
	[ "$rem" -gt 10 ] || rem=10
	qemu_run "$accel" "$console" "$ttys1" "$rem" "$cmdline" || timed_out=true
fi
seconds=$((SECONDS - start))

# Results: JSON lines only; the guest's exit line is folded into the run record.
tr -d '\r' < "$ttys1" | grep '^{' | grep -v '^{"type":"exit"' > "$results" || true
gstatus=$(tr -d '\r' < "$ttys1" | sed -n 's/^{"type":"exit","status":\([0-9]*\)}$/\1/p' | tail -n1)
# A stalled ttyS1 loses the exit line; the guest's init then printks it (polled,
# so it reaches the console) and the status is taken from there.
exit_via=$resport
if [ -z "$gstatus" ]; then
	gstatus=$(tr -d '\r' < "$console" | grep -E '^\[ *[0-9]+\.[0-9]+\]' |
		sed -n 's/.*fgt-init: exit line by printk: {"type":"exit","status":\([0-9]*\)}$/\1/p' | tail -n1)
	exit_via=console
fi
[ -n "$gstatus" ] || exit_via=
grelease=$(sed -n 's/^{"type":"boot","release":"\([^"]*\)".*/\1/p' "$results" | head -n1)
krelease=${grelease:-$krelease}

# Splats: only kernel lines (printk.time gives them a "[   1.234]" prefix), so a
# scenario printing "BUG" on the console is not mistaken for the kernel.
# A soft lockup or an RCU stall seen here is one the boot arguments above did
# not silence (a CPU stuck for minutes): a real one.
splat_re='WARNING:|BUG:|kernel BUG at|sleeping function called from invalid context'
splat_re+='|rcu: INFO:|self-detected stall|detected stalls? on CPUs|rcu_(sched|preempt) detected'
splat_re+='|KASAN|UBSAN|Oops|general protection fault|Kernel panic|blocked for more than'
splat_re+='|inconsistent lock state|possible (recursive|circular) locking'
splats=$( { tr -d '\r' < "$console" | grep -E '^\[ *[0-9]+\.[0-9]+\]' |
	sed 's/^\[ *[0-9]*\.[0-9]*\] *//' | grep -E "$splat_re" || true; } |
	awk '!seen[$0]++' | head -n 20 | jq -R . | jq -cs .)
[ -n "$splats" ] || splats='[]'

if $timed_out; then
	status=124
elif [ "$splats" != "[]" ]; then
	status=126
elif [ -z "$gstatus" ]; then
	status=125
else
	status=$gstatus
fi

run=$(jq -cn --arg kernel "$kname" --arg release "$krelease" --arg version "$kversion" \
	--arg scenario "$scenario" --argjson args "$(printf '%s\n' "$@" | jq -R . | jq -cs 'map(select(. != ""))')" \
	--argjson status "$status" --arg gstatus "${gstatus:-}" --argjson splats "$splats" \
	--argjson seconds "$seconds" --arg accel "$accel" --arg outdir "$outdir" \
	--argjson timed_out "$timed_out" --arg append "${extra[*]:-}" --arg icount "$icount" --arg exit_via "$exit_via" \
	--argjson retried "${retried:-null}" --arg disk "$disk" --arg arch "$arch" \
	'{type: "run", kernel: $kernel, arch: $arch, release: $release, version: $version,
	  scenario: $scenario, args: $args, status: $status,
	  guest_status: (if $gstatus == "" then null else ($gstatus | tonumber) end),
	  exit_via: (if $exit_via == "" then null else $exit_via end),
	  timed_out: $timed_out, splats: $splats, seconds: $seconds, accel: $accel,
	  icount: (if $icount == "" then null else ($icount | tonumber) end),
	  append: $append, mem_mb: '"$mem"', cpus: '"$cpus"', outdir: $outdir,
	  retried: $retried, disk: (if $disk == "" then null else $disk end)}')
echo "$run" >> "$results"
cat "$results"
[ "$status" -eq 0 ] || echo "run.sh: status $status; console: $console" >&2
exit "$status"
