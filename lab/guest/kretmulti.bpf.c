// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest kretprobe.multi user: its only purpose is to make the kernel
 * register an fprobe with a return handler, which from 6.14 is an fgraph user
 * (the 0 -> 1 step). Attached by fgt-trigger to one cold function.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

__u64 hits;

SEC("kretprobe.multi")
int on_return(struct pt_regs *ctx)
{
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
