// SPDX-License-Identifier: GPL-2.0
/*
 * Joining a 0->1 step under way: looks into what was seen and what is
 * inferred (joined.h says how). Pure: no kernel, no I/O;
 * tests/model/test_joined.c replays recorded looks.
 */
#include <stdio.h>
#include <string.h>
#include "model/joined.h"
#include "common/clock.h"

static uint64_t sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

const char *fgt_join_named_by(const struct fgt_join_trigger *t)
{
	if (!t->known)
		return "none";
	return t->from_sweeps ? "sweeps" : t->by_time ? "cpu_time" : "stack";
}

const char *fgt_join_why_name(enum fgt_join_why w)
{
	switch (w) {
	case FGT_JOIN_TRIGGER:	return "trigger";
	case FGT_JOIN_FALLING:	return "falling";
	default:		return "no";
	}
}

enum fgt_join_why fgt_join_detect(const struct fgt_join_look *a, const struct fgt_join_look *b)
{
	/* the step counts its user before it walks: 0 is no step at all */
	if (b->graph_active == 0)
		return FGT_JOIN_NO;
	if (b->trigger_in)
		return FGT_JOIN_TRIGGER;
	/* a second user's walk (6.11+, init_task_vars()) serves nobody: a
	 * falling count is a 0->1 step's */
	if (b->graph_active > 0 && a->counted && b->counted && b->lacking < a->lacking &&
	    b->ns > a->ns)
		return FGT_JOIN_FALLING;
	return FGT_JOIN_NO;
}

/* The unfixed walk's visits through its first k sweeps, lacking threads
 * first (exposure_model.c's closed form, without the final full walk). */
static uint64_t visits_through(uint64_t k)
{
	return (uint64_t)FGT_RETSTACK_BATCH * k * (k + 1) / 2 + k;
}

static void infer(struct fgt_joined *j, const struct fgt_join_look *l)
{
	struct fgt_join_inferred *in = &j->inferred;
	uint64_t b = FGT_RETSTACK_BATCH;

	memset(in, 0, sizeof(*in));
	in->served = l->held_ahead;
	in->lacking_at_start = l->held_ahead + l->lacking;
	if (j->code == FGT_VERDICT_FIXED) {
		/* one walk, allocating as it goes: it reached the first thread
		 * still lacking one */
		in->sweeps = 1;
		in->visits = l->held_ahead;
	} else {
		in->sweeps = (uint32_t)((in->served + b - 1) / b);
		if (!in->sweeps)
			in->sweeps = 1;	/* the first has its batch, or is walking */
		/* those the tracepoints saw served threads this count holds:
		 * seen, not before (fgt_join_rebase()) */
		in->sweeps = in->sweeps > j->seen_at_base ? in->sweeps - j->seen_at_base : 0;
		/* the sweeps done, and the one under way as far as it got */
		in->visits = visits_through(in->served / b) + in->served;
	}
	if (l->threads && l->scan_ns)
		in->ns_per_visit = (double)l->scan_ns / (double)l->threads;
	if (l->trig_sys_ns) {
		in->elapsed_ns = l->trig_sys_ns;
		in->elapsed_from_cpu = true;
	} else {
		in->elapsed_ns = fgt_ns_after(0, in->ns_per_visit * (double)in->visits);
	}
}

void fgt_join_begin(struct fgt_joined *j, const struct fgt_join_look *a,
		    const struct fgt_join_look *b, const struct fgt_join_trigger *t,
		    enum fgt_verdict code)
{
	memset(j, 0, sizeof(*j));
	j->why = fgt_join_detect(a, b);
	if (t)
		j->trig = *t;
	j->code = code;
	/* the first look that counted is the join's: both when they did */
	j->first = a->counted ? *a : *b;
	j->join_ns = j->first.ns;
	infer(j, &j->first);
	j->last = j->first;
	j->seen.lacking = j->first.lacking;
	j->seen.looks = 1;
	if (j->first.counted && j->first.lacking == 0) {
		j->walk_over = true;
		j->end_ns = j->first.ns;
	}
	if (a->counted)
		fgt_join_look_at(j, b);
}

void fgt_join_rebase(struct fgt_joined *j, const struct fgt_join_look *l, uint32_t seen)
{
	if (!l->counted || l->ns < j->last.ns)
		return;
	/* the walk ended before the tracepoints came (a slow attach: 15 s
	 * behind the lab's lab-stock walk at 3 s on a loaded host): no sweep
	 * will be seen, and the join stays where it was taken (this look's
	 * held_ahead has the threads made since, its trigger's CPU time is
	 * gone: a base there inferred 4,957 s). The next look finds the end. */
	if (l->lacking == 0 || l->trigger_left || l->graph_active == 0)
		return;
	j->first = j->last = *l;
	j->join_ns = l->ns;
	j->seen_at_base = seen;
	infer(j, l);
	memset(&j->seen, 0, sizeof(j->seen));
	j->seen.looks = 1;
	j->seen.lacking = l->lacking;
	j->still = 0;
	if (l->lacking == 0 && !j->walk_over) {
		j->walk_over = true;
		j->end_ns = l->ns;
	}
}

void fgt_join_set_code(struct fgt_joined *j, enum fgt_verdict code)
{
	j->code = code;
	infer(j, &j->first);
}

bool fgt_join_look_at(struct fgt_joined *j, const struct fgt_join_look *l)
{
	bool was_over = j->walk_over;

	if (l->ns < j->last.ns)
		return false;		/* an older look: nothing new */
	if (j->trig.known && l->trigger_left)
		j->trigger_out = true;
	if (l->counted) {
		j->seen.looks++;
		j->still = l->lacking == j->last.lacking ? j->still + 1 : 0;
		/* served: what left the first count. An owed thread gone
		 * (exited) counts served: fgt-trigger's parent, kretmulti's,
		 * exits once its walk has served it (30,063 of 30,064 when
		 * taken for unserved); one that exits before the walk reaches
		 * it is the count's one error (the bpftrace rows: 1 or 2 of
		 * 30,061). The two cannot be told apart from the counts. */
		j->seen.served = sub(j->first.lacking, l->lacking);
		j->seen.lacking = l->lacking;
		j->last = *l;
	}
	/* a count standing still is the end unless the trigger was just seen
	 * walking: a fixed kernel whose inline allocation failed leaves
	 * threads lacking for good, and a running trigger's stack reads empty */
	if (!j->walk_over &&
	    ((l->counted && l->lacking == 0) || j->trigger_out ||
	     (j->still >= FGT_JOIN_STILL && !l->trigger_in) || l->graph_active == 0)) {
		j->walk_over = true;
		j->end_ns = l->ns;
	}
	return !was_over && j->walk_over;
}

void fgt_join_sweeps(struct fgt_joined *j, const struct fgt_activation *seen)
{
	if (!seen)
		return;
	/* the sweeps run in the trigger: who it is, where its stack could not
	 * be read (running on another CPU) */
	if (seen->tid && (!j->trig.known || (j->trig.by_time && j->trig.tid != seen->tid))) {
		memset(&j->trig, 0, sizeof(j->trig));
		j->trig.known = true;
		j->trig.from_sweeps = true;
		j->trig.pid = seen->pid;
		j->trig.tid = seen->tid;
		memcpy(j->trig.comm, seen->comm, sizeof(j->trig.comm));
		j->trig.comm[sizeof(j->trig.comm) - 1] = '\0';
	}
	j->seen.sweeps = seen->nr_sweeps;
	j->seen.sweeps_served = seen->served;
	j->seen.blocking = seen->blocking;
	j->seen.nonblocking = seen->nonblocking;
	j->so_far = fgt_verdict_so_far(seen);
}

void fgt_join_finish(struct fgt_joined *j)
{
	uint64_t u = fgt_join_served(j), total;

	if (!j->walk_over || j->code == FGT_VERDICT_FIXED || !u)
		return;
	total = (u + FGT_RETSTACK_BATCH - 1) / FGT_RETSTACK_BATCH;
	j->inferred.sweeps = total > j->seen.sweeps ? (uint32_t)(total - j->seen.sweeps) : 0;
	j->inferred.sweeps_from_total = true;
}

uint64_t fgt_join_served(const struct fgt_joined *j)
{
	return j->inferred.served + j->seen.served;
}

void fgt_join_progress(const struct fgt_joined *j, const struct fgt_activation *seen,
		       uint64_t now_ns, struct fgt_progress *p)
{
	struct fgt_activation none = {};

	if (!seen) {
		none.begin_ns = none.last_ns = j->join_ns;
		none.implicit = true;
		seen = &none;
	}
	/* the sweeps seen against the threads lacking at the join */
	fgt_progress_of(seen, now_ns, (int64_t)j->first.lacking, 0, p);
	/* then the whole walk: what came before, inferred */
	p->threads = j->inferred.lacking_at_start;
	p->u_src = FGT_U_EXPOSURE;
	p->lacking_exact = true;
	/* between counts, the sweeps seen since the join tell more */
	p->served = j->inferred.served +
		    (j->seen.sweeps_served > j->seen.served ? j->seen.sweeps_served : j->seen.served);
	if (p->served > p->threads)
		p->served = p->threads;
	p->lacking = sub(p->threads, p->served);
	p->sweeps = j->inferred.sweeps + (seen->nr_sweeps ? seen->nr_sweeps : 0);
	p->begin_ns = sub(j->join_ns, j->inferred.elapsed_ns);
	p->elapsed_ns = sub(now_ns, p->begin_ns);
	if (j->trig.known) {
		p->pid = j->trig.pid;
		p->tid = j->trig.tid;
		memcpy(p->comm, j->trig.comm, sizeof(p->comm));
		p->comm[sizeof(p->comm) - 1] = '\0';
	}
	if (p->so_far == FGT_VERDICT_UNKNOWN)
		p->so_far = j->so_far;
}

static bool prefixed(const char *s, const char *pre, const char **rest)
{
	size_t n = strlen(pre);

	if (strncmp(s, pre, n))
		return false;
	*rest = s + n;
	return true;
}

void fgt_join_syscall_of(const char *const *names, int n, char *buf, size_t len)
{
	static const char *const pre[] = { "__x64_sys_", "__arm64_sys_", "__ia32_sys_",
					   "__se_sys_", "__do_sys_", "ksys_" };
	const char *name = NULL;

	if (len)
		buf[0] = '\0';
	/* outermost first: the entry wrapper names the call */
	for (int i = n - 1; i >= 0 && !name; i--)
		for (size_t k = 0; names[i] && k < sizeof(pre) / sizeof(pre[0]) && !name; k++)
			if (!prefixed(names[i], pre[k], &name))
				name = NULL;
	if (name && len)
		snprintf(buf, len, "%.*s", (int)strcspn(name, "+ \t"), name);
}
