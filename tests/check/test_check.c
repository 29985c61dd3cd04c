// SPDX-License-Identifier: GPL-2.0
/*
 * fgraphtop check end to end without a kernel: a fake host (check_fake.h) and
 * a fake BPF session that replays activations of the kernel simulator
 * (tests/lib/gen.c) through the real assembler. Plus this machine's own answer:
 * where the kernel has no function graph tracer, `fgraphtop check` must say
 * not_affected and exit 0 (skipped on hosts that have one).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "model/activation.h"
#include "check/check.h"
#include "check_main.h"
#include "common/exit_codes.h"
#include "common/log.h"
#include "lib/check_fake.h"
#include "check/trigger_state.h"
#include "lib/gen.h"
#include "static/static_kernel.h"

struct fake_session {
	struct gen_cfg kernel;		/* what the fake kernel does on activation */
	const struct fake *host;	/* NULL: activation at the first poll (someone else's) */
	bool emit_never, start_fails, emitted, stopped;
	uint64_t lost;			/* lost over the whole watch (w->lost) */
	uint64_t lost_in_act;		/* of which during the activation */
	struct fgt_recorder rec;	/* as src/watch/session.c: the records and the judge */
	bool have_expo;			/* the exposure scan works; its walk: */
	struct fgt_exp_walk expo;
	struct fgt_assembler *as;
};

/* As src/watch/session.c does: the activation is charged what was lost before its END. */
static void feed(const struct fgt_event *ev, void *ctx)
{
	struct fake_session *s = ctx;

	if (ev->type == FGT_EV_ACT_END && s->lost_in_act)
		fgt_assembler_lost(s->as, s->lost_in_act);
	fgt_assembler_feed(s->as, ev);
}

static int fs_start(void *priv, const struct fgt_ksyms *ks, fgt_record_cb cb, void *cb_ctx,
		    char *msg, size_t len)
{
	struct fake_session *s = priv;

	if (s->start_fails) {
		snprintf(msg, len, "BPF tracing programs are not permitted by this kernel");
		return -EPERM;
	}
	fgt_recorder_init(&s->rec, cb, cb_ctx, ks, NULL, NULL);
	s->as = fgt_assembler_new(fgt_recorder_activation, &s->rec);
	/* as the session on a kernel whose stacks have their own cache (the
	 * shapes are 7.x's) */
	fgt_assembler_trust_frees(s->as, s->kernel.cache || s->kernel.shape != GEN_LAB);
	return s->as ? 0 : -ENOMEM;
}

static int fs_poll(void *priv, int ms)
{
	struct fake_session *s = priv;
	const char *tracer;

	if (s->emitted || s->emit_never)
		return 0;
	if (s->host) {	/* --trigger: the fake kernel activates when the tracer is set */
		tracer = fake_read(s->host, "tracing/current_tracer");
		if (!tracer || strcmp(tracer, "function_graph"))
			return 0;
	}
	s->kernel.ts0 = 1000;
	gen_activation(&s->kernel, feed, s);
	s->emitted = true;
	return 0;
}

static bool fs_busy(void *priv)
{
	return false;
}

/* As the real session: what counts the losses is gone once stopped. */
static uint64_t fs_lost(void *priv)
{
	struct fake_session *s = priv;

	return s->stopped ? 0 : s->lost;
}

static int fs_exposure(void *priv, struct fgt_exp_walk *w, char *msg, size_t len)
{
	struct fake_session *s = priv;

	if (!s->have_expo) {
		snprintf(msg, len, "no task iterator in this fake");
		return -EOPNOTSUPP;
	}
	*w = s->expo;
	return 0;
}

static int fs_graph_active(void *priv)
{
	return 0;
}

/* As the real session: deliver what is queued, end a bracketless activation. */
static void fs_trigger_done(void *priv)
{
	struct fake_session *s = priv;

	fs_poll(priv, 0);
	if (s->as)
		fgt_assembler_end(s->as, 0);
}

static void fs_stop(void *priv)
{
	struct fake_session *s = priv;

	if (s->as) {
		fgt_assembler_flush(s->as);
		fgt_assembler_free(s->as);
	}
	s->as = NULL;
	s->stopped = true;
}

static struct fgt_watch_ops session_ops(struct fake_session *s)
{
	struct fgt_watch_ops w = {
		.start = fs_start, .graph_active = fs_graph_active, .poll = fs_poll,
		.busy = fs_busy, .lost = fs_lost, .stop = fs_stop, .exposure = fs_exposure,
		.trigger_done = fs_trigger_done, .priv = s,
	};
	return w;
}

static struct fgt_check_sys sys_of(const struct fake *f, const struct fgt_watch_ops *w)
{
	struct fgt_check_sys e = {
		.host = { .tracefs = f->tracefs, .kallsyms = f->kallsyms, .loadavg = f->loadavg,
			  .no_bpf_links = true },
		.notes_path = "tests/data/notes/debian-6.1.0-50-amd64.notes",
		.state_dir = f->state, .no_bpf = true, .watch = w, .out = stdout,
	};
	return e;
}

static const struct fgt_check_opts passive = { .timeout_s = 0.3 };

/* The reason as the answer renders it. */
static const char *reason(const struct fgt_check_result *r)
{
	static char buf[FGT_CHECK_REASON_LEN];

	return fgt_check_reason(r, buf, sizeof(buf));
}

static char *render(const struct fgt_check_result *r, bool json)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	if (json)
		fgt_check_print_json(f, r);
	else
		fgt_check_print_line(f, r);
	fclose(f);
	/* every JSON answer is also checked against docs/json.md (make test-schema) */
	if (json && getenv("FGT_JSON_OUT")) {
		FILE *out = fopen(getenv("FGT_JSON_OUT"), "a");

		assert_non_null(out);
		fputs(buf, out);
		fclose(out);
	}
	return buf;
}

static void test_passive_not_fixed(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_session s = { .kernel = { .lacking = 10002 } };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_result r;
	char *out;

	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_CRITICAL);
	assert_int_equal(r.verdict, FGT_VERDICT_NOT_FIXED);
	assert_true(s.stopped);
	assert_string_equal(r.kid.build_id, "06f8bde30046985060c60820f7a11515a33afb06");
	out = render(&r, false);
	assert_non_null(strstr(out, "FGRAPH CRITICAL - not fixed: 313 sweeps, each a GFP_KERNEL "
			       "batch of at most 32, served 10002 threads: the walk restarted per "
			       "batch (the gaps between the batches hold them); kernel "));
	assert_non_null(strstr(out, " build 06f8bde30046985060c60820f7a11515a33afb06 | sweeps=313 "
			       "served=10002 duration="));
	assert_non_null(strstr(out, "s failures=0 lost=0\n"));
	out = render(&r, true);
	assert_non_null(strstr(out, "\"verdict\":\"not_fixed\""));
	assert_non_null(strstr(out, "\"status\":2"));
	assert_non_null(strstr(out, "\"build_id\":\"06f8bde30046985060c60820f7a11515a33afb06\""));
	assert_non_null(strstr(out, "\"sweeps\":313"));
	assert_non_null(strstr(out, "\"served\":10002,\"duration_ns\":"));
	/* schema 1's old names stay until schema 2 (docs/json.md) */
	assert_non_null(strstr(out, "\"threads_served\":10002,\"duration_s\":"));
	assert_null(strstr(out, "\"trigger\""));
	assert_int_equal(strchr(out, '\n') - out, strlen(out) - 1);	/* one line */
	fake_free(f);
}

static void test_passive_fixed_and_warnings(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_session s = { .kernel = { .fixed = true, .lacking = 500 } };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_result r;

	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_OK);
	assert_int_equal(r.verdict, FGT_VERDICT_FIXED);
	assert_non_null(strstr(render(&r, false), "FGRAPH OK - fixed: one sweep served 500 threads"));
	/* injected inline failures: fixed, but something is wrong */
	memset(&s, 0, sizeof(s));
	s.kernel.fixed = true;
	s.kernel.lacking = 500;
	s.kernel.fail_nb = 40;
	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_WARNING);
	assert_int_equal(r.verdict, FGT_VERDICT_FIXED);
	assert_non_null(strstr(reason(&r), "; 40 shadow-stack allocations failed"));
	assert_non_null(strstr(render(&r, false), "failures=40"));
	/* events lost during the activation: its figures are a lower bound */
	memset(&s, 0, sizeof(s));
	s.kernel.fixed = true;
	s.kernel.lacking = 500;
	s.lost = 9;
	s.lost_in_act = 7;
	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_WARNING);
	assert_non_null(strstr(reason(&r), "; 7 events lost during the activation"));
	assert_int_equal(r.lost, 9);
	assert_int_equal(r.seen.fig.lost, 7);
	/* read before the session stopped (after, it counts nothing): in the line,
	 * the JSON and the textfile */
	assert_non_null(strstr(render(&r, false), " lost=9"));
	assert_non_null(strstr(render(&r, true), "\"lost_events\":9,"));
	{
		char path[256], err[256];

		snprintf(path, sizeof(path), "%s/lost.prom", f->root);
		assert_int_equal(fgt_check_write_prom(path, &r, err, sizeof(err)), 0);
		assert_non_null(strstr(fake_read(f, "lost.prom"), "\nfgraphtop_lost_events 9"));
	}
	/* lost at other times only: reported, the answer stands */
	memset(&s, 0, sizeof(s));
	s.kernel.fixed = true;
	s.kernel.lacking = 500;
	s.lost = 9;
	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_OK);
	assert_null(strstr(reason(&r), "lost"));
	assert_int_equal(r.lost, 9);
	assert_non_null(strstr(render(&r, false), " lost=9"));
	/* lost events do not soften "not fixed" */
	memset(&s, 0, sizeof(s));
	s.kernel.lacking = 500;
	s.lost = 7;
	s.lost_in_act = 7;
	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_CRITICAL);
	fake_free(f);
}

static void test_unknown(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_session s = { .emit_never = true };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_result r;
	char *out;

	/* nothing happened while watching */
	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_UNKNOWN);
	assert_non_null(strstr(reason(&r), "no fgraph activation (0->1 step) happened while watching"));
	assert_non_null(strstr(reason(&r), "--trigger causes one"));
	out = render(&r, false);
	assert_non_null(strstr(out, "FGRAPH UNKNOWN - unknown: no activation seen"));
	assert_non_null(strstr(out, " | lost=0\n"));
	/* an activation where no thread lacked a stack tells nothing */
	memset(&s, 0, sizeof(s));
	s.kernel.before = 100;
	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_UNKNOWN);
	assert_non_null(strstr(reason(&r), "served no thread"));
	assert_non_null(strstr(reason(&r), "no activation seen told fixed from unfixed"));
	/* the session cannot start: say why */
	memset(&s, 0, sizeof(s));
	s.start_fails = true;
	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_UNKNOWN);
	assert_string_equal(reason(&r), "cannot watch activations: BPF tracing programs are not "
			    "permitted by this kernel");
	/* a build without the session */
	e.watch = NULL;
	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_UNKNOWN);
	assert_non_null(strstr(reason(&r), "no BPF session"));
	fake_free(f);
}

/* A masked or truncated kallsyms (a container's, say) is no proof of "not
 * affected": without tracefs to tell, the answer is unknown, with the reason. */
static void test_masked_kallsyms(void **state)
{
	struct fake *f = fake_new(0);
	struct fgt_check_sys e = sys_of(f, NULL);
	struct fgt_check_result r;

	fake_write(f, "kallsyms", "");
	e.host.tracefs = "/nonexistent";
	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_UNKNOWN);
	assert_int_equal(r.verdict, FGT_VERDICT_UNKNOWN);
	assert_string_equal(reason(&r), "cannot tell whether this kernel has a function graph "
			    "tracer: /proc/kallsyms looks masked or truncated (0 symbols, no "
			    "_stext, no _etext), and tracefs is not readable (mount tracefs, run "
			    "as root)");
	/* truncated in the middle of the text symbols: no _etext */
	fake_write(f, "kallsyms", "ffffffff81000000 T _stext\nffffffff81000100 T a\n");
	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_UNKNOWN);
	fake_free(f);
}

static void test_not_affected(void **state)
{
	struct fake *f = fake_new(0);
	struct fgt_check_sys e = sys_of(f, NULL);	/* no session needed */
	struct fgt_check_result r;
	char *out;

	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_OK);
	assert_int_equal(r.verdict, FGT_VERDICT_NOT_AFFECTED);
	out = render(&r, false);
	assert_non_null(strstr(out, "FGRAPH OK - not affected: no function graph tracer in this "
			       "kernel: no register_ftrace_graph in kallsyms: it cannot have the "
			       "quadratic shadow-stack walk; kernel "));
	assert_null(strstr(out, "|"));
	out = render(&r, true);
	assert_non_null(strstr(out, "\"verdict\":\"not_affected\",\"status\":0"));
	assert_null(strstr(out, "\"activation\""));
	fake_free(f);
}

static void test_trigger(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_session s = { .kernel = { .fixed = true, .lacking = 100 } };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_opts o = { .timeout_s = 2, .trigger = true, .park = 100 };
	struct fgt_check_result r;
	char *out;

	s.host = f;
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_OK);
	assert_int_equal(r.verdict, FGT_VERDICT_FIXED);
	assert_true(r.triggered);
	assert_int_equal(r.trig_method, FGT_TRIG_TOPLEVEL);	/* a plain dir is no instance */
	assert_string_equal(r.func, "__x64_sys_reboot");
	assert_int_equal(r.parked, 100);
	assert_int_equal(r.threads, 345);
	/* no scan here: the threads as /proc/loadavg counts them, all assumed lacking */
	assert_true(r.trig_assumed);
	assert_int_equal(r.trig_walk.lacking, 345);
	assert_false(r.have_exposure);
	assert_string_equal(r.exposure_why, "no task iterator in this fake");
	/* restored, nothing left */
	assert_string_equal(fake_read(f, "tracing/current_tracer"), "nop");
	assert_string_equal(fake_read(f, "tracing/set_ftrace_filter"), "");
	{
		char sp[64];

		snprintf(sp, sizeof(sp), "run/check-%d.state", (int)getpid());
		assert_false(fake_exists(f, sp));
	}
	out = render(&r, true);
	assert_non_null(strstr(out, "\"trigger\":{\"done\":true,\"method\":\"toplevel\","
			       "\"function\":\"__x64_sys_reboot\",\"parked_threads\":100,\"threads\":345"));
	fake_free(f);
}

/*
 * What a killed check left counts as an fgraph user (its instance with
 * function_graph, the top-level tracer set to it): the next --trigger must
 * clean it up under the lock before it looks for users, not refuse forever.
 */
static void test_trigger_after_killed_run(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_session s = { .kernel = { .lacking = 1000 } };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_opts o = { .timeout_s = 2, .trigger = true, .park = 100 };
	struct fgt_check_result r;
	char name[96], rel[160];
	struct fgt_owner dead;

	s.host = f;
	/* a dead run of this PID namespace: its pid is gone */
	assert_int_equal(fgt_owner_self(&dead, NULL), 0);
	dead.pid = 4194303;
	fgt_instance_name(&dead, name, sizeof(name));
	snprintf(rel, sizeof(rel), "tracing/instances/%s", name);
	fake_mkdir(f, rel);	/* (a plain directory: rmdir of a fake one needs it empty) */
	fake_write(f, "tracing/current_tracer", "function_graph\n");
	fake_write(f, "tracing/set_ftrace_filter", "__x64_sys_reboot\n");
	fake_mkdir(f, "run");
	chmod(f->state, 0700);
	fake_write(f, "run/check-4194303.state", "pid=4194303\ntoplevel=__x64_sys_reboot\n");
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_CRITICAL);
	assert_true(r.triggered);
	assert_non_null(strstr(r.cleaned, "removed stray tracefs instance "));
	assert_non_null(strstr(r.cleaned, "reset the top-level tracer left by killed check pid "
			       "4194303"));
	snprintf(rel, sizeof(rel), "tracing/instances/%s", name);
	assert_false(fake_exists(f, rel));
	assert_false(fake_exists(f, "run/check-4194303.state"));
	assert_string_equal(fake_read(f, "tracing/current_tracer"), "nop");
	fake_free(f);
}

static void test_trigger_refusals(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_session s = { .kernel = { .lacking = 1000 } };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_opts o = { .timeout_s = 1, .trigger = true, .park = 100 };
	struct fgt_check_result r;

	s.host = f;
	/* fgraph already in use */
	fake_mkdir(f, "tracing/instances/perf");
	fake_write(f, "tracing/instances/perf/current_tracer", "function_graph\n");
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_UNKNOWN);
	assert_non_null(strstr(reason(&r), "refusing to trigger: fgraph is already active (tracefs "
			       "instance perf has function_graph)"));
	assert_false(s.emitted);
	fake_write(f, "tracing/instances/perf/current_tracer", "nop\n");
	/* too many threads for an unfixed walk: no scan, all assumed lacking */
	fake_write(f, "loadavg", "1.0 1.0 1.0 3/60000 9999\n");
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_UNKNOWN);
	assert_non_null(strstr(reason(&r), "refusing to trigger: 60000 threads, 60000 of them "
			       "lacking a shadow stack (assumed: no scan) (100 parked): an "
			       "unfixed kernel would make 1875 sweeps"));
	assert_non_null(strstr(reason(&r), "--force overrides"));
	assert_string_equal(fake_read(f, "tracing/current_tracer"), "nop");
	assert_false(s.emitted);
	/* the scan says most of them hold a stack already, behind the lacking
	 * ones: a short walk, go */
	s.have_expo = true;
	fgt_exp_walk_lacking_first(60000, 200, &s.expo);
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_CRITICAL);
	assert_false(r.trig_assumed);
	assert_true(r.have_exposure);
	assert_int_equal(r.exposure.lacking, 200);
	s.emitted = s.stopped = false;
	/* and when it says 100,000 lack one: refused, whatever loadavg says */
	fake_write(f, "loadavg", "1.0 1.0 1.0 3/345 9999\n");
	fgt_exp_walk_lacking_first(100000, 100000, &s.expo);
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_UNKNOWN);
	assert_non_null(strstr(reason(&r), "refusing to trigger: 100000 threads, 100000 of them "
			       "lacking a shadow stack (100 parked): an unfixed kernel would make "
			       "3125 sweeps"));
	s.have_expo = false;
	fake_write(f, "loadavg", "1.0 1.0 1.0 3/60000 9999\n");
	/* --force: goes ahead (the fake kernel is unfixed) */
	o.force = true;
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_CRITICAL);
	assert_true(r.triggered);
	assert_string_equal(fake_read(f, "tracing/current_tracer"), "nop");
	fake_free(f);
}

/* ---- the code's answer (fgt_static_check, faked) and the activation's ------- */

static struct fgt_static_result fake_code;
static unsigned int fake_code_calls;
static const char *fake_code_kernel;

static enum fgt_verdict fake_static(const struct fgt_static_opts *o,
					   struct fgt_static_result *r)
{
	*r = fake_code;
	fake_code_calls++;
	fake_code_kernel = o->kernel;
	return r->verdict;
}

static void code_says(enum fgt_verdict v, enum fgt_static_why why, const char *evidence)
{
	memset(&fake_code, 0, sizeof(fake_code));
	fake_code.verdict = v;
	fake_code.why = why;
	snprintf(fake_code.evidence, sizeof(fake_code.evidence), "%s", evidence);
	snprintf(fake_code.func, sizeof(fake_code.func), "register_ftrace_graph");
	fake_code_calls = 0;
}

#define FIXED_CODE	"register_ftrace_graph+0x3d1: kmem_cache_alloc_noprof(fgraph_stack_cachep, " \
			"GFP_NOWAIT|__GFP_NOWARN) inside rcu_read_lock()"
#define UNFIXED_CODE	"register_ftrace_graph+0x33e: kmem_cache_alloc_noprof(fgraph_stack_cachep, " \
			"GFP_KERNEL) outside rcu_read_lock() (the batch)"

/* A plain check answers from the code at once: no session, nothing triggered. */
static void test_code_alone(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_session s = { .kernel = { .lacking = 1000 } };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_opts o = { .timeout_s = 30 };
	struct fgt_check_result r;
	char *out;

	e.statik = fake_static;
	code_says(FGT_VERDICT_FIXED, FGT_SW_NONE, FIXED_CODE);
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_OK);
	assert_int_equal(fake_code_calls, 1);
	assert_int_equal(r.verdict, FGT_VERDICT_FIXED);
	assert_string_equal(fgt_check_by_name(r.answered_by), "static");
	assert_string_equal(reason(&r), FIXED_CODE);
	assert_null(s.as);
	assert_false(s.stopped);	/* never started */
	out = render(&r, false);
	assert_non_null(strstr(out, "FGRAPH OK - fixed (from the code): " FIXED_CODE "; kernel "));
	assert_null(strstr(out, " | "));	/* no activation figures */
	out = render(&r, true);
	assert_non_null(strstr(out, "\"method\":\"static\""));
	assert_non_null(strstr(out, "\"static\":{\"verdict\":\"fixed\",\"evidence\":\""));
	assert_null(strstr(out, "\"trigger\""));
	/* unknown from the code alone says what would tell */
	code_says(FGT_VERDICT_UNKNOWN, FGT_SW_NO_KCORE, "no /proc/kcore (CONFIG_PROC_KCORE off, or a "
		  "container without it)");
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_UNKNOWN);
	assert_string_equal(reason(&r), "no /proc/kcore (CONFIG_PROC_KCORE off, or a container "
			    "without it); --trigger adds an activation's proof");
	out = render(&r, true);
	assert_non_null(strstr(out, "\"why\":\"no_kcore\""));
	/* the host's exposure comes with the code's answer (a task iterator
	 * pass, the session never started); --static loads no BPF at all */
	code_says(FGT_VERDICT_NOT_FIXED, FGT_SW_NONE, UNFIXED_CODE);
	s.have_expo = true;
	fgt_exp_walk_lacking_first(400000, 400000, &s.expo);
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_CRITICAL);
	assert_true(r.have_exposure);
	assert_int_equal(r.exposure.lacking, 400000);
	assert_false(s.stopped);
	assert_non_null(strstr(render(&r, false), " build 06f8bde30046985060c60820f7a11515a33afb06 "
			       "| lacking=400000 walk_estimate=227.019295s\n"));
	/* perfdata have no exponent: a small host's few microseconds */
	r.exposure_est.seconds = 8.63e-06;
	assert_non_null(strstr(render(&r, false), " walk_estimate=0.000009s\n"));
	r.exposure_est.seconds = 2.0;
	assert_non_null(strstr(render(&r, false), " walk_estimate=2s\n"));
	o.static_only = true;
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_CRITICAL);
	assert_false(r.have_exposure);
	assert_string_equal(r.exposure_why, "not measured: --static loads no BPF");
	fake_free(f);
}

/*
 * --trigger on the shapes a fix can take that drop the ret_stack_list (no
 * attributed bracket): the activation ends when the trigger returns. Every
 * stack GFP_KERNEL before one walk: its sweeps are not observable, the
 * activation cannot tell; a pinned cursor: fixed, one walk.
 */
static void test_trigger_bracketless_shapes(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_session s = { .kernel = { .shape = GEN_BLOCKING, .lacking = 1000 } };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_opts o = { .timeout_s = 1, .trigger = true, .park = 100 };
	struct fgt_check_result r;
	char *out;

	s.host = f;
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_UNKNOWN);
	assert_true(r.triggered);
	assert_int_equal(r.seen.n, 1);
	assert_int_equal(r.seen.fig.walks, FGT_WALKS_UNSEEN);
	assert_int_equal(r.seen.fig.served, 1000);
	/* 1,032 blocking allocations, 32 freed: 33 batches, the count there is */
	assert_int_equal(r.seen.fig.batches, 33);
	assert_non_null(strstr(reason(&r), "the sweeps are not observable here"));
	out = render(&r, true);
	assert_non_null(strstr(out, "\"activation\":{\"nr_threads\":0,\"sweeps\":null,"
			       "\"walks\":\"not_observable\",\"batches\":33,\"served\":1000,"
			       "\"duration_ns\":"));
	assert_non_null(strstr(out, "\"lost_events\":0,\"verdict\":\"unknown\","));
	/* the line's perfdata says so too: no count ("U"), not 1 */
	out = render(&r, false);
	assert_non_null(strstr(out, "| sweeps=U served=1000 duration="));
	fake_free(f);

	f = fake_new(1);
	s = (struct fake_session){ .kernel = { .shape = GEN_PINNED, .lacking = 1000, .fail_nb = 7,
					       .fail_interval = 100 } };
	w = session_ops(&s);
	e = sys_of(f, &w);
	s.host = f;
	/* failures served by GFP_KERNEL allocations: fixed, said as a warning */
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_WARNING);
	assert_int_equal(r.verdict, FGT_VERDICT_FIXED);
	assert_int_equal(r.seen.fig.sweeps, 1);
	assert_int_equal(r.seen.fig.served, 1000);
	assert_int_equal(r.seen.fig.reserve_served, 7);
	out = render(&r, true);
	assert_non_null(strstr(out, "\"activation\":{\"nr_threads\":0,\"sweeps\":1,\"walks\":\"inline\","));
	fake_free(f);
}

/* check --trigger on an unfixed kernel (1,000 lacking) whose code says
 * `code`, not_fixed: its status. */
static int trigger_unfixed(struct fake *f, const char *code, struct fgt_check_result *r)
{
	struct fake_session s = { .kernel = { .lacking = 1000 } };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_opts o = { .timeout_s = 2, .trigger = true, .park = 100 };

	s.host = f;
	e.statik = fake_static;
	code_says(FGT_VERDICT_NOT_FIXED, FGT_SW_NONE, code);
	return fgt_check_run(&o, &e, r);
}

#define UNFIXED_ACT	"32 sweeps, each a GFP_KERNEL batch of at most 32, served 1000 " \
			"threads: the walk restarted per batch (the gaps between the batches " \
			"hold them)"

/* --trigger: both answer; the same verdict stands with both pieces of evidence. */
static void test_code_and_trigger_agree(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_check_result r;
	char *out;

	assert_int_equal(trigger_unfixed(f, UNFIXED_CODE, &r), FGT_CHECK_CRITICAL);
	assert_true(r.triggered);
	assert_string_equal(fgt_check_by_name(r.answered_by), "static+trigger");
	assert_string_equal(reason(&r), UNFIXED_CODE "; the activation: " UNFIXED_ACT);
	out = render(&r, false);
	assert_non_null(strstr(out, "FGRAPH CRITICAL - not fixed (from the code and an activation): "));
	out = render(&r, true);
	assert_non_null(strstr(out, "\"method\":\"static+trigger\""));
	fake_free(f);
}

/*
 * A long evidence is cut at a clause, never inside one: lab-fixed's line
 * read "t->ret_stack at +0x890 (B; the activation: ...". The code's 400
 * bytes keep the clauses that fit whole and say more was left out.
 */
#define LONG_CLAUSE	"register_ftrace_graph+0x33e: kmem_cache_alloc_noprof(" \
			"fgraph_stack_cachep, GFP_KERNEL) outside rcu_read_lock() (the batch)"
static void test_reason_cut_at_a_clause(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_check_result r;

	/* 4 x 107 bytes and the field that was cut: 3 clauses fit in 400 */
	assert_int_equal(trigger_unfixed(f, LONG_CLAUSE "; " LONG_CLAUSE "; " LONG_CLAUSE "; "
					 LONG_CLAUSE "; t->ret_stack at +0x890 (BTF)", &r),
			 FGT_CHECK_CRITICAL);
	assert_string_equal(reason(&r), LONG_CLAUSE "; " LONG_CLAUSE "; " LONG_CLAUSE "; ...; "
			    "the activation: " UNFIXED_ACT);
	fake_free(f);
}

/* The code and the activation disagree: unknown, with both. */
static void test_code_and_trigger_disagree(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_session s = { .kernel = { .lacking = 1000 } };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_opts o = { .timeout_s = 2, .trigger = true, .park = 100 };
	struct fgt_check_result r;

	s.host = f;
	e.statik = fake_static;
	code_says(FGT_VERDICT_FIXED, FGT_SW_NONE, FIXED_CODE);
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_UNKNOWN);
	assert_int_equal(r.verdict, FGT_VERDICT_UNKNOWN);
	assert_string_equal(reason(&r), "the code and the activation disagree: the code says fixed ("
			    FIXED_CODE "); the activation says not_fixed (32 sweeps, each a GFP_KERNEL "
			    "batch of at most 32, served 1000 threads: the walk restarted per batch "
			    "(the gaps between the batches hold them))");
	assert_string_equal(fgt_check_by_name(r.answered_by), "static+trigger");
	fake_free(f);
}

/* A trigger refused for the thread count leaves the code's answer standing. */
static void test_code_stands_when_trigger_refused(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_session s = { .kernel = { .lacking = 1000 } };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_opts o = { .timeout_s = 1, .trigger = true, .park = 100 };
	struct fgt_check_result r;

	s.host = f;
	e.statik = fake_static;
	fake_write(f, "loadavg", "1.0 1.0 1.0 3/100000 9999\n");
	code_says(FGT_VERDICT_NOT_FIXED, FGT_SW_NONE, UNFIXED_CODE);
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_CRITICAL);
	assert_false(s.emitted);
	assert_false(r.triggered);
	assert_string_equal(fgt_check_by_name(r.answered_by), "static");
	assert_non_null(strstr(reason(&r), UNFIXED_CODE "; --trigger: refusing to trigger: 100000 "
			       "threads, 100000 of them lacking a shadow stack"));
	assert_string_equal(fake_read(f, "tracing/current_tracer"), "nop");
	code_says(FGT_VERDICT_FIXED, FGT_SW_NONE, FIXED_CODE);
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_OK);
	assert_int_equal(r.verdict, FGT_VERDICT_FIXED);
	fake_free(f);
}

/* The code cannot tell: the activation answers, the code's reason said. */
static void test_code_unknown_trigger_tells(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_session s = { .kernel = { .fixed = true, .lacking = 100 } };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_opts o = { .timeout_s = 2, .trigger = true, .park = 100 };
	struct fgt_check_result r;

	s.host = f;
	e.statik = fake_static;
	code_says(FGT_VERDICT_UNKNOWN, FGT_SW_LOCKDOWN, "/proc/kcore: refused by lockdown=confidentiality");
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_OK);
	assert_int_equal(r.verdict, FGT_VERDICT_FIXED);
	assert_string_equal(fgt_check_by_name(r.answered_by), "trigger");
	assert_non_null(strstr(reason(&r), "; the code: /proc/kcore: refused by lockdown=confidentiality"));
	fake_free(f);
}

/* --kernel FILE: that file's code, named by its own release and build ID. */
static void test_code_of_a_file(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_check_sys e = sys_of(f, NULL);
	struct fgt_check_opts o = { .kernel = "/boot/vmlinuz-7.2.13+deb14-amd64" };
	struct fgt_check_result r;

	e.statik = fake_static;
	code_says(FGT_VERDICT_NOT_FIXED, FGT_SW_NONE, UNFIXED_CODE);
	snprintf(fake_code.release, sizeof(fake_code.release), "7.2.13+deb14-amd64");
	snprintf(fake_code.build_id, sizeof(fake_code.build_id), "f8da1e460d1343b62f4a8880ae5ce63634756e7a");
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_CRITICAL);
	assert_string_equal(fake_code_kernel, o.kernel);
	assert_string_equal(r.kid.release, "7.2.13+deb14-amd64");
	assert_string_equal(r.kid.build_id, "f8da1e460d1343b62f4a8880ae5ce63634756e7a");
	/* a file's unknown does not point at --trigger */
	code_says(FGT_VERDICT_UNKNOWN, FGT_SW_NO_SYMBOLS, "x has no symbols");
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_UNKNOWN);
	assert_string_equal(reason(&r), "x has no symbols");
	fake_free(f);
}

static void test_code_options(void **state)
{
	struct fgt_check_args a;
	char *both[] = { "check", "--static", "--trigger", NULL };
	char *file_wait[] = { "check", "--kernel", "vmlinux", "--timeout", "5", NULL };
	char *map_alone[] = { "check", "--system-map", "System.map", NULL };
	char *file[] = { "check", "--kernel", "vmlinuz", "--system-map", "System.map", "-j", NULL };
	char *wait[] = { "check", "--timeout", "5", NULL };

	assert_int_equal(fgt_check_parse_args(3, both, &a), FGT_CLI_ERROR);
	assert_string_equal(a.cli.err, "--static answers from the code alone: no --trigger or "
			    "--timeout with it");
	assert_int_equal(fgt_check_parse_args(5, file_wait, &a), FGT_CLI_ERROR);
	assert_non_null(strstr(a.cli.err, "--kernel answers from the code alone"));
	assert_int_equal(fgt_check_parse_args(3, map_alone, &a), FGT_CLI_ERROR);
	assert_non_null(strstr(a.cli.err, "--system-map goes with --kernel FILE"));
	assert_int_equal(fgt_check_parse_args(6, file, &a), FGT_CLI_RUN);
	assert_string_equal(a.o.kernel, "vmlinuz");
	assert_string_equal(a.o.system_map, "System.map");
	assert_false(a.o.watch);
	assert_int_equal(fgt_check_parse_args(3, wait, &a), FGT_CLI_RUN);
	assert_true(a.o.watch);
}


/* A 0->1 step under way as the check runs (issue 42): the fake's looks. */
static unsigned int under_way_asked;
static bool under_way_yes;

static bool fs_under_way(void *priv, const struct fgt_ksyms *ks, struct fgt_joined *j)
{
	struct fgt_join_trigger t = { .known = true, .pid = 4242, .tid = 4242, .comm = "bpftrace",
				      .syscall = "bpf", .via = "bpf() -> register_fprobe" };
	struct fgt_join_look a = { .ns = 1, .graph_active = 1, .counted = true, .threads = 30100,
				   .lacking = 20064, .held_ahead = 10000, .trigger_in = true };
	struct fgt_join_look b = a;

	under_way_asked++;
	if (!under_way_yes)
		return false;
	b.ns = 2;
	b.lacking = 20000;
	b.held_ahead = 10064;
	fgt_join_begin(j, &a, &b, &t, FGT_VERDICT_UNKNOWN);
	return true;
}

/* check during a stall: answers from the code at once, and says the step
 * is under way, by whom, how far along; not asked when none lack a stack. */
static void test_under_way(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_session s = { .have_expo = true };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_opts o = {};
	struct fgt_check_result r;

	w.under_way = fs_under_way;
	e.statik = fake_static;
	code_says(FGT_VERDICT_NOT_FIXED, FGT_SW_NONE, UNFIXED_CODE);
	fgt_exp_walk_lacking_first(30100, 20000, &s.expo);
	under_way_yes = true;
	under_way_asked = 0;
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_CRITICAL);
	assert_int_equal(under_way_asked, 1);
	assert_true(r.under_way);
	assert_non_null(strstr(render(&r, false), "; a 0->1 step is under way: pid 4242 (bpftrace) "
			       "bpf() -> register_fprobe, 10064 threads served (inferred), 20000 "
			       "still lacking a stack; kernel "));
	assert_non_null(strstr(render(&r, true), "\"under_way\":{\"why\":\"trigger\","
			       "\"trigger_known\":true,\"named_by\":\"stack\",\"pid\":4242,\"tid\":4242,"
			       "\"comm\":\"bpftrace\",\"syscall\":\"bpf\","
			       "\"via\":\"bpf() -> register_fprobe\",\"served\":10064,"
			       "\"lacking\":20000,\"sweeps_before\":313,\"inferred\":true}"));
	/* nothing under way: null, and the line as before */
	under_way_yes = false;
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_CRITICAL);
	assert_false(r.under_way);
	assert_null(strstr(render(&r, false), "under way"));
	assert_non_null(strstr(render(&r, true), "\"under_way\":null"));
	/* no thread lacking a stack: no walk has anything to do, not asked */
	fgt_exp_walk_lacking_first(30100, 0, &s.expo);
	under_way_yes = true;
	under_way_asked = 0;
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_CRITICAL);
	assert_int_equal(under_way_asked, 0);
	assert_false(r.under_way);
	fake_free(f);
}

/* The exposure, in the line, the JSON and the textfile. */
static void test_exposure_outputs(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_session s = { .kernel = { .lacking = 500 }, .have_expo = true };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_result r;
	char path[256], err[256];
	const char *m;

	fgt_exp_walk_lacking_first(400000, 400000, &s.expo);
	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_CRITICAL);
	assert_true(r.have_exposure);
	/* the series' 227 s for 400,000 threads, at its own cost a visit */
	assert_true(r.exposure_est.seconds > 226 && r.exposure_est.seconds < 228);
	assert_int_equal(r.exposure_est.src, FGT_EXP_COST_DEFAULT);
	assert_non_null(strstr(render(&r, false), " lacking=400000 walk_estimate=227.019295s\n"));
	assert_non_null(strstr(render(&r, true), "\"exposure\":{\"threads\":400000,"
			       "\"lacking\":400000,\"sweeps\":12500,"));
	assert_non_null(strstr(render(&r, true), "\"cost\":\"default\",\"calib_visits\":0}"));
	snprintf(path, sizeof(path), "%s/e.prom", f->root);
	assert_int_equal(fgt_check_write_prom(path, &r, err, sizeof(err)), 0);
	m = fake_read(f, "e.prom");
	assert_non_null(strstr(m, "\nfgraphtop_threads_without_shadow_stack 400000\n"));
	assert_non_null(strstr(m, "\nfgraphtop_unfixed_walk_estimate_seconds 227."));
	assert_non_null(strstr(m, "fgraphtop_unfixed_walk_visit_cost_seconds{source=\"default\"} "
			       "9.08e-08"));
	/* no scan: no exposure metrics at all, and the JSON says why */
	memset(&s, 0, sizeof(s));
	s.kernel.lacking = 500;
	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_CRITICAL);
	assert_non_null(strstr(render(&r, true), "\"exposure\":{\"error\":\"no task iterator "
			       "in this fake\"}"));
	assert_int_equal(fgt_check_write_prom(path, &r, err, sizeof(err)), 0);
	assert_null(strstr(fake_read(f, "e.prom"), "fgraphtop_threads_without_shadow_stack"));
	fake_free(f);
}

static void test_prometheus(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_session s = { .kernel = { .lacking = 10002 } };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_result r;
	char path[256], err[256], cmd[512];
	const char *m;

	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_CRITICAL);
	snprintf(path, sizeof(path), "%s/fgraphtop.prom", f->root);
	assert_int_equal(fgt_check_write_prom(path, &r, err, sizeof(err)), 0);
	m = fake_read(f, "fgraphtop.prom");
	assert_non_null(strstr(m, "fgraphtop_verdict{verdict=\"not_fixed\",release=\""));
	assert_non_null(strstr(m, "build_id=\"06f8bde30046985060c60820f7a11515a33afb06\"} 1"));
	assert_non_null(strstr(m, "fgraphtop_activation_sweeps 313"));
	assert_non_null(strstr(m, "fgraphtop_check_status 2"));
	if (system("command -v promtool >/dev/null 2>&1") == 0) {
		snprintf(cmd, sizeof(cmd), "promtool check metrics < '%s' >/dev/null 2>&1", path);
		assert_int_equal(system(cmd), 0);
	}
	fake_free(f);
}

/* Run fgt_check_main with stdout captured. */
static int main_captured(char **argv, int argc, char *out, size_t len)
{
	char tmpl[] = "/tmp/fgt-check-out-XXXXXX";
	int fd = mkstemp(tmpl), saved, status;
	ssize_t n;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	status = fgt_check_main(argc, argv, NULL, NULL);
	fgt_msg_setup(false, NULL);	/* what it set up, undone for the next test */
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	n = pread(fd, out, len - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(tmpl);
	return status;
}

/* The metrics file is written first and its failure is the answer's: status
 * 3 in the line, the JSON and the exit status alike. An answer that cannot be
 * written (stdout full) is status 3 too. */
static void test_answer(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_session s = { .kernel = { .fixed = true, .lacking = 500 } };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_result r;
	char path[256], buf[4096];
	FILE *out;

	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_OK);
	snprintf(path, sizeof(path), "%s/no/such/dir/fgraphtop.prom", f->root);
	out = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(fgt_check_answer(&r, false, path, out), FGT_CHECK_UNKNOWN);
	fclose(out);
	assert_non_null(strstr(buf, "FGRAPH UNKNOWN - fixed: one sweep served 500 threads"));
	assert_non_null(strstr(buf, "; --prometheus: "));
	r.status = FGT_CHECK_OK;
	out = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(fgt_check_answer(&r, true, path, out), FGT_CHECK_UNKNOWN);
	fclose(out);
	assert_non_null(strstr(buf, "\"verdict\":\"fixed\",\"status\":3,"));
	/* a good path: written, and the answer stands */
	snprintf(path, sizeof(path), "%s/fgraphtop.prom", f->root);
	s.emitted = s.stopped = false;
	assert_int_equal(fgt_check_run(&passive, &e, &r), FGT_CHECK_OK);
	out = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(fgt_check_answer(&r, false, path, out), FGT_CHECK_OK);
	fclose(out);
	assert_non_null(strstr(fake_read(f, "fgraphtop.prom"), "fgraphtop_check_status 0"));
	/* stdout full */
	out = fopen("/dev/full", "w");
	assert_non_null(out);
	assert_int_equal(fgt_check_answer(&r, false, NULL, out), FGT_CHECK_UNKNOWN);
	fclose(out);
	fake_free(f);
}

/* --help, --usage, --version are answered and nothing runs, -j or not. */
static void test_help_actions(void **state)
{
	char *help[] = { "check", "-j", "--help", "--trigger", NULL };
	char *usage[] = { "check", "--trigger", "--usage", NULL };
	char *version[] = { "check", "-jV", NULL };
	char *h[] = { "check", "-h", NULL };
	char out[8192];

	assert_int_equal(main_captured(help, 4, out, sizeof(out)), FGT_CHECK_OK);
	assert_non_null(strstr(out, "Usage: fgraphtop check [OPTION...]"));
	assert_null(strstr(out, "\"type\":\"check\""));
	assert_int_equal(main_captured(usage, 3, out, sizeof(out)), FGT_CHECK_OK);
	assert_non_null(strstr(out, "Usage: fgraphtop check ["));
	assert_null(strstr(out, "FGRAPH"));
	assert_int_equal(main_captured(version, 2, out, sizeof(out)), FGT_CHECK_OK);
	assert_non_null(strstr(out, "fgraphtop 0.1\nusing libbpf v"));
	assert_non_null(strstr(out, "\nfeatures: "));
	/* -h is --help here too, as for fgraphtop */
	assert_int_equal(main_captured(h, 2, out, sizeof(out)), FGT_CHECK_OK);
	assert_non_null(strstr(out, "Usage: fgraphtop check [OPTION...]"));
}

/* Option values: plain decimal digits only, JSON mode from argp's own parse. */
static void test_option_values(void **state)
{
	static const char *const bad_timeout[] = {
		"0x10", "-1", " 5", "+5", "1e3", "1.", ".5", "inf", "nan", "86401", "", NULL,
	};
	static const char *const bad_park[] = {
		"-1", "+5", " 5", "0x10", "18446744073709551617", "100001", "1.5", NULL,
	};
	struct fgt_check_args a;

	for (int i = 0; bad_timeout[i]; i++) {
		char *argv[] = { "check", "--timeout", (char *)bad_timeout[i], NULL };

		assert_int_equal(fgt_check_parse_args(3, argv, &a), FGT_CLI_ERROR);
		assert_non_null(strstr(a.cli.err, "invalid --timeout: "));
	}
	for (int i = 0; bad_park[i]; i++) {
		char *argv[] = { "check", "--park", (char *)bad_park[i], NULL };

		assert_int_equal(fgt_check_parse_args(3, argv, &a), FGT_CLI_ERROR);
		assert_non_null(strstr(a.cli.err, "invalid --park: "));
	}
	{
		char *argv[] = { "check", "--timeout", "0.5", "--park=0", "-vv", NULL };

		assert_int_equal(fgt_check_parse_args(5, argv, &a), FGT_CLI_RUN);
		assert_true(a.o.timeout_s == 0.5);
		assert_int_equal(a.o.park, 0);
		assert_int_equal(a.cli.verbose, 2);
		assert_false(a.o.json);
	}
	{
		/* -vj is -v -j: JSON, also when the -j comes after a bad option */
		char *argv[] = { "check", "-vj", NULL };
		char *argv2[] = { "check", "--bogus", "-j", NULL };

		assert_int_equal(fgt_check_parse_args(2, argv, &a), FGT_CLI_RUN);
		assert_true(a.o.json);
		assert_int_equal(fgt_check_parse_args(3, argv2, &a), FGT_CLI_ERROR);
		assert_true(a.o.json);
		assert_non_null(strstr(a.cli.err, "--bogus"));
	}
}

/* A usage error is status 64 in every mode (fgraphtop's too), outside the
 * verdicts' 0..3: the check object under --json, one line on stdout in text
 * mode (a monitoring runner never gets an empty one). */
static void test_usage_json(void **state)
{
	char *argv[] = { "check", "--timeout", "soon", "--json", NULL };
	char *argv2[] = { "check", "--force", "-j", NULL };
	char *bogus[] = { "check", "-j", "--bogus", NULL };
	char out[2048];

	assert_int_equal(FGT_EXIT_USAGE, 64);
	assert_int_equal(main_captured(argv, 4, out, sizeof(out)), FGT_EXIT_USAGE);
	assert_non_null(strstr(out, "\"verdict\":\"unknown\",\"status\":64,\"reason\":\"usage: "
			       "invalid --timeout: soon (0..86400 seconds)\""));
	assert_int_equal(main_captured(argv2, 3, out, sizeof(out)), FGT_EXIT_USAGE);
	assert_non_null(strstr(out, "--force only makes sense with --trigger"));
	assert_int_equal(main_captured(bogus, 3, out, sizeof(out)), FGT_EXIT_USAGE);
	assert_non_null(strstr(out, "{\"schema\":1,\"type\":\"check\",\"verdict\":\"unknown\","
			       "\"status\":64,\"reason\":\"usage: unrecognized option or missing "
			       "value: --bogus (fgraphtop check --help lists the options)\""));
	assert_null(strchr(strchr(out, '\n') + 1, '\n'));	/* one line */
}

static void test_usage_text(void **state)
{
	static char *const cases[][4] = {
		{ "check", "--bogus", NULL },
		{ "check", "--timeout", "soon", NULL },
		{ "check", "extra", NULL },
		{ "check", "--kernel", "vmlinuz", "--prometheus" },
	};
	char *prom[] = { "check", "--kernel", "vmlinuz", "--prometheus", "x.prom", NULL };
	char out[2048];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[5] = { 0 };
		int argc = 0;

		while (argc < 4 && cases[i][argc])
			argv[argc] = cases[i][argc], argc++;
		assert_int_equal(main_captured(argv, argc, out, sizeof(out)), FGT_EXIT_USAGE);
		assert_memory_equal(out, "FGRAPH UNKNOWN - usage: ", 24);
		assert_int_equal(strchr(out, '\n')[1], '\0');	/* one line, ended */
	}
	/* a kernel file's answer is not the host's: no textfile for it */
	assert_int_equal(main_captured(prom, 5, out, sizeof(out)), FGT_EXIT_USAGE);
	assert_string_equal(out, "FGRAPH UNKNOWN - usage: --prometheus describes the running "
			    "kernel; with --kernel FILE use --json\n");
}

/*
 * Not root: the code cannot be read (kcore refused, kallsyms addresses
 * hidden), and neither could an activation be caused or watched. The same
 * answer with and without --trigger or --timeout, nothing started, and
 * advice a user who cannot use --trigger can follow.
 */
static void test_not_root(void **state)
{
	static const char hidden[] = "kallsyms addresses are hidden (kernel.kptr_restrict, or "
				     "not root): run as root";
	struct fake *f = fake_new(1);
	struct fake_session s = { .kernel = { .lacking = 100 } };
	struct fgt_watch_ops w = session_ops(&s);
	struct fgt_check_sys e = sys_of(f, &w);
	struct fgt_check_opts plain = { .timeout_s = 30 };
	struct fgt_check_opts trig = { .timeout_s = 30, .trigger = true };
	struct fgt_check_opts wait = { .timeout_s = 5, .watch = true };
	const struct fgt_check_opts *modes[] = { &plain, &trig, &wait };
	struct fgt_check_result r;
	char first[1024] = "";

	e.statik = fake_static;
	for (int m = 0; m < 3; m++) {
		char *out;

		code_says(FGT_VERDICT_UNKNOWN, FGT_SW_KSYMS_HIDDEN, hidden);
		assert_int_equal(fgt_check_run(modes[m], &e, &r), FGT_CHECK_UNKNOWN);
		assert_true(fgt_check_needs_root(&r));
		assert_string_equal(reason(&r), "kallsyms addresses are hidden (kernel.kptr_restrict, "
				    "or not root): run as root; --trigger needs root too");
		assert_null(s.as);
		assert_false(s.stopped);	/* never started */
		out = render(&r, false);
		assert_null(strstr(out, "adds an activation"));
		if (!first[0])
			snprintf(first, sizeof(first), "%s", out);
		else	/* the same line, but for the check's time (not in it) */
			assert_string_equal(out, first);
	}
	/* kcore refused: the clause says to run as root */
	code_says(FGT_VERDICT_UNKNOWN, FGT_SW_NO_PERM, "/proc/kcore: Permission denied");
	assert_int_equal(fgt_check_run(&trig, &e, &r), FGT_CHECK_UNKNOWN);
	assert_string_equal(reason(&r), "/proc/kcore: Permission denied; run as root (--trigger "
			    "needs root too)");
	fake_free(f);
	/* no fgraph: kallsyms's names say so to anyone, with or without --trigger */
	f = fake_new(0);
	e = sys_of(f, &w);
	e.statik = fake_static;
	for (int m = 0; m < 3; m++) {
		code_says(FGT_VERDICT_UNKNOWN, FGT_SW_KSYMS_HIDDEN, hidden);
		assert_int_equal(fgt_check_run(modes[m], &e, &r), FGT_CHECK_OK);
		assert_int_equal(r.verdict, FGT_VERDICT_NOT_AFFECTED);
		assert_non_null(strstr(render(&r, false), "FGRAPH OK - not affected: no function graph "
				       "tracer in this kernel: no register_ftrace_graph in kallsyms"));
		assert_null(s.as);
	}
	fake_free(f);
}

/* An unreadable --kernel FILE: the line names it, not "kernel ?". */
static void test_file_named(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_check_sys e = sys_of(f, NULL);
	struct fgt_check_opts o = { .kernel = "/nonexistent/vmlinuz" };
	struct fgt_check_result r;
	char *out;

	e.statik = fake_static;
	code_says(FGT_VERDICT_UNKNOWN, FGT_SW_READ, "/nonexistent/vmlinuz: No such file or directory");
	fake_code.release[0] = fake_code.build_id[0] = '\0';
	assert_int_equal(fgt_check_run(&o, &e, &r), FGT_CHECK_UNKNOWN);
	out = render(&r, false);
	assert_non_null(strstr(out, "; kernel file /nonexistent/vmlinuz: release unknown, build "
			       "unknown\n"));
	assert_null(strstr(out, "kernel ?"));
	out = render(&r, true);
	assert_non_null(strstr(out, "\"file\":\"/nonexistent/vmlinuz\""));
	fake_free(f);
}

/*
 * This machine (CI): a kernel without a function graph tracer. `fgraphtop
 * check` answers not_affected with status 0, from the real /proc/kallsyms
 * and tracefs, without BPF. Skipped where the kernel has fgraph.
 */
static void test_this_host(void **state)
{
	char *argv[] = { "check", NULL };
	char *argvj[] = { "check", "--json", NULL };
	char why[256], out[4096];
	struct fgt_host h = { 0 };

	if (fgt_host_has_fgraph(&h, NULL, why, sizeof(why)) != 0) {
		print_message("this kernel has a function graph tracer (%s): skipped\n", why);
		skip();
	}
	assert_int_equal(main_captured(argv, 1, out, sizeof(out)), FGT_CHECK_OK);
	assert_non_null(strstr(out, "FGRAPH OK - not affected: no function graph tracer"));
	assert_int_equal(main_captured(argvj, 2, out, sizeof(out)), FGT_CHECK_OK);
	assert_non_null(strstr(out, "\"verdict\":\"not_affected\",\"status\":0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_passive_not_fixed),
		cmocka_unit_test(test_passive_fixed_and_warnings),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_not_affected),
		cmocka_unit_test(test_masked_kallsyms),
		cmocka_unit_test(test_trigger),
		cmocka_unit_test(test_trigger_after_killed_run),
		cmocka_unit_test(test_trigger_refusals),
		cmocka_unit_test(test_code_alone),
		cmocka_unit_test(test_code_and_trigger_agree),
		cmocka_unit_test(test_reason_cut_at_a_clause),
		cmocka_unit_test(test_trigger_bracketless_shapes),
		cmocka_unit_test(test_code_and_trigger_disagree),
		cmocka_unit_test(test_code_stands_when_trigger_refused),
		cmocka_unit_test(test_code_unknown_trigger_tells),
		cmocka_unit_test(test_code_of_a_file),
		cmocka_unit_test(test_code_options),
		cmocka_unit_test(test_prometheus),
		cmocka_unit_test(test_exposure_outputs),
		cmocka_unit_test(test_under_way),
		cmocka_unit_test(test_usage_json),
		cmocka_unit_test(test_usage_text),
		cmocka_unit_test(test_not_root),
		cmocka_unit_test(test_file_named),
		cmocka_unit_test(test_answer),
		cmocka_unit_test(test_help_actions),
		cmocka_unit_test(test_option_values),
		cmocka_unit_test(test_this_host),
	};

	return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
