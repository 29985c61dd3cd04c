// SPDX-License-Identifier: GPL-2.0
/* What fgraphtop prints. JSON names: docs/json.md (schema FGT_JSON_SCHEMA). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/exit_codes.h"
#include "model/hist.h"
#include "common/json_writer.h"
#include "common/log.h"
#include "render/act_json.h"
#include "render/output.h"
#include "render/screen.h"
#include "static/static_check.h"
#include "model/verdict.h"
#include "model/via.h"
#include "render/static_json.h"

#define FGT_HISTORY_MAX	64

/* One finished activation, as the history table shows it. */
struct hist_ent {
	uint32_t seq;
	uint64_t begin_ns;		/* monotonic */
	char comm[FGT_COMM_LEN];
	char via[FGT_VIA_LEN];
	uint64_t threads, served, dur_ns, lost;
	int64_t sweeps;			/* -1: not observable */
	enum fgt_verdict verdict;
	bool complete;
};

struct fgt_out {
	FILE *f;
	struct fgt_out_opts o;
	json_writer_t *jw;
	char last[4096];		/* last activation's text, for the screen */
	char code[FGT_STATIC_EVIDENCE + 64];	/* the static verdict, for the screen */
	struct hist_ent hist[FGT_HISTORY_MAX];	/* a ring, newest at nhist - 1 */
	unsigned int nhist;		/* all reported */
	struct fgt_lines lines;		/* the screen's frame */
	struct fgt_holders shown;	/* holders last printed (lines, -j) */
	int shown_active;
	bool shown_any;
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
	fgt_lines_init(&o->lines, opts->cols, opts->rows);
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
	fgt_lines_free(&o->lines);
	free(o);
}

void fgt_out_set_screen(struct fgt_out *o, bool on)
{
	o->o.screen = on;
}

void fgt_out_resize(struct fgt_out *o, int cols, int rows)
{
	fgt_lines_free(&o->lines);
	fgt_lines_init(&o->lines, cols, rows);
}

void fgt_out_start(struct fgt_out *o, const struct fgt_plan *p)
{
	bool act = fgt_plan_has(p, FGT_ROLE_ACT_DIRECT), sweep = fgt_plan_has(p, FGT_ROLE_SWEEP_DIRECT);
	bool fork = fgt_plan_has(p, FGT_ROLE_FORK_DIRECT);

	if (o->jw) {
		jsonw_head(o->jw, "start");
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
		 fgt_verdict_answer(r->verdict), r->evidence);
	if (o->jw) {
		jsonw_head(o->jw, "static");
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
		jsonw_head(o->jw, "event");
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

static void joined_json(json_writer_t *jw, const struct fgt_joined *j);
static void joined_text(FILE *f, const struct fgt_joined *j);

static void act_json(struct fgt_out *o, const struct fgt_record *rec, const char *evidence)
{
	const struct fgt_activation *a = rec->act;
	json_writer_t *jw = o->jw;
	struct fgt_act_figures fig;

	jsonw_head(jw, "activation");
	jsonw_uint_field(jw, "seq", a->seq);
	jsonw_string_field(jw, "src", src_name(a->src));
	jsonw_bool_field(jw, "complete", a->complete);
	jsonw_bool_field(jw, "joined", rec->joined != NULL);
	jsonw_float_field(jw, "time_s", rel_s(o, a->begin_ns));
	jsonw_name(jw, "trigger");
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "pid", a->pid);
	jsonw_uint_field(jw, "tid", a->tid);
	jsonw_string_field(jw, "comm", a->comm);
	jsonw_string_field(jw, "via", rec->via);
	stack_json(jw, rec->frames, rec->nr_frames);
	jsonw_end_object(jw);
	fgt_act_figures_of(rec, &fig);
	fgt_act_json_fields(jw, &fig, FGT_ACTJ_CALLS | FGT_ACTJ_WALK_NS);
	jsonw_name(jw, "allocations");
	jsonw_start_object(jw);
	alloc_counts_json(jw, "blocking", a->blocking, a->nonblocking, a->failed_blocking,
			  a->failed_nonblocking, a->freed);
	jsonw_end_object(jw);
	jsonw_name(jw, "per_sweep");
	jsonw_start_array(jw);
	for (uint32_t i = 0; a->walks != FGT_WALKS_UNSEEN && i < a->nr_sweeps; i++) {
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
	if (rec->joined)
		joined_json(jw, rec->joined);
	jsonw_end_object(jw);
}

static void hist_add(struct fgt_out *o, const struct fgt_record *rec)
{
	const struct fgt_activation *a = rec->act;
	struct hist_ent *h = &o->hist[o->nhist++ % FGT_HISTORY_MAX];

	h->seq = a->seq;
	h->begin_ns = a->begin_ns;
	memcpy(h->comm, a->comm, sizeof(h->comm));
	snprintf(h->via, sizeof(h->via), "%s", rec->via);
	h->threads = a->nr_threads;
	h->served = a->served;
	h->sweeps = a->walks == FGT_WALKS_UNSEEN ? -1 : (int64_t)a->nr_sweeps;
	h->dur_ns = a->end_ns > a->begin_ns ? a->end_ns - a->begin_ns : 0;
	h->lost = a->lost;
	h->verdict = rec->verdict.verdict;
	h->complete = a->complete;
}

void fgt_out_record(const struct fgt_record *rec, void *ctx)
{
	const struct fgt_activation *a = rec->act;
	struct fgt_out *o = ctx;
	char evidence[FGT_EVIDENCE_LEN], runs[512], st[1024], swb[96];
	double walk_max = 0;
	size_t off = 0;

	fgt_verdict_text(&rec->verdict, evidence, sizeof(evidence));
	hist_add(o, rec);
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
		"  threads %llu; sweeps %s; served %llu; ret %d\n"
		"  served per sweep: %s\n"
		"  walk %.3f ms (max %.3f ms/sweep); allocation phase %.3f ms; end-to-end %.3f ms\n"
		"  allocations: blocking %llu, non-blocking %llu; failed: blocking %llu, "
		"non-blocking %llu; unused freed %llu\n"
		"  verdict: %s: %s\n",
		a->seq, rel_s(o, a->begin_ns), a->complete ? "" : " INCOMPLETE",
		src_name(a->src), a->pid, a->tid, a->comm, rec->via, st,
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

/* ---- figures in words ------------------------------------------------------ */

/* 30048 -> "30,048" */
static const char *grp(uint64_t v, char *b, size_t len)
{
	char raw[32];
	int n = snprintf(raw, sizeof(raw), "%llu", (unsigned long long)v), j = 0;

	for (int i = 0; i < n && (size_t)j + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			b[j++] = ',';
		b[j++] = raw[i];
	}
	b[j] = '\0';
	return b;
}

static const char *dur(uint64_t ns, char *b, size_t len)
{
	if (ns >= 1000000000ull)
		snprintf(b, len, "%.3f s", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(b, len, "%.1f ms", ns / 1e6);
	else
		snprintf(b, len, "%.0f us", ns / 1e3);
	return b;
}

/* The wall-clock time of a monotonic instant, HH:MM:SS. */
static const char *hms_of(const struct fgt_out *o, uint64_t mono_ns, char *b, size_t len)
{
	int64_t wall = o->o.start_wall_ns + ((int64_t)mono_ns - (int64_t)o->o.start_ns);
	time_t t = (time_t)(wall / 1000000000);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(b, len, "%H:%M:%S", &tm);
	return b;
}

static const char *u_words(const struct fgt_progress *p)
{
	switch (p->u_src) {
	case FGT_U_NR_THREADS:	return " (at most: U counts every thread)";
	case FGT_U_NOW:		return " (at most: U is the threads now)";
	case FGT_U_NONE:	return " (U unknown)";
	default:		return "";
	}
}

static const char *pattern_words(const struct fgt_progress *p)
{
	switch (p->so_far) {
	case FGT_VERDICT_NOT_FIXED:	return "unfixed: a sweep per 32 threads";
	case FGT_VERDICT_FIXED:
		return p->sweeps > 1 ? "fixed, walking again: its reserve used up (memory pressure)"
				     : "fixed: one walk, allocating inline";
	default:			return "too early to tell the pattern";
	}
}

/*
 * "1.400 s to 6.952 s (at a pace seen in its 622 sweeps)": the range assumes
 * no more than that (src/model/progress.h). A fixed kernel's is a point:
 * "about 1.6 s (estimate from 1 sweep)", a range again when it walks again
 * under memory pressure (degraded), open above until a third is served.
 * A degraded walk's pace is reclaim's as much as the host's, and the line
 * says the range holds only while they keep it (issue 38: a quiet lab host
 * missed too; the hit rate on the recorded walks is in docs/EVENTS.md).
 */
static const char *left_words(const struct fgt_progress *p, char *b, size_t len)
{
	const char *s = p->fit_sweeps == 1 ? "" : "s";
	char d[32], h[32];

	if (p->eta_known && p->high_open)
		snprintf(b, len, "%s or more (if no more failures; failing on, bounded once a third is served)",
			 p->eta_ns ? dur(p->eta_ns, d, sizeof(d)) : "0");
	else if (p->eta_known && p->degraded)
		snprintf(b, len, "%s to %s (no more failures, or failing as they have since its first "
			 "sweep; if reclaim and the host keep their pace)",
			 p->eta_ns ? dur(p->eta_ns, d, sizeof(d)) : "0",
			 dur(p->eta_high_ns, h, sizeof(h)));
	else if (p->eta_known && p->eta_high_ns > p->eta_ns)
		snprintf(b, len, "%s to %s (at a pace seen in its %u sweep%s)",
			 p->eta_ns ? dur(p->eta_ns, d, sizeof(d)) : "0",
			 dur(p->eta_high_ns, h, sizeof(h)), p->fit_sweeps, s);
	else if (p->eta_known && p->eta_ns)
		snprintf(b, len, "about %s (estimate from %u sweep%s)",
			 dur(p->eta_ns, d, sizeof(d)), p->fit_sweeps, s);
	else if (p->eta_known)
		snprintf(b, len, "due now (past the estimate from %u sweep%s)", p->fit_sweeps, s);
	else if (p->u_src == FGT_U_NONE)
		snprintf(b, len, "unknown (no U: fgraphtop started during it)");
	else
		snprintf(b, len, "not estimated yet (needs the pattern and %s)",
			 p->so_far == FGT_VERDICT_FIXED ? "an inline allocation" : "2 finished sweeps");
	return b;
}

/* ---- JSON: progress and holders ------------------------------------------- */

static void progress_json(struct fgt_out *o, const struct fgt_progress *p,
			  const struct fgt_joined *joined, const char *hms)
{
	json_writer_t *jw = o->jw;

	jsonw_head(jw, "progress");
	jsonw_string_field(jw, "time", hms);
	jsonw_uint_field(jw, "seq", p->seq);
	jsonw_string_field(jw, "src", src_name(p->src));
	jsonw_float_field(jw, "time_s", rel_s(o, p->begin_ns));
	jsonw_name(jw, "trigger");
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "pid", p->pid);
	jsonw_uint_field(jw, "tid", p->tid);
	jsonw_string_field(jw, "comm", p->comm);
	jsonw_string_field(jw, "via", p->via[0] ? p->via : "unknown");
	jsonw_end_object(jw);
	jsonw_uint_field(jw, "elapsed_ns", p->elapsed_ns);
	jsonw_uint_field(jw, "data_age_ns", p->data_age_ns);
	jsonw_uint_field(jw, "threads", p->threads);
	jsonw_string_field(jw, "threads_from", fgt_u_src_name(p->u_src));
	jsonw_uint_field(jw, "served", p->served);
	jsonw_uint_field(jw, "lacking", p->lacking);
	jsonw_bool_field(jw, "lacking_exact", p->lacking_exact);
	jsonw_uint_field(jw, "sweeps", p->sweeps);
	jsonw_string_field(jw, "so_far", fgt_verdict_name(p->so_far));
	if (p->to_come_known)
		jsonw_uint_field(jw, "sweeps_to_come", p->sweeps_to_come);
	else
		jsonw_null_field(jw, "sweeps_to_come");
	if (p->eta_known) {
		jsonw_uint_field(jw, "eta_ns", p->eta_ns);
		if (p->high_open)
			jsonw_null_field(jw, "eta_high_ns");
		else
			jsonw_uint_field(jw, "eta_high_ns", p->eta_high_ns);
	} else {
		jsonw_null_field(jw, "eta_ns");
		jsonw_null_field(jw, "eta_high_ns");
	}
	jsonw_uint_field(jw, "eta_sweeps", p->fit_sweeps);
	jsonw_bool_field(jw, "degraded", p->degraded);
	jsonw_uint_field(jw, "lost", p->lost);
	jsonw_bool_field(jw, "joined", joined != NULL);
	if (joined)
		joined_json(jw, joined);
	jsonw_end_object(jw);
}

static void holder_json(json_writer_t *jw, const struct fgt_holder *h, const char *tfs)
{
	char b[512];

	jsonw_start_object(jw);
	jsonw_string_field(jw, "kind", fgt_holder_kind_name(h->kind));
	jsonw_string_field(jw, "name", h->name);
	jsonw_string_field(jw, "instance", h->instance);
	jsonw_bool_field(jw, "maybe", h->maybe);
	jsonw_bool_field(jw, "return", h->ret);
	jsonw_string_field(jw, "text", fgt_holder_text(h, b, sizeof(b)));
	jsonw_string_field(jw, "undo", fgt_holder_undo(h, tfs, b, sizeof(b)));
	jsonw_int_field(jw, "pid", h->pid);
	jsonw_string_field(jw, "comm", h->comm);
	if (h->kind == FGT_HOLDER_BPF_LINK) {
		jsonw_uint_field(jw, "link_id", h->link_id);
		jsonw_uint_field(jw, "prog_id", h->prog_id);
		jsonw_uint_field(jw, "functions", h->nr_funcs);
		jsonw_uint_field(jw, "owners", h->nr_owners);
	}
	jsonw_bool_field(jw, "fgraphtop_hold", h->hold);
	jsonw_end_object(jw);
}

/* ftrace_graph_active's registrations no holder found accounts for. */
static int unnamed(const struct fgt_holders *h, int graph_active)
{
	int n = graph_active - (int)h->regs - (int)h->regs_maybe;

	return graph_active < 0 || n < 0 ? 0 : n;
}

void fgt_out_holders_json(json_writer_t *jw, const struct fgt_holders *h, int graph_active)
{
	jsonw_int_field(jw, "graph_active", graph_active);
	jsonw_uint_field(jw, "count", h->n);
	jsonw_uint_field(jw, "named", h->regs);
	jsonw_uint_field(jw, "maybe", h->regs_maybe);
	jsonw_uint_field(jw, "unnamed", unnamed(h, graph_active));
	jsonw_string_field(jw, "tracefs", h->tracefs);
	jsonw_bool_field(jw, "bpf_links_listed", h->links_listed);
	jsonw_string_field(jw, "bpf_links_error", h->links_err ? strerror(-h->links_err) : "");
	jsonw_name(jw, "holders");
	jsonw_start_array(jw);
	for (unsigned int i = 0; i < h->kept; i++)
		holder_json(jw, &h->h[i], h->tracefs);
	jsonw_end_array(jw);
}

/* ---- a step joined under way (src/model/joined.h) ------------------------- */

/* "joined": what was seen since joining, what was inferred before it. */
static void joined_json(json_writer_t *jw, const struct fgt_joined *j)
{
	jsonw_name(jw, "joined_step");
	jsonw_start_object(jw);
	jsonw_string_field(jw, "why", fgt_join_why_name(j->why));
	jsonw_string_field(jw, "code", fgt_verdict_answer(j->code));
	jsonw_bool_field(jw, "walk_over", j->walk_over);
	jsonw_name(jw, "trigger");
	jsonw_start_object(jw);
	jsonw_bool_field(jw, "known", j->trig.known);
	jsonw_string_field(jw, "named_by", fgt_join_named_by(&j->trig));
	jsonw_uint_field(jw, "pid", j->trig.pid);
	jsonw_uint_field(jw, "tid", j->trig.tid);
	jsonw_string_field(jw, "comm", j->trig.comm);
	jsonw_string_field(jw, "syscall", j->trig.syscall);
	jsonw_string_field(jw, "via", j->trig.via);
	jsonw_end_object(jw);
	jsonw_name(jw, "seen");
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "looks", j->seen.looks);
	jsonw_uint_field(jw, "lacking_at_join", j->first.lacking);
	jsonw_uint_field(jw, "threads_at_join", j->first.threads);
	jsonw_uint_field(jw, "served", j->seen.served);
	jsonw_uint_field(jw, "lacking", j->seen.lacking);
	jsonw_uint_field(jw, "sweeps", j->seen.sweeps);
	jsonw_uint_field(jw, "sweeps_served", j->seen.sweeps_served);
	jsonw_uint_field(jw, "blocking", j->seen.blocking);
	jsonw_uint_field(jw, "nonblocking", j->seen.nonblocking);
	jsonw_string_field(jw, "so_far", fgt_verdict_name(j->so_far));
	jsonw_end_object(jw);
	jsonw_name(jw, "inferred");
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "served_before", j->inferred.served);
	jsonw_uint_field(jw, "sweeps_before", j->inferred.sweeps);
	jsonw_string_field(jw, "sweeps_before_from", j->inferred.sweeps_from_total ?
			   "served_total" : "held_ahead");
	jsonw_uint_field(jw, "lacking_at_start", j->inferred.lacking_at_start);
	jsonw_uint_field(jw, "visits_before", j->inferred.visits);
	jsonw_float_field(jw, "ns_per_visit", j->inferred.ns_per_visit);
	jsonw_uint_field(jw, "elapsed_before_ns", j->inferred.elapsed_ns);
	jsonw_string_field(jw, "elapsed_from", j->inferred.elapsed_from_cpu ?
			   "trigger_system_time" : "visits");
	jsonw_uint_field(jw, "served_total", fgt_join_served(j));
	jsonw_end_object(jw);
	jsonw_end_object(jw);
}

static void joined_text(FILE *f, const struct fgt_joined *j)
{
	char a[32], b[32], c[32], d[32], e[32];

	fprintf(f, "  joined:    %s threads lacking a stack at the join; seen since: %s served, "
		"%u sweeps (%s), %s still lacking; the code says %s\n"
		"  inferred:  %s served and %u sweeps before joining (the threads holding a stack "
		"ahead of the first lacking one; %s); %s served in all\n",
		grp(j->first.lacking, a, sizeof(a)), grp(j->seen.served, b, sizeof(b)),
		j->seen.sweeps, fgt_verdict_name(j->so_far), grp(j->seen.lacking, c, sizeof(c)),
		fgt_verdict_answer(j->code), grp(j->inferred.served, d, sizeof(d)), j->inferred.sweeps,
		j->code == FGT_VERDICT_FIXED ? "fixed code walks once" : "a batch of 32 a sweep",
		grp(fgt_join_served(j), e, sizeof(e)));
}

void fgt_out_joined(struct fgt_out *o, const struct fgt_joined *j)
{
	char a[32], b[32];

	if (o->jw) {
		jsonw_head(o->jw, "joined");
		jsonw_float_field(o->jw, "joined_after_s", j->inferred.elapsed_ns / 1e9);
		joined_json(o->jw, j);
		jsonw_end_object(o->jw);
		fflush(o->f);
		return;
	}
	if (o->o.screen)
		return;		/* the screen's first frame says it */
	fprintf(o->f, "ACTIVATION UNDER WAY (joined %.1f s in, inferred): pid %u tid %u (%s) %s; "
		"%s threads lacking a stack, %s served before joining (inferred, %u sweeps); "
		"fentry/fexit probes deferred: the walk holds ftrace_lock\n",
		j->inferred.elapsed_ns / 1e9, j->trig.pid, j->trig.tid,
		j->trig.known ? j->trig.comm : "trigger not found",
		j->trig.via[0] ? j->trig.via : "", grp(j->first.lacking, a, sizeof(a)),
		grp(j->inferred.served, b, sizeof(b)), j->inferred.sweeps);
	fflush(o->f);
}

/* ---- text: holders, progress, history -------------------------------------- */

static const char *owner_words(const struct fgt_holder *h, char *b, size_t len)
{
	if (h->kind != FGT_HOLDER_BPF_LINK)
		b[0] = '\0';
	else if (h->nr_owners)
		snprintf(b, len, ", held by pid %d (%s)%s", h->pid, h->comm,
			 h->nr_owners > 1 ? " and others" : "");
	else
		snprintf(b, len, ", held by no process");
	return b;
}

/* The notes under a list of holders: what could not be named or read. */
static void holders_notes(const struct fgt_holders *h, int graph_active,
			  void (*line)(void *ctx, const char *s), void *ctx)
{
	char b[256];
	int un = unnamed(h, graph_active);

	if (!h->n && graph_active == 0)
		line(ctx, "none: fgraph is off; its next user makes the 0->1 step");
	else if (!h->n && graph_active < 0)
		line(ctx, "none found");
	if (un) {
		snprintf(b, sizeof(b), "+%d fgraph user%s no tracefs file or BPF link names "
			 "(a kernel module's, or the kernel's own)", un, un == 1 ? "" : "s");
		line(ctx, b);
	}
	if (!h->tracefs[0])
		line(ctx, "tracefs is not mounted: tracers in use unknown");
	if (h->links_err) {
		snprintf(b, sizeof(b), "BPF links not listed: %s", strerror(-h->links_err));
		line(ctx, b);
	}
	if (h->n > h->kept) {
		snprintf(b, sizeof(b), "... and %u more", h->n - h->kept);
		line(ctx, b);
	}
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
			fgt_holder_text(&h->h[i], t, sizeof(t)), owner_words(&h->h[i], ow, sizeof(ow)),
			fgt_holder_undo(&h->h[i], h->tracefs, u, sizeof(u)));
	holders_notes(h, graph_active, explain_line, f);
}

/* Lines and -j: the holders when they changed (or were never printed). */
void fgt_out_holders(struct fgt_out *o, const struct fgt_status *st)
{
	const struct fgt_holders *h = st->holders;
	char hms[16], t[512], u[512], ow[64];

	/* a record is a consistent picture: not while a re-read is due */
	if (!h || st->holders_stale || o->o.screen || (o->o.events && !o->jw))
		return;
	if (o->shown_any && o->shown_active == st->graph_active && fgt_holders_same(&o->shown, h))
		return;
	o->shown = *h;
	o->shown_active = st->graph_active;
	o->shown_any = true;
	clock_hms(hms, sizeof(hms));
	if (o->jw) {
		jsonw_head(o->jw, "holders");
		jsonw_string_field(o->jw, "time", hms);
		fgt_out_holders_json(o->jw, h, st->graph_active);
		jsonw_end_object(o->jw);
		return;
	}
	fprintf(o->f, "%s fgraph holders: %u (ftrace_graph_active %d)\n", hms, h->n,
		st->graph_active);
	for (unsigned int i = 0; i < h->kept; i++)
		fprintf(o->f, "  %s%s; to turn it off: %s\n",
			fgt_holder_text(&h->h[i], t, sizeof(t)), owner_words(&h->h[i], ow, sizeof(ow)),
			fgt_holder_undo(&h->h[i], h->tracefs, u, sizeof(u)));
	holders_notes(h, st->graph_active, explain_line, o->f);
	fflush(o->f);
}

/* The activation under way in one line (lines mode). */
static void progress_line(struct fgt_out *o, const struct fgt_progress *p,
			  const struct fgt_joined *joined, const char *hms)
{
	char e[32], a[32], b[32], c[32], left[160];

	fprintf(o->f, "%s activation #%u under way%s %s: pid %u (%s)%s%s; served %s of %s threads "
		"at the start, %s still lacking%s; sweeps %u", hms, p->seq,
		p->u_src == FGT_U_EXPOSURE && joined ? " (joined)" : "", dur(p->elapsed_ns, e, sizeof(e)), p->pid, p->comm, p->via[0] ? " " : "", p->via,
		grp(p->served, a, sizeof(a)), grp(p->threads, b, sizeof(b)),
		grp(p->lacking, c, sizeof(c)), u_words(p), p->sweeps);
	if (p->to_come_known)
		fprintf(o->f, ", %llu to come", (unsigned long long)p->sweeps_to_come);
	fprintf(o->f, " (%s); time left %s\n", pattern_words(p), left_words(p, left, sizeof(left)));
}

/* One history row; a NULL h gives the heading. What a narrow terminal cuts
 * comes last: the threads served and the way in. */
static void hist_row(const struct fgt_out *o, const struct hist_ent *h, char *b, size_t len)
{
	char t[16], th[32], sv[32], d[32], sw[24];

	if (!h) {
		snprintf(b, len, "%3s  %-8s  %-15s  %9s  %6s  %9s  %-12s  %9s  %s", "#", "BEGAN",
			 "TRIGGER", "THREADS", "SWEEPS", "DURATION", "VERDICT", "SERVED", "VIA");
		return;
	}
	if (h->sweeps < 0)
		snprintf(sw, sizeof(sw), "n/o");	/* not observable */
	else
		snprintf(sw, sizeof(sw), "%lld", (long long)h->sweeps);
	snprintf(b, len, "%3u  %-8s  %-15.15s  %9s  %6s  %9s  %-12s  %9s  %s%s", h->seq,
		 hms_of(o, h->begin_ns, t, sizeof(t)), h->comm, grp(h->threads, th, sizeof(th)),
		 sw, dur(h->dur_ns, d, sizeof(d)), fgt_verdict_name(h->verdict),
		 grp(h->served, sv, sizeof(sv)), h->via,
		 !h->complete ? " (incomplete)" : h->lost ? " (events lost)" : "");
}

/* The i-th newest history entry (0: the newest). */
static const struct hist_ent *hist_nth(const struct fgt_out *o, unsigned int i)
{
	unsigned int kept = o->nhist < FGT_HISTORY_MAX ? o->nhist : FGT_HISTORY_MAX;

	return i < kept ? &o->hist[(o->nhist - 1 - i) % FGT_HISTORY_MAX] : NULL;
}

void fgt_out_exposure_json(json_writer_t *jw, const struct fgt_exp_walk *w,
			   const struct fgt_exp_estimate *e)
{
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "threads", w->threads);
	jsonw_uint_field(jw, "lacking", w->lacking);
	jsonw_uint_field(jw, "sweeps", w->sweeps);
	jsonw_uint_field(jw, "visits", w->visits);
	jsonw_float_field(jw, "estimate_s", e->seconds);
	jsonw_float_field(jw, "ns_per_visit", e->ns_per_visit);
	jsonw_string_field(jw, "cost", fgt_exp_cost_src_name(e->src));
	jsonw_uint_field(jw, "calib_visits", e->calib_visits);
	jsonw_end_object(jw);
}

/* "lacking a stack: 30,048 of 30,112 threads; unfixed walk ~1.29 s (series'
 * cost)": 80 columns hold it up to 400,000 threads */
static void exposure_words(const struct fgt_status *st, char *b, size_t len)
{
	char a[32], t[32];

	snprintf(b, len, "lacking a stack: %s of %s threads; unfixed walk ~%.3g s (%s)",
		 grp(st->exposure->lacking, a, sizeof(a)), grp(st->exposure->threads, t, sizeof(t)),
		 st->exposure_est.seconds,
		 st->exposure_est.src == FGT_EXP_COST_OBSERVED ? "host's cost" : "series' cost");
}

/* ---- the screen ------------------------------------------------------------ */

static void scr_header(struct fgt_out *o, const struct fgt_status *st)
{
	struct fgt_lines *l = &o->lines;
	char hms[16];

	clock_hms(hms, sizeof(hms));
	/* the verdict first: a narrow terminal cuts the end of the row */
	fgt_lines_add(l, "verdict %s   fgraphtop  %s   activations %u%s   lost %llu   (q quits)",
		      fgt_verdict_name(st->judge->verdict), hms, st->judge->n,
		      st->cur ? " (+1 under way)" : "", (unsigned long long)st->lost);
	if (o->code[0])
		fgt_lines_add(l, "%s", o->code);
	if (st->graph_active < 0)
		fgt_lines_add(l, "fgraph: users unknown");
	else if (!st->graph_active)
		fgt_lines_add(l, "fgraph: off (ftrace_graph_active 0)");
	else
		fgt_lines_add(l, "fgraph: on, ftrace_graph_active %d", st->graph_active);
	if (st->exposure) {
		char ex[128];

		exposure_words(st, ex, sizeof(ex));
		fgt_lines_add(l, "%s", ex);
	}
}

#define SCR_WARNINGS	3

/* The newest warnings, which stderr would have lost under the next frame;
 * all of them are printed once the terminal is back (src/common/log.c). */
static void scr_warnings(struct fgt_out *o)
{
	const char *w[SCR_WARNINGS];
	unsigned int n = fgt_log_warnings(w, SCR_WARNINGS);

	for (unsigned int i = 0; i < n && i < SCR_WARNINGS; i++)
		fgt_lines_add(&o->lines, "%s", w[i]);
	if (n > SCR_WARNINGS)
		fgt_lines_add(&o->lines, "(%u earlier warnings: all are printed on exit)",
			      n - SCR_WARNINGS);
}

static void scr_bar(struct fgt_lines *l, unsigned int pct)
{
	char bar[128];
	int w = l->cols - 10, full;

	if (w > 60)
		w = 60;
	if (w < 10)
		return;
	full = w * (int)pct / 100;
	for (int i = 0; i < w; i++)
		bar[i] = i < full ? '#' : '.';
	bar[w] = '\0';
	fgt_lines_add(l, "  [%s] %3u%%", bar, pct);
}

static void scr_progress(struct fgt_out *o, const struct fgt_status *st)
{
	const struct fgt_progress *p = st->progress;
	struct fgt_lines *l = &o->lines;
	char e[32], age[64] = "", a[32], b[32], c[32], left[160];

	if (!p) {
		fgt_lines_add(l, "%s", st->judge->n ? "no activation under way" :
			      "no activation seen yet: waiting for fgraph's next 0->1 step "
			      "(fgraphtop never causes one)");
		return;
	}
	/* every fact of it wraps rather than being cut (a 60-column terminal) */
	if (st->joined)
		fgt_lines_wrap(l, 2, "ACTIVATION UNDER WAY (joined %.1f s in)  pid %u (%s)  %s  "
			      "[before joining, inferred: %llu served, %u sweeps; fentry probes "
			      "deferred: the walk holds ftrace_lock]",
			      st->joined->inferred.elapsed_ns / 1e9, p->pid, p->comm,
			      p->via[0] ? p->via : "way in not known",
			      (unsigned long long)st->joined->inferred.served,
			      st->joined->inferred.sweeps);
	else
		fgt_lines_wrap(l, 2, "ACTIVATION #%u UNDER WAY  pid %u (%s)  %s%s", p->seq, p->pid,
			      p->comm, p->via[0] ? p->via : "way in not known yet",
			      p->u_src == FGT_U_NOW || p->u_src == FGT_U_NONE ?
			      "  (fgraphtop started during it)" : "");
	if (p->data_age_ns >= 500000000ull)
		snprintf(age, sizeof(age), " (figures %s old: read once a second)",
			 dur(p->data_age_ns, b, sizeof(b)));
	fgt_lines_wrap(l, 13, "  elapsed    %s%s", dur(p->elapsed_ns, e, sizeof(e)), age);
	fgt_lines_wrap(l, 13, "  threads    %s served of %s at the start, %s still lacking%s",
		      grp(p->served, a, sizeof(a)), grp(p->threads, b, sizeof(b)),
		      grp(p->lacking, c, sizeof(c)), u_words(p));
	if (p->to_come_known)
		fgt_lines_wrap(l, 13, "  sweeps     %u so far, %llu to come (%s)", p->sweeps,
			      (unsigned long long)p->sweeps_to_come, pattern_words(p));
	else
		fgt_lines_wrap(l, 13, "  sweeps     %u so far (%s)", p->sweeps, pattern_words(p));
	fgt_lines_wrap(l, 13, "  time left  %s", left_words(p, left, sizeof(left)));
	if (p->u_src != FGT_U_NONE)
		scr_bar(l, fgt_progress_percent(p));
}

static void scr_note(void *ctx, const char *s)
{
	fgt_lines_add(ctx, "  %s", s);
}

static void scr_holders(struct fgt_out *o, const struct fgt_status *st)
{
	const struct fgt_holders *h = st->holders;
	struct fgt_lines *l = &o->lines;
	char t[256], u[256], ow[64], line[512], hms[16];
	int w = 0, wu = 0;

	if (!h) {
		fgt_lines_add(l, "HOLDERS  not read yet");
		return;
	}
	if (st->holders_stale)
		/* fgraph changed since the read; during a tracer switch tracefs
		 * is locked: the old list, said to be old, and no sums with it */
		fgt_lines_add(l, "HOLDERS  as read at %s, before fgraph changed (a tracer switch "
			      "locks tracefs while it runs)", hms_of(o, st->holders_ns, hms, sizeof(hms)));
	else
		fgt_lines_add(l, "HOLDERS  what keeps fgraph on, and what turning it off takes");
	for (unsigned int i = 0; i < h->kept; i++) {
		int n = snprintf(line, sizeof(line), "%s%s", fgt_holder_text(&h->h[i], t, sizeof(t)),
				 owner_words(&h->h[i], ow, sizeof(ow)));
		int m = (int)strlen(fgt_holder_undo(&h->h[i], h->tracefs, u, sizeof(u)));

		if (n > w)
			w = n;
		if (m > wu)
			wu = m;
	}
	/* a table when it fits, else each holder over two rows */
	for (unsigned int i = 0; i < h->kept; i++) {
		snprintf(line, sizeof(line), "%s%s", fgt_holder_text(&h->h[i], t, sizeof(t)),
			 owner_words(&h->h[i], ow, sizeof(ow)));
		fgt_holder_undo(&h->h[i], h->tracefs, u, sizeof(u));
		if (2 + w + 2 + wu <= l->cols) {
			fgt_lines_add(l, "  %-*s  %s", w, line, u);
		} else {
			fgt_lines_wrap(l, 4, "  %s", line);
			/* a remedy is a command to type: wrapped, never cut */
			fgt_lines_wrap(l, 11, "      off: %s", u);
		}
	}
	if (!st->holders_stale)
		holders_notes(h, st->graph_active, scr_note, l);
	else if (!h->kept)
		fgt_lines_add(l, "  none then");
}

/* The history table: as many of the newest as fit, leaving `keep` rows. */
static void scr_history(struct fgt_out *o, int keep)
{
	struct fgt_lines *l = &o->lines;
	unsigned int kept = o->nhist < FGT_HISTORY_MAX ? o->nhist : FGT_HISTORY_MAX;
	int room = fgt_lines_left(l) - keep - 1;
	char row[256];

	if (!o->nhist)
		return;
	fgt_lines_add(l, "HISTORY  the last activations, newest first");
	hist_row(o, NULL, row, sizeof(row));
	fgt_lines_add(l, "%s", row);
	for (unsigned int i = 0; i < kept && (int)i < (room > 1 ? room - 1 : 1); i++) {
		hist_row(o, hist_nth(o, i), row, sizeof(row));
		fgt_lines_add(l, "%s", row);
	}
}

static void scr_last(struct fgt_out *o)
{
	struct fgt_lines *l = &o->lines;
	const char *p = o->last;

	if (!o->last[0])
		return;
	fgt_lines_add(l, "LAST ACTIVATION");
	while (*p) {
		const char *nl = strchr(p, '\n');

		fgt_lines_add(l, "%.*s", (int)(nl ? nl - p : (long)strlen(p)), p);
		p = nl ? nl + 1 : p + strlen(p);
	}
}

static void scr_fork(struct fgt_out *o, const struct fgt_status *st)
{
	const struct fgt_fork_stats *fk = st->fork;

	fgt_lines_add(&o->lines, "fork path: %llu allocations (%llu failed), %llu new tasks, %llu "
		      "left without a stack, %llu idle-task allocations",
		      (unsigned long long)fk->allocs, (unsigned long long)fk->failed,
		      (unsigned long long)fk->tasks_new, (unsigned long long)fk->tasks_without,
		      (unsigned long long)fk->idle_allocs);
}

/*
 * A frame, most urgent first: the header and the newest warnings, the
 * activation under way, who holds fgraph, the history, the last activation's
 * details, the fork path. A short terminal loses the bottom; the history
 * keeps at least its newest row.
 */
void fgt_out_redraw(struct fgt_out *o, const struct fgt_status *st)
{
	struct fgt_lines *l = &o->lines;

	if (!o->o.screen)
		return;
	fgt_lines_reset(l);
	scr_header(o, st);
	scr_warnings(o);
	fgt_lines_add(l, "%s", "");
	scr_progress(o, st);
	fgt_lines_add(l, "%s", "");
	scr_holders(o, st);
	fgt_lines_add(l, "%s", "");
	scr_history(o, o->last[0] ? 4 : 1);
	if (o->nhist)
		fgt_lines_add(l, "%s", "");
	scr_fork(o, st);
	if (o->last[0]) {
		fgt_lines_add(l, "%s", "");
		scr_last(o);
	}
	fgt_lines_draw(l, o->f);
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
		jsonw_head(o->jw, "interval");
		jsonw_string_field(o->jw, "time", hms);
		jsonw_uint_field(o->jw, "activations", st->judge->n);
		jsonw_bool_field(o->jw, "in_progress", cur != NULL);
		jsonw_uint_field(o->jw, "in_progress_sweeps", cur ? cur->nr_sweeps : 0);
		fork_json(o->jw, fk);
		jsonw_uint_field(o->jw, "lost", st->lost);
		jsonw_string_field(o->jw, "verdict", verdict);
		jsonw_name(o->jw, "exposure");
		if (st->exposure)
			fgt_out_exposure_json(o->jw, st->exposure, &st->exposure_est);
		else
			jsonw_null(o->jw);
		jsonw_end_object(o->jw);
		if (st->progress)
			progress_json(o, st->progress, st->joined, hms);
		return;
	}
	if (o->o.screen) {
		fgt_out_redraw(o, st);
		return;
	}
	fprintf(o->f, "%s activations %u%s; fork path: allocs %llu failed %llu new tasks %llu "
		"without stack %llu; lost %llu", hms, st->judge->n,
		cur ? " (+1 under way)" : "", (unsigned long long)fk->allocs,
		(unsigned long long)fk->failed, (unsigned long long)fk->tasks_new,
		(unsigned long long)fk->tasks_without, (unsigned long long)st->lost);
	if (st->exposure) {
		char ex[128];

		exposure_words(st, ex, sizeof(ex));
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
	hist_row(o, NULL, row, sizeof(row));
	fprintf(o->f, "%s\n", row);
	for (unsigned int i = 0; i < kept; i++) {
		hist_row(o, hist_nth(o, i), row, sizeof(row));
		fprintf(o->f, "%s\n", row);
	}
}

void fgt_out_final(struct fgt_out *o, const struct fgt_status *st)
{
	const struct fgt_fork_stats *fk = st->fork;
	char evidence[FGT_EVIDENCE_LEN];

	fgt_judge_text(st->judge, evidence, sizeof(evidence));
	if (o->jw) {
		jsonw_head(o->jw, "summary");
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
