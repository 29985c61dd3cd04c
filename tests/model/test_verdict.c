// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "lib/collect.h"
#include "lib/events.h"
#include "common/exit_codes.h"
#include "model/verdict.h"

/* Verdict and evidence of one simulated activation (attributed path). */
static enum fgt_verdict judge_gen(const struct gen_cfg *cfg, char *ev, size_t len)
{
	struct collect c;
	enum fgt_verdict v;

	collect_gen(&c, cfg);
	assert_int_equal(c.n, 1);
	v = verdict_of(&c.acts[0], ev, len);
	collect_fini(&c);
	return v;
}

static void test_not_fixed_many_sweeps(void **state)
{
	struct gen_cfg cfg = { .lacking = 10002 };
	char ev[256];

	assert_int_equal(judge_gen(&cfg, ev, sizeof(ev)), FGT_VERDICT_NOT_FIXED);
	assert_string_equal(ev, "313 sweeps, each a GFP_KERNEL batch of at most 32, "
			    "served 10002 threads: the walk restarted per batch (the gaps "
			    "between the batches hold them)");
	cfg.direct = true;
	assert_int_equal(judge_gen(&cfg, ev, sizeof(ev)), FGT_VERDICT_NOT_FIXED);
	assert_non_null(strstr(ev, "(each call returned -EAGAIN)"));
}

/* One walk of at most a batch: no restart was needed, both kernels alike. */
static void test_single_sweep(void **state)
{
	struct gen_cfg cfg = { .lacking = 8 };
	char ev[256];

	assert_int_equal(judge_gen(&cfg, ev, sizeof(ev)), FGT_VERDICT_UNKNOWN);
	assert_string_equal(ev, "one walk served 8 threads, at most a batch of 32: no restart "
			    "was needed, fixed and unfixed kernels behave alike");
	cfg.direct = true;
	assert_int_equal(judge_gen(&cfg, ev, sizeof(ev)), FGT_VERDICT_UNKNOWN);
}

static void test_fixed(void **state)
{
	struct gen_cfg cfg = { .fixed = true, .lacking = 10002 };
	char ev[FGT_EVIDENCE_LEN];

	assert_int_equal(judge_gen(&cfg, ev, sizeof(ev)), FGT_VERDICT_FIXED);
	assert_string_equal(ev, "one sweep served 10002 threads with non-blocking allocations "
			    "(10002 non-blocking, 0 from the reserve, 0 failed)");
	cfg.fail_nb = 100;
	assert_int_equal(judge_gen(&cfg, ev, sizeof(ev)), FGT_VERDICT_FIXED);
	/* degraded: 1 + floor(100 / 33) sweeps, 100 - 3 threads from the reserve */
	assert_true(!strncmp(ev, "1 + 3 sweeps: 100 non-blocking allocations failed under "
			     "memory pressure, each served by a blocking allocation (the 3 extra sweeps walked "
			     "again past ",
			     strlen("1 + 3 sweeps: 100 non-blocking allocations failed under "
				    "memory pressure, each served by a blocking allocation (the 3 extra sweeps walked "
				    "again past ")));
	assert_non_null(strstr(ev, "); 10002 threads served (9905 non-blocking, 97 from the "
			       "reserve, 100 failed)"));
	/* fewer than 33 failures: the reserve absorbs them in the one sweep */
	cfg.fail_nb = 20;
	assert_int_equal(judge_gen(&cfg, ev, sizeof(ev)), FGT_VERDICT_FIXED);
	assert_string_equal(ev, "one sweep: 20 non-blocking allocations failed under memory "
			    "pressure, each served by a blocking allocation; 10002 threads served (9982 "
			    "non-blocking, 20 from the reserve, 20 failed)");
}

/* The degraded evidence's figures, from a value made by hand. */
static void test_fixed_degraded_text(void **state)
{
	struct fgt_verdict_val v = {
		.verdict = FGT_VERDICT_FIXED, .why = FGT_WHY_NONBLOCKING, .nr_sweeps = 13,
		.served = 30045, .nonblocking = 29661, .reserve = 384, .failed = 396,
		.failed_nb = 396, .extra_sweeps = 12, .extra_ns = 1234000000ull,
		.total_ns = 1500000000ull, .rewalked = 98765,
	};
	char ev[FGT_EVIDENCE_LEN];

	fgt_verdict_text(&v, ev, sizeof(ev));
	assert_string_equal(ev, "1 + 12 sweeps: 396 non-blocking allocations failed under memory "
			    "pressure, each served by a blocking allocation (the 12 extra sweeps walked again "
			    "past 98765 threads already served and took 1.234 s of 1.500 s); "
			    "30045 threads served (29661 non-blocking, 384 from the "
			    "reserve, 396 failed)");
	v.extra_sweeps = 1, v.nr_sweeps = 2, v.extra_ns = 2500000, v.total_ns = 9000000;
	v.failed_nb = v.failed = 1, v.rewalked = 7;
	fgt_verdict_text(&v, ev, sizeof(ev));
	assert_non_null(strstr(ev, "1 + 1 sweep: 1 non-blocking allocation failed under memory "
			       "pressure, each served by a blocking allocation (the 1 extra sweep walked "
			       "again past 7 threads already served and took 2.500 ms of "
			       "9.000 ms)"));
}

/* The judged value carries the degradation's figures (generated run). */
static void test_fixed_degraded_value(void **state)
{
	struct gen_cfg cfg = { .fixed = true, .lacking = 1000, .fail_nb = 66 };
	struct collect c;
	struct fgt_verdict_val v;
	const struct fgt_activation *a;

	collect_gen(&c, &cfg);
	a = &c.acts[0];
	fgt_verdict_judge(a, &v);
	assert_int_equal(v.verdict, FGT_VERDICT_FIXED);
	assert_int_equal(v.nr_sweeps, 3);
	assert_int_equal(v.extra_sweeps, 2);
	assert_int_equal(v.failed_nb, 66);
	assert_int_equal(v.reserve, 64);
	/* sweep 2 re-walks sweep 1's, sweep 3 those of 1 and 2 */
	assert_int_equal(v.rewalked, 2 * (uint64_t)a->sweeps[0].served + a->sweeps[1].served);
	assert_int_equal(v.total_ns, a->end_ns - a->begin_ns);
	assert_int_equal(v.extra_ns, a->end_ns - a->sweeps[1].begin_ns);
	assert_true(v.extra_ns > 0 && v.extra_ns < v.total_ns);
	collect_fini(&c);
}

/* Every inline allocation failed: still the fixed code, and the reserve shows it. */
static void test_fixed_all_inline_failed(void **state)
{
	struct gen_cfg cfg = { .fixed = true, .lacking = 5, .fail_nb = 5 };
	char ev[256];

	assert_int_equal(judge_gen(&cfg, ev, sizeof(ev)), FGT_VERDICT_FIXED);
	assert_non_null(strstr(ev, "(0 non-blocking, 5 from the reserve, 5 failed)"));
}

static void test_nothing_served(void **state)
{
	struct gen_cfg cfg = { .before = 500 };
	char ev[256];

	assert_int_equal(judge_gen(&cfg, ev, sizeof(ev)), FGT_VERDICT_UNKNOWN);
	assert_non_null(strstr(ev, "no thread lacked a shadow stack"));
	cfg.fixed = true;	/* the fixed kernel looks the same here */
	assert_int_equal(judge_gen(&cfg, ev, sizeof(ev)), FGT_VERDICT_UNKNOWN);
}

static void test_incomplete(void **state)
{
	struct fgt_sweep s[2] = { { .batch = 32, .served = 32, .ret = -EAGAIN, .ret_known = true },
				  { .batch = 32, .served = 1, .freed = 31, .ret_known = true } };
	struct fgt_activation a = { .seq = 3, .nr_sweeps = 2, .sweeps = s, .served = 33,
				    .blocking = 64, .freed = 31, .implicit = true,
				    .walks = FGT_WALKS_CALLS, .batches = 2 };
	char ev[256];

	/* begun without ACT_BEGIN while fgraphtop watched (a kernel without the
	 * ret_stack_list): its end is what was missed, not its start */
	assert_int_equal(verdict_of(&a, ev, sizeof(ev)), FGT_VERDICT_UNKNOWN);
	assert_non_null(strstr(ev, "(its end was not seen)"));
	a.joined = true;
	assert_int_equal(verdict_of(&a, ev, sizeof(ev)), FGT_VERDICT_UNKNOWN);
	assert_non_null(strstr(ev, "(fgraphtop started during it)"));
	a.implicit = a.joined = false;
	assert_int_equal(verdict_of(&a, ev, sizeof(ev)), FGT_VERDICT_UNKNOWN);
	assert_non_null(strstr(ev, "end was not seen"));
	a.complete = true;
	assert_int_equal(verdict_of(&a, ev, sizeof(ev)), FGT_VERDICT_NOT_FIXED);
	a.lost = 4;
	assert_int_equal(verdict_of(&a, NULL, 0), FGT_VERDICT_NOT_FIXED);
	verdict_of(&a, ev, sizeof(ev));
	assert_non_null(strstr(ev, "4 events lost"));
}

/* Walks that restart but served more than a batch each: neither code. */
static void test_unknown_shape(void **state)
{
	struct fgt_sweep s[2] = { { .batch = 64, .served = 64, .ret = -EAGAIN, .ret_known = true },
				  { .batch = 64, .served = 6, .freed = 58, .ret_known = true } };
	struct fgt_activation a = { .nr_sweeps = 2, .sweeps = s, .served = 70, .blocking = 128,
				    .freed = 58, .complete = true, .walks = FGT_WALKS_CALLS,
				    .batches = 2 };
	char ev[256];

	assert_int_equal(verdict_of(&a, ev, sizeof(ev)), FGT_VERDICT_UNKNOWN);
	assert_non_null(strstr(ev, "one serving more than a batch of 32 (a batch of up to 64)"));
}

/*
 * The shapes a fix can take, as records (docs/EVENTS.md, "Walks"): the
 * verdict from what the kernel did, its walks and what each served.
 */
static void test_shape_one_walk(void **state)
{
	/* every stack GFP_KERNEL before one walk, its call seen (direct) */
	struct fgt_sweep s = { .batch = 1032, .served = 1000, .freed = 32, .ret_known = true };
	struct fgt_activation a = { .nr_sweeps = 1, .sweeps = &s, .served = 1000,
				    .blocking = 1032, .freed = 32, .complete = true,
				    .walks = FGT_WALKS_CALLS, .batches = 1 };
	char ev[256];

	assert_int_equal(verdict_of(&a, ev, sizeof(ev)), FGT_VERDICT_FIXED);
	assert_string_equal(ev, "one walk served all 1000 threads from 1032 blocking "
			    "allocations, with no restart: linear");
	/* the same on the attributed path: 33 batches, nothing between them */
	a.walks = FGT_WALKS_UNSEEN, a.batches = 33, s.ret_known = false;
	assert_int_equal(verdict_of(&a, ev, sizeof(ev)), FGT_VERDICT_UNKNOWN);
	assert_string_equal(ev, "1000 threads served from blocking allocations in 33 batches "
			    "of at most 32, with no walk seen between them: the sweeps are not "
			    "observable here (every stack allocated before one walk looks so)");
}

static void test_shape_single_walk_no_reserve(void **state)
{
	/* GFP_NOWAIT inline, no reserve: 7 failures leave 7 threads without */
	struct fgt_sweep s = { .nonblocking = 993, .failed_nonblocking = 7, .served = 993 };
	struct fgt_activation a = { .nr_sweeps = 1, .sweeps = &s, .served = 993,
				    .nonblocking = 993, .failed_nonblocking = 7, .complete = true,
				    .walks = FGT_WALKS_INLINE, .batches = 1 };
	struct fgt_verdict_val v;
	char ev[256];

	fgt_verdict_judge(&a, &v);
	assert_int_equal(v.verdict, FGT_VERDICT_FIXED);
	assert_int_equal(v.left, 7);
	fgt_verdict_text(&v, ev, sizeof(ev));
	assert_string_equal(ev, "one sweep: 7 non-blocking allocations failed under memory "
			    "pressure, 7 threads left without a shadow stack; 993 threads served "
			    "(993 non-blocking, 0 from the reserve, 7 failed)");
}

static void test_shape_pinned(void **state)
{
	/* GFP_NOWAIT inline, one GFP_KERNEL allocation per failure: none left */
	struct fgt_sweep s = { .batch = 5, .nonblocking = 995, .failed_nonblocking = 5,
			       .served = 1000 };
	struct fgt_activation a = { .nr_sweeps = 1, .sweeps = &s, .served = 1000,
				    .blocking = 5, .nonblocking = 995, .failed_nonblocking = 5,
				    .complete = true, .walks = FGT_WALKS_INLINE, .batches = 6 };
	struct fgt_verdict_val v;

	fgt_verdict_judge(&a, &v);
	assert_int_equal(v.verdict, FGT_VERDICT_FIXED);
	assert_int_equal(v.left, 0);
	assert_int_equal(v.reserve, 5);
	assert_int_equal(v.extra_sweeps, 0);
}

static void test_names(void **state)
{
	assert_string_equal(fgt_verdict_name(FGT_VERDICT_FIXED), "fixed");
	assert_string_equal(fgt_verdict_name(FGT_VERDICT_NOT_FIXED), "not_fixed");
	assert_string_equal(fgt_verdict_name(FGT_VERDICT_NOT_AFFECTED), "not_affected");
	assert_string_equal(fgt_verdict_name(FGT_VERDICT_UNKNOWN), "inconclusive");
}

/* Judge several generated activations in order. */
static void judge_all(struct fgt_judge *j, const struct gen_cfg *cfgs, unsigned int n)
{
	unsigned int i;

	fgt_judge_init(j);
	for (i = 0; i < n; i++) {
		struct collect c;

		struct fgt_verdict_val v;

		collect_gen(&c, &cfgs[i]);
		fgt_verdict_judge(&c.acts[0], &v);
		fgt_judge_add(j, &v, &c.acts[0]);
		collect_fini(&c);
	}
}

static void test_judge(void **state)
{
	const struct gen_cfg fixed = { .fixed = true, .lacking = 100, .fail_nb = 2 };
	const struct gen_cfg fixed_big = { .fixed = true, .lacking = 5000 };
	const struct gen_cfg unfixed = { .lacking = 1000 };
	const struct gen_cfg idle = { .before = 100 };
	struct fgt_judge j;
	char ev[FGT_EVIDENCE_LEN];

	judge_all(&j, NULL, 0);
	assert_int_equal(j.verdict, FGT_VERDICT_UNKNOWN);
	assert_non_null(strstr(fgt_judge_text(&j, ev, sizeof(ev)), "no activation seen"));

	judge_all(&j, (struct gen_cfg[]){ idle, idle }, 2);
	assert_int_equal(j.verdict, FGT_VERDICT_UNKNOWN);
	assert_int_equal(j.n_inconclusive, 2);
	assert_non_null(strstr(fgt_judge_text(&j, ev, sizeof(ev)), "no thread lacked"));

	judge_all(&j, (struct gen_cfg[]){ idle, fixed, fixed_big, idle }, 4);
	assert_int_equal(j.verdict, FGT_VERDICT_FIXED);
	assert_int_equal(j.n_fixed, 2);
	assert_int_equal(j.failures, 2);
	/* the strongest evidence is quoted */
	assert_non_null(strstr(fgt_judge_text(&j, ev, sizeof(ev)), "one sweep served 5000 threads"));

	judge_all(&j, (struct gen_cfg[]){ fixed, unfixed, fixed_big }, 3);
	assert_int_equal(j.verdict, FGT_VERDICT_NOT_FIXED);
	assert_int_equal(j.n_fixed, 2);
	assert_int_equal(j.n_not_fixed, 1);
	assert_string_equal(fgt_judge_text(&j, ev, sizeof(ev)), "32 sweeps, each a GFP_KERNEL batch of at most 32, "
			    "served 1000 threads: the walk restarted per batch (the gaps between "
			    "the batches hold them) (conflicting: 2 activations looked fixed)");
	/* the quote is a value: the activation that served the most */
	assert_int_equal(j.quoted.verdict, FGT_VERDICT_NOT_FIXED);
	assert_int_equal(j.quoted.served, 1000);
	assert_int_equal(j.n, 3);
}

/* Which activation is quoted, told by fgt_judge_add's answer. */
static void test_judge_quotes(void **state)
{
	const struct gen_cfg cfgs[] = {
		{ .before = 10 }, { .lacking = 200 }, { .lacking = 160 }, { .lacking = 300 },
		{ .fixed = true, .lacking = 1000 },
	};
	const bool quoted[] = { true, true, false, true, false };
	struct fgt_judge j;

	fgt_judge_init(&j);
	for (unsigned int i = 0; i < 5; i++) {
		struct fgt_verdict_val v;
		struct collect c;

		collect_gen(&c, &cfgs[i]);
		fgt_verdict_judge(&c.acts[0], &v);
		assert_int_equal(fgt_judge_add(&j, &v, &c.acts[0]), quoted[i]);
		collect_fini(&c);
	}
	assert_int_equal(j.quoted.served, 300);
	assert_int_equal(j.n_not_fixed, 3);
	assert_int_equal(j.n_fixed, 1);
	assert_int_equal(j.n_inconclusive, 1);
}

/* The one verdict-to-status map (check, check --kernel and fgt-static use it). */
static void test_status(void **state)
{
	assert_int_equal(fgt_verdict_status(FGT_VERDICT_FIXED, false), FGT_CHECK_OK);
	assert_int_equal(fgt_verdict_status(FGT_VERDICT_FIXED, true), FGT_CHECK_WARNING);
	assert_int_equal(fgt_verdict_status(FGT_VERDICT_NOT_AFFECTED, false), FGT_CHECK_OK);
	assert_int_equal(fgt_verdict_status(FGT_VERDICT_NOT_AFFECTED, true), FGT_CHECK_WARNING);
	/* degraded never lightens a worse answer */
	assert_int_equal(fgt_verdict_status(FGT_VERDICT_NOT_FIXED, false), FGT_CHECK_CRITICAL);
	assert_int_equal(fgt_verdict_status(FGT_VERDICT_NOT_FIXED, true), FGT_CHECK_CRITICAL);
	assert_int_equal(fgt_verdict_status(FGT_VERDICT_UNKNOWN, true), FGT_CHECK_UNKNOWN);
	assert_int_equal(fgt_verdict_status((enum fgt_verdict)99, false), FGT_CHECK_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_not_fixed_many_sweeps),
		cmocka_unit_test(test_single_sweep),
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_fixed_degraded_text),
		cmocka_unit_test(test_fixed_degraded_value),
		cmocka_unit_test(test_fixed_all_inline_failed),
		cmocka_unit_test(test_nothing_served),
		cmocka_unit_test(test_incomplete),
		cmocka_unit_test(test_unknown_shape),
		cmocka_unit_test(test_shape_one_walk),
		cmocka_unit_test(test_shape_single_walk_no_reserve),
		cmocka_unit_test(test_shape_pinned),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_judge_quotes),
	};

	return cmocka_run_group_tests_name("verdict", tests, NULL, NULL);
}
