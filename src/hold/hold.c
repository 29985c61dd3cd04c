// SPDX-License-Identifier: GPL-2.0
/*
 * `fgraphtop hold`: take, release, or report the hold (hold.h). The take is
 * check --trigger's run without the undo: the same refusal bound, the same
 * session watching the activation it causes, the same figures reported.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common/clause.h"
#include "common/clock.h"
#include "common/exit_codes.h"
#include "common/json_writer.h"
#include "common/log.h"
#include "facts/kfacts.h"
#include "hold/hold.h"
#include "host/holders.h"
#include "host/kbtf.h"
#include "host/ksyms.h"
#include "render/act_json.h"
#include "render/out_json.h"

#define HOLD_POLL_MS	100
#define HOLD_GRACE_S	10.0	/* past the deadline, for an activation under way */

const char *fgt_hold_method_name(enum fgt_hold_method m)
{
	switch (m) {
	case FGT_HOLD_M_LINK:		return "kretprobe.multi";
	case FGT_HOLD_M_INSTANCE:	return "instance";
	default:			return "none";
	}
}

enum fgt_hold_method fgt_hold_choose(bool fprobe_on_fgraph, bool multi_user, char *why,
				     size_t len)
{
	if (fprobe_on_fgraph)
		return FGT_HOLD_M_LINK;
	if (multi_user)
		return FGT_HOLD_M_INSTANCE;
	snprintf(why, len, "not offered on this kernel: its fgraph takes one user at a time "
		 "(before 6.11), so a hold would be the top-level function_graph tracer, which "
		 "perf ftrace and trace-cmd take over and reset (ending it), and every other "
		 "fgraph user (the function profiler, a latency tracer's graph) would fail with "
		 "EBUSY; boot a fixed kernel instead (docs/fleet.md)");
	return FGT_HOLD_M_NONE;
}

static bool stopped(const struct fgt_hold_sys *sys)
{
	return sys->stop && *sys->stop;
}

static void fail(struct fgt_hold_result *r, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail(struct fgt_hold_result *r, int status, const char *fmt, ...)
{
	va_list ap;

	r->status = status;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
}

/* ---- what holding costs and what taking it walks ------------------------- */

static int btf_pread(void *arg, uint64_t off, void *buf, size_t len)
{
	ssize_t n = pread(*(int *)arg, buf, len, (off_t)off);

	return n == (ssize_t)len ? 0 : -1;
}

/* One stack's bytes: the cache from 6.13 (its symbol), else what BTF says
 * ret_stack points to (the old frame array, or PAGE_SIZE stacks). */
static uint32_t stack_bytes(const struct fgt_ksyms *ks)
{
	struct fgt_btf_stack st = { .src = FGT_STACK_KMALLOC };
	struct stat sb;
	int fd;

	if (ks && fgt_ksyms_by_name(ks, fgt_sym_name(FGT_SYM_STACK_CACHEP)))
		return fgt_stack_bytes(FGT_STACK_CACHE, 0, 0);
	fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (fstat(fd, &sb) || fgt_btf_ret_stack_read(btf_pread, &fd, (uint64_t)sb.st_size,
							      &st))
			st.src = FGT_STACK_KMALLOC;
		close(fd);
	}
	return fgt_stack_bytes(st.src, st.bytes, sysconf(_SC_PAGESIZE));
}

/* The walk taking fgraph now would cause: scanned, else every thread
 * assumed lacking (the cheapest order: it errs low, as check's does). */
static void walk(const struct fgt_hold_sys *sys, struct fgt_hold_result *r)
{
	const struct fgt_watch_ops *w = sys->watch;

	r->threads = fgt_host_threads(&sys->host);
	if (w && w->exposure && !w->exposure(w->priv, &r->walk, r->walk_why, sizeof(r->walk_why))) {
		r->have_walk = true;
	} else if (r->threads > 0) {
		fgt_exp_walk_lacking_first((uint64_t)r->threads, (uint64_t)r->threads, &r->walk);
		r->have_walk = r->walk_assumed = true;
	}
	if (r->have_walk)
		fgt_exp_estimate(&r->walk, NULL, &r->est);
	if (r->threads < 0 && r->have_walk)
		r->threads = (long)r->walk.threads;
}

/* ---- the take ----------------------------------------------------------------- */

struct take_job {
	const struct fgt_holder_env *env;
	struct fgt_hold_result *r;
	char msg[512];
	int ret;
	bool done;
};

static int take(const struct fgt_holder_env *e, struct fgt_hold_result *r, char *msg, size_t len)
{
	int ret = fgt_holder_take(e, r->method, r->func, sizeof(r->func), r->where,
				  sizeof(r->where), msg, len);

	/* 6.14+ without a pinnable link (no bpffs, BPF refused): the instance */
	if (ret && r->method == FGT_HOLD_M_LINK) {
		snprintf(r->why_not, sizeof(r->why_not), "%s", msg);
		msg[0] = '\0';
		r->method = FGT_HOLD_M_INSTANCE;
		ret = fgt_holder_take(e, r->method, r->func, sizeof(r->func), r->where,
				      sizeof(r->where), msg, len);
	}
	return ret;
}

static void *take_thread(void *arg)
{
	struct take_job *j = arg;

	j->ret = take(j->env, j->r, j->msg, sizeof(j->msg));
	__atomic_store_n(&j->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* The 0 -> 1 step runs inside the take's write or link_create for as long
 * as the walk takes: on a thread of its own (every signal blocked there),
 * while this one drains the activation's records (see check.c). */
static int take_draining(const struct fgt_hold_sys *sys, const struct fgt_holder_env *e,
			 struct fgt_hold_result *r, char *msg, size_t len)
{
	struct take_job j = { .env = e, .r = r };
	sigset_t all, old;
	pthread_t tid;
	int err;

	if (!r->watched)
		return take(e, r, msg, len);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&tid, NULL, take_thread, &j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return take(e, r, msg, len);
	while (!__atomic_load_n(&j.done, __ATOMIC_ACQUIRE))
		sys->watch->poll(sys->watch->priv, HOLD_POLL_MS);
	pthread_join(tid, NULL);
	snprintf(msg, len, "%s", j.msg);
	return j.ret;
}

/* Until the activation's record came (or the deadline, or a signal). */
static void watch_own(const struct fgt_hold_opts *o, const struct fgt_hold_sys *sys,
		      struct fgt_hold_result *r)
{
	const struct fgt_watch_ops *w = sys->watch;
	double deadline = fgt_mono_s() + o->timeout_s;

	while (!stopped(sys) && !r->seen.n) {
		bool busy = w->busy && w->busy(w->priv);

		if (fgt_mono_s() >= deadline + (busy ? HOLD_GRACE_S : 0))
			break;
		w->poll(w->priv, HOLD_POLL_MS);
	}
}

static void env_of(const struct fgt_hold_sys *sys, struct fgt_holder_env *e, char *tfs,
		   size_t len)
{
	const char *t = fgt_host_tracefs(&sys->host);

	snprintf(tfs, len, "%s", t ? t : "");
	e->tracefs = tfs;
	e->bpffs = sys->bpffs ? sys->bpffs : FGT_BPFFS;
	e->funcs = sys->funcs;
}

static void run_take(const struct fgt_hold_opts *o, const struct fgt_hold_sys *sys,
		     struct fgt_hold_result *r, const struct fgt_ksyms *ks,
		     const struct fgt_holder_env *e)
{
	const struct fgt_watch_ops *w = sys->watch;
	struct fgt_host h = sys->host;
	char msg[1024] = "", why[512] = "", text[256];
	bool fprobe = fgt_fprobe_on_fgraph(ks);
	int ret;

	if (r->before.held) {
		snprintf(r->walk_why, sizeof(r->walk_why), "not measured: already held");
		r->status = FGT_EXIT_OK;
		snprintf(r->msg, sizeof(r->msg), "already held (%s at %.512s): nothing to take",
			 r->before.method, r->before.where);
		return;
	}
	r->method = fgt_hold_choose(fprobe, fprobe || (ks && fgt_ksyms_by_name(ks,
				    FGT_MULTI_USER_SYM)), why, sizeof(why));
	if (r->method == FGT_HOLD_M_NONE) {
		fail(r, FGT_HOLD_EXIT_REFUSED, "%s", why);
		return;
	}
	h.no_bpf_links = h.no_bpf_links || sys->no_bpf;
	r->users = fgt_host_fgraph_users(&h, ks, NULL, r->users_text, sizeof(r->users_text));
	walk(sys, r);
	/* with another user in place, the hold's step is N -> N+1: no walk */
	if (r->users <= 0 && r->have_walk && r->est.seconds > FGT_WALK_MAX_S) {
		if (!o->force) {
			fgt_exp_estimate_text(&r->walk, &r->est, text, sizeof(text));
			fail(r, FGT_HOLD_EXIT_REFUSED, "refusing to hold: %" PRIu64 " threads, %"
			     PRIu64 " of them lacking a shadow stack%s: on an unfixed kernel the "
			     "hold's own 0->1 step would make %s, above the %.0f s limit "
			     "check --trigger keeps; take it early in boot (fgraphtop-hold.service), "
			     "or --force", r->walk.threads, r->walk.lacking, r->walk_assumed ?
			     " (assumed: no scan)" : "", text, FGT_WALK_MAX_S);
			return;
		}
		r->forced = true;
	}
	if (o->dry_run) {
		r->dry_run = true;
		r->status = FGT_EXIT_OK;
		return;
	}
	if (stopped(sys)) {
		fail(r, FGT_EXIT_ERROR, "interrupted before the hold was taken");
		return;
	}
	if (w && !w->start(w->priv, ks, fgt_check_on_record, &r->seen, msg, sizeof(msg))) {
		r->watched = true;
	} else {
		snprintf(r->watch_why, sizeof(r->watch_why), "%.255s", w ? msg :
			 "this build has no BPF session");
		if (!o->force) {
			fail(r, FGT_EXIT_ERROR, "cannot watch the hold's own activation: %s; "
			     "--force takes it unwatched", r->watch_why);
			return;
		}
	}
	msg[0] = '\0';
	if (r->watched)
		w->poll(w->priv, 0);
	ret = take_draining(sys, e, r, msg, sizeof(msg));
	if (ret) {
		fail(r, FGT_EXIT_ERROR, "cannot hold fgraph: %s%s%s", msg,
		     r->why_not[0] ? "; " : "", r->why_not);
		r->method = FGT_HOLD_M_NONE;
	} else {
		r->taken = true;
		r->status = FGT_EXIT_OK;
		if (r->watched && r->users <= 0)
			watch_own(o, sys, r);
	}
	if (r->watched) {
		r->graph_active = w->graph_active ? w->graph_active(w->priv) : -1;
		w->stop(w->priv);
	}
}

/* ---- release, status ----------------------------------------------------------- */

/* What a release must not leave: the instance, the pin, the pin's directory. */
static void leftovers(const struct fgt_holder_env *e, char *out, size_t len)
{
	char p[PATH_MAX];

	if (e->tracefs[0]) {
		snprintf(p, sizeof(p), "%s/instances/%s", e->tracefs, FGT_HOLD_INSTANCE);
		if (!access(p, F_OK))
			fgt_clause_add(out, len, "%s", p);
	}
	snprintf(p, sizeof(p), "%s/%s", e->bpffs, FGT_HOLD_PIN_DIR);
	if (!access(p, F_OK))
		fgt_clause_add(out, len, "%s", p);
}

static void run_release(struct fgt_hold_result *r, const struct fgt_holder_env *e)
{
	char msg[512] = "";
	int ret = fgt_holder_release(e, r->removed, sizeof(r->removed), msg, sizeof(msg));

	leftovers(e, r->left, sizeof(r->left));
	if (ret || r->left[0])
		fail(r, FGT_EXIT_ERROR, "could not release everything: %s%s%s", msg,
		     r->left[0] ? "; left: " : "", r->left);
	else if (!r->removed[0])
		snprintf(r->msg, sizeof(r->msg), "not held: nothing to release");
}

int fgt_hold_run(const struct fgt_hold_opts *o, const struct fgt_hold_sys *sys,
		 struct fgt_hold_result *r)
{
	struct fgt_holder_env e;
	struct fgt_ksyms *ks = NULL;
	char tfs[PATH_MAX], why[512];
	int has;

	memset(r, 0, sizeof(*r));
	r->action = o->action;
	r->users = r->graph_active = -1;
	r->threads = -1;
	fgt_check_seen_init(&r->seen);
	fgt_kernel_id_read(&r->kid, NULL);
	env_of(sys, &e, tfs, sizeof(tfs));
	fgt_hold_seen_read(e.tracefs[0] ? e.tracefs : NULL, NULL, &r->before);
	if (o->action == FGT_HOLD_RELEASE) {
		run_release(r, &e);
		goto out;
	}
	ks = fgt_ksyms_load(sys->host.kallsyms);
	r->stack_bytes = stack_bytes(ks);
	has = fgt_host_has_fgraph(&sys->host, ks, why, sizeof(why));
	if (has <= 0) {
		fail(r, has == 0 ? FGT_EXIT_NO_FGRAPH : FGT_EXIT_ERROR, "%s%s", why,
		     has == 0 ? ": it cannot have the quadratic walk, there is nothing to hold" : "");
		goto out;
	}
	if (o->action == FGT_HOLD_STATUS) {
		struct fgt_host h = sys->host;

		h.no_bpf_links = h.no_bpf_links || sys->no_bpf;
		r->users = fgt_host_fgraph_users(&h, ks, NULL, r->users_text,
						 sizeof(r->users_text));
		walk(sys, r);
		r->walk_assumed = r->walk_assumed && !r->before.held;
		r->status = FGT_EXIT_OK;
		goto out;
	}
	if (r->before.stale) {
		/* a hold killed while its instance was being set up */
		char removed[256] = "", msg[256] = "";

		fgt_holder_release(&e, removed, sizeof(removed), msg, sizeof(msg));
		log_info("removed what a killed hold left: %s%s", removed, msg);
	}
	run_take(o, sys, r, ks, &e);
out:
	fgt_hold_seen_read(e.tracefs[0] ? e.tracefs : NULL, NULL, &r->after);
	fgt_ksyms_free(ks);
	return r->status;
}

/* ---- renderers --------------------------------------------------------------- */

static const char *release_words(const struct fgt_hold_seen *s)
{
	return s->kind == FGT_HOLDER_BPF_LINK ? "fgraphtop hold --release: unpins " FGT_HOLD_PIN
		" (the link and its program go with it)" :
		"fgraphtop hold --release: removes tracefs instance " FGT_HOLD_INSTANCE
		" (function_graph off, then rmdir)";
}

/* Stacks the threads hold while fgraph is held: every thread but those
 * lacking one (when scanned), one stack each. */
static uint64_t stacks_held(const struct fgt_hold_result *r)
{
	uint64_t t = r->threads > 0 ? (uint64_t)r->threads : 0;

	if (r->have_walk && !r->walk_assumed)
		t = r->walk.threads - r->walk.lacking;
	return t;
}

/* --status of a hold in place: the stacks held now; else (a take, or no
 * hold) what holding costs: one stack for every thread there is. */
static uint64_t stacks_of(const struct fgt_hold_result *r)
{
	if (r->action == FGT_HOLD_STATUS && r->after.held)
		return stacks_held(r);
	return r->threads > 0 ? (uint64_t)r->threads : 0;
}

static void print_memory(FILE *f, const struct fgt_hold_result *r, bool held)
{
	uint64_t t = stacks_of(r);

	if (!r->stack_bytes)
		return;
	fprintf(f, "memory: one shadow stack per thread, %u bytes on this kernel: %" PRIu64
		" threads, %.1f MiB%s; each new thread %u bytes more while held (freed when it "
		"exits)\n", r->stack_bytes, t, t * (double)r->stack_bytes / 1048576,
		held ? " now" : " once held", r->stack_bytes);
}

static void print_walk(FILE *f, const struct fgt_hold_result *r)
{
	char text[256];

	if (!r->have_walk) {
		fprintf(f, "exposure: not measured (%s)\n", r->walk_why[0] ? r->walk_why : "?");
		return;
	}
	fgt_exp_estimate_text(&r->walk, &r->est, text, sizeof(text));
	fprintf(f, "exposure: %" PRIu64 " threads, %" PRIu64 " lacking a shadow stack%s; an "
		"unfixed 0->1 walk over them: %s\n", r->walk.threads, r->walk.lacking,
		r->walk_assumed ? " (assumed: no scan)" : "", text);
}

static void print_activation(FILE *f, const struct fgt_hold_result *r)
{
	const struct fgt_check_seen *s = &r->seen;
	const struct fgt_act_figures *a = &s->fig;

	if (!r->watched) {
		fprintf(f, "its own activation: not watched (%s)\n", r->watch_why);
		return;
	}
	if (r->users > 0) {
		fprintf(f, "its own activation: none (fgraph was already held by %s: N -> N+1, "
			"no walk)\n", r->users_text);
		return;
	}
	if (!s->have) {
		fprintf(f, "its own activation: not seen within the time allowed\n");
		return;
	}
	if (a->walks == FGT_WALKS_UNSEEN)
		fprintf(f, "its own activation: sweeps not observable, served %" PRIu64 " of %" PRIu64
			" threads in %.3f s (%" PRIu64 " failures, %" PRIu64 " lost): %s\n",
			a->served, a->nr_threads, a->duration_ns / 1e9, a->failures, a->lost,
			fgt_verdict_words(s->judge.verdict));
	else
		fprintf(f, "its own activation: %" PRIu64 " sweep%s served %" PRIu64 " of %" PRIu64
			" threads in %.3f s (walk %.3f ms, %" PRIu64 " failures, %" PRIu64 " lost): %s\n",
			a->sweeps, a->sweeps == 1 ? "" : "s", a->served, a->nr_threads,
			a->duration_ns / 1e9, a->walk_ns / 1e6, a->failures, a->lost,
			fgt_verdict_words(s->judge.verdict));
}

static void print_text(FILE *f, const struct fgt_hold_result *r)
{
	const struct fgt_hold_seen *a = &r->after;

	switch (r->action) {
	case FGT_HOLD_RELEASE:
		if (r->status)
			return;
		fprintf(f, "fgraphtop hold: %s%s\n", r->removed[0] ? "released: " : "",
			r->removed[0] ? r->removed : r->msg);
		return;
	case FGT_HOLD_STATUS:
		if (a->held)
			fprintf(f, "fgraphtop hold: held by %s at %s\nrelease: %s\n",
				a->method, a->where, release_words(a));
		else
			fprintf(f, "fgraphtop hold: not held%s\n", a->stale ?
				" (a killed hold's instance is left: fgraphtop hold --release)" : "");
		if (r->users > 0)
			fprintf(f, "fgraph users: %s\n", r->users_text);
		print_walk(f, r);
		print_memory(f, r, a->held);
		return;
	case FGT_HOLD_TAKE:
		if (r->status)
			return;
		if (r->before.held) {
			fprintf(f, "fgraphtop hold: %s\nrelease: %s\n", r->msg,
				release_words(&r->before));
			return;
		}
		fprintf(f, "fgraphtop hold: %s%s on %s%s%s\n", r->dry_run ? "would hold fgraph "
			"with " : "holding fgraph: ", fgt_hold_method_name(r->method),
			r->func[0] ? r->func : "a function nothing calls",
			r->where[0] ? ", at " : "", r->where);
		if (r->why_not[0])
			fprintf(f, "not a pinned link: %s\n", r->why_not);
		print_walk(f, r);
		print_memory(f, r, false);
		if (r->forced)
			fprintf(f, "forced: above the %.0f s limit\n", FGT_WALK_MAX_S);
		if (!r->dry_run) {
			print_activation(f, r);
			fprintf(f, "release: %s\n", release_words(a));
		}
		return;
	}
}

static void seen_json(json_writer_t *jw, const struct fgt_hold_seen *s)
{
	jsonw_start_object(jw);
	jsonw_bool_field(jw, "held", s->held);
	jsonw_bool_field(jw, "stale", s->stale);
	jsonw_string_field(jw, "method", s->method[0] ? s->method : "none");
	jsonw_string_field(jw, "where", s->where);
	if (s->link_id)
		jsonw_uint_field(jw, "link_id", s->link_id);
	jsonw_end_object(jw);
}

static void activation_json(json_writer_t *jw, const struct fgt_hold_result *r)
{
	const struct fgt_check_seen *s = &r->seen;

	jsonw_name(jw, "activation");
	if (!r->watched || !s->have) {
		jsonw_null(jw);
		return;
	}
	jsonw_start_object(jw);
	fgt_act_json_fields(jw, &s->fig, FGT_ACTJ_WALK_NS | FGT_ACTJ_FAILURES |
			    FGT_ACTJ_OLD_NAMES);
	jsonw_string_field(jw, "verdict", fgt_verdict_answer(s->judge.verdict));
	jsonw_end_object(jw);
}

static void print_json(FILE *f, const struct fgt_hold_result *r)
{
	static const char *const actions[] = { "take", "release", "status" };
	json_writer_t *jw = jsonw_new(f);
	const struct fgt_hold_seen *a = &r->after;

	if (!jw)
		return;
	jsonw_head(jw, "hold");
	jsonw_string_field(jw, "action", actions[r->action]);
	jsonw_int_field(jw, "status", r->status);
	jsonw_string_field(jw, "message", r->msg);
	jsonw_name(jw, "kernel");
	jsonw_start_object(jw);
	jsonw_string_field(jw, "release", r->kid.release);
	jsonw_end_object(jw);
	jsonw_name(jw, "before");
	seen_json(jw, &r->before);
	jsonw_name(jw, "after");
	seen_json(jw, a);
	jsonw_string_field(jw, "undo", a->held ? release_words(a) : "");
	if (r->action != FGT_HOLD_RELEASE) {
		jsonw_int_field(jw, "threads", r->threads);
		jsonw_int_field(jw, "fgraph_users", r->users);
		jsonw_string_field(jw, "fgraph_users_text", r->users_text);
		jsonw_name(jw, "exposure");
		if (r->have_walk) {
			fgt_out_exposure_json(jw, &r->walk, &r->est);
		} else {
			jsonw_start_object(jw);
			jsonw_string_field(jw, "error", r->walk_why);
			jsonw_end_object(jw);
		}
		jsonw_bool_field(jw, "exposure_assumed", r->walk_assumed);
		jsonw_name(jw, "memory");
		jsonw_start_object(jw);
		jsonw_uint_field(jw, "stack_bytes", r->stack_bytes);
		jsonw_uint_field(jw, "stacks", stacks_of(r));
		jsonw_uint_field(jw, "bytes", stacks_of(r) * r->stack_bytes);
		jsonw_end_object(jw);
	}
	if (r->action == FGT_HOLD_TAKE) {
		jsonw_string_field(jw, "method", fgt_hold_method_name(r->method));
		jsonw_string_field(jw, "function", r->func);
		jsonw_string_field(jw, "why_not_link", r->why_not);
		jsonw_bool_field(jw, "taken", r->taken);
		jsonw_bool_field(jw, "dry_run", r->dry_run);
		jsonw_bool_field(jw, "forced", r->forced);
		jsonw_bool_field(jw, "watched", r->watched);
		jsonw_int_field(jw, "graph_active", r->graph_active);
		activation_json(jw, r);
	}
	if (r->action == FGT_HOLD_RELEASE) {
		jsonw_string_field(jw, "removed", r->removed);
		jsonw_string_field(jw, "left", r->left);
	}
	jsonw_end_object(jw);
	jsonw_destroy(&jw);
}

void fgt_hold_print(FILE *f, const struct fgt_hold_result *r, bool json)
{
	if (json)
		print_json(f, r);
	else
		print_text(f, r);
	fflush(f);
}
