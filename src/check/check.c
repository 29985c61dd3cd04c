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
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "check/check.h"
#include "common/clock.h"
#include "common/clause.h"
#include "common/log.h"
#include "host/holders.h"
#include "check/parked_threads.h"
#include "static/static_kernel.h"
#include "check/trigger.h"
#include "common/waitnote.h"


#define CHECK_GRACE_S		10.0	/* past the deadline, for an activation under way */
#define CHECK_POLL_MS		100

/* ---- activations seen --------------------------------------------------- */

void fgt_check_seen_init(struct fgt_check_seen *s)
{
	memset(s, 0, sizeof(*s));
	fgt_judge_init(&s->judge);
}

void fgt_check_on_record(const struct fgt_record *rec, void *ctx)
{
	struct fgt_check_seen *s = ctx;

	s->judge = *rec->judge;
	s->n = rec->judge->n;
	/* keep the figures of the activation the judge quotes */
	if (s->have && !rec->quoted)
		return;
	s->have = true;
	/* copied from the model, not derived again here */
	fgt_act_figures_of(rec, &s->fig);
	s->triggered_by_us = rec->act->pid == (uint32_t)getpid();
}

static bool decisive(const struct fgt_check_seen *s)
{
	return s->judge.verdict == FGT_VERDICT_FIXED || s->judge.verdict == FGT_VERDICT_NOT_FIXED;
}

/* ---- verdict ------------------------------------------------------------- */

void fgt_check_decide(struct fgt_check_result *r, const char *hint)
{
	const struct fgt_judge *j = &r->seen.judge;

	r->judged = true;
	r->shape = FGT_SHAPE_ACT;
	snprintf(r->hint, sizeof(r->hint), "%s", hint ? hint : "");
	r->verdict = j->verdict < FGT_VERDICT__NR ? j->verdict : FGT_VERDICT_UNKNOWN;
	/*
	 * A fixed kernel's failures are said in the reason (answer.c). Only
	 * the judged activation's own lost records can make its figures a
	 * lower bound. Other losses (runs the kernel skipped while interrupts
	 * freed objects, a second fgraphtop's slower consumer) are reported in
	 * lost_events but never were its events: they would make a fleet of
	 * fixed kernels flap to WARNING.
	 */
	r->status = fgt_verdict_status(r->verdict, r->seen.fig.lost ||
				       (r->verdict == FGT_VERDICT_FIXED && j->failures));
	r->act_verdict = r->verdict;
}

static void unknown(struct fgt_check_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void unknown(struct fgt_check_result *r, const char *fmt, ...)
{
	va_list ap;

	r->verdict = r->act_verdict = FGT_VERDICT_UNKNOWN;
	r->status = fgt_verdict_status(r->verdict, false);
	r->judged = false;
	r->shape = FGT_SHAPE_ACT;
	va_start(ap, fmt);
	vsnprintf(r->note, sizeof(r->note), fmt, ap);
	va_end(ap);
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
		double now = fgt_mono_s();

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

/* The trigger's write (or link_create) on a thread of its own. */
struct trig_job {
	struct fgt_trigger *t;
	char *msg;
	size_t len;
	int ret;
	bool done;
};

static void *trig_thread(void *arg)
{
	struct trig_job *j = arg;

	j->ret = fgt_trig_on(j->t, j->msg, j->len);
	__atomic_store_n(&j->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Trigger, draining the activation's records meanwhile. The 0->1 step runs
 * inside the trigger's system call, for as long as the walk takes: on the
 * calling thread nothing would read the activation log (16,384 records)
 * until it returned, and a walk serving more threads than that lost the
 * rest (lab-fixed under memory pressure, 30,046 threads: 14,060 records
 * lost, 16,283 served seen). The call runs on a thread of its own, with
 * every signal blocked there, so that they reach this one.
 */
static int trig_on_draining(const struct fgt_check_sys *sys, struct fgt_trigger *t,
			    char *msg, size_t len)
{
	struct trig_job j = { .t = t, .msg = msg, .len = len };
	sigset_t all, old;
	pthread_t tid;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&tid, NULL, trig_thread, &j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return fgt_trig_on(t, msg, len);
	while (!__atomic_load_n(&j.done, __ATOMIC_ACQUIRE))
		sys->watch->poll(sys->watch->priv, 100);
	pthread_join(tid, NULL);
	return j.ret;
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
	ret = trig_on_draining(sys, t, msg, sizeof(msg));
	r->trig_method = t->method;
	snprintf(r->func, sizeof(r->func), "%s", t->func);
	if (ret) {
		r->trig_method = FGT_TRIG_NONE;
		unknown(r, "cannot trigger an activation: %s", msg);
		goto cleanup;
	}
	r->triggered = true;
	log_info("triggered with %s on %s", fgt_trig_method_name(r->trig_method), r->func);
	/* its system call returned: the walk it caused is over, bracket or not */
	if (sys->watch->trigger_done)
		sys->watch->trigger_done(sys->watch->priv);
	/* the 0->1 step happened inside the write or link_create: the rest of its
	 * events are queued */
	watch_until(sys, &r->seen, fgt_mono_s() + o->timeout_s, before, true);
cleanup:
	if (fgt_trig_off(t, undo, sizeof(undo))) {
		log_err("%s", undo);
		if (r->status != FGT_CHECK_UNKNOWN || r->judged || !r->note[0])
			fgt_clause_add(r->cleaned, sizeof(r->cleaned), "%s", undo);
	}
	fgt_park_stop(park);
	return !r->judged && r->note[0] && r->status == FGT_CHECK_UNKNOWN ? -1 : 0;
}

/* ---- the code's answer, and with an activation's ------------------------ */

static bool conclusive(enum fgt_verdict v)
{
	return v != FGT_VERDICT_UNKNOWN;
}

/* The answer from the code alone; hinted: when it cannot tell, the reason
 * says what would (the file where kernel memory is off limits, else an
 * activation). */
static void from_static(struct fgt_check_result *r, bool hinted)
{
	r->verdict = r->st.verdict;
	r->status = fgt_verdict_status(r->verdict, false);
	r->shape = hinted ? FGT_SHAPE_CODE_HINT : FGT_SHAPE_CODE;
	r->answered_by = FGT_BY_STATIC;
}

/*
 * The code's answer (r->st) with the activation's (r as decided): both
 * conclusive and the same, it stands with both pieces of evidence; both
 * conclusive and different, unknown with both; one conclusive, that one
 * stands (a trigger refused for the thread count leaves the code's), the
 * other said in a clause.
 */
static void combine(struct fgt_check_result *r)
{
	enum fgt_verdict sv = r->st.verdict, dv = r->verdict;

	r->act_verdict = dv;
	if (sv == FGT_VERDICT_NOT_AFFECTED && dv == FGT_VERDICT_NOT_AFFECTED) {
		r->answered_by = FGT_BY_STATIC;	/* no fgraph: nothing an activation could add */
		return;
	}
	if (conclusive(sv) && conclusive(dv)) {
		/* the same: the activation's status (it knows of failures and losses) */
		if (sv != dv) {
			r->verdict = FGT_VERDICT_UNKNOWN;
			r->status = fgt_verdict_status(r->verdict, false);
		}
		r->shape = sv != dv ? FGT_SHAPE_DISAGREE : FGT_SHAPE_AGREE;
		r->answered_by = FGT_BY_STATIC | r->act_by;
		return;
	}
	if (conclusive(sv)) {
		from_static(r, false);
		r->shape = FGT_SHAPE_CODE_FIRST;
		return;
	}
	r->answered_by = r->act_by;
	r->shape = FGT_SHAPE_ACT_FIRST;
}

static void ask_code(const struct fgt_check_opts *o, const struct fgt_check_sys *sys,
		     struct fgt_check_result *r)
{
	struct fgt_static_opts so = {
		.kernel = o->kernel,
		.system_map = o->system_map,
		.kallsyms = sys->host.kallsyms,
		.no_bpf = sys->no_bpf,
		.bpf_read = sys->bpf_read,
		.stop = sys->stop,
	};

	sys->statik(&so, &r->st);
	r->have_static = true;
	if (o->kernel) {
		/* the answer is about that file's kernel, not this one */
		r->kernel_file = o->kernel;
		snprintf(r->kid.release, sizeof(r->kid.release), "%s", r->st.release);
		snprintf(r->kid.build_id, sizeof(r->kid.build_id), "%s", r->st.build_id);
	}
}

/*
 * The code could not be read for want of privilege (not root: no
 * /proc/kcore, kallsyms addresses hidden). An activation cannot be caused
 * or watched without it either, so --trigger and --timeout give the same
 * answer: not affected when kallsyms's names alone say there is no
 * function graph tracer, else unknown saying to run as root.
 */
bool fgt_check_needs_root(const struct fgt_check_result *r)
{
	return r->have_static && !r->kernel_file && r->st.verdict == FGT_VERDICT_UNKNOWN &&
	       (r->st.why == FGT_SW_NO_PERM || r->st.why == FGT_SW_KSYMS_HIDDEN);
}

static void unprivileged(const struct fgt_check_sys *sys, struct fgt_check_result *r)
{
	struct fgt_ksyms *ks = fgt_ksyms_load(sys->host.kallsyms);
	char why[512];

	from_static(r, true);
	if (fgt_host_has_fgraph(&sys->host, ks, why, sizeof(why)) == 0) {
		r->verdict = FGT_VERDICT_NOT_AFFECTED;
		r->status = fgt_verdict_status(r->verdict, false);
		snprintf(r->note, sizeof(r->note), "%s: it cannot have the quadratic "
			 "shadow-stack walk", why);
		r->shape = FGT_SHAPE_ACT;
	}
	snprintf(r->exposure_why, sizeof(r->exposure_why), "not measured: not root");
	fgt_ksyms_free(ks);
}

/* No function graph tracer, said as the check always has (kallsyms and
 * available_tracers both asked), when the code found none. */
static void not_affected_words(const struct fgt_check_sys *sys, struct fgt_check_result *r)
{
	struct fgt_ksyms *ks = fgt_ksyms_load(sys->host.kallsyms);
	char why[512];

	if (fgt_host_has_fgraph(&sys->host, ks, why, sizeof(why)) == 0) {
		snprintf(r->note, sizeof(r->note), "%s: it cannot have the quadratic "
			 "shadow-stack walk", why);
		r->shape = FGT_SHAPE_ACT;
	}
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
		.sweeps = s->fig.sweeps, .walk_ns = s->fig.walk_ns, .visits = r->trig_walk.visits,
	};

	if (!r->have_exposure || !s->have || !s->triggered_by_us || r->trig_assumed ||
	    r->verdict != FGT_VERDICT_NOT_FIXED)
		return;
	fgt_exp_estimate(&r->exposure, &c, &r->exposure_est);
}

/* A 0->1 step under way now (the session's looks, which cannot block on
 * the locks it holds): the answer says by whom and how far along. */
static void under_way(const struct fgt_check_sys *sys, const struct fgt_ksyms *ks,
		      struct fgt_check_result *r)
{
	const struct fgt_watch_ops *w = sys->watch;

	/* no thread lacking a stack: no walk has anything left to do */
	if (w && w->under_way && (!r->have_exposure || r->exposure.lacking))
		r->under_way = w->under_way(w->priv, ks, &r->join);
}

/* A result with nothing known yet but this kernel's build ID, and what
 * holds fgraph, read before anything changes (--trigger's own instance is
 * no hold). */
static void begin(const struct fgt_check_opts *o, const struct fgt_check_sys *sys,
		  struct fgt_check_result *r)
{
	memset(r, 0, sizeof(*r));
	r->threads = -1;
	r->act_by = o->trigger ? FGT_BY_TRIGGER : FGT_BY_WATCH;
	fgt_check_seen_init(&r->seen);
	r->check_time = fgt_epoch_s();
	fgt_kernel_id_read(&r->kid, sys->notes_path);
	if (!o->kernel) {
		fgt_hold_seen_read(fgt_host_tracefs(&sys->host), sys->hold_pin, &r->hold);
		r->have_hold = true;
	}
}

/*
 * The code first: at once, nothing changed. Alone unless an activation was
 * asked for (--trigger, or a --timeout to wait); a kernel file has only its
 * code. true when r is the answer (the code's, or a user without root's).
 */
static bool code_first(const struct fgt_check_opts *o, const struct fgt_check_sys *sys,
		       struct fgt_check_result *r)
{
	if (!sys->statik)
		return false;
	ask_code(o, sys, r);
	if (fgt_check_needs_root(r)) {
		unprivileged(sys, r);
		return true;
	}
	if (!o->kernel && !o->static_only && (o->trigger || o->watch))
		return false;
	from_static(r, !o->kernel);
	/*
	 * The exposure is one pass of a BPF task iterator: nothing attached,
	 * nothing left loaded, but --static promises no BPF at all, and a
	 * kernel file is not this host.
	 */
	if (o->kernel)
		snprintf(r->exposure_why, sizeof(r->exposure_why), "not measured: "
			 "the answer is about a kernel file");
	else if (o->static_only)
		snprintf(r->exposure_why, sizeof(r->exposure_why), "not measured: "
			 "--static loads no BPF");
	else if (sys->watch && r->verdict != FGT_VERDICT_NOT_AFFECTED) {
		exposure(sys, r);
		under_way(sys, NULL, r);
	}
	if (r->verdict == FGT_VERDICT_NOT_AFFECTED && !o->kernel)
		not_affected_words(sys, r);
	return true;
}

/* Can an activation be watched here? false with r answered: no function
 * graph tracer (not affected), kallsyms unreadable, or a build without
 * the BPF session. */
static bool can_watch(const struct fgt_check_sys *sys, const struct fgt_ksyms *ks,
		      struct fgt_check_result *r)
{
	char why[512];
	int has = fgt_host_has_fgraph(&sys->host, ks, why, sizeof(why));

	if (has == 0) {
		r->verdict = FGT_VERDICT_NOT_AFFECTED;
		r->status = fgt_verdict_status(r->verdict, false);
		snprintf(r->note, sizeof(r->note), "%s: it cannot have the quadratic "
			 "shadow-stack walk", why);
		return false;
	}
	if (has < 0) {
		unknown(r, "%s", why);
		return false;
	}
	if (!sys->watch) {
		unknown(r, "this fgraphtop build has no BPF session to watch activations with; "
			"use a full build of fgraphtop");
		return false;
	}
	return true;
}

int fgt_check_run(const struct fgt_check_opts *o, const struct fgt_check_sys *sys,
		  struct fgt_check_result *r)
{
	const struct fgt_watch_ops *w = sys->watch;
	struct fgt_ksyms *ks = NULL;
	struct fgt_trigger t;
	char msg[512] = "", hint[256] = "";
	bool started = false, prepared = false;
	struct fgt_wait *wait;
	int err;

	begin(o, sys, r);
	if (code_first(o, sys, r))
		return r->status;
	ks = fgt_ksyms_load(sys->host.kallsyms);
	if (!can_watch(sys, ks, r))
		goto out;
	exposure(sys, r);
	under_way(sys, ks, r);
	if (o->trigger) {
		prepared = true;
		if (prepare_trigger(sys, ks, &t, r) || may_trigger(sys, ks, r))
			goto out;
	}
	started = true;		/* a failed start may leave half of it: stop undoes it */
	wait = fgt_wait_begin(FGT_WAIT_FTRACE_LOCK, "attaching the probes");
	err = w->start(w->priv, ks, fgt_check_on_record, &r->seen, msg, sizeof(msg));
	fgt_wait_end(wait);
	if (err) {
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
		watch_until(sys, &r->seen, fgt_mono_s() + o->timeout_s, 0, false);
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
		combine(r);
	else if (o->trigger || r->seen.n)
		r->answered_by = r->act_by;
	return r->status;
}


