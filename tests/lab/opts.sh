#!/usr/bin/env bash
# make test-lab-opts (part of make check: no guest, no kernel): every lab
# driver's options, as tests/lab/lib.sh lab_opts parses them. Good options are
# parsed as meant (FGT_LAB_PARSE_ONLY=1: what was parsed, nothing run); bad
# input (an unknown option, an option without its value, a bad thread count,
# an argument where none is taken, a second -k where one is taken) gets one
# line on stderr naming the driver and what was wrong, status 2, nothing on
# stdout and nothing made (TMPDIR stays empty).
#
#   tests/lab/opts.sh
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
fail=0 n=0
note() { echo "lab-opts: $*"; }
bad() { note "FAIL $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/t"

# DRIVER NAME LETTERS: each driver, the name its lines start with, its options
drivers=(
	"tests/lab/basic.sh basic oa"
	"tests/lab/check.sh check o"
	"tests/lab/exposure.sh exposure o"
	"tests/lab/lockdown.sh lockdown oa"
	"tests/lab/pressure.sh pressure ok"
	"tests/lab/tool.sh tool ok"
	"tests/lab/live.sh live oKu"
	"tests/lab/hold.sh hold oku"
	"tests/lab/join.sh join okbu"
	"tests/deb/lab-caps.sh lab-caps o"
)

refused() {	# DRIVER NAME WANT(stderr, a regex) ARGS...: status 2, one line, nothing made
	local d=$1 name=$2 want=$3 st=0
	shift 3
	n=$((n + 1))
	TMPDIR=$tmp/t FGT_KERNELS=/nonexistent "$d" "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null || st=$?
	if [ "$st" != 2 ] || [ "$(wc -l < "$tmp/err")" != 1 ] || [ -s "$tmp/out" ] ||
		! grep -Eq "^$name: $want \(usage: $d .*\)$" "$tmp/err"; then
		bad "$d $*: want status 2 and one line '$name: $want (usage: ...)', got status $st, stderr: $(head -c 300 "$tmp/err"), stdout: $(head -c 100 "$tmp/out")"
	fi
	if [ -n "$(ls -A "$tmp/t")" ]; then
		bad "$d $*: left $(ls -A "$tmp/t") behind"
		rm -rf "${tmp:?}"/t/*
	fi
}

parsed() {	# DRIVER WANT(stdout) ARGS...: parsed as meant, status 0, nothing made
	local d=$1 want=$2 st=0
	shift 2
	n=$((n + 1))
	TMPDIR=$tmp/t FGT_LAB_PARSE_ONLY=1 "$d" "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null || st=$?
	if [ "$st" != 0 ] || [ "$(cat "$tmp/out")" != "$want" ]; then
		bad "$d $*: want '$want', got status $st: $(cat "$tmp/out" "$tmp/err")"
	fi
	[ -z "$(ls -A "$tmp/t")" ] || { bad "$d $*: made $(ls -A "$tmp/t")"; rm -rf "${tmp:?}"/t/*; }
}

for line in "${drivers[@]}"; do
	read -r d name letters <<<"$line"
	refused "$d" "$name" "unknown option -Z" -Z
	refused "$d" "$name" "-o needs a value" -o
	parsed "$d" "out=$tmp/o kernels= u= args=" -o "$tmp/o"
	case $letters in
	*a*)
		parsed "$d" "out= kernels= u= args=debian-6.1 lab-stock" debian-6.1 lab-stock ;;
	*)
		refused "$d" "$name" "no arguments are taken, not 'lab-stock'" lab-stock
		refused "$d" "$name" "no arguments are taken, not 'x'" -o "$tmp/o" x ;;
	esac
	case $letters in
	*k*)
		parsed "$d" "out= kernels=lab-fixed lab-6.1-fixed u= args=" -k lab-fixed -k lab-6.1-fixed
		refused "$d" "$name" "no kernel is named 'lab-stock lab-fixed' \\(lab/kernels.sh list\\)" \
			-k "lab-stock lab-fixed"
		refused "$d" "$name" "-k needs a value" -k ;;
	*K*)
		parsed "$d" "out= kernels=lab-fixed u= args=" -k lab-fixed
		refused "$d" "$name" "no kernel is named 'lab-fixd' \\(lab/kernels.sh list\\)" -k lab-fixd
		refused "$d" "$name" "one -k only" -k lab-fixed -k lab-stock ;;
	*)
		refused "$d" "$name" "unknown option -k" -k lab-fixed ;;
	esac
	# KERNEL+bt: bpftrace as the trigger, where the driver takes it
	case $letters in
	*b*)
		parsed "$d" "out= kernels=debian-7.2+bt u= args=" -k debian-7.2+bt
		refused "$d" "$name" "no kernel is named 'lab-stock\\+bx' \\(lab/kernels.sh list\\)" \
			-k lab-stock+bx ;;
	*[kK]*)
		refused "$d" "$name" "no kernel is named 'debian-7.2\\+bt' \\(lab/kernels.sh list\\)" \
			-k debian-7.2+bt ;;
	esac
	case $letters in
	*u*)
		parsed "$d" "out= kernels= u=1000 args=" -u 1000
		refused "$d" "$name" "-u takes a thread count, not 'many'" -u many
		refused "$d" "$name" "-u takes a thread count, not '0'" -u 0 ;;
	*)
		refused "$d" "$name" "unknown option -u" -u 1000 ;;
	esac
done
[ ! -e "$tmp/o" ] || bad "a parse-only run made its -o directory"

if [ $fail -eq 0 ]; then note "PASS: ${#drivers[@]} drivers, $n cases"; else note "FAILED"; fi
exit $fail
