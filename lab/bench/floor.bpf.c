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

SEC("raw_tp/kmalloc")
int floor_kmalloc(void *ctx)
{
	return 0;
}

SEC("raw_tp/kmem_cache_alloc")
int floor_kmem_cache_alloc(void *ctx)
{
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
