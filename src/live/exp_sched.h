/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live tool's exposure scheduler (src/live/exp_sched.c): the exposure,
 * rescanned as the view goes. A task-iterator pass costs about the same per
 * thread as the kernel's walk visits one, so the next pass waits
 * FGT_EXP_DUTY times as long as the last took (and at least an interval):
 * at most 1 % of one CPU. Never while an activation is under way: its walk
 * is what the view times, and the scan is for the next one. Right after
 * one: the last count is then out of date.
 */
#ifndef FGT_EXP_SCHED_H
#define FGT_EXP_SCHED_H

#include <stdint.h>
#include "watch/session.h"

struct fgt_exp_sched {
	struct fgt_exposure *e;		/* NULL: not measured */
	uint64_t next_ns;
	unsigned int acts;		/* activations finished at the last pass */
};

/* The session's iterator, loaded with its programs (s->want_exposure). */
void fgt_exp_sched_open(struct fgt_session *s, struct fgt_exp_sched *x);
/* A pass now if one is due at t (monotonic ns), none while an activation
 * is under way. */
void fgt_exp_sched_tick(struct fgt_session *s, struct fgt_exp_sched *x, uint64_t t,
			uint64_t interval_ns);

#endif
