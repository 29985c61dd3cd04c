// SPDX-License-Identifier: GPL-2.0
/* The activation under way: see progress.h. */
#include <string.h>
#include "model/progress.h"
#include "common/clock.h"

/* An estimate needs this many finished sweeps (a slope needs two points). */
#define FIT_NEED	2
/* A degraded walk's high end needs 1/this of the threads served (eta_degraded()). */
#define FGT_DEGRADED_SPAN	3

/* The pace is measured over this many stretches of the time seen (pace()). */
#define FGT_STRETCHES	30
/* and each stretch has at least this many (a ratio of one sweep is noise) */
#define FGT_STRETCH_MIN	4

static uint64_t sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* Sweep i's duration: to the next sweep's begin (its end when it is the last). */
static double sweep_ns(const struct fgt_activation *act, uint32_t i)
{
	return (double)sub(act->sweeps[i + 1].begin_ns, act->sweeps[i].begin_ns);
}

/*
 * Sweep i's duration is known: it and the next one were seen. A live view's
 * sweeps come from a drain (src/model/agg_collect.c) and the latest finished ones
 * may not have come yet: they are zero, and left out.
 */
static bool known(const struct fgt_activation *act, uint32_t i)
{
	return act->sweeps[i].begin_ns && act->sweeps[i + 1].begin_ns;
}

/* Least squares of the known sweep durations over sweeps [from, to): d = a + b*k,
 * b >= 0. Returns how many there were. */
static uint32_t fit(const struct fgt_activation *act, uint32_t from, uint32_t to,
		    double *a, double *b)
{
	double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, den;

	*a = *b = 0;
	for (uint32_t k = from; k < to; k++) {
		double y;

		if (!known(act, k))
			continue;
		y = sweep_ns(act, k);
		n++;
		sx += k;
		sy += y;
		sxx += (double)k * k;
		sxy += k * y;
	}
	den = n * sxx - sx * sx;
	*b = den > 0 ? (n * sxy - sx * sy) / den : 0;
	/* a sweep never walks less than the one before it did */
	if (*b < 0)
		*b = 0;
	if (n > 0)
		*a = (sy - *b * sx) / n;
	return (uint32_t)n;
}

/*
 * Unfixed: the sweeps after the one under way, ceil(lacking / 32) with the
 * one under way counted as handing out its whole batch (its allocations may
 * not all have been seen yet).
 */
static uint64_t to_come(const struct fgt_activation *act, uint64_t threads)
{
	const struct fgt_sweep *open = &act->sweeps[act->nr_sweeps - 1];
	uint64_t before = act->served - open->served;

	return (sub(threads, before + FGT_RETSTACK_BATCH) + FGT_RETSTACK_BATCH - 1) /
	       FGT_RETSTACK_BATCH;
}

/* The fit's time for sweeps [from, to): sum of a + b*k (in doubles: the
 * sweeps to come follow nr_threads, which BPF gives). */
static double fit_sum(double from, double to, double a, double b)
{
	double n = to - from;

	return n * a + b * (from + to - 1) * n / 2;
}

/*
 * The pace of sweeps [from, done), as multiples of the fit: each stretch of
 * 1/FGT_STRETCHES of their time on the fit (at least FGT_STRETCH_MIN sweeps;
 * the last takes a short rest) over what a + b*k gives it, the smallest and
 * the largest. Stretches of equal time, not of equal sweeps: a hiccup of the
 * host costs the same time early or late, and against the first sweeps' few
 * microseconds it would read as a pace 100x slower. Fine stretches, because
 * the pace to come is as often a short stretch's as a long one's: with
 * tenths or twentieths, recorded walks of the lab that sped up or slowed
 * down under a loaded host ended outside.
 *
 * The time is measured from one sweep's begin to the next begin known, so
 * sweeps not drained yet (a live view's, zero: known()) count too, as one
 * span from the last begin before them to the next one, the open sweep's
 * at the latest. The fit cannot see them, but their time is the freshest
 * pace there is: CI's lab-fixed at 116 sweeps had its last 30 in flight,
 * slower 4x than those drained, and a high end from the drained alone said
 * 1.95 s with 4.71 s left (tests/data/lab-fixed-30k-starved-ci2; their
 * span raises it to 3.03 s in the replay, and the live view now drains
 * before it draws: src/watch/snapshot.c current()).
 */
static void pace(const struct fgt_activation *act, uint32_t from, uint32_t done, double a,
		 double b, double *lo, double *hi)
{
	double total, cum = 0, took = 0, want = 0, w, r;
	uint32_t j, prev, first, last, n = 0;
	bool any = false;

	*lo = *hi = 1;
	for (first = from; first < done && !act->sweeps[first].begin_ns; first++)
		;
	for (last = done; last > first && !act->sweeps[last].begin_ns; last--)
		;
	if (last <= first)
		return;
	total = fit_sum(first, last, a, b);
	for (prev = first, j = first + 1; j <= last; j++) {
		if (!act->sweeps[j].begin_ns)
			continue;
		took += (double)sub(act->sweeps[j].begin_ns, act->sweeps[prev].begin_ns);
		w = fit_sum(prev, j, a, b);
		want += w;
		cum += w;
		n += j - prev;
		prev = j;
		/* a stretch ends at a thirtieth; the last takes a short rest */
		if (j < last && (n < FGT_STRETCH_MIN || want < total / FGT_STRETCHES ||
				 total - cum < total / (2 * FGT_STRETCHES)))
			continue;
		if (want > 0) {
			r = took / want;
			if (!any || r < *lo)
				*lo = r;
			if (!any || r > *hi)
				*hi = r;
			any = true;
		}
		took = want = 0;
		n = 0;
	}
}

/*
 * Unfixed: the sweep under way and those to come, each a + b*k, at the
 * fastest and the slowest pace seen.
 */
static void eta_unfixed(const struct fgt_activation *act, struct fgt_progress *p)
{
	uint32_t done = act->nr_sweeps - 1;
	double a, b, left, lo, hi;
	uint64_t at;

	if (done < FIT_NEED)
		return;
	/* the shape from every sweep seen: a fit over the recent half follows
	 * a slow stretch (the host's, not the walk's) and overshoots 2x */
	if (fit(act, 0, done, &a, &b) < FIT_NEED)
		return;
	pace(act, 0, done, a, b, &lo, &hi);
	/* the sweep under way and those to come */
	left = fit_sum(done, (double)done + 1 + p->sweeps_to_come, a, b);
	if (left < 0)
		left = 0;
	at = act->sweeps[done].begin_ns;
	p->end_ns = fgt_ns_after(at, left * lo);
	p->end_high_ns = fgt_ns_after(at, left * hi);
	p->fit_sweeps = done;
	p->eta_known = true;
}

/*
 * A fixed kernel's sweep hands out a reserve stack for each inline
 * allocation that fails, up to its reserve (then -EAGAIN): those it has not
 * handed out yet.
 */
static uint64_t reserve_handed(const struct fgt_sweep *s)
{
	return s->failed_nonblocking < s->batch ? s->failed_nonblocking : s->batch;
}

static uint64_t reserve_left(const struct fgt_sweep *s)
{
	return s->batch - reserve_handed(s);
}

/*
 * The least time a finished sweep took per thread it served: the cost of a
 * thread served, walk and allocation, at its cheapest. A later sweep's time
 * also holds its reserve and a walk over the threads already served, so it
 * is never below its own allocations' cost. Not the first sweep's alone: on
 * CI's loaded host lab-fixed's first sweep took 271 us a thread and the
 * later ones 35 to 60 (tests/data/lab-fixed-30k-starved-ci.sweeps), and a
 * low end at the first one's rate stood above the time left. 0 when no
 * finished sweep served any.
 */
static double cheapest_served(const struct fgt_activation *act)
{
	double per, best = 0;

	for (uint32_t k = 0; k + 1 < act->nr_sweeps; k++) {
		const struct fgt_sweep *s = &act->sweeps[k];

		if (!s->served || !s->begin_ns || s->end_ns <= s->begin_ns)
			continue;
		per = (double)(s->end_ns - s->begin_ns) / s->served;
		if (!best || per < best)
			best = per;
	}
	return best;
}

/*
 * Fixed: one walk, an inline allocation per thread lacking a stack, at the
 * rate of the first sweep. Under memory pressure the fixed code walks again
 * (a reserve used up: -EAGAIN), and a later sweep's rate so far holds its
 * reserve and a walk over the threads already served, not allocations: the
 * finished sweeps' cheapest rate (served per time) stays the measure, and
 * the walks over served threads still to come are not foreseen here
 * (eta_degraded() does, once there are enough of them).
 */
static void eta_fixed(const struct fgt_activation *act, struct fgt_progress *p)
{
	const struct fgt_sweep *s = &act->sweeps[act->nr_sweeps - 1];
	uint64_t inl = s->nonblocking + s->failed_nonblocking;
	double per = cheapest_served(act);

	if (per > 0) {
		/* the reserve in hand serves as many for a walk's cost: at
		 * lab-fixed-plus's last sweep (16,384 stacks, allocated before
		 * its walk) a low end over every thread lacking stood above the
		 * time left (tests/data/lab-fixed-plus-30k-starved-ci.sweeps) */
		p->end_ns = fgt_ns_after(act->last_ns, per * sub(p->lacking, reserve_left(s)));
		p->fit_sweeps = 1;
		p->eta_known = true;
		return;
	}
	if (!inl || act->last_ns <= s->begin_ns)
		return;
	per = (double)(act->last_ns - s->begin_ns) / inl;
	p->end_ns = fgt_ns_after(act->last_ns, per * p->lacking);
	p->fit_sweeps = 1;
	p->eta_known = true;
}

/*
 * The median of what the drained sweeps in [from, to) served, from a count
 * of each value (those of FGT_MEDIAN_CAP or more counted together: a sweep
 * in which kswapd caught up): 0 when none was drained.
 */
#define FGT_MEDIAN_CAP	1024

static uint64_t median_served(const struct fgt_activation *act, uint32_t from, uint32_t to)
{
	uint32_t count[FGT_MEDIAN_CAP + 1] = { 0 }, seen = 0, k, v, cum = 0;

	for (k = from; k < to; k++) {
		if (!act->sweeps[k].begin_ns)
			continue;
		v = act->sweeps[k].served;
		count[v < FGT_MEDIAN_CAP ? v : FGT_MEDIAN_CAP]++;
		seen++;
	}
	for (v = 0; seen && v <= FGT_MEDIAN_CAP; v++) {
		cum += count[v];
		if (2 * (uint64_t)cum >= seen)
			return v;
	}
	return 0;
}

/*
 * The most the walks again can still take, whatever their fit, while they
 * serve as many a sweep and go at the pace they have (the same time per
 * thread visited): each walks again over every thread served before it, so
 * with s served since the first sweep their time is at most c * s^2 (a cost
 * per sweep of its own, its reserve and its failures, only makes it less
 * convex), and to S it is at most (S / s)^2 times the time so far. A fit
 * over noisy sweeps (a host's hiccup early on) can flatten a + b*k's slope
 * and fall short of it: make test-lab-pressure on a quiet host at bc8fb21,
 * 214 sweeps, 17,610 of 30,051 served in 0.6 s, drew 0.75 s as its high
 * end, with 1.25 s left (issue 38): reckoned from the figures it printed
 * (the walk itself unrecorded), this bound says about 1.2 s there.
 * 0 when the sweeps since the first are not all known.
 */
static double walked_again_bound(const struct fgt_activation *act, uint64_t threads,
				 uint64_t before)
{
	const struct fgt_sweep *first = &act->sweeps[0], *second = &act->sweeps[1];
	const struct fgt_sweep *open = &act->sweeps[act->nr_sweeps - 1];
	double s, all, took;

	/* a reserve that grows (lab-fixed-plus) serves more each sweep: fewer
	 * walks again than this counts, a bound too loose to say */
	if (!second->begin_ns || open->begin_ns <= second->begin_ns || before <= first->served ||
	    open->batch != second->batch)
		return 0;
	s = (double)(before - first->served);
	all = (double)sub(threads, first->served);
	took = (double)(open->begin_ns - second->begin_ns);
	return all > s ? took * ((all / s) * (all / s) - 1) : 0;
}

/*
 * Fixed, walking again under memory pressure: a range. Its low end is
 * eta_fixed()'s point, as if no allocation failed any more. Its high end, as
 * if they kept failing as they have since the first sweep: each sweep to
 * come serves what those served in the median and walks again over every
 * thread served before it, so the later sweeps cost a + b*k as unfixed ones
 * do (fitted from the second sweep on: the first is the one long inline
 * walk), at the slowest pace they have shown. The median: a sweep in which
 * kswapd caught up serves hundreds or thousands, and on lab-fixed's
 * recorded walks the last sweep's count made the range collapse below the
 * time left, the average put the end up to 11 % past the high end, and the
 * fewest doubled the range's width. A pressure that eases ends in between,
 * and so does a reserve that grows (lab-fixed-plus: each sweep serves more
 * than the last).
 * Under the series' persistent pressure every sweep after the first serves
 * its 32 reserve stacks and a few inline ones, and the walk is quadratic
 * again (docs/bench/results.md, memory pressure): the high end is its end.
 * The fit's end is the high end unless walked_again_bound() stands above
 * it: as the live view sees the lab's walks (up to 15 sweeps not drained),
 * the fit alone fell short of the time left at 4 of 467 checkpoints
 * (tests/model/test_progress.c), and twice live on issue 38's runs.
 */
static void eta_degraded(const struct fgt_activation *act, struct fgt_progress *p)
{
	uint32_t done = act->nr_sweeps - 1;
	const struct fgt_sweep *open = &act->sweeps[done];
	uint64_t per, before, n;
	double a, b, lo, hi, left, quad;

	if (done < 1 + FIT_NEED)
		return;
	per = median_served(act, 1, done);
	if (!per || fit(act, 1, done, &a, &b) < FIT_NEED)
		return;
	before = sub(act->served, open->served);
	p->fit_sweeps = done;
	p->degraded = true;
	/* a line through the walks again over less than a third of the
	 * threads, carried to their end, fell short of it on CI's loaded
	 * host (tests/data/lab-fixed-30k-starved-ci2 at 88 sweeps, 25 %
	 * served: 2.87 s said, 4.97 s left); the low end stands alone */
	if (before < p->threads / FGT_DEGRADED_SPAN) {
		p->high_open = true;
		return;
	}
	pace(act, 1, done, a, b, &lo, &hi);
	/* the sweeps after the one under way, which counts as serving per */
	n = (sub(p->threads, before + per) + per - 1) / per;
	left = (n + 1) * a + b * (2.0 * done + n) * (n + 1) / 2;
	if (left < 0)
		left = 0;
	left *= hi;
	quad = walked_again_bound(act, p->threads, before);
	p->end_high_ns = fgt_ns_after(open->begin_ns, left > quad ? left : quad);
}

const char *fgt_u_src_name(enum fgt_u_src s)
{
	switch (s) {
	case FGT_U_NR_THREADS:	return "nr_threads";
	case FGT_U_EXPOSURE:	return "exposure";
	case FGT_U_NOW:		return "threads_now";
	default:		return "none";
	}
}

/* U: an exposure count if there is one, else nr_threads at the start, else now. */
static void u_of(const struct fgt_activation *act, int64_t lacking_at_start,
		 uint64_t threads_now, struct fgt_progress *p)
{
	if (lacking_at_start >= 0) {
		p->u_src = FGT_U_EXPOSURE;
		p->threads = (uint64_t)lacking_at_start;
	} else if (act->nr_threads) {
		p->u_src = FGT_U_NR_THREADS;
		p->threads = act->nr_threads;
	} else if (threads_now) {
		p->u_src = FGT_U_NOW;
		p->threads = threads_now;
	} else {
		p->u_src = FGT_U_NONE;
	}
	p->lacking_exact = p->u_src == FGT_U_EXPOSURE;
}

/*
 * The threads served so far. A sweep's served is its stacks less those it
 * freed (activation.c, bpf/agg.h), exact once it ends; while a fixed
 * kernel's sweep is under way its whole reserve counts, though a reserve
 * stack is handed out only when an inline allocation fails. lab-fixed-plus's
 * 16,384-stack reserve made a live view say 33,601 of 30,048 served. So a
 * fixed kernel's sweep, its reserve's allocation included, counts its inline
 * stacks and one reserve stack per failure, up to the reserve: the same
 * figure once it has ended. An unfixed sweep's batch counts in full
 * (progress.h).
 */
static uint64_t served_now(const struct fgt_activation *act)
{
	const struct fgt_sweep *s;
	uint64_t want;

	if (!act->nr_sweeps || fgt_verdict_so_far(act) != FGT_VERDICT_FIXED)
		return act->served;
	s = &act->sweeps[act->nr_sweeps - 1];
	want = (uint64_t)s->nonblocking + reserve_handed(s);
	return want < s->served ? act->served - s->served + want : act->served;
}

void fgt_progress_of(const struct fgt_activation *act, uint64_t now_ns,
		     int64_t lacking_at_start, uint64_t threads_now, struct fgt_progress *p)
{
	memset(p, 0, sizeof(*p));
	p->seq = act->seq;
	p->src = act->src;
	p->pid = act->pid;
	p->tid = act->tid;
	memcpy(p->comm, act->comm, sizeof(p->comm));
	p->comm[sizeof(p->comm) - 1] = '\0';
	p->begin_ns = act->begin_ns;
	p->elapsed_ns = sub(now_ns, act->begin_ns);
	p->data_age_ns = sub(now_ns, act->last_ns);
	u_of(act, lacking_at_start, threads_now, p);
	p->served = served_now(act);
	p->lacking = sub(p->threads, p->served);
	p->sweeps = fgt_activation_walks_now(act);
	p->lost = act->lost;
	p->so_far = fgt_verdict_so_far(act);
	if (!act->nr_sweeps || p->u_src == FGT_U_NONE)
		return;
	if (p->so_far == FGT_VERDICT_NOT_FIXED) {
		p->to_come_known = true;
		p->sweeps_to_come = to_come(act, p->threads);
		eta_unfixed(act, p);
	} else if (p->so_far == FGT_VERDICT_FIXED) {
		eta_fixed(act, p);
		if (p->eta_known)
			eta_degraded(act, p);
	}
	if (!p->eta_known)
		return;
	/* a fixed kernel's estimate is a point (its high end is its low)
	 * unless it walks again (eta_degraded()) */
	if (p->end_high_ns < p->end_ns)
		p->end_high_ns = p->end_ns;
	p->eta_ns = sub(p->end_ns, now_ns);
	p->eta_high_ns = sub(p->end_high_ns, now_ns);
}

int64_t fgt_progress_lacking_at_start(uint64_t scan_lacking, uint64_t scan_threads,
				      uint64_t act_threads)
{
	uint64_t u = scan_lacking + sub(act_threads, scan_threads);

	return (int64_t)(u < act_threads ? u : act_threads);
}

unsigned int fgt_progress_percent(const struct fgt_progress *p)
{
	if (!p->threads)
		return 0;
	return p->served >= p->threads ? 100 : (unsigned int)(p->served * 100 / p->threads);
}
