/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Does this kernel carry "tracing: fgraph: fix the quadratic shadow stack walk"?
 * Judged from activation records alone, with the evidence in words.
 */
#ifndef FGT_VERDICT_H
#define FGT_VERDICT_H

#include <stddef.h>
#include "activation.h"

enum fgt_verdict {
	FGT_VERDICT_INCONCLUSIVE = 0,	/* nothing tells fixed and unfixed apart */
	FGT_VERDICT_FIXED,
	FGT_VERDICT_NOT_FIXED,
	FGT_VERDICT_NOT_AFFECTED,	/* no function graph tracer in this kernel */
};

/* "fixed", "not_fixed", "inconclusive", "not_affected" (check's JSON says "unknown"
 * for inconclusive: that mapping is the caller's). */
const char *fgt_verdict_name(enum fgt_verdict v);

/* Judge one activation; writes the evidence sentence into buf. */
enum fgt_verdict fgt_verdict_of(const struct fgt_activation *act, char *buf, size_t len);

/* Combine per-activation verdicts into the kernel's (fixed wins only if no activation says not fixed). */
struct fgt_judge {
	enum fgt_verdict verdict;
	unsigned int n_fixed, n_not_fixed, n_inconclusive;
	uint64_t failures;	/* failed sweep-path allocations in judged activations:
				 * "fixed but something is wrong" for check's status 1 */
	uint64_t best_served;	/* internal: served by the activation quoted */
	char evidence[320];
};
void fgt_judge_init(struct fgt_judge *j);
void fgt_judge_add(struct fgt_judge *j, const struct fgt_activation *act);

#endif
