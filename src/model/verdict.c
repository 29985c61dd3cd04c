// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict from activation records alone, by what the kernel did: how many
 * walks of the thread list, and how many threads each served
 * (fgt_activation_settle() counts a walk only where something shows one):
 *  - not fixed: the bug's own signature, walks that restart and serve at most
 *    a batch (32) each while threads still lack a stack, the last one serving
 *    the rest;
 *  - fixed: positive evidence of a linear walk, the walk allocating inline
 *    with a non-blocking gfp (the lab's reading, a single walk without a
 *    reserve, a pinned cursor), or one walk whose call was seen serving every
 *    thread, more than a batch;
 *  - anything else says what was seen: the same single walk of at most 32
 *    threads on both kernels, or blocking batches with no walk seen between
 *    them (the sweeps are not observable on this path: a fix that allocates
 *    every stack with GFP_KERNEL before one walk looks so, and so would the
 *    unfixed code if its walks left no gap). Blocking allocations alone never
 *    decide.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "common/exit_codes.h"
#include "model/verdict.h"

/*
 * The one name table. An activation that cannot tell is "inconclusive" (it
 * was seen, and says nothing); an answer that cannot tell, check's or the
 * code's, is "unknown" (docs/json.md).
 */
static const struct {
	const char *name, *answer, *words;
	int status;
} verdicts[] = {
	[FGT_VERDICT_UNKNOWN]		= { "inconclusive", "unknown", "unknown", FGT_CHECK_UNKNOWN },
	[FGT_VERDICT_FIXED]		= { "fixed", "fixed", "fixed", FGT_CHECK_OK },
	[FGT_VERDICT_NOT_FIXED]		= { "not_fixed", "not_fixed", "not fixed", FGT_CHECK_CRITICAL },
	[FGT_VERDICT_NOT_AFFECTED]	= { "not_affected", "not_affected", "not affected", FGT_CHECK_OK },
};

_Static_assert(sizeof(verdicts) / sizeof(verdicts[0]) == FGT_VERDICT__NR, "a name per verdict");

static unsigned int idx(enum fgt_verdict v)
{
	return (unsigned int)v < FGT_VERDICT__NR ? (unsigned int)v : FGT_VERDICT_UNKNOWN;
}

const char *fgt_verdict_name(enum fgt_verdict v)
{
	return verdicts[idx(v)].name;
}

const char *fgt_verdict_answer(enum fgt_verdict v)
{
	return verdicts[idx(v)].answer;
}

const char *fgt_verdict_words(enum fgt_verdict v)
{
	return verdicts[idx(v)].words;
}

int fgt_verdict_status(enum fgt_verdict v, bool degraded)
{
	int st = verdicts[idx(v)].status;

	return st == FGT_CHECK_OK && degraded ? FGT_CHECK_WARNING : st;
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static uint32_t max_batch(const struct fgt_activation *act)
{
	uint32_t i, m = 0;

	for (i = 0; i < act->nr_sweeps; i++)
		if (act->sweeps[i].batch + act->sweeps[i].failed_blocking > m)
			m = act->sweeps[i].batch + act->sweeps[i].failed_blocking;
	return m;
}

/*
 * The bug's signature in the first n sweeps: each restarted (-EAGAIN: seen
 * on the direct path, else the next batch followed) after serving at most a
 * batch, and no sweep took a bigger batch.
 */
static bool restarts_by_batch(const struct fgt_activation *act, uint32_t n)
{
	uint32_t i;

	if (max_batch(act) > FGT_RETSTACK_BATCH)
		return false;
	for (i = 0; i < n && i + 1 < act->nr_sweeps; i++)
		if (act->sweeps[i].served > FGT_RETSTACK_BATCH ||
		    (act->sweeps[i].ret_known && act->sweeps[i].ret != -EAGAIN))
			return false;
	return true;
}

void fgt_verdict_judge(const struct fgt_activation *act, struct fgt_verdict_val *v)
{
	memset(v, 0, sizeof(*v));
	v->seq = act->seq;
	v->joined = act->joined;
	v->nr_sweeps = act->nr_sweeps;
	v->max_batch = max_batch(act);
	v->served = act->served;
	v->nonblocking = act->nonblocking;
	v->reserve = act->served > act->nonblocking ? act->served - act->nonblocking : 0;
	v->failed = act->failed_nonblocking + act->failed_blocking;
	v->failed_nb = act->failed_nonblocking;
	v->extra_sweeps = act->nr_sweeps > 1 ? act->nr_sweeps - 1 : 0;
	v->total_ns = act->end_ns > act->begin_ns ? act->end_ns - act->begin_ns : 0;
	if (v->extra_sweeps && act->end_ns > act->sweeps[1].begin_ns)
		v->extra_ns = act->end_ns - act->sweeps[1].begin_ns;
	for (uint64_t i = 1, before = 0; i < act->nr_sweeps; i++) {
		before += act->sweeps[i - 1].served;
		v->rewalked += before;
	}
	if (v->failed_nb > v->reserve + v->extra_sweeps)
		v->left = v->failed_nb - v->reserve - v->extra_sweeps;
	v->lost = act->lost;
	v->walks = act->walks;
	v->batches = act->batches;
	v->verdict = FGT_VERDICT_UNKNOWN;
	if (!act->complete)
		v->why = FGT_WHY_INCOMPLETE;
	else if (!act->served)
		v->why = FGT_WHY_NONE_LACKING;
	else if (act->nonblocking || act->failed_nonblocking)
		v->why = FGT_WHY_NONBLOCKING, v->verdict = FGT_VERDICT_FIXED;
	else if (act->walks == FGT_WALKS_UNSEEN || act->walks == FGT_WALKS_NONE)
		v->why = FGT_WHY_UNSEEN;
	else if (act->nr_sweeps == 1 && act->served > FGT_RETSTACK_BATCH)
		v->why = FGT_WHY_ONE_WALK, v->verdict = FGT_VERDICT_FIXED;
	else if (act->nr_sweeps == 1)
		v->why = FGT_WHY_ONE_BATCH;
	else if (restarts_by_batch(act, act->nr_sweeps))
		v->why = FGT_WHY_BATCHES, v->verdict = FGT_VERDICT_NOT_FIXED;
	else
		v->why = FGT_WHY_ODD_BATCH;
}

enum fgt_verdict fgt_verdict_so_far(const struct fgt_activation *act)
{
	uint32_t n = act->nr_sweeps, i;
	bool calls = false;

	if (act->nonblocking || act->failed_nonblocking)
		return FGT_VERDICT_FIXED;
	if (n < 2)
		return FGT_VERDICT_UNKNOWN;
	for (i = 0; i < n; i++)
		calls |= act->sweeps[i].ret_known;
	/* the sweeps finished: all but the one under way */
	if (!restarts_by_batch(act, n - 1))
		return FGT_VERDICT_UNKNOWN;
	if (calls || fgt_walks_in_gaps(act->sweeps, n))
		return FGT_VERDICT_NOT_FIXED;
	return FGT_VERDICT_UNKNOWN;
}

static const char *secs(uint64_t ns, char *b, size_t len)
{
	if (ns >= 1000000000ull)
		snprintf(b, len, "%.3f s", ns / 1e9);
	else
		snprintf(b, len, "%.3f ms", ns / 1e6);
	return b;
}

/*
 * Fixed, but non-blocking allocations failed (memory under the watermark, or
 * injected): blocking allocations served them (the lab's reading: its
 * reserve, and each reserve used up cost a walk from the start again,
 * towards the unfixed code's sweeps; a pinned cursor: one GFP_KERNEL
 * allocation each), or the thread was left without a stack (a single walk
 * without a reserve).
 */
static void degraded_text(const struct fgt_verdict_val *v, char *buf, size_t len)
{
	char a[32], b[32];
	size_t n;

	if (v->extra_sweeps)
		snprintf(buf, len, "1 + %u %s: ", v->extra_sweeps,
			 plural(v->extra_sweeps, "sweep", "sweeps"));
	else
		snprintf(buf, len, "one sweep: ");
	n = strnlen(buf, len);
	snprintf(buf + n, len - n, "%" PRIu64 " non-blocking %s failed under memory pressure",
		 v->failed_nb, plural(v->failed_nb, "allocation", "allocations"));
	n = strnlen(buf, len);
	/* a reserve taken before the walk and a pinned cursor's GFP_KERNEL
	 * fallback both serve a failure blocking; the counts cannot tell them
	 * apart while the failures fit one batch */
	if (!v->left)
		snprintf(buf + n, len - n, ", each served by a blocking allocation");
	else if (v->reserve)
		snprintf(buf + n, len - n, ", %" PRIu64 " served from the reserve, %" PRIu64
			 " %s left without a shadow stack", v->reserve, v->left,
			 plural(v->left, "thread", "threads"));
	else
		snprintf(buf + n, len - n, ", %" PRIu64 " %s left without a shadow stack",
			 v->left, plural(v->left, "thread", "threads"));
	n = strnlen(buf, len);
	if (v->extra_sweeps)
		snprintf(buf + n, len - n, " (the %u extra %s walked again past %" PRIu64
			 " threads already served and took %s of %s)", v->extra_sweeps,
			 plural(v->extra_sweeps, "sweep", "sweeps"), v->rewalked,
			 secs(v->extra_ns, a, sizeof(a)), secs(v->total_ns, b, sizeof(b)));
	n = strnlen(buf, len);
	snprintf(buf + n, len - n, "; %" PRIu64 " %s served (%" PRIu64 " non-blocking, %"
		 PRIu64 " from the reserve, %" PRIu64 " failed)", v->served,
		 plural(v->served, "thread", "threads"), v->nonblocking, v->reserve, v->failed);
}

static void fixed_text(const struct fgt_verdict_val *v, char *buf, size_t len)
{
	if (v->failed_nb) {
		degraded_text(v, buf, len);
		return;
	}
	if (v->nr_sweeps == 1)
		snprintf(buf, len, "one sweep served %" PRIu64 " %s with non-blocking allocations",
			 v->served, plural(v->served, "thread", "threads"));
	else
		snprintf(buf, len, "%u sweeps served %" PRIu64 " %s with non-blocking allocations",
			 v->nr_sweeps, v->served, plural(v->served, "thread", "threads"));
	snprintf(buf + strnlen(buf, len), len - strnlen(buf, len),
		 " (%" PRIu64 " non-blocking, %" PRIu64 " from the reserve, %" PRIu64 " failed)",
		 v->nonblocking, v->reserve, v->failed);
}

/* How the activation's walks were seen (enum fgt_walks). */
static const char *walks_seen(uint32_t walks)
{
	return walks == FGT_WALKS_CALLS ? "each call returned -EAGAIN" :
	       "the gaps between the batches hold them";
}

static void not_fixed_text(const struct fgt_verdict_val *v, char *buf, size_t len)
{
	snprintf(buf, len, "%u sweeps, each a GFP_KERNEL batch of at most %u, served %" PRIu64
		 " %s: the walk restarted per batch (%s)", v->nr_sweeps, FGT_RETSTACK_BATCH,
		 v->served, plural(v->served, "thread", "threads"), walks_seen(v->walks));
}

const char *fgt_verdict_text(const struct fgt_verdict_val *v, char *buf, size_t len)
{
	if (!len)
		return buf;
	buf[0] = '\0';
	switch (v->why) {
	case FGT_WHY_NOTHING:
		snprintf(buf, len, "no activation seen: nothing to judge (an activation is "
			 "the function graph tracer's 0 -> 1 step)");
		return buf;
	case FGT_WHY_INCOMPLETE:
		snprintf(buf, len, "activation %u incomplete (%s): its sweeps were not all seen",
			 v->seq, v->joined ? "fgraphtop started during it" : "its end was not seen");
		return buf;
	case FGT_WHY_NONE_LACKING:
		snprintf(buf, len, "%u %s served no thread: no thread lacked a shadow stack, "
			 "fixed and unfixed kernels behave alike", v->nr_sweeps,
			 plural(v->nr_sweeps, "sweep", "sweeps"));
		return buf;
	case FGT_WHY_NONBLOCKING:
		fixed_text(v, buf, len);
		break;
	case FGT_WHY_BATCHES:
		not_fixed_text(v, buf, len);
		break;
	case FGT_WHY_ODD_BATCH:
		snprintf(buf, len, "%u sweeps restarting, with no non-blocking allocation, one "
			 "serving more than a batch of %u (a batch of up to %u): neither the "
			 "unfixed code's sweeps nor one walk", v->nr_sweeps, FGT_RETSTACK_BATCH,
			 v->max_batch);
		break;
	case FGT_WHY_UNSEEN:
		snprintf(buf, len, "%" PRIu64 " %s served from blocking allocations in %u %s of at "
			 "most %u, with no walk seen between them: the sweeps are not observable "
			 "here (every stack allocated before one walk looks so)", v->served,
			 plural(v->served, "thread", "threads"), v->batches,
			 plural(v->batches, "batch", "batches"), FGT_RETSTACK_BATCH);
		break;
	case FGT_WHY_ONE_WALK:
		snprintf(buf, len, "one walk served all %" PRIu64 " threads from %u blocking "
			 "allocations, with no restart: linear", v->served, v->max_batch);
		break;
	case FGT_WHY_ONE_BATCH:
		snprintf(buf, len, "one walk served %" PRIu64 " %s, at most a batch of %u: no "
			 "restart was needed, fixed and unfixed kernels behave alike", v->served,
			 plural(v->served, "thread", "threads"), FGT_RETSTACK_BATCH);
		break;
	}
	if (v->lost)
		snprintf(buf + strnlen(buf, len), len - strnlen(buf, len),
			 "; %" PRIu64 " events lost, figures are a lower bound", v->lost);
	return buf;
}

void fgt_judge_init(struct fgt_judge *j)
{
	memset(j, 0, sizeof(*j));
	j->verdict = FGT_VERDICT_UNKNOWN;
	j->quoted.why = FGT_WHY_NOTHING;
}

/* Quote v when it decides as strongly: the first of a decisive kind, then
 * the one that served the most threads. */
static bool quote(struct fgt_judge *j, const struct fgt_verdict_val *v, bool fresh)
{
	if (!fresh && v->served <= j->quoted.served)
		return false;
	j->quoted = *v;
	return true;
}

bool fgt_judge_add(struct fgt_judge *j, const struct fgt_verdict_val *v,
		   const struct fgt_activation *act)
{
	enum fgt_verdict before = j->verdict;

	j->n++;
	j->failures += act->failed_blocking + act->failed_nonblocking;
	switch (v->verdict) {
	case FGT_VERDICT_NOT_FIXED:
		j->n_not_fixed++;
		j->verdict = FGT_VERDICT_NOT_FIXED;
		return quote(j, v, before != FGT_VERDICT_NOT_FIXED);
	case FGT_VERDICT_FIXED:
		j->n_fixed++;
		if (before == FGT_VERDICT_NOT_FIXED)
			return false;
		j->verdict = FGT_VERDICT_FIXED;
		return quote(j, v, before != FGT_VERDICT_FIXED);
	default:
		j->n_inconclusive++;
		/* until something decides, the latest says why not */
		return before == FGT_VERDICT_UNKNOWN && quote(j, v, true);
	}
}

const char *fgt_judge_text(const struct fgt_judge *j, char *buf, size_t len)
{
	fgt_verdict_text(&j->quoted, buf, len);
	if (j->verdict == FGT_VERDICT_NOT_FIXED && j->n_fixed)
		snprintf(buf + strnlen(buf, len), len - strnlen(buf, len),
			 " (conflicting: %u %s looked fixed)", j->n_fixed,
			 plural(j->n_fixed, "activation", "activations"));
	return buf;
}
