#!/bin/sh
# explain: fgraphtop's attach plan on this kernel, text and JSON, for each
# --path, as result lines ({"type":"explain","path":P,"line":L} for the text,
# {"type":"explain_json","path":P,"plan":{...}} for -j). Used to compare the
# plan across builds of fgraphtop (the same kernel must give the same plan).
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

for p in auto direct attributed; do
	opt=
	[ $p = auto ] || opt=--path=$p
	# shellcheck disable=SC2086 # opt is one word or none
	fgraphtop --explain $opt > "$FGT_RUN/explain.txt" 2>&1
	st=$?
	while IFS= read -r l; do
		fgt_result "$(fgt_json type explain path $p line "$l")"
	done < "$FGT_RUN/explain.txt"
	# shellcheck disable=SC2086
	j=$(fgraphtop --explain -j $opt 2>/dev/null | fgt_last_of plan)
	fgt_result "$(fgt_json type explain_json path $p status $st plan "${j:-null}")"
done
exit 0
