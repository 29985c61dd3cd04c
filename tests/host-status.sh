#!/usr/bin/env bash
# fgraphtop on the machine running the tests: its documented exit status and
# its one line (docs/json.md, src/exit_codes.h). Where the kernel has no
# function graph tracer (this project's build host) that is 3, "no_fgraph";
# elsewhere, as non-root without capabilities, 4; as root the kernel decides,
# so only the JSON shape is checked.
set -euo pipefail
bin=${1:-build/fgraphtop}
fail() { echo "host-status: FAIL: $*" >&2; exit 1; }

has_fgraph=false
grep -qw register_ftrace_graph /proc/kallsyms 2>/dev/null && has_fgraph=true
for f in /sys/kernel/tracing/available_tracers /sys/kernel/debug/tracing/available_tracers; do
	[ -r "$f" ] && grep -qw function_graph "$f" && has_fgraph=true
done

set +e
text=$("$bin" -d 1 2>&1 >/dev/null); st=$?
json=$("$bin" -j -d 1 2>/dev/null); jst=$?
"$bin" --bogus >/dev/null 2>&1; ust=$?
set -e

[ "$ust" -eq 2 ] || fail "bad option: exit $ust, want 2"
if ! $has_fgraph; then
	[ "$st" -eq 3 ] || fail "no function graph tracer: exit $st, want 3"
	[ "$jst" -eq 3 ] || fail "no function graph tracer (-j): exit $jst, want 3"
	echo "$text" | grep -q "cannot have the quadratic shadow-stack walk" ||
		fail "message: $text"
	echo "$json" | jq -e '.schema == 1 and .type == "error" and .code == "no_fgraph" and .exit == 3' \
		>/dev/null || fail "JSON error: $json"
	echo "host-status: ok (no function graph tracer: exit 3, no_fgraph)"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	[ "$st" -eq 4 ] || fail "not root: exit $st, want 4"
fi
echo "host-status: ok (kernel has fgraph: exit $st)"
