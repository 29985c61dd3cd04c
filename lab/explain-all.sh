#!/usr/bin/env bash
# Every lab kernel's `fgraphtop --explain` (text and JSON, each --path) into
# OUTDIR/KERNEL.txt, so that two builds of fgraphtop can be compared:
#   lab/explain-all.sh OUTDIR [KERNEL...]      (default: every kernel)
# then `diff -r OUT1 OUT2`. Debian's kernels randomise their addresses at each
# boot (KASLR): compare those with the addresses masked.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: explain-all.sh OUTDIR [KERNEL...]}
shift
mkdir -p "$out"
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || mapfile -t kernels < <("$HERE/kernels.sh" list)
for k in "${kernels[@]}"; do
	tmp=$(mktemp -d)
	if "$HERE/run.sh" -k "$k" -s explain -t 240 -o "$tmp" >/dev/null 2>"$tmp/run.err"; then
		jq -r 'select(.type == "explain") | "\(.path): \(.line)"' "$tmp/results.jsonl" >"$out/$k.txt"
		jq -c 'select(.type == "explain_json")' "$tmp/results.jsonl" >"$out/$k.json"
		echo "explain-all: $k: $(wc -l <"$out/$k.txt") lines"
	else
		echo "explain-all: $k: run failed: $(tail -n 2 "$tmp/run.err")" >&2
	fi
	rm -rf "$tmp"
done
