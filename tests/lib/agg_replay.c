// SPDX-License-Identifier: GPL-2.0
/*
 * bpf/agg.h over an event stream (tests/lib/agg_replay.h). Its hooks are BPF's:
 * a slot table of its own, and every sweep and activation put into the
 * collector as the ring buffer would carry them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/agg_replay.h"

struct agg_replay {
	struct fgt_agg_collector *c;		/* where BPF's messages go */
	struct fgt_agg st;		/* BPF's state */
	uint64_t fast_n;		/* allocations the fast path took */
	uint64_t next_n;		/* ... of which a batch's first (fgt_agg_batch_next()) */
	struct fgt_agg_slot *slots;
	bool no_slots;
};

/* The replay ends an activation as BPF does: its state goes out whole and is
 * finished from the copy (fgt_agg_collect_end()), so that every replay runs the
 * collector's side of it too. */
static void end_by_message(struct fgt_agg *st, void *out, __u64 end_ns, int complete, __s32 ret);
#define FGT_AGG_FINISH end_by_message

#include "bpf/agg.h"

static __always_inline struct fgt_agg_slot *fgt_agg_slot(void *out, __u32 i)
{
	struct agg_replay *r = out;

	if (!r->slots && !r->no_slots) {
		r->slots = calloc(FGT_AGG_SLOTS, sizeof(*r->slots));
		r->no_slots = !r->slots;
	}
	return r->slots && i < FGT_AGG_SLOTS ? &r->slots[i] : NULL;
}

static __always_inline void fgt_agg_put_sweeps(void *out, const struct fgt_agg *st)
{
	struct agg_replay *r = out;
	uint32_t n = st->pend_n < FGT_AGG_PEND ? st->pend_n : FGT_AGG_PEND;

	for (uint32_t i = 0; i < n; i++)
		fgt_agg_collect_sweep(r->c, &st->pend[i]);
}

static __always_inline void fgt_agg_put_act(void *out, const struct fgt_agg_act *a)
{
	struct agg_replay *r = out;

	fgt_agg_collect_act(r->c, a);
}

static void end_by_message(struct fgt_agg *st, void *out, __u64 end_ns, int complete, __s32 ret)
{
	struct agg_replay *r = out;
	struct fgt_agg msg = *st;

	msg.act_ev.ts_ns = end_ns;
	msg.act_ev.ok = complete;
	msg.act_ev.ret = ret;
	st->act.active = 0;
	fgt_agg_fast_set(st);
	fgt_agg_collect_end(r->c, &msg);
}

struct agg_replay *agg_replay_new(struct fgt_agg_collector *c)
{
	struct agg_replay *r = calloc(1, sizeof(*r));

	if (r)
		r->c = c;
	return r;
}

void agg_replay_free(struct agg_replay *r)
{
	if (!r)
		return;
	free(r->slots);
	free(r);
}

static void replay_alloc(struct agg_replay *r, const struct fgt_event *ev,
			 const struct fgt_agg_who *who)
{
	struct fgt_agg *st = &r->st;
	int fast = fgt_agg_alloc(st, r, ev->ts_ns, ev->src, who, ev->ptr, ev->gfp, ev->ok != 0,
				 ev->dur_ns, FGT_AGG_RES_TRUST(st));

	r->fast_n += fast != 0;
	r->next_n += fast == 2;
}

void agg_replay_feed(struct agg_replay *r, const struct fgt_event *ev)
{
	struct fgt_agg *st;
	struct fgt_agg_who who;

	if (!r || !ev)
		return;
	st = &r->st;
	who.pid = ev->pid;
	who.tid = ev->tid;
	memcpy(who.comm, ev->comm, sizeof(who.comm));
	/* as BPF feeds it: the fast path takes the walk's allocations without
	 * the touch every other event begins with (bpf/agg.h) */
	if (ev->type != FGT_EV_ALLOC || ev->site != FGT_SITE_SWEEP)
		fgt_agg_touch(st, ev->ts_ns);
	switch (ev->type) {
	case FGT_EV_ACT_BEGIN:
		fgt_agg_act_begin(st, r, &(struct fgt_agg_begin){
			.ts = ev->ts_ns, .nr_threads = ev->nr_threads, .src = ev->src,
			.stack_id = ev->stack_id, .has_who = 1, .who = who });
		break;
	case FGT_EV_ACT_END:
		fgt_agg_act_end(st, r, ev->ts_ns, ev->ret, ev->lost);
		break;
	case FGT_EV_SWEEP_BEGIN:
		fgt_agg_sweep_begin(st, r, ev->ts_ns, ev->src, &who);
		break;
	case FGT_EV_SWEEP_END:
		fgt_agg_sweep_end(st, r, ev->ts_ns, ev->ret);
		break;
	case FGT_EV_ALLOC:
		if (ev->site == FGT_SITE_SWEEP)
			replay_alloc(r, ev, &who);
		else if (ev->site == FGT_SITE_IDLE)
			fgt_agg_idle(st, ev->ts_ns);
		break;
	case FGT_EV_FREE:
		fgt_agg_free(st, r, ev->ts_ns, ev->src, &who, ev->ptr);
		break;
	default:
		break;	/* the fork path's and the rest: not the aggregation's */
	}
}

void agg_replay_lost(struct agg_replay *r, uint64_t n)
{
	if (r)
		fgt_agg_lost(&r->st, n);
}

void agg_replay_flush(struct agg_replay *r)
{
	if (r)
		fgt_agg_flush(&r->st, r);
}

const struct fgt_agg *agg_replay_state(const struct agg_replay *r)
{
	return r ? &r->st : NULL;
}

void agg_replay_trust_frees(struct agg_replay *r, bool on)
{
	if (r)
		r->st.res_trust = on;
}

uint64_t agg_replay_fast(const struct agg_replay *r)
{
	return r ? r->fast_n : 0;
}

uint64_t agg_replay_next(const struct agg_replay *r)
{
	return r ? r->next_n : 0;
}
