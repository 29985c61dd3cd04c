/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The static verdict's vocabulary (src/static/static_check.h has its
 * functions): the code handed to the decoder, what it is told of the
 * kernel, and the result it fills. Types only, so that the decoder's own
 * units (flow.c, walk_loop.c) take them without the judge's header, and no
 * two of them include each other.
 */
#ifndef FGT_STATIC_TYPES_H
#define FGT_STATIC_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "facts/kfacts.h"
#include "host/ksyms.h"
#include "model/verdict.h"

/* Why the answer is unknown: a stable code (JSON "why", tests). */
enum fgt_static_why {
	FGT_SW_NONE = 0,
	FGT_SW_SHAPE,		/* the code matches neither shape */
	FGT_SW_DISASM,		/* the disassembler could not start or decode */
	FGT_SW_NO_KCORE,	/* /proc/kcore absent or masked (containers) */
	FGT_SW_LOCKDOWN,	/* lockdown=confidentiality refuses kernel memory reads */
	FGT_SW_NO_PERM,		/* not root: no /proc/kcore, kallsyms addresses hidden */
	FGT_SW_KSYMS_HIDDEN,	/* kallsyms lists every address as 0 (kptr_restrict) */
	FGT_SW_NOT_KERNEL,	/* --kernel FILE is not an x86-64 or arm64 kernel image */
	FGT_SW_NO_SYMBOLS,	/* no .symtab, no usable System.map, no kallsyms tables */
	FGT_SW_BAD_MAP,		/* System.map is a placeholder or another kernel's */
	FGT_SW_READ,		/* the text could not be read */
	FGT_SW_NO_BTF,		/* a kmalloc'd shadow stack needs BTF for its size */
	FGT_SW_STOPPED,		/* SIGINT/SIGTERM came while the kernel was read */
	FGT_SW__NR
};

/* Where a call lies with respect to the walk's RCU read-side section. */
enum fgt_static_rcu {
	FGT_RCU_UNREACHED = 0,	/* not reached from the function's entry */
	FGT_RCU_OUTSIDE,	/* depth 0 on every path */
	FGT_RCU_INSIDE,		/* depth >= 1 on every path */
	FGT_RCU_MIXED,		/* both, or unbalanced */
};

/* What an allocation site is for. */
enum fgt_static_kind {
	FGT_SITE_OTHER = 0,	/* its cache or size says: not a shadow stack */
	FGT_SITE_SHADOW,	/* a shadow stack */
	FGT_SITE_UNCLASSIFIED,	/* its cache or size argument is not known here */
};

/* An argument as the decoder knows it at a call. */
enum fgt_static_val {
	FGT_VAL_UNKNOWN = 0,
	FGT_VAL_CONST,		/* an immediate (or an address, lea) */
	FGT_VAL_MEM,		/* the 8 bytes at a global address */
};

struct fgt_static_arg {
	enum fgt_static_val kind;
	uint64_t v;		/* the constant, or the global's address */
};

/* Where an allocation's pointer was seen to go (how a shadow stack is told). */
enum fgt_static_dest {
	FGT_DEST_NONE = 0,	/* neither below: by its pointer, not a shadow stack */
	FGT_DEST_TASK,		/* stored into task_struct::ret_stack (the fix's inline one) */
	FGT_DEST_LIST,		/* stored into the ret_stack_list array, whose entries the
				 * walk stores into task_struct::ret_stack (the batch) */
};

/* One call of an allocator of fgt_alloc_fns. */
struct fgt_static_site {
	uint64_t addr;		/* of the call instruction */
	char at[96];		/* "register_ftrace_graph+0x3d1" (kallsyms-style) */
	char cache_name[64];	/* the cache argument named: "fgraph_stack_cachep" */
	const struct fgt_alloc_fn *fn;
	bool tail;		/* a jmp (tail call), not a call */
	bool thunk;		/* through the callee's padding (call-depth thunk) */
	struct fgt_static_arg cache, gfp, size;
	enum fgt_static_rcu rcu;
	enum fgt_static_kind kind;
	/* what its cache or size argument alone says (fgt_stack_facts); kind
	 * is SHADOW only where its pointer's destination says so too */
	enum fgt_static_kind by_arg;
	enum fgt_static_dest dest;
};

#define FGT_STATIC_MAX_SITES	32
#define FGT_STATIC_MAX_MARKS	8
#define FGT_STATIC_EVIDENCE	1024

struct fgt_static_result {
	enum fgt_verdict verdict;
	enum fgt_static_why why;
	char evidence[FGT_STATIC_EVIDENCE];
	/* what was read (filled by the glue) */
	char source[256];		/* "/proc/kcore", "vmlinux FILE", "bzImage FILE (zstd)" */
	char symbols[160];		/* "/proc/kallsyms", "System.map FILE", ".symtab", ... */
	char release[65];		/* the kernel's, where the source says (VMCOREINFO, banner) */
	char build_id[41];		/* GNU build ID, hex, where known */
	char func[64];			/* the function decoded */
	uint64_t func_addr;
	size_t func_len;
	/* what the decoder found */
	unsigned int insns;		/* instructions decoded */
	struct fgt_static_site sites[FGT_STATIC_MAX_SITES];
	unsigned int nr_sites;
	/* calls of __rcu_read_lock / __rcu_read_unlock reached, "func+0x..." */
	char rcu_lock[FGT_STATIC_MAX_MARKS][96], rcu_unlock[FGT_STATIC_MAX_MARKS][96];
	unsigned int nr_rcu_lock, nr_rcu_unlock;
	/* how the walk was found: by its rcu_read_lock() calls (PREEMPT_RCU), or
	 * by its own shape, the loop over the thread list (walk_loop[0], its
	 * back edge's jump, "func+0x...") */
	bool walk_by_loop;
	char walk_loop[96];
	/* task_struct::ret_stack's offset the destinations were judged against,
	 * and whether it came from BTF (else: the field the walk tests for NULL) */
	uint32_t ret_stack_off;
	bool ret_stack_off_btf;
	double ms;			/* read + decode, wall clock (the glue's) */
};

/* The function's text, as read: its body, and the cold part GCC splits off
 * ("register_ftrace_graph.cold": Debian's kernels) when there is one. */
#define FGT_STATIC_MAX_PARTS	4

struct fgt_static_part {
	uint64_t addr;			/* where bytes[0] runs */
	const uint8_t *bytes;
	size_t len;
};

#define FGT_STATIC_MAX_CALLER_PARTS	2

struct fgt_static_code {
	const char *func;		/* the function's name */
	enum fgt_arch arch;		/* whose machine code (0: x86-64) */
	struct fgt_static_part part[FGT_STATIC_MAX_PARTS];	/* part[0]: the entry */
	unsigned int nr_parts;
	/*
	 * Where the function is out of line (alloc_retstack_tasklist and its
	 * clones, start_graph_tracing*): the function that calls it on the way
	 * from register_ftrace_graph, whose loop calls it again while it
	 * returns -EAGAIN (the bug's loop back). NULL: none read.
	 */
	const char *caller;
	struct fgt_static_part caller_part[FGT_STATIC_MAX_CALLER_PARTS];
	unsigned int nr_caller_parts;
};

/* What the decoder needs to know of the kernel. */
struct fgt_static_kernel {
	const struct fgt_ksyms *ks;	/* call targets, globals, __rcu_read_lock, ... */
	enum fgt_stack_src stack_src;	/* where shadow stacks come from */
	uint32_t shadow_bytes;		/* a kmalloc'd shadow stack's size (stack_src != CACHE) */
	/*
	 * offsetof(struct task_struct, ret_stack) in bytes, from the kernel's
	 * BTF (the glue fills it; every series has the member). 0: not known,
	 * and the decoder takes the field the walk tests for NULL
	 * (`cmpq $0x0,OFF(%reg)` inside it), saying so in the evidence.
	 */
	uint32_t ret_stack_off;
	/* offsetof(struct task_struct, tasks), from BTF; 0: not known. Tells
	 * the thread loop where no init_task symbol does (text-only kallsyms) */
	uint32_t tasks_off;
};

#endif
