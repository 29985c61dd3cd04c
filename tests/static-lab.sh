#!/usr/bin/env bash
# The static verdict on every lab kernel (issue 13).
#
#   tests/static-lab.sh [offline [KERNEL...]]
#                                           every kernel of `lab/kernels.sh list --tier
#                                           $FGT_LAB_TIER` (test, make test's, by default;
#                                           long; all) (or those
#                                           named), from its files on this host: no guest
#                                           (make test-static-lab)
#   tests/static-lab.sh guest [-o DIR] [KERNEL[:U[:ARG]]...]
#                                           boot each kernel (default: all; U threads parked,
#                                           lab-stock and lab-fixed 100000 by default) and
#                                           answer from /proc/kcore in it, beside
#                                           check --trigger and the offline answer; ARG is
#                                           one more kernel argument (lockdown=integrity,
#                                           lockdown=confidentiality: the default list boots
#                                           the lab-6.12-nopreempt pair with each too)
#
# Offline, per kernel: the answer from its vmlinux, from its bzImage and (lab kernels)
# from the bzImage with its System.map must be the same and the one its patches say
# (a fix*/ patch: fixed, else not_fixed), with the evidence naming the shadow-stack
# sites, which objdump must show as calls of the allocator with that gfp where the
# vmlinux has symbols (tests/static_lab_check.py); `fgraphtop check --kernel` (as
# shipped) must give the same. Environment: FGT_KERNELS (the kernels.sh to ask, as
# lab/run.sh), FGT_BUILD (build dir), FGT_STATIC
# (fgt-static; default $FGT_BUILD/fgt-static), FGT_BIN (fgraphtop).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD=${FGT_BUILD:-$ROOT/build}
BIN=${FGT_STATIC:-$BUILD/fgt-static}
TIER=${FGT_LAB_TIER:-test}
CHECK_BIN=${FGT_BIN:-$BUILD/fgraphtop}
KERNELS=${FGT_KERNELS:-$ROOT/lab/kernels.sh}
CHECK=$HERE/static_lab_check.py

[ -x "$BIN" ] || { echo "static-lab: no $BIN (make $BUILD/fgt-static)" >&2; exit 2; }

# A kernel directory's image: x86's bzImage, arm64's Image
image_of() {
	if [ -f "$1/bzImage" ]; then echo "$1/bzImage"; else echo "$1/Image"; fi
}

# fixed or not_fixed: the shapes a fix can take by their name (issue 39,
# docs/static.md "Shapes and their answers"), the others from their patches
# (info.json: the series' fix/ or a backport of it makes fixed)
expected() {
	case $(jq -r .name "$1/info.json") in
	lab-shape-single | lab-shape-pinned | lab-shape-blocking) echo fixed ;;
	lab-shape-v1) echo not_fixed ;;
	*)
		jq -r 'if ([.patches[] | select(startswith("fix"))] | length) > 0
		       then "fixed" else "not_fixed" end' "$1/info.json" ;;
	esac
}

# One answer as a run object: how, exit status, wall time, fgt-static's JSON.
run() {
	local how=$1 t0 t1 j st=0
	shift
	t0=$(date +%s%N)
	j=$("$BIN" --json "$@") || st=$?
	t1=$(date +%s%N)
	printf '{"how":"%s","status":%d,"wall_ms":%d,"answer":%s}' "$how" "$st" \
		$(((t1 - t0) / 1000000)) "${j:-null}"
}

OUT=
cleanup() { [ -z "$OUT" ] || rm -rf "$OUT"; }
trap cleanup EXIT

offline() {
	local out k dir img
	out=$(mktemp -d "${TMPDIR:-/tmp}/fgt-static.XXXXXX")
	OUT=$out
	local names=("$@")
	[ ${#names[@]} -gt 0 ] || mapfile -t names < <("$KERNELS" list --tier "$TIER")
	for k in "${names[@]}"; do
		dir=$("$KERNELS" path "$k" 2> /dev/null) || {
			echo "static-lab: $k: not built (lab/kernels.sh ensure $k)" >&2
			return 1
		}
		local runs=()
		[ -f "$dir/vmlinux" ] && runs+=("$(run vmlinux --kernel "$dir/vmlinux")")
		img=$(image_of "$dir")
		runs+=("$(run bzImage --kernel "$img")")
		[ -f "$dir/System.map" ] &&
			runs+=("$(run map --kernel "$img" --system-map "$dir/System.map")")
		# the kcore path (VMCOREINFO, kernel memory) on a kcore made of the vmlinux
		if [ -f "$dir/vmlinux" ] && "$BIN" --make-kcore "$out/$k.kcore" --kernel "$dir/vmlinux" &&
			"$BIN" --dump-btf "$out/$k.btf" --kernel "$dir/vmlinux"; then
			runs+=("$(run kcore --kcore "$out/$k.kcore" --btf "$out/$k.btf" --no-bpf)")
		fi
		# and as shipped: fgraphtop check --kernel, its JSON's static object
		if [ -x "$CHECK_BIN" ]; then
			local t0 t1 j st=0
			t0=$(date +%s%N)
			j=$("$CHECK_BIN" check --json --kernel "$img") || st=$?
			t1=$(date +%s%N)
			runs+=("$(printf '{"how":"check","status":%d,"wall_ms":%d,"answer":%s}' "$st" \
				$(((t1 - t0) / 1000000)) "$(echo "${j:-null}" | jq -c '.static')")")
		fi
		"$BIN" --dump-symbols "$out/$k.syms" --kernel "$img" || rm -f "$out/$k.syms"
		local IFS=,
		printf '{"kernel":"%s","expected":"%s","dir":"%s","symbols":"%s","runs":[%s]}\n' \
			"$k" "$(expected "$dir")" "$dir" "$out/$k.syms" "${runs[*]}" >> "$out/offline.jsonl"
		rm -f "$out/$k.kcore" "$out/$k.btf"
	done
	python3 "$CHECK" offline "$out/offline.jsonl"
}

# fgt-static rides in an extra initramfs archive (the base image has
# fgraphtop), one per build: prints its path, made once per run
guest_cpio() {	# OUTDIR BUILD FGT_STATIC
	local stage=$1/stage-${2//\//_} cpio=$1/fgt-static-${2//\//_}.cpio
	if [ ! -s "$cpio" ]; then
		if [ ! -x "$2/lab/fgt-spawn" ] || [ ! -x "$3" ]; then
			echo "static-lab: no $2/lab/fgt-spawn or $3 (make lab-helpers; for arm64 make ARCH=arm64 all lab-helpers)" >&2
			return 2
		fi
		rm -rf "$stage"
		mkdir -p "$stage/bin"
		cp "$3" "$stage/bin/fgt-static"
		(cd "$stage" && find . | cpio -o -H newc --quiet) > "$cpio"
	fi
	echo "$cpio"
}

guest() {
	local outdir="" cpio specs=() k u dir img
	if [ "${1:-}" = -o ]; then
		outdir=$2
		shift 2
	fi
	outdir=${outdir:-$(mktemp -d "${TMPDIR:-/tmp}/fgt-static-guest.XXXXXX")}
	mkdir -p "$outdir"
	if [ $# -gt 0 ]; then
		specs=("$@")
	else
		for k in $("$KERNELS" list --tier "$TIER"); do
			case $k in
			lab-stock | lab-fixed) specs+=("$k:100000") ;;
			lab-6.12-nopreempt-*)
				specs+=("$k:0" "$k:0:lockdown=integrity" "$k:0:lockdown=confidentiality") ;;
			*) specs+=("$k:0") ;;
			esac
		done
	fi
	for spec in "${specs[@]}"; do
		local rest arg="" name sargs=()
		k=${spec%%:*}
		rest=${spec#*:}
		[ "$rest" = "$spec" ] && rest=0
		u=${rest%%:*}
		[ "$u" = "$rest" ] || arg=${rest#*:}
		# one directory per boot: KERNEL, or KERNEL@MODE for lockdown=MODE
		name=$k${arg:+@${arg#lockdown=}}
		dir=$("$KERNELS" path "$k")
		img=$(image_of "$dir")
		# the guest's fgt-static is its architecture's build
		local gbuild=$BUILD gstatic=$BIN
		if [ "${img##*/}" = Image ]; then
			gbuild=${FGT_BUILD_ARM64:-$ROOT/build/arm64}
			gstatic=$gbuild/fgt-static
		fi
		cpio=$(guest_cpio "$outdir" "$gbuild" "$gstatic") || return 2
		local mem=2048
		[ "$u" -gt 20000 ] && mem=6144
		mkdir -p "$outdir/$name"
		# under lockdown: no recording, no bad cases, but the live tool's status
		[ -z "$arg" ] || sargs=(RECORD=0 BAD=0 LIVE=1)
		echo "static-lab: $k: booting (U=$u${arg:+, $arg})" >&2
		FGT_EXTRA_CPIO=$cpio "$ROOT/lab/run.sh" -k "$k" -s static-check -m $mem -t 1200 \
			${arg:+-a "$arg"} -o "$outdir/$name/run" -- U="$u" "${sargs[@]}" \
			> "$outdir/$name/results.jsonl" || true
		k=$name
		local off=(--kernel "$img")
		[ -f "$dir/System.map" ] && off+=(--system-map "$dir/System.map")
		"$BIN" --json "${off[@]}" > "$outdir/$k/offline.json" || true
		# the text as the running kernel showed it, for tests/data/static/KERNEL-live.txt
		jq -rR 'fromjson? | select(.type == "record") | .line' "$outdir/$k/results.jsonl" \
			> "$outdir/$k/rec.txt" || true
		printf '{"kernel":"%s","expected":"%s","append":"%s"}\n' "$k" \
			"$(expected "$dir")" "$arg" \
			> "$outdir/$k/kernel.json"
	done
	python3 "$CHECK" guest "$outdir"
}

case ${1:-offline} in
offline) shift || true; offline "$@" ;;
guest) shift; guest "$@" ;;
*) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
