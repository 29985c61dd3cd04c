// SPDX-License-Identifier: GPL-2.0
/*
 * The assembler over synthetic kernel runs (tests/lib/gen.c simulates both
 * versions of alloc_retstack_tasklist) and over recorded sequences
 * (the .events files in tests/data, with their EXPECT lines).
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "lib/collect.h"
#include "lib/events.h"
#include "model/verdict.h"

/* |x - y| <= tol */
static void assert_near(uint64_t x, uint64_t y, uint64_t tol)
{
	assert_true(x <= y + tol && y <= x + tol);
}

/*
 * Both paths over the same simulated run; asserts their records agree: every
 * count and the latency histogram exactly; times within one allocation per
 * sweep (the attributed path cannot see when a later sweep's first allocation
 * began: its walk is not observable).
 */
static void run_both(const struct gen_cfg *cfg, struct collect *c)
{
	struct gen_cfg g = *cfg;
	struct collect d;
	unsigned int i;

	g.direct = true;
	collect_gen(&d, &g);
	g.direct = false;
	collect_gen(c, &g);
	assert_int_equal(d.n, c->n);
	for (i = 0; i < c->n; i++) {
		struct fgt_activation x = d.acts[i], y = c->acts[i];
		uint64_t tol = 300ull * x.nr_sweeps;
		uint32_t s;

		assert_int_equal(x.src, FGT_SRC_DIRECT);
		assert_int_equal(y.src, FGT_SRC_ATTRIBUTED);
		assert_int_equal(x.walks, x.nr_sweeps ? FGT_WALKS_CALLS : FGT_WALKS_NONE);
		assert_int_equal(x.batches, x.nr_sweeps);
		if (y.walks == FGT_WALKS_UNSEEN) {
			/* no walk shows between the batches: one run, the same counts */
			assert_int_equal(y.nr_sweeps, 1);
			assert_int_equal(y.batches, x.nr_sweeps);
			assert_int_equal(y.served, x.served);
			assert_int_equal(y.blocking, x.blocking);
			assert_int_equal(y.freed, x.freed);
			assert_int_equal(y.failed_blocking, x.failed_blocking);
			assert_int_equal(y.nonblocking + y.failed_nonblocking, 0);
			assert_int_equal(y.sweeps[0].ret, x.sweeps[x.nr_sweeps - 1].ret);
			assert_near(x.alloc_ns + x.walk_ns, y.alloc_ns + y.walk_ns, tol);
			continue;
		}
		x.walks = y.walks;
		x.batches = y.batches;
		assert_int_equal(x.nr_sweeps, y.nr_sweeps);
		for (s = 0; s < x.nr_sweeps; s++) {
			struct fgt_sweep xs = x.sweeps[s], ys = y.sweeps[s];

			assert_true(xs.ret_known);
			assert_false(ys.ret_known);
			assert_near(xs.begin_ns, ys.begin_ns, 300);
			assert_near(xs.end_ns, ys.end_ns, 300);
			assert_near(xs.alloc_ns, ys.alloc_ns, 300);
			assert_near(xs.walk_ns, ys.walk_ns, 600);
			xs.ret_known = ys.ret_known;
			xs.begin_ns = ys.begin_ns;
			xs.end_ns = ys.end_ns;
			xs.alloc_ns = ys.alloc_ns;
			xs.walk_ns = ys.walk_ns;
			assert_memory_equal(&xs, &ys, sizeof(xs));
		}
		assert_near(x.alloc_ns, y.alloc_ns, tol);
		assert_near(x.walk_ns, y.walk_ns, 2 * tol);
		x.src = y.src;
		x.alloc_ns = y.alloc_ns;
		x.walk_ns = y.walk_ns;
		x.sweeps = y.sweeps = NULL;
		assert_memory_equal(&x, &y, sizeof(x));
	}
	collect_fini(&d);
}

static void check_sums(const struct fgt_activation *a)
{
	uint64_t served = 0, walk = 0, alloc = 0;
	uint32_t i;

	for (i = 0; i < a->nr_sweeps; i++) {
		served += a->sweeps[i].served;
		walk += a->sweeps[i].walk_ns;
		alloc += a->sweeps[i].alloc_ns;
	}
	assert_int_equal(served, a->served);
	assert_int_equal(walk, a->walk_ns);
	assert_int_equal(alloc, a->alloc_ns);
	assert_int_equal(a->served, a->blocking + a->nonblocking - a->freed);
}

/* U unfixed: ceil(U/32) sweeps of 32, the last one U mod 32 (or 32). */
static void unfixed(unsigned int u, unsigned int sweeps, unsigned int last)
{
	struct gen_cfg cfg = { .lacking = u, .idle_cpus = 2, .ts0 = 1000000 };
	struct collect c;
	const struct fgt_activation *a;
	char ev[256];
	uint32_t i;

	run_both(&cfg, &c);
	assert_int_equal(c.n, 1);
	a = &c.acts[0];
	assert_true(a->complete);
	assert_false(a->implicit);
	if (sweeps == 1) {
		/* one walk of at most a batch: the same on both kernels */
		assert_int_equal(a->walks, FGT_WALKS_ONE);
		assert_int_equal(a->sweeps[0].served, last);
		assert_int_equal(verdict_of(a, ev, sizeof(ev)), FGT_VERDICT_UNKNOWN);
		assert_string_equal(ev, "one walk served 8 threads, at most a batch of 32: no restart "
				    "was needed, fixed and unfixed kernels behave alike");
		collect_fini(&c);
		return;
	}
	if (sweeps <= 3) {
		/* too few gaps between batches to see walks grow: not observable */
		assert_int_equal(a->walks, FGT_WALKS_UNSEEN);
		assert_int_equal(a->nr_sweeps, 1);
		assert_int_equal(a->batches, sweeps);
		assert_int_equal(a->served, u);
		assert_int_equal(a->sweeps[0].ret, 0);
		assert_int_equal(verdict_of(a, ev, sizeof(ev)), FGT_VERDICT_UNKNOWN);
		collect_fini(&c);
		return;
	}
	assert_int_equal(a->walks, FGT_WALKS_GAPS);
	assert_int_equal(a->batches, sweeps);
	assert_int_equal(a->nr_sweeps, sweeps);
	for (i = 0; i + 1 < sweeps; i++) {
		assert_int_equal(a->sweeps[i].served, 32);
		assert_int_equal(a->sweeps[i].batch, 32);
		assert_int_equal(a->sweeps[i].freed, 0);
		assert_int_equal(a->sweeps[i].ret, -EAGAIN);
	}
	assert_int_equal(a->sweeps[sweeps - 1].served, last);
	assert_int_equal(a->sweeps[sweeps - 1].freed, 32 - last);
	assert_int_equal(a->sweeps[sweeps - 1].ret, 0);
	assert_int_equal(a->served, u);
	assert_int_equal(a->nonblocking + a->failed_nonblocking, 0);
	assert_int_equal(a->ret, 0);
	/* idle allocs are not sweep path; a later sweep's first alloc is no sample */
	assert_int_equal(a->lat.count, 32 * sweeps - (sweeps - 1));
	assert_int_equal(a->lat.min, 300);
	assert_int_equal(a->lat.max, 300);
	check_sums(a);
	assert_int_equal(fgt_assembler_fork(c.a)->idle_allocs, 2);
	assert_int_equal(verdict_of(a, ev, sizeof(ev)), FGT_VERDICT_NOT_FIXED);
	collect_fini(&c);
}

static void test_unfixed_1000(void **state)
{
	unfixed(1000, 32, 8);
}

static void test_unfixed_10000(void **state)
{
	unfixed(10000, 313, 16);
}

static void test_unfixed_small(void **state)
{
	unfixed(8, 1, 8);
	unfixed(64, 2, 32);	/* the last thread is served: no extra sweep */
	unfixed(160, 5, 32);	/* the fewest batches whose gaps show walks growing */
}

/* U fixed, K injected inline failures: 1 + floor(K/33) sweeps. */
static void fixed(unsigned int u, unsigned int k, unsigned int sweeps)
{
	struct gen_cfg cfg = { .fixed = true, .lacking = u, .fail_nb = k, .ts0 = 5000 };
	struct collect c;
	const struct fgt_activation *a;
	uint64_t reserve_used = 0;
	char ev[256];
	uint32_t i;

	run_both(&cfg, &c);
	assert_int_equal(c.n, 1);
	a = &c.acts[0];
	assert_int_equal(a->nr_sweeps, sweeps);
	assert_int_equal(a->served, u);
	assert_int_equal(a->failed_nonblocking, k);
	assert_int_equal(a->failed_blocking, 0);
	for (i = 0; i + 1 < sweeps; i++) {
		/* a sweep ends when its 33rd failure finds the reserve empty */
		assert_int_equal(a->sweeps[i].failed_nonblocking, 33);
		assert_int_equal(a->sweeps[i].freed, 0);
		assert_int_equal(a->sweeps[i].ret, -EAGAIN);
	}
	assert_int_equal(a->sweeps[sweeps - 1].failed_nonblocking, k - 33 * (sweeps - 1));
	assert_int_equal(a->sweeps[sweeps - 1].freed, 32 - (k - 33 * (sweeps - 1)));
	assert_int_equal(a->sweeps[sweeps - 1].ret, 0);
	for (i = 0; i < sweeps; i++) {
		assert_int_equal(a->sweeps[i].batch, 32);
		reserve_used += a->sweeps[i].batch - a->sweeps[i].freed;
	}
	/* every failure but the ones that ended a sweep was covered by the reserve */
	assert_int_equal(reserve_used, k - (sweeps - 1));
	assert_int_equal(a->nonblocking, u - reserve_used);
	check_sums(a);
	assert_int_equal(verdict_of(a, ev, sizeof(ev)), FGT_VERDICT_FIXED);
	collect_fini(&c);
}

static void test_fixed_no_failure(void **state)
{
	fixed(10000, 0, 1);
}

static void test_fixed_failures(void **state)
{
	fixed(10000, 32, 1);
	fixed(10000, 33, 2);
	fixed(10000, 100, 4);
	fixed(10000, 66, 3);
}

/*
 * lab-fixed-plus under persistent pressure: U = 1000, the first K = 500
 * inline allocations fail. Worked by hand from lab/patches/fix-plus: reserves
 * 32, 64, 128, 256 are each used up and their next failure says -EAGAIN
 * (33 + 65 + 129 + 257 = 484 failures, 480 threads from the reserves); the
 * fifth reserve is 512 (256 < 1000 / 2), its walk covers the last 16
 * failures and allocates the other 504 threads inline, freeing 496. The
 * fixed series would take 1 + floor(500 / 33) = 16 sweeps.
 */
static void test_fixed_plus_grows(void **state)
{
	struct gen_cfg cfg = { .fixed = true, .grow = true, .lacking = 1000, .fail_nb = 500,
			       .ts0 = 5000 };
	static const unsigned int batch[] = { 32, 64, 128, 256, 512 };
	static const unsigned int served[] = { 32, 64, 128, 256, 520 };
	static const unsigned int failed[] = { 33, 65, 129, 257, 16 };
	struct collect c;
	const struct fgt_activation *a;
	uint32_t i;

	run_both(&cfg, &c);
	assert_int_equal(c.n, 1);
	a = &c.acts[0];
	assert_true(a->complete);
	assert_int_equal(a->nr_sweeps, 5);
	for (i = 0; i < 5; i++) {
		assert_int_equal(a->sweeps[i].batch, batch[i]);
		assert_int_equal(a->sweeps[i].served, served[i]);
		assert_int_equal(a->sweeps[i].failed_nonblocking, failed[i]);
		assert_int_equal(a->sweeps[i].ret, i < 4 ? -EAGAIN : 0);
	}
	assert_int_equal(a->sweeps[4].freed, 496);
	assert_int_equal(a->served, 1000);
	assert_int_equal(a->blocking, 992);
	assert_int_equal(a->nonblocking, 504);
	assert_int_equal(a->failed_nonblocking, 500);
	check_sums(a);
	assert_int_equal(verdict_of(a, NULL, 0), FGT_VERDICT_FIXED);
	collect_fini(&c);
	/* the same pressure on the series: 16 sweeps of a 32-stack reserve */
	cfg.grow = false;
	run_both(&cfg, &c);
	assert_int_equal(c.acts[0].nr_sweeps, 16);
	assert_int_equal(c.acts[0].served, 1000);
	assert_int_equal(c.acts[0].blocking, 16 * 32);
	collect_fini(&c);
}

static void test_fixed_spread_failures(void **state)
{
	/* failslab interval 7: failures spread through the walk, same counts */
	struct gen_cfg cfg = { .fixed = true, .lacking = 1000, .fail_nb = 40,
			       .fail_interval = 7 };
	struct collect c;

	run_both(&cfg, &c);
	assert_int_equal(c.acts[0].nr_sweeps, 2);
	assert_int_equal(c.acts[0].served, 1000);
	assert_int_equal(c.acts[0].sweeps[0].failed_nonblocking, 33);
	assert_int_equal(c.acts[0].sweeps[1].failed_nonblocking, 7);
	collect_fini(&c);
}

/* A thread after the last one served: the unfixed walk says -EAGAIN once more. */
static void test_unfixed_extra_empty_sweep(void **state)
{
	struct gen_cfg cfg = { .lacking = 128, .after = 5 };
	struct collect c;
	const struct fgt_activation *a;

	run_both(&cfg, &c);
	a = &c.acts[0];
	assert_int_equal(a->walks, FGT_WALKS_GAPS);
	assert_int_equal(a->nr_sweeps, 5);
	assert_int_equal(a->sweeps[3].served, 32);
	assert_int_equal(a->sweeps[3].ret, -EAGAIN);
	assert_int_equal(a->sweeps[4].served, 0);
	assert_int_equal(a->sweeps[4].freed, 32);
	assert_int_equal(a->served, 128);
	assert_int_equal(verdict_of(a, NULL, 0), FGT_VERDICT_NOT_FIXED);
	collect_fini(&c);
	/* two batches: one gap between them, no growth to see */
	cfg.lacking = 64;
	run_both(&cfg, &c);
	a = &c.acts[0];
	assert_int_equal(a->walks, FGT_WALKS_UNSEEN);
	assert_int_equal(a->nr_sweeps, 1);
	assert_int_equal(a->batches, 3);
	assert_int_equal(a->served, 64);
	assert_int_equal(a->freed, 32);
	assert_int_equal(verdict_of(a, NULL, 0), FGT_VERDICT_UNKNOWN);
	collect_fini(&c);
}

/*
 * The shapes a fix can take (tests/lib/gen.c, lab/patches/shape-*), on both
 * paths. They drop the ret_stack_list, so the attributed path sees no
 * bracket: check --trigger ends the activation when its system call
 * returns (fgt_assembler_end()); the kernel's stacks have their own cache,
 * so every FREE is one of them (fgt_assembler_trust_frees()).
 */
static void shape_run(const struct gen_cfg *cfg, struct collect *dir, struct collect *att)
{
	struct gen_cfg g = *cfg;

	g.direct = true;
	collect_gen(dir, &g);
	assert_int_equal(dir->n, 1);
	assert_true(dir->acts[0].complete);
	g.direct = false;
	collect_init(att);
	fgt_assembler_trust_frees(att->a, true);
	gen_activation(&g, collect_feed, att);
	assert_int_equal(att->n, 0);		/* no ACT_END: still under way */
	assert_true(fgt_assembler_current(att->a)->implicit);
	fgt_assembler_end(att->a, 0);
	assert_int_equal(att->n, 1);
	assert_true(att->acts[0].complete);
	assert_false(att->acts[0].implicit);
	assert_null(fgt_assembler_current(att->a));
}

static void test_shape_blocking(void **state)
{
	/* 1,000 lacking: 1,032 GFP_KERNEL stacks, one walk, 32 freed */
	struct gen_cfg cfg = { .shape = GEN_BLOCKING, .lacking = 1000, .after = 20 };
	struct collect d, a;
	char ev[FGT_EVIDENCE_LEN];

	shape_run(&cfg, &d, &a);
	/* direct: one call seen, serving all: linear */
	assert_int_equal(d.acts[0].walks, FGT_WALKS_CALLS);
	assert_int_equal(d.acts[0].nr_sweeps, 1);
	assert_int_equal(d.acts[0].blocking, 1032);
	assert_int_equal(d.acts[0].freed, 32);
	assert_int_equal(d.acts[0].served, 1000);
	assert_int_equal(verdict_of(&d.acts[0], ev, sizeof(ev)), FGT_VERDICT_FIXED);
	assert_string_equal(ev, "one walk served all 1000 threads from 1032 blocking "
			    "allocations, with no restart: linear");
	/* attributed: 33 batches back to back, no walk between them */
	assert_int_equal(a.acts[0].walks, FGT_WALKS_UNSEEN);
	assert_int_equal(a.acts[0].batches, 33);
	assert_int_equal(a.acts[0].nr_sweeps, 1);
	assert_int_equal(a.acts[0].blocking, 1032);
	assert_int_equal(a.acts[0].freed, 32);
	assert_int_equal(a.acts[0].served, 1000);
	assert_int_equal(a.acts[0].sweeps[0].served, 1000);
	assert_int_equal(verdict_of(&a.acts[0], ev, sizeof(ev)), FGT_VERDICT_UNKNOWN);
	assert_non_null(strstr(ev, "the sweeps are not observable here"));
	collect_fini(&d);
	collect_fini(&a);
}

static void test_shape_single(void **state)
{
	/* one walk, GFP_NOWAIT, no reserve: 9 failures, 9 threads without */
	struct gen_cfg cfg = { .shape = GEN_SINGLE, .lacking = 1000, .fail_nb = 9,
			       .fail_interval = 50 };
	struct collect d, a;
	struct fgt_verdict_val v;

	shape_run(&cfg, &d, &a);
	for (int p = 0; p < 2; p++) {
		const struct fgt_activation *x = p ? &a.acts[0] : &d.acts[0];

		assert_int_equal(x->walks, p ? FGT_WALKS_INLINE : FGT_WALKS_CALLS);
		assert_int_equal(x->nr_sweeps, 1);
		assert_int_equal(x->served, 991);
		assert_int_equal(x->nonblocking, 991);
		assert_int_equal(x->failed_nonblocking, 9);
		assert_int_equal(x->blocking, 0);
		fgt_verdict_judge(x, &v);
		assert_int_equal(v.verdict, FGT_VERDICT_FIXED);
		assert_int_equal(v.left, 9);
	}
	collect_fini(&d);
	collect_fini(&a);
}

static void test_shape_pinned(void **state)
{
	/* GFP_NOWAIT, and for each of 40 failures one GFP_KERNEL allocation with
	 * the walk going on: one walk, every thread served */
	struct gen_cfg cfg = { .shape = GEN_PINNED, .lacking = 1000, .fail_nb = 40,
			       .fail_interval = 20 };
	struct collect d, a;
	struct fgt_verdict_val v;

	shape_run(&cfg, &d, &a);
	assert_int_equal(a.acts[0].batches, 41);	/* cut at each GFP_KERNEL one */
	for (int p = 0; p < 2; p++) {
		const struct fgt_activation *x = p ? &a.acts[0] : &d.acts[0];

		assert_int_equal(x->nr_sweeps, 1);
		assert_int_equal(x->sweeps[0].served, 1000);
		assert_int_equal(x->served, 1000);
		assert_int_equal(x->nonblocking, 960);
		assert_int_equal(x->blocking, 40);
		assert_int_equal(x->failed_nonblocking, 40);
		assert_int_equal(x->sweeps[0].ret, 0);
		fgt_verdict_judge(x, &v);
		assert_int_equal(v.verdict, FGT_VERDICT_FIXED);
		assert_int_equal(v.left, 0);
		assert_int_equal(v.extra_sweeps, 0);
	}
	collect_fini(&d);
	collect_fini(&a);
}

/*
 * The walks counted while one is under way (a live view's progress) are the
 * settled ones so far: a pinned cursor's walk stays one walk however many
 * blocking allocations cut it (its live view said 204 sweeps of one under
 * pressure, 2026-12-07); the lab's reading counts each restart as it comes.
 */
struct walks_seen {
	struct collect c;
	uint32_t last, max, batches;
	bool fell;
};

static void walks_feed(const struct fgt_event *ev, void *ctx)
{
	struct walks_seen *w = ctx;
	const struct fgt_activation *cur;
	uint32_t n;

	collect_feed(ev, &w->c);
	cur = fgt_assembler_current(w->c.a);
	if (!cur)
		return;
	n = fgt_activation_walks_now(cur);
	w->batches = cur->nr_sweeps;
	w->fell |= n < w->last;
	w->last = n;
	if (n > w->max)
		w->max = n;
}

static uint32_t walks_under_way(struct gen_cfg *cfg, uint32_t *batches)
{
	struct walks_seen w = {};

	cfg->direct = false;
	collect_init(&w.c);
	fgt_assembler_trust_frees(w.c.a, true);
	gen_activation(cfg, walks_feed, &w);
	*batches = w.batches;
	fgt_assembler_end(w.c.a, 0);	/* a shape without ACT_END */
	assert_false(w.fell);
	assert_int_equal(w.c.n, 1);
	assert_int_equal(w.max, w.c.acts[0].nr_sweeps);
	collect_fini(&w.c);
	return w.max;
}

static void test_walks_now(void **state)
{
	struct gen_cfg pinned = { .shape = GEN_PINNED, .lacking = 1000, .fail_nb = 40,
				  .fail_interval = 20 };
	struct gen_cfg lab = { .fixed = true, .lacking = 1000, .fail_nb = 100 };
	uint32_t batches;

	assert_int_equal(walks_under_way(&pinned, &batches), 1);
	assert_int_equal(batches, 41);		/* what it used to show */
	assert_int_equal(walks_under_way(&lab, &batches), 4);
	assert_int_equal(batches, 4);
}

/* v1's shape (cond_resched() in the retry loop) walks as the unfixed code:
 * the lab's reading under pressure restarts too, but serves more per walk. */
static void test_shape_lab_restarts(void **state)
{
	struct gen_cfg cfg = { .fixed = true, .lacking = 1000, .fail_nb = 100 };
	struct collect c;

	collect_gen(&c, &cfg);
	assert_int_equal(c.acts[0].walks, FGT_WALKS_INLINE);
	assert_int_equal(c.acts[0].nr_sweeps, 4);	/* 1 + floor(100 / 33) */
	assert_int_equal(c.acts[0].batches, 4);
	assert_int_equal(verdict_of(&c.acts[0], NULL, 0), FGT_VERDICT_FIXED);
	collect_fini(&c);
}

/* Second activation: every thread already holds a stack. */
static void test_nothing_to_serve(void **state)
{
	struct gen_cfg cfg = { .before = 1000 };
	struct collect c;

	run_both(&cfg, &c);
	assert_int_equal(c.acts[0].nr_sweeps, 1);
	assert_int_equal(c.acts[0].served, 0);
	assert_int_equal(c.acts[0].freed, 32);
	collect_fini(&c);
}

static void test_enomem(void **state)
{
	/* the 136th blocking allocation fails: the 5th sweep's 8th */
	struct gen_cfg cfg = { .lacking = 200, .fail_blocking_nth = 136 };
	struct collect c;
	const struct fgt_activation *a;

	run_both(&cfg, &c);
	a = &c.acts[0];
	assert_int_equal(a->walks, FGT_WALKS_GAPS);
	assert_int_equal(a->nr_sweeps, 5);
	assert_int_equal(a->sweeps[3].ret, -EAGAIN);
	assert_int_equal(a->sweeps[4].ret, -ENOMEM);
	assert_int_equal(a->sweeps[4].batch, 7);
	assert_int_equal(a->sweeps[4].failed_blocking, 1);
	assert_int_equal(a->sweeps[4].freed, 7);
	assert_int_equal(a->served, 128);
	assert_int_equal(a->ret, -ENOMEM);
	collect_fini(&c);
}

/*
 * Timing by the generator's model: 300 ns per alloc, 10 ns per visit. The
 * sweep's latencies are gaps between its events: exact for the blocking
 * batch, allocation plus walk step for the fixed kernel's inline ones.
 */
static void test_times(void **state)
{
	struct gen_cfg cfg = { .lacking = 64, .ts0 = 1000, .direct = true };
	struct collect c;
	const struct fgt_activation *a;

	collect_gen(&c, &cfg);
	a = &c.acts[0];
	assert_int_equal(a->sweeps[0].alloc_ns, 32 * 300);
	assert_int_equal(a->sweeps[0].walk_ns, 33 * 10);	/* 33rd visit: -EAGAIN */
	assert_int_equal(a->sweeps[1].alloc_ns, 32 * 300);
	assert_int_equal(a->sweeps[1].walk_ns, 64 * 10);
	assert_int_equal(a->begin_ns, 1000);
	assert_int_equal(a->end_ns - a->begin_ns, 2 * 32 * 300 + 33 * 10 + 64 * 10);
	assert_int_equal(a->lat.count, 63);
	assert_int_equal(a->lat.min, 300);
	assert_int_equal(a->lat.max, 300);
	collect_fini(&c);

	/* attributed: two batches, one gap between them that shows no walk
	 * growing: one run, the gap counted as allocating, the walk the last */
	cfg.direct = false;
	collect_gen(&c, &cfg);
	a = &c.acts[0];
	assert_int_equal(a->walks, FGT_WALKS_UNSEEN);
	assert_int_equal(a->sweeps[0].alloc_ns, 32 * 300 + 33 * 10 + 300 + 31 * 300);
	assert_int_equal(a->sweeps[0].walk_ns, 64 * 10);
	assert_int_equal(a->alloc_ns, a->sweeps[0].alloc_ns);
	assert_int_equal(a->walk_ns, 64 * 10);
	assert_int_equal(a->end_ns - a->begin_ns, 2 * 32 * 300 + 33 * 10 + 64 * 10);
	assert_int_equal(a->lat.count, 63);
	assert_int_equal(a->lat.min, 300);
	collect_fini(&c);

	/* fixed: each inline allocation's gap holds one visit */
	cfg = (struct gen_cfg){ .fixed = true, .lacking = 10, .idle_cpus = 2, .ts0 = 1000 };
	run_both(&cfg, &c);
	a = &c.acts[0];
	assert_int_equal(a->sweeps[0].alloc_ns, 32 * 300 + 10 * (10 + 300));
	assert_int_equal(a->sweeps[0].walk_ns, 10 * (10 + 300));
	assert_int_equal(a->lat.count, 32 + 10);
	assert_int_equal(a->lat.min, 300);
	assert_int_equal(a->lat.max, 310);
	collect_fini(&c);
}

static void test_activations_in_a_row(void **state)
{
	struct gen_cfg one = { .lacking = 160 }, two = { .before = 160, .lacking = 40 };
	struct collect c;

	collect_init(&c);
	two.ts0 = gen_activation(&one, collect_feed, &c);
	gen_forks(two.ts0, 10, 3, false, collect_feed, &c);
	two.ts0 += 100000;
	gen_activation(&two, collect_feed, &c);
	fgt_assembler_flush(c.a);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.acts[0].seq, 1);
	assert_int_equal(c.acts[1].seq, 2);
	assert_int_equal(c.acts[0].nr_sweeps, 5);
	assert_int_equal(c.acts[0].walks, FGT_WALKS_GAPS);
	/* two batches, one gap: not observable (VISIT_NS 10 makes the walk
	 * past 160 threads shorter than six allocations) */
	assert_int_equal(c.acts[1].nr_sweeps, 1);
	assert_int_equal(c.acts[1].batches, 2);
	assert_int_equal(c.acts[1].walks, FGT_WALKS_UNSEEN);
	assert_int_equal(c.acts[1].served, 40);
	assert_int_equal(fgt_assembler_fork(c.a)->allocs, 10);
	assert_int_equal(fgt_assembler_fork(c.a)->failed, 3);
	assert_int_equal(fgt_assembler_fork(c.a)->tasks_new, 10);
	assert_int_equal(fgt_assembler_fork(c.a)->tasks_without, 3);
	assert_int_equal(fgt_assembler_fork(c.a)->lat.count, 10);
	collect_fini(&c);
}

/* Events kept for tests that edit a stream. */
struct stream {
	struct fgt_event *ev;
	size_t n, cap;
};

static void stream_add(const struct fgt_event *ev, void *ctx)
{
	struct stream *s = ctx;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->ev = realloc(s->ev, s->cap * sizeof(*s->ev));
	}
	s->ev[s->n++] = *ev;
}

static void test_current_and_midway_start(void **state)
{
	struct gen_cfg cfg = { .lacking = 1000 };
	struct stream s = { 0 };
	struct collect c;
	size_t i;

	gen_activation(&cfg, stream_add, &s);
	collect_init(&c);
	/* fgraphtop started after the 10th sweep began */
	for (i = 10 * 32 + 5; i < s.n; i++) {
		fgt_assembler_feed(c.a, &s.ev[i]);
		if (i + 1 < s.n)
			assert_non_null(fgt_assembler_current(c.a));
	}
	assert_null(fgt_assembler_current(c.a));
	assert_int_equal(c.n, 1);
	assert_true(c.acts[0].implicit);
	assert_false(c.acts[0].complete);
	/*
	 * Cut every 32 blocking allocations from the 5th of the 11th batch
	 * on, its 22 batches straddle the walks: each gap between them is one
	 * allocation, and the walks are inside them. No walk shows: one run.
	 */
	assert_int_equal(c.acts[0].batches, 22);
	assert_int_equal(c.acts[0].nr_sweeps, 1);
	assert_int_equal(c.acts[0].walks, FGT_WALKS_UNSEEN);
	assert_int_equal(c.acts[0].served, 1000 - 10 * 32 - 4);	/* events 321-324 missed */
	/* the sweep runs in the trigger: its events name it */
	assert_int_equal(c.acts[0].pid, 4242);
	assert_string_equal(c.acts[0].comm, "trace-cmd");
	assert_int_equal(c.acts[0].nr_threads, 0);	/* ACT_BEGIN's, never seen */
	collect_fini(&c);
	free(s.ev);
}

static void test_flush_incomplete(void **state)
{
	struct gen_cfg cfg = { .lacking = 1000, .direct = true };
	struct stream s = { 0 };
	struct collect c;
	size_t i;

	gen_activation(&cfg, stream_add, &s);
	collect_init(&c);
	for (i = 0; i < s.n / 2; i++)
		fgt_assembler_feed(c.a, &s.ev[i]);
	fgt_assembler_lost(c.a, 7);
	assert_int_equal(c.n, 0);
	fgt_assembler_flush(c.a);
	assert_int_equal(c.n, 1);
	assert_false(c.acts[0].complete);
	assert_false(c.acts[0].implicit);
	assert_int_equal(c.acts[0].lost, 7);
	assert_int_equal(c.acts[0].end_ns, s.ev[s.n / 2 - 1].ts_ns);
	fgt_assembler_flush(c.a);	/* nothing left: no second report */
	assert_int_equal(c.n, 1);
	collect_fini(&c);
	free(s.ev);
}

static uint32_t lcg(uint32_t *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 8;
}

static void lossy_cb(const struct fgt_activation *a, void *ctx)
{
	uint64_t served = 0;
	uint32_t i;

	for (i = 0; i < a->nr_sweeps; i++) {
		served += a->sweeps[i].served;
		assert_true(a->sweeps[i].served <= a->sweeps[i].batch + a->sweeps[i].nonblocking);
	}
	assert_int_equal(served, a->served);
	assert_true(a->end_ns >= a->begin_ns);
	(*(unsigned int *)ctx)++;
}

/* Drop events at random, both paths, fixed and not: consistent records, no crash. */
static void test_lost_events(void **state)
{
	static const unsigned int rates[] = { 2, 10, 100, 1000 };
	uint32_t seed = 1;
	unsigned int r, v, reports;

	for (r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		for (v = 0; v < 4; v++) {
			struct gen_cfg cfg = { .fixed = v & 1, .direct = v & 2, .lacking = 3000,
					       .fail_nb = v & 1 ? 50 : 0 };
			struct fgt_assembler *a;
			struct stream s = { 0 };
			size_t i;

			gen_activation(&cfg, stream_add, &s);
			cfg.ts0 = s.ev[s.n - 1].ts_ns + 10;
			gen_activation(&cfg, stream_add, &s);
			reports = 0;
			a = fgt_assembler_new(lossy_cb, &reports);
			for (i = 0; i < s.n; i++)
				if (lcg(&seed) % rates[r])
					fgt_assembler_feed(a, &s.ev[i]);
			fgt_assembler_flush(a);
			assert_in_range(reports, 1, 10);
			fgt_assembler_free(a);
			free(s.ev);
		}
	}
}

/* Garbage in any order: must terminate without crashing or sanitizer reports. */
static void test_fuzz(void **state)
{
	struct fgt_assembler *a;
	unsigned int reports = 0, i;
	uint32_t seed = 42;

	a = fgt_assembler_new(lossy_cb, &reports);
	for (i = 0; i < 200000; i++) {
		struct fgt_event ev = {
			.ts_ns = lcg(&seed) % 1000000, .type = lcg(&seed) % 10,
			.site = lcg(&seed) % 5, .gfp = lcg(&seed) & 1 ? 0xcc0 : 0x800,
			.ok = lcg(&seed) % 4 != 0, .dur_ns = lcg(&seed) % 2000000,
			.ret = -(int)(lcg(&seed) % 20), .src = 1 + lcg(&seed) % 2,
		};

		fgt_assembler_feed(a, &ev);
		if (i % 1000 == 0)
			fgt_assembler_lost(a, 1);
	}
	fgt_assembler_feed(NULL, NULL);
	fgt_assembler_flush(a);
	assert_true(reports > 0);
	fgt_assembler_free(a);
}

/* Recorded sequences: every EXPECT line of every tests/data file must hold. */
static const char *data_dir(void)
{
	const char *d = getenv("FGT_TEST_DATA");

	return d ? d : "tests/data";
}

static void expect_u64(const char *line, const char *key, uint64_t got, const char *file)
{
	char buf[64];

	if (ev_expect_get(line, key, buf, sizeof(buf)))
		return;
	if (strtoull(buf, NULL, 0) != got)
		fail_msg("%s: %s: expected %s, got %llu", file, key, buf, (unsigned long long)got);
}

static void expect_list(const char *line, const char *key, const struct fgt_activation *a,
			bool served, const char *file)
{
	char buf[1024], got[1024] = "";
	size_t len = 0;
	uint32_t i;

	if (ev_expect_get(line, key, buf, sizeof(buf)))
		return;
	for (i = 0; i < a->nr_sweeps && len < sizeof(got) - 16; i++)
		len += snprintf(got + len, sizeof(got) - len, "%s%d", i ? "," : "",
				served ? (int)a->sweeps[i].served : a->sweeps[i].ret);
	if (strcmp(buf, got))
		fail_msg("%s: %s: expected %s, got %s", file, key, buf, got);
}

static void check_expect(const char *line, struct collect *c, const char *file)
{
	char buf[64], ev[256];
	const struct fgt_activation *a;
	const struct fgt_fork_stats *f = fgt_assembler_fork(c->a);
	unsigned long n;

	expect_u64(line, "activations", c->n, file);
	expect_u64(line, "fork_allocs", f->allocs, file);
	expect_u64(line, "fork_failed", f->failed, file);
	expect_u64(line, "tasks_new", f->tasks_new, file);
	expect_u64(line, "tasks_without", f->tasks_without, file);
	if (ev_expect_get(line, "act", buf, sizeof(buf)))
		return;
	n = strtoul(buf, NULL, 0);
	if (n < 1 || n > c->n)
		fail_msg("%s: no activation %lu (have %u)", file, n, c->n);
	a = &c->acts[n - 1];
	expect_u64(line, "sweeps", a->nr_sweeps, file);
	expect_u64(line, "served", a->served, file);
	expect_u64(line, "blocking", a->blocking, file);
	expect_u64(line, "nonblocking", a->nonblocking, file);
	expect_u64(line, "failed_nb", a->failed_nonblocking, file);
	expect_u64(line, "failed_b", a->failed_blocking, file);
	expect_u64(line, "freed", a->freed, file);
	expect_u64(line, "complete", a->complete, file);
	expect_u64(line, "implicit", a->implicit, file);
	expect_u64(line, "lost", a->lost, file);
	expect_u64(line, "walk_ns", a->walk_ns, file);
	expect_u64(line, "alloc_ns", a->alloc_ns, file);
	expect_list(line, "served_per", a, true, file);
	expect_list(line, "rets", a, false, file);
	expect_u64(line, "batches", a->batches, file);
	if (!ev_expect_get(line, "walks", buf, sizeof(buf)) &&
	    strcmp(buf, fgt_walks_name(a->walks) ? fgt_walks_name(a->walks) : "none"))
		fail_msg("%s: walks: expected %s, got %s", file, buf,
			 fgt_walks_name(a->walks) ? fgt_walks_name(a->walks) : "none");
	if (!ev_expect_get(line, "verdict", buf, sizeof(buf)) &&
	    strcmp(buf, fgt_verdict_name(verdict_of(a, ev, sizeof(ev)))))
		fail_msg("%s: verdict: expected %s, got %s (%s)", file, buf,
			 fgt_verdict_name(verdict_of(a, ev, sizeof(ev))), ev);
}

static unsigned int replay(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	struct fgt_event ev;
	unsigned long long lost;
	unsigned int lineno = 0, expects = 0;
	struct collect c;

	assert_non_null(f);
	collect_init(&c);
	/* pass 1: feed everything; pass 2: check the EXPECT lines */
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		switch (ev_parse(line, &ev, &lost)) {
		case EV_LINE_EVENT:
			fgt_assembler_feed(c.a, &ev);
			break;
		case EV_LINE_LOST:
			fgt_assembler_lost(c.a, lost);
			break;
		case EV_LINE_ERROR:
			fail_msg("%s:%u: cannot parse: %s", path, lineno, line);
			break;
		default:
			break;
		}
	}
	fgt_assembler_flush(c.a);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (ev_parse(line, &ev, &lost) == EV_LINE_EXPECT) {
			check_expect(line, &c, path);
			expects++;
		}
	}
	fclose(f);
	collect_fini(&c);
	return expects;
}

static void test_recorded(void **state)
{
	DIR *d = opendir(data_dir());
	struct dirent *de;
	unsigned int files = 0;
	char path[4096];

	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l < 8 || strcmp(de->d_name + l - 7, ".events"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", data_dir(), de->d_name);
		/* a recording without expectations would test nothing */
		if (!replay(path))
			fail_msg("%s: no EXPECT line", path);
		files++;
	}
	closedir(d);
	assert_true(files >= 4);
}

/* The generator's output survives the text format: write, parse, same record. */
static void test_text_roundtrip(void **state)
{
	struct gen_cfg cfg = { .fixed = true, .lacking = 100, .fail_nb = 35, .direct = true };
	struct stream s = { 0 };
	struct collect c;
	char *buf = NULL, *line, *save;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);
	unsigned long long lost;
	struct fgt_event ev;

	gen_activation(&cfg, stream_add, &s);
	for (i = 0; i < s.n; i++)
		ev_write(f, &s.ev[i]);
	fclose(f);
	collect_init(&c);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		assert_int_equal(ev_parse(line, &ev, &lost), EV_LINE_EVENT);
		fgt_assembler_feed(c.a, &ev);
	}
	assert_int_equal(c.n, 1);
	assert_int_equal(c.acts[0].nr_sweeps, 2);
	assert_int_equal(c.acts[0].served, 100);
	assert_int_equal(c.acts[0].failed_nonblocking, 35);
	assert_int_equal(c.acts[0].sweeps[0].ret, -EAGAIN);
	assert_true(c.acts[0].sweeps[0].ret_known);
	collect_fini(&c);
	free(buf);
	free(s.ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unfixed_1000),
		cmocka_unit_test(test_unfixed_10000),
		cmocka_unit_test(test_unfixed_small),
		cmocka_unit_test(test_fixed_no_failure),
		cmocka_unit_test(test_fixed_failures),
		cmocka_unit_test(test_fixed_spread_failures),
		cmocka_unit_test(test_fixed_plus_grows),
		cmocka_unit_test(test_unfixed_extra_empty_sweep),
		cmocka_unit_test(test_nothing_to_serve),
		cmocka_unit_test(test_shape_blocking),
		cmocka_unit_test(test_shape_single),
		cmocka_unit_test(test_shape_pinned),
		cmocka_unit_test(test_walks_now),
		cmocka_unit_test(test_shape_lab_restarts),
		cmocka_unit_test(test_enomem),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_activations_in_a_row),
		cmocka_unit_test(test_current_and_midway_start),
		cmocka_unit_test(test_flush_incomplete),
		cmocka_unit_test(test_lost_events),
		cmocka_unit_test(test_fuzz),
		cmocka_unit_test(test_text_roundtrip),
		cmocka_unit_test(test_recorded),
	};

	return cmocka_run_group_tests_name("activation", tests, NULL, NULL);
}
