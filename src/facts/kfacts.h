/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What fgraphtop knows about kernels, in one place (src/facts/kfacts.c): each fact
 * names the kernel change that made it necessary.
 *
 *  - the symbols it reads from kallsyms, and the banner that says a file
 *    is a Linux kernel;
 *  - where shadow stacks come from, by series, and the allocator functions
 *    that serve them, with their arguments;
 *  - the gfp bits the verdict reads;
 *  - the probe table: what the live tool tries to attach, the BPF programs
 *    each row enables and the figures it serves.
 *
 * The live tool's plan (src/watch/plan.c), its BPF configuration (src/watch/attach.c),
 * --explain and the static verdict (src/static/static_check.c) all read these
 * tables; nothing else in the tree repeats them.
 */
#ifndef FGT_KFACTS_H
#define FGT_KFACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
#include "bpf/events_abi.h"

/* ---- symbols --------------------------------------------------------------- */

enum fgt_sym {
	FGT_SYM_REGISTER,		/* register_ftrace_graph */
	FGT_SYM_SWEEP,			/* alloc_retstack_tasklist */
	FGT_SYM_START,			/* start_graph_tracing */
	FGT_SYM_INIT_TASK,		/* ftrace_graph_init_task */
	FGT_SYM_INIT_IDLE,		/* ftrace_graph_init_idle_task */
	FGT_SYM_EXIT_TASK,		/* ftrace_graph_exit_task */
	FGT_SYM_RETURN_TO_HANDLER,
	FGT_SYM_GRAPH_ACTIVE,		/* int ftrace_graph_active */
	FGT_SYM_NR_THREADS,		/* int nr_threads */
	FGT_SYM_STACK_CACHEP,		/* struct kmem_cache *fgraph_stack_cachep */
	FGT_SYM_FPROBE_GRAPH_OPS,	/* fprobe on fgraph */
	FGT_SYM_FPROBE_FGRAPH_ENTRY,
	FGT_SYM_FPROBE_FTRACE_ENTRY,	/* entry-only fprobes off fgraph */
	FGT_SYM_STEXT,
	FGT_SYM_ETEXT,
	FGT_SYM_RCU_READ_LOCK,		/* __rcu_read_lock (PREEMPT_RCU kernels) */
	FGT_SYM_RCU_READ_UNLOCK,
	FGT_SYM_INIT_TASK_STRUCT,	/* init_task: where the walk starts */
	FGT_SYM_RCU_UNLOCK_STRICT,	/* rcu_read_unlock_strict (non-PREEMPT_RCU) */
	FGT_SYM__NR
};

/*
 * The static decoder finds the walk of a kernel without PREEMPT_RCU by its
 * loop: for_each_process() runs until its cursor is back at &init_task.tasks,
 * a cmp with an address inside this symbol (every series: the list's head is
 * init_task's own tasks member, include/linux/sched/signal.h).
 */
#define FGT_INIT_TASK		"init_task"

/*
 * What says a file is a Linux kernel: the banner every kernel carries (and
 * start_kernel() prints), from init/version.c (5.10) or
 * init/version-timestamp.c (6.1 .. 7.2): `const char linux_banner[] =
 * "Linux version " UTS_RELEASE " (" LINUX_COMPILE_BY "@" ...`. A GNU build
 * ID note says no such thing: any linker writes one.
 */
#define FGT_BANNER_SYM		"linux_banner"
#define FGT_BANNER		"Linux version "

struct fgt_sym_fact {
	const char *name;
	const char *why;		/* what it tells, and which change it depends on */
};

extern const struct fgt_sym_fact fgt_syms[FGT_SYM__NR];

static inline const char *fgt_sym_name(enum fgt_sym s)
{
	return fgt_syms[s].name;
}

/* ---- shadow stacks and their allocators ----------------------------------- */

/* How an allocator function takes its arguments. */
enum fgt_alloc_shape {
	FGT_ALLOC_CACHE,	/* fn(struct kmem_cache *s, gfp_t gfp) */
	FGT_ALLOC_CACHE_SIZE,	/* fn(struct kmem_cache *s, gfp_t gfp, size_t size) */
	FGT_ALLOC_SIZE,		/* fn(size_t size, gfp_t gfp) */
	FGT_ALLOC__NR
};

struct fgt_alloc_fn {
	const char *name;
	enum fgt_alloc_shape shape;
	/* argument positions (0 = first), -1 when the shape has none */
	int8_t cache_arg, gfp_arg, size_arg;
	const char *change;		/* the change that made shadow stacks land here */
};

/* In the order the probes try them (the first that attaches serves). */
extern const struct fgt_alloc_fn fgt_alloc_fns[];
extern const size_t fgt_nr_alloc_fns;

/* Where this kernel's shadow stacks come from. */
enum fgt_stack_src {
	FGT_STACK_KMALLOC_ARRAY,	/* kmalloc_array(FTRACE_RETFUNC_DEPTH, sizeof(struct ftrace_ret_stack)) */
	FGT_STACK_KMALLOC,		/* kmalloc(SHADOW_STACK_SIZE) */
	FGT_STACK_CACHE,		/* kmem_cache_alloc(fgraph_stack_cachep) */
	FGT_STACK__NR
};

struct fgt_stack_fact {
	const char *what;		/* for --explain and the static evidence */
	const char *series;		/* "6.1 .. 6.10", ... */
	const char *change;
	/* allocator shapes its allocation can land in (bit per enum fgt_alloc_shape) */
	unsigned int shapes;
};

extern const struct fgt_stack_fact fgt_stack_facts[FGT_STACK__NR];

/* FTRACE_RETFUNC_DEPTH: a macro, not in BTF; the depth of the old array. */
#define FGT_RETFUNC_DEPTH	50
/* SHADOW_STACK_SIZE on x86-64 (PAGE_SIZE in 6.11, 6.12; 4096 from 6.13). */
#define FGT_SHADOW_STACK_SIZE	4096

/*
 * The bytes one thread's shadow stack takes on this kernel: src as the plan
 * or the BTF found it, btf_bytes the BTF's size for the old frame array
 * (FGT_STACK_KMALLOC_ARRAY), page the running kernel's page size.
 *  - up to 6.10: FGT_RETFUNC_DEPTH frames, read from BTF (1600 on x86-64);
 *  - 6.11, 6.12: SHADOW_STACK_SIZE is PAGE_SIZE (42675b723b48), so 16384
 *    on arm64's 16K-page flavour;
 *  - 6.13 and later: 4096 from the fgraph_stack cache (434098485bfc).
 */
uint32_t fgt_stack_bytes(enum fgt_stack_src src, uint32_t btf_bytes, long page);

/*
 * fgraph takes several users from 6.11 ("function_graph: Allow multiple users
 * to attach to function graph", with 42675b723b48's series); before, a second
 * register_ftrace_graph() fails with -EBUSY. The series added this exported
 * helper for the users' per-call data, in kallsyms on every kernel with it.
 */
#define FGT_MULTI_USER_SYM	"fgraph_reserve_data"

/* ---- gfp ------------------------------------------------------------------- */

#define FGT_GFP_ZERO		0x100u
#define FGT_GFP_KSWAPD_RECLAIM	0x800u
#define FGT_GFP_NOWARN		0x2000u
#define FGT_GFP_KERNEL		0xcc0u
/* FGT_GFP_DIRECT_RECLAIM (0x400, bpf/events_abi.h) absent: non-blocking */

/* "GFP_KERNEL", "GFP_NOWAIT", "GFP_NOWAIT|__GFP_NOWARN", else "0x..."; into buf. */
const char *fgt_gfp_name(uint32_t gfp, char *buf, size_t len);
/* May the allocation sleep for reclaim (the unfixed batch) or not (the fix's inline one)? */
static inline bool fgt_gfp_blocking(uint32_t gfp)
{
	return gfp & FGT_GFP_DIRECT_RECLAIM;
}

/* ---- kernel text as the static decoder meets it (src/static/static_check.c) ------- */

/* What a call or jump to a symbol of this name means. */
enum fgt_text_role {
	FGT_TEXT_PADDING,	/* a prefix symbol before a function: a call into it reaches the function */
	FGT_TEXT_RETURN,	/* a jmp to it is a return */
	FGT_TEXT_INDIRECT,	/* a call or jmp to it goes through a register */
	FGT_TEXT_NOP,		/* a call to it is a nop at run time, every register kept */
	FGT_TEXT_NORETURN,	/* a call to it does not return: no path after it */
};

struct fgt_text_fact {
	const char *name;
	bool prefix;			/* name is a prefix (__pfx_foo, __x86_indirect_thunk_rax) */
	enum fgt_text_role role;
	const char *change;
};

extern const struct fgt_text_fact fgt_text_facts[];
extern const size_t fgt_nr_text_facts;

/* Functions the walk (the RCU read-side section) may call that allocate
 * nothing: an unfixed walk calls nothing else, so any other call there
 * leaves the static verdict unknown. */
struct fgt_walk_call {
	const char *name;
	const char *change;
};

extern const struct fgt_walk_call fgt_walk_calls[];
extern const size_t fgt_nr_walk_calls;

/*
 * What bounds the walk (the RCU read-side section) in the machine code: the
 * first entry whose symbols the kernel has. `open` is a call, or with
 * open_is_read a read of that object (the first instruction of
 * for_each_process_thread() where rcu_read_lock() emits none); `close` is a
 * call.
 */
struct fgt_walk_bound {
	enum fgt_sym open, close;
	bool open_is_read;
	const char *change;
};

extern const struct fgt_walk_bound fgt_walk_bounds[];
extern const size_t fgt_nr_walk_bounds;

/* ---- architectures --------------------------------------------------------- */

/*
 * What differs by architecture for the static verdict: how a kernel file is
 * told, and how its code passes arguments. gfp values do not differ
 * (include/linux/gfp_types.h is generic). Registers are numbered as the
 * decoder does: x86-64 in their encoding order (rax 0 .. r15 15), arm64 as
 * x0 .. x30.
 */
enum fgt_arch {
	FGT_ARCH_X86_64 = 0,	/* the default: zeroed structs mean x86-64 */
	FGT_ARCH_ARM64,
	FGT_ARCH__NR
};

#define FGT_ARCH_MAX_ARGS	6

struct fgt_arch_fact {
	const char *name;		/* "x86-64", "arm64" */
	uint16_t elf_machine;		/* EM_X86_64, EM_AARCH64 */
	/* the calling convention the kernel is built with */
	uint8_t arg_reg[FGT_ARCH_MAX_ARGS];
	uint8_t ret_reg;
	uint32_t caller_saved;		/* registers a call may clobber (bit per register) */
	const char *abi;		/* its source */
	/* the lowest address of the kernel image's own mapping */
	uint64_t kernel_lo;
	/* the vmlinux section that starts at _text (kallsyms' base) */
	const char *text_section;
	/* a raw boot image's magic (arm64 Image), 0 bytes: none */
	uint32_t image_magic_off;
	uint8_t image_magic[4];
	/* where a raw image is placed when nothing in it says (kallsyms
	 * tables with PC-relative offsets carry no absolute address) */
	uint64_t image_va;
	const char *image;		/* its source */
};

extern const struct fgt_arch_fact fgt_arch_facts[FGT_ARCH__NR];

/* ---- the probe table ----------------------------------------------------- */

enum fgt_probe_kind {
	FGT_PK_FENTRY,
	FGT_PK_FEXIT,
	FGT_PK_RAW_TP,
	FGT_PK_TP_BTF,
	FGT_PK_TEST_RUN,	/* never attached: run with BPF_PROG_TEST_RUN */
};

const char *fgt_probe_kind_name(enum fgt_probe_kind k);	/* "fentry", ... */

/* What a row needs of the kernel before it is worth trying. */
enum fgt_need {
	FGT_NEED_NONE = 0,
	FGT_NEED_CACHE,		/* shadow stacks come from the fgraph_stack cache */
	FGT_NEED_KMALLOC,	/* ... from kmalloc */
};

/* The figures fgraphtop reports, each served by one row of the plan. */
enum fgt_figure {
	FGT_FIG_ACT,		/* activation: trigger, threads, end-to-end */
	FGT_FIG_SWEEPS,		/* sweeps, walk time */
	FGT_FIG_ALLOCS,		/* shadow-stack allocations, failures by gfp class */
	FGT_FIG_LAT_SWEEP,	/* per-allocation latency, sweep path */
	FGT_FIG_LAT_FORK,	/* per-allocation latency, fork path */
	FGT_FIG_FORK,		/* new tasks, tasks left without a stack */
	FGT_FIG__NR
};

enum fgt_role {
	FGT_ROLE_ACT_DIRECT,	/* fentry/fexit on the function making the 0->1 step */
	FGT_ROLE_SWEEP_DIRECT,	/* fentry/fexit alloc_retstack_tasklist */
	FGT_ROLE_FORK_DIRECT,	/* fexit ftrace_graph_init_task */
	FGT_ROLE_TP_KMALLOC,
	FGT_ROLE_TP_CACHE_ALLOC,
	FGT_ROLE_TP_KFREE,
	FGT_ROLE_TP_CACHE_FREE,
	FGT_ROLE_TP_NEWTASK,
	FGT_ROLE_FORK_CTX,	/* fentry/fexit copy_process */
	FGT_ROLE_LAT_CACHE,	/* allocator latency, one row per enum fgt_alloc_shape */
	FGT_ROLE_LAT_CACHE_SIZE,
	FGT_ROLE_LAT_SIZE,
	FGT_ROLE_GRAPH_ACTIVE,	/* reads ftrace_graph_active on demand */
	FGT_ROLE__NR
};

#define FGT_MAX_CANDS	4
#define FGT_MAX_PROGS	4

struct fgt_cand {
	const char *target;		/* function or tracepoint */
	const char *change;		/* why this target, since when */
	/* programs of bpf/fgraphtop.bpf.c this candidate enables, NULL-ended;
	 * none: the row's own (attached to the chosen target at run time) */
	const char *progs[FGT_MAX_PROGS];
};

struct fgt_probe_row {
	enum fgt_role role;
	const char *what;
	enum fgt_probe_kind kind;
	enum fgt_need need;
	/* candidates in order; the plan uses the first that attached. Rows of
	 * allocator shapes take theirs from fgt_alloc_fns (alloc_shape >= 0). */
	struct fgt_cand cand[FGT_MAX_CANDS];
	int alloc_shape;		/* enum fgt_alloc_shape, or -1 */
	const char *progs[FGT_MAX_PROGS];	/* the row's programs, NULL-ended */
	/* ... instead, where stacks have their own cache (kconf.cachep_addr):
	 * programs without the kmalloc'd stacks' code, none: the same */
	const char *cache_progs[FGT_MAX_PROGS];
	bool direct;			/* the direct path (fgraph itself) */
	bool lazy;			/* attached by the session only while fgraph is active */
	bool attributed_needs;		/* the attributed path cannot work without it */
	const char *note;
};

extern const struct fgt_probe_row fgt_probe_rows[FGT_ROLE__NR];

/* A row's candidate i (from the row, or from fgt_alloc_fns for allocator rows);
 * NULL past the last. */
const struct fgt_cand *fgt_row_cand(const struct fgt_probe_row *r, int i);

/* Which rows can serve a figure, best first (FGT_ROLE__NR ends the list). */
struct fgt_figure_fact {
	const char *what;
	enum fgt_role rows[3];
};

extern const struct fgt_figure_fact fgt_figures[FGT_FIG__NR];

#endif
