#!/usr/bin/env bash
# make test-docs: the README and the man page cannot rot.
#  1. make install into a temporary DESTDIR, with the default PREFIX and with
#     PREFIX=/usr: the binary and the man page where they belong, both usable,
#     and every relative link of the installed documents resolving;
#  2. tests/docs/check_docs.py: the README's marked blocks run as written (with
#     the installed fgraphtop first in PATH), options, messages and exit
#     statuses agree with the tool, the man page is lint-clean;
#  3. check_docs.py --self-test: each of those checks fails on a broken copy.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL install: $*"; fail=1; }

for prefix in "" /usr; do
	d=$tmp/stage${prefix//\//-}
	make --no-print-directory -s install DESTDIR="$d" ${prefix:+PREFIX=$prefix} > "$tmp/install.log" 2>&1 ||
		{ bad "make install DESTDIR=$d ${prefix:+PREFIX=$prefix}: $(tail -3 "$tmp/install.log")"; continue; }
	p=${prefix:-/usr/local}
	bin=$d$p/sbin/fgraphtop man=$d$p/share/man/man8/fgraphtop.8
	[ -x "$bin" ] || bad "no executable $bin"
	[ -f "$man" ] || bad "no $man"
	[ "$(stat -c %a "$man" 2>/dev/null)" = 644 ] || bad "$man: mode not 0644"
	cmp -s "$bin" build/fgraphtop || bad "$bin is not build/fgraphtop"
	cmp -s "$man" man/fgraphtop.8 || bad "$man is not man/fgraphtop.8"
	"$bin" --version | grep -q '^fgraphtop ' || bad "$bin --version"
	# (grep -c reads everything: no SIGPIPE upstream under pipefail)
	[ "$(readelf -l "$bin" 2>/dev/null | grep -c INTERP)" = 0 ] || bad "$bin is not one static binary"
	mandoc -Tascii "$man" 2>/dev/null | sed 's/.\x08//g' | grep -c 'EXIT STATUS' >/dev/null || bad "mandoc $man does not render"
	# the installed documents' relative links resolve where they are installed
	# (a link into the source tree, ../dist/ or ../README.md, dangles there)
	for f in "$d$p"/share/doc/fgraphtop/*.md; do
		while read -r l; do
			[ -e "$(dirname "$f")/$l" ] || bad "${f#"$d"} links $l, not installed"
		done < <(grep -oE '\]\([^)#:]+' "$f" | sed 's/^](//')
	done
	# nothing outside DESTDIR$PREFIX
	other=$(cd "$d" && { find . -type f | grep -v "^\.$p/" || true; })
	[ -z "$other" ] || bad "make install wrote outside PREFIX: $other"
done
[ $fail -eq 0 ] && echo "ok install (PREFIX, DESTDIR)"

python3 tests/docs/check_docs.py --bindir "$tmp/stage/usr/local/sbin" || fail=1
python3 tests/docs/check_docs.py --self-test --bindir "$tmp/stage/usr/local/sbin" || fail=1
if [ $fail -ne 0 ]; then
	echo "test-docs: FAILED"
	exit 1
fi
echo "test-docs: all passed"
