// SPDX-License-Identifier: GPL-2.0
/*
 * Feature detection, in one place. Every program here is a probe that
 * src/plan.c loads AND attaches on its own, one at a time, to learn what this
 * kernel lets us observe. BTF presence or version numbers prove nothing:
 * kernel/trace/ is built without ftrace instrumentation, so fentry on fgraph's
 * functions loads (BTF has the FUNC) and then fails to attach (-EBUSY, no
 * __fentry__ nop) on stock kernels.
 *
 * plan.c only opens this object: it takes each program's instructions, its
 * program and attach types and its target from here, and loads and attaches
 * it with the syscalls libbpf would use (one vmlinux BTF parse for all of
 * them, not one per probe). So a probe's body must need no relocation: no
 * maps, globals, subprograms or CO-RE reads; "return 0" is all a probe needs.
 * Autoload stays off (the "?" prefix): nothing loads the object whole.
 *
 * Naming (plan.c reads it): <role>__<what>; the attach target is in the
 * section name. Roles:
 *   direct_*   fentry/fexit on fgraph itself (the direct path)
 *   tp_*       kmem/task tracepoints (the attributed path)
 *   ctx_*      context probes for attribution
 *   lat_cache_*, lat_csize_*, lat_size_*  allocator functions, by argument shape
 * Each comment names the kernel change that makes the probe necessary or
 * makes it fail.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* ---- direct path ----
 * Attachable only where kernel/trace/Makefile leaves fgraph.o instrumented
 * (lab "traceable" kernels). alloc_retstack_tasklist/start_graph_tracing are
 * static and inlined into register_ftrace_graph on Debian 6.1, 6.12, 7.2:
 * then they are missing from BTF and kallsyms, and the holder is probed. */
SEC("?fentry/start_graph_tracing")
int BPF_PROG(direct__start_graph_tracing) { return 0; }

SEC("?fentry/register_ftrace_graph")
int BPF_PROG(direct__register_ftrace_graph) { return 0; }

SEC("?fentry/alloc_retstack_tasklist")
int BPF_PROG(direct__alloc_retstack_tasklist) { return 0; }

SEC("?fexit/ftrace_graph_init_task")
int BPF_PROG(direct__ftrace_graph_init_task) { return 0; }

SEC("?fentry/ftrace_graph_init_idle_task")
int BPF_PROG(direct__ftrace_graph_init_idle_task) { return 0; }

SEC("?fentry/ftrace_graph_exit_task")
int BPF_PROG(direct__ftrace_graph_exit_task) { return 0; }

/* ---- attributed path: tracepoints ----
 * The kmem ones are raw_tp: tp_btf cannot read their `const void *ptr` on 6.1
 * and 6.12 (seen; 7.2 accepts it). task_newtask is tp_btf (struct task_struct *).
 * fentry/fexit/tp_btf all need BPF tracing programs (BPF_PROG_TYPE_TRACING) and
 * kernel BTF: a kernel refusing them refuses fgraphtop.
 * kmem:kmalloc and kmem:kmem_cache_alloc carry call_site, ptr and gfp; their
 * "node" argument came with 6.1's unification of the NUMA/UMA slab tracepoints
 * (same prototypes in 6.1, 6.12 and 7.2 sources). */
SEC("?raw_tp/kmalloc")
int BPF_PROG(tp__kmalloc) { return 0; }

/* 6.13+ allocate shadow stacks from the "fgraph_stack" kmem_cache (fgraph's
 * switch to a dedicated cache); earlier kernels use kmalloc. */
SEC("?raw_tp/kmem_cache_alloc")
int BPF_PROG(tp__kmem_cache_alloc) { return 0; }

SEC("?raw_tp/kfree")
int BPF_PROG(tp__kfree) { return 0; }

SEC("?raw_tp/kmem_cache_free")
int BPF_PROG(tp__kmem_cache_free) { return 0; }

SEC("?tp_btf/task_newtask")
int BPF_PROG(tp__task_newtask) { return 0; }

/* ---- attribution context ----
 * While function_graph traces the allocator, its _RET_IP_ (the tracepoints'
 * call_site) reads return_to_handler: fork-path allocations are then
 * recognised by being inside copy_process(). */
SEC("?fentry/copy_process")
int BPF_PROG(ctx__copy_process) { return 0; }

/* ---- allocator functions for per-allocation latency ----
 * 6.10 added memory allocation profiling ("mm/slab: enable slab allocation
 * tagging for kmalloc and friends"): the out-of-line allocators
 * became *_noprof, the old names became macros. */

/* 6.13+ (7.2 included): kmem_cache_alloc(fgraph_stack_cachep, GFP_KERNEL) */
SEC("?fentry/kmem_cache_alloc_noprof")
int BPF_PROG(lat_cache__kmem_cache_alloc_noprof) { return 0; }

/* before 6.10 the same function without the suffix */
SEC("?fentry/kmem_cache_alloc")
int BPF_PROG(lat_cache__kmem_cache_alloc) { return 0; }

/* 6.10 .. 6.12: kmalloc(SHADOW_STACK_SIZE) with a constant size inlines to
 * __kmalloc_cache_noprof(s, gfp, size) (6.10 renamed kmalloc_trace to it) */
SEC("?fentry/__kmalloc_cache_noprof")
int BPF_PROG(lat_csize____kmalloc_cache_noprof) { return 0; }

/* 6.1 .. 6.9: kmalloc_array() of a constant size lands in kmalloc_trace(s, gfp, size)
 * (kmalloc_trace() appeared in 6.1 with the slab tracepoint cleanup) */
SEC("?fentry/kmalloc_trace")
int BPF_PROG(lat_csize__kmalloc_trace) { return 0; }

/* 6.1 .. 6.9: non-constant sizes: __kmalloc(size, gfp) */
SEC("?fentry/__kmalloc")
int BPF_PROG(lat_size____kmalloc) { return 0; }

/* 6.10+: __kmalloc_noprof(size, gfp) */
SEC("?fentry/__kmalloc_noprof")
int BPF_PROG(lat_size____kmalloc_noprof) { return 0; }
