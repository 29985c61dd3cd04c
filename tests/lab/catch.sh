#!/usr/bin/env bash
# fgt-catch (lab/guest/fgt-catch.c) on the host: in every round the helper
# is caught before it ran, held stopped across its parent's SIGKILL, and
# does its work only once resumed. A helper's first stop can reach the
# tracer before its parent's fork event: continued then, it ran before it
# was caught (31 rounds of 300 here before the fix, a lab round on Debian's
# 6.1 in make test). Needs ptrace (root or ptrace_scope 0).
#
#   tests/lab/catch.sh FGT_CATCH CATCH_CMD [ROUNDS]
set -uo pipefail
catch=$1 cmd=$2 rounds=${3:-200}
dir=$(mktemp -d /tmp/fgt-catch-test.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
bad=0
for ((i = 1; i <= rounds; i++)); do
	rm -f "$dir"/made "$dir"/check-*.state
	"$catch" -o "$dir/out.json" -s "$dir" -k instance -- "$cmd" "$dir" "$dir/made" \
		> /dev/null 2>&1
	h=$(sed -n 's/.*"helper":\([0-9]*\).*/\1/p' "$dir/out.json")
	why=
	[ -n "$h" ] || why="no helper caught: $(cat "$dir/out.json")"
	[ -z "$why" ] && [ -e "$dir/made" ] && why="the helper ran before it was resumed"
	# the state follows the last ')' (comm may hold one); gone: "-"
	st=$(sed -n 's/.*) \(.\).*/\1/p' "/proc/$h/stat" 2>/dev/null)
	[ -z "$why" ] && [ "${st:--}" != T ] && why="helper $h is not stopped (state ${st:--})"
	if [ -n "$h" ]; then
		kill -CONT "$h" 2>/dev/null
		# resumed, it does its work (a zombie after: kill -0 cannot tell)
		n=0
		while [ $n -lt 1000 ] && [ ! -e "$dir/made" ]; do
			sleep 0.005
			n=$((n + 1))
		done
		[ -z "$why" ] && [ ! -e "$dir/made" ] && why="helper $h did nothing once resumed"
	fi
	if [ -n "$why" ]; then
		echo "catch: round $i: FAIL $why" >&2
		bad=$((bad + 1))
	fi
done
if [ $bad -eq 0 ]; then
	echo "catch: all $rounds rounds: each helper caught before it ran, held, then ran"
else
	echo "catch: FAILED $bad of $rounds rounds" >&2
	exit 1
fi
