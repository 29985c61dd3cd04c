#!/bin/sh
# check-lockdown: `fgraphtop check --static --json` under the lockdown mode
# this guest booted with (lockdown=integrity or confidentiality, given to
# lab/run.sh with -a), with securityfs's word for the mode beside it. With the
# kernel's own image at /boot/vmlinuz-$(uname -r) (tests/lab/lockdown.sh adds
# it in an extra archive), the answer under confidentiality comes from it.
# Result: {"type":"lockdown","mode":M,"release":R,"boot_image":B,"status":N,"answer":{...}}
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

mount -t securityfs securityfs /sys/kernel/security 2> /dev/null
mode=$(cat /sys/kernel/security/lockdown 2> /dev/null)
rel=$(uname -r)
boot=0
[ -f "/boot/vmlinuz-$rel" ] && boot=1
fgraphtop check --static --json > "$FGT_RUN/check.jsonl"
status=$?
json=$(fgt_last_of check < "$FGT_RUN/check.jsonl")
fgt_result "{\"type\":\"lockdown\",\"mode\":\"$mode\",\"release\":\"$rel\",\"boot_image\":$boot,\"status\":$status,\"answer\":${json:-null}}"
