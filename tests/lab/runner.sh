#!/usr/bin/env bash
# Lab test of lab/run.sh itself: exit statuses (0, N, 124, 125, 126), one more
# boot for a guest that died before its init started, the exit
# status through the console when ttyS1 stalls, results on
# stdout, and no qemu left behind, on one kernel (default debian-6.1, or -K IMAGE).
#   tests/lab/runner.sh [KERNEL | -K BZIMAGE]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = -K ]; then
	kern=(-K "$2")
else
	kern=(-k "${1:-debian-6.1}")
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/fgt-lab-runner.XXXXXX")
fail=0

check() {	# WANT_STATUS MODE [TIMEOUT]
	local want=$1 mode=$2 tmo=${3:-120} rc=0
	"$ROOT/lab/run.sh" "${kern[@]}" -s selftest -t "$tmo" -o "$out/$mode" -- "$mode" \
		> "$out/$mode.out" 2> "$out/$mode.err" || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "runner: FAIL: $mode: status $rc, want $want ($out/$mode)" >&2
		fail=1
	elif ! tail -n1 "$out/$mode.out" | jq -e --argjson s "$want" \
		'.type == "run" and .status == $s' > /dev/null; then
		echo "runner: FAIL: $mode: no run record with status $want" >&2
		fail=1
	else
		echo "runner: ok: $mode -> $rc" >&2
	fi
	if pgrep -f "$out/$mode/" > /dev/null; then
		echo "runner: FAIL: $mode: qemu left behind" >&2
		fail=1
	fi
}

check 0 ok
grep -q '"mode":"ok"' "$out/ok.out" || { echo "runner: FAIL: ok: no result line" >&2; fail=1; }
check 7 exit=7
check 124 hang 30
check 125 crash
check 126 splat
check 3 stall
for m in ok:ttyS1 stall:console; do
	if ! tail -n1 "$out/${m%%:*}.out" | jq -e --arg v "${m#*:}" '.exit_via == $v' > /dev/null; then
		echo "runner: FAIL: ${m%%:*}: exit status not taken from ${m#*:}" >&2
		fail=1
	fi
done

# A guest that dies before its init starts is booted once more, and the run
# record says so: with rdinit=/bin/false the kernel's first process exits at
# once ("Attempted to kill init!"), on both boots, so the status is still the
# panic's (126), and the first boot's console is kept.
rc=0
"$ROOT/lab/run.sh" "${kern[@]}" -s selftest -t 120 -a rdinit=/bin/false -o "$out/early" -- ok \
	> "$out/early.out" 2> "$out/early.err" || rc=$?
if [ "$rc" != 126 ]; then
	echo "runner: FAIL: early death: status $rc, want 126 ($out/early)" >&2
	fail=1
elif ! tail -n1 "$out/early.out" | jq -e '.retried.reason == "died before its init started" and
	(.retried.panic | test("Attempted to kill init"))' > /dev/null; then
	echo "runner: FAIL: early death: the run record does not say it was retried: $(tail -n1 "$out/early.out")" >&2
	fail=1
elif ! grep -q 'Attempted to kill init' "$out/early/console.first.log" ||
	! grep -q 'booting it once more' "$out/early.err"; then
	echo "runner: FAIL: early death: no first console or no retry message ($out/early)" >&2
	fail=1
elif ! tail -n1 "$out/ok.out" | jq -e '.retried == null' > /dev/null; then
	echo "runner: FAIL: ok: a retry recorded for a guest whose init started" >&2
	fail=1
else
	echo "runner: ok: early death -> 126, retried once" >&2
fi

# SIGTERM mid-run: the runner exits and takes qemu with it.
"$ROOT/lab/run.sh" "${kern[@]}" -s selftest -t 300 -o "$out/term" -- hang > /dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do
	if pgrep -f "$out/term/" | grep -qv "^$pid\$" &&
		grep -q qemu "/proc/$(pgrep -f "qemu.*$out/term/" | head -n1)/cmdline" 2>/dev/null; then
		break
	fi
	sleep 0.3
done
kill -TERM "$pid"
wait "$pid" || true
sleep 0.5
if pgrep -f "qemu.*$out/term/" > /dev/null; then
	echo "runner: FAIL: qemu left behind after SIGTERM" >&2
	fail=1
else
	echo "runner: ok: SIGTERM tears qemu down" >&2
fi
[ $fail = 0 ] && rm -rf "$out"
exit $fail
