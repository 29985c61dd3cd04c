// SPDX-License-Identifier: GPL-2.0
/*
 * fgraphtop: watch the function-graph tracer allocate per-thread shadow
 * stacks on its 0 -> 1 step, and tell whether this kernel carries the fix
 * for the quadratic walk ("tracing: fgraph: fix the quadratic shadow stack walk").
 *
 * Options (src/env.c) -> plan (src/watch/probe.c, src/watch/plan.c) -> the renderer
 * (src/render/output.c) -> the session (src/watch/session.c: open -> set rodata -> load ->
 * attach), which hands it finished records; one exit path.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "check/check.h"
#include "hold/hold.h"
#include "common/clock.h"
#include "env.h"
#include "common/exit_codes.h"
#include "watch/exposure.h"
#include "common/json_writer.h"
#include "common/log.h"
#include "common/selfmem.h"
#include "common/waitnote.h"
#include "render/explain.h"
#include "render/output.h"
#include "render/screen.h"
#include "watch/session.h"
#include "static/kread_bpf.h"
#include "static/static_kernel.h"

/* libbpf's own messages go through the one channel: warnings with -v, all with -vvv. */
static int libbpf_print_fn(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (fgt_verbose < 3 && !(fgt_verbose >= 1 && level == LIBBPF_WARN))
		return 0;
	fgt_vlog(level == LIBBPF_WARN ? FGT_LOG_INFO : FGT_LOG_DEBUG, fmt, args);
	return 0;
}

static volatile sig_atomic_t exiting;

static void sig_handler(int sig)
{
	exiting = 1;
}

/* SIGINT, SIGTERM and SIGHUP (the terminal went away) are clean stops; a
 * reader that quits (fgraphtop -j | head) makes writes fail with EPIPE,
 * which is one too, instead of killing us with SIGPIPE. */
static void signals(void)
{
	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);
	signal(SIGHUP, sig_handler);
	signal(SIGPIPE, SIG_IGN);
}

static void on_event(const struct fgt_event *e, const struct fgt_frame *frames, int n, void *ctx)
{
	fgt_out_event(ctx, e, frames, n);
}

/* Who holds fgraph, for --explain: read by the watcher, so that a tracer
 * switch holding tracefs's lock makes it say so instead of hanging. */
static bool explain_holders(const struct fgt_session *s, struct fgt_holders *h)
{
	struct fgt_holders_cfg c = {};
	struct fgt_holders_watch *w;
	struct fgt_wait *note;
	bool ok;

	fgt_fprobe_facts(s->ks, &c.fprobe);
	w = fgt_holders_watch_start(&c, 60000);
	note = fgt_wait_begin_other(FGT_WAIT_TRACE_TYPES_LOCK, "reading who holds fgraph (tracefs)");
	ok = fgt_holders_watch_wait(w, 2000) && fgt_holders_watch_get(w, h, NULL, NULL);
	fgt_wait_end(note);
	fgt_holders_watch_stop(w);
	return ok;
}

/*
 * ftrace_graph_active for --explain, which loads no probes to read it as the
 * live view does: four bytes of the running kernel, by the reader the static
 * verdict reads code with (kcore, else BPF); -1 if neither can.
 */
static int explain_graph_active(const struct fgt_session *s)
{
	const struct fgt_static_opts o = { .bpf_read = fgt_kread_bpf };
	uint64_t addr = s->plan->k.addr[FGT_SYM_GRAPH_ACTIVE];
	char msg[256];
	int v = -1;

	if (!addr) {
		log_info("ftrace_graph_active: no address in the symbol table");
		return -1;
	}
	if (fgt_static_read_running(&o, addr, &v, sizeof(v), msg, sizeof(msg))) {
		log_info("ftrace_graph_active at %#llx: %s", (unsigned long long)addr, msg);
		return -1;
	}
	return v < 0 ? -1 : v;
}

static void explain(const struct fgt_session *s, bool json)
{
	struct fgt_holders h;
	bool have = explain_holders(s, &h);

	fgt_explain_print(stdout, s->plan, have ? &h : NULL, explain_graph_active(s),
			  s->joining ? &s->join : NULL, json);
}

/* stdout could not be written: a reader that went away is a clean stop. */
static int output_failed(char *msg, size_t len)
{
	if (errno == EPIPE)
		return FGT_EXIT_OK;
	snprintf(msg, len, "cannot write the output: %s", strerror(errno));
	return FGT_EXIT_ERROR;
}

/* The screen redraws this often while an activation is under way. */
#define FGT_REDRAW_NS	500000000ull

/* Keys and resizes; false when the user asked to quit. */
static bool screen_input(struct fgt_out *out, bool *redraw)
{
	int k, cols, rows;

	while ((k = fgt_term_key()) >= 0) {
		if (k == 'q' || k == 'Q')
			return false;
		if (k == 12)	/* Ctrl-L */
			*redraw = true;
	}
	if (fgt_term_resized()) {
		fgt_term_size(&cols, &rows);
		fgt_out_resize(out, cols, rows);
		*redraw = true;
	}
	return true;
}

/*
 * The exposure, rescanned as the view goes: a task-iterator pass costs about
 * the same per thread as the kernel's walk visits one, so the next pass waits
 * FGT_EXP_DUTY times as long as the last took (and at least an interval):
 * at most 1 % of one CPU. Never while an activation is under way: its walk
 * is what the view times, and the scan is for the next one. Right after
 * one: the last count is then out of date.
 */
#define FGT_EXP_DUTY	100

struct exp_sched {
	struct fgt_exposure *e;		/* NULL: not measured */
	uint64_t next_ns;
	unsigned int acts;		/* activations finished at the last pass */
};

/* The session's iterator, loaded with its programs (s->want_exposure). */
static void exposure_open(struct fgt_session *s, struct exp_sched *x)
{
	char why[256];

	x->e = fgt_session_exposure(s, why, sizeof(why));
	if (!x->e)
		p_warn("no_exposure", "the threads lacking a shadow stack are not counted: %s", why);
}

static void exposure_tick(struct fgt_session *s, struct exp_sched *x, uint64_t t,
			  uint64_t interval_ns)
{
	struct fgt_exp_walk w;
	uint64_t t1, wait;
	char why[256];

	if (!x->e || fgt_session_busy(s))
		return;
	/* an activation since the last pass gave its threads stacks: that
	 * count is out of date, count again now */
	if (t < x->next_ns && s->rec.judge.n == x->acts)
		return;
	x->acts = s->rec.judge.n;
	if (fgt_exposure_read(x->e, &w, why, sizeof(why))) {
		p_warn("no_exposure", "counting the threads lacking a shadow stack failed: %s; "
		       "not counted any more", why);
		x->e = NULL;	/* the session's: it closes it */
		return;
	}
	/* stamped when done: an activation that began during the pass is not
	 * one this count came before */
	t1 = fgt_mono_ns();
	fgt_session_set_exposure(s, &w, t1);
	wait = FGT_EXP_DUTY * (t1 - t);
	x->next_ns = t1 + (wait > interval_ns ? wait : interval_ns);
}

static int watch(struct fgt_session *s, struct fgt_out *out, const struct fgt_env *env,
		 struct exp_sched *x, bool screen, char *msg, size_t len)
{
	uint64_t start = fgt_mono_ns(), next_tick, deadline = 0, last_draw = 0, changes = 0;
	struct fgt_status st = {};
	int err;

	next_tick = start + env->interval_s * 1000000000ull;
	if (env->duration_s)
		deadline = start + env->duration_s * 1000000000ull;
	exposure_tick(s, x, start, env->interval_s * 1000000000ull);
	while (!exiting) {
		bool redraw = false;
		uint64_t t, c;

		err = fgt_session_poll(s, 100);
		if (err < 0 && err != -EINTR) {
			snprintf(msg, len, "reading the ring buffer failed: %s", strerror(-err));
			return FGT_EXIT_ERROR;
		}
		if (screen && !screen_input(out, &redraw))
			break;
		/* a step joined under way: its looks, its record, then the
		 * deferred probes */
		if (fgt_session_join_tick(s) || (s->joining && !last_draw))
			redraw = true;	/* the first frame shows it at once */
		t = fgt_mono_ns();
		exposure_tick(s, x, t, env->interval_s * 1000000000ull);
		/* lines and -j wait for the interval but for the holders; the
		 * screen shows new figures as they come */
		c = fgt_session_changes(s, screen);
		if (t >= next_tick) {
			fgt_session_status(s, &st);
			fgt_out_interval(out, &st);
			fgt_out_holders(out, &st);
			next_tick += env->interval_s * 1000000000ull;
			last_draw = t;
			changes = c;
		} else if (c != changes || redraw ||
			   (screen && st.cur && t - last_draw >= FGT_REDRAW_NS)) {
			/* a record ended, the holders changed, or the one under way
			 * moved on: the screen shows it now, lines print the holders */
			fgt_session_status(s, &st);
			fgt_out_redraw(out, &st);
			fgt_out_holders(out, &st);
			last_draw = t;
			changes = c;
		}
		if (ferror(stdout))
			return output_failed(msg, len);
		if (deadline && t >= deadline)
			break;
	}
	/* the final report needs the assembler: flush it, report, then close */
	fgt_session_poll(s, 0);
	fgt_session_flush(s);
	fgt_session_status(s, &st);
	fgt_term_close();
	fgt_out_final(out, &st);
	if (fflush(stdout) || ferror(stdout))
		return output_failed(msg, len);
	return FGT_EXIT_OK;
}

/*
 * The pages of our executable that start-up read once (libbpf's parse of the
 * embedded BPF object, the plan, the loader) and then the static verdict
 * (Capstone's tables), given back before what comes next piles on them: the
 * whole /proc/kallsyms, then the decoder. They were the live view's peak RSS
 * (src/common/selfmem.c).
 */
static void give_back(const char *when)
{
	long kib = fgt_selfmem_drop_exe();

	if (kib < 0)
		log_dbg("fgraphtop: %s: executable pages kept: %s\n", when, strerror((int)-kib));
	else
		log_dbg("fgraphtop: %s: %ld KiB of executable pages given back\n", when, kib);
}

/* What the kernel's code says, at start: read-only (kcore, or one BPF read),
 * with the kallsyms the session already has; a step joined under way infers
 * its sweeps from it. */
static void static_verdict(struct fgt_session *s, struct fgt_out *out)
{
	struct fgt_static_opts so = {
		.ks = s->ks, .bpf_read = fgt_kread_bpf,
		.btf_known = s->plan->have_btf ? &s->plan->btf : NULL,
	};
	struct fgt_static_result *r = calloc(1, sizeof(*r));

	if (!r)
		return;
	fgt_static_check(&so, r);
	fgt_out_static(out, r);
	fgt_session_join_code(s, r->verdict);
	free(r);
}

int main(int argc, char **argv)
{
	struct fgt_session s = {};
	struct exp_sched x = {};
	struct fgt_out *out = NULL;
	struct fgt_out_opts oo = {};
	enum fgt_cli_action act;
	struct fgt_env env;
	char msg[512];
	int status, active;

	if (argc > 1 && !strcmp(argv[1], "check")) {
		libbpf_set_print(libbpf_print_fn);
		return fgt_check_main(argc - 1, argv + 1, fgt_session_watch_ops(&s), fgt_kread_bpf);
	}
	if (argc > 1 && !strcmp(argv[1], "hold")) {
		libbpf_set_print(libbpf_print_fn);
		return fgt_hold_main(argc - 1, argv + 1, fgt_session_watch_ops(&s));
	}
	act = fgt_env_parse(argc, argv, &env);
	fgt_msg_setup(env.cli.json, stdout);
	fgt_verbose = env.cli.verbose;
	if (fgt_env_print(act, stdout))
		return FGT_EXIT_OK;
	if (act == FGT_CLI_ERROR) {
		p_err(FGT_EXIT_USAGE, "%s", env.cli.err);
		if (!env.cli.json)
			fprintf(stderr, "Try 'fgraphtop --help' for more information.\n");
		return FGT_EXIT_USAGE;
	}
	/*
	 * Large blocks always mmap()ed, as src/host/ksyms.c counts on: glibc raises
	 * its threshold to the size of each mapped block freed, and the start-up
	 * frees vmlinux BTF's megabytes before /proc/kallsyms is read (after the
	 * start line), whose tables would then grow in the heap and keep the
	 * peak (docs/bench/startup.md).
	 */
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
	libbpf_set_print(libbpf_print_fn);
	signals();

	s.pref = env.path;
	/* --events prints every event as it drains them: a slower consumer,
	 * and TASK_EXIT events on top (a fork storm lost some with 1 MiB) */
	s.ringbuf_mb = env.ringbuf_mb ? env.ringbuf_mb : env.events ? 4 : 1;
	/* before anything that can wait on the locks a 0->1 step holds */
	s.want_join = true;
	status = fgt_session_plan(&s, msg, sizeof(msg));
	if (env.explain && s.plan && (status == 0 || status == FGT_EXIT_NO_PATH)) {
		explain(&s, env.cli.json);
		if (status)
			goto fail;
		goto cleanup;
	}
	if (status)
		goto fail;

	oo.json = env.cli.json;
	oo.events = env.events;
	/* TERM=dumb, or a terminal too narrow for the screen's rows: the lines */
	oo.screen = !env.no_screen && !env.cli.json && !env.events && isatty(STDOUT_FILENO) &&
		    fgt_screen_wanted(STDOUT_FILENO, getenv("TERM"));
	oo.start_ns = fgt_mono_ns();
	oo.start_wall_ns = fgt_wall_ns();
	out = fgt_out_new(stdout, &oo);
	if (!out) {
		snprintf(msg, sizeof(msg), "out of memory");
		status = FGT_EXIT_ERROR;
		goto fail;
	}
	if (env.events) {
		s.on_event = on_event;
		s.event_ctx = out;
	}
	s.want_holders = !env.events || env.cli.json;
	s.want_exposure = true;
	status = fgt_session_start(&s, fgt_out_record, out, msg, sizeof(msg));
	if (status)
		goto fail;
	fgt_out_start(out, s.plan);
	if (s.joining)
		fgt_out_joined(out, &s.join);
	exposure_open(&s, &x);
	give_back("after the start line");
	fgt_session_started(&s);
	static_verdict(&s, out);
	fgt_session_phase("the static verdict");
	give_back("after the static verdict");
	active = s.joining ? 0 : fgt_session_graph_active(&s);
	if (active > 0)
		p_warn("fgraph_active", "fgraph is already active (%d user%s): there is no "
		       "0->1 step to watch until every user stops; watching the fork path",
		       active, active > 1 ? "s" : "");
	/* the terminal is ours once everything that can fail at start has passed;
	 * not a terminal after all (a race with a closing one): lines */
	if (oo.screen && fgt_term_open(STDOUT_FILENO, STDIN_FILENO) == 0) {
		int cols, rows;

		fgt_term_size(&cols, &rows);
		fgt_out_resize(out, cols, rows);
	} else if (oo.screen) {
		oo.screen = false;
		fgt_out_set_screen(out, false);
	}
	status = watch(&s, out, &env, &x, oo.screen, msg, sizeof(msg));
	if (status)
		goto fail;
	goto cleanup;

fail:
	/* the message goes to the terminal the user gets back */
	fgt_term_close();
	p_err(status, "%s", msg);
cleanup:
	fgt_term_close();
	fgt_session_close(&s);
	fgt_out_free(out);
	return status;
}
