// SPDX-License-Identifier: GPL-2.0
/*
 * Lab-only oracle: count alloc_retstack_tasklist() calls and their return values
 * with fentry/fexit. Only lab traceable kernels keep that function out of line
 * and traceable (FACTS.md); elsewhere the attach fails and fgt-oracle says so.
 * The callers are serialised by ftrace_lock, so plain globals suffice.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define MAX_CALLS 8192
#define EAGAIN 11

__u64 calls, eagain, zero, other;
__u64 total_ns, max_ns, min_ns = ~0ULL;
__u64 first_ns, last_ns;
__u64 start_ns;
/* Per call, in order (plain arrays: the skeleton then needs no shared struct). */
__s32 rec_ret[MAX_CALLS];
__u64 rec_ns[MAX_CALLS];

SEC("fentry/alloc_retstack_tasklist")
int BPF_PROG(ars_enter)
{
	start_ns = bpf_ktime_get_ns();
	if (!first_ns)
		first_ns = start_ns;
	return 0;
}

/*
 * The return value through bpf_get_func_ret(), not as the argument after the
 * last one: a fixed kernel may change the function's parameters.
 */
SEC("fexit/alloc_retstack_tasklist")
int BPF_PROG(ars_exit)
{
	__u64 now = bpf_ktime_get_ns(), d = now - start_ns;
	__u64 i = calls, rv = 0;
	int ret;

	bpf_get_func_ret(ctx, &rv);
	ret = (int)rv;

	last_ns = now;
	if (i < MAX_CALLS) {
		rec_ret[i] = ret;
		rec_ns[i] = d;
	}
	calls = i + 1;
	if (ret == -EAGAIN)
		eagain++;
	else if (ret == 0)
		zero++;
	else
		other++;
	total_ns += d;
	if (d > max_ns)
		max_ns = d;
	if (d < min_ns)
		min_ns = d;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
