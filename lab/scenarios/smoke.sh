#!/bin/sh
# smoke: what this kernel offers the lab. One result line, exit 0.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

fg=false
fgt_has_tracer function_graph && fg=true
inst_fg=false
fgt_instance_graph && inst_fg=true
ars=false
grep -q ' alloc_retstack_tasklist$' /proc/kallsyms && ars=true
btf=false
[ -f /sys/kernel/btf/vmlinux ] && btf=true
failslab=false
[ -d /sys/kernel/debug/failslab ] && failslab=true
helpers=
for h in fgraphtop fgt-spawn fgt-trigger fgt-oracle trace-cmd; do
	command -v $h > /dev/null && helpers="$helpers $h"
done
triggers=$(fgt_triggers)

# shellcheck disable=SC2012 # counting /proc entries: numeric names only
fgt_result "$(fgt_json type smoke release "$(uname -r)" \
	version "$(cat /proc/version)" \
	function_graph $fg instance_function_graph $inst_fg \
	triggers "$triggers" \
	alloc_retstack_tasklist $ars btf $btf failslab $failslab \
	threads "$(ls -d /proc/[0-9]*/task/[0-9]* | wc -l)" \
	helpers "${helpers# }")"
