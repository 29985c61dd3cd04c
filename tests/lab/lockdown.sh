#!/usr/bin/env bash
# check --static under lockdown (issue 20), on Debian's 7.2 kernel (the lab's
# own kernels have no lockdown LSM):
#   integrity                     answers from /proc/kcore (Secure Boot's default)
#   confidentiality, /boot image  kcore is refused; the answer comes from
#                                 /boot/vmlinuz-RELEASE, the running build
#   confidentiality, no image     unknown (status 3), why lockdown, saying so
# Each must give the offline answer of the same image (not_fixed, status 2)
# where it answers.
#   tests/lab/lockdown.sh [-o OUTDIR] [KERNEL]      (default debian-7.2)
set -euo pipefail
# shellcheck source=tests/lab/lib.sh
. "$(dirname "$0")/lib.sh"
lab_opts lockdown oa "$@"
shift $((OPTIND - 1))
k=${1:-debian-7.2}
dir=$("$KSH" path "$k")
rel=$(jq -r .release "$dir/info.json")
BIN=${FGT_BIN:-$ROOT/build/fgraphtop}

# the image where the guest's kernel expects it
mkdir -p "$out/boot/boot"
cp "$dir/bzImage" "$out/boot/boot/vmlinuz-$rel"
(cd "$out/boot" && find boot | cpio -o -H newc --quiet) > "$out/boot.cpio"
want=$("$BIN" check --static --json --kernel "$dir/bzImage" | jq -r .static.verdict) || true

fail=0
# The checks below are jq programs: $want and $rel are jq's (SC2016).
one() {	# NAME MODE EXTRA_CPIO CHECK(jq, on the result)
	local name=$1 mode=$2 cpio=$3 check=$4 r
	FGT_EXTRA_CPIO=$cpio "$ROOT/lab/run.sh" -k "$k" -s check-lockdown -t 300 \
		-a "lockdown=$mode" -o "$out/$name" > "$out/$name.jsonl" || true
	r=$(jq -c 'select(.type == "lockdown")' "$out/$name.jsonl" | head -n 1)
	if [ -n "$r" ] && echo "$r" | jq -e --arg want "$want" --arg rel "$rel" "$check" > /dev/null; then
		echo "ok   $name: $(echo "$r" | jq -r '"\(.mode): status \(.status), \(.answer.static.verdict) from \(.answer.static.source)"')"
	else
		echo "FAIL $name: ${r:-no result (see $out/$name)}"
		fail=1
	fi
}

# shellcheck disable=SC2016
one integrity integrity "" \
	'(.mode | test("\\[integrity\\]")) and .answer.static.verdict == $want and
	 (.answer.static.source | startswith("/proc/kcore"))'
# shellcheck disable=SC2016
one confidentiality confidentiality "$out/boot.cpio" \
	'(.mode | test("\\[confidentiality\\]")) and .boot_image == 1 and
	 .answer.static.verdict == $want and .status == 2 and
	 (.answer.static.source | contains("/boot/vmlinuz-" + $rel + " (") and
	  contains("the running kernel'"'"'s (build ID") and contains("lockdown=confidentiality"))'
# shellcheck disable=SC2016
one no-image confidentiality "" \
	'.boot_image == 0 and .status == 3 and .answer.static.why == "lockdown" and
	 (.answer.static.evidence | contains("and no /boot/vmlinuz-" + $rel + " to read instead"))'
[ "$want" = not_fixed ] || { echo "FAIL offline answer of $k is '$want'"; fail=1; }
echo "lockdown: $([ $fail = 0 ] && echo all passed || echo FAILED) ($k, $out)"
exit $fail
