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
#include "fgraphtop.skel.h"

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
 * Is a 0->1 step seen from its start? Only once ftrace_graph_active has been
 * read 0 after the attach: register_ftrace_graph() counts its user before
 * start_graph_tracing() walks (5.10 to 7.2 alike), so a step begun before
 * the attach, its ACT_BEGIN missed, holds it at 1 through its walk. From
 * that read on, a sweep with none under way begins an activation in BPF
 * (begin_at_sweep, which also says the read was made: a kernel without the
 * ret_stack_list); before it, or where it cannot be read, such a sweep's
 * events go to the assembler, and its activation is reported incomplete at
 * fgraphtop's exit (check --trigger's ends when its system call returns).
 */
static void idle_look(struct fgt_session *s)
{
	if (s->joining || !s->skel || s->skel->bss->begin_at_sweep ||
	    fgt_attach_graph_active_run(s->skel) != 0)
		return;
	s->skel->bss->begin_at_sweep = 1;
}

/* The walker of BPF's activation begun at a sweep's allocation (bpf/
 * fgraphtop.bpf.c alloc_seen(): no ret_stack_list, no ACT_BEGIN). */
static bool sweep_walker(const struct fgt_session *s, uint32_t *pid, uint32_t *tid)
{
	const struct fgraphtop_bpf *k = s->skel;

	if (!k || !k->bss->act_tid || k->bss->act_list || !k->bss->begin_at_sweep ||
	    k->rodata->kconf.direct_act)
		return false;
	*pid = k->bss->hot.agg.act.pid;
	*tid = k->bss->act_tid;
	return true;
}

/*
 * Such an activation has no end event (docs/EVENTS.md); fgraphtop saw it
 * begin, or it would not have begun in BPF. Once its walker has left
 * register_ftrace_graph() (or exited) the walk is over: BPF ends it at its
 * latest event (end_at_sweep, test-run), complete, as check --trigger's
 * ends when its own system call returns. Looked at as often as a join
 * looks; an unreadable stack (the walker running) is no answer.
 */
bool fgt_session_unbracketed_tick(struct fgt_session *s)
{
	uint32_t pid, tid;
	uint64_t now;

	idle_look(s);
	if (s->joining || !s->rb || !sweep_walker(s, &pid, &tid)) {
		s->unbr_next_ns = 0;
		return false;
	}
	now = fgt_mono_ns();
	if (now < s->unbr_next_ns)
		return false;
	s->unbr_next_ns = now + FGT_JOIN_LOOK_MS * 1000000ull;
	if (fgt_join_task_inside((int)pid, (int)tid) != 0)
		return false;
	fgt_attach_end_at_sweep(s->skel, tid);
	ring_buffer__consume(s->rb);
	return true;
}

void fgt_session_unbracketed_end(struct fgt_session *s)
{
	uint32_t pid, tid;

	if (s->rb && sweep_walker(s, &pid, &tid))
		fgt_attach_end_at_sweep(s->skel, tid);
	if (s->rb)
		ring_buffer__consume(s->rb);
	fgt_assemble_end(&s->assemble);
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

