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
#include "output.h"
#include "plan.h"

struct cap {
	FILE *f;
	char *buf;
	size_t len;
	struct fgt_out *o;
	struct fgt_assembler *a;
};

static void cap_open(struct cap *c, bool json, bool events, bool screen)
{
	struct fgt_out_opts oo = { .json = json, .events = events, .screen = screen,
				   .stack_map_fd = -1, .start_ns = 0 };

	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	c->o = fgt_out_new(c->f, &oo);
	assert_non_null(c->o);
	c->a = fgt_asm_new(fgt_out_activation, c->o);
	assert_non_null(c->a);
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
	fgt_asm_free(c->a);
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
				fgt_out_event(c->o, &e);
			fgt_asm_feed(c->a, &e);
			if (max > 0 && ++n == max)
				goto out;
			break;
		case EV_LINE_LOST:
			fgt_asm_lost(c->a, lost);
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
	fgt_asm_flush(c.a);
	fgt_out_interval(c.o, c.a, 3);
	fgt_out_final(c.o, c.a, 3);
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
	fgt_asm_flush(c.a);
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

/* Errors and warnings: one JSON line each, the documented code for the status. */
static void test_json_error_warning(void **state)
{
	struct cap c;
	char *t;

	cap_open(&c, true, false, false);
	fgt_out_warning(c.o, "fgraph_active", "fgraph already has a user");
	fgt_out_error(c.f, true, FGT_EXIT_NO_FGRAPH, "no \"fgraph\" here");
	fgt_out_error(c.f, true, FGT_EXIT_USAGE, "bad option");
	t = cap_text(&c);
	assert_string_equal(t,
		"{\"schema\":1,\"type\":\"warning\",\"code\":\"fgraph_active\","
		"\"message\":\"fgraph already has a user\"}\n"
		"{\"schema\":1,\"type\":\"error\",\"code\":\"no_fgraph\",\"exit\":3,"
		"\"message\":\"no \\\"fgraph\\\" here\"}\n"
		"{\"schema\":1,\"type\":\"error\",\"code\":\"usage\",\"exit\":2,"
		"\"message\":\"bad option\"}\n");
	free(t);
	cap_close(&c);
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
	fgt_out_interval(c.o, c.a, 0);
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
	fgt_out_interval(c.o, c.a, 0);
	t = cap_text(&c);
	assert_non_null(strstr(t, "   activations 0 (one under way)   verdict inconclusive"));
	assert_non_null(strstr(t, "\nunder way: pid "));
	assert_null(strstr(t, "activation #1"));
	free(t);
	fgt_asm_free(c.a);

	/* A fresh assembler, the whole run: the activation shows at the next redraw. */
	c.a = fgt_asm_new(fgt_out_activation, c.o);
	cap_reset(&c);
	feed(&c, "unfixed-1000-attributed", false, 0);
	fgt_asm_flush(c.a);
	t = cap_text(&c);
	assert_string_equal(t, "");	/* nothing between redraws */
	free(t);
	fgt_out_interval(c.o, c.a, 5);
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
	fgt_out_final(c.o, c.a, 5);
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
	fgt_asm_flush(c.a);
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
		fgt_asm_lost(c.a, 4);
		fgt_asm_flush(c.a);
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
		cmocka_unit_test(test_json_start),
		cmocka_unit_test(test_screen),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_lost_in_activation),
	};

	return cmocka_run_group_tests_name("output", tests, NULL, NULL);
}
