// SPDX-License-Identifier: GPL-2.0
/*
 * The unfixed-walk model (src/model/exposure_model.c) against a literal copy of the
 * kernel's loop, the figures the lab and the series measured, and the cost
 * calibration rules.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "model/exposure_model.h"

/* The unfixed alloc_retstack_tasklist() loop, run until it returns 0. */
static void kernel_walk(const bool *lacking, size_t n, uint64_t *sweeps, uint64_t *visits)
{
	bool *has = calloc(n ? n : 1, sizeof(*has));
	size_t i;
	int start, ret;

	assert_non_null(has);
	for (i = 0; i < n; i++)
		has[i] = !lacking[i];
	*sweeps = *visits = 0;
	do {
		(*sweeps)++;
		start = 0;
		ret = 0;
		for (i = 0; i < n; i++) {
			(*visits)++;
			if (start == FGT_RETSTACK_BATCH) {
				ret = -EAGAIN;
				break;
			}
			if (!has[i]) {
				has[i] = true;
				start++;
			}
		}
	} while (ret == -EAGAIN);
	free(has);
}

static void model_walk(const bool *lacking, size_t n, struct fgt_exp_walk *w)
{
	size_t i;

	fgt_exp_walk_init(w);
	for (i = 0; i < n; i++)
		fgt_exp_walk_step(w, lacking[i]);
	fgt_exp_walk_end(w);
}

static void expect_kernel(const bool *lacking, size_t n)
{
	uint64_t sweeps, visits, u = 0;
	struct fgt_exp_walk w;
	size_t i;

	kernel_walk(lacking, n, &sweeps, &visits);
	model_walk(lacking, n, &w);
	for (i = 0; i < n; i++)
		u += lacking[i];
	assert_int_equal(w.threads, n);
	assert_int_equal(w.lacking, u);
	assert_int_equal(w.sweeps, sweeps);
	assert_int_equal(w.visits, visits);
}

/* Lacking threads first: the step model, the closed form and the kernel's
 * loop agree, at and around every batch boundary. */
static void test_lacking_first(void **state)
{
	static const size_t us[] = { 0, 1, 31, 32, 33, 63, 64, 65, 96, 97 };
	bool v[300];
	size_t t, k, i;

	for (t = 0; t <= 260; t++) {
		for (k = 0; k < sizeof(us) / sizeof(us[0]) + 2; k++) {
			size_t u = k < sizeof(us) / sizeof(us[0]) ? us[k] : k == 10 ? t / 2 : t;
			struct fgt_exp_walk w, c;

			if (u > t)
				continue;
			for (i = 0; i < t; i++)
				v[i] = i < u;
			expect_kernel(v, t);
			model_walk(v, t, &w);
			fgt_exp_walk_lacking_first(t, u, &c);
			assert_int_equal(c.threads, w.threads);
			assert_int_equal(c.lacking, w.lacking);
			assert_int_equal(c.sweeps, w.sweeps);
			assert_int_equal(c.visits, w.visits);
		}
	}
}

/* Any order at all: the model is the kernel's loop. */
static void test_any_order(void **state)
{
	bool v[700];
	unsigned int seed = 16;
	int round;
	size_t n, i;

	for (round = 0; round < 400; round++) {
		int permille = round % 10 * 100 + 50;

		n = rand_r(&seed) % 700;
		for (i = 0; i < n; i++)
			v[i] = (int)(rand_r(&seed) % 1000) < permille;
		expect_kernel(v, n);
	}
}

/* What the lab and the series saw, first activation after boot (every thread
 * lacking): README's 1,067 threads -> 34 sweeps, 10,048 -> 314, 100,045 -> 3,127
 * (FACTS.md); the series' 400,000 threads, 227 s. */
static void test_known_figures(void **state)
{
	struct fgt_exp_estimate e;
	struct fgt_exp_walk w;

	fgt_exp_walk_lacking_first(1067, 1067, &w);
	assert_int_equal(w.sweeps, 34);
	fgt_exp_walk_lacking_first(10048, 10048, &w);
	assert_int_equal(w.sweeps, 314);
	assert_int_equal(w.visits, 32ull * 313 * 314 / 2 + 313 + 10048);
	fgt_exp_walk_lacking_first(100045, 100045, &w);
	assert_int_equal(w.sweeps, 3127);
	fgt_exp_walk_lacking_first(400000, 400000, &w);
	assert_int_equal(w.sweeps, 12500);
	assert_int_equal(w.visits, 2500212499ull);
	assert_int_equal(fgt_exp_estimate(&w, NULL, &e), 0);
	assert_int_equal(e.src, FGT_EXP_COST_DEFAULT);
	assert_true(e.seconds > 226.9 && e.seconds < 227.1);
	/* U^2/64, as the series put it, within a tenth of a percent */
	assert_true(w.visits > 400000.0 * 400000 / 64 && w.visits < 400000.0 * 400000 / 64 * 1.001);
}

/* After an activation every old thread holds a stack and is walked again by
 * every sweep: 1,000 new threads behind 10,000 old ones cost twelve times
 * what U^2/64 says. */
static void test_old_threads_ahead(void **state)
{
	struct fgt_exp_walk w, first;
	size_t i;

	fgt_exp_walk_init(&w);
	for (i = 0; i < 11000; i++)
		fgt_exp_walk_step(&w, i >= 10000);
	fgt_exp_walk_end(&w);
	assert_int_equal(w.lacking, 1000);
	assert_int_equal(w.sweeps, 32);
	assert_int_equal(w.visits, 31ull * 10001 + 32ull * 31 * 32 / 2 + 11000);
	fgt_exp_walk_lacking_first(11000, 1000, &first);
	assert_int_equal(first.sweeps, w.sweeps);
	assert_true(w.visits > 12 * first.visits);
}

/* No thread lacking: one sweep over everything, as on a fixed kernel. */
static void test_nothing_lacking(void **state)
{
	struct fgt_exp_walk w;
	int i;

	fgt_exp_walk_init(&w);
	for (i = 0; i < 500; i++)
		fgt_exp_walk_step(&w, false);
	fgt_exp_walk_end(&w);
	assert_int_equal(w.sweeps, 1);
	assert_int_equal(w.visits, 500);
	fgt_exp_walk_lacking_first(500, 0, &w);
	assert_int_equal(w.sweeps, 1);
	assert_int_equal(w.visits, 500);
	fgt_exp_walk_lacking_first(10, 50, &w);	/* more lacking than threads: clamped */
	assert_int_equal(w.lacking, 10);
	assert_int_equal(w.sweeps, 1);
}

static struct fgt_exp_rec rec(__u64 leader, __u32 tgid, __u64 start, __u32 tid, bool lacking)
{
	return (struct fgt_exp_rec){ .leader_start_ns = leader, .tgid = tgid, .start_ns = start,
				     .tid = tid, .lacking = lacking };
}

/* The iterator yields TID order; the walk is processes by creation, then
 * their threads by creation. A thread created late in an old process has a
 * high TID but is walked with its process. */
static void test_records_order(void **state)
{
	struct fgt_exp_rec r[4];
	struct fgt_exp_walk w;

	r[0] = rec(100, 10, 100, 10, false);	/* old process, its leader */
	r[1] = rec(200, 20, 200, 20, false);	/* a newer process */
	r[2] = rec(100, 10, 900, 500, true);	/* old process, new thread */
	r[3] = rec(200, 20, 950, 501, true);
	fgt_exp_walk_from_records(r, 4, &w);
	assert_int_equal(r[0].tid, 10);
	assert_int_equal(r[1].tid, 500);
	assert_int_equal(r[2].tid, 20);
	assert_int_equal(r[3].tid, 501);
	assert_int_equal(w.threads, 4);
	assert_int_equal(w.lacking, 2);
	fgt_exp_walk_from_records(r, 0, &w);	/* no tasks at all */
	assert_int_equal(w.threads, 0);
	assert_int_equal(w.sweeps, 1);
}

/*
 * The threads a walk joined under way owes, followed by identity. The
 * lab's bpftrace rows counted processes the shell forked after bpftrace
 * stopped (fgraph off: no stack from fork) as left unserved.
 */
static void test_owed(void **state)
{
	struct fgt_exp_rec r[6];
	struct fgt_exp_owed o;

	r[0] = rec(100, 10, 100, 10, false);	/* served before the join */
	r[1] = rec(200, 20, 200, 20, true);	/* owed: will be served */
	r[2] = rec(300, 30, 300, 30, true);	/* owed: will exit */
	r[3] = rec(400, 40, 400, 40, true);	/* owed: still lacking */
	assert_int_equal(fgt_exp_owed_take(&o, r, 4), 0);
	assert_int_equal(o.n, 3);
	assert_int_equal(fgt_exp_owed_lacking(&o, r, 4), 3);
	/* later: 20 served, 30 gone, 40 still lacking; 50 forked while fgraph
	 * was on (a stack from fork), 60 after it went off (none); and TID 30
	 * again, a new task with another start: not the one owed */
	r[1].lacking = false;
	r[2] = rec(600, 30, 600, 30, true);
	r[4] = rec(500, 50, 500, 50, false);
	r[5] = rec(700, 60, 700, 60, true);
	assert_int_equal(fgt_exp_owed_lacking(&o, r, 6), 1);
	fgt_exp_owed_free(&o);
	/* nothing lacking: nothing owed, nothing allocated */
	assert_int_equal(fgt_exp_owed_take(&o, r, 1), 0);
	assert_int_equal(o.n, 0);
	assert_null(o.k);
	assert_int_equal(fgt_exp_owed_lacking(&o, r, 6), 0);
	/* the same owed thread in every record (tests/fuzz/fuzz_bpfdata.c's
	 * find): counted once, never more than were owed */
	assert_int_equal(fgt_exp_owed_take(&o, r + 3, 1), 0);
	for (int i = 0; i < 6; i++)
		r[i] = rec(400, 40, 400, 40, true);
	assert_int_equal(fgt_exp_owed_lacking(&o, r, 6), 1);
	fgt_exp_owed_free(&o);
	(void)state;
}

/* Order changes the cost: 64 lacking threads of an old process created after
 * 3,000 threads of newer ones, walked before or after those. */
static void test_records_order_matters(void **state)
{
	struct fgt_exp_rec *r = calloc(3064, sizeof(*r));
	struct fgt_exp_walk in_list, in_tids;
	bool v[3064];
	int i;

	assert_non_null(r);
	for (i = 0; i < 3000; i++)	/* newer processes, one thread each, with stacks */
		r[i] = rec(1000 + i, 100 + i, 1000 + i, 100 + i, false);
	for (i = 0; i < 64; i++)	/* the old process's new threads: high TIDs */
		r[3000 + i] = rec(1, 1, 5000 + i, 5000 + i, true);
	for (i = 0; i < 3064; i++)
		v[i] = r[i].lacking;	/* TID order, as the iterator yields them */
	model_walk(v, 3064, &in_tids);
	fgt_exp_walk_from_records(r, 3064, &in_list);
	assert_int_equal(in_list.sweeps, 3);
	assert_int_equal(in_list.visits, 33 + 65 + 3064);	/* the lacking are walked first */
	/* behind them: the second batch ends on the last thread, one sweep fewer */
	assert_int_equal(in_tids.sweeps, 2);
	assert_int_equal(in_tids.visits, 3033 + 3064);
	free(r);
}

/* Observed walks calibrate only when unfixed (2+ sweeps) and long enough. */
static void test_calibration(void **state)
{
	struct fgt_exp_walk w;
	struct fgt_exp_estimate e;
	/* README's lab-stock activation: 314 sweeps over 10,048 threads, walk 256.038 ms */
	struct fgt_exp_calib lab = { .sweeps = 314, .walk_ns = 256038000,
				      .visits = 32ull * 313 * 314 / 2 + 313 + 10048 };
	struct fgt_exp_calib fixed = { .sweeps = 1, .walk_ns = 144700000, .visits = 10050 };
	struct fgt_exp_calib short_walk = { .sweeps = 4, .walk_ns = 90000, .visits = 9999 };
	struct fgt_exp_calib no_time = { .sweeps = 314, .walk_ns = 0, .visits = 1582873 };

	fgt_exp_walk_lacking_first(400000, 400000, &w);
	assert_int_equal(fgt_exp_estimate(&w, &lab, &e), 0);
	assert_int_equal(e.src, FGT_EXP_COST_OBSERVED);
	assert_true(e.ns_per_visit > 161.7 && e.ns_per_visit < 161.8);
	assert_true(e.seconds > 404 && e.seconds < 405);
	assert_string_equal(fgt_exp_cost_src_name(e.src), "observed");
	/* what the price was taken over, for a reader to check it against */
	assert_int_equal(e.calib_visits, lab.visits);

	assert_int_equal(fgt_exp_estimate(&w, &fixed, &e), 0);
	assert_int_equal(e.src, FGT_EXP_COST_DEFAULT);
	assert_int_equal(e.calib_visits, 0);
	assert_true(e.ns_per_visit == FGT_EXP_VISIT_NS_DEFAULT);
	assert_string_equal(fgt_exp_cost_src_name(e.src), "default");
	assert_int_equal(fgt_exp_estimate(&w, &short_walk, &e), 0);
	assert_int_equal(e.src, FGT_EXP_COST_DEFAULT);
	assert_int_equal(fgt_exp_estimate(&w, &no_time, &e), 0);
	assert_int_equal(e.src, FGT_EXP_COST_DEFAULT);

	assert_int_equal(fgt_exp_estimate(NULL, NULL, &e), -EINVAL);
	assert_int_equal(fgt_exp_estimate(&w, NULL, NULL), -EINVAL);
}

static void test_text(void **state)
{
	struct fgt_exp_estimate e;
	struct fgt_exp_walk w;
	char buf[200];

	fgt_exp_walk_lacking_first(400000, 400000, &w);
	fgt_exp_estimate(&w, NULL, &e);
	fgt_exp_estimate_text(&w, &e, buf, sizeof(buf));
	assert_string_equal(buf, "12500 sweeps, 2500212499 thread visits, about 227 s at "
			    "90.8 ns a visit (the series' figure)");
	e.src = FGT_EXP_COST_OBSERVED;
	fgt_exp_estimate_text(&w, &e, buf, sizeof(buf));
	assert_non_null(strstr(buf, "(observed on this host)"));
}

/* The live view's exposure: an idle scan between two activations models the
 * second's visits; scans during one, or before the one before, do not. */
static void test_live(void **state)
{
	struct fgt_exp_live l = { 0 };
	struct fgt_exp_estimate e;
	struct fgt_exp_walk idle, busy;
	const uint64_t s = 1000000000ull;

	assert_int_equal(fgt_exp_live_estimate(&l, &e), -ENODATA);

	/* 10,048 threads all lacking, as the README's lab-stock activation */
	fgt_exp_walk_lacking_first(10048, 10048, &idle);
	fgt_exp_live_scan(&l, &idle, 10 * s, false);
	assert_int_equal(fgt_exp_live_estimate(&l, &e), 0);
	assert_int_equal(e.src, FGT_EXP_COST_DEFAULT);
	assert_true(e.seconds == idle.visits * FGT_EXP_VISIT_NS_DEFAULT / 1e9);

	/* a scan during it: shown, but it is no activation's U */
	fgt_exp_walk_lacking_first(10048, 5000, &busy);
	fgt_exp_live_scan(&l, &busy, 11 * s, true);
	assert_int_equal(l.now.lacking, 5000);
	assert_int_equal(l.idle.lacking, 10048);

	/* it ends: 314 sweeps, walk 256.038 ms over the idle scan's visits */
	fgt_exp_live_activation(&l, 10 * s + 1, 314, 256038000, 10048, 10048);
	assert_int_equal(l.calib.visits, idle.visits);
	fgt_exp_walk_lacking_first(400000, 400000, &idle);
	fgt_exp_live_scan(&l, &idle, 20 * s, false);
	assert_int_equal(fgt_exp_live_estimate(&l, &e), 0);
	assert_int_equal(e.src, FGT_EXP_COST_OBSERVED);
	assert_true(e.ns_per_visit > 161.7 && e.ns_per_visit < 161.8);

	/* a fixed kernel's single sweep prices nothing: the last unfixed stays */
	fgt_exp_live_activation(&l, 21 * s, 1, 144700000, 10050, 10050);
	assert_int_equal(fgt_exp_live_estimate(&l, &e), 0);
	assert_true(e.ns_per_visit > 161.7 && e.ns_per_visit < 161.8);

	/* no idle scan since the last activation (the one at 20 s is before
	 * 21 s's): the fewest visits 40 sweeps over 1,280 threads can make */
	fgt_exp_live_activation(&l, 30 * s, 40, 8000000, 1280, 1280);
	fgt_exp_walk_lacking_first(1280, 1280, &idle);
	assert_int_equal(l.calib.visits, idle.visits);
	assert_int_equal(l.calib_ns, 30 * s);
	assert_int_equal(fgt_exp_live_estimate(&l, &e), 0);
	assert_true(e.ns_per_visit == 8000000.0 / idle.visits);

	/* an idle scan before the next one, and one taken after it began but
	 * before its first record was read (not known busy): the one before
	 * models it, not the fallback */
	fgt_exp_walk_lacking_first(1048, 1048, &idle);
	fgt_exp_live_scan(&l, &idle, 40 * s, false);
	fgt_exp_walk_lacking_first(1047, 1047, &busy);
	fgt_exp_live_scan(&l, &busy, 41 * s + 2, false);
	fgt_exp_live_activation(&l, 41 * s, 33, 3210125, 1047, 1047);
	assert_int_equal(l.calib.visits, idle.visits);
	assert_true(idle.visits != busy.visits);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lacking_first),
		cmocka_unit_test(test_any_order),
		cmocka_unit_test(test_known_figures),
		cmocka_unit_test(test_old_threads_ahead),
		cmocka_unit_test(test_nothing_lacking),
		cmocka_unit_test(test_records_order),
		cmocka_unit_test(test_records_order_matters),
		cmocka_unit_test(test_owed),
		cmocka_unit_test(test_calibration),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests_name("exposure_model", tests, NULL, NULL);
}
