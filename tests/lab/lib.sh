# Shared by the lab test drivers (tests/lab/*.sh, tests/deb/lab-caps.sh):
# where the repository and the kernels are, the options they take, guests
# side by side.
# shellcheck shell=bash disable=SC2034  # ROOT, KSH, out, only, lab_u: for the sourcing driver
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KSH=${FGT_KERNELS:-$ROOT/lab/kernels.sh}

# lab_opts NAME LETTERS "$@": every driver's options, parsed one way. LETTERS
# are the ones the driver takes:
#   o  -o OUTDIR    made if missing (default: a new temp directory
#                   fgt-lab-NAME.*, removed when the driver exits 0:
#                   a failing run's stays, with its path said), in $out
#   k  -k KERNEL    repeatable, in the array $only (empty: the driver's default)
#   K  -k KERNEL    the same, once at most (a driver of one kernel)
#   b  with k: a KERNEL may be named KERNEL+bt (tests/lab/join.sh: bpftrace
#                   as the trigger); the kernel is KERNEL's
#   u  -u THREADS   a positive count, in $lab_u (empty: the driver's default)
#   a  KERNEL...    arguments after the options (OPTIND is left for the
#                   driver's shift); without a, none is taken
# Bad input (an unknown option, one without its value, a bad count, an
# argument where none is taken, a second -k for K): one line on stderr naming it and the usage,
# exit status 2, before anything is made. FGT_LAB_PARSE_ONLY=1 prints what
# was parsed on stdout and exits 0, making nothing (tests/lab/opts.sh).
lab_opts() {
	local name=$1 letters=$2 spec=: opt usage
	shift 2
	usage="usage: ${0#"$ROOT"/}"
	case $letters in *o*) spec+=o: usage+=" [-o OUTDIR]" ;; esac
	case $letters in
	*k*) spec+=k: usage+=" [-k KERNEL]..." ;;
	*K*) spec+=k: usage+=" [-k KERNEL]" ;;
	esac
	case $letters in *u*) spec+=u: usage+=" [-u THREADS]" ;; esac
	case $letters in *a*) usage+=" [KERNEL...]" ;; esac
	out='' only=() lab_u=''
	OPTIND=1
	while getopts "$spec" opt; do
		case $opt in
		o) out=$OPTARG ;;
		k)
			case $letters:${#only[@]} in
			*K*:1) lab_opts_bad "$name" "one -k only" "$usage" ;;
			esac
			# a name no kernel has would select nothing, and pass
			case $letters:$OPTARG in
			*b*:*+bt) lab_known_kernel "${OPTARG%+bt}" ;;
			*) lab_known_kernel "$OPTARG" ;;
			esac ||
				lab_opts_bad "$name" "no kernel is named '$OPTARG' (lab/kernels.sh list)" "$usage"
			only+=("$OPTARG")
			;;
		u)
			case $OPTARG in
			'' | *[!0-9]* | 0*) lab_opts_bad "$name" "-u takes a thread count, not '$OPTARG'" "$usage" ;;
			esac
			lab_u=$OPTARG
			;;
		:) lab_opts_bad "$name" "-$OPTARG needs a value" "$usage" ;;
		*) lab_opts_bad "$name" "unknown option -$OPTARG" "$usage" ;;
		esac
	done
	shift $((OPTIND - 1))
	case $letters in
	*a*) ;;
	*) [ $# -eq 0 ] || lab_opts_bad "$name" "no arguments are taken, not '$1'" "$usage" ;;
	esac
	if [ "${FGT_LAB_PARSE_ONLY:-0}" = 1 ]; then
		printf 'out=%s kernels=%s u=%s args=%s\n' "$out" "${only[*]}" "$lab_u" "$*"
		exit 0
	fi
	if [ -z "$out" ]; then
		out=$(mktemp -d "${TMPDIR:-/tmp}/fgt-lab-$name.XXXXXX") || exit 1
		lab_scratch=$out lab_name=$name
		trap 'lab_leave $?' EXIT
	fi
	mkdir -p "$out"
	rm -f "$out/.failed"
}

# At exit: the temp directory lab_opts made goes if the driver passed (its
# guests' outputs, tens of MB a run, would pile up in /tmp); a failure's
# stays for its reader, and so does every one with FGT_LAB_KEEP=1 (a make
# target's runs, to record their walks: tests/data/sweeps-of.py).
lab_leave() {	# STATUS
	if [ "${FGT_LAB_KEEP:-0}" = 1 ] && [ -n "${lab_scratch:-}" ]; then
		echo "$lab_name: status $1, $lab_scratch kept (FGT_LAB_KEEP=1)" >&2
	elif [ "$1" = 0 ] && [ -n "${lab_scratch:-}" ] && rm -rf "$lab_scratch"; then
		echo "$lab_name: passed, so $lab_scratch is removed (-o OUTDIR keeps the runs)" >&2
	fi
	return "$1"
}

lab_known_kernel() {	# NAME: one of lab/kernels.sh list's
	local k
	for k in $("$ROOT/lab/kernels.sh" list); do [ "$k" = "$1" ] && return 0; done
	return 1
}

# lab_tier NAME...: those of the names in the tier FGT_LAB_TIER (test, make
# test's, the default; long, those only make test-long adds; all), in the
# order given: a driver's fixed lists, cut to the kernels `make lab` built.
lab_tier() {
	local tier=${FGT_LAB_TIER:-test} k in
	in=" $("$ROOT/lab/kernels.sh" list --tier "$tier" | paste -sd' ') " || return 1
	for k; do
		[[ $in == *" $k "* ]] && echo "$k"
	done
	return 0
}

lab_opts_bad() {	# NAME WHAT USAGE
	echo "$1: $2 ($3)" >&2
	exit 2
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
