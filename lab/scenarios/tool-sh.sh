#!/bin/sh
# tool-sh CMD=...: run an arbitrary shell command line in the guest (exploration
# and debugging of fgraphtop in the lab); its output goes to the console.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh
cmd=$(fgt_arg CMD "fgraphtop --explain" "$@")
sh -c "$cmd"
rc=$?
fgt_result "$(fgt_json type sh status $rc)"
exit $rc
