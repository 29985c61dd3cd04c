// SPDX-License-Identifier: GPL-2.0
/* What fgraphtop prints. JSON names: docs/json.md (schema FGT_JSON_SCHEMA). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "exit_codes.h"
#include "hist.h"
#include "json_writer.h"
#include "output.h"
#include "static_check.h"
#include "verdict.h"
#include "via.h"

struct fgt_out {
	FILE *f;
	struct fgt_out_opts o;
	json_writer_t *jw;
	char last[4096];		/* last activation's text, for the screen */
	char code[FGT_STATIC_EVIDENCE + 64];	/* the static verdict, for the screen */
};

static const char *ev_name(uint32_t t)
{
	static const char *n[] = {
		[FGT_EV_ACT_BEGIN] = "act_begin", [FGT_EV_ACT_END] = "act_end",
		[FGT_EV_SWEEP_BEGIN] = "sweep_begin", [FGT_EV_SWEEP_END] = "sweep_end",
		[FGT_EV_ALLOC] = "alloc", [FGT_EV_FREE] = "free",
		[FGT_EV_TASK_NEW] = "task_new", [FGT_EV_TASK_EXIT] = "task_exit",
	};
	return t < sizeof(n) / sizeof(n[0]) && n[t] ? n[t] : "unknown";
}

static const char *site_name(uint32_t s)
{
	switch (s) {
	case FGT_SITE_SWEEP:	return "sweep";
	case FGT_SITE_FORK:	return "fork";
	case FGT_SITE_IDLE:	return "idle";
	}
	return "unknown";
}

static const char *src_name(uint32_t s)
{
	return s == FGT_SRC_DIRECT ? "direct" : s == FGT_SRC_ATTRIBUTED ? "attributed" : "unknown";
}

static const char *gfp_class(uint32_t gfp)
{
	return gfp & FGT_GFP_DIRECT_RECLAIM ? "blocking" : "nonblocking";
}

struct fgt_out *fgt_out_new(FILE *f, const struct fgt_out_opts *opts)
{
	struct fgt_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->f = f;
	o->o = *opts;
	if (opts->json) {
		o->jw = jsonw_new(f);
		if (!o->jw) {
			free(o);
			return NULL;
		}
	}
	return o;
}

void fgt_out_free(struct fgt_out *o)
{
	if (!o)
		return;
	if (o->jw)
		jsonw_destroy(&o->jw);
	free(o);
}

static void json_head(json_writer_t *jw, const char *type)
{
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "schema", FGT_JSON_SCHEMA);
	jsonw_string_field(jw, "type", type);
}

void fgt_out_start(struct fgt_out *o, const struct fgt_plan *p)
{
	bool act = fgt_plan_has(p, FGT_ROLE_ACT_DIRECT), sweep = fgt_plan_has(p, FGT_ROLE_SWEEP_DIRECT);
	bool fork = fgt_plan_has(p, FGT_ROLE_FORK_DIRECT);

	if (o->jw) {
		json_head(o->jw, "start");
		jsonw_string_field(o->jw, "activation_path", act ? "direct" : "attributed");
		jsonw_string_field(o->jw, "sweep_path", sweep ? "direct" : "attributed");
		jsonw_string_field(o->jw, "fork_path", fork ? "direct" : "attributed");
		jsonw_bool_field(o->jw, "latency", fgt_plan_has_lat(p));
		jsonw_end_object(o->jw);
		return;
	}
	if (!o->o.screen)
		fprintf(o->f, "fgraphtop: watching (activations: %s, sweeps: %s, fork path: %s); "
			"Ctrl-C to stop\n", act ? "direct" : "attributed",
			sweep ? "direct" : "inferred", fork ? "direct" : "attributed");
}

void fgt_out_static(struct fgt_out *o, const struct fgt_static_result *r)
{
	snprintf(o->code, sizeof(o->code), "this kernel's code says %s: %s",
		 fgt_static_verdict_name(r->verdict), r->evidence);
	if (o->jw) {
		json_head(o->jw, "static");
		fgt_static_json_fields(r, o->jw);
		jsonw_end_object(o->jw);
		return;
	}
	if (!o->o.screen) {
		fprintf(o->f, "fgraphtop: %s\n", o->code);
		fflush(o->f);
	}
}

static double rel_s(const struct fgt_out *o, uint64_t ns)
{
	return ns > o->o.start_ns ? (ns - o->o.start_ns) / 1e9 : 0;
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

static void stack_json(json_writer_t *jw, const struct fgt_frame *fr, int n)
{
	char b[128];

	jsonw_name(jw, "stack");
	jsonw_start_array(jw);
	for (int i = 0; i < n; i++)
		jsonw_string(jw, fgt_frame_text(&fr[i], b, sizeof(b)));
	jsonw_end_array(jw);
}

void fgt_out_event(struct fgt_out *o, const struct fgt_event *e,
		   const struct fgt_frame *frames, int nr_frames)
{
	char st[1024];

	if (!o->o.events)
		return;
	if (o->jw) {
		json_head(o->jw, "event");
		jsonw_string_field(o->jw, "event", ev_name(e->type));
		jsonw_string_field(o->jw, "src", src_name(e->src));
		jsonw_float_field(o->jw, "time_s", rel_s(o, e->ts_ns));
		jsonw_uint_field(o->jw, "cpu", e->cpu);
		jsonw_uint_field(o->jw, "pid", e->pid);
		jsonw_uint_field(o->jw, "tid", e->tid);
		jsonw_string_field(o->jw, "comm", e->comm);
		switch (e->type) {
		case FGT_EV_ALLOC:
			jsonw_string_field(o->jw, "site", site_name(e->site));
			jsonw_string_field(o->jw, "gfp_class", gfp_class(e->gfp));
			jsonw_uint_field(o->jw, "gfp", e->gfp);
			jsonw_uint_field(o->jw, "size", e->size);
			jsonw_bool_field(o->jw, "ok", e->ok);
			jsonw_uint_field(o->jw, "latency_ns", e->dur_ns);
			break;
		case FGT_EV_ACT_BEGIN:
			jsonw_uint_field(o->jw, "nr_threads", e->nr_threads);
			stack_json(o->jw, frames, nr_frames);
			break;
		case FGT_EV_ACT_END:
		case FGT_EV_SWEEP_END:
			jsonw_int_field(o->jw, "ret", e->ret);
			jsonw_uint_field(o->jw, "duration_ns", e->dur_ns);
			break;
		case FGT_EV_TASK_NEW:
			jsonw_uint_field(o->jw, "target_tid", e->target_tid);
			jsonw_bool_field(o->jw, "ok", e->ok);
			break;
		case FGT_EV_TASK_EXIT:
			jsonw_uint_field(o->jw, "target_tid", e->target_tid);
			break;
		}
		jsonw_end_object(o->jw);
		return;
	}
	fprintf(o->f, "%12.6f %-11s %-10s cpu %-2u %7u/%-7u %-16s", rel_s(o, e->ts_ns),
		ev_name(e->type), src_name(e->src), e->cpu, e->pid, e->tid, e->comm);
	switch (e->type) {
	case FGT_EV_ALLOC:
		fprintf(o->f, " site=%s gfp=%#x(%s) size=%u %s", site_name(e->site),
			e->gfp, gfp_class(e->gfp), e->size, e->ok ? "ok" : "FAILED");
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

/* The allocation counters an activation and each of its sweeps share. */
static void alloc_counts_json(json_writer_t *jw, const char *blocking_name, uint64_t blocking,
			      uint64_t nonblocking, uint64_t failed_blocking,
			      uint64_t failed_nonblocking, uint64_t freed)
{
	jsonw_uint_field(jw, blocking_name, blocking);
	jsonw_uint_field(jw, "nonblocking", nonblocking);
	jsonw_uint_field(jw, "failed_blocking", failed_blocking);
	jsonw_uint_field(jw, "failed_nonblocking", failed_nonblocking);
	jsonw_uint_field(jw, "freed", freed);
}

static void act_json(struct fgt_out *o, const struct fgt_record *rec, const char *evidence)
{
	const struct fgt_activation *a = rec->act;
	json_writer_t *jw = o->jw;

	json_head(jw, "activation");
	jsonw_uint_field(jw, "seq", a->seq);
	jsonw_string_field(jw, "src", src_name(a->src));
	jsonw_bool_field(jw, "complete", a->complete);
	jsonw_float_field(jw, "time_s", rel_s(o, a->begin_ns));
	jsonw_name(jw, "trigger");
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "pid", a->pid);
	jsonw_uint_field(jw, "tid", a->tid);
	jsonw_string_field(jw, "comm", a->comm);
	jsonw_string_field(jw, "via", rec->via);
	stack_json(jw, rec->frames, rec->nr_frames);
	jsonw_end_object(jw);
	jsonw_uint_field(jw, "nr_threads", a->nr_threads);
	jsonw_int_field(jw, "ret", a->ret);
	jsonw_uint_field(jw, "sweeps", a->nr_sweeps);
	jsonw_uint_field(jw, "served", a->served);
	jsonw_uint_field(jw, "duration_ns", a->end_ns > a->begin_ns ? a->end_ns - a->begin_ns : 0);
	jsonw_uint_field(jw, "alloc_ns", a->alloc_ns);
	jsonw_uint_field(jw, "walk_ns", a->walk_ns);
	jsonw_uint_field(jw, "lost", a->lost);
	jsonw_name(jw, "allocations");
	jsonw_start_object(jw);
	alloc_counts_json(jw, "blocking", a->blocking, a->nonblocking, a->failed_blocking,
			  a->failed_nonblocking, a->freed);
	jsonw_end_object(jw);
	jsonw_name(jw, "per_sweep");
	jsonw_start_array(jw);
	for (uint32_t i = 0; i < a->nr_sweeps; i++) {
		const struct fgt_sweep *s = &a->sweeps[i];

		jsonw_start_object(jw);
		jsonw_uint_field(jw, "served", s->served);
		alloc_counts_json(jw, "batch", s->batch, s->nonblocking, s->failed_blocking,
				  s->failed_nonblocking, s->freed);
		jsonw_int_field(jw, "ret", s->ret);
		jsonw_bool_field(jw, "ret_known", s->ret_known);
		jsonw_uint_field(jw, "walk_ns", s->walk_ns);
		jsonw_uint_field(jw, "alloc_ns", s->alloc_ns);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
	jsonw_name(jw, "latency_ns");
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "count", a->lat.count);
	jsonw_uint_field(jw, "p50", fgt_hist_percentile(&a->lat, 50));
	jsonw_uint_field(jw, "p99", fgt_hist_percentile(&a->lat, 99));
	jsonw_uint_field(jw, "max", a->lat.max);
	jsonw_end_object(jw);
	jsonw_name(jw, "verdict");
	jsonw_start_object(jw);
	jsonw_string_field(jw, "verdict", fgt_verdict_name(rec->verdict.verdict));
	jsonw_string_field(jw, "evidence", evidence);
	jsonw_end_object(jw);
	jsonw_end_object(jw);
}

void fgt_out_record(const struct fgt_record *rec, void *ctx)
{
	const struct fgt_activation *a = rec->act;
	struct fgt_out *o = ctx;
	char evidence[FGT_EVIDENCE_LEN], runs[512], st[1024];
	double walk_max = 0;
	size_t off = 0;

	fgt_verdict_text(&rec->verdict, evidence, sizeof(evidence));
	if (o->jw) {
		act_json(o, rec, evidence);
		return;
	}
	for (uint32_t i = 0; i < a->nr_sweeps; i++)
		if (a->sweeps[i].walk_ns / 1e6 > walk_max)
			walk_max = a->sweeps[i].walk_ns / 1e6;
	served_runs(a, runs, sizeof(runs));
	stack_text(rec->frames, rec->nr_frames, st, sizeof(st));
	off += snprintf(o->last + off, sizeof(o->last) - off,
		"activation #%u at %.3fs%s (%s): pid %u tid %u (%s)\n"
		"  trigger:   %s: %s\n"
		"  threads %llu; sweeps %u; served %llu; ret %d\n"
		"  served per sweep: %s\n"
		"  walk %.3f ms (max %.3f ms/sweep); allocation phase %.3f ms; end-to-end %.3f ms\n"
		"  allocations: blocking %llu, non-blocking %llu; failed: blocking %llu, "
		"non-blocking %llu; unused freed %llu\n"
		"  verdict: %s: %s\n",
		a->seq, rel_s(o, a->begin_ns), a->complete ? "" : " INCOMPLETE",
		src_name(a->src), a->pid, a->tid, a->comm, rec->via, st,
		(unsigned long long)a->nr_threads, a->nr_sweeps, (unsigned long long)a->served, a->ret,
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
	if (a->lat.count) {
		fprintf(o->f, "  shadow-stack allocation latency, sweep path:\n");
		fgt_hist_print(o->f, &a->lat, "nsecs", 1);
	}
	fflush(o->f);
}

/* The fork path's cumulative figures, the same in every report. */
static void fork_json(json_writer_t *jw, const struct fgt_fork_stats *fk)
{
	jsonw_name(jw, "fork");
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "allocs", fk->allocs);
	jsonw_uint_field(jw, "failed", fk->failed);
	jsonw_uint_field(jw, "tasks_new", fk->tasks_new);
	jsonw_uint_field(jw, "tasks_without_stack", fk->tasks_without);
	jsonw_uint_field(jw, "idle_allocs", fk->idle_allocs);
	jsonw_uint_field(jw, "latency_p50_ns", fgt_hist_percentile(&fk->lat, 50));
	jsonw_uint_field(jw, "latency_max_ns", fk->lat.max);
	jsonw_end_object(jw);
}

static void fork_text(FILE *f, const struct fgt_fork_stats *fk)
{
	fprintf(f, "fork path: %llu allocations (%llu failed), %llu new tasks, %llu left "
		"without a stack, %llu idle-task allocations\n", (unsigned long long)fk->allocs,
		(unsigned long long)fk->failed, (unsigned long long)fk->tasks_new,
		(unsigned long long)fk->tasks_without, (unsigned long long)fk->idle_allocs);
}

static void clock_hms(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
}

void fgt_out_interval(struct fgt_out *o, const struct fgt_status *st)
{
	const struct fgt_activation *cur = st->cur;
	const struct fgt_fork_stats *fk = st->fork;
	const char *verdict = fgt_verdict_name(st->judge->verdict);
	char hms[16];

	if (o->o.events && !o->jw)
		return;
	clock_hms(hms, sizeof(hms));
	if (o->jw) {
		json_head(o->jw, "interval");
		jsonw_string_field(o->jw, "time", hms);
		jsonw_uint_field(o->jw, "activations", st->judge->n);
		jsonw_bool_field(o->jw, "in_progress", cur != NULL);
		jsonw_uint_field(o->jw, "in_progress_sweeps", cur ? cur->nr_sweeps : 0);
		fork_json(o->jw, fk);
		jsonw_uint_field(o->jw, "lost", st->lost);
		jsonw_string_field(o->jw, "verdict", verdict);
		jsonw_end_object(o->jw);
		return;
	}
	if (o->o.screen) {
		fprintf(o->f, "\033[H\033[2J");
		fprintf(o->f, "fgraphtop  %s   activations %u%s   verdict %s   lost %llu\n%s%s\n",
			hms, st->judge->n, cur ? " (one under way)" : "", verdict,
			(unsigned long long)st->lost, o->code, o->code[0] ? "\n" : "");
		if (cur)
			fprintf(o->f, "under way: pid %u (%s), %u sweeps, %llu served so far\n\n",
				cur->pid, cur->comm, cur->nr_sweeps, (unsigned long long)cur->served);
		fprintf(o->f, "%s\n", o->last[0] ? o->last : "no activation seen yet\n");
		fork_text(o->f, fk);
		if (fk->lat.count)
			fgt_hist_print(o->f, &fk->lat, "nsecs", 1);
		fflush(o->f);
		return;
	}
	fprintf(o->f, "%s activations %u%s; fork path: allocs %llu failed %llu new tasks %llu "
		"without stack %llu; lost %llu\n", hms, st->judge->n,
		cur ? " (+1 under way)" : "", (unsigned long long)fk->allocs,
		(unsigned long long)fk->failed, (unsigned long long)fk->tasks_new,
		(unsigned long long)fk->tasks_without, (unsigned long long)st->lost);
	fflush(o->f);
}

void fgt_out_final(struct fgt_out *o, const struct fgt_status *st)
{
	const struct fgt_fork_stats *fk = st->fork;
	char evidence[FGT_EVIDENCE_LEN];

	fgt_judge_text(st->judge, evidence, sizeof(evidence));
	if (o->jw) {
		json_head(o->jw, "summary");
		jsonw_uint_field(o->jw, "activations", st->judge->n);
		jsonw_string_field(o->jw, "verdict", fgt_verdict_name(st->judge->verdict));
		jsonw_string_field(o->jw, "evidence", evidence);
		fork_json(o->jw, fk);
		jsonw_uint_field(o->jw, "lost", st->lost);
		jsonw_end_object(o->jw);
		return;
	}
	if (o->o.screen)
		fputs(o->last, o->f);
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
