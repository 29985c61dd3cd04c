// SPDX-License-Identifier: GPL-2.0
/*
 * The floor: empty programs on the hooks fgraphtop keeps attached while
 * fgraph is off (bpf/fgraphtop.bpf.c: the four kmem raw tracepoints,
 * tp_btf/task_newtask, fentry/fexit copy_process). What any tool watching
 * those events pays before doing anything: the kernel's dispatch to BPF, the
 * trampoline. lab/bench/fgt-floor.c loads and attaches them.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/*
 * fgt-floor -t: the answers' floor. On each allocation, what any tool giving
 * the served count and the per-allocation latency must do at least, kept in
 * the kernel as libbpf-tools keep theirs: a timestamp, the gap since the last
 * one into a log2 histogram, a count. No record, no consumer. Off (the plain
 * floor), the verifier removes it as dead code.
 */
const volatile bool stamp = false;

__u64 stamp_last, stamp_n;
__u64 stamp_hist[64];

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1)
		r += 1;
	return r;
}

static __always_inline void stamp_one(void)
{
	__u64 now, gap;

	if (!stamp)
		return;
	now = bpf_ktime_get_ns();
	gap = now - stamp_last;
	stamp_last = now;
	stamp_hist[log2_u64(gap) & 63]++;
	stamp_n++;
}

SEC("raw_tp/kmalloc")
int floor_kmalloc(void *ctx)
{
	stamp_one();
	return 0;
}

SEC("raw_tp/kmem_cache_alloc")
int floor_kmem_cache_alloc(void *ctx)
{
	stamp_one();
	return 0;
}

SEC("raw_tp/kfree")
int floor_kfree(void *ctx)
{
	return 0;
}

SEC("raw_tp/kmem_cache_free")
int floor_kmem_cache_free(void *ctx)
{
	return 0;
}

SEC("tp_btf/task_newtask")
int BPF_PROG(floor_task_newtask)
{
	return 0;
}

SEC("fentry/copy_process")
int BPF_PROG(floor_fork_enter)
{
	return 0;
}

SEC("fexit/copy_process")
int BPF_PROG(floor_fork_exit)
{
	return 0;
}
