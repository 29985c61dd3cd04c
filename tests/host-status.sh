#!/usr/bin/env bash
# fgraphtop on the machine running the tests: its documented exit status and
# its one line (docs/json.md, src/common/exit_codes.h). Where the kernel has no
# function graph tracer (this project's build host) that is 3, "no_fgraph";
# elsewhere, as non-root without capabilities, 4; as root the kernel decides
# between a run (0: its JSON lines start with "start" and end with "summary")
# and one of the documented unsupported statuses (5 to 8: one line, and one
# JSON "error" record naming the same status), the same with and without -j.
#
# Its answer must not depend on what the machine happens to have mounted: as
# root, with unshare(1), it runs itself twice, in private mount namespaces,
# once with tracefs unmounted (a fresh machine), once mounted, and once with
# debugfs alone (whose tracing/ automounts tracefs when looked up: fgraphtop
# must leave the mounts as it found them).
#   tests/host-status.sh [BIN]          both states where it can, else as is
#   FGT_HOST_TRACEFS=mounted|unmounted|debugfs  (set by the above) this state only
#   FGT_HOST_ASSUME_FGRAPH=1            as if the kernel had fgraph (the self-test)
set -euo pipefail
bin=${1:-build/fgraphtop}
fail() { echo "host-status: FAIL: $*" >&2; exit 1; }

if [ -z "${FGT_HOST_TRACEFS:-}" ] && [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null &&
	unshare -m true 2>/dev/null; then
	for st in unmounted mounted debugfs; do
		FGT_HOST_TRACEFS=$st unshare -m "$0" "$@" || fail "with tracefs $st"
	done
	exit 0
fi
case ${FGT_HOST_TRACEFS:-} in
unmounted)
	for m in /sys/kernel/tracing /sys/kernel/debug/tracing /sys/kernel/debug; do
		umount "$m" 2>/dev/null || true
	done
	;;
mounted)
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing ||
		echo "host-status: cannot mount tracefs here: checking as is" >&2
	;;
debugfs)
	# debugfs without tracefs, as many hosts have it: a lookup of its tracing/
	# would automount tracefs there, and fgraphtop must not leave that behind
	for m in /sys/kernel/tracing /sys/kernel/debug/tracing /sys/kernel/debug; do
		umount "$m" 2>/dev/null || true
	done
	mount -t debugfs nodev /sys/kernel/debug ||
		echo "host-status: cannot mount debugfs here: checking as is" >&2
	;;
esac
tracefs_mounts() { awk '$0 ~ / - tracefs / { print $5 }' /proc/self/mountinfo | sort; }
mounts_before=$(tracefs_mounts)

# FGT_HOST_ASSUME_FGRAPH=1: judge as on a kernel with fgraph (make test-host
# runs it so on this build host, where it must fail: exit 3 is not allowed there)
has_fgraph=${FGT_HOST_ASSUME_FGRAPH:+true}
has_fgraph=${has_fgraph:-false}
grep -qw register_ftrace_graph /proc/kallsyms 2>/dev/null && has_fgraph=true
# the mounted tracefs only: looking up debugfs's tracing/ would mount it
for d in $mounts_before; do
	[ -r "$d/available_tracers" ] && grep -qw function_graph "$d/available_tracers" && has_fgraph=true
done

set +e
text=$("$bin" -d 1 2>&1 >/dev/null); st=$?
json=$("$bin" -j -d 1 2>/dev/null); jst=$?
"$bin" --bogus >/dev/null 2>&1; ust=$?
set -e

[ "$ust" -eq 64 ] || fail "bad option: exit $ust, want 64"
set +e
answer=$("$bin" check -j 2>/dev/null); cst=$?
set -e
[ "$(tracefs_mounts)" = "$mounts_before" ] ||
	fail "tracefs mounts changed: before [$mounts_before], after [$(tracefs_mounts)]"
# With -j every option error is one JSON error line on stdout, exit 64, nothing on
# stderr: unknown options and missing values (getopt's) as well as bad values.
here=$(dirname "$0")
for args in "-j --bogus" "--json -x" "-jx" "-j -i" "-j --path=sideways" "-j -i 0" "-j extra"; do
	set +e
	# shellcheck disable=SC2086
	out=$("$bin" $args 2>"${TMPDIR:-/tmp}/fgt-hs.err"); rc=$?
	set -e
	[ "$rc" -eq 64 ] || fail "$args: exit $rc, want 64"
	[ ! -s "${TMPDIR:-/tmp}/fgt-hs.err" ] || fail "$args: stderr: $(cat "${TMPDIR:-/tmp}/fgt-hs.err")"
	[ "$(echo "$out" | wc -l)" -eq 1 ] || fail "$args: want one line: $out"
	echo "$out" | jq -e '.type == "error" and .code == "usage" and .exit == 64' >/dev/null ||
		fail "$args: $out"
	echo "$out" | python3 "$here/json_schema.py" 2>/dev/null || fail "$args: schema: $out"
done
rm -f "${TMPDIR:-/tmp}/fgt-hs.err"
# check's answer, on any host: a monitoring-plugin status, the one object
# naming that same status, and a verdict that gives it (docs/json.md, "Exit
# status": fixed 0, or 1 with problems; not_affected 0; not_fixed 2; unknown 3)
case $cst in
0 | 1 | 2 | 3) ;;
*) fail "check: exit $cst is none of the documented 0..3: $answer" ;;
esac
[ "$(echo "$answer" | wc -l)" -eq 1 ] || fail "check: want one JSON line: $answer"
echo "$answer" | python3 "$here/json_schema.py" 2>/dev/null || fail "check: schema: $answer"
echo "$answer" | jq -e --argjson st "$cst" '.type == "check" and .status == $st and
	({"fixed": [0, 1], "not_affected": [0], "not_fixed": [2], "unknown": [3]}[.verdict] //
	 [] | index($st) != null)' >/dev/null ||
	fail "check: exit $cst, but its answer's status or verdict says otherwise: $answer"
if ! $has_fgraph; then
	[ "$st" -eq 3 ] || fail "no function graph tracer: exit $st, want 3"
	[ "$jst" -eq 3 ] || fail "no function graph tracer (-j): exit $jst, want 3"
	# the same words whether tracefs is mounted or not
	[ "$text" = "fgraphtop: no function graph tracer in this kernel: no register_ftrace_graph in kallsyms: it cannot have the quadratic shadow-stack walk, nothing to watch" ] ||
		fail "message: $text"
	echo "$json" | jq -e '.schema == 1 and .type == "error" and .code == "no_fgraph" and .exit == 3' \
		>/dev/null || fail "JSON error: $json"
	echo "$json" | python3 "$here/json_schema.py" 2>/dev/null || fail "schema: $json"
	echo "host-status: ok (no function graph tracer: exit 3, no_fgraph; tracefs ${FGT_HOST_TRACEFS:-as is})"
	exit 0
fi
[ "$st" -eq "$jst" ] || fail "exit $st, but $jst with -j"
echo "$json" | python3 "$here/json_schema.py" 2>/dev/null || fail "schema: $json"
last=$(echo "$json" | tail -n 1)
if [ "$(id -u)" -ne 0 ]; then
	[ "$st" -eq 4 ] || fail "not root: exit $st, want 4"
fi
case $st in
0)
	# a run: it started, watched for the second and summed up, and no error
	# record says it failed
	echo "$json" | jq -se 'map(.type) | index("start") != null and .[-1] == "summary" and
		index("error") == null' >/dev/null ||
		fail "exit 0 without a start and a summary record, or with an error: $json"
	;;
4 | 5 | 6 | 7 | 8)
	# refused: one line saying why, and the JSON error naming the same status
	if [ "$(echo "$text" | wc -l)" -ne 1 ] || [[ $text != fgraphtop:* ]]; then
		fail "exit $st: want one 'fgraphtop: ...' line, got: $text"
	fi
	echo "$last" | jq -e --argjson st "$st" '.type == "error" and .exit == $st' >/dev/null ||
		fail "exit $st: the last JSON record is not its error: $last"
	;;
*)
	fail "kernel has fgraph: exit $st is none of the documented 0, 4..8: $text"
	;;
esac
echo "host-status: ok (kernel has fgraph: exit $st, tracefs ${FGT_HOST_TRACEFS:-as is})"
