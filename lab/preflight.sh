#!/usr/bin/env bash
# Preflight kernel packages before they are rolled out: boot each in the lab
# and ask `fgraphtop check` inside it, from the kernel's code (--static) and
# from an activation it causes (--trigger).
#
#   lab/preflight.sh [-j] [-t TIMEOUT_S] [-o OUTDIR] PACKAGE.deb...
#
# One line per package on stdout (-j: one JSON object per package instead),
# in the order given, and the JSON objects in OUTDIR/preflight.jsonl either
# way; progress on stderr. A package's verdict is the two
# answers' when they agree, `unknown` when they do not or one is missing.
# Packages boot FGT_LAB_JOBS (default 2) at a time; the unpacked kernels are
# cached in FGT_CACHE/preflight/, keyed by the package's sha256.
# Exit status: 0 every package fixed (or not affected); 2 some package not
# fixed; 3 some package's verdict unknown (answers disagree, no answer, the
# guest did not boot); 64 bad usage or a file that is not a kernel package
# (nothing booted).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}
JOBS=${FGT_LAB_JOBS:-2}

say() { printf 'preflight: %s\n' "$*" >&2; }
usage() {
	[ $# -eq 0 ] || say "$*"
	sed -n '6p' "$0" | sed 's/^# */usage: /' >&2
	exit 64
}

json=0 timeout=60 out=
while getopts "jt:o:h" opt; do
	case $opt in
	j) json=1 ;;
	t) timeout=$OPTARG ;;
	o) out=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage "no package given"
[[ $timeout =~ ^[1-9][0-9]{0,3}$ ]] || usage "-t $timeout: a whole number of seconds, 1..9999"
[[ $JOBS =~ ^[1-9][0-9]?$ ]] || usage "FGT_LAB_JOBS=$JOBS: a whole number, 1..99"

# Every package is checked before any boots: one bad name costs nothing.
# unpacked PKG: the cached kernel dir of a package (bzImage, info.json).
unpacked() {
	local deb=$1 key dir tmp rel
	key=$(sha256sum "$deb" | cut -c1-16)
	dir=$CACHE/preflight/$key
	if [ ! -f "$dir/info.json" ]; then
		mkdir -p "$CACHE/preflight"
		tmp=$(mktemp -d "$CACHE/preflight/.tmp.XXXXXX")
		if ! rel=$("$HERE/kdeb.sh" unpack "$deb" "$tmp" 2>&1); then
			rm -rf "$tmp"
			say "${rel#kdeb: error: }"
			return 1
		fi
		jq -nc --arg n "$(dpkg-deb -f "$deb" Package)" --arg v "$(dpkg-deb -f "$deb" Version)" \
			--arg r "$rel" --arg k "$key" \
			'{name: $n, release: $r, package: $n, version: $v, key: $k, patches: []}' \
			>"$tmp/info.json"
		rm -rf "$dir"
		mv "$tmp" "$dir"
	fi
	echo "$dir"
}

debs=("$@") dirs=()
for deb; do
	d=$(unpacked "$deb") || exit 64
	dirs+=("$d")
done
[ -n "$out" ] || out=$(mktemp -d "${TMPDIR:-/tmp}/fgt-preflight.XXXXXX")
mkdir -p "$out"

# boot I: package I in the lab, its results in $out/I/
boot() {
	local i=$1 d=${dirs[$1]} rc=0
	"$HERE/run.sh" -K "$d/bzImage" -s preflight -t $((timeout + 300)) -o "$out/$i" \
		-- TIMEOUT="$timeout" >/dev/null 2>"$out/$i.log" || rc=$?
	echo "$rc" >"$out/$i.rc"
}

# Stopped early: the guests go too (lab/run.sh takes its qemu down on TERM).
# shellcheck disable=SC2317 # a trap calls it
stop() {
	local p
	# each job is a subshell waiting for its lab/run.sh: signal that
	for p in $(jobs -p); do pkill -TERM -P "$p" 2>/dev/null || true; done
	wait
	exit "$1"
}
trap 'stop 130' INT
trap 'stop 143' TERM HUP

t0=$SECONDS
running=0
for i in "${!dirs[@]}"; do
	say "booting $(jq -r '"\(.package) \(.version)"' "${dirs[$i]}/info.json") ($((i + 1))/${#dirs[@]})"
	boot "$i" &
	running=$((running + 1))
	if [ "$running" -ge "$JOBS" ]; then
		wait -n || true
		running=$((running - 1))
	fi
done
wait
say "${#dirs[@]} package(s) in $((SECONDS - t0)) s; guests' output in $out"

# One package's record, from its info.json, run status and results.
record() {
	local i=$1 r
	r=$out/$i/results.jsonl
	[ -f "$r" ] || : >"$r"
	jq -sc --slurpfile info "${dirs[$i]}/info.json" --argjson rc "$(cat "$out/$i.rc")" \
		--arg file "$(basename "${debs[$i]}")" '
		def ans($h): (map(select(.type == "answer" and .how == $h)) | first) as $a
			| if $a == null then {status: null, verdict: "unknown", reason: "no answer"}
			  else {status: $a.status, verdict: ($a.answer.verdict // "unknown"),
				method: $a.answer.method,
				reason: ($a.answer.reason // "no JSON answer")}
				+ (if $a.answer.activation then {activation: ($a.answer.activation
					| {sweeps, served, duration_ns, failures, nr_threads})} else {} end)
			  end;
		(map(select(.type == "run")) | first) as $run
		| (map(select(.type == "leftovers")) | first) as $left
		| ans("static") as $s | ans("trigger") as $t
		| {file: $file, package: $info[0].package, version: $info[0].version,
		   release: ($run.release // $info[0].release), run_status: $rc,
		   static: $s, trigger: $t,
		   verdict: (if $rc != 0 then "unknown"
			elif $s.verdict == $t.verdict then $s.verdict else "unknown" end),
		   left_behind: (if $left == null then null
			else ($left.tracer != "nop" or $left.instances != 0) end)}' "$r"
}

line() {	# a record as one line
	jq -r '
		def plural($n; $w): "\($n) \($w)\(if $n == 1 then "" else "s" end)";
		def a: .verdict + (if .activation then
			", \(if .activation.sweeps == null then "sweeps not observable" else plural(.activation.sweeps; "sweep") end) serving \(.activation.served) threads in \(.activation.duration_ns / 100000 | round / 10) ms"
			else "" end);
		"\(.package) \(.version) [\(.release)]: \(.verdict) (static: \(.static | a); trigger: \(.trigger | a))"
		+ (if .run_status != 0 then "; the guest exited \(.run_status)" else "" end)
		+ (if .left_behind then "; a tracer or instance was left on" else "" end)'
}

: >"$out/preflight.jsonl"
worst=0
for i in "${!dirs[@]}"; do
	rec=$(record "$i")
	echo "$rec" >>"$out/preflight.jsonl"
	if [ "$json" = 1 ]; then echo "$rec"; else line <<<"$rec"; fi
	case $(jq -r .verdict <<<"$rec") in
	fixed | not_affected) s=0 ;;
	not_fixed) s=2 ;;
	*) s=3 ;;
	esac
	# unknown outranks not_fixed: the fleet cannot act on a guess
	[ "$s" -gt "$worst" ] && worst=$s
done
exit "$worst"
