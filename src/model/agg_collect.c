// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel aggregation's records back into activation records
 * (src/model/agg_collect.h). The BPF side puts the sweeps as they finish,
 * FGT_AGG_PEND to a message, and the activation's totals at its end, with
 * the sweeps it had not sent yet, in that order, through one ring buffer:
 * sweeps are held here by index until their activation's totals come.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "model/agg_collect.h"

/* The same layout on both sides: the histogram is copied whole. */
_Static_assert(FGT_AGG_HIST_SLOTS == FGT_HIST_SLOTS, "histogram slots differ");
_Static_assert(sizeof(struct fgt_agg_hist) == sizeof(struct fgt_hist), "histogram layout differs");

struct fgt_agg_collector {
	fgt_activation_cb cb;
	void *ctx;
	uint32_t seq;			/* the activation whose sweeps are held */
	uint32_t n, cap;		/* held: indices [0, n) */
	uint32_t got;			/* ... of which put by BPF */
	struct fgt_sweep *sweeps;
	bool *have;
	struct fgt_activation out;	/* the record given to the callback, or current() */
	struct fgt_sweep *out_sweeps;
	uint32_t out_cap;
};

/*
 * bpf/agg.h's end of an activation and its flush, run here on a copy of BPF's
 * state (fgt_agg_collect_end(), fgt_agg_collect_flush_snap()); the whole of it runs
 * over an event stream in tests/lib/agg_replay.c.
 */
#include "bpf/agg.h"

/* ---- bpf/agg.h's hooks, here ---- */

/* No allocation is aggregated here, only finished: no slot table. */
static __always_inline struct fgt_agg_slot *fgt_agg_slot(void *out, __u32 i)
{
	return NULL;
}

static __always_inline void fgt_agg_put_sweeps(void *out, const struct fgt_agg *st)
{
	uint32_t n = st->pend_n < FGT_AGG_PEND ? st->pend_n : FGT_AGG_PEND;

	for (uint32_t i = 0; i < n; i++)
		fgt_agg_collect_sweep(out, &st->pend[i]);
}

static __always_inline void fgt_agg_put_act(void *out, const struct fgt_agg_act *a)
{
	fgt_agg_collect_act(out, a);
}


struct fgt_agg_collector *fgt_agg_collect_new(fgt_activation_cb cb, void *ctx)
{
	struct fgt_agg_collector *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->cb = cb;
	c->ctx = ctx;
	return c;
}

void fgt_agg_collect_free(struct fgt_agg_collector *c)
{
	if (!c)
		return;
	free(c->sweeps);
	free(c->have);
	free(c->out_sweeps);
	free(c);
}

static void held_reset(struct fgt_agg_collector *c, uint32_t seq)
{
	c->seq = seq;
	c->n = 0;
	c->got = 0;
}

/* Room for n elements of `size` in *p: grown by doubling. */
static bool grow(void **p, uint32_t *cap, uint32_t n, size_t size)
{
	uint32_t ncap = *cap ? *cap : 64;
	void *a;

	if (n <= *cap)
		return true;
	while (ncap < n)
		ncap *= 2;
	a = realloc(*p, (size_t)ncap * size);
	if (!a)
		return false;
	*p = a;
	*cap = ncap;
	return true;
}

static bool held_room(struct fgt_agg_collector *c, uint32_t n)
{
	uint32_t cap = c->cap, cap2 = c->cap;

	if (n <= c->cap)
		return true;
	if (!grow((void **)&c->have, &cap2, n, sizeof(*c->have)))
		return false;
	if (!grow((void **)&c->sweeps, &cap, n, sizeof(*c->sweeps)))
		return false;
	c->cap = cap;
	return true;
}

static void sweep_of(struct fgt_sweep *d, const struct fgt_agg_sweep *s)
{
	*d = (struct fgt_sweep){
		.batch = s->batch, .nonblocking = s->nonblocking,
		.failed_nonblocking = s->failed_nonblocking, .failed_blocking = s->failed_blocking,
		.freed = s->freed, .served = s->served, .ret = s->ret, .ret_known = s->ret_known != 0,
		.begin_ns = s->begin_ns, .end_ns = s->end_ns, .alloc_ns = s->alloc_ns,
		.walk_ns = s->walk_ns,
	};
}

int fgt_agg_collect_sweep(struct fgt_agg_collector *c, const struct fgt_agg_sweep *s)
{
	uint32_t i = s->index;

	if (!c || i >= FGT_AGG_MAX_SWEEPS)
		return -EINVAL;
	if (s->seq != c->seq || !c->n)
		held_reset(c, s->seq);	/* a new activation (or its END never came) */
	if (!held_room(c, i + 1))
		return -ENOMEM;
	for (; c->n <= i; c->n++)
		c->have[c->n] = false;
	sweep_of(&c->sweeps[i], s);
	if (!c->have[i])
		c->got++;
	c->have[i] = true;	/* put again (its ret known at the END): the newer one */
	return 0;
}

/* BPF's message of finished sweeps (struct fgt_sweeps_msg): each held. */
int fgt_agg_collect_sweeps(struct fgt_agg_collector *c, const void *data, size_t size)
{
	const struct fgt_sweeps_msg *m = data;
	int err = 0;

	if (!c || !m || size < sizeof(*m) || m->ev.size > FGT_AGG_PEND)
		return -EINVAL;
	for (uint32_t i = 0; i < m->ev.size; i++)
		if (fgt_agg_collect_sweep(c, &m->s[i]))
			err = -EINVAL;
	return err;
}

/* The record of `a`, the held sweeps first, `open` (if any) as the last. */
static const struct fgt_activation *build(struct fgt_agg_collector *c, const struct fgt_agg_act *a,
					  const struct fgt_agg_sweep *open, bool finished)
{
	struct fgt_activation *r = &c->out;
	uint32_t nr = a->nr_sweeps < FGT_AGG_MAX_SWEEPS ? a->nr_sweeps : FGT_AGG_MAX_SWEEPS;
	uint32_t missing = 0;

	if (!grow((void **)&c->out_sweeps, &c->out_cap, nr + 1, sizeof(*c->out_sweeps)))
		nr = c->out_cap;	/* out of memory: the sweeps that fit */
	*r = (struct fgt_activation){
		.seq = a->seq, .src = a->src, .pid = a->pid, .tid = a->tid,
		.stack_id = a->stack_id, .nr_threads = a->nr_threads,
		.begin_ns = a->begin_ns, .end_ns = a->end_ns, .last_ns = a->last_ns,
		.ret = a->ret, .complete = a->complete != 0, .implicit = a->implicit != 0,
		.lost = a->lost, .nr_sweeps = nr, .sweeps = c->out_sweeps,
		.served = a->served, .blocking = a->blocking, .nonblocking = a->nonblocking,
		.failed_blocking = a->failed_blocking, .failed_nonblocking = a->failed_nonblocking,
		.freed = a->freed, .alloc_ns = a->alloc_ns, .walk_ns = a->walk_ns,
	};
	memcpy(r->comm, a->comm, sizeof(r->comm));
	r->comm[sizeof(r->comm) - 1] = '\0';
	memcpy(&r->lat, &a->lat, sizeof(r->lat));
	for (uint32_t i = 0; i < nr; i++) {
		bool held = c->seq == a->seq && i < c->n && c->have[i];

		if (held) {
			r->sweeps[i] = c->sweeps[i];
			continue;
		}
		memset(&r->sweeps[i], 0, sizeof(r->sweeps[i]));
		missing++;
	}
	/* the open sweep: fresher than any copy of it put before; its served
	 * is not kept by BPF while it is open (bpf/agg.h) */
	if (open && nr && open->seq == a->seq && open->index == nr - 1) {
		struct fgt_sweep *o = &r->sweeps[nr - 1];

		if (!(c->seq == a->seq && nr - 1 < c->n && c->have[nr - 1]))
			missing--;
		sweep_of(o, open);
		o->served = fgt_agg_served_of(open);
		r->served = r->served - open->served + o->served;
	}
	/* a finished one's missing sweeps were lost; under way, not drained yet */
	if (finished)
		r->lost += missing;
	return r;
}

int fgt_agg_collect_act(struct fgt_agg_collector *c, const struct fgt_agg_act *msg)
{
	struct fgt_agg_act a;

	if (!c || !msg)
		return -EINVAL;
	a = *msg;
	fgt_agg_hist_final(&a.lat);
	build(c, &a, NULL, true);
	held_reset(c, 0);
	fgt_activation_settle(&c->out);
	if (c->cb)
		c->cb(&c->out, c->ctx);
	return 0;
}

/* The sweeps a snapshot holds that BPF has not sent yet (bpf/agg.h
 * fgt_agg_put()): newer than any put before, the open one excepted. */
static void pend_fill(struct fgt_activation *r, const struct fgt_agg *st)
{
	uint32_t n = st->pend_n < FGT_AGG_PEND ? st->pend_n : FGT_AGG_PEND;

	for (uint32_t k = 0; k < n; k++) {
		const struct fgt_agg_sweep *s = &st->pend[k];

		if (s->seq == st->act.seq && s->index < r->nr_sweeps &&
		    !(st->open && s->index == st->sweep.index))
			sweep_of(&r->sweeps[s->index], s);
	}
}

const struct fgt_activation *fgt_agg_collect_current(struct fgt_agg_collector *c,
						     const struct fgt_agg *snap)
{
	struct fgt_agg st;

	if (!c || !snap || !snap->act.active)
		return NULL;
	st = *snap;	/* what the fast path left for later, worked out (bpf/agg.h) */
	fgt_agg_sync(&st);
	fgt_agg_hist_final(&st.act.lat);
	build(c, &st.act, st.open ? &st.sweep : NULL, false);
	pend_fill(&c->out, &st);
	return &c->out;
}

void fgt_agg_collect_flush_snap(struct fgt_agg_collector *c, const struct fgt_agg *snap)
{
	struct fgt_agg st;

	if (!c || !snap)
		return;
	st = *snap;
	fgt_agg_flush(&st, c);
}

/* BPF's end message: what its FGT_AGG_FINISH() sends (bpf/fgraphtop.bpf.c
 * agg_send_end()), the header's ts_ns, ok and ret its arguments. */
int fgt_agg_collect_end(struct fgt_agg_collector *c, const struct fgt_agg *msg)
{
	struct fgt_agg st;

	if (!c || !msg || !msg->act.active)
		return -EINVAL;
	st = *msg;
	fgt_agg_act_finish(&st, c, msg->act_ev.ts_ns, msg->act_ev.ok != 0, msg->act_ev.ret);
	return 0;
}
