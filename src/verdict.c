// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict from activation records alone. What tells the kernels apart:
 *  - the fixed alloc_retstack_tasklist() tries a non-blocking (GFP_NOWAIT)
 *    allocation for every thread lacking a stack, during the walk;
 *  - the unfixed one never allocates non-blocking: each sweep is a blocking
 *    (GFP_KERNEL) batch of 32 handed out during the walk.
 * So a sweep-path non-blocking allocation means fixed, and threads served with
 * none attempted means not fixed, even for a single sweep of <= 32 threads.
 * With no thread lacking a stack both kernels do the same thing: inconclusive.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "verdict.h"

#define FGT_BATCH 32

const char *fgt_verdict_name(enum fgt_verdict v)
{
	switch (v) {
	case FGT_VERDICT_FIXED:		return "fixed";
	case FGT_VERDICT_NOT_FIXED:	return "not_fixed";
	case FGT_VERDICT_NOT_AFFECTED:	return "not_affected";
	default:			return "inconclusive";
	}
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* "; 3 events lost" when the figures are a lower bound. */
static void lost_note(const struct fgt_activation *act, char *buf, size_t len)
{
	size_t used = strnlen(buf, len);

	if (act->lost && used < len)
		snprintf(buf + used, len - used, "; %" PRIu64 " events lost, figures are a lower bound",
			 act->lost);
}

static uint32_t max_batch(const struct fgt_activation *act)
{
	uint32_t i, m = 0;

	for (i = 0; i < act->nr_sweeps; i++)
		if (act->sweeps[i].batch + act->sweeps[i].failed_blocking > m)
			m = act->sweeps[i].batch + act->sweeps[i].failed_blocking;
	return m;
}

static enum fgt_verdict fixed(const struct fgt_activation *act, char *buf, size_t len)
{
	uint64_t reserve = act->served > act->nonblocking ? act->served - act->nonblocking : 0;

	if (act->nr_sweeps == 1)
		snprintf(buf, len, "one sweep served %" PRIu64 " %s with non-blocking allocations",
			 act->served, plural(act->served, "thread", "threads"));
	else
		snprintf(buf, len, "%u sweeps served %" PRIu64 " %s with non-blocking allocations",
			 act->nr_sweeps, act->served, plural(act->served, "thread", "threads"));
	snprintf(buf + strnlen(buf, len), len - strnlen(buf, len),
		 " (%" PRIu64 " non-blocking, %" PRIu64 " from the reserve, %" PRIu64 " failed)",
		 act->nonblocking, reserve, act->failed_nonblocking + act->failed_blocking);
	return FGT_VERDICT_FIXED;
}

static enum fgt_verdict not_fixed(const struct fgt_activation *act, char *buf, size_t len)
{
	if (act->nr_sweeps == 1)
		snprintf(buf, len, "one sweep served %" PRIu64 " %s from a GFP_KERNEL batch of %u "
			 "with no non-blocking allocation attempted: the unfixed code",
			 act->served, plural(act->served, "thread", "threads"), max_batch(act));
	else
		snprintf(buf, len, "%u sweeps, each a GFP_KERNEL batch of at most %u, served %"
			 PRIu64 " %s", act->nr_sweeps, FGT_BATCH, act->served,
			 plural(act->served, "thread", "threads"));
	return FGT_VERDICT_NOT_FIXED;
}

enum fgt_verdict fgt_verdict_of(const struct fgt_activation *act, char *buf, size_t len)
{
	enum fgt_verdict v;
	char dummy[8];

	if (!buf || !len) {
		buf = dummy;
		len = sizeof(dummy);
	}
	buf[0] = '\0';
	if (!act->complete) {
		snprintf(buf, len, "activation %u incomplete (%s): its sweeps were not all seen",
			 act->seq, act->implicit ? "fgraphtop started during it" : "its end was not seen");
		return FGT_VERDICT_INCONCLUSIVE;
	}
	if (!act->served) {
		snprintf(buf, len, "%u %s served no thread: no thread lacked a shadow stack, "
			 "fixed and unfixed kernels behave alike", act->nr_sweeps,
			 plural(act->nr_sweeps, "sweep", "sweeps"));
		return FGT_VERDICT_INCONCLUSIVE;
	}
	if (act->nonblocking || act->failed_nonblocking)
		v = fixed(act, buf, len);
	else if (max_batch(act) <= FGT_BATCH)
		v = not_fixed(act, buf, len);
	else {
		snprintf(buf, len, "a sweep made %u blocking allocations and none non-blocking: "
			 "neither the fixed nor the unfixed code does that", max_batch(act));
		v = FGT_VERDICT_INCONCLUSIVE;
	}
	lost_note(act, buf, len);
	return v;
}

void fgt_judge_init(struct fgt_judge *j)
{
	memset(j, 0, sizeof(*j));
	j->verdict = FGT_VERDICT_INCONCLUSIVE;
	snprintf(j->evidence, sizeof(j->evidence), "no activation seen: nothing to judge "
		 "(an activation is the function graph tracer's 0 -> 1 step)");
}

/* Quote the activation that decides, preferring the one that served the most threads. */
static void quote(struct fgt_judge *j, const struct fgt_activation *act, const char *ev)
{
	if (j->best_served && act->served <= j->best_served)
		return;
	j->best_served = act->served ? act->served : 1;
	snprintf(j->evidence, sizeof(j->evidence), "%s", ev);
}

static void add_conflict_note(struct fgt_judge *j)
{
	size_t used = strnlen(j->evidence, sizeof(j->evidence));

	if (j->verdict == FGT_VERDICT_NOT_FIXED && j->n_fixed)
		snprintf(j->evidence + used, sizeof(j->evidence) - used,
			 " (conflicting: %u %s looked fixed)", j->n_fixed,
			 plural(j->n_fixed, "activation", "activations"));
}

void fgt_judge_add(struct fgt_judge *j, const struct fgt_activation *act)
{
	char ev[sizeof(j->evidence)];
	enum fgt_verdict v = fgt_verdict_of(act, ev, sizeof(ev));
	enum fgt_verdict before = j->verdict;

	j->failures += act->failed_blocking + act->failed_nonblocking;
	switch (v) {
	case FGT_VERDICT_NOT_FIXED:
		j->n_not_fixed++;
		if (before != FGT_VERDICT_NOT_FIXED)
			j->best_served = 0;	/* the first decisive kind: quote it */
		j->verdict = FGT_VERDICT_NOT_FIXED;
		quote(j, act, ev);
		break;
	case FGT_VERDICT_FIXED:
		j->n_fixed++;
		if (before == FGT_VERDICT_NOT_FIXED)
			break;
		if (before != FGT_VERDICT_FIXED)
			j->best_served = 0;
		j->verdict = FGT_VERDICT_FIXED;
		quote(j, act, ev);
		break;
	default:
		j->n_inconclusive++;
		if (before == FGT_VERDICT_INCONCLUSIVE)
			snprintf(j->evidence, sizeof(j->evidence), "%s", ev);
		break;
	}
	/* evidence is re-quoted above only when it changes; the note is appended once */
	if (j->verdict == FGT_VERDICT_NOT_FIXED && strstr(j->evidence, " (conflicting: ")) {
		*strstr(j->evidence, " (conflicting: ") = '\0';
	}
	add_conflict_note(j);
}
