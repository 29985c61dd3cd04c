// SPDX-License-Identifier: GPL-2.0
/* fgraphtop's lines: see out_text.h. */
#include <string.h>
#include "model/hist.h"
#include "render/out_state.h"
#include "render/out_text.h"
#include "render/out_words.h"

void out_text_start(struct fgt_out *o, const struct fgt_plan *p)
{
	bool act = fgt_plan_has(p, FGT_ROLE_ACT_DIRECT), sweep = fgt_plan_has(p, FGT_ROLE_SWEEP_DIRECT);
	bool fork = fgt_plan_has(p, FGT_ROLE_FORK_DIRECT);

	fprintf(o->f, "fgraphtop: watching (activations: %s, sweeps: %s, fork path: %s); "
		"Ctrl-C to stop\n", act ? "direct" : "attributed",
		sweep ? "direct" : "inferred", fork ? "direct" : "attributed");
}

void out_text_static(struct fgt_out *o)
{
	fprintf(o->f, "fgraphtop: %s\n", o->code);
	fflush(o->f);
}

/* The trigger's kernel stack, outermost frames last: "a <- b <- c", from the
 * frame holding the 0->1 step (e.g. register_ftrace_graph <- graph_trace_init
 * <- tracing_set_tracer). */
static void stack_text(const struct fgt_frame *fr, int n, char *out, size_t len)
{
	size_t off = 0;
	char b[128];

	out[0] = 0;
	for (int i = 0; i < n && off < len; i++)
		off += snprintf(out + off, len - off, "%s%s", i ? " <- " : "",
				fr[i].name[0] ? fr[i].name : fgt_frame_text(&fr[i], b, sizeof(b)));
	if (!n)
		snprintf(out, len, "(no stack)");
}

void out_text_event(struct fgt_out *o, const struct fgt_event *e,
		    const struct fgt_frame *frames, int nr_frames)
{
	char st[1024];

	fprintf(o->f, "%12.6f %-11s %-10s cpu %-2u %7u/%-7u %-16s", out_rel_s(o, e->ts_ns),
		out_ev_name(e->type), out_src_name(e->src), e->cpu, e->pid, e->tid, e->comm);
	switch (e->type) {
	case FGT_EV_ALLOC:
		fprintf(o->f, " site=%s gfp=%#x(%s) size=%u %s", out_site_name(e->site),
			e->gfp, out_gfp_class(e->gfp), e->size, e->ok ? "ok" : "FAILED");
		/* the sweep's latency is a gap between events: the activation has it */
		if (e->dur_ns)
			fprintf(o->f, " lat=%lluns", (unsigned long long)e->dur_ns);
		break;
	case FGT_EV_ACT_BEGIN:
		stack_text(frames, nr_frames, st, sizeof(st));
		fprintf(o->f, " threads=%llu stack: %s", (unsigned long long)e->nr_threads, st);
		break;
	case FGT_EV_ACT_END:
	case FGT_EV_SWEEP_END:
		fprintf(o->f, " ret=%d dur=%lluns", e->ret, (unsigned long long)e->dur_ns);
		break;
	case FGT_EV_TASK_NEW:
		fprintf(o->f, " new=%u %s", e->target_tid, e->ok ? "has stack" : "NO STACK");
		break;
	case FGT_EV_FREE:
	case FGT_EV_TASK_EXIT:
		fprintf(o->f, " ptr=%#llx", (unsigned long long)e->ptr);
		break;
	}
	fputc('\n', o->f);
}

/* The sweeps counted, or that they are not observable (docs/EVENTS.md). */
static const char *sweeps_words(const struct fgt_activation *a, char *b, size_t len)
{
	if (a->walks == FGT_WALKS_UNSEEN)
		snprintf(b, len, "not observable (%u batches of up to 32, no walk seen "
			 "between them)", a->batches);
	else
		snprintf(b, len, "%u", a->nr_sweeps);
	return b;
}

/* "32 x312, 19": consecutive runs of equal served counts. */
static void served_runs(const struct fgt_activation *a, char *out, size_t len)
{
	size_t off = 0;
	uint32_t i = 0;

	out[0] = 0;
	while (i < a->nr_sweeps && off < len) {
		uint32_t j = i;

		while (j + 1 < a->nr_sweeps && a->sweeps[j + 1].served == a->sweeps[i].served)
			j++;
		if (j > i)
			off += snprintf(out + off, len - off, "%s%u x%u", i ? ", " : "",
					a->sweeps[i].served, j - i + 1);
		else
			off += snprintf(out + off, len - off, "%s%u", i ? ", " : "", a->sweeps[i].served);
		i = j + 1;
	}
}

static void joined_text(FILE *f, const struct fgt_joined *j)
{
	char a[32], b[32], c[32], d[32], e[32];

	fprintf(f, "  joined:    %s threads lacking a stack at the join; seen since: %s served, "
		"%u sweeps (%s), %s still lacking; the code says %s\n"
		"  inferred:  %s served and %u sweeps before joining (the threads holding a stack "
		"ahead of the first lacking one; %s); %s served in all\n",
		out_grp(j->first.lacking, a, sizeof(a)), out_grp(j->seen.served, b, sizeof(b)),
		j->seen.sweeps, fgt_verdict_name(j->so_far), out_grp(j->seen.lacking, c, sizeof(c)),
		fgt_verdict_answer(j->code), out_grp(j->inferred.served, d, sizeof(d)), j->inferred.sweeps,
		j->code == FGT_VERDICT_FIXED ? "fixed code walks once" : "a batch of 32 a sweep",
		out_grp(fgt_join_served(j), e, sizeof(e)));
}

void out_text_record(struct fgt_out *o, const struct fgt_record *rec, const char *evidence)
{
	const struct fgt_activation *a = rec->act;
	char runs[512], st[1024], swb[96];
	double walk_max = 0;
	size_t off = 0;

	for (uint32_t i = 0; i < a->nr_sweeps; i++)
		if (a->sweeps[i].walk_ns / 1e6 > walk_max)
			walk_max = a->sweeps[i].walk_ns / 1e6;
	served_runs(a, runs, sizeof(runs));
	stack_text(rec->frames, rec->nr_frames, st, sizeof(st));
	off += snprintf(o->last + off, sizeof(o->last) - off,
		"activation #%u at %.3fs%s (%s): pid %u tid %u (%s)\n"
		"  trigger:   %s: %s\n"
		"  threads %llu; sweeps %s; served %llu; ret %d\n"
		"  served per sweep: %s\n"
		"  walk %.3f ms (max %.3f ms/sweep); allocation phase %.3f ms; end-to-end %.3f ms\n"
		"  allocations: blocking %llu, non-blocking %llu; failed: blocking %llu, "
		"non-blocking %llu; unused freed %llu\n"
		"  verdict: %s: %s\n",
		a->seq, out_rel_s(o, a->begin_ns), a->complete ? "" : " INCOMPLETE",
		out_src_name(a->src), a->pid, a->tid, a->comm, rec->via, st,
		(unsigned long long)a->nr_threads, sweeps_words(a, swb, sizeof(swb)),
		(unsigned long long)a->served, a->ret,
		runs[0] ? runs : "-",
		a->walk_ns / 1e6, walk_max, a->alloc_ns / 1e6,
		a->end_ns > a->begin_ns ? (a->end_ns - a->begin_ns) / 1e6 : 0.0,
		(unsigned long long)a->blocking, (unsigned long long)a->nonblocking,
		(unsigned long long)a->failed_blocking, (unsigned long long)a->failed_nonblocking,
		(unsigned long long)a->freed, fgt_verdict_name(rec->verdict.verdict), evidence);
	if (a->lost && off < sizeof(o->last))
		snprintf(o->last + off, sizeof(o->last) - off, "  events lost while it ran: "
			 "%llu (its counts may be short)\n", (unsigned long long)a->lost);
	if (o->o.screen)
		return;
	fputs(o->last, o->f);
	if (rec->joined)
		joined_text(o->f, rec->joined);
	if (a->lat.count) {
		fprintf(o->f, "  shadow-stack allocation latency, sweep path:\n");
		fgt_hist_print(o->f, &a->lat, "nsecs", 1);
	}
	fflush(o->f);
}

void out_text_joined(struct fgt_out *o, const struct fgt_joined *j)
{
	char a[32], b[32];

	fprintf(o->f, "ACTIVATION UNDER WAY (joined %.1f s in, inferred): pid %u tid %u (%s) %s; "
		"%s threads lacking a stack, %s served before joining (inferred, %u sweeps); "
		"fentry/fexit probes deferred: the walk holds ftrace_lock\n",
		j->inferred.elapsed_ns / 1e9, j->trig.pid, j->trig.tid,
		j->trig.known ? j->trig.comm : "trigger not found",
		j->trig.via[0] ? j->trig.via : "", out_grp(j->first.lacking, a, sizeof(a)),
		out_grp(j->inferred.served, b, sizeof(b)), j->inferred.sweeps);
	fflush(o->f);
}

static void fork_text(FILE *f, const struct fgt_fork_stats *fk)
{
	fprintf(f, "fork path: %llu allocations (%llu failed), %llu new tasks, %llu left "
		"without a stack, %llu idle-task allocations\n", (unsigned long long)fk->allocs,
		(unsigned long long)fk->failed, (unsigned long long)fk->tasks_new,
		(unsigned long long)fk->tasks_without, (unsigned long long)fk->idle_allocs);
}

static void explain_line(void *ctx, const char *s)
{
	fprintf(ctx, "  %s\n", s);
}

void fgt_out_holders_explain(FILE *f, const struct fgt_holders *h, int graph_active,
			     const char *why)
{
	char t[512], u[512], ow[64];

	if (graph_active < 0)
		fprintf(f, "\nWho holds fgraph now (tracefs and BPF links; ftrace_graph_active "
			"unknown: %s):\n", why);
	else
		fprintf(f, "\nWho holds fgraph now (ftrace_graph_active %d):\n", graph_active);
	for (unsigned int i = 0; i < h->kept; i++)
		fprintf(f, "  %s%s\n      to turn it off: %s\n",
			fgt_holder_text(&h->h[i], t, sizeof(t)), out_owner_words(&h->h[i], ow, sizeof(ow)),
			fgt_holder_undo(&h->h[i], h->tracefs, u, sizeof(u)));
	out_holders_notes(h, graph_active, explain_line, f);
}

void out_text_holders(struct fgt_out *o, const struct fgt_holders *h, int graph_active,
		      const char *hms)
{
	char t[512], u[512], ow[64];

	fprintf(o->f, "%s fgraph holders: %u (ftrace_graph_active %d)\n", hms, h->n,
		graph_active);
	for (unsigned int i = 0; i < h->kept; i++)
		fprintf(o->f, "  %s%s; to turn it off: %s\n",
			fgt_holder_text(&h->h[i], t, sizeof(t)), out_owner_words(&h->h[i], ow, sizeof(ow)),
			fgt_holder_undo(&h->h[i], h->tracefs, u, sizeof(u)));
	out_holders_notes(h, graph_active, explain_line, o->f);
	fflush(o->f);
}

/* The activation under way in one line (lines mode). */
static void progress_line(struct fgt_out *o, const struct fgt_progress *p,
			  const struct fgt_joined *joined, const char *hms)
{
	char e[32], a[32], b[32], c[32], left[160];

	fprintf(o->f, "%s activation #%u under way%s %s: pid %u (%s)%s%s; served %s of %s threads "
		"at the start, %s still lacking%s; sweeps %u", hms, p->seq,
		p->u_src == FGT_U_EXPOSURE && joined ? " (joined)" : "",
		out_dur(p->elapsed_ns, e, sizeof(e)), p->pid, p->comm, p->via[0] ? " " : "", p->via,
		out_grp(p->served, a, sizeof(a)), out_grp(p->threads, b, sizeof(b)),
		out_grp(p->lacking, c, sizeof(c)), out_u_words(p), p->sweeps);
	if (p->to_come_known)
		fprintf(o->f, ", %llu to come", (unsigned long long)p->sweeps_to_come);
	fprintf(o->f, " (%s); time left %s\n", out_pattern_words(p),
		out_left_words(p, left, sizeof(left)));
}

void out_text_interval(struct fgt_out *o, const struct fgt_status *st, const char *hms)
{
	const struct fgt_activation *cur = st->cur;
	const struct fgt_fork_stats *fk = st->fork;

	fprintf(o->f, "%s activations %u%s; fork path: allocs %llu failed %llu new tasks %llu "
		"without stack %llu; lost %llu", hms, st->judge->n,
		cur ? " (+1 under way)" : "", (unsigned long long)fk->allocs,
		(unsigned long long)fk->failed, (unsigned long long)fk->tasks_new,
		(unsigned long long)fk->tasks_without, (unsigned long long)st->lost);
	if (st->exposure) {
		char ex[128];

		out_exposure_words(st, ex, sizeof(ex));
		fprintf(o->f, "; %s", ex);
	}
	fputc('\n', o->f);
	if (st->progress)
		progress_line(o, st->progress, st->joined, hms);
	fflush(o->f);
}

static void history_text(struct fgt_out *o)
{
	unsigned int kept = o->nhist < FGT_HISTORY_MAX ? o->nhist : FGT_HISTORY_MAX;
	char row[256];

	if (!o->nhist)
		return;
	fprintf(o->f, "history (newest first%s):\n", o->nhist > kept ? ", the last 64" : "");
	out_hist_row(o, NULL, row, sizeof(row));
	fprintf(o->f, "%s\n", row);
	for (unsigned int i = 0; i < kept; i++) {
		out_hist_row(o, out_hist_nth(o, i), row, sizeof(row));
		fprintf(o->f, "%s\n", row);
	}
}

void out_text_final(struct fgt_out *o, const struct fgt_status *st, const char *evidence)
{
	const struct fgt_fork_stats *fk = st->fork;

	if (o->o.screen)
		fputs(o->last, o->f);
	history_text(o);
	fprintf(o->f, "summary: %u activation(s); verdict %s: %s\n", st->judge->n,
		fgt_verdict_name(st->judge->verdict), evidence);
	fork_text(o->f, fk);
	if (fk->lat.count) {
		fprintf(o->f, "shadow-stack allocation latency, fork path:\n");
		fgt_hist_print(o->f, &fk->lat, "nsecs", 1);
	}
	fprintf(o->f, "events lost: %llu\n", (unsigned long long)st->lost);
	fflush(o->f);
}
