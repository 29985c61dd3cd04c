# Shared by the lab test drivers (tests/lab/basic.sh, check.sh): where the
# repository and the kernels are, and the -o OUTDIR option they take.
# shellcheck shell=bash disable=SC2034  # ROOT, KSH, out: for the sourcing driver
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KSH=${FGT_KERNELS:-$ROOT/lab/kernels.sh}

# lab_outdir NAME "$@": parse -o OUTDIR, make it (default: a new temp directory
# fgt-lab-NAME.*) and set $out; OPTIND is left for the caller's shift.
lab_outdir() {
	local name=$1 opt
	shift
	out=
	OPTIND=1
	while getopts "o:" opt; do
		case $opt in
		o) out=$OPTARG ;;
		*) exit 2 ;;
		esac
	done
	out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/fgt-lab-$name.XXXXXX")}
	mkdir -p "$out"
	rm -f "$out/.failed"
}

# Guests side by side: qemu TCG with thread=single runs a guest on one host
# core, so two fit on the two cores CI has. FGT_LAB_JOBS overrides.
LAB_JOBS=${FGT_LAB_JOBS:-$(( $(nproc) > 1 ? 2 : 1 ))}

# lab_job CMD...: run CMD in the background once fewer than LAB_JOBS run.
# A job reports its failure with lab_failed (a file: a background job cannot
# set the driver's variables); lab_wait waits for all and says if any did.
lab_job() {
	while [ "$(jobs -rp | wc -l)" -ge "$LAB_JOBS" ]; do
		wait -n || true
	done
	"$@" &
}

lab_failed() {
	: > "$out/.failed"
}

lab_wait() {	# returns 1 when a job failed
	wait
	[ ! -e "$out/.failed" ]
}
