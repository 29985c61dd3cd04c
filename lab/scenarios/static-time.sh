#!/bin/sh
# static-time: how long `fgraphtop check` (the answer from the code) takes
# here, N times in a row: {"type":"time","run":I,"wall_s":S,"answer":{...}}.
# The first run pays for cold caches (the binary, kcore's pages). With V=1
# (or 2, 3) each run is `check --static -v` (-vv, -vvv) instead, and its
# profile lines (each step's time; at -vv each read of kcore) follow:
# {"type":"profile","run":I,"line":{the log line}}.
#   N=5 V=0
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

N=$(fgt_arg N 5 "$@")
V=$(fgt_arg V 0 "$@")
opts=
case $V in
1) opts='--static -v' ;;
2) opts='--static -vv' ;;
3) opts='--static -vvv' ;;
esac
i=0
while [ "$i" -lt "$N" ]; do
	t=$( { busybox time -f '%e' sh -c "fgraphtop check --json $opts 2> $FGT_RUN/t.err" > $FGT_RUN/t.json; } 2>&1 | tail -n 1)
	fgt_result "{\"type\":\"time\",\"run\":$i,\"wall_s\":$t,\"answer\":$(head -n 1 $FGT_RUN/t.json)}"
	if [ -n "$opts" ]; then
		grep -e 'static: ' -e 'kcore: ' $FGT_RUN/t.err | while IFS= read -r l; do
			fgt_result "$(fgt_json type profile run "$i" line "$l")"
		done
	fi
	i=$((i + 1))
done
exit 0
