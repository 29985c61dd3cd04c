#!/usr/bin/env bash
# The lab's kernel patches as a maintainer would take them, and still applying:
#   - every lab kernel's patches apply, in order, to the source version the
#     Debian registry serves now (lab/kernels.sh check-apply);
#   - every patch under lab/patches/ gets no error and no warning from
#     scripts/checkpatch.pl --strict run in the source tree it applies to
#     (lab/kernels.sh source); CHECK-level notes are printed, not fatal;
#   - every patch under lab/patches/ is some lab kernel's (none is forgotten);
#   - a patch that no longer applies fails loudly, naming the version: the
#     same check-apply against a cache whose linux-source-6.1 "moved on" to a
#     version where the hunk's lines changed must exit 1 with one line naming
#     the patch and that version.
#
#   tests/checkpatch.sh
# Needs the source packages (fetched and extracted into $FGT_CACHE once, as for
# `make lab`). Environment: FGT_KERNELS as lab/run.sh. Exit 0 when all hold, else 1.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KSH=${FGT_KERNELS:-$ROOT/lab/kernels.sh}
fail=0
note() { echo "checkpatch: $*" >&2; }
bad() {
	note "FAIL: $*"
	fail=1
}

declare -A seen=()
for k in $("$KSH" list); do
	[[ $k == lab-* ]] || continue
	if ! msg=$("$KSH" check-apply "$k" 2>&1); then
		bad "$k: $msg"
		continue
	fi
	note "$k: ${msg#kernels: "$k": }"
	if ! tree=$("$KSH" source "$k" 2>/dev/null); then
		bad "$k: no source tree (lab/kernels.sh source $k)"
		continue
	fi
	while read -r p; do
		if [ -z "$p" ] || [ -n "${seen[$p]:-}" ]; then
			continue
		fi
		seen[$p]=1
		# run from the tree: checkpatch.pl reads its spelling and
		# const-struct lists, and checks paths, relative to it
		res=$(cd "$tree" && perl scripts/checkpatch.pl --strict "$p" 2>&1)
		total=$(grep '^total: ' <<<"$res")
		name=${p#"$ROOT"/}
		if [[ $total =~ ^total:\ ([0-9]+)\ errors,\ ([0-9]+)\ warnings,\ ([0-9]+)\ checks ]]; then
			if [ "${BASH_REMATCH[1]}" != 0 ] || [ "${BASH_REMATCH[2]}" != 0 ]; then
				bad "$name: $total"
				grep -E -A3 '^(ERROR|WARNING):' <<<"$res" >&2
			else
				note "$name: ${total#total: } (${tree#"${FGT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fgraphtop-lab}"/})"
			fi
		else
			bad "$name: checkpatch.pl gave no totals: $(tail -n 3 <<<"$res")"
		fi
	done < <("$KSH" patches "$k")
done

for p in "$ROOT"/lab/patches/*/*.patch; do
	[ -n "${seen[$p]:-}" ] || bad "${p#"$ROOT"/} is no lab kernel's patch (lab/kernels.sh lab_patches)"
done
[ ${#seen[@]} -gt 0 ] || bad "no patches checked"

# The loud failure: a private cache whose resolved linux-source-6.1 is a
# version in which the 6.1 backport's hunk no longer matches.
fake=$(mktemp -d "${TMPDIR:-/tmp}/fgt-checkpatch.XXXXXX")
trap 'rm -rf "$fake"' EXIT
real=$("$KSH" source lab-6.1-fixed 2>/dev/null) || bad "no 6.1 source tree"
if [ -n "${real:-}" ]; then
	ver=6.1.999-1
	src=$fake/src/$ver/linux-source-6.1
	mkdir -p "$fake/apt" "$src/kernel/trace" "$src/lib"
	cp "$real/kernel/trace/fgraph.c" "$src/kernel/trace/"
	cp "$real/lib/Kconfig.debug" "$src/lib/"
	# a later 6.1.y that rewrote the test the fix removes
	sed -i 's/if (t->ret_stack == NULL) {/if (!t->ret_stack) {/' "$src/kernel/trace/fgraph.c"
	touch "$fake/src/$ver/.extracted"
	# lists refreshed an hour ago (no network), versions resolved since
	touch -d '1 hour ago' "$fake/apt/update.stamp"
	for v in debian_5_10 debian_6_1 debian_6_12 debian_7 source_7 source_6_1 source_6_12 source_5_10; do
		echo "PKG_$v=fake-$v"
		echo "VER_$v=0"
	done | sed "s/^PKG_source_6_1=.*/PKG_source_6_1=linux-source-6.1/; s/^VER_source_6_1=.*/VER_source_6_1=$ver/" \
		>"$fake/resolved.env"
	rc=0
	msg=$(FGT_CACHE=$fake "$KSH" check-apply lab-6.1-fixed 2>&1) || rc=$?
	want="kernels: error: lab/patches/fix-6.1/$(basename "$ROOT"/lab/patches/fix-6.1/0001-*.patch) does not apply to linux-source-6.1 $ver, the version the Debian registry serves now: port it"
	if [ "$rc" = 1 ] && [ "$msg" = "$want" ]; then
		note "a stale backport fails loudly: $msg"
	else
		bad "a stale backport: status $rc, said '$msg'; want status 1 and '$want'"
	fi
fi

if [ $fail = 0 ]; then note PASS; else note FAILED; fi
exit $fail
