// SPDX-License-Identifier: GPL-2.0
/*
 * A finished activation into its record (numbered, its walk pricing a
 * visit on this host), and a step joined under way followed until its
 * record is made and the deferred rows are attached (src/watch/follow.h).
 */
#include <string.h>
#include <bpf/libbpf.h>
#include "watch/follow.h"
#include "watch/session_state.h"
#include "watch/drain.h"
#include "watch/snapshot.h"
#include "watch/attach.h"
#include "watch/assemble.h"
#include "common/clock.h"

static bool join_look(struct fgt_session *s);

void fgt_follow_activation(const struct fgt_activation *rec, void *ctx)
{
	struct fgt_session *s = ctx;
	struct fgt_activation a = *rec, *act = &a;

	/* the kernel's and the assembler's, numbered as they come */
	a.seq = ++s->reported;
	/* one begun without its ACT_BEGIN, not joined: the trigger's stack
	 * from its sweep's events (the next one takes its own) */
	if (!s->joining) {
		if (a.stack_id < 0)
			a.stack_id = s->join_stack_id;
		s->join_stack_id = -1;
	}
	if (act->complete && !act->lost)
		fgt_exp_live_activation(&s->exp, act->begin_ns, act->nr_sweeps, act->walk_ns,
					act->nr_threads, act->served);
	/* the joined step's sweeps, seen without their ACT_BEGIN: its record
	 * says what was seen and inferred, from a look taken now */
	if (s->joining && act->implicit) {
		a.joined = true;
		join_look(s);
		fgt_join_sweeps(&s->join, act);
		/* flushed at the walk's end, or cut short (fgt_session_join_stop()) */
		if (!s->join_cut)
			s->join.walk_over = true;
		fgt_join_finish(&s->join);
		s->rec.joined = &s->join;
		s->joining = false;
		s->join_recorded = true;
	}
	fgt_recorder_activation(act, &s->rec);
	s->rec.joined = NULL;
}

void fgt_follow_rebase(struct fgt_session *s)
{
	const struct fgt_activation *cur;
	struct fgt_join_look l;

	if (!s->joining)
		return;
	fgt_joiner_look(s->jr, &s->join.trig, &l);
	ring_buffer__consume(s->rb);
	cur = fgt_assemble_unbracketed(&s->assemble);
	fgt_join_rebase(&s->join, &l, cur ? cur->nr_sweeps : 0);
}

/* One look at the joined step, into the model. */
static bool join_look(struct fgt_session *s)
{
	struct fgt_join_look l;

	fgt_joiner_look(s->jr, &s->join.trig, &l);
	return fgt_join_look_at(&s->join, &l);
}

void fgt_session_join_code(struct fgt_session *s, enum fgt_verdict code)
{
	if (s->joining)
		fgt_join_set_code(&s->join, code);
}

/* The joined step's record, when the assembler has none to flush (no sweep
 * seen since joining: the walk ended before the tracepoints saw a batch). */
static void join_record_empty(struct fgt_session *s)
{
	struct fgt_activation a = {
		.implicit = true, .stack_id = -1, .begin_ns = s->join.join_ns,
		.end_ns = s->join.end_ns, .last_ns = s->join.end_ns, .ret = 0,
		.pid = s->join.trig.pid, .tid = s->join.trig.tid,
	};

	memcpy(a.comm, s->join.trig.comm, sizeof(a.comm));
	fgt_follow_activation(&a, s);
}

/* The joined step's record: its last sweeps drained, the assembler's
 * activation flushed into it, or one made without a sweep seen. */
static void join_record(struct fgt_session *s)
{
	if (s->rb)
		fgt_drain(s, fgt_mono_ms());
	if (s->joining && fgt_assemble_unbracketed(&s->assemble))
		fgt_assemble_flush(&s->assemble, NULL);
	if (s->joining)
		join_record_empty(s);
}

/*
 * The walker of an activation begun without its ACT_BEGIN is the task of its
 * first sweep event (the assembler's pid and tid: the sweep runs in the
 * trigger). fgraphtop saw it begin, or it would be joining; a kernel whose
 * fgraph keeps no ret_stack_list has no event at the end either (docs/
 * EVENTS.md). Once that task has left register_ftrace_graph() (or exited)
 * the walk is over: what it emitted is read, and the activation ends at its
 * last event, complete, as check --trigger's does when its own system call
 * returns. Looked at as often as a join looks; an unreadable stack (the
 * walker running) is no answer.
 */
bool fgt_session_unbracketed_tick(struct fgt_session *s)
{
	const struct fgt_activation *cur = fgt_assemble_unbracketed(&s->assemble);
	uint64_t now;

	if (s->joining || !s->rb || !cur || !cur->implicit || !cur->tid) {
		s->unbr_next_ns = 0;
		return false;
	}
	now = fgt_mono_ns();
	if (now < s->unbr_next_ns)
		return false;
	s->unbr_next_ns = now + FGT_JOIN_LOOK_MS * 1000000ull;
	if (fgt_join_task_inside((int)cur->pid, (int)cur->tid) != 0)
		return false;
	ring_buffer__consume(s->rb);
	fgt_assemble_end(&s->assemble);
	return true;
}

void fgt_session_join_stop(struct fgt_session *s)
{
	if (!s->joining || !s->jr)
		return;
	if (!join_look(s) && !s->join.walk_over) {
		s->join_cut = true;
		s->join.end_ns = s->join.last.ns;
	}
	join_record(s);
}

bool fgt_session_join_tick(struct fgt_session *s)
{
	uint64_t now = fgt_mono_ns();

	if (!s->jr || (!s->joining && !s->deferred_pending))
		return false;
	if (!fgt_joiner_due(s->jr, now))
		return false;
	if (s->joining) {
		fgt_join_sweeps(&s->join, fgt_assemble_unbracketed(&s->assemble));
		fgt_snapshot_join_via(s, fgt_assemble_unbracketed(&s->assemble));
		if (join_look(s))
			join_record(s);	/* the walk is over */
		return true;
	}
	/* the walk is over; register_ftrace_graph() goes on patching call
	 * sites under ftrace_lock: the deferred attach waits for the trigger
	 * to leave it (unknown trigger: at once, the notice says if it waits) */
	if (s->join.trig.known && !s->join.trigger_out && s->after_looks < FGT_JOIN_STILL) {
		struct fgt_join_look l;

		fgt_joiner_look(s->jr, &s->join.trig, &l);
		fgt_join_look_at(&s->join, &l);
		s->after_looks++;
		if (!s->join.trigger_out)
			return false;
	}
	fgt_attach_deferred(&s->att, s->skel, s->plan);
	s->deferred_pending = false;
	fgt_joiner_close(s->jr);
	s->jr = NULL;
	return true;
}

