/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `fgraphtop check --static`: is the running kernel (or a kernel file) fixed,
 * judged from the machine code of the function holding the sweep, without an
 * activation, so at any thread count and with no side effect.
 *
 * Two parts:
 *  - the decoder (src/static/static_check.c), pure: the function's bytes, its
 *    address and a symbol table in, verdict + allocation sites + evidence out;
 *    unit-tested over instruction sequences recorded from every lab kernel
 *    (tests/data/static/);
 *  - the glue (src/static/static_kernel.c): find the function by kallsyms, read its
 *    text from /proc/kcore or from a kernel file (src/static/kread.c), decode it.
 *
 * The decoder follows the function's control flow (Capstone disassembles),
 * tracking for every instruction the RCU read-side depth (calls to
 * __rcu_read_lock / __rcu_read_unlock) and the argument registers (constants,
 * values loaded from a global), so that at each call of an allocator of
 * fgt_alloc_fns it knows the cache or size (is it a shadow stack?), the gfp
 * (blocking or not) and whether the call lies inside the walk:
 * One rule (docs/static.md, "The rule"; issue 39):
 *  - not_fixed needs the bug's own signature: a batch of shadow stacks
 *    bounded by FTRACE_RETSTACK_ALLOC_SIZE (32) taken before the walk, the
 *    walk's exit when the batch is used up, and the loop back into the walk
 *    (in the function, or its caller's loop on -EAGAIN);
 *  - fixed needs positive evidence of one walk serving every thread: a
 *    non-blocking shadow-stack allocation inside the walk (with or without a
 *    reserve, a pinned cursor's blocking fallback), or every stack allocated
 *    before one walk by a batch that no constant bounds (a count);
 *  - unknown otherwise, saying what was seen: never not_fixed from an absence.
 */
#ifndef FGT_STATIC_CHECK_H
#define FGT_STATIC_CHECK_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

/* "", "shape", "disasm", "no_kcore", "lockdown", "no_permission", ... */
const char *fgt_static_why_name(enum fgt_static_why w);

/* Where a call lies with respect to the walk's RCU read-side section. */
enum fgt_static_rcu {
	FGT_RCU_UNREACHED = 0,	/* not reached from the function's entry */
	FGT_RCU_OUTSIDE,	/* depth 0 on every path */
	FGT_RCU_INSIDE,		/* depth >= 1 on every path */
	FGT_RCU_MIXED,		/* both, or unbalanced */
};

const char *fgt_static_rcu_name(enum fgt_static_rcu r);	/* "outside", "inside", ... */

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

const char *fgt_static_dest_name(enum fgt_static_dest d);	/* "", "ret_stack", "ret_stack_list" */

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

/*
 * Decode one function and judge it. Fills r's verdict, why, evidence, insns,
 * sites and RCU marks; leaves the glue's fields alone. Returns r->verdict.
 */
enum fgt_verdict fgt_static_decode(const struct fgt_static_code *c,
					  const struct fgt_static_kernel *k,
					  struct fgt_static_result *r);

/* One site as the evidence writes it:
 * "register_ftrace_graph+0x3d1: kmem_cache_alloc_noprof(fgraph_stack_cachep, GFP_NOWAIT|__GFP_NOWARN)" */
const char *fgt_static_site_str(const struct fgt_static_site *s, char *buf, size_t len);

/*
 * Every address the decoder will look up in the symbol table for this code:
 * direct call and jump targets, fixed memory operands, immediates that are
 * kernel addresses. The glue builds its symbol table from these when it
 * reads kallsyms from kernel memory; the recorder keeps their symbols.
 */
void fgt_static_refs(const struct fgt_static_code *c, void (*cb)(uint64_t addr, void *arg),
		     void *arg);

/* ---- recorded sequences (src/static/static_rec.c, tests/data/static/README) ------ */

struct fgt_static_rec {
	char func[64];
	struct fgt_static_code code;
	struct fgt_static_kernel k;
	struct fgt_ksyms *ks;		/* owned */
	uint8_t *bytes[FGT_STATIC_MAX_PARTS];
	char caller[64];		/* "caller NAME": the parts after it are its */
	uint8_t *cbytes[FGT_STATIC_MAX_CALLER_PARTS];
};

/* Write the code with the symbols it needs (from k->ks). 0 or -errno. */
int fgt_static_rec_write(FILE *f, const char *name, const struct fgt_static_code *c,
			 const struct fgt_static_kernel *k);
/* Load one; 0, or -1 with msg. */
int fgt_static_rec_load(const char *path, struct fgt_static_rec *r, char *msg, size_t len);
void fgt_static_rec_free(struct fgt_static_rec *r);

/* ---- the glue (src/static/static_kernel.c) -------------------------------------- */

/* A reader of the running kernel's memory for when /proc/kcore cannot be
 * read: 0 or -errno with msg. */
typedef int (*fgt_kmem_read_fn)(uint64_t addr, void *buf, size_t len, char *msg, size_t mlen);

struct fgt_static_opts {
	const char *kernel;		/* NULL: the running kernel; else a vmlinux or bzImage */
	const char *system_map;		/* with kernel: its System.map (optional) */
	/* the running kernel: where to look (tests point these at fakes) */
	const char *kallsyms;		/* NULL: /proc/kallsyms */
	const char *kcore;		/* NULL: /proc/kcore */
	const char *btf;		/* NULL: /sys/kernel/btf/vmlinux */
	/* under lockdown=confidentiality: the file the kernel booted from */
	const char *boot_image;		/* NULL: /boot/vmlinuz-$(uname -r) */
	const char *notes;		/* NULL: /sys/kernel/notes (its build ID) */
	const struct fgt_ksyms *ks;	/* the running kernel's, if the caller has them */
	/* its BTF's answer, if the caller has it (no BTF is read then) */
	const struct fgt_btf_known *btf_known;
	bool no_bpf;			/* do not fall back to a BPF read when kcore fails */
	fgt_kmem_read_fn bpf_read;	/* that fallback (fgt_kread_bpf); NULL: none */
	volatile sig_atomic_t *stop;	/* set by SIGINT/SIGTERM: the reading stops (may be NULL) */
	/* called with the text as read, before decoding (recording test data) */
	void (*code_cb)(const struct fgt_static_code *c, const struct fgt_static_kernel *k,
			void *arg);
	void *code_arg;
};

/*
 * Answer for the running kernel (opts->kernel NULL) or a kernel file. Never
 * changes anything in the kernel: reads kallsyms, kcore (or, where kcore is
 * refused and BPF is allowed, the bytes through a BPF program run once with
 * BPF_PROG_TEST_RUN, never attached), BTF. Returns r->verdict; every bad case
 * is FGT_VERDICT_UNKNOWN with r->why and one line in r->evidence.
 */
enum fgt_verdict fgt_static_check(const struct fgt_static_opts *opts,
					 struct fgt_static_result *r);

/*
 * r is the running kernel's answer refused by lockdown (FGT_SW_LOCKDOWN):
 * answer from its boot image instead when that file is the running build
 * (the same GNU build ID), saying so in r->source; else r stays, with why
 * the file could not stand in. Called by fgt_static_check; exposed for tests.
 */
void fgt_static_from_boot_image(const struct fgt_static_opts *opts, struct fgt_static_result *r);

/* "shadow", "other", "unclassified" */
const char *fgt_static_kind_name(enum fgt_static_kind k);

/* [addr, addr + len) of the running kernel, read as the verdict reads its
 * code: /proc/kcore (o->kcore), else o->bpf_read unless o->no_bpf. 0, or -1
 * with why in msg. */
int fgt_static_read_running(const struct fgt_static_opts *o, uint64_t addr, void *buf,
			    size_t len, char *msg, size_t mlen);

/* The BPF reader of kernel memory (src/static/kread_bpf.c), linked only into
 * the programs that carry BPF; they hand it in as fgt_static_opts.bpf_read. */
int fgt_kread_bpf(uint64_t addr, void *buf, size_t len, char *msg, size_t mlen);

#endif
