/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared between bpf/fgraphtop.bpf.c and userspace: the event vocabulary.
 *
 * Both observation paths emit the same events, so that one assembler
 * (src/model/activation.c) turns either stream into the same activation records:
 *  - direct: fentry/fexit on the fgraph functions themselves
 *    (start_graph_tracing or the function it is inlined into,
 *    alloc_retstack_tasklist, ftrace_graph_init_task, ...), where the kernel
 *    allows attaching to them (lab "traceable" kernels);
 *  - attributed: the slab allocator's tracepoints and fentry/fexit, an
 *    allocation being a shadow stack by its size (or cache) and its call
 *    site inside the kallsyms range of the fgraph function holding it.
 * See docs/EVENTS.md.
 */
#ifndef FGT_EVENTS_ABI_H
#define FGT_EVENTS_ABI_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#define FGT_COMM_LEN		16
#define FGT_MAX_STACK_DEPTH	32

enum fgt_ev_type {
	FGT_EV_ACT_BEGIN	= 1,	/* the 0->1 step began its allocation phase */
	FGT_EV_ACT_END		= 2,	/* ... and ended; ret = its return value */
	FGT_EV_SWEEP_BEGIN	= 3,	/* direct only: alloc_retstack_tasklist() entered */
	FGT_EV_SWEEP_END	= 4,	/* direct only: ... returned ret (0, -EAGAIN, -ENOMEM) */
	FGT_EV_ALLOC		= 5,	/* one shadow-stack allocation (site, gfp, ok, dur) */
	FGT_EV_FREE		= 6,	/* a shadow stack freed by the sweep (unused batch) */
	FGT_EV_TASK_NEW		= 7,	/* a task created while fgraph was active; ok = has a stack */
	FGT_EV_TASK_EXIT	= 8,	/* a task with a shadow stack exited (stack freed) */
	FGT_EV_LOG		= 9,	/* wake-up only: the activation log is a quarter full */
	FGT_EV_SWEEP_DONE	= 10,	/* a finished sweep, aggregated by BPF (bpf/agg_abi.h) */
};

/* Where a shadow-stack allocation came from. */
enum fgt_site {
	FGT_SITE_UNKNOWN	= 0,
	FGT_SITE_SWEEP		= 1,	/* alloc_retstack_tasklist(), batch or inline */
	FGT_SITE_FORK		= 2,	/* ftrace_graph_init_task() from copy_process() */
	FGT_SITE_IDLE		= 3,	/* ftrace_graph_init_idle_task() */
};

/* Which probe produced the event. */
enum fgt_src {
	FGT_SRC_DIRECT		= 1,
	FGT_SRC_ATTRIBUTED	= 2,
};

/* x86-64 gfp bits the verdict needs; values are stable from 6.1 to 7.2
 * (the others are in src/facts/kfacts.h). */
#define FGT_GFP_DIRECT_RECLAIM	0x400u	/* absent: a non-blocking (GFP_NOWAIT-class) allocation */

/* FTRACE_RETSTACK_ALLOC_SIZE: the unfixed sweep's batch, the fix's reserve,
 * and the ret_stack_list's length (pointers), on every series. */
#define FGT_RETSTACK_BATCH	32

/*
 * Where task_struct's fields are, from the plan's BTF (src/host/kbtf.c
 * fgt_btf_read_task()): the programs read them there, with no CO-RE type
 * (each costs libbpf a pass over vmlinux BTF at load). 0: not there (no
 * ret_stack: a kernel without the function graph tracer).
 */
struct fgt_task_offs {
	__u32 pid, tgid;
	__u32 start_time, group_leader;
	__u32 ret_stack;
	__u32 pad;
};

/*
 * What the BPF programs know of this kernel, set once between open and load
 * (src/watch/plan.c fills it from kallsyms, BTF and the probe results). Address
 * ranges are [lo, hi); 0 when the symbol is absent.
 */
struct fgt_kconf {
	__u64 sweep_lo, sweep_hi;	/* alloc_retstack_tasklist or the function it is inlined into */
	__u64 start_lo, start_hi;	/* start_graph_tracing or its holder: the ret_stack_list */
	__u64 fork_lo, fork_hi;		/* ftrace_graph_init_task */
	__u64 idle_lo, idle_hi;		/* ftrace_graph_init_idle_task */
	__u64 exit_lo, exit_hi;		/* ftrace_graph_exit_task */
	__u64 rth_addr;			/* return_to_handler */
	__u64 text_lo, text_hi;		/* _stext, _etext */
	__u64 graph_active_addr;	/* &ftrace_graph_active */
	__u64 nr_threads_addr;		/* &nr_threads */
	__u64 cachep_addr;		/* &fgraph_stack_cachep (6.13+), else 0 */
	/* The shadow stack's size: FGT_RETFUNC_DEPTH * sizeof(struct
	 * ftrace_ret_stack) where ret_stack is a struct pointer (up to 6.10),
	 * from the plan's BTF; else FGT_SHADOW_STACK_SIZE. */
	__u32 shadow_bytes;
	/* offsetof(struct kmem_cache, object_size) from the plan's BTF, 0 if
	 * unknown: no CO-RE type for it (each costs libbpf a pass over
	 * vmlinux BTF at load) */
	__u32 cache_size_off;
	struct fgt_task_offs task;
	__u32 list_bytes;		/* the ret_stack_list: FGT_RETSTACK_BATCH pointers */
	__u8 direct_act;		/* ACT_BEGIN/END from fentry/fexit (not from the list) */
	__u8 direct_fork;		/* TASK_NEW from fexit ftrace_graph_init_task */
	__u8 want_exits;		/* TASK_EXIT events (only --events prints them) */
	__u8 pad;
};

struct fgt_event {
	__u64 ts_ns;		/* bpf_ktime_get_ns() at the event */
	__u64 dur_ns;		/* ALLOC: allocator latency, 0 if not measured;
				 * SWEEP_END, ACT_END: time since the matching BEGIN */
	__u64 ptr;		/* ALLOC/FREE: the stack; ACT_BEGIN/END: the ret_stack_list */
	__u64 nr_threads;	/* ACT_BEGIN: the kernel's nr_threads at the time */
	__u32 type;		/* enum fgt_ev_type */
	__u32 src;		/* enum fgt_src */
	__u32 pid;		/* tgid of current */
	__u32 tid;		/* pid of current */
	__u32 cpu;
	__u32 site;		/* ALLOC: enum fgt_site */
	__u32 gfp;		/* ALLOC: gfp flags as passed */
	__u32 size;		/* ALLOC: bytes requested */
	__s32 ret;		/* SWEEP_END, ACT_END: return value */
	__u32 ok;		/* ALLOC: 1 if it succeeded; TASK_NEW: 1 if it got a stack */
	__s32 stack_id;		/* ACT_BEGIN: kernel stack in the stack map, <0 if none */
	__u32 target_tid;	/* TASK_NEW/TASK_EXIT: the new/exiting task */
	char comm[FGT_COMM_LEN];
	__u32 act_seq;		/* ACT_BEGIN/END: the activation's number (BPF's count) */
	__u32 lost;		/* ACT_END: the activation's own records lost (its log was full) */
};

/*
 * The activation log: what the thread inside the 0->1 step emits between
 * ACT_BEGIN and ACT_END (its ALLOC, FREE, SWEEP_BEGIN/END) goes to a
 * single-producer array that userspace maps, not to the ring buffer: no lock,
 * no helper but the clock, no wakeup per thread served. ACT_BEGIN and ACT_END
 * stay in the ring buffer and carry act_seq, so that userspace feeds each
 * activation's records between the two (src/watch/drain.c).
 */
/*
 * Its size, a power of two, is set at load (rodata log_mask) to hold one
 * activation whole: a fixed kernel's walk serves every thread inside one
 * lock hold, never sleeping, so on a machine short of CPUs the consumer may
 * not run until it ends (5.10 at 30,004 threads lost 13,684 of 16,384
 * records). src/model/act_log_reader.c fgt_log_entries() sizes it from the threads
 * at start. Mapped into fgraphtop, so it counts in its RSS: 768 KiB at the
 * least. BPF wakes the consumer every FGT_LOG_WAKE records.
 */
#define FGT_LOG_ENTRIES		(1u << 14)	/* the least, and the map's default */
#define FGT_LOG_MAX		(1u << 21)	/* 96 MiB: 1.6 million threads */
#define FGT_LOG_WAKE		(1u << 12)

struct fgt_rec {
	__u64 ts_ns;
	__u64 ptr;
	__u64 dur_ns;		/* SWEEP_END */
	__u32 gfp;
	__u32 size;
	__s32 ret;		/* SWEEP_END */
	__u32 act_seq;		/* the activation it belongs to */
	__u8 type;		/* enum fgt_ev_type */
	__u8 src;
	__u8 site;
	__u8 ok;
	__u32 cpu;
};

#endif /* FGT_EVENTS_ABI_H */
