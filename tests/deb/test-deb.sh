#!/usr/bin/env bash
# make test-deb: the Debian package on this very machine, end to end.
#  1. dpkg -i; the binary answers from /usr/sbin (`fgraphtop check`: on a kernel
#     without a function graph tracer, like this project's build machine,
#     not_affected and status 0);
#  2. the units as installed: systemd-analyze verify on both, the security
#     score of the service at most FGT_SECURITY_MAX (exposure x10, default 15),
#     the timer not enabled;
#  3. the service's command: the textfile in the directory when it exists
#     (promtool check metrics), a message and no file when it does not;
#  4. dpkg -r, then dpkg -P: nothing of the package left, the textfile and
#     /run/fgraphtop gone too, and a temporary file a killed check left
#     (named as src/check/prom.c names them: .fgraphtop.prom.PID.HEX), while
#     another's file of the same shape stays.
# Also: Built-Using names the source of every library linked in statically,
# and the copyright file covers each.
# Needs root and no fgraphtop package installed already (it is never touched).
#
#   tests/deb/test-deb.sh build/fgraphtop_VERSION_amd64.deb
set -uo pipefail

deb=${1:?usage: $0 PACKAGE.deb}
max=${FGT_SECURITY_MAX:-15}
unitdir=/lib/systemd/system
tfdir=/var/lib/prometheus/node-exporter
fail=0
note() { echo "test-deb: $*"; }
bad() { note "FAIL $*"; fail=1; }
# shellcheck source=tests/deb/built-using.sh
. "$(dirname "$0")/built-using.sh"

[ "$(id -u)" -eq 0 ] || { note "needs root (dpkg -i)"; exit 1; }
[ -f "$deb" ] || { note "no package $deb"; exit 1; }
if dpkg-query -W -f='${Status}' fgraphtop 2>/dev/null | grep -qv 'not-installed'; then
	note "a fgraphtop package is already on this machine ($(dpkg-query -W -f='${Status}' fgraphtop)): left alone, not tested"
	exit 1
fi
version=$(dpkg-deb -f "$deb" Version)

tmp=$(mktemp -d)
made_tfdir=false
# A temporary file of the textfile writer, as src/check/prom.c open_tmp()
# names it (".%s.%d.%08lx": base name, pid, random()), and one of another
# program's textfile next to it, of the same shape: postrm removes the first.
stale=.fgraphtop.prom.4242.0badc0de
other=.node_other.prom.4242.0badc0de
# shellcheck disable=SC2317  # called by the trap
cleanup() {
	dpkg-query -W -f='${Status}' fgraphtop 2>/dev/null | grep -qv 'not-installed' &&
		dpkg -P fgraphtop > /dev/null 2>&1
	# a directory made here goes, with what a failed run left in it of ours
	if $made_tfdir; then
		rm -f "$tfdir/fgraphtop.prom" "$tfdir/$stale" "$tfdir/$other"
		rmdir "$tfdir" 2>/dev/null
	fi
	rm -f "$tfdir/$other"
	rm -rf "$tmp"
}
trap cleanup EXIT

# Everything of ours that could be left anywhere: names with fgraphtop in them
# where dpkg, debhelper and deb-systemd-helper put things, and the textfile
# directory. (Only our names: the machine is shared, other files come and go.)
ours() {
	find /usr/sbin /usr/libexec /usr/share/doc /usr/share/man/man8 /usr/share/fgraphtop \
		/usr/share/lintian/overrides $unitdir /usr/lib/systemd/system /etc/systemd \
		/var/lib/systemd /var/lib/dpkg/info /run \
		-maxdepth 3 -name '*fgraphtop*' 2>/dev/null | sort
	[ -d "$tfdir" ] && find "$tfdir" -mindepth 1 | sort
}
ours > "$tmp/before"

# --- 1. install, and the binary from /usr/sbin ------------------------------
dpkg -i "$deb" > "$tmp/install.log" 2>&1 || { bad "dpkg -i: $(tail -3 "$tmp/install.log")"; exit 1; }
note "dpkg -i $deb: $(dpkg-query -W -f='${Package} ${Version} ${Status}' fgraphtop)"
for f in /usr/sbin/fgraphtop /usr/share/man/man8/fgraphtop.8.gz $unitdir/fgraphtop-check.service \
	$unitdir/fgraphtop-check.timer /usr/libexec/fgraphtop/fgraphtop-check \
	/usr/share/fgraphtop/fgraphtop.rules.yml /usr/share/doc/fgraphtop/fleet.md \
	/usr/share/fgraphtop/fgraphtop.rules.test.yml /usr/share/fgraphtop/fgraphtop.schema.json \
	/usr/share/doc/fgraphtop/json.md /usr/share/doc/fgraphtop/README.Debian; do
	[ -f "$f" ] || bad "not installed: $f"
done
# the package ships what it cites: every path the man page's FILES and SEE
# ALSO name under /usr or /lib (compressed by dh_compress or not), and the
# rules' tests pass where they are installed, beside the rules
for f in $(man -l /usr/share/man/man8/fgraphtop.8.gz 2>/dev/null | col -b |
	sed -n '/^FILES/,/^EXAMPLES/p; /^SEE ALSO/,$p' |
	grep -oE '(^|[[:space:]("])/(usr|lib)/[^[:space:],;)]*' | sed 's/^[[:space:]("]*//' | sort -u); do
	[ -e "$f" ] || [ -e "$f.gz" ] || bad "the man page names $f, not installed"
done
if command -v promtool >/dev/null; then
	(cd /usr/share/fgraphtop && promtool test rules fgraphtop.rules.test.yml) > "$tmp/rules.log" 2>&1 ||
		bad "promtool test rules in /usr/share/fgraphtop: $(tail -3 "$tmp/rules.log")"
fi
got=$(/usr/sbin/fgraphtop --version | head -n 1)
[ "$got" = "fgraphtop $version" ] || bad "/usr/sbin/fgraphtop --version says '$got', the package is $version"
[ "$(readelf -l /usr/sbin/fgraphtop | grep -c INTERP)" = 0 ] || bad "/usr/sbin/fgraphtop is not static"
# the temporary name planted below is the binary's own: if prom.c names them
# otherwise, postrm's glob (and $stale here) must follow
grep -qaF '.%s.%d.%08lx' /usr/sbin/fgraphtop ||
	bad "/usr/sbin/fgraphtop names its textfile's temporary files otherwise than .NAME.PID.HEX (prom.c): update postrm and this test"

# Built-Using: every library linked in statically (tests/deb/built-using.sh)
built_using_check "$deb" amd64
bu=$BUILT_USING
# ... and the copyright file covers each of them (its header: "(DEV, source SRC)")
sed 's/ (= [^)]*)//g; s/, /\n/g' <<<"$bu" > "$tmp/built-using"
while read -r src; do
	grep -q ", source $src)" /usr/share/doc/fgraphtop/copyright ||
		bad "/usr/share/doc/fgraphtop/copyright does not cover $src (linked in statically)"
done < "$tmp/built-using"

# the answer this kernel must give: not_affected where it has no fgraph at all
if grep -qw register_ftrace_graph /proc/kallsyms 2>/dev/null; then want=any; else want=not_affected; fi
st=0
/usr/sbin/fgraphtop check --json --timeout 1 > "$tmp/check.json" 2> "$tmp/check.err" || st=$?
verdict=$(jq -r .verdict "$tmp/check.json" 2>/dev/null)
note "/usr/sbin/fgraphtop check: status $st, verdict ${verdict:-none}: $(jq -r .reason "$tmp/check.json" 2>/dev/null)"
if [ "$want" = not_affected ]; then
	if [ "$st" != 0 ] || [ "$verdict" != not_affected ]; then
		bad "check on a kernel without fgraph: want status 0 not_affected"
	fi
else
	case $st in 0|1|2|3) ;; *) bad "check status $st (0..3 only)" ;; esac
fi

# --- 2. the units as installed ------------------------------------------------
systemd-analyze verify $unitdir/fgraphtop-check.service $unitdir/fgraphtop-check.timer \
	> "$tmp/verify" 2>&1 || bad "systemd-analyze verify exited $?"
[ -s "$tmp/verify" ] && bad "systemd-analyze verify said: $(cat "$tmp/verify")"
[ $fail -eq 0 ] && note "systemd-analyze verify: both units clean"
score=$(systemd-analyze security --offline=true $unitdir/fgraphtop-check.service 2>/dev/null |
	sed -n 's/.*Overall exposure level for fgraphtop-check.service: \([0-9.]*\).*/\1/p')
note "systemd-analyze security --offline=true: exposure ${score:-none} (10 is worst; at most $((max / 10)).$((max % 10)) allowed)"
systemd-analyze security --offline=true --threshold="$max" $unitdir/fgraphtop-check.service \
	> /dev/null 2>&1 || bad "security exposure ${score:-?} above the threshold"
[ ! -e /etc/systemd/system/timers.target.wants/fgraphtop-check.timer ] ||
	bad "the timer is enabled by the package"

# --- 3. the service's command, with and without the textfile directory -----
mkdir "$tmp/tf"
st=0
FGT_TEXTFILE_DIR=$tmp/tf /usr/libexec/fgraphtop/fgraphtop-check --timeout 1 > "$tmp/run1" 2>&1 || st=$?
[ -f "$tmp/tf/fgraphtop.prom" ] || bad "fgraphtop-check with a textfile directory wrote no fgraphtop.prom (status $st)"
promtool check metrics < "$tmp/tf/fgraphtop.prom" > /dev/null 2>&1 || bad "promtool check metrics refused fgraphtop.prom"
[ "$want" = any ] || grep -q '^fgraphtop_verdict{verdict="not_affected".*} 1$' "$tmp/tf/fgraphtop.prom" ||
	bad "fgraphtop.prom does not say not_affected"
st=0
FGT_TEXTFILE_DIR=$tmp/none /usr/libexec/fgraphtop/fgraphtop-check --timeout 1 > "$tmp/run2" 2>&1 || st=$?
grep -q "^fgraphtop-check: no textfile directory $tmp/none " "$tmp/run2" ||
	bad "fgraphtop-check without the directory did not say so: $(head -2 "$tmp/run2")"
[ ! -e "$tmp/none" ] || bad "fgraphtop-check created the missing directory"
[ "$want" = any ] || [ "$st" = 0 ] || bad "fgraphtop-check without the directory: status $st"
note "service command: textfile written into an existing directory; none, and a message, without one"
# the default directory, as prometheus-node-exporter leaves it (made here if absent)
if [ ! -d "$tfdir" ]; then
	mkdir -p "$tfdir" && made_tfdir=true
fi
/usr/libexec/fgraphtop/fgraphtop-check --timeout 1 > /dev/null 2>&1
[ -f "$tfdir/fgraphtop.prom" ] || bad "no $tfdir/fgraphtop.prom from the default directory"

# --- 4. remove, purge: nothing left -------------------------------------------
dpkg -L fgraphtop | sort > "$tmp/files"
# what a check killed between its temporary file and the rename leaves
: > "$tfdir/$stale"
: > "$tfdir/$other"
dpkg -r fgraphtop > "$tmp/remove.log" 2>&1 || bad "dpkg -r: $(tail -3 "$tmp/remove.log")"
# files (directories like /lib, /usr are shared: dpkg leaves those in use)
left=$(while read -r f; do if [ ! -d "$f" ] && { [ -e "$f" ] || [ -L "$f" ]; }; then echo "$f"; fi
	done < "$tmp/files")
[ -z "$left" ] || bad "dpkg -r left package files: $left"
[ ! -e "$tfdir/fgraphtop.prom" ] || bad "dpkg -r left $tfdir/fgraphtop.prom"
[ ! -e "$tfdir/$stale" ] || bad "dpkg -r left the textfile writer's temporary file $tfdir/$stale"
[ -e "$tfdir/$other" ] || bad "dpkg -r removed another program's file $tfdir/$other"
rm -f "$tfdir/$other"
note "dpkg -r: $(dpkg-query -W -f='${Status}' fgraphtop 2>/dev/null || echo gone); $(grep -c . "$tmp/files") paths listed by dpkg -L, none left"
dpkg -P fgraphtop > "$tmp/purge.log" 2>&1 || bad "dpkg -P: $(tail -3 "$tmp/purge.log")"
$made_tfdir && rmdir "$tfdir" && made_tfdir=false
ours > "$tmp/after"
if ! diff -u "$tmp/before" "$tmp/after" > "$tmp/diff"; then
	bad "left behind after purge: $(grep '^[-+]/' "$tmp/diff" | tr '\n' ' ')"
fi
st=$(dpkg-query -W -f='${Status}' fgraphtop 2>/dev/null || echo "unknown to dpkg")
case $st in *not-installed*|"unknown to dpkg") ;; *) bad "after dpkg -P: $st" ;; esac
note "dpkg -P: $st; nothing named fgraphtop left (same $(grep -c . "$tmp/after") paths as before)"

if [ $fail -eq 0 ]; then note "PASS"; else note "FAILED"; fi
exit $fail
