/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The activation assembler's logic (src/model/activation.c, the reference) as
 * pure functions over one struct fgt_agg, for the BPF programs to aggregate
 * in the kernel: per sweep and per activation, no record per thread served.
 * Included by bpf/fgraphtop.bpf.c and by src/model/agg_collect.c, which replays
 * recorded event streams through it (tests/bpf/test_agg.c asserts the records
 * equal the assembler's, field by field).
 *
 * What makes it BPF: no allocation (the sweeps are published FGT_AGG_PEND
 * at a time as they finish, the reserve set is a fixed table), bounded
 * loops, no division.
 * Each function mirrors the assembler's function of the same name; the
 * comments there say why the model is what it is.
 *
 * The includer defines, before using these:
 *   struct fgt_agg_slot *fgt_agg_slot(void *out, __u32 i)
 *	slot i of the reserve table, NULL if none (then the set overflows);
 *   void fgt_agg_put_sweeps(void *out, const struct fgt_agg *st)
 *	st->pend[0 .. st->pend_n) finished, in that order (a sweep that
 *	changed after it finished comes again, with its index): FGT_AGG_PEND
 *	of them, or fewer once the activation finishes;
 *   void fgt_agg_put_act(void *out, const struct fgt_agg_act *a)
 *	the activation finished: its sweeps were all put before.
 * `out` is the includer's, passed through (NULL in BPF).
 */
#ifndef FGT_AGG_H
#define FGT_AGG_H

#include "agg_abi.h"
#include "events_abi.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
/*
 * What runs once per sweep or activation: BPF makes it a subprogram
 * (__noinline), so that each program loads it once, not once per caller (the
 * verifier's time goes by the instructions loaded). Five arguments at most.
 */
#ifndef FGT_AGG_COLD
#define FGT_AGG_COLD __always_inline
#endif

/* fgt_agg_alloc()'s cold part: BPF calls it through a subprogram of its own
 * (nine arguments are more than a subprogram takes, and most are constants). */
#ifndef FGT_AGG_ALLOC_COLD
#define FGT_AGG_ALLOC_COLD fgt_agg_alloc_cold
#endif

/* fgt_agg_sweep_open(), called through this: BPF's is a global function of
 * its own, so that the verifier goes through it once, not on every path
 * that leads to it. */
#ifndef FGT_AGG_SWEEP_OPEN
#define FGT_AGG_SWEEP_OPEN fgt_agg_sweep_open
#endif

/* May an event start an activation without its ACT_BEGIN? In the replay
 * (fgraphtop started during one); never in BPF, which feeds only events of
 * the thread inside the activation it began (act_begin()). */
#ifndef FGT_AGG_IMPLICIT
#define FGT_AGG_IMPLICIT 1
#endif

/*
 * fgt_agg_act_finish(st, out, end_ns, complete, ret) at an activation's end
 * (or at the next ACT_BEGIN when its END was lost), called through this: the
 * includer may send the state whole to be finished elsewhere, as BPF does
 * (the consumer finishes a copy with the same function: src/model/agg_collect.c
 * fgt_agg_collect_end()). Then it leaves the state inactive. fgt_agg_flush()
 * finishes in place, always. FGT_AGG_NO_FINISH: the includer finishes
 * nothing itself (BPF), and needs no fgt_agg_put_act().
 */
#ifndef FGT_AGG_FINISH
#define FGT_AGG_FINISH fgt_agg_act_finish
#endif

/* Is the fast path off (BPF: --events, which logs in the cold path)? */
#ifndef FGT_AGG_NO_FAST
#define FGT_AGG_NO_FAST 0
#endif

/* Are the frees fed all the reserve's (struct fgt_agg res_trust)? BPF says
 * it from its read-only facts, so that the verifier drops the set's code. */
#ifndef FGT_AGG_RES_TRUST
#define FGT_AGG_RES_TRUST(st) ((st)->res_trust)
#endif

#define FGT_AGG_EAGAIN	11
#define FGT_AGG_ENOMEM	12

/* Who made an event: for an activation started by one without ACT_BEGIN. */
struct fgt_agg_who {
	__u32 pid, tid;
	char comm[16];
};

/* An activation's start (a struct: a BPF subprogram takes five arguments). */
struct fgt_agg_begin {
	__u64 ts, nr_threads;
	__u32 src;
	__s32 stack_id;
	__u32 implicit;
	__u32 has_who;
	struct fgt_agg_who who;
};

static __always_inline struct fgt_agg_slot *fgt_agg_slot(void *out, __u32 i);
static FGT_AGG_COLD void fgt_agg_put_sweeps(void *out, const struct fgt_agg *st);
#ifndef FGT_AGG_NO_FINISH
static FGT_AGG_COLD void fgt_agg_put_act(void *out, const struct fgt_agg_act *a);
#endif

static __always_inline __u64 fgt_agg_span(__u64 from, __u64 to)
{
	return to > from ? to - from : 0;
}

/*
 * An opaque copy of v: the compiler may not turn the arithmetic around it
 * back into a comparison (a branch in BPF).
 */
#ifdef __bpf__
#define fgt_agg_opaque(v) ({ __u64 __o = (v); asm volatile("" : "+r"(__o)); __o; })
#else
#define fgt_agg_opaque(v) (v)
#endif

/* 1 if v > c (both below 2^63), by arithmetic: the top bit of c - v. */
#define fgt_agg_gt(v, c) (fgt_agg_opaque((__u64)(c) - (v)) >> 63)

/*
 * floor(log2(v)) of a 32-bit v > 0 (libbpf-tools' log2()), without a branch:
 * with one per step the verifier goes through 2^5 paths, each with its own
 * constants, and through all that follows them once for each.
 */
static __always_inline __u64 fgt_agg_log2_32(__u32 x)
{
	__u64 v = x, r, s;

	r = fgt_agg_gt(v, 0xFFFF) << 4;
	v >>= r;
	s = fgt_agg_gt(v, 0xFF) << 3;
	v >>= s;
	r |= s;
	s = fgt_agg_gt(v, 0xF) << 2;
	v >>= s;
	r |= s;
	s = fgt_agg_gt(v, 0x3) << 1;
	v >>= s;
	r |= s;
	r |= v >> 1;
	return r;
}

/* fgt_hist_slot() without clz: BPF has no such instruction on every kernel.
 * 64-bit all through: a 32-bit slot's zero extension would part the bound the
 * verifier learns from the comparison from the register that indexes. */
static __always_inline __u64 fgt_agg_hist_slot(__u64 v)
{
	__u64 hi = v >> 32, s;

	if (!v)
		return 0;
	s = (hi ? fgt_agg_log2_32(hi) + 32 : fgt_agg_log2_32(v)) + 1;
	return s < FGT_AGG_HIST_SLOTS ? s : FGT_AGG_HIST_SLOTS - 1;
}

/*
 * The fast path's slot of a gap in [64 ns, 16 us), by table, as byte offsets
 * into the histogram's slots: gap >> 6 is 1..255 there, and floor(log2(gap))
 * is floor(log2(gap >> 6)) + 6. The walk's gaps fall in it: a stock kernel's
 * batch (the allocator, about 300 ns under icount, and its refill every few
 * objects, twice or four times that) and a fixed kernel's allocations between
 * walk steps. Where they take three slots, a cache of the last two slots
 * missed on every refill (lab-stock, icount: 42 instructions every four
 * allocations); the table costs two more than a cached slot, and never
 * misses.
 */
#define FGT_AGG_TBL_LO		64ull
#define FGT_AGG_TBL_HI		16384ull
#define FGT_AGG_T2(v)		v, v
#define FGT_AGG_T4(v)		FGT_AGG_T2(v), FGT_AGG_T2(v)
#define FGT_AGG_T8(v)		FGT_AGG_T4(v), FGT_AGG_T4(v)
#define FGT_AGG_T16(v)		FGT_AGG_T8(v), FGT_AGG_T8(v)
#define FGT_AGG_T32(v)		FGT_AGG_T16(v), FGT_AGG_T16(v)
#define FGT_AGG_T64(v)		FGT_AGG_T32(v), FGT_AGG_T32(v)
#define FGT_AGG_T128(v)		FGT_AGG_T64(v), FGT_AGG_T64(v)

static const __u8 fgt_agg_slot_tbl[FGT_AGG_TBL_HI / FGT_AGG_TBL_LO] = {
	0,			/* below 64: not the table's */
	7 * 8,			/* 64..127: slot 7 */
	FGT_AGG_T2(8 * 8),
	FGT_AGG_T4(9 * 8),
	FGT_AGG_T8(10 * 8),
	FGT_AGG_T16(11 * 8),
	FGT_AGG_T32(12 * 8),
	FGT_AGG_T64(13 * 8),
	FGT_AGG_T128(14 * 8),	/* 8,192..16,383: slot 14 */
};

/*
 * fgt_hist_add(), less what the fast path leaves to the cold code: while an
 * activation is under way, count is not kept (fgt_agg_hist_final() adds up
 * the slots), min starts at ~0 (fgt_agg_act_start()), and the sum leaves out
 * the fast path's run (fgt_agg_sync()).
 */
static __always_inline void fgt_agg_hist_add(struct fgt_agg_hist *h, __u64 v)
{
	__u64 s = fgt_agg_hist_slot(v);

	if (s < FGT_AGG_HIST_SLOTS)	/* for the verifier */
		h->slots[s]++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->sum += v;
}

/* The histogram as fgt_hist_add() keeps it, from the aggregation's: by the
 * consumer (a loop, which BPF need not run). */
static __always_inline void fgt_agg_hist_final(struct fgt_agg_hist *h)
{
	__u64 n = 0;
	__u32 i;

	for (i = 0; i < FGT_AGG_HIST_SLOTS; i++)
		n += h->slots[i];
	h->count = n;
	if (!n)
		h->min = 0;
}

/* ---- the latest sweep's reserve, by pointer (bpf/agg_abi.h) ---- */

static __always_inline __u32 fgt_agg_hash(__u64 p)
{
	return (__u32)((p >> 4) * 0x9E3779B97F4A7C15ull >> 32) & (FGT_AGG_SLOTS - 1);
}

static __always_inline void fgt_agg_res_add(struct fgt_agg *st, void *out, __u64 p)
{
	__u32 j = fgt_agg_hash(p), i;

	if (FGT_AGG_RES_TRUST(st) || !p || st->res_overflow)
		return;
	if ((st->res_n + 1) * 2 > FGT_AGG_SLOTS) {
		st->res_overflow = 1;
		return;
	}
	for (i = 0; i < FGT_AGG_PROBES; i++) {
		struct fgt_agg_slot *sl = fgt_agg_slot(out, (j + i) & (FGT_AGG_SLOTS - 1));

		if (!sl)
			break;
		if (sl->gen != st->res_gen) {
			sl->ptr = p;
			sl->gen = st->res_gen;
			st->res_n++;
			return;
		}
		if (sl->ptr == p)
			return;
	}
	st->res_overflow = 1;	/* every FREE counts, as the assembler's when out of memory */
}

/* Unknown pointers, an empty set and an overflowed one say yes (ptr_set_has()). */
static __always_inline int fgt_agg_res_has(struct fgt_agg *st, void *out, __u64 p)
{
	__u32 j = fgt_agg_hash(p), i;

	if (FGT_AGG_RES_TRUST(st) || !p || !st->res_n || st->res_overflow)
		return 1;
	for (i = 0; i < FGT_AGG_PROBES; i++) {
		struct fgt_agg_slot *sl = fgt_agg_slot(out, (j + i) & (FGT_AGG_SLOTS - 1));

		if (!sl)
			return 1;
		if (sl->gen != st->res_gen)
			return 0;
		if (sl->ptr == p)
			return 1;
	}
	return 0;	/* added within the probes, or not at all */
}

/* A new generation: every slot is free again, none is written. Gen 0 is the
 * zeroed table's, so never used. */
static __always_inline void fgt_agg_res_clear(struct fgt_agg *st)
{
	st->res_gen++;
	if (!st->res_gen)
		st->res_gen = 1;
	st->res_n = 0;
	st->res_overflow = 0;
}

/* ---- the assembler's functions ---- */

/* The latest sweep finished (or changed after it did): queued behind the
 * others; a full queue goes out. */
static __always_inline void fgt_agg_put(struct fgt_agg *st, void *out)
{
	__u32 n = st->pend_n;

	/* the mask keeps the verifier sure of the index; n < FGT_AGG_PEND */
	st->pend[n & (FGT_AGG_PEND - 1)] = st->sweep;
	st->pend_n = ++n;
	if (n < FGT_AGG_PEND)
		return;
	fgt_agg_put_sweeps(out, st);
	st->pend_n = 0;
}

static __always_inline void fgt_agg_cur_reset(struct fgt_agg *st)
{
	st->open = 0;
	st->expl = 0;
	st->batch_end = 0;
	st->walk_end = 0;
	st->inline_ns = 0;
	st->gap_from = 0;
}

/*
 * When may the next successful allocation take fgt_agg_alloc_fast()? When
 * fgt_agg_alloc() would neither open a sweep nor start one for it: an
 * activation under way, a sweep open with a gap to measure from and, for a
 * blocking one, no reason in fgt_agg_starts_sweep() to begin the next (a
 * batch below blk_limit). Worked out by whatever else changes the state:
 * every entry point but the fast path ends here, and a run of the fast path
 * begins at sum_from.
 */
static __always_inline void fgt_agg_fast_set(struct fgt_agg *st)
{
	const struct fgt_agg_sweep *s = &st->sweep;
	__u32 lim = ~0u;

	st->fast = !FGT_AGG_NO_FAST && st->act.active && st->open && st->act.nr_sweeps &&
		   st->gap_from;
	st->sum_from = st->gap_from;
	st->run_batch = s->batch;
	st->run_nb = s->nonblocking;
	if (!st->fast)
		lim = 0;
	else if (st->expl)
		;	/* a SWEEP_BEGIN opened it: only SWEEP_END closes it */
	else if (s->failed_blocking || s->nonblocking || s->failed_nonblocking || s->freed)
		lim = 0;
	else if (!st->act.nonblocking && !st->act.failed_nonblocking)
		lim = FGT_RETSTACK_BATCH;	/* a full batch: the walk follows */
	st->blk_limit = lim;
	st->nb_fast = st->fast && !lim;
}

/*
 * What the fast path leaves for the next other event, folded in: the
 * activation's latest time, its totals of allocations (the run's share of
 * the sweep's counts), and the sum of its run's gaps. Each gap of the
 * run begins where the one before ended (gap_from), so they add up to the
 * run's span. Every entry point but the fast path begins here
 * (fgt_agg_touch()), as does whoever reads the state under way.
 */
static __always_inline void fgt_agg_sync(struct fgt_agg *st)
{
	__u64 nb_from;

	if (!st->fast)
		return;
	/* a run of blocking allocations alone ended with its last one */
	if (st->sweep.nonblocking == st->run_nb && st->sweep.batch != st->run_batch)
		st->batch_end = st->gap_from;
	st->act.lat.sum += st->gap_from - st->sum_from;
	/* the run's blocking allocations come before its non-blocking ones
	 * (blk_limit), so these begin at the last blocking one's end, or at
	 * the run's start if it had none */
	nb_from = st->batch_end > st->sum_from ? st->batch_end : st->sum_from;
	st->inline_ns += fgt_agg_span(nb_from, st->gap_from);
	st->sum_from = st->gap_from;
	st->act.blocking += st->sweep.batch - st->run_batch;
	st->act.nonblocking += st->sweep.nonblocking - st->run_nb;
	st->run_batch = st->sweep.batch;
	st->run_nb = st->sweep.nonblocking;
	if (st->gap_from > st->last_ts)
		st->last_ts = st->act.last_ns = st->gap_from;
}

static FGT_AGG_COLD void fgt_agg_act_start(struct fgt_agg *st, const struct fgt_agg_begin *b)
{
	struct fgt_agg_act *act = &st->act;
	__u64 ts = b->ts;

	__builtin_memset(act, 0, sizeof(*act));
	__builtin_memset(&st->sweep, 0, sizeof(st->sweep));
	/* an earlier one's went with its end, or were lost with it */
	st->pend_n = 0;
	act->lat.min = ~0ull;	/* none yet (fgt_agg_hist_add()) */
	fgt_agg_cur_reset(st);
	act->seq = ++st->seq;
	act->src = b->src;
	act->begin_ns = ts;
	act->implicit = b->implicit;
	act->stack_id = -1;
	st->last_ts = act->last_ns = ts;
	if (b->has_who) {
		act->pid = b->who.pid;
		act->tid = b->who.tid;
		__builtin_memcpy(act->comm, b->who.comm, sizeof(act->comm));
		act->comm[sizeof(act->comm) - 1] = '\0';
	}
	if (!b->implicit) {
		act->stack_id = b->stack_id;
		act->nr_threads = b->nr_threads;
		if (b->src == FGT_SRC_ATTRIBUTED)
			st->gap_from = ts;
	}
	act->active = 1;
	fgt_agg_fast_set(st);
}

/*
 * Served = handed out = allocated - freed; lost events must not make it wrap.
 * Not kept up to date per allocation (the assembler's update_served()): the
 * open sweep's is worked out when it closes, and by whoever reads the state
 * under way (src/model/agg_collect.c); act.served holds the closed sweeps'.
 */
static __always_inline __u32 fgt_agg_served_of(const struct fgt_agg_sweep *s)
{
	__u64 have = (__u64)s->batch + s->nonblocking;

	return have > s->freed ? (__u32)(have - s->freed) : 0;
}

static __always_inline void fgt_agg_update_served(struct fgt_agg *st)
{
	struct fgt_agg_sweep *s = &st->sweep;
	__u32 served = fgt_agg_served_of(s);

	st->act.served = st->act.served - s->served + served;
	s->served = served;
}

static __always_inline void fgt_agg_infer_ret(struct fgt_agg_sweep *s, int followed)
{
	if (s->ret_known)
		return;
	s->ret = s->failed_blocking ? -FGT_AGG_ENOMEM : followed ? -FGT_AGG_EAGAIN : 0;
}

/* Closes the open sweep: 1 if there was one (the caller puts it). */
static FGT_AGG_COLD int fgt_agg_sweep_close(struct fgt_agg *st, __u64 end_ns, int followed)
{
	struct fgt_agg_sweep *s = &st->sweep;
	__u64 walk_from, walk_to;

	if (!st->open || !st->act.nr_sweeps)
		return 0;
	fgt_agg_update_served(st);
	s->end_ns = end_ns > s->begin_ns ? end_ns : s->begin_ns;
	walk_from = st->batch_end ? st->batch_end : s->begin_ns;
	walk_to = st->walk_end ? st->walk_end : s->end_ns;
	s->alloc_ns = fgt_agg_span(s->begin_ns, st->batch_end) + st->inline_ns;
	s->walk_ns = fgt_agg_span(walk_from, walk_to);
	st->act.alloc_ns += s->alloc_ns;
	st->act.walk_ns += s->walk_ns;
	fgt_agg_infer_ret(s, followed);
	st->open = 0;
	return 1;
}

static FGT_AGG_COLD void fgt_agg_sweep_open(struct fgt_agg *st, void *out, __u64 begin_ns,
					       int expl, __u64 gap_from)
{
	struct fgt_agg_act *act = &st->act;

	if (fgt_agg_sweep_close(st, begin_ns, 1))
		fgt_agg_put(st, out);
	fgt_agg_cur_reset(st);
	fgt_agg_res_clear(st);
	st->open = 1;
	st->expl = expl;
	st->gap_from = gap_from;
	/* beyond the last, keep counting into it, as the assembler does */
	if (act->nr_sweeps < FGT_AGG_MAX_SWEEPS) {
		__builtin_memset(&st->sweep, 0, sizeof(st->sweep));
		st->sweep.begin_ns = begin_ns;
		st->sweep.seq = act->seq;
		st->sweep.index = act->nr_sweeps++;
	}
}

#ifndef FGT_AGG_NO_FINISH
static FGT_AGG_COLD void fgt_agg_act_finish(struct fgt_agg *st, void *out, __u64 end_ns,
					       int complete, __s32 ret)
{
	struct fgt_agg_act *act = &st->act;
	struct fgt_agg_sweep *last = &st->sweep;
	int put = fgt_agg_sweep_close(st, end_ns, 0);

	act->end_ns = end_ns > act->begin_ns ? end_ns : act->begin_ns;
	act->complete = complete && !act->implicit;
	act->ret = ret;
	if (act->nr_sweeps) {
		/* the last sweep's return is the activation's, when we saw it end */
		if (!last->ret_known && complete && !last->failed_blocking && last->ret != ret) {
			last->ret = ret;
			put = 1;
		}
		/* the attributed END (a kfree) carries no ret: an inferred -ENOMEM is it */
		if (complete && !ret && last->ret == -FGT_AGG_ENOMEM)
			act->ret = -FGT_AGG_ENOMEM;
	}
	if (put)
		fgt_agg_put(st, out);
	if (st->pend_n)		/* the rest of its sweeps, before it */
		fgt_agg_put_sweeps(out, st);
	st->pend_n = 0;
	act->active = 0;
	fgt_agg_fast_set(st);
	fgt_agg_put_act(out, act);	/* its histogram for fgt_agg_hist_final() */
}
#endif

/* An event without its ACT_BEGIN starts an activation (never in BPF, where
 * only the thread inside one feeds this). */
static FGT_AGG_COLD void fgt_agg_implicit(struct fgt_agg *st, __u64 ts, __u32 src,
					  const struct fgt_agg_who *who)
{
	struct fgt_agg_begin b = { .ts = ts, .src = src, .stack_id = -1, .implicit = 1 };

	if (who) {
		b.has_who = 1;
		b.who = *who;
	}
	fgt_agg_act_start(st, &b);
}

static __always_inline void fgt_agg_ensure_active(struct fgt_agg *st, __u64 ts, __u32 src,
						  const struct fgt_agg_who *who)
{
	if (FGT_AGG_IMPLICIT && !st->act.active)
		fgt_agg_implicit(st, ts, src, who);
}

static __always_inline int fgt_agg_starts_sweep(const struct fgt_agg *st)
{
	const struct fgt_agg_sweep *s = &st->sweep;

	if (!st->open || !st->act.nr_sweeps)
		return 1;
	if (st->expl)
		return 0;
	if (s->failed_blocking || s->nonblocking || s->failed_nonblocking || s->freed)
		return 1;
	return s->batch >= FGT_RETSTACK_BATCH && !st->act.nonblocking &&
	       !st->act.failed_nonblocking;
}

static __always_inline __u64 fgt_agg_sweep_lat(const struct fgt_agg *st, __u64 ts, __u64 dur)
{
	if (dur)
		return dur;
	if (st->gap_from && ts > st->gap_from)
		return ts - st->gap_from;
	return 0;
}

/* ---- entry points: one per event the assembler takes ---- */

/* Every event but the fast path's: the activation's latest time
 * (fgt_assembler_feed()). */
static __always_inline void fgt_agg_touch(struct fgt_agg *st, __u64 ts)
{
	fgt_agg_sync(st);
	if (st->act.active && ts > st->last_ts)
		st->last_ts = st->act.last_ns = ts;
}

/* b->implicit is 0: an ACT_BEGIN. */
static FGT_AGG_COLD void fgt_agg_act_begin(struct fgt_agg *st, void *out,
					   const struct fgt_agg_begin *b)
{
	if (st->act.active)	/* its END was lost: report what we have */
		FGT_AGG_FINISH(st, out, b->ts, 0, 0);
	fgt_agg_act_start(st, b);
}

static FGT_AGG_COLD void fgt_agg_act_end(struct fgt_agg *st, void *out, __u64 ts, __s32 ret,
					 __u64 lost)
{
	if (!st->act.active)
		return;
	st->act.lost += lost;
	FGT_AGG_FINISH(st, out, ts, 1, ret);
}

/* The rest of fgt_agg_alloc(), for what the fast path does not take: 2 if
 * fgt_agg_batch_next() took it, else 0. */
static __always_inline int fgt_agg_alloc_cold(struct fgt_agg *st, void *out, __u64 ts, __u32 src,
					      const struct fgt_agg_who *who, __u64 ptr, __u32 gfp,
					      int ok, __u64 dur);

/* The assembler's steps for an allocation, whatever the state. */
static __always_inline void fgt_agg_alloc_steps(struct fgt_agg *st, void *out, __u64 ts, __u32 src,
					       const struct fgt_agg_who *who, __u64 ptr, __u32 gfp,
					       int ok, __u64 dur)
{
	struct fgt_agg_act *act = &st->act;
	struct fgt_agg_sweep *s = &st->sweep;
	int nb = !(gfp & FGT_GFP_DIRECT_RECLAIM);
	__u64 lat;

	fgt_agg_ensure_active(st, ts, src, who);
	if ((!nb && fgt_agg_starts_sweep(st)) || !st->open) {
		/* the first sweep follows the BEGIN; any later inferred one, a walk */
		__u64 from = act->nr_sweeps ? 0 : st->gap_from;

		st->gap_from = from;
		lat = fgt_agg_sweep_lat(st, ts, dur);
		FGT_AGG_SWEEP_OPEN(st, out, ts - (lat <= ts ? lat : 0), 0, from);
	} else {
		lat = fgt_agg_sweep_lat(st, ts, dur);
	}
	if (!act->nr_sweeps)
		return;
	st->gap_from = ts;
	if (lat)
		fgt_agg_hist_add(&act->lat, lat);
	if (nb) {
		st->inline_ns += lat;
		if (ok) {
			s->nonblocking++;
			act->nonblocking++;
		} else {
			s->failed_nonblocking++;
			act->failed_nonblocking++;
		}
	} else {
		st->batch_end = ts;
		if (ok) {
			fgt_agg_res_add(st, out, ptr);
			s->batch++;
			act->blocking++;
		} else {
			s->failed_blocking++;
			act->failed_blocking++;
		}
	}
}

/*
 * A blocking allocation past a full batch: the next sweep's first, where the
 * sweep before it is clean (fgt_agg_fast_set() gave blk_limit its batch).
 * What the general cold code (fgt_agg_alloc_slow()) does then, worked out
 * for that one state: the run's totals (fgt_agg_sync() of blocking
 * allocations alone), the sweep closed after its walk (fgt_agg_sweep_close(),
 * followed: -EAGAIN) and put, the next opened at ts with this allocation in
 * its batch and no latency (its gap holds the walk), and the fast path set
 * as it was.
 * In that state the sweep is open, not opened by SWEEP_BEGIN (so its return
 * is not known), and has had no FREE, no failure and no non-blocking
 * allocation: served is the batch, walk_end and inline_ns are 0 and stay
 * so. gap_from (never 0 on the fast path) ended the batch: a run of
 * blocking allocations ended with its last, an empty one began there.
 * A stock kernel's walk comes here once every 32 threads served; the
 * general code took 450 instructions for it (lab, icount). 2 if taken, 0 if
 * the state is another (then fgt_agg_alloc_slow() takes it).
 */
static FGT_AGG_COLD int fgt_agg_batch_next(struct fgt_agg *st, void *out, __u64 ts, __u64 ptr)
{
	struct fgt_agg_sweep *s = &st->sweep;
	struct fgt_agg_act *act = &st->act;
	__u64 be = st->gap_from, last;

	/* beyond the last sweep the cold code counts into it */
	if (!st->blk_limit || s->batch < st->blk_limit || act->nr_sweeps >= FGT_AGG_MAX_SWEEPS)
		return 0;
	act->lat.sum += be - st->sum_from;
	act->blocking += s->batch - st->run_batch + 1;
	last = ts > be ? ts : be;
	if (last > st->last_ts)
		st->last_ts = act->last_ns = last;
	s->served = s->batch;
	act->served += s->batch;
	s->end_ns = ts > s->begin_ns ? ts : s->begin_ns;
	s->alloc_ns = fgt_agg_span(s->begin_ns, be);
	s->walk_ns = fgt_agg_span(be, s->end_ns);
	s->ret = -FGT_AGG_EAGAIN;
	act->alloc_ns += s->alloc_ns;
	act->walk_ns += s->walk_ns;
	fgt_agg_put(st, out);
	fgt_agg_res_clear(st);
	fgt_agg_res_add(st, out, ptr);
	__builtin_memset(s, 0, sizeof(*s));
	s->begin_ns = ts;
	s->seq = act->seq;
	s->index = act->nr_sweeps++;
	s->batch = 1;
	st->run_batch = 1;
	st->batch_end = st->gap_from = st->sum_from = ts;
	return 2;
}

/*
 * fgt_agg_alloc() of a successful allocation whose latency is the gap, in
 * the state fgt_agg_fast_set() allows: nearly every allocation of a walk.
 * The same steps, less the tests they need not make and what the cold code
 * works out later (fgt_agg_sync(), fgt_agg_hist_final()). 1 if taken.
 */
static __always_inline int fgt_agg_alloc_fast(struct fgt_agg *st, void *out, __u64 ts,
					      __u64 ptr, __u32 gfp, int trusted)
{
	/* fgt_agg_sweep_lat() (gap_from is set where the path may run) */
	__u64 lat = ts - st->gap_from, off;
	/* opaque: the index must stay i's (clang would make it lat >> 6,
	 * which the verifier cannot bound) */
	__u64 i = fgt_agg_opaque(lat - FGT_AGG_TBL_LO);

	if (__builtin_expect(i < FGT_AGG_TBL_HI - FGT_AGG_TBL_LO, 1)) {
		off = fgt_agg_slot_tbl[(i >> 6) + 1];
	} else if ((gfp & FGT_GFP_DIRECT_RECLAIM) && st->sweep.batch >= st->blk_limit) {
		/* the cold code's (a next batch's first, mostly), tested
		 * first so that the walk's gap costs no log2 */
		return 0;
	} else {
		/* a gap of 0, of 2 s or more, or a clock that went back, is
		 * not the fast path's, whose slots then stop at 31 */
		if (!lat || lat >> 31)
			return 0;
		/* opaque: the mask must stay where the verifier sees it (clang,
		 * knowing the bits, would drop it; 6.1's verifier does not) */
		off = ((fgt_agg_opaque(fgt_agg_log2_32((__u32)lat)) & 31) + 1) * sizeof(__u64);
	}
	if (gfp & FGT_GFP_DIRECT_RECLAIM) {
		if (st->sweep.batch >= st->blk_limit)	/* 0 unless fast */
			return 0;
		/* act.blocking's share, and batch_end (the run's last
		 * blocking allocation, the gap's end): fgt_agg_sync() */
		st->sweep.batch++;
		if (!trusted)
			fgt_agg_res_add(st, out, ptr);
	} else {
		if (!st->nb_fast) {
			if (!st->fast)
				return 0;
			/* a blocking one after it is the cold code's, and so
			 * begins a run (fgt_agg_sync(): inline_ns from the gaps);
			 * the run's blocking ones, if any, ended at the gap's
			 * start */
			st->blk_limit = 0;
			st->nb_fast = 1;
			if (st->sweep.batch != st->run_batch)
				st->batch_end = st->gap_from;
		}
		st->sweep.nonblocking++;
	}
	st->gap_from = ts;
	/* slot 1..31 (the table's 7..14) */
	(*(__u64 *)((char *)st->act.lat.slots + off))++;
	if (lat < st->act.lat.min)
		st->act.lat.min = lat;
	if (lat > st->act.lat.max)
		st->act.lat.max = lat;
	return 1;
}

/* fgt_agg_alloc() whatever the state, as every entry point but the fast
 * path: the state synced first, the fast path's set after. */
static __always_inline void fgt_agg_alloc_slow(struct fgt_agg *st, void *out, __u64 ts, __u32 src,
					       const struct fgt_agg_who *who, __u64 ptr, __u32 gfp,
					       int ok, __u64 dur)
{
	fgt_agg_touch(st, ts);
	fgt_agg_alloc_steps(st, out, ts, src, who, ptr, gfp, ok, dur);
	fgt_agg_fast_set(st);
}

static __always_inline int fgt_agg_alloc_cold(struct fgt_agg *st, void *out, __u64 ts, __u32 src,
					      const struct fgt_agg_who *who, __u64 ptr, __u32 gfp,
					      int ok, __u64 dur)
{
	if (ok && !dur && (gfp & FGT_GFP_DIRECT_RECLAIM) && fgt_agg_batch_next(st, out, ts, ptr))
		return 2;
	fgt_agg_alloc_slow(st, out, ts, src, who, ptr, gfp, ok, dur);
	return 0;
}

/* A sweep-site allocation; dur 0 when not measured (the gap is taken).
 * trusted: FGT_AGG_RES_TRUST(st), as the caller knows it (a BPF program
 * that only ever runs where stacks have their own cache says so as a
 * constant: no test on the fast path). 1 if the fast path took it, 2 if
 * fgt_agg_batch_next() did, 0 if the rest of the cold code (the replay
 * counts them for its tests; BPF logs the last with --events). */
static __always_inline int fgt_agg_alloc(struct fgt_agg *st, void *out, __u64 ts, __u32 src,
					 const struct fgt_agg_who *who, __u64 ptr, __u32 gfp,
					 int ok, __u64 dur, int trusted)
{
	if (ok && !dur && fgt_agg_alloc_fast(st, out, ts, ptr, gfp, trusted))
		return 1;
	return FGT_AGG_ALLOC_COLD(st, out, ts, src, who, ptr, gfp, ok, dur);
}

static __always_inline void fgt_agg_free(struct fgt_agg *st, void *out, __u64 ts, __u32 src,
					 const struct fgt_agg_who *who, __u64 ptr)
{
	fgt_agg_ensure_active(st, ts, src, who);
	/* not one of the latest sweep's stacks: some other kfree() of its code */
	if (st->act.nr_sweeps && !fgt_agg_res_has(st, out, ptr))
		return;
	if (!st->open)
		FGT_AGG_SWEEP_OPEN(st, out, ts, 0, 0);
	if (!st->act.nr_sweeps)
		return;
	st->gap_from = 0;	/* nothing is allocated after the free loop */
	if (!st->walk_end)	/* the free loop runs after the walk */
		st->walk_end = ts;
	st->sweep.freed++;
	st->act.freed++;
	fgt_agg_fast_set(st);
}

/* An idle task's stack: start_graph_tracing() serves them before the first
 * sweep, so the first gap starts after them. (Counted by the fork path.) */
static __always_inline void fgt_agg_idle(struct fgt_agg *st, __u64 ts)
{
	if (st->act.active && !st->act.nr_sweeps && st->gap_from)
		st->gap_from = ts;
}

static __always_inline void fgt_agg_sweep_begin(struct fgt_agg *st, void *out, __u64 ts,
						__u32 src, const struct fgt_agg_who *who)
{
	fgt_agg_ensure_active(st, ts, src, who);
	FGT_AGG_SWEEP_OPEN(st, out, ts, 1, st->act.nr_sweeps ? 0 : ts);
	fgt_agg_fast_set(st);
}

static FGT_AGG_COLD void fgt_agg_sweep_end(struct fgt_agg *st, void *out, __u64 ts, __s32 ret)
{
	if (!st->act.active || !st->open || !st->act.nr_sweeps)
		return;		/* its BEGIN was lost or came before we started */
	st->sweep.ret = ret;
	st->sweep.ret_known = 1;
	if (fgt_agg_sweep_close(st, ts, ret == -FGT_AGG_EAGAIN))
		fgt_agg_put(st, out);
	fgt_agg_fast_set(st);
}

/* n events lost while the activation was under way: its figures are a lower bound. */
static __always_inline void fgt_agg_lost(struct fgt_agg *st, __u64 n)
{
	if (st->act.active)
		st->act.lost += n;
}

/* An activation that never saw its END: reported incomplete. */
#ifndef FGT_AGG_NO_FINISH
static __always_inline void fgt_agg_flush(struct fgt_agg *st, void *out)
{
	fgt_agg_sync(st);
	if (st->act.active)
		fgt_agg_act_finish(st, out, st->last_ts, 0, 0);
}
#endif

#endif /* FGT_AGG_H */
