#!/bin/sh
# bench-cost-shell [K]: the cost part's realistic load (lab/scenarios/bench-cost.sh
# times it with fgt-load exec), K rounds of what a build script does: write a
# small C source tree, pack it (tar | gzip), unpack it elsewhere, search and sum
# it with grep, sed and awk, list it sorted and checksummed, name each file
# with basename, delete it all. Its traffic is fork/exec (a few hundred
# processes a round), pipes, and tmpfs files: the slab caches of inodes,
# dentries, files and tasks (bench-cost.sh counts them with the floor
# programs). As a scenario of its own it runs one round.
k=${1:-1}
w=/tmp/shell-load.$$
i=0
while [ "$i" -lt "$k" ]; do
	rm -rf "$w"
	mkdir -p "$w/src"
	j=0
	while [ "$j" -lt 40 ]; do
		printf '#include <stdio.h>\nint f%d(int x)\n{\n\treturn x * %d;\n}\n' "$j" "$j" > "$w/src/f$j.c"
		j=$((j + 1))
	done
	(cd "$w" && tar -cf - src | gzip -c > src.tar.gz)
	mkdir "$w/out"
	(cd "$w/out" && gzip -dc ../src.tar.gz | tar -xf -)
	n=$(grep -l 'return' "$w"/out/src/*.c | wc -l)
	[ "$n" -eq 40 ] || exit 1
	s=$(cat "$w"/out/src/*.c | sed -n 's/.*return x \* \([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s }')
	[ "$s" -eq 780 ] || exit 1
	find "$w" -name '*.c' | sort | md5sum > /dev/null
	for f in "$w"/out/src/*.c; do
		b=$(basename "$f" .c)
		[ -n "$b" ] || exit 1
	done
	i=$((i + 1))
done
rm -rf "$w"
