// SPDX-License-Identifier: GPL-2.0
/*
 * The unfixed shadow-stack walk as a function of where the threads lacking a
 * stack sit in the task list (see exposure_model.h), and its cost in seconds. Pure:
 * no kernel, no I/O; tests/model/test_exposure_model.c.
 *
 * The kernel's loop (kernel/trace/fgraph.c, unfixed):
 *
 *	for_each_process_thread(g, t) {
 *		if (start == end) { ret = -EAGAIN; goto unlock; }
 *		if (t->ret_stack == NULL) t->ret_stack = ret_stack_list[start++];
 *	}
 *
 * A visit is one iteration. Sweep k ends at the iteration after the thread
 * that took the 32k-th stack, p(32k) + 1 visits, unless that thread is the
 * last of the list: then the loop ends as it would anyway, with ret 0. The
 * sweep that finds fewer than 32 walks all T threads and ends the activation.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <string.h>
#include "model/exposure_model.h"

void fgt_exp_walk_init(struct fgt_exp_walk *w)
{
	memset(w, 0, sizeof(*w));
}

void fgt_exp_walk_step(struct fgt_exp_walk *w, bool lacking)
{
	/* a thread after a full batch: that sweep stopped here, with -EAGAIN */
	if (w->pending) {
		w->visits += w->pending + 1;
		w->sweeps++;
		w->pending = 0;
	}
	w->threads++;
	if (!lacking && !w->lacking)
		w->held_ahead++;
	if (lacking && ++w->lacking % FGT_RETSTACK_BATCH == 0)
		w->pending = w->threads;
}

void fgt_exp_walk_end(struct fgt_exp_walk *w)
{
	/* a batch that ran out on the last thread ended normally: the final
	 * sweep, counted here like any other */
	w->pending = 0;
	w->visits += w->threads;
	w->sweeps++;
}

void fgt_exp_walk_lacking_first(uint64_t threads, uint64_t lacking, struct fgt_exp_walk *w)
{
	uint64_t b = FGT_RETSTACK_BATCH, m;

	if (lacking > threads)
		lacking = threads;
	fgt_exp_walk_init(w);
	w->threads = threads;
	w->lacking = lacking;
	/* full batches that end before the last thread: sweep k, 32k + 1 visits */
	m = lacking / b;
	if (m && m * b == threads)
		m--;
	w->sweeps = m + 1;
	w->visits = b * m * (m + 1) / 2 + m + threads;
}

/* Task-list order: processes by creation (the leader's start time), then each
 * process's threads by creation. IDs break ties between same-nanosecond forks. */
static int rec_cmp(const void *pa, const void *pb)
{
	const struct fgt_exp_rec *a = pa, *b = pb;

	if (a->leader_start_ns != b->leader_start_ns)
		return a->leader_start_ns < b->leader_start_ns ? -1 : 1;
	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

void fgt_exp_walk_from_records(struct fgt_exp_rec *recs, size_t n, struct fgt_exp_walk *w)
{
	size_t i;

	if (n)
		qsort(recs, n, sizeof(*recs), rec_cmp);
	fgt_exp_walk_init(w);
	for (i = 0; i < n; i++)
		fgt_exp_walk_step(w, recs[i].lacking);
	fgt_exp_walk_end(w);
}

static int key_cmp(const void *pa, const void *pb)
{
	const struct fgt_exp_key *a = pa, *b = pb;

	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

int fgt_exp_owed_take(struct fgt_exp_owed *o, const struct fgt_exp_rec *recs, size_t n)
{
	size_t i, m = 0;

	o->k = NULL;
	o->n = 0;
	for (i = 0; i < n; i++)
		m += recs[i].lacking != 0;
	if (!m)
		return 0;
	o->k = calloc(m, sizeof(*o->k));
	if (!o->k)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (recs[i].lacking)
			o->k[o->n++] = (struct fgt_exp_key){ recs[i].start_ns, recs[i].tid };
	qsort(o->k, o->n, sizeof(*o->k), key_cmp);
	return 0;
}

uint64_t fgt_exp_owed_lacking(const struct fgt_exp_owed *o, const struct fgt_exp_rec *recs,
			      size_t n)
{
	uint64_t still = 0;
	uint8_t *hit;
	size_t i;

	if (!o->n)
		return 0;
	/* each owed thread once: the iterator yields a task once a pass, and
	 * records that say otherwise (BPF's, read as hostile) count once */
	hit = calloc(o->n, 1);
	for (i = 0; i < n; i++) {
		struct fgt_exp_key key = { recs[i].start_ns, recs[i].tid };
		const struct fgt_exp_key *k;

		if (!recs[i].lacking)
			continue;
		k = bsearch(&key, o->k, o->n, sizeof(key), key_cmp);
		if (!k || (hit && hit[k - o->k]))
			continue;
		if (hit)
			hit[k - o->k] = 1;
		still++;
	}
	free(hit);
	/* with no memory for the marks, at most every owed thread */
	return still < o->n ? still : o->n;
}

void fgt_exp_owed_free(struct fgt_exp_owed *o)
{
	free(o->k);
	o->k = NULL;
	o->n = 0;
}

const char *fgt_exp_cost_src_name(enum fgt_exp_cost_src src)
{
	return src == FGT_EXP_COST_OBSERVED ? "observed" : "default";
}

/* Only an unfixed walk (several sweeps) of some length measures the visit:
 * a fixed kernel's single sweep allocates inline as it goes. */
static bool calib_usable(const struct fgt_exp_calib *c)
{
	return c && c->sweeps >= 2 && c->visits >= FGT_EXP_CALIB_MIN_VISITS && c->walk_ns > 0;
}

int fgt_exp_estimate(const struct fgt_exp_walk *w, const struct fgt_exp_calib *calib,
		      struct fgt_exp_estimate *out)
{
	if (!w || !out)
		return -EINVAL;
	if (calib_usable(calib)) {
		out->ns_per_visit = (double)calib->walk_ns / (double)calib->visits;
		out->src = FGT_EXP_COST_OBSERVED;
		out->calib_visits = calib->visits;
	} else {
		out->ns_per_visit = FGT_EXP_VISIT_NS_DEFAULT;
		out->src = FGT_EXP_COST_DEFAULT;
		out->calib_visits = 0;
	}
	out->seconds = (double)w->visits * out->ns_per_visit / 1e9;
	return 0;
}

int fgt_exp_estimate_text(const struct fgt_exp_walk *w, const struct fgt_exp_estimate *e,
			   char *buf, size_t len)
{
	return snprintf(buf, len, "%llu sweeps, %llu thread visits, about %.3g s at %.1f ns a "
			"visit (%s)", (unsigned long long)w->sweeps,
			(unsigned long long)w->visits, e->seconds, e->ns_per_visit,
			e->src == FGT_EXP_COST_OBSERVED ? "observed on this host" :
			"the series' figure");
}

void fgt_exp_live_scan(struct fgt_exp_live *l, const struct fgt_exp_walk *w, uint64_t ns,
		       bool busy)
{
	l->known = true;
	l->now = *w;
	l->now_ns = ns;
	if (busy)
		return;
	l->prev_known = l->idle_known;
	l->prev = l->idle;
	l->prev_ns = l->idle_ns;
	l->idle_known = true;
	l->idle = *w;
	l->idle_ns = ns;
}

void fgt_exp_live_activation(struct fgt_exp_live *l, uint64_t begin_ns, uint64_t sweeps,
			     uint64_t walk_ns, uint64_t nr_threads, uint64_t served)
{
	struct fgt_exp_calib c = { .sweeps = sweeps, .walk_ns = walk_ns };
	struct fgt_exp_walk w;

	/* an idle scan between the previous activation and this one saw the
	 * threads this one walked; the last one called idle may have been
	 * taken after it began (the lab: 17,975 visits priced where the scan
	 * before had 17,976), then the one before it did */
	if (l->idle_known && l->idle_ns < begin_ns && l->idle_ns > l->last_begin_ns) {
		c.visits = l->idle.visits;
	} else if (l->prev_known && l->prev_ns < begin_ns && l->prev_ns > l->last_begin_ns) {
		c.visits = l->prev.visits;
	} else {
		/* no scan before it: the fewest visits it can have made */
		fgt_exp_walk_lacking_first(nr_threads, served, &w);
		c.visits = w.visits;
	}
	l->last_begin_ns = begin_ns;
	if (!calib_usable(&c))
		return;	/* a fixed kernel's, or too short to time a visit */
	l->calib = c;
	l->calib_ns = begin_ns;
}

int fgt_exp_live_estimate(const struct fgt_exp_live *l, struct fgt_exp_estimate *e)
{
	if (!l->known)
		return -ENODATA;
	return fgt_exp_estimate(&l->now, l->calib_ns ? &l->calib : NULL, e);
}
