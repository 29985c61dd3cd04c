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
}
