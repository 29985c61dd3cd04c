// SPDX-License-Identifier: GPL-2.0
/*
 * src/render/output.c without a kernel: recorded event sequences (tests/data) through
 * the assembler into the JSON writer and into the top-like screen renderer.
 * With FGT_JSON_OUT set, every JSON line written here is also appended to that
 * file, which `make test-schema` checks against docs/json.md (tests/json_schema.py).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "model/activation.h"
#include "lib/events.h"
#include "common/exit_codes.h"
#include "common/log.h"
#include "lib/gen.h"
#include "render/output.h"
#include "watch/plan.h"
#include "render/screen.h"
#include "static/static_types.h"

/* The session's pipeline without BPF: assembler -> recorder (the judge) -> output. */
struct cap {
	FILE *f;
	char *buf;
	size_t len;
	struct fgt_out *o;
	struct fgt_recorder rec;
	struct fgt_assembler *a;
};

static void cap_open(struct cap *c, bool json, bool events, bool screen)
{
	struct fgt_out_opts oo = { .json = json, .events = events, .screen = screen,
				   .start_ns = 0 };

	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	c->o = fgt_out_new(c->f, &oo);
	assert_non_null(c->o);
	fgt_recorder_init(&c->rec, fgt_out_record, c->o, NULL, NULL, NULL);
	c->a = fgt_assembler_new(fgt_recorder_activation, &c->rec);
	assert_non_null(c->a);
}

/* What the session's status would say now (no progress, no holders). */
static const struct fgt_status *status(struct cap *c, uint64_t lost)
{
	static struct fgt_status st;

	memset(&st, 0, sizeof(st));
	st.cur = fgt_assembler_current(c->a);
	st.fork = fgt_assembler_fork(c->a);
	st.judge = &c->rec.judge;
	st.lost = lost;
	st.graph_active = -1;
	return &st;
}

/* ... with the activation under way's progress at `now`, as the session makes it. */
static const struct fgt_status *status_at(struct cap *c, uint64_t now, const char *via)
{
	static struct fgt_progress p;
	struct fgt_status *st = (struct fgt_status *)status(c, 0);

	st->now_ns = now;
	if (st->cur) {
		fgt_progress_of(st->cur, now, -1, 0, &p);
		snprintf(p.via, sizeof(p.via), "%s", via);
		st->progress = &p;
	}
	return st;
}

/* Output so far (a NUL-terminated copy the caller frees); the stream stays open. */
static char *cap_text(struct cap *c)
{
	fflush(c->f);
	return strndup(c->buf ? c->buf : "", c->len);
}

/* The JSON lines so far to FGT_JSON_OUT (make test-schema checks them). */
static void cap_keep(struct cap *c)
{
	const char *out = getenv("FGT_JSON_OUT");
	char *t = cap_text(c);

	if (out && t[0] == '{') {
		FILE *f = fopen(out, "a");

		assert_non_null(f);
		fputs(t, f);
		fclose(f);
	}
	free(t);
}

static void cap_reset(struct cap *c)
{
	fflush(c->f);
	rewind(c->f);
	fflush(c->f);
	c->len = 0;
	if (c->buf)
		c->buf[0] = 0;
}

static void cap_close(struct cap *c)
{
	const char *out = getenv("FGT_JSON_OUT");
	char *t = cap_text(c);

	if (out && t[0] == '{') {
		FILE *f = fopen(out, "a");

		assert_non_null(f);
		fputs(t, f);
		fclose(f);
	}
	free(t);
	fgt_assembler_free(c->a);
	fgt_out_free(c->o);
	fclose(c->f);
	free(c->buf);
}

/* A generated activation into the capture's assembler. */
static void gen_feed(const struct fgt_event *ev, void *ctx)
{
	struct cap *c = ctx;

	fgt_assembler_feed(c->a, ev);
}

/* Feeds a recorded run (tests/data/NAME.events); events also to fgt_out_event
 * when ev is set. Stops after max events when max > 0 (an activation under way). */
static void feed(struct cap *c, const char *name, bool ev, int max)
{
	const char *dir = getenv("FGT_TEST_DATA");
	char path[512], line[1024];
	struct fgt_event e;
	unsigned long long lost;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.events", dir ? dir : "tests/data", name);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		switch (ev_parse(line, &e, &lost)) {
		case EV_LINE_EVENT:
			if (ev)
				fgt_out_event(c->o, &e, NULL, 0);
			fgt_assembler_feed(c->a, &e);
			if (max > 0 && ++n == max)
				goto out;
			break;
		case EV_LINE_LOST:
			fgt_assembler_lost(c->a, lost);
			break;
		case EV_LINE_ERROR:
			fail_msg("%s: bad line: %s", path, line);
			break;
		default:
			break;
		}
	}
out:
	fclose(f);
}

/*
 * The status at now with its progress's time left set to [lo, hi]: the
 * renderers' words for a range, whatever the model makes of the run.
 */
static struct fgt_status *status_range(struct cap *c, uint64_t now, const char *via,
				       uint64_t lo, uint64_t hi)
{
	struct fgt_status *st = (struct fgt_status *)status_at(c, now, via);
	struct fgt_progress *p = (struct fgt_progress *)st->progress;

	p->eta_known = true;
	p->eta_ns = lo;
	p->eta_high_ns = hi;
	return st;
}

/*
 * A walk again whose high end is open (progress.h), its low end 1.2 s: what
 * the renderer of c wrote holds `want` (JSON kept for the schema check).
 */
static void assert_open(struct cap *c, const char *want)
{
	struct fgt_status *st;
	struct fgt_progress *p;
	char *t;

	cap_reset(c);
	st = status_range(c, fgt_assembler_current(c->a)->last_ns, "write() -> tracing_set_tracer",
			  1200000000, 1200000000);
	p = (struct fgt_progress *)st->progress;
	p->degraded = true;
	p->high_open = true;
	fgt_out_interval(c->o, st);
	t = cap_text(c);
	assert_non_null(strstr(t, want));
	free(t);
	cap_keep(c);
	p->degraded = false;
	p->high_open = false;
}

/* As assert_open(), the high end bounded: the range, and what it assumes. */
static void assert_degraded(struct cap *c, const char *want)
{
	struct fgt_status *st;
	struct fgt_progress *p;
	char *t;

	cap_reset(c);
	st = status_range(c, fgt_assembler_current(c->a)->last_ns, "write() -> tracing_set_tracer",
			  1200000000, 3400000000);
	p = (struct fgt_progress *)st->progress;
	p->degraded = true;
	fgt_out_interval(c->o, st);
	t = cap_text(c);
	assert_non_null(strstr(t, want));
	free(t);
	p->degraded = false;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* The unfixed run as JSON: one activation record with the recorded figures. */
static void test_json_activation(void **state)
{
	struct cap c;
	char *t;

	cap_open(&c, true, false, false);
	feed(&c, "unfixed-1000-attributed", false, 0);
	fgt_assembler_flush(c.a);
	fgt_out_interval(c.o, status(&c, 3));
	fgt_out_final(c.o, status(&c, 3));
	t = cap_text(&c);
	assert_int_equal(count(t, "\n"), 3);
	assert_int_equal(count(t, "{\"schema\":1,\"type\":\"activation\","), 1);
	assert_non_null(strstr(t, "\"sweeps\":32,\"walks\":\"gaps\",\"batches\":32,\"served\":1000,"));
	/* No stack map here: the trigger's way in is unknown, the stack empty. */
	assert_non_null(strstr(t, "\"via\":\"unknown\",\"stack\":[]},"));
	assert_non_null(strstr(t, "\"allocations\":{\"blocking\":1024,\"nonblocking\":0,"
				  "\"failed_blocking\":0,\"failed_nonblocking\":0,\"freed\":24}"));
	assert_int_equal(count(t, "\"ret\":-11,\"ret_known\":"), 31);
	assert_non_null(strstr(t, "\"verdict\":{\"verdict\":\"not_fixed\",\"evidence\":\"32 sweeps"));
	assert_int_equal(count(t, "{\"schema\":1,\"type\":\"interval\","), 1);
	assert_non_null(strstr(t, "\"activations\":1,\"in_progress\":false,\"in_progress_sweeps\":0,"));
	assert_non_null(strstr(t, "{\"schema\":1,\"type\":\"summary\",\"activations\":1,"
				  "\"verdict\":\"not_fixed\","));
	assert_non_null(strstr(t, "\"lost\":3}\n"));
	free(t);
	cap_close(&c);
}

/* Every event as a JSON line, with the fields of its kind. */
static void test_json_events(void **state)
{
	struct cap c;
	char *t;

	cap_open(&c, true, true, false);
	feed(&c, "fixed-1000-k100-attributed", true, 0);
	fgt_assembler_flush(c.a);
	t = cap_text(&c);
	assert_int_equal(count(t, "\"type\":\"event\",\"event\":\"alloc\""),
			 128 + 903 + 100);
	assert_int_equal(count(t, "\"gfp_class\":\"nonblocking\""), 903 + 100);
	assert_int_equal(count(t, "\"gfp_class\":\"nonblocking\",\"gfp\":10240,\"size\":4096,\"ok\":false"),
			 100);
	assert_int_equal(count(t, "\"type\":\"activation\""), 1);
	assert_non_null(strstr(t, "\"sweeps\":4,\"walks\":\"inline\",\"batches\":4,\"served\":1000,"));
	free(t);
	cap_close(&c);
}

/* Messages: in JSON mode each is one JSON line, the documented code for the
 * status; in text mode a line on stderr. */
static void test_json_error_warning(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fgt_msg_setup(true, f);
	p_warn("fgraph_active", "fgraph already has a user");
	p_err(FGT_EXIT_NO_FGRAPH, "no \"fgraph\" here\n");
	p_err(FGT_EXIT_USAGE, "bad option");
	fgt_log(FGT_LOG_INFO, "triggered with %s", "instance");
	fgt_msg_setup(false, NULL);
	fclose(f);
	assert_string_equal(buf,
		"{\"schema\":1,\"type\":\"warning\",\"code\":\"fgraph_active\","
		"\"message\":\"fgraph already has a user\"}\n"
		"{\"schema\":1,\"type\":\"error\",\"code\":\"no_fgraph\",\"exit\":3,"
		"\"message\":\"no \\\"fgraph\\\" here\"}\n"
		"{\"schema\":1,\"type\":\"error\",\"code\":\"usage\",\"exit\":64,"
		"\"message\":\"bad option\"}\n"
		"{\"schema\":1,\"type\":\"log\",\"level\":\"info\","
		"\"message\":\"triggered with instance\"}\n");
	if (getenv("FGT_JSON_OUT")) {
		FILE *out = fopen(getenv("FGT_JSON_OUT"), "a");

		assert_non_null(out);
		fputs(buf, out);
		fclose(out);
	}
	free(buf);
}

/* The record: the trigger's stack from the frame holding the 0->1 step, its
 * way in from the whole stack, the verdict counted by the one judge. */
static void test_record_stack(void **state)
{
	static const char syms[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81100000 T kmalloc_trace\n"
		"ffffffff81200000 T register_ftrace_graph\n"
		"ffffffff81210000 T graph_trace_init\n"
		"ffffffff81220000 T tracing_set_tracer\n"
		"ffffffff81230000 T vfs_write\n"
		"ffffffff81240000 T ksys_write\n"
		"ffffffff81f00000 T _etext\n";
	const uint64_t ips[] = { 0xffffffff81100010, 0xffffffff81200454, 0xffffffff81210087,
				 0xffffffff81220142, 0xffffffff81230010, 0xffffffff81240020,
				 0xdeadbeef };
	FILE *f = fmemopen((void *)syms, sizeof(syms) - 1, "r");
	struct fgt_activation act = { .seq = 1, .complete = true };
	struct fgt_ksyms *ks;
	struct fgt_record rec;
	struct fgt_judge j;
	char b[128];

	assert_non_null(f);
	ks = fgt_ksyms_load_file(f);
	fclose(f);
	assert_non_null(ks);
	fgt_judge_init(&j);
	fgt_record_make(&rec, &act, ips, 7, ks, &j);
	assert_string_equal(rec.via, "write() -> tracing_set_tracer");
	assert_int_equal(rec.nr_frames, 6);
	assert_string_equal(fgt_frame_text(&rec.frames[0], b, sizeof(b)), "register_ftrace_graph+0x454");
	assert_string_equal(rec.frames[2].name, "tracing_set_tracer");
	assert_string_equal(fgt_frame_text(&rec.frames[5], b, sizeof(b)), "0xdeadbeef");
	assert_int_equal(rec.verdict.why, FGT_WHY_NONE_LACKING);
	assert_true(rec.quoted);
	assert_int_equal(j.n, 1);
	assert_ptr_equal(rec.judge, &j);
	fgt_ksyms_free(ks);
}

static void test_json_start(void **state)
{
	static struct fgt_plan p;
	struct cap c;
	char *t;

	for (int r = 0; r < FGT_ROLE__NR; r++)
		p.chosen[r] = FGT_NO_CAND;
	p.chosen[FGT_ROLE_ACT_DIRECT] = 0;
	p.chosen[FGT_ROLE_FORK_DIRECT] = 0;
	p.chosen[FGT_ROLE_LAT_CACHE] = 0;

	cap_open(&c, true, false, false);
	fgt_out_start(c.o, &p);
	t = cap_text(&c);
	assert_string_equal(t, "{\"schema\":1,\"type\":\"start\",\"activation_path\":\"direct\","
			    "\"sweep_path\":\"attributed\",\"fork_path\":\"direct\",\"latency\":true}\n");
	free(t);
	cap_close(&c);
}

/* The frame drawn (one write, in place) back into its rows: what a terminal
 * shows, each row checked for the width and for stray control bytes. */
static int frame_rows(const char *t, char rows[][512], int max, int cols)
{
	const char *p = t, *end;
	int n = 0;

	if (getenv("FGT_DUMP"))		/* to look at a frame: FGT_DUMP=1 test_output */
		fprintf(stderr, "%s\n", t);
	assert_memory_equal(p, FGT_SYNC_BEGIN "\033[H", strlen(FGT_SYNC_BEGIN "\033[H"));
	p += strlen(FGT_SYNC_BEGIN "\033[H");
	end = strstr(p, "\033[J" FGT_SYNC_END);
	assert_non_null(end);
	assert_string_equal(end, "\033[J" FGT_SYNC_END);	/* the frame's last bytes */
	while (p < end && n < max) {
		const char *nl = strstr(p, "\r\n");
		size_t len = (nl && nl < end ? nl : end) - p;
		char *r = rows[n++];

		assert_true(len < 512);
		memcpy(r, p, len);
		r[len] = '\0';
		/* a row shorter than the screen erases the rest of the old one */
		if (len >= 3 && !strcmp(r + len - 3, "\033[K"))
			r[len - 3] = '\0';
		else
			assert_int_equal(strlen(r), cols);
		for (const char *q = r; *q; q++)
			assert_true(*q >= 0x20 && *q < 0x7f);
		assert_true((int)strlen(r) <= cols);
		p = nl && nl < end ? nl + 2 : end;
	}
	return n;
}

static int find_row(char rows[][512], int n, const char *what)
{
	for (int i = 0; i < n; i++)
		if (strstr(rows[i], what))
			return i;
	return -1;
}

static struct fgt_holders *some_holders(void)
{
	static struct fgt_holders h;

	memset(&h, 0, sizeof(h));
	snprintf(h.tracefs, sizeof(h.tracefs), "/sys/kernel/tracing");
	h.n = h.kept = 3;
	h.regs = 3;
	h.h[0] = (struct fgt_holder){ .kind = FGT_HOLDER_TRACER, .name = "function_graph" };
	h.h[1] = (struct fgt_holder){ .kind = FGT_HOLDER_TRACER, .name = "function_graph",
				      .instance = "live" };
	h.h[2] = (struct fgt_holder){ .kind = FGT_HOLDER_BPF_LINK, .name = "kretprobe.multi",
				      .link_id = 12, .prog_id = 34, .nr_funcs = 1, .ret = true,
				      .pid = 345, .comm = "fgt-trigger", .nr_owners = 1 };
	return &h;
}

/* The screen: nothing is printed when an activation ends (it goes to the next
 * redraw); each redraw is one frame drawn in place (no clear-screen), with
 * the activation under way's progress, who holds fgraph, the history table
 * and the last activation, every row cut to the width. */
static void test_screen(void **state)
{
	struct fgt_status *st;
	char rows[64][512];
	struct cap c;
	char *t;
	int n, r;

	cap_open(&c, false, false, true);
	fgt_out_resize(c.o, 100, 50);
	fgt_out_interval(c.o, status(&c, 0));
	t = cap_text(&c);
	assert_null(strstr(t, "\033[2J"));
	n = frame_rows(t, rows, 64, 100);
	assert_true(n <= 50);
	/* the verdict first: a narrow terminal cuts the end of the row */
	assert_memory_equal(rows[0], "verdict inconclusive   fgraphtop  ", 34);
	assert_non_null(strstr(rows[0], "   activations 0   lost 0"));
	assert_true(find_row(rows, n, "no activation seen yet") > 0);
	assert_true(find_row(rows, n, "HOLDERS  not read yet") > 0);
	assert_true(find_row(rows, n, "fork path: 0 allocations (0 failed), 0 new tasks") > 0);
	assert_int_equal(find_row(rows, n, "HISTORY"), -1);
	free(t);

	/* under way: 200 events of 1,000 threads' activation (recorded run) */
	cap_reset(&c);
	feed(&c, "unfixed-1000-attributed", false, 200);
	t = cap_text(&c);
	assert_string_equal(t, "");
	free(t);
	st = (struct fgt_status *)status_at(&c, fgt_assembler_current(c.a)->last_ns + 1000,
					    "write() -> tracing_set_tracer");
	st->holders = some_holders();
	st->graph_active = 4;
	fgt_out_interval(c.o, st);
	t = cap_text(&c);
	n = frame_rows(t, rows, 64, 100);
	assert_non_null(strstr(rows[0], "verdict inconclusive   fgraphtop  "));
	assert_non_null(strstr(rows[0], "   activations 0 (+1 under way)   lost "));
	assert_string_equal(rows[1], "fgraph: on, ftrace_graph_active 4");
	r = find_row(rows, n, "ACTIVATION #1 UNDER WAY  pid 4242 (trace-cmd)  write() -> "
		     "tracing_set_tracer");
	assert_true(r > 0);
	assert_non_null(strstr(rows[r + 1], "  elapsed    "));
	/* 197 sweep allocations (2 idle tasks' first): 6 sweeps of 32, the 7th under way */
	assert_string_equal(rows[r + 2], "  threads    197 served of 1,000 at the start, 803 still "
			    "lacking (at most: U counts every thread)");
	assert_string_equal(rows[r + 3], "  sweeps     7 so far, 25 to come (unfixed: a sweep per "
			    "32 threads)");
	assert_non_null(strstr(rows[r + 4], "  time left  about "));
	assert_non_null(strstr(rows[r + 4], " (estimate from 6 sweeps)"));
	assert_non_null(strstr(rows[r + 5], "]  19%"));
	free(t);
	/* unfixed, a range: both ends and what it assumes */
	cap_reset(&c);
	st = status_range(&c, fgt_assembler_current(c.a)->last_ns + 1000,
			  "write() -> tracing_set_tracer", 1400000000, 6952000000);
	st->holders = some_holders();
	st->graph_active = 4;
	fgt_out_interval(c.o, st);
	t = cap_text(&c);
	n = frame_rows(t, rows, 64, 100);
	r = find_row(rows, n, "ACTIVATION #1 UNDER WAY  pid 4242 (trace-cmd)  write() -> "
		     "tracing_set_tracer");
	assert_true(r > 0);
	assert_string_equal(rows[r + 4], "  time left  1.400 s to 6.952 s (at a pace seen in its "
			    "6 sweeps)");
	r = find_row(rows, n, "HOLDERS  what keeps fgraph on");
	assert_true(r > 0);
	/* too wide for a table at 100 columns: each holder over two rows */
	assert_string_equal(rows[r + 1], "  function_graph, the top-level tracer");
	assert_string_equal(rows[r + 2], "      off: echo nop > /sys/kernel/tracing/current_tracer");
	assert_string_equal(rows[r + 3], "  function_graph in tracefs instance live");
	assert_string_equal(rows[r + 5], "  BPF kretprobe.multi link 12 (prog 34, 1 function), held "
			    "by pid 345 (fgt-trigger)");
	assert_string_equal(rows[r + 6], "      off: stop pid 345 (fgt-trigger): the link goes with "
			    "its last fd");
	/* 4 active, 3 named: one nobody names */
	assert_non_null(strstr(rows[r + 7], "+1 fgraph user no tracefs file or BPF link names"));
	free(t);
	/* 60 columns: every fact of the activation under way wraps, nothing
	 * is cut, and a remedy wraps rather than losing its path's end */
	cap_reset(&c);
	fgt_out_resize(c.o, 60, 60);
	fgt_out_interval(c.o, st);
	t = cap_text(&c);
	n = frame_rows(t, rows, 64, 60);
	for (int i = 0; i < n; i++)
		assert_true(strlen(rows[i]) <= 60);
	assert_memory_equal(rows[0], "verdict inconclusive", 20);
	r = find_row(rows, n, "ACTIVATION #1 UNDER WAY  pid 4242 (trace-cmd)");
	assert_true(r > 0);
	assert_string_equal(rows[r + 1], "  write() -> tracing_set_tracer");	/* between fields */
	r = find_row(rows, n, "  threads    197 served of 1,000 at the start, 803 still");
	assert_true(r > 0);
	assert_string_equal(rows[r + 1], "             lacking (at most: U counts every thread)");
	r = find_row(rows, n, "  time left  1.400 s to 6.952 s (at a pace seen in its 6");
	assert_true(r > 0);
	assert_string_equal(rows[r + 1], "             sweeps)");
	r = find_row(rows, n, "  function_graph in tracefs instance live");
	assert_true(r > 0);
	/* the remedy wrapped at a space, its path whole */
	assert_string_equal(rows[r + 1], "      off: echo nop >");
	assert_string_equal(rows[r + 2], "           /sys/kernel/tracing/instances/live/current_tracer");
	free(t);
	fgt_out_resize(c.o, 100, 50);
	/* ftrace_graph_active moved since they were read (the tracer switch under
	 * way locks tracefs): the old list, said to be old, nothing summed */
	st->holders_stale = true;
	st->graph_active = 5;
	cap_reset(&c);
	fgt_out_redraw(c.o, st);
	t = cap_text(&c);
	n = frame_rows(t, rows, 64, 100);
	r = find_row(rows, n, "HOLDERS  as read at ");
	assert_true(r > 0);
	assert_non_null(strstr(rows[r], ", before fgraph changed (a tracer switch locks tracefs "
			       "while it runs)"));
	assert_string_equal(rows[r + 1], "  function_graph, the top-level tracer");
	assert_int_equal(find_row(rows, n, "fgraph user no tracefs file"), -1);
	free(t);
	{
		struct fgt_holders *h = some_holders();

		h->n = h->kept = 0;
		st->holders = h;
	}
	cap_reset(&c);
	fgt_out_redraw(c.o, st);
	t = cap_text(&c);
	n = frame_rows(t, rows, 64, 100);
	r = find_row(rows, n, "HOLDERS  as read at ");
	assert_string_equal(rows[r + 1], "  none then");
	assert_int_equal(find_row(rows, n, "none: fgraph is off"), -1);
	free(t);
	st->holders_stale = false;
	fgt_assembler_free(c.a);

	/* A fresh assembler, the whole run: the activation shows at the next redraw. */
	fgt_recorder_init(&c.rec, fgt_out_record, c.o, NULL, NULL, NULL);
	c.a = fgt_assembler_new(fgt_recorder_activation, &c.rec);
	cap_reset(&c);
	feed(&c, "unfixed-1000-attributed", false, 0);
	fgt_assembler_flush(c.a);
	t = cap_text(&c);
	assert_string_equal(t, "");	/* nothing between redraws */
	free(t);
	fgt_out_interval(c.o, status(&c, 5));
	t = cap_text(&c);
	n = frame_rows(t, rows, 64, 100);
	assert_memory_equal(rows[0], "verdict not_fixed   fgraphtop  ", 31);
	assert_non_null(strstr(rows[0], "   activations 1   lost 5"));
	assert_true(find_row(rows, n, "no activation under way") > 0);
	r = find_row(rows, n, "HISTORY  the last activations, newest first");
	assert_true(r > 0);
	assert_non_null(strstr(rows[r + 1], "  #  BEGAN     TRIGGER            THREADS  SWEEPS   "
				"DURATION  VERDICT          SERVED  VIA"));
	assert_non_null(strstr(rows[r + 2], "  1  "));
	assert_non_null(strstr(rows[r + 2], "  trace-cmd            1,000      32"));
	assert_non_null(strstr(rows[r + 2], "  not_fixed         1,000  unknown"));
	assert_true(find_row(rows, n, "activation #1 at ") > r);
	assert_true(find_row(rows, n, "; sweeps 32; served 1000; ret 0") > 0);
	assert_true(find_row(rows, n, "  served per sweep: 32 x31, 8") > 0);
	assert_true(find_row(rows, n, "  verdict: not_fixed: 32 sweeps") > 0);
	assert_true(find_row(rows, n, "fork path: 2 allocations (0 failed)") > 0);
	assert_int_equal(find_row(rows, n, "UNDER WAY"), -1);
	free(t);

	/* The final report after the screen: the last activation, the history, the summary. */
	cap_reset(&c);
	fgt_out_final(c.o, status(&c, 5));
	t = cap_text(&c);
	assert_null(strstr(t, "\033["));
	assert_non_null(strstr(t, "activation #1 at "));
	assert_non_null(strstr(t, "history (newest first):\n  #  BEGAN "));
	assert_non_null(strstr(t, "summary: 1 activation(s); verdict not_fixed: 32 sweeps"));
	assert_non_null(strstr(t, "events lost: 5\n"));
	free(t);
	cap_close(&c);
}

/* A small terminal: every row cut to its width, never more rows than it has,
 * the newest history row kept; a hostile comm cannot send escape sequences. */
static void test_screen_small(void **state)
{
	struct gen_cfg g = { .lacking = 100, .ts0 = 1000 };
	struct fgt_status *st;
	char rows[64][512];
	struct cap c;
	char *t;
	int n;

	cap_open(&c, false, false, true);
	for (int i = 0; i < 5; i++) {
		g.ts0 = gen_activation(&g, gen_feed, &c);
		g.lacking = 40;
	}
	/* 40 columns: the header's rows and the holders' remedies wrap (three
	 * rows each), so 30 rows hold what 20 held when they were cut */
	fgt_out_resize(c.o, 40, 30);
	st = (struct fgt_status *)status(&c, 0);
	st->holders = some_holders();
	st->graph_active = 3;
	fgt_out_redraw(c.o, st);
	t = cap_text(&c);
	n = frame_rows(t, rows, 64, 40);
	assert_true(n <= 30);
	assert_true(find_row(rows, n, "HISTORY") > 0);
	/* the newest first, the others as room allows */
	assert_true(find_row(rows, n, "  5  ") > find_row(rows, n, "HISTORY"));
	free(t);

	/* 10 rows: the header and the top of what matters; no scrolling newline */
	fgt_out_resize(c.o, 30, 10);
	cap_reset(&c);
	fgt_out_redraw(c.o, st);
	t = cap_text(&c);
	n = frame_rows(t, rows, 64, 30);
	assert_int_equal(n, 10);
	assert_int_equal(count(t, "\r\n"), 9);
	free(t);

	/* a thread named with an escape sequence: drawn as '?' */
	fgt_assembler_free(c.a);
	fgt_recorder_init(&c.rec, fgt_out_record, c.o, NULL, NULL, NULL);
	c.a = fgt_assembler_new(fgt_recorder_activation, &c.rec);
	{
		struct fgt_event e = { .type = FGT_EV_ACT_BEGIN, .ts_ns = 10, .pid = 9, .tid = 9,
				       .nr_threads = 5, .stack_id = -1,
				       .comm = "\033[2Jevil\007" };

		fgt_assembler_feed(c.a, &e);
	}
	fgt_out_resize(c.o, 80, 24);
	cap_reset(&c);
	fgt_out_redraw(c.o, status_at(&c, 20, ""));
	t = cap_text(&c);
	n = frame_rows(t, rows, 64, 80);
	assert_true(find_row(rows, n, "pid 9 (?[2Jevil?)") > 0);
	assert_true(find_row(rows, n, "way in not known yet") > 0);
	free(t);
	cap_close(&c);
}

/* The rows from the one that contains FROM, joined again, each run of
 * spaces one: what a wrapped statement says whole. */
static void joined_from(char rows[][512], int n, const char *from, char *out, size_t len)
{
	size_t at = 0;

	out[0] = '\0';
	for (int i = find_row(rows, n, from); i >= 0 && i < n; i++) {
		for (const char *r = rows[i]; *r && at + 2 < len; r++) {
			if (*r == ' ' && (!at || out[at - 1] == ' '))
				continue;
			out[at++] = *r;
		}
		if (at && out[at - 1] != ' ' && at + 2 < len)
			out[at++] = ' ';
	}
	out[at] = '\0';
}

/*
 * 60 columns, nothing under way yet and the holders read before fgraph
 * changed: the header, the waiting line and the holders' heading wrap, each
 * there to its last words (issue 43; CI's narrow run showed them cut).
 */
static void test_screen_narrow_whole(void **state)
{
	struct fgt_status *st;
	char rows[64][512], all[8192];
	struct cap c;
	char *t;
	int n;

	cap_open(&c, false, false, true);
	fgt_out_resize(c.o, 60, 40);
	st = (struct fgt_status *)status(&c, 12345);
	st->holders = some_holders();
	st->holders_stale = true;
	st->graph_active = 1;
	fgt_out_redraw(c.o, st);
	t = cap_text(&c);
	n = frame_rows(t, rows, 64, 60);
	joined_from(rows, n, "verdict ", all, sizeof(all));
	assert_non_null(strstr(all, "lost 12345 (q quits)"));
	assert_non_null(strstr(all, "step (fgraphtop never causes one)"));
	assert_non_null(strstr(all, "switch locks tracefs while it runs)"));
	free(t);
	cap_close(&c);
	(void)state;
}

/* stderr into a temporary file, and back: what a message printed there. */
static int stderr_to(FILE *tmp)
{
	int saved = dup(STDERR_FILENO);

	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
	return saved;
}

static char *stderr_back(int saved, FILE *tmp)
{
	static char buf[4096];
	size_t n;

	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = '\0';
	return buf;
}

/*
 * Warnings while the screen owns the terminal: on stderr the next frame would
 * draw over them. They are held: the newest three are on the screen, under
 * the header, and all messages come out in order once the terminal is back.
 */
static void test_screen_warnings(void **state)
{
	FILE *tmp = tmpfile();
	char rows[64][512];
	struct cap c;
	struct stat sb;
	char *t, *err;
	int saved, n, w;

	assert_non_null(tmp);
	cap_open(&c, false, false, true);
	fgt_out_resize(c.o, 80, 24);
	saved = stderr_to(tmp);
	fgt_log_hold(true);
	p_warn("latency_probe", "first");
	fgt_log(FGT_LOG_INFO, "an info line");
	p_warn("latency_probe", "second");
	log_err("third, an error");
	p_warn("latency_probe", "fourth");
	p_warn("latency_probe", "fifth, long enough to be cut at the screen's width of eighty "
	       "columns, which it is");
	fgt_out_redraw(c.o, status(&c, 0));
	fflush(stderr);
	assert_int_equal(fstat(fileno(tmp), &sb), 0);
	assert_int_equal(sb.st_size, 0);		/* nothing on stderr yet */
	t = cap_text(&c);
	n = frame_rows(t, rows, 64, 80);
	w = find_row(rows, n, "fgraphtop: warning: fifth");
	assert_true(w > 0);
	assert_true(find_row(rows, n, "verdict") < w);		/* under the header */
	/* the long one wraps: nothing of a warning is cut */
	assert_int_equal(find_row(rows, n, "columns, which it is"), w + 1);
	assert_int_equal(find_row(rows, n, "fgraphtop: warning: fourth"), w + 2);
	assert_int_equal(find_row(rows, n, "fgraphtop: third, an error"), w + 3);
	assert_int_equal(find_row(rows, n, "(2 earlier warnings: all are printed on exit)"), w + 4);
	assert_int_equal(find_row(rows, n, "second"), -1);
	assert_int_equal(find_row(rows, n, "info line"), -1);
	free(t);

	fgt_log_hold(false);
	err = stderr_back(saved, tmp);
	assert_string_equal(err,
			    "fgraphtop: warning: first\n"
			    "an info line\n"
			    "fgraphtop: warning: second\n"
			    "fgraphtop: third, an error\n"
			    "fgraphtop: warning: fourth\n"
			    "fgraphtop: warning: fifth, long enough to be cut at the screen's "
			    "width of eighty columns, which it is\n");
	/* released: the next frame has none */
	cap_reset(&c);
	fgt_out_redraw(c.o, status(&c, 0));
	t = cap_text(&c);
	n = frame_rows(t, rows, 64, 80);
	assert_int_equal(find_row(rows, n, "warning"), -1);
	free(t);
	cap_close(&c);
	fclose(tmp);
}

/* The screen's rows with the static verdict r said: its frame at 120 columns. */
static int code_frame(struct fgt_static_result *r, const char *evidence, char rows[][512])
{
	struct cap c;
	char *t;
	int n;

	snprintf(r->evidence, sizeof(r->evidence), "%s", evidence);
	cap_open(&c, false, false, true);
	fgt_out_resize(c.o, 120, 40);
	fgt_out_static(c.o, r);
	fgt_out_redraw(c.o, status(&c, 0));
	t = cap_text(&c);
	n = frame_rows(t, rows, 64, 120);
	free(t);
	cap_close(&c);
	return n;
}

/* The code's verdict on the screen: its finding, the judge's first clause,
 * and where the rest is; the lines print the whole evidence. */
static void test_screen_code(void **state)
{
	struct fgt_static_result *r = calloc(1, sizeof(*r));
	char rows[64][512];
	struct cap c;
	char *t;
	int n, v;

	assert_non_null(r);
	r->verdict = FGT_VERDICT_NOT_FIXED;
	n = code_frame(r, "the batch of 32 and its -EAGAIN loop at f+0x33e; f+0x33e: "
		       "kmem_cache_alloc_noprof(c, GFP_KERNEL) outside rcu_read_lock(); "
		       "t->ret_stack at +0x890 (BTF)", rows);
	v = find_row(rows, n, "verdict");
	assert_int_equal(find_row(rows, n, "this kernel's code says not_fixed: the batch of 32 "
				  "and its -EAGAIN loop at f+0x33e (the rest: fgraphtop check)"), v + 1);
	assert_int_equal(find_row(rows, n, "kmem_cache_alloc_noprof"), -1);
	assert_int_equal(find_row(rows, n, "fgraph: "), v + 2);
	/* one clause: all of it, nothing said of a rest */
	n = code_frame(r, "one walk allocating inline at f+0x3d1", rows);
	assert_true(find_row(rows, n, "this kernel's code says not_fixed: one walk allocating "
			     "inline at f+0x3d1") > 0);
	assert_int_equal(find_row(rows, n, "the rest"), -1);
	/* the lines: the whole evidence */
	cap_open(&c, false, false, false);
	snprintf(r->evidence, sizeof(r->evidence), "a; b; c");
	fgt_out_static(c.o, r);
	t = cap_text(&c);
	assert_non_null(strstr(t, "fgraphtop: this kernel's code says not_fixed: a; b; c\n"));
	free(t);
	cap_close(&c);
	free(r);
}

/* The exposure hook: the header says how many threads lack a stack now,
 * once the session counts them, and nothing before. */
static void test_screen_exposure(void **state)
{
	struct fgt_exp_walk w;
	unsigned int i;
	struct fgt_status *st;
	char rows[64][512];
	struct cap c;
	char *t;

	cap_open(&c, false, false, true);
	st = (struct fgt_status *)status(&c, 0);
	st->graph_active = 0;
	fgt_out_redraw(c.o, st);
	t = cap_text(&c);
	frame_rows(t, rows, 64, 80);
	assert_string_equal(rows[1], "fgraph: off (ftrace_graph_active 0)");
	free(t);
	/* 30,048 of 30,112 lacking, the 64 with a stack first: the walk
	 * visits them in each of its 939 sweeps */
	fgt_exp_walk_init(&w);
	for (i = 0; i < 30112; i++)
		fgt_exp_walk_step(&w, i >= 64);
	fgt_exp_walk_end(&w);
	st->exposure = &w;
	fgt_exp_estimate(&w, NULL, &st->exposure_est);
	cap_reset(&c);
	fgt_out_redraw(c.o, st);
	t = cap_text(&c);
	frame_rows(t, rows, 64, 80);
	assert_string_equal(rows[1], "fgraph: off (ftrace_graph_active 0)");
	assert_string_equal(rows[2], "lacking a stack: 30,048 of 30,112 threads; "
			    "unfixed walk ~1.29 s (series' cost)");
	free(t);
	/* priced at this host's cost once an unfixed walk showed it; 400,000
	 * threads still fit 80 columns */
	fgt_exp_walk_lacking_first(400120, 400000, &w);
	fgt_exp_estimate(&w, NULL, &st->exposure_est);
	st->exposure_est.src = FGT_EXP_COST_OBSERVED;
	cap_reset(&c);
	fgt_out_redraw(c.o, st);
	t = cap_text(&c);
	frame_rows(t, rows, 64, 80);
	assert_string_equal(rows[2], "lacking a stack: 400,000 of 400,120 threads; "
			    "unfixed walk ~227 s (host's cost)");
	free(t);
	/* 60 columns (issue 43): the header's rows wrap between fields, so
	 * every fact stays: the losses and the exposure's estimate included */
	fgt_out_resize(c.o, 60, 40);
	cap_reset(&c);
	fgt_out_redraw(c.o, st);
	t = cap_text(&c);
	frame_rows(t, rows, 64, 60);
	assert_non_null(strstr(rows[0], "verdict "));
	assert_true(find_row(rows, 4, "lost 0") > 0);
	assert_true(find_row(rows, 4, "(q quits)") > 0);
	assert_true(find_row(rows, 6, "~227 s (host's cost)") > 0);
	assert_true(find_row(rows, 40, "idle-task allocations") > 0);
	free(t);
	cap_close(&c);
}

/* Lines (a pipe, --no-screen): the same facts. The progress with each
 * interval while an activation is under way, the holders when they change,
 * the history table at the end. */
static void test_lines_live(void **state)
{
	struct fgt_exp_walk w;
	struct fgt_status *st;
	struct cap c;
	char *t;

	cap_open(&c, false, false, false);
	feed(&c, "unfixed-1000-attributed", false, 200);
	st = (struct fgt_status *)status_at(&c, fgt_assembler_current(c.a)->last_ns,
					    "write() -> tracing_set_tracer");
	st->holders = some_holders();
	st->graph_active = 3;
	fgt_out_interval(c.o, st);
	fgt_out_holders(c.o, st);
	fgt_out_holders(c.o, st);	/* unchanged: nothing */
	t = cap_text(&c);
	assert_null(strstr(t, "\033["));
	assert_non_null(strstr(t, " activation #1 under way "));
	assert_non_null(strstr(t, ": pid 4242 (trace-cmd) write() -> tracing_set_tracer; served 197 "
				  "of 1,000 threads at the start, 803 still lacking (at most: U counts "
				  "every thread); sweeps 7, 25 to come (unfixed: a sweep per 32 "
				  "threads); time left about "));
	assert_int_equal(count(t, " fgraph holders: 3 (ftrace_graph_active 3)\n"), 1);
	assert_non_null(strstr(t, "\n  function_graph, the top-level tracer; to turn it off: echo nop "
				  "> /sys/kernel/tracing/current_tracer\n"));
	assert_non_null(strstr(t, "\n  BPF kretprobe.multi link 12 (prog 34, 1 function), held by pid "
				  "345 (fgt-trigger); to turn it off: stop pid 345 (fgt-trigger): the "
				  "link goes with its last fd\n"));
	free(t);
	/* unfixed, a range; its low end past: from 0 */
	cap_reset(&c);
	fgt_out_interval(c.o, status_range(&c, fgt_assembler_current(c.a)->last_ns,
					   "write() -> tracing_set_tracer", 1400000000, 6952000000));
	fgt_out_interval(c.o, status_range(&c, fgt_assembler_current(c.a)->last_ns,
					   "write() -> tracing_set_tracer", 0, 952000000));
	t = cap_text(&c);
	assert_non_null(strstr(t, " threads); time left 1.400 s to 6.952 s (at a pace seen in its 6 "
				  "sweeps)\n"));
	assert_non_null(strstr(t, " threads); time left 0 to 952.0 ms (at a pace seen in its 6 "
				  "sweeps)\n"));
	free(t);
	/* a walk again under a third served: its low end, open above */
	assert_open(&c, " threads); time left 1.200 s or more (if no more failures; failing on, "
		    "bounded once a third is served)\n");
	/* bounded: the range holds while reclaim and the host keep their pace */
	assert_degraded(&c, " threads); time left 1.200 s to 3.400 s (no more failures, or failing "
			"as they have since its first sweep; if reclaim and the host keep their "
			"pace)\n");
	/* the holders change: printed again */
	cap_reset(&c);
	{
		struct fgt_holders *h = some_holders();

		h->n = h->kept = h->regs = 0;
		st->holders = h;
	}
	st->graph_active = 0;
	fgt_out_holders(c.o, st);
	t = cap_text(&c);
	assert_non_null(strstr(t, " fgraph holders: 0 (ftrace_graph_active 0)\n  none: fgraph is off; "
				  "its next user makes the 0->1 step\n"));
	free(t);
	/* with a scan: the interval line ends with the exposure */
	cap_reset(&c);
	fgt_exp_walk_lacking_first(1000, 1000, &w);
	st->exposure = &w;
	fgt_exp_estimate(&w, NULL, &st->exposure_est);
	fgt_out_interval(c.o, st);
	t = cap_text(&c);
	assert_non_null(strstr(t, "; lost 0; lacking a stack: 1,000 of 1,000 threads; unfixed "
				  "walk ~0.00153 s (series' cost)\n"));
	free(t);
	cap_close(&c);
}

/* -j: a progress record with each interval while one is under way, holders
 * records when they change; both checked against docs/json.md (make test-schema). */
static void test_json_live(void **state)
{
	struct fgt_exp_walk w;
	struct fgt_status *st;
	struct cap c;
	char *t;

	cap_open(&c, true, false, false);
	feed(&c, "unfixed-1000-attributed", false, 200);
	st = (struct fgt_status *)status_at(&c, fgt_assembler_current(c.a)->last_ns + 2000,
					    "write() -> tracing_set_tracer");
	st->holders = some_holders();
	st->graph_active = 3;
	fgt_out_interval(c.o, st);
	fgt_out_holders(c.o, st);
	fgt_out_holders(c.o, st);
	t = cap_text(&c);
	/* no scan yet: the interval's exposure is null */
	assert_non_null(strstr(t, ",\"verdict\":\"inconclusive\",\"exposure\":null}"));
	assert_int_equal(count(t, "\n"), 3);
	assert_int_equal(count(t, "{\"schema\":1,\"type\":\"interval\","), 1);
	assert_int_equal(count(t, "{\"schema\":1,\"type\":\"progress\","), 1);
	assert_non_null(strstr(t, "\"seq\":1,\"src\":\"attributed\",\"time_s\":"));
	assert_non_null(strstr(t, "\"trigger\":{\"pid\":4242,\"tid\":4242,\"comm\":\"trace-cmd\","
				  "\"via\":\"write() -> tracing_set_tracer\"},"));
	assert_non_null(strstr(t, ",\"data_age_ns\":2000,\"threads\":1000,\"threads_from\":"
				  "\"nr_threads\",\"served\":197,\"lacking\":803,\"lacking_exact\":false,"
				  "\"sweeps\":7,\"so_far\":\"not_fixed\",\"sweeps_to_come\":25,\"eta_ns\":"));
	{
		const char *e = strstr(t, "\"eta_ns\":");
		unsigned long long lo, hi;

		/* the model's range over the run: the low end first, then the high */
		assert_int_equal(sscanf(e, "\"eta_ns\":%llu,\"eta_high_ns\":%llu,\"eta_sweeps\":6,",
					&lo, &hi), 2);
		assert_true(lo <= hi);
	}
	assert_int_equal(count(t, "{\"schema\":1,\"type\":\"holders\","), 1);
	assert_non_null(strstr(t, "\"graph_active\":3,\"count\":3,\"named\":3,\"maybe\":0,"
				  "\"unnamed\":0,\"tracefs\":\"/sys/kernel/tracing\","));
	assert_non_null(strstr(t, "{\"kind\":\"bpf_link\",\"name\":\"kretprobe.multi\",\"instance\":"
				  "\"\",\"maybe\":false,\"return\":true,\"text\":\"BPF kretprobe.multi "
				  "link 12 (prog 34, 1 function)\",\"undo\":\"stop pid 345 "
				  "(fgt-trigger): the link goes with its last fd\",\"pid\":345,\"comm\":"
				  "\"fgt-trigger\",\"link_id\":12,\"prog_id\":34,\"functions\":1,"
				  "\"owners\":1,\"fgraphtop_hold\":false}"));
	free(t);
	cap_keep(&c);
	/* a range: its low end as eta_ns, its high end beside it */
	cap_reset(&c);
	fgt_out_interval(c.o, status_range(&c, fgt_assembler_current(c.a)->last_ns,
					   "write() -> tracing_set_tracer", 1400000000, 6952000000));
	t = cap_text(&c);
	assert_non_null(strstr(t, ",\"sweeps_to_come\":25,\"eta_ns\":1400000000,"
				  "\"eta_high_ns\":6952000000,\"eta_sweeps\":6,"));
	free(t);
	cap_keep(&c);
	/* a walk again, its high end open: null beside its low end */
	assert_open(&c, ",\"eta_ns\":1200000000,\"eta_high_ns\":null,\"eta_sweeps\":6,"
		    "\"degraded\":true,");
	/* too early for an estimate: nulls, as documented */
	fgt_assembler_free(c.a);
	fgt_recorder_init(&c.rec, fgt_out_record, c.o, NULL, NULL, NULL);
	c.a = fgt_assembler_new(fgt_recorder_activation, &c.rec);
	feed(&c, "unfixed-1000-attributed", false, 10);
	cap_reset(&c);
	st = (struct fgt_status *)status_at(&c, fgt_assembler_current(c.a)->last_ns, "");
	/* a scan: check's exposure object, the same writer */
	fgt_exp_walk_lacking_first(1000, 1000, &w);
	st->exposure = &w;
	fgt_exp_estimate(&w, NULL, &st->exposure_est);
	fgt_out_interval(c.o, st);
	t = cap_text(&c);
	assert_non_null(strstr(t, ",\"exposure\":{\"threads\":1000,\"lacking\":1000,\"sweeps\":32,"
				  "\"visits\":16903,\"estimate_s\":0.0015"));
	assert_non_null(strstr(t, ",\"ns_per_visit\":90.8,\"cost\":\"default\",\"calib_visits\":0}}\n"));
	assert_non_null(strstr(t, "\"via\":\"unknown\"},"));
	assert_non_null(strstr(t, "\"so_far\":\"inconclusive\",\"sweeps_to_come\":null,\"eta_ns\":null,"
				  "\"eta_high_ns\":null,"));
	free(t);
	cap_close(&c);
}

/* fgt_cut: printable, cut to the columns, never past the buffer. */
static void test_cut(void **state)
{
	char b[16];

	assert_int_equal(fgt_cut(b, sizeof(b), "hello world", 5), 5);
	assert_string_equal(b, "hello");
	assert_int_equal(fgt_cut(b, sizeof(b), "a\tb\033c\xc3\xa9", 10), 7);
	assert_string_equal(b, "a?b?c??");
	assert_int_equal(fgt_cut(b, sizeof(b), "one\ntwo", 10), 3);
	assert_int_equal(fgt_cut(b, 4, "abcdefgh", 10), 3);
	assert_string_equal(b, "abc");
	assert_int_equal(fgt_cut(b, sizeof(b), "", 10), 0);
}

/* Without a screen (a pipe): the activation is printed when it ends. */
static void test_text(void **state)
{
	struct cap c;
	char *t;

	cap_open(&c, false, false, false);
	feed(&c, "fixed-1000-k100-attributed", false, 0);
	fgt_assembler_flush(c.a);
	t = cap_text(&c);
	assert_null(strstr(t, "\033["));
	assert_non_null(strstr(t, "activation #1 at "));
	assert_non_null(strstr(t, "; sweeps 4; served 1000; ret 0\n"));
	assert_non_null(strstr(t, "  served per sweep: 32 x3, 904\n"));
	assert_non_null(strstr(t, "failed: blocking 0, non-blocking 100;"));
	assert_non_null(strstr(t, "  verdict: fixed: "));
	assert_null(strstr(t, "events lost while it ran"));
	free(t);
	cap_close(&c);
}

/* Events lost while an activation ran are said with it, text and JSON. */
static void test_lost_in_activation(void **state)
{
	struct cap c;
	char *t;

	for (int json = 0; json < 2; json++) {
		cap_open(&c, json, false, false);
		feed(&c, "unfixed-1000-attributed", false, 200);
		fgt_assembler_lost(c.a, 4);
		fgt_assembler_flush(c.a);
		t = cap_text(&c);
		if (json) {
			assert_non_null(strstr(t, "\"complete\":false,"));
			assert_non_null(strstr(t, "\"walk_ns\":"));
			assert_non_null(strstr(t, ",\"lost\":4,\"allocations\":"));
		} else {
			assert_non_null(strstr(t, " INCOMPLETE"));
			assert_non_null(strstr(t, "  events lost while it ran: 4 (its counts may be short)\n"));
		}
		free(t);
		cap_close(&c);
	}
}

/* TERM=dumb (or none), or under 40 columns: the lines, not the screen. */
static void test_screen_fits(void **state)
{
	assert_true(fgt_screen_fits("xterm-256color", 80));
	assert_true(fgt_screen_fits("linux", 40));
	assert_false(fgt_screen_fits("linux", 39));
	assert_false(fgt_screen_fits("dumb", 200));
	assert_false(fgt_screen_fits("", 200));
	assert_false(fgt_screen_fits(NULL, 200));
}

/* Wrapped at spaces, between fields first, continuation rows indented,
 * never past the width; a word longer than a row (a path) is split. */
#define WRAPPED "      off: echo nop\n    >\n    /sys/kernel/trac\n    ing/current_trac\n    er\n"
#define FIELDS "threads 1,000\n  served of 2,000 at\n  the start\n"
static void test_lines_wrap(void **state)
{
	struct fgt_lines l;

	fgt_lines_init(&l, 20, 10);
	fgt_lines_wrap(&l, 4, "      off: echo nop > /sys/kernel/tracing/current_tracer");
	assert_int_equal(l.len, strlen(WRAPPED));
	assert_memory_equal(l.buf, WRAPPED, l.len);
	fgt_lines_reset(&l);
	fgt_lines_wrap(&l, 2, "threads 1,000  served of 2,000 at the start");
	assert_int_equal(l.len, strlen(FIELDS));
	assert_memory_equal(l.buf, FIELDS, l.len);
	fgt_lines_reset(&l);
	fgt_lines_wrap(&l, 2, "short");
	assert_memory_equal(l.buf, "short\n", 6);
	fgt_lines_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_activation),
		cmocka_unit_test(test_json_events),
		cmocka_unit_test(test_json_error_warning),
		cmocka_unit_test(test_record_stack),
		cmocka_unit_test(test_json_start),
		cmocka_unit_test(test_screen),
		cmocka_unit_test(test_screen_fits),
		cmocka_unit_test(test_lines_wrap),
		cmocka_unit_test(test_screen_small),
		cmocka_unit_test(test_screen_narrow_whole),
		cmocka_unit_test(test_screen_warnings),
		cmocka_unit_test(test_screen_code),
		cmocka_unit_test(test_screen_exposure),
		cmocka_unit_test(test_lines_live),
		cmocka_unit_test(test_json_live),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_lost_in_activation),
	};

	return cmocka_run_group_tests_name("output", tests, NULL, NULL);
}
