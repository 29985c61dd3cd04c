// SPDX-License-Identifier: GPL-2.0
/* The session's status snapshot: what the live view shows, what changed,
 * what is under way (src/watch/snapshot.h). */
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "watch/snapshot.h"
#include "watch/session_state.h"
#include "watch/drain.h"
#include "common/clock.h"
#include "fgraphtop.skel.h"
#include "host/host_state.h"
#include "watch/attach.h"
#include "watch/assemble.h"

int fgt_session_graph_active(struct fgt_session *s)
{
	return s->skel ? fgt_attach_graph_active(s->skel) : -1;
}

uint64_t fgt_session_lost(struct fgt_session *s)
{
	return s->skel ? fgt_attach_lost(s->skel) : 0;
}

/* The trigger's way in, from its stack, once per activation. */
static const char *cur_via(struct fgt_session *s, const struct fgt_activation *cur)
{
	uint64_t ips[FGT_MAX_STACK_DEPTH];
	int n;

	if (s->via_seq == cur->seq)
		return s->prog_via;
	s->via_seq = cur->seq;
	s->prog_via[0] = '\0';
	if (cur->stack_id < 0)
		return s->prog_via;
	n = fgt_drain_stack(cur->stack_id, ips, s);
	if (n > 0)
		fgt_record_via(ips, n, s->ks, s->prog_via, sizeof(s->prog_via));
	return s->prog_via;
}

/* The activation's U: an exposure count taken before it began, else -1. */
static int64_t cur_lacking(const struct fgt_session *s, const struct fgt_activation *cur)
{
	const struct fgt_exp_live *l = &s->exp;

	if (!l->idle_known || l->idle_ns >= cur->begin_ns || l->idle_ns <= l->last_begin_ns ||
	    !cur->nr_threads)
		return -1;
	return fgt_progress_lacking_at_start(l->idle.lacking, l->idle.threads,
					     cur->nr_threads);
}

/*
 * The activation under way: BPF's aggregation as it stands (a copy of its
 * state, read here, at the live view's pace: once an interval, and on the
 * screen a redraw every half second during a stall), with the sweeps read
 * from the ring buffer so far; else the assembler's, of sweeps seen without
 * their ACT_BEGIN.
 */
static const struct fgt_activation *current(struct fgt_session *s)
{
	const void *bpf = NULL;

	if (s->skel && s->skel->bss->act_tid) {
		/* the finished sweeps first, read at this same pace: the
		 * estimate of the time left rests on them, and poll's own
		 * drain, a second apart and out of step with this view, left
		 * CI's lab-fixed at 116 sweeps with its latest 30 (4x slower
		 * than the rest) in the ring buffer. An activation that ends
		 * during it leaves a snapshot no longer active: the assembler's */
		if (s->rb)
			fgt_drain(s, fgt_mono_ms());
		bpf = (const void *)&s->skel->bss->hot.agg;
	}
	return fgt_assemble_current(&s->assemble, bpf, s->reported + 1);
}

/* A joined trigger named by its sweeps: its way in from their stack. */
void fgt_snapshot_join_via(struct fgt_session *s, const struct fgt_activation *cur)
{
	struct fgt_join_trigger *t = &s->join.trig;
	const char *via;
	uint64_t ips[FGT_MAX_STACK_DEPTH];
	int n;

	if (!cur || t->via[0] || s->join_stack_id < 0)
		return;
	n = fgt_drain_stack(s->join_stack_id, ips, s);
	if (n <= 0)
		return;
	fgt_record_via(ips, n, s->ks, t->via, sizeof(t->via));
	via = t->via;
	/* "bpf() -> ...": the call's name */
	snprintf(t->syscall, sizeof(t->syscall), "%.*s", (int)strcspn(via, "( "), via);
}

void fgt_session_status(struct fgt_session *s, struct fgt_status *st)
{
	const struct fgt_activation *cur = current(s);

	memset(st, 0, sizeof(*st));
	st->now_ns = fgt_mono_ns();
	st->cur = cur;
	st->fork = fgt_assemble_fork(&s->assemble);
	st->judge = &s->rec.judge;
	st->lost = fgt_session_lost(s);
	/* the test run only: the fork fallback would show up in the fork path */
	st->graph_active = s->skel ? fgt_attach_graph_active_run(s->skel) : -1;
	if (st->graph_active != s->graph_active) {
		/* a user came or went: the holders read before are out of date
		 * (the first look is no change: nothing was read before it) */
		if (s->graph_active != -2) {
			s->graph_active_ns = st->now_ns;
			fgt_holders_watch_kick(s->hw);
		}
		s->graph_active = st->graph_active;
	}
	if (s->joining) {
		fgt_join_sweeps(&s->join, cur);
		fgt_snapshot_join_via(s, cur);
		fgt_join_progress(&s->join, cur, st->now_ns, &s->prog);
		snprintf(s->prog.via, sizeof(s->prog.via), "%s", s->join.trig.via);
		st->progress = &s->prog;
		st->joined = &s->join;
	} else if (cur) {
		long now = cur->nr_threads ? 0 : fgt_host_threads(NULL);

		fgt_progress_of(cur, st->now_ns, cur_lacking(s, cur), now > 0 ? (uint64_t)now : 0,
				&s->prog);
		snprintf(s->prog.via, sizeof(s->prog.via), "%s", cur_via(s, cur));
		st->progress = &s->prog;
	}
	/* no tracefs read while an activation may hold trace_types_lock */
	fgt_holders_watch_busy(s->hw, cur || s->joining || (s->skel && s->skel->bss->act_tid));
	if (fgt_holders_watch_get(s->hw, &s->holders, &s->holders_ns, NULL)) {
		st->holders = &s->holders;
		st->holders_ns = s->holders_ns;
		st->holders_stale = s->holders_ns < s->graph_active_ns;
		if (st->holders_stale)
			s->holders_wait = true;
	}
	if (!fgt_exp_live_estimate(&s->exp, &st->exposure_est))
		st->exposure = &s->exp.now;
}

uint64_t fgt_session_changes(struct fgt_session *s, bool events)
{
	unsigned int gen = 0;
	uint64_t ns = 0;

	/* busy is set by fgt_session_status(), which lines and -j call at the
	 * interval or on a change only: an activation ending between two calls
	 * left the reader busy (no read, so no change) until the next interval
	 * (-i 3600: a bpftrace link never listed). This is called every pass. */
	fgt_holders_watch_busy(s->hw, fgt_session_busy(s));
	fgt_holders_watch_get(s->hw, NULL, &ns, &gen);
	/* a list read before fgraph's user count changed is not shown; its
	 * re-read may find the same holders (no new generation), and is a
	 * change all the same: the list shown at last (a kretprobe.multi link
	 * that came with the 0->1 step was never printed by -j otherwise) */
	if (s->holders_wait && ns >= s->graph_active_ns) {
		s->holders_wait = false;
		s->holders_fresh++;
	}
	return (events ? s->fed : 0) + ((uint64_t)s->holders_fresh << 32) + ((uint64_t)gen << 40);
}

/* Under way: BPF is inside a 0->1 step, or its end is not read yet, or the
 * assembler has sweeps without their ACT_BEGIN. */
bool fgt_session_busy(const struct fgt_session *s)
{
	return s->joining || fgt_assemble_unbracketed(&s->assemble) ||
	       (s->skel && (s->skel->bss->act_tid || s->skel->bss->act_seq != s->done_seq));
}

void fgt_session_set_exposure(struct fgt_session *s, const struct fgt_exp_walk *w, uint64_t ns)
{
	fgt_exp_live_scan(&s->exp, w, ns, fgt_session_busy(s));
}