// SPDX-License-Identifier: GPL-2.0
/*
 * src/output.c without a kernel: recorded event sequences (tests/data) through
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
#include <cmocka.h>
#include "activation.h"
#include "events.h"
#include "exit_codes.h"
#include "log.h"
#include "output.h"
#include "plan.h"

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

/* What the session's status would say now. */
static const struct fgt_status *status(struct cap *c, uint64_t lost)
{
	static struct fgt_status st;

	st.cur = fgt_assembler_current(c->a);
	st.fork = fgt_assembler_fork(c->a);
	st.judge = &c->rec.judge;
	st.lost = lost;
	return &st;
}

/* Output so far (a NUL-terminated copy the caller frees); the stream stays open. */
static char *cap_text(struct cap *c)
{
	fflush(c->f);
	return strndup(c->buf ? c->buf : "", c->len);
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
	assert_non_null(strstr(t, "\"sweeps\":32,\"served\":1000,"));
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
	assert_non_null(strstr(t, "\"sweeps\":4,\"served\":1000,"));
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
		"{\"schema\":1,\"type\":\"error\",\"code\":\"usage\",\"exit\":2,"
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

/* The screen: nothing is printed when an activation ends (it goes to the next
 * redraw); each redraw clears the terminal and shows the last activation, the
 * verdict, the fork path and lost events. */
static void test_screen(void **state)
{
	struct cap c;
	char *t;

	cap_open(&c, false, false, true);
	fgt_out_interval(c.o, status(&c, 0));
	t = cap_text(&c);
	assert_memory_equal(t, "\033[H\033[2J", 7);
	assert_non_null(strstr(t, "   activations 0   verdict inconclusive   lost 0\n"));
	assert_non_null(strstr(t, "no activation seen yet"));
	assert_non_null(strstr(t, "fork path: 0 allocations (0 failed), 0 new tasks"));
	free(t);

	cap_reset(&c);
	feed(&c, "unfixed-1000-attributed", false, 200);	/* under way */
	t = cap_text(&c);
	assert_string_equal(t, "");
	free(t);
	fgt_out_interval(c.o, status(&c, 0));
	t = cap_text(&c);
	assert_non_null(strstr(t, "   activations 0 (one under way)   verdict inconclusive"));
	assert_non_null(strstr(t, "\nunder way: pid "));
	assert_null(strstr(t, "activation #1"));
	free(t);
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
	assert_memory_equal(t, "\033[H\033[2J", 7);
	assert_int_equal(count(t, "\033[2J"), 1);
	assert_non_null(strstr(t, "   activations 1   verdict not_fixed   lost 5\n"));
	assert_non_null(strstr(t, "activation #1 at "));
	assert_non_null(strstr(t, "  threads "));
	assert_non_null(strstr(t, "; sweeps 32; served 1000; ret 0\n"));
	assert_non_null(strstr(t, "  served per sweep: 32 x31, 8\n"));
	assert_non_null(strstr(t, "  verdict: not_fixed: 32 sweeps"));
	assert_non_null(strstr(t, "fork path: 2 allocations (0 failed)"));
	assert_null(strstr(t, "under way"));
	free(t);

	/* The final report after the screen: the last activation and the summary. */
	cap_reset(&c);
	fgt_out_final(c.o, status(&c, 5));
	t = cap_text(&c);
	assert_non_null(strstr(t, "activation #1 at "));
	assert_non_null(strstr(t, "summary: 1 activation(s); verdict not_fixed: 32 sweeps"));
	assert_non_null(strstr(t, "events lost: 5\n"));
	free(t);
	cap_close(&c);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_activation),
		cmocka_unit_test(test_json_events),
		cmocka_unit_test(test_json_error_warning),
		cmocka_unit_test(test_record_stack),
		cmocka_unit_test(test_json_start),
		cmocka_unit_test(test_screen),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_lost_in_activation),
	};

	return cmocka_run_group_tests_name("output", tests, NULL, NULL);
}
