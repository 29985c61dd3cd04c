// SPDX-License-Identifier: GPL-2.0
/*
 * The live tool: plan (src/watch/probe.c, src/watch/plan.c) -> the renderer
 * (src/render/output.c) -> the session (src/watch/session.c: open -> set
 * rodata -> load -> attach), which hands it finished records; then the
 * loop: the ring buffer drained, the exposure counted (exp_sched.c), the
 * screen's keys read, the figures rendered, until stopped; one exit path.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/clock.h"
#include "common/exit_codes.h"
#include "common/log.h"
#include "common/selfmem.h"
#include "live/exp_sched.h"
#include "live/explain_run.h"
#include "live/live.h"
#include "render/output.h"
#include "render/screen.h"
#include "static/kread_bpf.h"
#include "static/static_kernel.h"
#include "watch/session.h"

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

static int watch(struct fgt_session *s, struct fgt_out *out, const struct fgt_live_opts *lo,
		 struct fgt_exp_sched *x, bool screen, char *msg, size_t len)
{
	uint64_t start = fgt_mono_ns(), next_tick, deadline = 0, last_draw = 0, changes = 0;
	struct fgt_status st = {};
	int err;

	next_tick = start + lo->interval_s * 1000000000ull;
	if (lo->duration_s)
		deadline = start + lo->duration_s * 1000000000ull;
	fgt_exp_sched_tick(s, x, start, lo->interval_s * 1000000000ull);
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
		/* one begun without its ACT_BEGIN: over once its walker has left */
		if (fgt_session_unbracketed_tick(s))
			redraw = true;
		t = fgt_mono_ns();
		fgt_exp_sched_tick(s, x, t, lo->interval_s * 1000000000ull);
		/* lines and -j wait for the interval but for the holders; the
		 * screen shows new figures as they come */
		c = fgt_session_changes(s, screen);
		if (t >= next_tick) {
			fgt_session_status(s, &st);
			fgt_out_interval(out, &st);
			fgt_out_holders(out, &st);
			next_tick += lo->interval_s * 1000000000ull;
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
	/* the final report needs the assembler: flush it, report, then close;
	 * a step still joined gets its record first */
	fgt_session_poll(s, 0);
	fgt_session_join_stop(s);
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

/*
 * The session started, its start line and the static verdict said, the
 * terminal taken for the screen: everything that can fail at start.
 */
static int start(struct fgt_session *s, const struct fgt_live_opts *lo, struct fgt_out **outp,
		 struct fgt_exp_sched *x, bool *screen, char *msg, size_t len)
{
	struct fgt_out_opts oo = {};
	struct fgt_out *out;
	int status, active;

	oo.json = lo->json;
	oo.events = lo->events;
	/* TERM=dumb, or a terminal too narrow for the screen's rows: the lines */
	oo.screen = !lo->no_screen && !lo->json && !lo->events && isatty(STDOUT_FILENO) &&
		    fgt_screen_wanted(STDOUT_FILENO, getenv("TERM"));
	oo.start_ns = fgt_mono_ns();
	oo.start_wall_ns = fgt_wall_ns();
	out = *outp = fgt_out_new(stdout, &oo);
	if (!out) {
		snprintf(msg, len, "out of memory");
		return FGT_EXIT_ERROR;
	}
	if (lo->events) {
		s->on_event = on_event;
		s->event_ctx = out;
	}
	s->want_holders = !lo->events || lo->json;
	s->want_exposure = true;
	status = fgt_session_start(s, fgt_out_record, out, msg, len);
	if (status)
		return status;
	fgt_out_start(out, s->plan);
	if (s->joining)
		fgt_out_joined(out, &s->join);
	fgt_exp_sched_open(s, x);
	give_back("after the start line");
	fgt_session_started(s);
	static_verdict(s, out);
	fgt_session_phase("the static verdict");
	give_back("after the static verdict");
	active = s->joining ? 0 : fgt_session_graph_active(s);
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
	*screen = oo.screen;
	return FGT_EXIT_OK;
}

int fgt_live_run(const struct fgt_live_opts *lo)
{
	struct fgt_session s = {};
	struct fgt_exp_sched x = {};
	struct fgt_out *out = NULL;
	bool screen = false;
	char msg[512];
	int status;

	signals();
	s.pref = lo->path;
	/* --events prints every event as it drains them: a slower consumer,
	 * and TASK_EXIT events on top (a fork storm lost some with 1 MiB) */
	s.ringbuf_mb = lo->ringbuf_mb ? lo->ringbuf_mb : lo->events ? 4 : 1;
	/* before anything that can wait on the locks a 0->1 step holds */
	s.want_join = true;
	status = fgt_session_plan(&s, msg, sizeof(msg));
	if (lo->explain && s.plan && (status == 0 || status == FGT_EXIT_NO_PATH)) {
		fgt_live_explain(&s, lo->json);
		if (status)
			goto fail;
		goto cleanup;
	}
	if (status)
		goto fail;
	status = start(&s, lo, &out, &x, &screen, msg, sizeof(msg));
	if (status)
		goto fail;
	status = watch(&s, out, lo, &x, screen, msg, sizeof(msg));
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
