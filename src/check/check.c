// SPDX-License-Identifier: GPL-2.0
/*
 * `fgraphtop check`: one answer for the running kernel, for people and for
 * fleet tooling (Nagios-style line, JSON, node_exporter textfile).
 *
 *   1. name the kernel (release, build ID);
 *   2. no function graph tracer: not affected, done (no BPF needed);
 *   3. --trigger: refuse when fgraph is in use or the unfixed walk would be
 *      dangerous here (estimate stated);
 *   4. start the BPF session; --trigger: park threads, cause the 0->1 step,
 *      undo it; passive: wait up to --timeout for someone else's;
 *   5. judge (verdict.c), print, write the metrics file.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "check/check.h"
#include "common/clause.h"
#include "common/json_writer.h"
#include "common/log.h"
#include "live/output.h"
#include "check/park.h"
#include "check/prom.h"
#include "static/static_check.h"
#include "check/trigger.h"


#define CHECK_GRACE_S		10.0	/* past the deadline, for an activation under way */
#define CHECK_POLL_MS		100

const char *fgt_check_verdict_name(enum fgt_check_verdict v)
{
	switch (v) {
	case FGT_CHECK_V_FIXED:		return "fixed";
	case FGT_CHECK_V_NOT_FIXED:	return "not_fixed";
	case FGT_CHECK_V_NOT_AFFECTED:	return "not_affected";
	default:			return "unknown";
	}
}

static const char *status_word(int status)
{
	switch (status) {
	case FGT_CHECK_OK:		return "OK";
	case FGT_CHECK_WARNING:		return "WARNING";
	case FGT_CHECK_CRITICAL:	return "CRITICAL";
	default:			return "UNKNOWN";
	}
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double epoch_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- activations seen --------------------------------------------------- */

void fgt_check_seen_init(struct fgt_check_seen *s)
{
	memset(s, 0, sizeof(*s));
	fgt_judge_init(&s->judge);
}

void fgt_check_on_record(const struct fgt_record *rec, void *ctx)
{
	const struct fgt_activation *act = rec->act;
	struct fgt_check_seen *s = ctx;

	s->judge = *rec->judge;
	s->n = rec->judge->n;
	/* keep the figures of the activation the judge quotes */
	if (s->have && !rec->quoted)
		return;
	s->have = true;
	s->duration_s = act->end_ns > act->begin_ns ? (act->end_ns - act->begin_ns) / 1e9 : 0;
	s->sweeps = act->nr_sweeps;
	s->served = act->served;
	s->failures = act->failed_blocking + act->failed_nonblocking;
	s->failed_nonblocking = act->failed_nonblocking;
	s->reserve_served = act->served > act->nonblocking ? act->served - act->nonblocking : 0;
	s->extra_sweeps = act->nr_sweeps > 1 ? act->nr_sweeps - 1 : 0;
	s->rewalked = 0;
	for (uint32_t i = 1, before = 0; i < act->nr_sweeps; i++) {
		before += act->sweeps[i - 1].served;
		s->rewalked += before;
	}
	s->extra_s = s->extra_sweeps && act->end_ns > act->sweeps[1].begin_ns ?
		(act->end_ns - act->sweeps[1].begin_ns) / 1e9 : 0;
	s->nr_threads = act->nr_threads;
	s->lost = act->lost;
	s->walk_ns = act->walk_ns;
	s->triggered_by_us = act->pid == (uint32_t)getpid();
}

static bool decisive(const struct fgt_check_seen *s)
{
	return s->judge.verdict == FGT_VERDICT_FIXED || s->judge.verdict == FGT_VERDICT_NOT_FIXED;
}

/* ---- verdict ------------------------------------------------------------- */

void fgt_check_decide(struct fgt_check_result *r, const char *hint)
{
	const struct fgt_judge *j = &r->seen.judge;

	fgt_judge_text(j, r->reason, sizeof(r->reason));
	switch (j->verdict) {
	case FGT_VERDICT_NOT_FIXED:
		r->verdict = FGT_CHECK_V_NOT_FIXED;
		r->status = FGT_CHECK_CRITICAL;
		break;
	case FGT_VERDICT_FIXED:
		r->verdict = FGT_CHECK_V_FIXED;
		r->status = FGT_CHECK_OK;
		if (j->failures) {
			fgt_clause_add(r->reason, sizeof(r->reason), "%" PRIu64 " shadow-stack "
			       "allocation%s failed", j->failures, j->failures == 1 ? "" : "s");
			r->status = FGT_CHECK_WARNING;
		}
		break;
	case FGT_VERDICT_NOT_AFFECTED:
		r->verdict = FGT_CHECK_V_NOT_AFFECTED;
		r->status = FGT_CHECK_OK;
		break;
	default:
		r->verdict = FGT_CHECK_V_UNKNOWN;
		r->status = FGT_CHECK_UNKNOWN;
		break;
	}
	/*
	 * Only the judged activation's own lost records can make its figures a
	 * lower bound. Other losses (runs the kernel skipped while interrupts
	 * freed objects, a second fgraphtop's slower consumer) are reported in
	 * lost_events but never were its events: they would make a fleet of
	 * fixed kernels flap to WARNING.
	 */
	if (r->seen.lost) {
		fgt_clause_add(r->reason, sizeof(r->reason), "%" PRIu64 " event%s lost during "
			       "the activation", r->seen.lost, r->seen.lost == 1 ? "" : "s");
		if (r->status == FGT_CHECK_OK)
			r->status = FGT_CHECK_WARNING;
	}
	if (r->verdict == FGT_CHECK_V_UNKNOWN && hint && *hint)
		fgt_clause_add(r->reason, sizeof(r->reason), "%s", hint);
}

static void unknown(struct fgt_check_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void unknown(struct fgt_check_result *r, const char *fmt, ...)
{
	va_list ap;

	r->verdict = FGT_CHECK_V_UNKNOWN;
	r->status = FGT_CHECK_UNKNOWN;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

/* ---- outputs ------------------------------------------------------------- */

static const char *verdict_words(enum fgt_check_verdict v)
{
	switch (v) {
	case FGT_CHECK_V_FIXED:		return "fixed";
	case FGT_CHECK_V_NOT_FIXED:	return "not fixed";
	case FGT_CHECK_V_NOT_AFFECTED:	return "not affected";
	default:			return "unknown";
	}
}

/* Where the answer came from, in words, once the code was asked. */
static const char *method_words(const struct fgt_check_result *r)
{
	const char *m = r->answered_by ? r->answered_by : "";

	if (!r->have_static || r->verdict == FGT_CHECK_V_NOT_AFFECTED)
		return "";
	if (!strcmp(m, "static"))
		return " (from the code)";
	if (!strcmp(m, "static+trigger") || !strcmp(m, "static+watch"))
		return " (from the code and an activation)";
	if (!strcmp(m, "trigger") || !strcmp(m, "watch"))
		return " (from an activation)";
	return "";
}

/* A perfdata value: digits and a point only (the monitoring-plugin format
 * has no exponent), to the microsecond, no trailing zeros. */
static const char *perf_seconds(double v, char *b, size_t len)
{
	char *p;

	snprintf(b, len, "%.6f", v);
	p = b + strlen(b) - 1;
	while (p > b && *p == '0')
		*p-- = '\0';
	if (*p == '.')
		*p = '\0';
	return b;
}

void fgt_check_print_line(FILE *f, const struct fgt_check_result *r)
{
	char est[48];

	const char *sep = " | ";	/* perfdata follow it, space-separated */

	fprintf(f, "FGRAPH %s - %s%s: %s; kernel %s build %s", status_word(r->status),
		verdict_words(r->verdict), method_words(r), r->reason,
		r->kid.release[0] ? r->kid.release : "?",
		r->kid.build_id[0] ? r->kid.build_id : "unknown");
	if (r->seen.have) {
		fprintf(f, "%ssweeps=%" PRIu64 " served=%" PRIu64 " duration=%.3fs failures=%"
			PRIu64 " lost=%" PRIu64, sep, r->seen.sweeps, r->seen.served,
			r->seen.duration_s, r->seen.failures, r->lost);
		sep = " ";
	} else if (r->verdict != FGT_CHECK_V_NOT_AFFECTED &&
		   !(r->answered_by && !strcmp(r->answered_by, "static"))) {
		fprintf(f, "%slost=%" PRIu64, sep, r->lost);
		sep = " ";
	}
	if (r->have_exposure)
		fprintf(f, "%slacking=%" PRIu64 " walk_estimate=%ss", sep, r->exposure.lacking,
			perf_seconds(r->exposure_est.seconds, est, sizeof(est)));
	fputc('\n', f);
	fflush(f);
}

static void exposure_json(json_writer_t *jw, const struct fgt_check_result *r)
{
	if (!r->have_exposure) {
		if (r->exposure_why[0]) {
			jsonw_name(jw, "exposure");
			jsonw_start_object(jw);
			jsonw_string_field(jw, "error", r->exposure_why);
			jsonw_end_object(jw);
		}
		return;
	}
	jsonw_name(jw, "exposure");
	fgt_out_exposure_json(jw, &r->exposure, &r->exposure_est);
}

void fgt_check_print_json(FILE *f, const struct fgt_check_result *r)
{
	json_writer_t *jw = jsonw_new(f);

	if (!jw)
		return;
	jsonw_start_object(jw);
	jsonw_uint_field(jw, "schema", FGT_JSON_SCHEMA);
	jsonw_string_field(jw, "type", "check");
	jsonw_string_field(jw, "verdict", fgt_check_verdict_name(r->verdict));
	jsonw_int_field(jw, "status", r->status);
	jsonw_string_field(jw, "reason", r->reason);
	if (r->answered_by)
		jsonw_string_field(jw, "method", r->answered_by);
	jsonw_name(jw, "kernel");
	jsonw_start_object(jw);
	jsonw_string_field(jw, "release", r->kid.release);
	if (r->kid.build_id[0])
		jsonw_string_field(jw, "build_id", r->kid.build_id);
	else
		jsonw_null_field(jw, "build_id");
	jsonw_end_object(jw);
	jsonw_float_field(jw, "check_time", r->check_time);
	jsonw_uint_field(jw, "activations_seen", r->seen.n);
	jsonw_uint_field(jw, "lost_events", r->lost);
	if (r->seen.have) {
		jsonw_name(jw, "activation");
		jsonw_start_object(jw);
		jsonw_uint_field(jw, "sweeps", r->seen.sweeps);
		jsonw_uint_field(jw, "threads_served", r->seen.served);
		jsonw_float_field(jw, "duration_s", r->seen.duration_s);
		jsonw_uint_field(jw, "failures", r->seen.failures);
		jsonw_uint_field(jw, "failed_nonblocking", r->seen.failed_nonblocking);
		jsonw_uint_field(jw, "reserve_served", r->seen.reserve_served);
		jsonw_uint_field(jw, "extra_sweeps", r->seen.extra_sweeps);
		jsonw_float_field(jw, "extra_sweeps_s", r->seen.extra_s);
		jsonw_uint_field(jw, "rewalked", r->seen.rewalked);
		jsonw_uint_field(jw, "nr_threads", r->seen.nr_threads);
		jsonw_uint_field(jw, "lost_events", r->seen.lost);
		jsonw_bool_field(jw, "triggered_by_check", r->seen.triggered_by_us);
		jsonw_end_object(jw);
	}
	exposure_json(jw, r);
	if (r->triggered || r->parked || r->threads >= 0) {
		jsonw_name(jw, "trigger");
		jsonw_start_object(jw);
		jsonw_bool_field(jw, "done", r->triggered);
		if (r->method)
			jsonw_string_field(jw, "method", r->method);
		if (r->func[0])
			jsonw_string_field(jw, "function", r->func);
		jsonw_uint_field(jw, "parked_threads", r->parked);
		jsonw_int_field(jw, "threads", r->threads);
		jsonw_name(jw, "unfixed_estimate");
		jsonw_start_object(jw);
		jsonw_uint_field(jw, "lacking", r->trig_walk.lacking);
		jsonw_uint_field(jw, "sweeps", r->trig_walk.sweeps);
		jsonw_uint_field(jw, "visits", r->trig_walk.visits);
		jsonw_float_field(jw, "seconds", r->trig_est.seconds);
		jsonw_bool_field(jw, "assumed", r->trig_assumed);
		jsonw_end_object(jw);
		if (r->cleaned[0])
			jsonw_string_field(jw, "cleaned", r->cleaned);
		jsonw_end_object(jw);
	}
	if (r->have_static) {
		jsonw_name(jw, "static");
		jsonw_start_object(jw);
		fgt_static_json_fields(&r->st, jw);
		jsonw_end_object(jw);
	}
	jsonw_end_object(jw);
	jsonw_destroy(&jw);
	fflush(f);
}

int fgt_check_write_prom(const char *path, const struct fgt_check_result *r, char *err, size_t len)
{
	struct fgt_prom_metrics m = {
		.verdict = fgt_check_verdict_name(r->verdict),
		.status = r->status,
		.release = r->kid.release,
		.build_id = r->kid.build_id,
		.check_time = r->check_time,
		.have_activation = r->seen.have,
		.activation_seconds = r->seen.duration_s,
		.sweeps = r->seen.sweeps,
		.threads_served = r->seen.served,
		.failures = r->seen.failures,
		.failed_nonblocking = r->seen.failed_nonblocking,
		.extra_sweeps = r->seen.extra_sweeps,
		.extra_seconds = r->seen.extra_s,
		.lost_events = r->lost,
		.method = r->answered_by,
		.have_exposure = r->have_exposure,
		.lacking = r->exposure.lacking,
		.walk_estimate_s = r->exposure_est.seconds,
		.visit_cost_s = r->exposure_est.ns_per_visit / 1e9,
		.visit_cost_src = fgt_exp_cost_src_name(r->exposure_est.src),
	};

	return fgt_prom_write(path, &m, err, len);
}

/* ---- the run ------------------------------------------------------------- */

static bool stopped(const struct fgt_check_sys *sys)
{
	return sys->stop && *sys->stop;
}

/*
 * Poll the session until: (until_any) an activation beyond `after` completed,
 * or (else) a decisive one; or the deadline (extended by the grace while an
 * activation is under way); or a signal.
 */
static void watch_until(const struct fgt_check_sys *sys, struct fgt_check_seen *s,
			double deadline, unsigned int after, bool until_any)
{
	const struct fgt_watch_ops *w = sys->watch;

	while (!stopped(sys)) {
		bool busy = w->busy && w->busy(w->priv);
		double now = mono_s();

		if (now >= deadline + (busy ? CHECK_GRACE_S : 0))
			break;
		w->poll(w->priv, CHECK_POLL_MS);
		busy = w->busy && w->busy(w->priv);
		if (busy)
			continue;
		if (until_any ? s->n > after : decisive(s))
			break;
	}
}

/* --trigger's refusal before anything changes: fgraph in use. 0 go, else r
 * is set (unknown). */
static int may_trigger(const struct fgt_check_sys *sys, const struct fgt_ksyms *ks,
		       struct fgt_check_result *r)
{
	const struct fgt_watch_ops *w = sys->watch;
	struct fgt_host h = sys->host;
	char users[512];
	int n, active;

	h.no_bpf_links = h.no_bpf_links || sys->no_bpf;
	n = fgt_host_fgraph_users(&h, ks, NULL, users, sizeof(users));
	active = w && w->graph_active ? w->graph_active(w->priv) : -1;
	if (n > 0 || active > 0) {
		unknown(r, "refusing to trigger: fgraph is already active (%s): there is no "
			"0->1 step to cause; stop that user, or run the check without --trigger "
			"to wait for the next activation", n > 0 ? users : "ftrace_graph_active > 0");
		return -EBUSY;
	}
	return 0;
}

/*
 * The walk the trigger would cause, its threads parked: scanned (the task
 * iterator sees who lacks a stack, in task-list order), or without a scan
 * every thread assumed lacking, the cheapest order (so the estimate errs
 * low: the scan is what refusals rest on where it works). Refuses above
 * FGT_WALK_MAX_S unless --force. 0 go, else r is set (unknown).
 */
static int walk_allowed(const struct fgt_check_opts *o, const struct fgt_check_sys *sys,
			struct fgt_check_result *r)
{
	const struct fgt_watch_ops *w = sys->watch;
	char why[256] = "", text[256];

	if (!w->exposure || w->exposure(w->priv, &r->trig_walk, why, sizeof(why))) {
		uint64_t t = fgt_host_threads(&sys->host) > 0 ?
			     (uint64_t)fgt_host_threads(&sys->host) : r->parked;

		fgt_exp_walk_lacking_first(t, t, &r->trig_walk);
		r->trig_assumed = true;
	}
	fgt_exp_estimate(&r->trig_walk, NULL, &r->trig_est);
	if (r->trig_est.seconds <= FGT_WALK_MAX_S || o->force)
		return 0;
	fgt_exp_estimate_text(&r->trig_walk, &r->trig_est, text, sizeof(text));
	unknown(r, "refusing to trigger: %" PRIu64 " threads, %" PRIu64 " of them lacking a "
		"shadow stack%s (%u parked): an unfixed kernel would make %s, holding up the "
		"write to the tracer above the %.0f s limit; --force overrides, or run it when "
		"fewer threads lack a stack", r->trig_walk.threads, r->trig_walk.lacking,
		r->trig_assumed ? " (assumed: no scan)" : "", r->parked, text, FGT_WALK_MAX_S);
	return -E2BIG;
}

/*
 * Take the trigger's lock and undo what dead runs left, before anything
 * looks for fgraph users: a dead run's instance or top-level tracer would
 * otherwise count as one, and the check would refuse forever instead of
 * cleaning up. 0, else r is set (unknown).
 */
static int prepare_trigger(const struct fgt_check_sys *sys, const struct fgt_ksyms *ks,
			   struct fgt_trigger *t, struct fgt_check_result *r)
{
	struct fgt_trig_cfg cfg = {
		.tracefs = sys->host.tracefs,
		.state_dir = sys->state_dir,
		.funcs = sys->trig_funcs,
		.no_bpf = sys->no_bpf,
		.fprobe_fgraph = fgt_fprobe_on_fgraph(ks),
		.proc = sys->proc,
	};
	char msg[512] = "";
	int ret;

	ret = fgt_trig_prepare(t, &cfg, r->cleaned, sizeof(r->cleaned), msg, sizeof(msg));
	if (r->cleaned[0])
		p_warn("stale_state", "%s", r->cleaned);
	if (ret)
		unknown(r, "cannot trigger: %s", msg);
	return ret;
}

static int run_trigger(const struct fgt_check_opts *o, const struct fgt_check_sys *sys,
		       struct fgt_trigger *t, struct fgt_check_result *r)
{
	struct fgt_park *park = NULL;
	char msg[512] = "", undo[256] = "";
	unsigned int before;
	int ret;

	r->threads = fgt_host_threads(&sys->host);
	if (o->park) {
		park = fgt_park_start(o->park);
		if (!park) {
			unknown(r, "cannot park %u threads: %s", o->park, strerror(errno));
			goto cleanup;
		}
		r->parked = fgt_park_count(park);
	}
	if (stopped(sys) || walk_allowed(o, sys, r))
		goto cleanup;
	/* drain what came before, so the activation counted is ours */
	sys->watch->poll(sys->watch->priv, 0);
	before = r->seen.n;
	ret = fgt_trig_on(t, msg, sizeof(msg));
	r->method = fgt_trig_method_name(t->method);
	snprintf(r->func, sizeof(r->func), "%s", t->func);
	if (ret) {
		r->method = NULL;
		unknown(r, "cannot trigger an activation: %s", msg);
		goto cleanup;
	}
	r->triggered = true;
	log_info("triggered with %s on %s", r->method, r->func);
	/* the 0->1 step happened inside the write or link_create: its events are queued */
	watch_until(sys, &r->seen, mono_s() + o->timeout_s, before, true);
cleanup:
	if (fgt_trig_off(t, undo, sizeof(undo))) {
		log_err("%s", undo);
		if (r->status != FGT_CHECK_UNKNOWN || !r->reason[0])
			fgt_clause_add(r->cleaned, sizeof(r->cleaned), "%s", undo);
	}
	fgt_park_stop(park);
	return r->reason[0] && r->status == FGT_CHECK_UNKNOWN ? -1 : 0;
}

/* ---- the code's answer, and with an activation's ------------------------ */

static enum fgt_check_verdict static_verdict(const struct fgt_static_result *st)
{
	switch (st->verdict) {
	case FGT_SV_FIXED:		return FGT_CHECK_V_FIXED;
	case FGT_SV_NOT_FIXED:		return FGT_CHECK_V_NOT_FIXED;
	case FGT_SV_NOT_AFFECTED:	return FGT_CHECK_V_NOT_AFFECTED;
	default:			return FGT_CHECK_V_UNKNOWN;
	}
}

static bool conclusive(enum fgt_check_verdict v)
{
	return v != FGT_CHECK_V_UNKNOWN;
}

/* The answer from the code alone. */
static void from_static(struct fgt_check_result *r, bool alone)
{
	r->verdict = static_verdict(&r->st);
	r->status = r->verdict == FGT_CHECK_V_NOT_FIXED ? FGT_CHECK_CRITICAL :
		    r->verdict == FGT_CHECK_V_UNKNOWN ? FGT_CHECK_UNKNOWN : FGT_CHECK_OK;
	snprintf(r->reason, sizeof(r->reason), "%s", r->st.evidence);
	/* what would tell: the file where kernel memory is off limits, else an activation */
	if (r->verdict == FGT_CHECK_V_UNKNOWN && alone)
		fgt_clause_add(r->reason, sizeof(r->reason), r->st.why == FGT_SW_LOCKDOWN ?
			       "--kernel /boot/vmlinuz-%s reads the same code from the file" :
			       "--trigger adds an activation's proof%s", r->st.why == FGT_SW_LOCKDOWN ?
			       r->kid.release : "");
	r->answered_by = "static";
}

/*
 * The code's answer (r->st) with the activation's (r as decided): both
 * conclusive and the same, it stands with both pieces of evidence; both
 * conclusive and different, unknown with both; one conclusive, that one
 * stands (a trigger refused for the thread count leaves the code's), the
 * other said in a clause.
 */
static void combine(struct fgt_check_result *r, const char *dyn)
{
	enum fgt_check_verdict sv = static_verdict(&r->st), dv = r->verdict;
	char dreason[sizeof(r->reason)];

	snprintf(dreason, sizeof(dreason), "%s", r->reason);
	if (sv == FGT_CHECK_V_NOT_AFFECTED && dv == FGT_CHECK_V_NOT_AFFECTED) {
		r->answered_by = "static";	/* no fgraph: nothing an activation could add */
		return;
	}
	if (conclusive(sv) && conclusive(dv) && sv != dv) {
		r->verdict = FGT_CHECK_V_UNKNOWN;
		r->status = FGT_CHECK_UNKNOWN;
		snprintf(r->reason, sizeof(r->reason), "the code and the activation disagree: the "
			 "code says %s (%.300s); the activation says %s (%.300s)",
			 fgt_check_verdict_name(sv), r->st.evidence, fgt_check_verdict_name(dv), dreason);
		r->answered_by = !strcmp(dyn, "trigger") ? "static+trigger" : "static+watch";
		return;
	}
	if (conclusive(sv) && conclusive(dv)) {
		/* the activation's status: it knows of failures and losses */
		snprintf(r->reason, sizeof(r->reason), "%.400s; the activation: %.300s", r->st.evidence,
			 dreason);
		r->answered_by = !strcmp(dyn, "trigger") ? "static+trigger" : "static+watch";
		return;
	}
	if (conclusive(sv)) {
		from_static(r, false);
		fgt_clause_add(r->reason, sizeof(r->reason), "%s: %s",
			       !strcmp(dyn, "trigger") ? "--trigger" : "watching", dreason);
		return;
	}
	r->answered_by = dyn;
	fgt_clause_add(r->reason, sizeof(r->reason), "the code: %s", r->st.evidence);
}

static void ask_code(const struct fgt_check_opts *o, const struct fgt_check_sys *sys,
		     struct fgt_check_result *r)
{
	struct fgt_static_opts so = {
		.kernel = o->kernel,
		.system_map = o->system_map,
		.kallsyms = sys->host.kallsyms,
		.no_bpf = sys->no_bpf,
		.stop = sys->stop,
	};

	sys->statik(&so, &r->st);
	r->have_static = true;
	if (o->kernel) {
		/* the answer is about that file's kernel, not this one */
		snprintf(r->kid.release, sizeof(r->kid.release), "%s", r->st.release);
		snprintf(r->kid.build_id, sizeof(r->kid.build_id), "%s", r->st.build_id);
	}
}

/* No function graph tracer, said as the check always has (kallsyms and
 * available_tracers both asked), when the code found none. */
static void not_affected_words(const struct fgt_check_sys *sys, struct fgt_check_result *r)
{
	struct fgt_ksyms *ks = fgt_ksyms_load(sys->host.kallsyms);
	char why[512];

	if (fgt_host_has_fgraph(&sys->host, ks, why, sizeof(why)) == 0)
		snprintf(r->reason, sizeof(r->reason), "%s: it cannot have the quadratic "
			 "shadow-stack walk", why);
	fgt_ksyms_free(ks);
}

/* The host's exposure before anything changes: the threads lacking a stack
 * and what an unfixed kernel's walk over them would cost. */
static void exposure(const struct fgt_check_sys *sys, struct fgt_check_result *r)
{
	const struct fgt_watch_ops *w = sys->watch;

	if (!w->exposure) {
		snprintf(r->exposure_why, sizeof(r->exposure_why), "not measured by this build");
		return;
	}
	if (w->exposure(w->priv, &r->exposure, r->exposure_why, sizeof(r->exposure_why)))
		return;
	r->have_exposure = true;
	fgt_exp_estimate(&r->exposure, NULL, &r->exposure_est);
}

/* Our own unfixed activation, when it walked enough to time a visit, prices
 * the host's exposure at this host's cost instead of the series'. */
static void calibrate(struct fgt_check_result *r)
{
	const struct fgt_check_seen *s = &r->seen;
	struct fgt_exp_calib c = {
		.sweeps = s->sweeps, .walk_ns = s->walk_ns, .visits = r->trig_walk.visits,
	};

	if (!r->have_exposure || !s->have || !s->triggered_by_us || r->trig_assumed ||
	    r->verdict != FGT_CHECK_V_NOT_FIXED)
		return;
	fgt_exp_estimate(&r->exposure, &c, &r->exposure_est);
}

int fgt_check_run(const struct fgt_check_opts *o, const struct fgt_check_sys *sys,
		  struct fgt_check_result *r)
{
	const struct fgt_watch_ops *w = sys->watch;
	struct fgt_ksyms *ks = NULL;
	struct fgt_trigger t;
	char why[512], msg[512] = "", hint[256] = "";
	bool started = false, prepared = false;
	const char *dyn = o->trigger ? "trigger" : "watch";
	int has;

	memset(r, 0, sizeof(*r));
	r->threads = -1;
	fgt_check_seen_init(&r->seen);
	r->check_time = epoch_s();
	fgt_kernel_id_read(&r->kid, sys->notes_path);

	/*
	 * The code first: at once, nothing changed. Alone unless an activation
	 * was asked for (--trigger, or a --timeout to wait); a kernel file has
	 * only its code.
	 */
	if (sys->statik) {
		ask_code(o, sys, r);
		if (o->kernel || o->static_only || (!o->trigger && !o->watch)) {
			from_static(r, !o->kernel);
			/*
			 * The exposure is one pass of a BPF task iterator: nothing
			 * attached, nothing left loaded, but --static promises no
			 * BPF at all, and a kernel file is not this host.
			 */
			if (o->kernel)
				snprintf(r->exposure_why, sizeof(r->exposure_why), "not measured: "
					 "the answer is about a kernel file");
			else if (o->static_only)
				snprintf(r->exposure_why, sizeof(r->exposure_why), "not measured: "
					 "--static loads no BPF");
			else if (sys->watch && r->verdict != FGT_CHECK_V_NOT_AFFECTED)
				exposure(sys, r);
			if (r->verdict == FGT_CHECK_V_NOT_AFFECTED && !o->kernel)
				not_affected_words(sys, r);
			return r->status;
		}
	}

	ks = fgt_ksyms_load(sys->host.kallsyms);
	has = fgt_host_has_fgraph(&sys->host, ks, why, sizeof(why));
	if (has == 0) {
		r->verdict = FGT_CHECK_V_NOT_AFFECTED;
		r->status = FGT_CHECK_OK;
		snprintf(r->reason, sizeof(r->reason), "%s: it cannot have the quadratic "
			 "shadow-stack walk", why);
		goto out;
	}
	if (has < 0) {
		unknown(r, "%s", why);
		goto out;
	}
	if (!w) {
		unknown(r, "this fgraphtop build has no BPF session to watch activations with; "
			"use a full build of fgraphtop");
		goto out;
	}
	exposure(sys, r);
	if (o->trigger) {
		prepared = true;
		if (prepare_trigger(sys, ks, &t, r) || may_trigger(sys, ks, r))
			goto out;
	}
	started = true;		/* a failed start may leave half of it: stop undoes it */
	if (w->start(w->priv, ks, fgt_check_on_record, &r->seen, msg, sizeof(msg))) {
		unknown(r, "cannot watch activations: %s", msg);
		goto out;
	}
	if (o->trigger) {
		if (run_trigger(o, sys, &t, r))
			goto out;
		snprintf(hint, sizeof(hint), r->seen.n ? "the triggered activation did not "
			 "tell (see the evidence); a later --trigger with fresh threads may" :
			 "the triggered activation was not seen within %.0f s; see fgraphtop "
			 "--explain", o->timeout_s);
	} else {
		watch_until(sys, &r->seen, mono_s() + o->timeout_s, 0, false);
		snprintf(hint, sizeof(hint), "%s; --trigger causes one (with threads that need "
			 "stacks), or wait longer with --timeout", r->seen.n ?
			 "no activation seen told fixed from unfixed" :
			 "no fgraph activation (0->1 step) happened while watching");
	}
	if (stopped(sys) && !decisive(&r->seen)) {
		unknown(r, "interrupted before an answer");
		goto out;
	}
	/* lost first: stop frees the session that counts it */
	r->lost = w->lost ? w->lost(w->priv) : 0;
	w->stop(w->priv);	/* flushes: an unfinished activation is judged incomplete */
	started = false;
	fgt_check_decide(r, hint);
	calibrate(r);
out:
	if (started)
		w->stop(w->priv);
	if (prepared)
		fgt_trig_release(&t);
	fgt_ksyms_free(ks);
	if (r->have_static)
		combine(r, dyn);
	else if (o->trigger || r->seen.n)
		r->answered_by = dyn;
	return r->status;
}


int fgt_check_answer(struct fgt_check_result *r, bool json, const char *prom_file, FILE *out)
{
	char err[512];

	if (prom_file && fgt_check_write_prom(prom_file, r, err, sizeof(err))) {
		fgt_clause_add(r->reason, sizeof(r->reason), "--prometheus: %s", err);
		r->status = FGT_CHECK_UNKNOWN;
	}
	if (json)
		fgt_check_print_json(out, r);
	else
		fgt_check_print_line(out, r);
	if (fflush(out) || ferror(out)) {
		log_err("cannot write the answer: %s", strerror(errno));
		return FGT_CHECK_UNKNOWN;
	}
	return r->status;
}
