#!/bin/sh
# selftest MODE: exercises lab/run.sh's exit statuses (tests/lab/runner.sh).
#   ok       one result, exit 0         exit=N   exit N
#   hang     never returns (timeout)    crash    reboot without reporting (125)
#   splat    a kernel-log line that reads like a WARN (126)
#   stall    exit 3 with ttyS1 taking nothing more: the exit status must still
#            reach the host, through the console (lab/guest/init's fallback)
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh

mode=${1:-ok}
case $mode in
ok)
	fgt_result "$(fgt_json type selftest mode ok)" ;;
exit=*)
	exit "${mode#exit=}" ;;
hang)
	while :; do sleep 1; done ;;
crash)
	# Immediate reboot: no exit line reaches the host.
	echo 1 > /proc/sys/kernel/sysrq 2>/dev/null
	echo b > /proc/sysrq-trigger 2>/dev/null
	# No sysrq in minimal kernels: a plain reboot is the same to the host.
	reboot -f
	sleep 60 ;;
splat)
	# Through /dev/kmsg the line lands in the kernel log with a timestamp,
	# exactly where the runner looks.
	echo "WARNING: CPU: 0 PID: 1 at lab/selftest: not a real warning" > /dev/kmsg
	sleep 0.5 ;;
stall)
	# /dev/null over the port: init's exit line goes nowhere and the UART's tx
	# count stops, as on a port whose tx interrupt was lost.
	mount --bind /dev/null /dev/ttyS1 || fgt_die "cannot cover /dev/ttyS1"
	exit 3 ;;
*)
	fgt_die "unknown mode $mode" ;;
esac
exit 0
