// SPDX-License-Identifier: GPL-2.0
/*
 * The activation assembler (docs/EVENTS.md). Both observation paths feed the
 * same code: the direct path brackets each sweep with SWEEP_BEGIN/END, the
 * attributed path does not, and sweeps are inferred from the allocation
 * pattern the kernel code makes, unfixed or fixed:
 *
 *   unfixed: 32 blocking allocs, walk, -EAGAIN when the 32 are used up and a
 *            thread follows; the last sweep frees what it did not hand out.
 *   fixed:   32 blocking allocs (the reserve), one walk allocating inline
 *            with a non-blocking gfp, the reserve covering failed inline
 *            allocs, -EAGAIN when it is used up; unused reserve freed.
 *            lab-fixed-plus: the same, the reserve doubling on each -EAGAIN
 *            (64, 128, ... up to nr_threads).
 *
 * Either way a sweep starts with blocking allocations and nothing blocking
 * follows its first non-blocking allocation or FREE, so a blocking allocation
 * arriving after those (or after 32 blocking ones, until the activation has
 * shown a non-blocking one) starts the next sweep.
 *
 * Sweep-path latency: the allocator's fentry/fexit are not attached during an
 * activation (bpf/fgraphtop.bpf.c), so an ALLOC arrives without dur_ns and its
 * latency is the gap since the sweep's previous event from the same thread:
 * the previous allocation, or the event just before the first one (the
 * attributed ACT_BEGIN is the ret_stack_list kcalloc right before the first
 * sweep; SWEEP_BEGIN on the direct path). Unfixed, the batch is 32 back-to-back
 * allocations: the gap is the allocation. Fixed, an inline allocation's gap
 * also holds the walk step from the previous thread lacking a stack. A gap
 * that holds a whole walk (an inferred sweep's first allocation, after the
 * previous sweep's walk) is not a sample; nor, for the same histogram on both
 * paths, is a direct sweep's first allocation after the first sweep.
 *
 * Lost events must never crash or stall us: every event is handled in O(1)
 * (amortized), counters never underflow, and a missing BEGIN or END is
 * recovered from by the next event that implies it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/activation.h"

#define FGT_MAX_SWEEPS		(1u << 20)	/* 32M threads unfixed; beyond, merge */

/*
 * The latest sweep's blocking allocations (its reserve or batch), by
 * pointer: a FREE in the sweep is one of them handed back unused, and a FREE of any
 * other pointer is not a shadow stack (lab-fixed-plus's kvfree() of a
 * reserve array is a tail call, so kfree's call site is the sweep's
 * function). Open addressing, reset at each sweep; 0 is never a pointer.
 */
struct ptr_set {
	uint64_t *slot;
	uint32_t cap, n;	/* cap: a power of two, or 0 */
	bool overflow;		/* out of memory: every FREE counts, as before */
};

static uint32_t ptr_hash(uint64_t p, uint32_t cap)
{
	return (uint32_t)((p >> 4) * 0x9E3779B97F4A7C15ull >> 32) & (cap - 1);
}

static bool ptr_set_grow(struct ptr_set *ps)
{
	uint32_t ncap = ps->cap ? ps->cap * 2 : 64, i, j;
	uint64_t *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return false;
	for (i = 0; i < ps->cap; i++) {
		if (!ps->slot[i])
			continue;
		for (j = ptr_hash(ps->slot[i], ncap); ns[j]; j = (j + 1) & (ncap - 1))
			;
		ns[j] = ps->slot[i];
	}
	free(ps->slot);
	ps->slot = ns;
	ps->cap = ncap;
	return true;
}

static void ptr_set_add(struct ptr_set *ps, uint64_t p)
{
	uint32_t j;

	if (!p || ps->overflow)
		return;
	if ((ps->n + 1) * 2 > ps->cap && !ptr_set_grow(ps)) {
		ps->overflow = true;
		return;
	}
	for (j = ptr_hash(p, ps->cap); ps->slot[j]; j = (j + 1) & (ps->cap - 1))
		if (ps->slot[j] == p)
			return;
	ps->slot[j] = p;
	ps->n++;
}

/*
 * Is p one of the set's? Unknown pointers (0), an empty set (its allocations
 * not seen: lost, or before fgraphtop started) and an overflowed one say yes.
 */
static bool ptr_set_has(const struct ptr_set *ps, uint64_t p)
{
	uint32_t j;

	if (!p || !ps->n || ps->overflow)
		return true;
	for (j = ptr_hash(p, ps->cap); ps->slot[j]; j = (j + 1) & (ps->cap - 1))
		if (ps->slot[j] == p)
			return true;
	return false;
}

static void ptr_set_clear(struct ptr_set *ps)
{
	if (ps->n)
		memset(ps->slot, 0, ps->cap * sizeof(*ps->slot));
	ps->n = 0;
	ps->overflow = false;
}

/* Timing of the sweep under way: only the open sweep needs it. */
struct sweep_state {
	bool open;
	bool explicit;		/* opened by SWEEP_BEGIN: do not infer its end */
	uint64_t batch_end;	/* end of its last blocking allocation, 0 if none */
	uint64_t walk_end;	/* its first FREE, 0 if none */
	uint64_t inline_ns;	/* latencies of its non-blocking allocations */
	uint64_t gap_from;	/* the sweep's previous event, 0 if a gap would hold a walk */
};

struct fgt_assembler {
	fgt_activation_cb cb;
	void *ctx;
	bool active;
	struct fgt_activation act;
	uint32_t cap_sweeps;
	uint32_t seq;
	struct sweep_state cur;
	struct ptr_set reserve;	/* the latest sweep's blocking allocations */
	bool trust;		/* every FREE fed is a shadow stack (fgt_assembler_trust_frees()) */
	uint64_t last_ts;	/* latest event of the activation: where a flush ends it */
	struct fgt_fork_stats fork;
};

struct fgt_assembler *fgt_assembler_new(fgt_activation_cb cb, void *ctx)
{
	struct fgt_assembler *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->cb = cb;
	a->ctx = ctx;
	return a;
}

void fgt_assembler_free(struct fgt_assembler *a)
{
	if (!a)
		return;
	free(a->act.sweeps);
	free(a->reserve.slot);
	free(a);
}

static bool nonblocking(const struct fgt_event *ev)
{
	return !(ev->gfp & FGT_GFP_DIRECT_RECLAIM);
}

static uint64_t span(uint64_t from, uint64_t to)
{
	return to > from ? to - from : 0;
}

static struct fgt_sweep *cur_sweep(struct fgt_assembler *a)
{
	return a->act.nr_sweeps ? &a->act.sweeps[a->act.nr_sweeps - 1] : NULL;
}

static void act_start(struct fgt_assembler *a, const struct fgt_event *ev, bool implicit)
{
	struct fgt_sweep *keep = a->act.sweeps;

	memset(&a->act, 0, sizeof(a->act));
	memset(&a->cur, 0, sizeof(a->cur));
	a->act.sweeps = keep;
	a->act.seq = ++a->seq;
	a->act.src = ev->src;
	a->act.begin_ns = ev->ts_ns;
	a->act.implicit = implicit;
	a->act.stack_id = -1;
	a->last_ts = a->act.last_ns = ev->ts_ns;
	/* an implicit one's first event runs in the trigger too: the sweep is
	 * its system call's work (a live view names it at once) */
	a->act.pid = ev->pid;
	a->act.tid = ev->tid;
	memcpy(a->act.comm, ev->comm, FGT_COMM_LEN);
	a->act.comm[FGT_COMM_LEN - 1] = '\0';
	if (!implicit) {
		a->act.stack_id = ev->stack_id;
		a->act.nr_threads = ev->nr_threads;
		/* the attributed BEGIN is the kcalloc right before the first sweep */
		if (ev->src == FGT_SRC_ATTRIBUTED)
			a->cur.gap_from = ev->ts_ns;
	}
	a->active = true;
}

/* Served = handed out = allocated - freed; lost events must not make it wrap. */
static void update_served(struct fgt_activation *act, struct fgt_sweep *s)
{
	uint64_t have = (uint64_t)s->batch + s->nonblocking;
	uint32_t served = have > s->freed ? (uint32_t)(have - s->freed) : 0;

	act->served = act->served - s->served + served;
	s->served = served;
}

/*
 * An inferred sweep's return: the kernel only loops again on -EAGAIN, and a
 * failed blocking allocation ends the whole activation with -ENOMEM.
 */
static void infer_ret(struct fgt_sweep *s, bool followed)
{
	if (s->ret_known)
		return;
	s->ret = s->failed_blocking ? -ENOMEM : followed ? -EAGAIN : 0;
}

static void sweep_close(struct fgt_assembler *a, uint64_t end_ns, bool followed)
{
	struct fgt_sweep *s = cur_sweep(a);
	uint64_t walk_from, walk_to;

	if (!a->cur.open || !s)
		return;
	s->end_ns = end_ns > s->begin_ns ? end_ns : s->begin_ns;
	walk_from = a->cur.batch_end ? a->cur.batch_end : s->begin_ns;
	walk_to = a->cur.walk_end ? a->cur.walk_end : s->end_ns;
	s->alloc_ns = span(s->begin_ns, a->cur.batch_end) + a->cur.inline_ns;
	s->walk_ns = span(walk_from, walk_to);
	a->act.alloc_ns += s->alloc_ns;
	a->act.walk_ns += s->walk_ns;
	infer_ret(s, followed);
	a->cur.open = false;
}

static void sweep_open(struct fgt_assembler *a, uint64_t begin_ns, bool explicit,
		       uint64_t gap_from)
{
	struct fgt_activation *act = &a->act;

	sweep_close(a, begin_ns, true);
	if (act->nr_sweeps == a->cap_sweeps && act->nr_sweeps < FGT_MAX_SWEEPS) {
		uint32_t ncap = a->cap_sweeps ? a->cap_sweeps * 2 : 64;
		struct fgt_sweep *ns = realloc(act->sweeps, ncap * sizeof(*ns));

		if (ns) {
			act->sweeps = ns;
			a->cap_sweeps = ncap;
		}
	}
	memset(&a->cur, 0, sizeof(a->cur));
	ptr_set_clear(&a->reserve);
	a->cur.open = true;
	a->cur.explicit = explicit;
	a->cur.gap_from = gap_from;
	if (act->nr_sweeps == a->cap_sweeps) {
		/* no room (out of memory or absurd count): keep counting into the last */
		if (!act->nr_sweeps)
			a->cur.open = false;
		return;
	}
	act->sweeps[act->nr_sweeps++] = (struct fgt_sweep){ .begin_ns = begin_ns };
}

static void act_finish(struct fgt_assembler *a, uint64_t end_ns, bool complete, int32_t ret)
{
	struct fgt_activation *act = &a->act;
	struct fgt_sweep *last;

	sweep_close(a, end_ns, false);
	act->end_ns = end_ns > act->begin_ns ? end_ns : act->begin_ns;
	act->complete = complete && !act->implicit;
	act->ret = ret;
	last = cur_sweep(a);
	/* the last sweep's return is the activation's, when we saw it end */
	if (last && !last->ret_known && complete && !last->failed_blocking)
		last->ret = ret;
	/* the attributed END (a kfree) carries no ret: an inferred -ENOMEM is it */
	if (last && complete && !ret && last->ret == -ENOMEM)
		act->ret = -ENOMEM;
	fgt_activation_settle(act);
	if (a->cb)
		a->cb(act, a->ctx);
	a->active = false;
}

static void ensure_active(struct fgt_assembler *a, const struct fgt_event *ev)
{
	if (!a->active)
		act_start(a, ev, true);
}

/* Does this blocking allocation start a new sweep? See the comment at the top. */
static bool starts_sweep(const struct fgt_assembler *a)
{
	const struct fgt_sweep *s = a->act.nr_sweeps ?
		&a->act.sweeps[a->act.nr_sweeps - 1] : NULL;

	if (!a->cur.open || !s)
		return true;
	if (a->cur.explicit)
		return false;
	if (s->failed_blocking || s->nonblocking || s->failed_nonblocking || s->freed)
		return true;
	/*
	 * The unfixed sweeps are batches of 32 back to back. Once the activation
	 * showed the fixed code (a non-blocking allocation in an earlier sweep),
	 * a reserve ends only at its walk's first non-blocking allocation or
	 * FREE, whatever its size: lab-fixed-plus doubles it on each -EAGAIN.
	 */
	return s->batch >= FGT_RETSTACK_BATCH && !a->act.nonblocking && !a->act.failed_nonblocking;
}

/* The allocation's latency: measured by the allocator's fexit, else the gap. */
static uint64_t sweep_lat(const struct fgt_assembler *a, const struct fgt_event *ev)
{
	if (ev->dur_ns)
		return ev->dur_ns;
	if (a->cur.gap_from && ev->ts_ns > a->cur.gap_from)
		return ev->ts_ns - a->cur.gap_from;
	return 0;
}

static void on_sweep_alloc(struct fgt_assembler *a, const struct fgt_event *ev)
{
	struct fgt_activation *act = &a->act;
	struct fgt_sweep *s;
	bool nb = nonblocking(ev);
	uint64_t lat;

	ensure_active(a, ev);
	if ((!nb && starts_sweep(a)) || !a->cur.open) {
		/* the first sweep follows the BEGIN; any later inferred one, a walk */
		uint64_t from = act->nr_sweeps ? 0 : a->cur.gap_from;

		a->cur.gap_from = from;
		lat = sweep_lat(a, ev);
		sweep_open(a, ev->ts_ns - (lat <= ev->ts_ns ? lat : 0), false, from);
	} else {
		lat = sweep_lat(a, ev);
	}
	s = cur_sweep(a);
	if (!s)
		return;
	a->cur.gap_from = ev->ts_ns;
	if (lat)
		fgt_hist_add(&act->lat, lat);
	if (nb) {
		a->cur.inline_ns += lat;
		if (ev->ok) {
			s->nonblocking++;
			act->nonblocking++;
		} else {
			s->failed_nonblocking++;
			act->failed_nonblocking++;
		}
	} else {
		a->cur.batch_end = ev->ts_ns;
		if (ev->ok) {
			ptr_set_add(&a->reserve, ev->ptr);
			s->batch++;
			act->blocking++;
		} else {
			s->failed_blocking++;
			act->failed_blocking++;
		}
	}
	update_served(act, s);
}

static void on_free(struct fgt_assembler *a, const struct fgt_event *ev)
{
	struct fgt_sweep *s;

	ensure_active(a, ev);
	/* not one of the latest sweep's stacks (its reserve or batch, when they
	 * were seen): some other kfree() of its code */
	if (a->act.nr_sweeps && !a->trust && !ptr_set_has(&a->reserve, ev->ptr))
		return;
	if (!a->cur.open)
		sweep_open(a, ev->ts_ns, false, 0);
	s = cur_sweep(a);
	if (!s)
		return;
	a->cur.gap_from = 0;	/* nothing is allocated after the free loop */
	/* the free loop runs after the walk: the first FREE ends the walk */
	if (!a->cur.walk_end)
		a->cur.walk_end = ev->ts_ns;
	s->freed++;
	a->act.freed++;
	update_served(&a->act, s);
}

static void on_fork_alloc(struct fgt_assembler *a, const struct fgt_event *ev)
{
	struct fgt_fork_stats *f = &a->fork;

	f->allocs++;
	if (ev->site == FGT_SITE_IDLE)
		f->idle_allocs++;
	if (!ev->ok)
		f->failed++;
	if (ev->dur_ns)
		fgt_hist_add(&f->lat, ev->dur_ns);
}

static void on_alloc(struct fgt_assembler *a, const struct fgt_event *ev)
{
	switch (ev->site) {
	case FGT_SITE_SWEEP:
		on_sweep_alloc(a, ev);
		break;
	case FGT_SITE_IDLE:
		/* start_graph_tracing() serves the idle tasks between the BEGIN
		 * and the first sweep: the first gap starts after them */
		if (a->active && !a->act.nr_sweeps && a->cur.gap_from)
			a->cur.gap_from = ev->ts_ns;
		on_fork_alloc(a, ev);
		break;
	case FGT_SITE_FORK:
		on_fork_alloc(a, ev);
		break;
	default:
		break;	/* not attributed: counts for nothing */
	}
}

static void on_sweep_begin(struct fgt_assembler *a, const struct fgt_event *ev)
{
	ensure_active(a, ev);
	/* as on the attributed path, a later sweep's first allocation is no
	 * sample, so that both paths give the same histogram */
	sweep_open(a, ev->ts_ns, true, a->act.nr_sweeps ? 0 : ev->ts_ns);
}

static void on_sweep_end(struct fgt_assembler *a, const struct fgt_event *ev)
{
	struct fgt_sweep *s = cur_sweep(a);

	if (!a->active || !a->cur.open || !s)
		return;		/* its BEGIN was lost or came before we started */
	s->ret = ev->ret;
	s->ret_known = true;
	sweep_close(a, ev->ts_ns, ev->ret == -EAGAIN);
}

void fgt_assembler_feed(struct fgt_assembler *a, const struct fgt_event *ev)
{
	if (!a || !ev)
		return;
	if (a->active && ev->ts_ns > a->last_ts)
		a->last_ts = a->act.last_ns = ev->ts_ns;
	switch (ev->type) {
	case FGT_EV_ACT_BEGIN:
		if (a->active)	/* its END was lost: report what we have */
			act_finish(a, ev->ts_ns, false, 0);
		act_start(a, ev, false);
		break;
	case FGT_EV_ACT_END:
		if (a->active) {
			/* what the activation itself lost: its records the log had
			 * no room for (bpf/fgraphtop.bpf.c counts them) */
			a->act.lost += ev->lost;
			act_finish(a, ev->ts_ns, true, ev->ret);
		}
		break;
	case FGT_EV_SWEEP_BEGIN:
		on_sweep_begin(a, ev);
		break;
	case FGT_EV_SWEEP_END:
		on_sweep_end(a, ev);
		break;
	case FGT_EV_ALLOC:
		on_alloc(a, ev);
		break;
	case FGT_EV_FREE:
		on_free(a, ev);
		break;
	case FGT_EV_TASK_NEW:
		a->fork.tasks_new++;
		if (!ev->ok)
			a->fork.tasks_without++;
		break;
	default:
		break;	/* TASK_EXIT and unknown types: nothing to assemble */
	}
}

const struct fgt_activation *fgt_assembler_current(const struct fgt_assembler *a)
{
	return a && a->active ? &a->act : NULL;
}

const struct fgt_fork_stats *fgt_assembler_fork(const struct fgt_assembler *a)
{
	return a ? &a->fork : NULL;
}

void fgt_assembler_lost(struct fgt_assembler *a, uint64_t n)
{
	if (a && a->active)
		a->act.lost += n;
}

void fgt_assembler_end(struct fgt_assembler *a, uint64_t end_ns)
{
	if (!a || !a->active || !a->act.implicit)
		return;
	a->act.implicit = false;
	act_finish(a, end_ns > a->last_ts ? end_ns : a->last_ts, true, 0);
}

void fgt_assembler_trust_frees(struct fgt_assembler *a, bool on)
{
	if (a)
		a->trust = on;
}

void fgt_assembler_flush(struct fgt_assembler *a)
{
	if (a && a->active)
		act_finish(a, a->last_ts, false, 0);
}

/* ---- settling: which batches are walks of their own (docs/EVENTS.md, "Walks") ---- */

/*
 * The gaps after the batches (from a batch's last allocation to the next
 * batch's first), against the allocations' pace (the median of the batches'
 * time per allocation): a walk between batches is a run of thread visits, an
 * allocation is not. Where the kernel allocates every stack back to back, the
 * gap after the 32nd is one allocation, at most a slab refill: under the
 * objects a slab holds (8) times the pace. The unfixed walk k restarts at
 * init_task and goes past every thread served before it, so its gap grows
 * with k: the gaps rise with k in rank (Spearman's rho), the last third's
 * are twice the first third's and several allocations long. A walk past
 * threads already served (a second activation) is long at any k.
 * The growth is read off the gaps' lower envelope (envelope()). Thresholds
 * from the recorded unfixed walks in tests/data's .sweeps (lab and Debian
 * kernels, idle, loaded, under memory pressure, the debug build): every one
 * shows its walks (test_progress.c's test_recorded_walks_shown).
 */
#define WALK_SAMPLES	240	/* gaps looked at, at most (evenly spaced) */
#define WALK_MIN_GAPS	4	/* fewer gaps cannot show a trend */
#define WALK_RHO	0.5	/* rank correlation of the gaps with k */
#define WALK_GROWTH	2.0	/* the last third's median gap over the first third's */
#define WALK_GROWN	4.0	/* ... and at least this many allocations long */
#define WALK_LONG	16.0	/* the median gap this many allocations long, */
#define WALK_LONG_Q1	8.0	/* and its lower quartile this many: walks */

struct gaps {
	double gap[WALK_SAMPLES], pace[WALK_SAMPLES];
	uint32_t n;
};

static bool gap_of(const struct fgt_sweep *s, double *gap, double *pace)
{
	uint32_t n = s->batch + s->failed_blocking;

	/* a sweep lost on the way (zero), or a batch with no time to go by */
	if (!s->begin_ns || !n || !s->alloc_ns)
		return false;
	*gap = (double)s->walk_ns;
	*pace = (double)s->alloc_ns / n;
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile (0 .. 1) of n values, sorted in a copy. */
static double quantile(const double *v, uint32_t n, double q)
{
	double t[WALK_SAMPLES];
	uint32_t i = (uint32_t)(q * (n - 1) + 0.5);

	memcpy(t, v, n * sizeof(*t));
	qsort(t, n, sizeof(*t), cmp_double);
	return t[i];
}

/* Spearman's rho of v against its index (ties ranked in order). */
static double rank_rho(const double *v, uint32_t n)
{
	uint32_t i, j, rank;
	double d2 = 0;

	for (i = 0; i < n; i++) {
		for (rank = 0, j = 0; j < n; j++)
			rank += v[j] < v[i] || (v[j] == v[i] && j < i);
		d2 += ((double)rank - i) * ((double)rank - i);
	}
	return 1 - 6 * d2 / ((double)n * ((double)n * n - 1));
}

/* The gaps after batches 0 .. n-2, at most WALK_SAMPLES evenly spaced
 * (bounded work over a million sweeps). */
static void gaps_take(const struct fgt_sweep *s, uint32_t n, struct gaps *g)
{
	uint32_t m = 0, i, idx = 0, want;
	double gap, pace;

	g->n = 0;
	for (i = 0; i + 1 < n; i++)
		m += gap_of(&s[i], &gap, &pace);
	want = m < WALK_SAMPLES ? m : WALK_SAMPLES;
	for (i = 0; i + 1 < n && g->n < want; i++) {
		if (!gap_of(&s[i], &gap, &pace))
			continue;
		if (idx++ == (uint32_t)((uint64_t)g->n * m / want)) {
			g->gap[g->n] = gap;
			g->pace[g->n++] = pace;
		}
	}
}

/*
 * The gaps' lower envelope: each the least of itself and its neighbours.
 * What else shares the CPU only ever adds to a gap (an interrupt, the other
 * vCPU under single-threaded TCG, a slab refill), so a spike says nothing of
 * the walk, and a few early ones broke the rank order of walks that grew
 * all along (lab-debug-stock's 1,000 threads: rho 0.49 raw, 0.96 here).
 */
static void envelope(const double *v, uint32_t n, double *out)
{
	for (uint32_t i = 0; i < n; i++) {
		double m = v[i];

		if (i > 0 && v[i - 1] < m)
			m = v[i - 1];
		if (i + 1 < n && v[i + 1] < m)
			m = v[i + 1];
		out[i] = m;
	}
}

bool fgt_walks_in_gaps(const struct fgt_sweep *s, uint32_t n)
{
	double pace, last, t, low[WALK_SAMPLES];
	struct gaps g;

	gaps_take(s, n, &g);
	if (g.n < 2)
		return false;
	pace = quantile(g.pace, g.n, 0.5);
	if (quantile(g.gap, g.n, 0.5) >= WALK_LONG * pace &&
	    quantile(g.gap, g.n, 0.25) >= WALK_LONG_Q1 * pace)
		return true;
	if (g.n < WALK_MIN_GAPS)
		return false;
	envelope(g.gap, g.n, low);
	t = g.n / 3;
	last = quantile(low + g.n - (uint32_t)t, (uint32_t)t, 0.5);
	return rank_rho(low, g.n) >= WALK_RHO && last >= WALK_GROWN * pace &&
	       last >= WALK_GROWTH * quantile(low, (uint32_t)t, 0.5);
}

/*
 * With inline allocations, a batch begins a walk of its own only where the
 * one before it used up its reserve and one more inline allocation failed
 * (the -EAGAIN of the lab's reading), and a reserve was taken again: a
 * single blocking allocation after each failure is a walk going on (a
 * pinned cursor: the stack allocated with GFP_KERNEL outside RCU).
 */
static bool inline_restart(const struct fgt_sweep *prev, const struct fgt_sweep *s)
{
	return prev->batch >= 1 && prev->failed_nonblocking > prev->batch && s->batch >= 2;
}

/* s into d; returns how much the threads served grew (a run's FREEs may
 * come in a later batch than the stacks they give back). */
static int64_t sweep_merge(struct fgt_sweep *d, const struct fgt_sweep *s)
{
	int64_t before = (int64_t)d->served + s->served;
	uint64_t have;

	d->batch += s->batch;
	d->nonblocking += s->nonblocking;
	d->failed_nonblocking += s->failed_nonblocking;
	d->failed_blocking += s->failed_blocking;
	d->freed += s->freed;
	have = (uint64_t)d->batch + d->nonblocking;
	d->served = have > d->freed ? (uint32_t)(have - d->freed) : 0;
	d->alloc_ns += s->alloc_ns;
	d->walk_ns += s->walk_ns;
	d->ret = s->ret;
	d->ret_known = s->ret_known;
	if (s->end_ns > d->end_ns)
		d->end_ns = s->end_ns;
	if (!d->begin_ns)
		d->begin_ns = s->begin_ns;
	return (int64_t)d->served - before;
}

static void served_add(struct fgt_activation *act, int64_t d)
{
	act->served = d < 0 && (uint64_t)-d > act->served ? 0 : act->served + d;
}

/* Were the sweeps seen as calls (the direct path: each its return)? */
static bool calls_seen(const struct fgt_activation *act)
{
	for (uint32_t i = 0; i < act->nr_sweeps; i++)
		if (act->sweeps[i].ret_known)
			return true;
	return false;
}

/* A sweep whose figures have not come yet (a live view's, not drained:
 * src/model/agg_collect.c leaves it zero) tells nothing of a walk. */
static bool sweep_unknown(const struct fgt_sweep *s)
{
	return !s->batch && !s->nonblocking && !s->failed_nonblocking && !s->failed_blocking &&
	       !s->freed;
}

uint32_t fgt_activation_walks_now(const struct fgt_activation *act)
{
	uint32_t n = act->nr_sweeps, walks = 1;

	if (n < 2 || !(act->nonblocking || act->failed_nonblocking))
		return n;
	if (calls_seen(act))
		return n;	/* the calls are the walks (settle()) */
	/* one not known yet counts as the batch it is */
	for (uint32_t i = 1; i < n; i++)
		walks += sweep_unknown(&act->sweeps[i - 1]) || sweep_unknown(&act->sweeps[i]) ||
			 inline_restart(&act->sweeps[i - 1], &act->sweeps[i]);
	return walks;
}

void fgt_activation_settle(struct fgt_activation *act)
{
	uint32_t n = act->nr_sweeps, i, k = 0;
	struct fgt_sweep prev;
	uint64_t moved = 0;

	act->batches = n;
	act->walks = FGT_WALKS_NONE;
	if (!n)
		return;
	if (calls_seen(act)) {
		act->walks = FGT_WALKS_CALLS;
		return;
	}
	if (act->nonblocking || act->failed_nonblocking) {
		act->walks = FGT_WALKS_INLINE;
		prev = act->sweeps[0];
		for (i = 1; i < n; i++) {
			struct fgt_sweep cur = act->sweeps[i];

			if (inline_restart(&prev, &cur))
				act->sweeps[++k] = cur;
			else
				served_add(act, sweep_merge(&act->sweeps[k], &cur));
			prev = cur;
		}
		act->nr_sweeps = k + 1;
		return;
	}
	if (n == 1) {
		act->walks = FGT_WALKS_ONE;
		return;
	}
	if (fgt_walks_in_gaps(act->sweeps, n)) {
		act->walks = FGT_WALKS_GAPS;
		return;
	}
	/* one run of allocations: the gaps between its batches held no walk
	 * that shows, so they were allocating; the walk is the last one's */
	act->walks = FGT_WALKS_UNSEEN;
	for (i = 1; i < n; i++) {
		moved += act->sweeps[0].walk_ns;
		act->sweeps[0].alloc_ns += act->sweeps[0].walk_ns;
		act->sweeps[0].walk_ns = 0;
		served_add(act, sweep_merge(&act->sweeps[0], &act->sweeps[i]));
	}
	act->alloc_ns += moved;
	act->walk_ns = act->walk_ns > moved ? act->walk_ns - moved : 0;
	act->nr_sweeps = 1;
}

const char *fgt_walks_name(uint32_t walks)
{
	static const char *const names[FGT_WALKS__NR] = {
		[FGT_WALKS_CALLS] = "calls", [FGT_WALKS_INLINE] = "inline",
		[FGT_WALKS_GAPS] = "gaps", [FGT_WALKS_ONE] = "one",
		[FGT_WALKS_UNSEEN] = "not_observable",
	};

	return walks < FGT_WALKS__NR ? names[walks] : NULL;
}
