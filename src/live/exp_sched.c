// SPDX-License-Identifier: GPL-2.0
/* The live tool's exposure scheduler: see exp_sched.h. */
#include "common/clock.h"
#include "common/log.h"
#include "live/exp_sched.h"
#include "watch/exposure.h"

#define FGT_EXP_DUTY	100

/* The session's iterator, loaded with its programs (s->want_exposure). */
void fgt_exp_sched_open(struct fgt_session *s, struct fgt_exp_sched *x)
{
	char why[256];

	x->e = fgt_session_exposure(s, why, sizeof(why));
	if (!x->e)
		p_warn("no_exposure", "the threads lacking a shadow stack are not counted: %s", why);
}

void fgt_exp_sched_tick(struct fgt_session *s, struct fgt_exp_sched *x, uint64_t t,
			uint64_t interval_ns)
{
	struct fgt_exp_walk w;
	uint64_t t1, wait;
	char why[256];

	if (!x->e || fgt_session_busy(s))
		return;
	/* an activation since the last pass gave its threads stacks: that
	 * count is out of date, count again now */
	if (t < x->next_ns && s->rec.judge.n == x->acts)
		return;
	x->acts = s->rec.judge.n;
	if (fgt_exposure_read(x->e, &w, why, sizeof(why))) {
		p_warn("no_exposure", "counting the threads lacking a shadow stack failed: %s; "
		       "not counted any more", why);
		x->e = NULL;	/* the session's: it closes it */
		return;
	}
	/* stamped when done: an activation that began during the pass is not
	 * one this count came before */
	t1 = fgt_mono_ns();
	fgt_session_set_exposure(s, &w, t1);
	wait = FGT_EXP_DUTY * (t1 - t);
	x->next_ns = t1 + (wait > interval_ns ? wait : interval_ns);
}
