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

/* "shadow", "other", "unclassified" */
const char *fgt_static_kind_name(enum fgt_static_kind k);

#endif
