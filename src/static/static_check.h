/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `fgraphtop check --static`: is the running kernel (or a kernel file) fixed,
 * judged from the machine code of the function holding the sweep, without an
 * activation, so at any thread count and with no side effect.
 *
 * Two parts:
 *  - the decoder, pure: the function's bytes, its address and a symbol table
 *    in, verdict + allocation sites + evidence out: the front ends
 *    (src/static/decode_x86.c, decode_arm64.c), the data flow (flow.c), the
 *    walk finder (walk_loop.c) and the judge (static_check.c);
 *    unit-tested over instruction sequences recorded from every lab kernel
 *    (tests/data/static/);
 *  - the glue (src/static/static_kernel.c): find the function by kallsyms, read its
 *    text from /proc/kcore or from a kernel file (src/static/kimage*.c), decode it.
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
#include "static/static_types.h"

/* "", "shape", "disasm", "no_kcore", "lockdown", "no_permission", ... */
const char *fgt_static_why_name(enum fgt_static_why w);
const char *fgt_static_rcu_name(enum fgt_static_rcu r);	/* "outside", "inside", ... */
const char *fgt_static_dest_name(enum fgt_static_dest d);	/* "", "ret_stack", "ret_stack_list" */

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
