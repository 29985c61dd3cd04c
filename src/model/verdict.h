/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Does this kernel carry "tracing: fgraph: fix the quadratic shadow stack walk"?
 * Judged from activation records alone. A verdict is a value (what was
 * decided, on which facts); its evidence in words is rendered from it.
 */
#ifndef FGT_VERDICT_H
#define FGT_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include "model/activation.h"

/*
 * The one verdict type: an activation's, the judge's, the code's (the static
 * decoder's) and check's answer all take these values, and their words come
 * from the one table in verdict.c.
 */
enum fgt_verdict {
	FGT_VERDICT_UNKNOWN = 0,	/* nothing tells fixed and unfixed apart */
	FGT_VERDICT_FIXED,
	FGT_VERDICT_NOT_FIXED,
	FGT_VERDICT_NOT_AFFECTED,	/* no function graph tracer in this kernel */
	FGT_VERDICT__NR
};

/* An activation's or the judge's: "fixed", "not_fixed", "inconclusive", "not_affected". */
const char *fgt_verdict_name(enum fgt_verdict v);
/* An answer's (check, the code, the metrics): "unknown" for FGT_VERDICT_UNKNOWN. */
const char *fgt_verdict_answer(enum fgt_verdict v);
/* check's line: "fixed", "not fixed", "not affected", "unknown". */
const char *fgt_verdict_words(enum fgt_verdict v);
/*
 * The one map from an answer to its exit status (src/common/exit_codes.h,
 * the monitoring-plugin convention): OK for fixed and not affected,
 * CRITICAL for not fixed, UNKNOWN otherwise; degraded (failures or losses
 * during the activation) turns an OK into WARNING.
 */
int fgt_verdict_status(enum fgt_verdict v, bool degraded);

/*
 * Why, in the kernel's terms: what the kernel did, its walks and the threads
 * each served (docs/EVENTS.md, "Walks"). not_fixed needs the bug's own
 * signature, walks that restart and serve at most a batch (32) each while
 * threads still lack a stack; fixed needs positive evidence of a linear walk;
 * blocking allocations alone decide neither.
 */
enum fgt_verdict_why {
	FGT_WHY_NOTHING,	/* no activation seen */
	FGT_WHY_INCOMPLETE,	/* its sweeps were not all seen */
	FGT_WHY_NONE_LACKING,	/* no thread lacked a stack: both kernels alike */
	FGT_WHY_NONBLOCKING,	/* the walk allocated inline, non-blocking: fixed */
	FGT_WHY_BATCHES,	/* walks restarting, each serving at most 32: unfixed */
	FGT_WHY_ODD_BATCH,	/* walks restarting that served more than a batch: neither */
	FGT_WHY_UNSEEN,		/* blocking batches, no walk seen between them: the
				 * sweeps are not observable here */
	FGT_WHY_ONE_WALK,	/* one walk (its call seen) served them all, more than a
				 * batch: fixed */
	FGT_WHY_ONE_BATCH,	/* one walk served at most a batch: no restart was
				 * needed, both kernels alike */
};

struct fgt_verdict_val {
	enum fgt_verdict verdict;
	enum fgt_verdict_why why;
	uint32_t seq;			/* the activation's */
	bool joined;			/* INCOMPLETE: fgraphtop started during it */
	uint32_t walks;			/* enum fgt_walks: how the sweeps were seen */
	uint32_t batches;		/* the batches they were cut from (UNSEEN) */
	uint32_t nr_sweeps;
	uint32_t max_batch;		/* blocking allocations of the biggest sweep */
	uint64_t served, nonblocking, reserve, failed;
	/* FIXED, degraded: non-blocking allocations failed (memory under the
	 * watermark, or injected), the reserve served them, and each reserve
	 * used up cost another walk from the start */
	uint64_t failed_nb;
	/* threads the walk left without a stack: non-blocking failures that no
	 * blocking allocation served and no new walk took up again (a single
	 * walk without a reserve) */
	uint64_t left;
	uint32_t extra_sweeps;		/* nr_sweeps - 1 */
	uint64_t extra_ns;		/* the second sweep's begin to the end */
	uint64_t total_ns;		/* the activation's duration */
	uint64_t rewalked;		/* threads the extra sweeps walked past again: those
					 * earlier sweeps served (they come first in the list) */
	uint64_t lost;			/* events lost while it ran: figures are a lower bound */
};

/* Judge one activation (pure). */
void fgt_verdict_judge(const struct fgt_activation *act, struct fgt_verdict_val *v);
/*
 * What an activation under way shows so far, by the same facts (the live
 * view's forecast; the verdict itself waits for the end): FIXED once a
 * sweep-path non-blocking allocation was attempted; NOT_FIXED once walks
 * that restart are seen (direct: a call returned -EAGAIN after serving at
 * most 32; attributed: the gaps between the batches finished hold walks,
 * fgt_walks_in_gaps()); INCONCLUSIVE before either.
 */
enum fgt_verdict fgt_verdict_so_far(const struct fgt_activation *act);
/* The evidence in words, into buf; returns buf. */
const char *fgt_verdict_text(const struct fgt_verdict_val *v, char *buf, size_t len);

/*
 * The kernel's verdict over every activation seen, the only judge: fixed
 * wins only if no activation says not fixed; the activation quoted is the
 * one that decides, preferring the one that served the most threads.
 */
struct fgt_judge {
	enum fgt_verdict verdict;
	unsigned int n, n_fixed, n_not_fixed, n_inconclusive;
	uint64_t failures;		/* failed sweep-path allocations in judged activations:
					 * "fixed but something is wrong" for check's status 1 */
	struct fgt_verdict_val quoted;	/* valid when n > 0 */
};
void fgt_judge_init(struct fgt_judge *j);
/* Count v (act's verdict); true when v is now the one quoted. */
bool fgt_judge_add(struct fgt_judge *j, const struct fgt_verdict_val *v,
		   const struct fgt_activation *act);
/* The quoted evidence, with the conflicts noted; returns buf. */
const char *fgt_judge_text(const struct fgt_judge *j, char *buf, size_t len);

#define FGT_EVIDENCE_LEN	512

#endif
