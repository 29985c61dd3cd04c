/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Synthetic kernel behaviour for the assembler's tests: simulates
 * alloc_retstack_tasklist() line by line, unfixed or fixed, over a task list,
 * and emits the events either observation path would see.
 */
#ifndef FGT_TEST_GEN_H
#define FGT_TEST_GEN_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "bpf/events_abi.h"

#define GEN_GFP_KERNEL	0xcc0u
#define GEN_GFP_NOWAIT	0x2800u		/* 6.8+: GFP_NOWAIT | __GFP_NOWARN */

/* The shapes a fix can take (lab/patches/shape-*): gen_cfg.shape. */
enum gen_shape {
	GEN_LAB = 0,		/* unfixed, or with .fixed the lab's reading */
	GEN_SINGLE,		/* one walk, GFP_NOWAIT, no reserve: a failure leaves the
				 * thread without a stack */
	GEN_PINNED,		/* GFP_NOWAIT; on failure one GFP_KERNEL allocation, the
				 * cursor pinned, the walk going on */
	GEN_BLOCKING,		/* U + 32 stacks GFP_KERNEL, then one walk, unused freed */
};

struct gen_cfg {
	enum gen_shape shape;	/* all but GEN_LAB drop the ret_stack_list: no
				 * attributed ACT_BEGIN/END (its kcalloc, its kfree) */
	bool fixed;		/* the lab's fix: inline GFP_NOWAIT, 32-stack reserve */
	bool grow;		/* with fixed: lab-fixed-plus, the reserve doubling on -EAGAIN */
	bool direct;		/* emit SWEEP_BEGIN/END and src=direct */
	/* stacks from their own cache (6.13+): as BPF passes frees on there, only
	 * kmem_cache_free()s of the cache, never fixed-plus's kvfree() of its array */
	bool cache;
	unsigned int before;	/* threads already holding a stack, walked first */
	unsigned int lacking;	/* U: threads lacking one */
	unsigned int after;	/* threads holding one, walked last */
	unsigned int fail_nb;	/* K: non-blocking allocations failslab fails */
	unsigned int fail_interval;	/* failslab interval (0 or 1: consecutive) */
	unsigned int fail_after;	/* non-blocking attempts that succeed before the
					 * failures begin (memory reaching the watermark) */
	unsigned int fail_blocking_nth;	/* fail the n-th blocking alloc (1-based), 0: none */
	unsigned int idle_cpus;	/* idle-task allocations before the sweeps */
	uint64_t ts0;		/* start time */
};

typedef void (*gen_emit_fn)(const struct fgt_event *ev, void *ctx);

/* One activation; returns the time after it (for the next one). */
uint64_t gen_activation(const struct gen_cfg *c, gen_emit_fn emit, void *ctx);
/* m forks while fgraph is active, the first `failed` of them without a stack. */
uint64_t gen_forks(uint64_t ts, unsigned int m, unsigned int failed, bool direct,
		   gen_emit_fn emit, void *ctx);

#endif
