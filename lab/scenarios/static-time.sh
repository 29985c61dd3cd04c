#!/bin/sh
# static-time: how long `fgraphtop check` (the answer from the code) takes
# here, N times in a row: {"type":"time","run":I,"wall_s":S,"ms":M,"verdict":V,
# "source":SRC}. The first run pays for cold caches (the binary, kcore's pages).
#   N=5
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

N=$(fgt_arg N 5 "$@")
i=0
while [ "$i" -lt "$N" ]; do
	t=$( { busybox time -f '%e' fgraphtop check --json > $FGT_RUN/t.json; } 2>&1 | tail -n 1)
	fgt_result "{\"type\":\"time\",\"run\":$i,\"wall_s\":$t,\"answer\":$(head -n 1 $FGT_RUN/t.json)}"
	i=$((i + 1))
done
exit 0
