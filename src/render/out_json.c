// SPDX-License-Identifier: GPL-2.0
/* fgraphtop's JSON lines: see out_json.h. JSON names: docs/json.md (schema FGT_JSON_SCHEMA). */
#include <string.h>
#include "model/hist.h"
#include "render/act_json.h"
#include "render/out_json.h"
#include "render/out_state.h"
#include "render/out_words.h"
#include "render/static_json.h"

void out_json_start(struct fgt_out *o, const struct fgt_plan *p)
{
	bool act = fgt_plan_has(p, FGT_ROLE_ACT_DIRECT), sweep = fgt_plan_has(p, FGT_ROLE_SWEEP_DIRECT);
	bool fork = fgt_plan_has(p, FGT_ROLE_FORK_DIRECT);

	jsonw_head(o->jw, "start");
	jsonw_string_field(o->jw, "activation_path", act ? "direct" : "attributed");
	jsonw_string_field(o->jw, "sweep_path", sweep ? "direct" : "attributed");
	jsonw_string_field(o->jw, "fork_path", fork ? "direct" : "attributed");
	jsonw_bool_field(o->jw, "latency", fgt_plan_has_lat(p));
	jsonw_end_object(o->jw);
}

void out_json_static(struct fgt_out *o, const struct fgt_static_result *r)
{
	jsonw_head(o->jw, "static");
	fgt_static_json_fields(r, o->jw);
	jsonw_end_object(o->jw);
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

void out_json_event(struct fgt_out *o, const struct fgt_event *e,
		    const struct fgt_frame *frames, int nr_frames)
{
	jsonw_head(o->jw, "event");
	jsonw_string_field(o->jw, "event", out_ev_name(e->type));
	jsonw_string_field(o->jw, "src", out_src_name(e->src));
	jsonw_float_field(o->jw, "time_s", out_rel_s(o, e->ts_ns));
	jsonw_uint_field(o->jw, "cpu", e->cpu);
	jsonw_uint_field(o->jw, "pid", e->pid);
	jsonw_uint_field(o->jw, "tid", e->tid);
	jsonw_string_field(o->jw, "comm", e->comm);
	switch (e->type) {
	case FGT_EV_ALLOC:
		jsonw_string_field(o->jw, "site", out_site_name(e->site));
		jsonw_string_field(o->jw, "gfp_class", out_gfp_class(e->gfp));
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
	fgt_out_join_trigger_json(jw, &j->trig);
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

void out_json_record(struct fgt_out *o, const struct fgt_record *rec, const char *evidence)
{
	const struct fgt_activation *a = rec->act;
	json_writer_t *jw = o->jw;
	struct fgt_act_figures fig;

	jsonw_head(jw, "activation");
	jsonw_uint_field(jw, "seq", a->seq);
	jsonw_string_field(jw, "src", out_src_name(a->src));
	jsonw_bool_field(jw, "complete", a->complete);
	jsonw_bool_field(jw, "joined", rec->joined != NULL);
	jsonw_float_field(jw, "time_s", out_rel_s(o, a->begin_ns));
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

static void progress_json(struct fgt_out *o, const struct fgt_progress *p,
			  const struct fgt_joined *joined, const char *hms)
{
	json_writer_t *jw = o->jw;

	jsonw_head(jw, "progress");
	jsonw_string_field(jw, "time", hms);
	jsonw_uint_field(jw, "seq", p->seq);
	jsonw_string_field(jw, "src", out_src_name(p->src));
	jsonw_float_field(jw, "time_s", out_rel_s(o, p->begin_ns));
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

void fgt_out_join_trigger_json(json_writer_t *jw, const struct fgt_join_trigger *t)
{
	jsonw_uint_field(jw, "pid", t->pid);
	jsonw_uint_field(jw, "tid", t->tid);
	jsonw_string_field(jw, "comm", t->comm);
	jsonw_string_field(jw, "syscall", t->syscall);
	jsonw_string_field(jw, "via", t->via);
}

void fgt_out_holders_json(json_writer_t *jw, const struct fgt_holders *h, int graph_active)
{
	jsonw_int_field(jw, "graph_active", graph_active);
	jsonw_uint_field(jw, "count", h->n);
	jsonw_uint_field(jw, "named", h->regs);
	jsonw_uint_field(jw, "maybe", h->regs_maybe);
	jsonw_uint_field(jw, "unnamed", out_unnamed(h, graph_active));
	jsonw_string_field(jw, "tracefs", h->tracefs);
	jsonw_bool_field(jw, "bpf_links_listed", h->links_listed);
	jsonw_string_field(jw, "bpf_links_error", h->links_err ? strerror(-h->links_err) : "");
	jsonw_name(jw, "holders");
	jsonw_start_array(jw);
	for (unsigned int i = 0; i < h->kept; i++)
		holder_json(jw, &h->h[i], h->tracefs);
	jsonw_end_array(jw);
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

void out_json_joined(struct fgt_out *o, const struct fgt_joined *j)
{
	jsonw_head(o->jw, "joined");
	jsonw_float_field(o->jw, "joined_after_s", j->inferred.elapsed_ns / 1e9);
	joined_json(o->jw, j);
	jsonw_end_object(o->jw);
	fflush(o->f);
}

void out_json_holders(struct fgt_out *o, const struct fgt_holders *h, int graph_active,
		      const char *hms)
{
	jsonw_head(o->jw, "holders");
	jsonw_string_field(o->jw, "time", hms);
	fgt_out_holders_json(o->jw, h, graph_active);
	jsonw_end_object(o->jw);
}

void out_json_interval(struct fgt_out *o, const struct fgt_status *st, const char *hms)
{
	const struct fgt_activation *cur = st->cur;

	jsonw_head(o->jw, "interval");
	jsonw_string_field(o->jw, "time", hms);
	jsonw_uint_field(o->jw, "activations", st->judge->n);
	jsonw_bool_field(o->jw, "in_progress", cur != NULL);
	jsonw_uint_field(o->jw, "in_progress_sweeps", cur ? cur->nr_sweeps : 0);
	fork_json(o->jw, st->fork);
	jsonw_uint_field(o->jw, "lost", st->lost);
	jsonw_string_field(o->jw, "verdict", fgt_verdict_name(st->judge->verdict));
	jsonw_name(o->jw, "exposure");
	if (st->exposure)
		fgt_out_exposure_json(o->jw, st->exposure, &st->exposure_est);
	else
		jsonw_null(o->jw);
	jsonw_end_object(o->jw);
	if (st->progress)
		progress_json(o, st->progress, st->joined, hms);
}

void out_json_final(struct fgt_out *o, const struct fgt_status *st, const char *evidence)
{
	jsonw_head(o->jw, "summary");
	jsonw_uint_field(o->jw, "activations", st->judge->n);
	jsonw_string_field(o->jw, "verdict", fgt_verdict_name(st->judge->verdict));
	jsonw_string_field(o->jw, "evidence", evidence);
	fork_json(o->jw, st->fork);
	jsonw_uint_field(o->jw, "lost", st->lost);
	jsonw_end_object(o->jw);
}
