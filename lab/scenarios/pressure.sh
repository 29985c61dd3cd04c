#!/bin/sh
# pressure U=N [WSF=N] [MINFREE=KB] [TOOL=0|1] [FILTER=FUNC] [BUF_KB=N] [READS=N]
#          [CHECK=0|1] [STARVE=0|1]
# Real memory pressure, no failslab (lab/run.sh -d with lab/guest/mkdisk.sh's
# disk, mounted read-only from /dev/vda): park U idle threads, start
# fgraphtop -j (TOOL=1) and the oracle, then read the disk's files so that
# clean page cache holds all the memory the threads left; then function_graph
# on (FILTER: one traced function, the same walk without the minutes of
# call-site patching). The walk's GFP_NOWAIT allocations cannot reclaim: they
# fail whenever a zone's free pages are under its min watermark, however much
# clean cache could be freed. kswapd, woken at the low watermark, reclaims
# beside the walk; the walk's GFP_KERNEL reserve reclaims directly.
# WSF sets vm.watermark_scale_factor and MINFREE vm.min_free_kbytes before
# anything else (empty: the kernel's defaults). READS: how many times the
# files are read (the last read right before the trigger). CHECK=1: the
# trigger is `fgraphtop check --trigger --json --prometheus FILE` instead of
# function_graph: check's own activation under the same pressure, its status,
# answer and textfile recorded ({"type":"pressure_check"}).
# STARVE=1: kswapd starved of CPU, as on a host whose CPUs are all busy:
# kswapd and two busy loops on the last CPU, kswapd at nice 19 (about 0.7 % of
# that CPU), and this shell with all it starts (the walk, fgraphtop, the
# oracle) on CPU 0. At the default watermarks kswapd races the walk and wins
# on some boots (0 to 429 failures at 30k on lab-fixed, 2026-12-02); starved,
# the walk reaches the min watermark within its first few MiB and stays there,
# each reserve refilled by direct reclaim: the persistent pressure of the
# series' worst case. Needs 2 CPUs.
# The oracle pairs frees with allocations by pointer, so it reads the
# pointers themselves (boot with no_hash_pointers): on lab-6.1-fixed it once
# paired one free where fgraphtop saw 32, cause not found (debian-6.1's
# hashed pointers were distinct when looked at); the reserve stacks'
# pointers must be distinct ("res_ptrs": how many distinct, = blk_ok when
# the pairing holds), so a pairing that breaks fails the test.
#
# The oracle counts the sweep's allocations itself, without BPF: the kernel's
# own kmem trace events (kmem_cache_alloc, kmalloc, kmem_cache_free, kfree) in
# a private tracefs instance, filtered to call sites inside the function
# holding the sweep (alloc_retstack_tasklist where it is out of line, else
# register_ftrace_graph), read back as text: failed (ptr NULL) and successful
# allocations by gfp (GFP_NOWAIT: non-blocking; GFP_KERNEL: blocking, the
# reserve), the reserve stacks freed (by pointer), and the sweeps (runs of reserve allocations, each begun
# after a non-blocking one or a free, or the first).
# Results:
#   {"type":"pressure","u":U,"threads":T,"mem_before":{..},"mem_after":{..},
#    "mem_trigger":{..},"zones":[{zone,min,low,high,managed}..],"wsf":..,
#    "min_free_kbytes":..,"oom_kills":N,"alloc_failures_logged":N,
#    "oracle":{"nb_ok":..,"nb_failed":..,"blk_ok":..,"blk_failed":..,
#    "other":..,"freed":..,"reserve_runs":..,"events":..,"lost":..,
#    "res_ptrs":..,"sizes":{BYTES_REQ:N}},"on":{..},"starve":{..}|null}   (sizes: the stacks' allocations, both gfps)
#   {"type":"pressure_check","status":N,"answer":{check's JSON},
#    "prom":{METRIC:VALUE,..}}   (CHECK=1; prom: the textfile's unlabelled gauges)
# and fgraphtop's records (name "pressure", tool-lib.sh, at -i 1: its progress
# records through the walk) with TOOL=1.
# meminfo figures are in KiB.
# shellcheck source=lab/scenarios/lib.sh
. /scenarios/lib.sh
# shellcheck source=lab/scenarios/tool-lib.sh
. /scenarios/tool-lib.sh

n=$(fgt_arg U 30000 "$@")
wsf=$(fgt_arg WSF "" "$@")
minfree=$(fgt_arg MINFREE "" "$@")
tool=$(fgt_arg TOOL 1 "$@")
filter=$(fgt_arg FILTER bpf_fentry_test1 "$@")
buf_kb=$(fgt_arg BUF_KB 8192 "$@")
reads=$(fgt_arg READS 1 "$@")
check=$(fgt_arg CHECK 0 "$@")
starve=$(fgt_arg STARVE 0 "$@")
DISK=/mnt/disk
ORI=$TRACEFS/instances/fgt-pressure

[ -b /dev/vda ] || fgt_die "no /dev/vda: boot with lab/run.sh -d \$(lab/guest/mkdisk.sh)"
mkdir -p $DISK
mount -t ext2 -o ro /dev/vda $DISK || fgt_die "cannot mount /dev/vda (ext2)"
[ -n "$wsf" ] && { echo "$wsf" > /proc/sys/vm/watermark_scale_factor || fgt_die "watermark_scale_factor $wsf"; }
[ -n "$minfree" ] && { echo "$minfree" > /proc/sys/vm/min_free_kbytes || fgt_die "min_free_kbytes $minfree"; }

# STARVE=1: kswapd and two busy loops on the last CPU, the rest on CPU 0.
hogs=''
starve_json=null
ncpu=$(nproc)
last=$((ncpu - 1))
# first, before anything is started: all the scenario starts inherits CPU 0
starve_pin() {
	[ "$ncpu" -ge 2 ] || fgt_die "STARVE=1 needs 2 CPUs (this guest has $ncpu)"
	taskset -p 1 $$ > /dev/null || fgt_die "cannot pin the scenario to CPU 0"
}
starve_start() {
	local mask p c ks=''
	mask=$(printf '%x' $((1 << last)))
	for p in /proc/[0-9]*; do
		c=$(cat "$p/comm" 2>/dev/null) || continue
		case $c in kswapd*) ;; *) continue ;; esac
		taskset -p "$mask" "${p#/proc/}" > /dev/null || fgt_die "cannot pin $c to CPU $last"
		renice 19 -p "${p#/proc/}" > /dev/null || fgt_die "cannot renice $c"
		grep -q "^Cpus_allowed_list:[[:space:]]*$last\$" "$p/status" ||
			fgt_die "$c is not on CPU $last: $(grep Cpus_allowed_list "$p/status")"
		ks="$ks${ks:+,}{\"comm\":\"$c\",\"cpu\":$last,\"nice\":$(awk '{ print $19 }' "$p/stat")}"
	done
	[ -n "$ks" ] || fgt_die "no kswapd thread found"
	for c in 1 2; do
		taskset "$mask" sh -c 'while :; do :; done' &
		hogs="$hogs $!"
	done
	starve_json="{\"cpus\":$ncpu,\"hogs\":2,\"kswapd\":[$ks]}"
	fgt_log "starved: $starve_json"
}
starve_stop() {
	[ -n "$hogs" ] || return 0
	# shellcheck disable=SC2086 # pids
	kill $hogs 2>/dev/null
	# shellcheck disable=SC2086
	wait $hogs 2>/dev/null
	hogs=''
}

[ "$starve" = 1 ] && starve_pin

# /proc/meminfo's MemFree, Cached, Buffers, Active/Inactive(file), Slab parts, in KiB.
meminfo() {
	awk 'BEGIN { printf "{" }
	$1 ~ /^(MemTotal|MemFree|MemAvailable|Buffers|Cached|Active\(file\)|Inactive\(file\)|SUnreclaim|SReclaimable|KernelStack|PageTables):$/ {
		k = $1; sub(/:$/, "", k); gsub(/[()]/, "_", k); sub(/_$/, "", k)
		printf "%s\"%s\":%s", (n++ ? "," : ""), k, $2
	}
	END { printf "}" }' /proc/meminfo
}

# Each populated zone's watermarks and managed pages (/proc/zoneinfo, in pages).
zones() {
	awk 'BEGIN { printf "[" }
	$1 == "Node" { z = $4; min = low = high = "" ; next }
	z != "" && $1 == "min" { min = $2 }
	z != "" && $1 == "low" { low = $2 }
	z != "" && $1 == "high" { high = $2 }
	z != "" && $1 == "managed" {
		if ($2 > 0)
			printf "%s{\"zone\":\"%s\",\"min\":%s,\"low\":%s,\"high\":%s,\"managed\":%s}",
				(n++ ? "," : ""), z, min, low, high, $2
		z = ""
	}
	END { printf "]" }' /proc/zoneinfo
}

# The oracle: the kernel's kmem events from the sweep holder's call sites.
holder=$(fgt_sweep_holder)
range=$(fgt_ksym_range "$holder")
[ -n "$range" ] || fgt_die "no text range for $holder"
oracle_start() {
	local ev f
	mkdir -p "$ORI" || fgt_die "no tracefs instances"
	echo 0 > "$ORI"/tracing_on
	echo "$buf_kb" > "$ORI"/buffer_size_kb || fgt_die "buffer_size_kb $buf_kb"
	f="call_site >= ${range% *} && call_site < ${range#* }"
	for ev in kmem_cache_alloc kmalloc kmem_cache_free kfree; do
		[ -d "$ORI"/events/kmem/$ev ] || continue
		echo "$f" > "$ORI"/events/kmem/$ev/filter || fgt_die "filter on kmem:$ev"
		echo 1 > "$ORI"/events/kmem/$ev/enable
	done
	: > "$ORI"/trace
	echo 1 > "$ORI"/tracing_on
}
# One JSON object from the recorded events, in time order.
oracle_stop() {
	echo 0 > "$ORI"/tracing_on
	lost=$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' "$ORI"/per_cpu/cpu*/stats 2>/dev/null)
	grep -v '^#' "$ORI"/trace > "$FGT_RUN"/pressure-oracle.txt
	awk -v lost="${lost:-0}" '
	# freed: the reserve stacks handed back, by pointer (%p hashes a pointer
	# the same way throughout a boot); ret_stack_list and lab-fixed-plus'"'"'s
	# reserve arrays are kfree()d from the same code and are no stacks
	function ptr_of(l) { sub(/.*ptr=/, "", l); sub(/ .*/, "", l); return l }
	/ (kmem_cache_free|kfree): / {
		q = ptr_of($0)
		if (q in res) { freed++; delete res[q] } else frees_other++
		prev = "free"
		next
	}
	/ (kmem_cache_alloc|kmalloc): / {
		ev++
		fail = ($0 ~ /ptr=(0+|\(null\)) /)
		sz = $0; sub(/.*bytes_req=/, "", sz); sub(/ .*/, "", sz)
		# ret_stack_list is no shadow stack: kcalloc (__GFP_ZERO) from 6.11,
		# kmalloc_array of 32 pointers (256 bytes) on 6.1
		if ($0 ~ /__GFP_ZERO/ || sz == 256) {
			other++
		} else if ($0 ~ /gfp_flags=GFP_KERNEL/) {
			size[sz]++
			if (fail) bf++; else { bo++; q = ptr_of($0); if (!(q in seen)) { seen[q] = 1; nres++ }; res[q] = 1 }
			if (prev != "blk") runs++
			prev = "blk"
		} else if ($0 ~ /gfp_flags=GFP_NOWAIT/) {
			size[sz]++
			if (fail) nf++; else no++
			prev = "nb"
		} else {
			other++
		}
	}
	END {
		printf "{\"nb_ok\":%d,\"nb_failed\":%d,\"blk_ok\":%d,\"blk_failed\":%d,\"other\":%d,\"freed\":%d,\"reserve_runs\":%d,\"events\":%d,\"lost\":%d,\"res_ptrs\":%d,\"sizes\":{",
			no, nf, bo, bf, other, freed, runs, ev, lost, nres
		for (k in size)
			printf "%s\"%s\":%d", (m++ ? "," : ""), k, size[k]
		printf "}}"
	}' "$FGT_RUN"/pressure-oracle.txt
	for ev in kmem_cache_alloc kmalloc kmem_cache_free kfree; do
		[ -d "$ORI"/events/kmem/$ev ] && echo 0 > "$ORI"/events/kmem/$ev/enable
	done
}

read_disk() {
	local f
	for f in "$DISK"/*; do
		[ -f "$f" ] && dd if="$f" of=/dev/null bs=1M 2>/dev/null
	done
}

status=0
park=$(fgt_park "$n")
fgt_log "parked: $park"
if [ "$tool" = 1 ]; then
	fgt_tool_start pressure -i 1 || status=1
fi
[ "$starve" = 1 ] && starve_start
oracle_start
mem_before=$(meminfo)
i=0
while [ $i -lt "$reads" ]; do
	read_disk
	i=$((i + 1))
done
mem_trigger=$(meminfo)
zs=$(zones)
fgt_log "before: $mem_before; at the trigger: $mem_trigger; zones: $zs"
if [ "$check" = 1 ]; then
	# fgt-oracle count as fgt-trigger's "on" gives it: U and the threads
	on=$(fgt-oracle count) || status=1
	crc=0
	fgraphtop check --trigger --timeout 120 --json --prometheus "$FGT_RUN"/pressure.prom \
		> "$FGT_RUN"/pressure-check.json 2> "$FGT_RUN"/pressure-check.err || crc=$?
	fgt_log "check: status $crc: $(head -c 2000 "$FGT_RUN"/pressure-check.json)"
	answer=$(cat "$FGT_RUN"/pressure-check.json)
	case $answer in \{*) ;; *) answer=null ;; esac
	prom=$(awk 'BEGIN { printf "{" }
		$1 ~ /^fgraphtop_[a-z_]+$/ && NF == 2 { printf "%s\"%s\":%s", (n++ ? "," : ""), $1, $2 }
		END { printf "}" }' "$FGT_RUN"/pressure.prom 2>/dev/null)
	fgt_result "$(fgt_json type pressure_check status "$crc" answer "$answer" prom "${prom:-null}")"
	sleep 1
	oracle=$(oracle_stop)
	mem_after=$(meminfo)
	starve_stop
else
	on=$(fgt-trigger -f "$filter" tracefs on) || status=1
	fgt_log "on: $on"
	sleep 1
	oracle=$(oracle_stop)
	mem_after=$(meminfo)
	starve_stop
	fgt-trigger -f "$filter" tracefs off > /dev/null || status=1
fi
fgt_log "oracle: $oracle; after: $mem_after"
oom=$(dmesg | grep -c -E 'invoked oom-killer|Out of memory|oom-kill:')
afail=$(dmesg | grep -c 'page allocation failure')
u=$(echo "$on" | sed -n 's/.*"u":\([0-9]*\).*/\1/p')
threads=$(echo "$on" | sed -n 's/.*"threads":\([0-9]*\).*/\1/p')
fgt_result "$(fgt_json type pressure u "${u:-0}" threads "${threads:-0}" parked "$n" \
	holder "$holder" wsf "$(cat /proc/sys/vm/watermark_scale_factor)" \
	min_free_kbytes "$(cat /proc/sys/vm/min_free_kbytes)" \
	mem_before "$mem_before" mem_trigger "$mem_trigger" mem_after "$mem_after" \
	zones "$zs" oom_kills "$oom" alloc_failures_logged "$afail" \
	oracle "$oracle" on "$on" starve "$starve_json")"
[ "$oom" -eq 0 ] || { fgt_log "OOM kill seen"; status=1; }
if [ "$tool" = 1 ]; then
	fgt_tool_stop pressure || status=1
fi
fgt_unpark
umount $DISK
exit $status
