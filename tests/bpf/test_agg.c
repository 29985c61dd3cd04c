// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel aggregation (bpf/agg.h, the BPF programs' own logic) against
 * the reference assembler (src/model/activation.c): the same event streams,
 * recorded (tests/data) and generated (tests/lib/gen.c), through both; every
 * record must be equal, field by field, sweep by sweep, the histogram slot
 * by slot. Then what the consumer does with BPF's messages when they are
 * hostile or some never came.
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
#include "lib/events.h"
#include "lib/gen.h"
#include "lib/agg_replay.h"
#include "model/activation.h"
#include "model/agg_collect.h"
#include "model/hist.h"

/* ---- bpf/agg.h here too, for its pieces (the hooks unused but the table) ---- */
static struct fgt_agg_slot test_slots[FGT_AGG_SLOTS];
static unsigned int test_puts;

static __always_inline struct fgt_agg_slot *fgt_agg_slot(void *out, __u32 i)
{
	return i < FGT_AGG_SLOTS ? &test_slots[i] : NULL;
}

static __always_inline void fgt_agg_put_sweeps(void *out, const struct fgt_agg *st)
{
	test_puts++;
}

static __always_inline void fgt_agg_put_act(void *out, const struct fgt_agg_act *a)
{
	test_puts++;
}

#include "bpf/agg.h"

/* ---- deep copies of the records each side reports ---- */

#define MAX_ACTS 64

struct side {
	unsigned int n;
	struct fgt_activation acts[MAX_ACTS];
};

static void side_cb(const struct fgt_activation *act, void *ctx)
{
	struct side *sd = ctx;
	struct fgt_activation *d;

	assert_true(sd->n < MAX_ACTS);
	d = &sd->acts[sd->n++];
	*d = *act;
	d->sweeps = calloc(act->nr_sweeps + 1, sizeof(*act->sweeps));
	assert_non_null(d->sweeps);
	memcpy(d->sweeps, act->sweeps, act->nr_sweeps * sizeof(*act->sweeps));
}

static void side_fini(struct side *sd)
{
	for (unsigned int i = 0; i < sd->n; i++)
		free(sd->acts[i].sweeps);
	sd->n = 0;
}

/* Both at once: the reference and the aggregation, fed the same. */
struct pair {
	struct side ref, agg;
	struct fgt_assembler *a;
	struct fgt_agg_collector *g;
	struct agg_replay *r;	/* bpf/agg.h, putting into g */
};

static void pair_init(struct pair *p)
{
	memset(p, 0, sizeof(*p));
	p->a = fgt_assembler_new(side_cb, &p->ref);
	p->g = fgt_agg_collect_new(side_cb, &p->agg);
	p->r = agg_replay_new(p->g);
	assert_non_null(p->a);
	assert_non_null(p->g);
	assert_non_null(p->r);
}

static void pair_feed(const struct fgt_event *ev, void *ctx)
{
	struct pair *p = ctx;

	fgt_assembler_feed(p->a, ev);
	agg_replay_feed(p->r, ev);
}

static void pair_lost(struct pair *p, uint64_t n)
{
	fgt_assembler_lost(p->a, n);
	agg_replay_lost(p->r, n);
}

static void pair_flush(struct pair *p)
{
	fgt_assembler_flush(p->a);
	agg_replay_flush(p->r);
}

static void pair_fini(struct pair *p)
{
	side_fini(&p->ref);
	side_fini(&p->agg);
	fgt_assembler_free(p->a);
	agg_replay_free(p->r);
	fgt_agg_collect_free(p->g);
}

#define EQ(f) do { \
	if ((x)->f != (y)->f) \
		fail_msg("%s: activation %u: %s: reference %lld, in-kernel %lld", what, i, #f, \
			 (long long)(x)->f, (long long)(y)->f); \
} while (0)
#define SEQ(f) do { \
	if (xs->f != ys->f) \
		fail_msg("%s: activation %u sweep %u: %s: reference %lld, in-kernel %lld", what, \
			 i, k, #f, (long long)xs->f, (long long)ys->f); \
} while (0)

static void same_sweeps(const struct fgt_activation *x, const struct fgt_activation *y,
			const char *what, unsigned int i)
{
	for (uint32_t k = 0; k < x->nr_sweeps; k++) {
		const struct fgt_sweep *xs = &x->sweeps[k], *ys = &y->sweeps[k];

		SEQ(batch);
		SEQ(nonblocking);
		SEQ(failed_nonblocking);
		SEQ(failed_blocking);
		SEQ(freed);
		SEQ(served);
		SEQ(ret);
		SEQ(ret_known);
		SEQ(begin_ns);
		SEQ(end_ns);
		SEQ(alloc_ns);
		SEQ(walk_ns);
	}
}

/* Every field of struct fgt_activation (src/model/activation.h). */
static void same_act(const struct fgt_activation *x, const struct fgt_activation *y,
		     const char *what, unsigned int i)
{
	EQ(seq);
	EQ(src);
	EQ(pid);
	EQ(tid);
	EQ(stack_id);
	EQ(nr_threads);
	EQ(begin_ns);
	EQ(end_ns);
	EQ(last_ns);
	EQ(ret);
	EQ(complete);
	EQ(implicit);
	EQ(lost);
	EQ(nr_sweeps);
	EQ(served);
	EQ(blocking);
	EQ(nonblocking);
	EQ(failed_blocking);
	EQ(failed_nonblocking);
	EQ(freed);
	EQ(alloc_ns);
	EQ(walk_ns);
	EQ(lat.count);
	EQ(lat.sum);
	EQ(lat.min);
	EQ(lat.max);
	if (strncmp(x->comm, y->comm, FGT_COMM_LEN))
		fail_msg("%s: activation %u: comm: %s vs %s", what, i, x->comm, y->comm);
	for (unsigned int s = 0; s < FGT_HIST_SLOTS; s++)
		if (x->lat.slots[s] != y->lat.slots[s])
			fail_msg("%s: activation %u: lat slot %u: %llu vs %llu", what, i, s,
				 (unsigned long long)x->lat.slots[s],
				 (unsigned long long)y->lat.slots[s]);
	same_sweeps(x, y, what, i);
}

/* The two sides' records; returns how many (so that a test sees it tested some). */
static unsigned int pair_same(struct pair *p, const char *what)
{
	if (p->ref.n != p->agg.n)
		fail_msg("%s: reference reported %u activations, in-kernel %u", what, p->ref.n,
			 p->agg.n);
	for (unsigned int i = 0; i < p->ref.n; i++)
		same_act(&p->ref.acts[i], &p->agg.acts[i], what, i);
	return p->ref.n;
}

/* The activation under way: the live view's, from a snapshot of BPF's state. */
static void same_current(struct pair *p, const char *what)
{
	const struct fgt_activation *x = fgt_assembler_current(p->a);
	const struct fgt_activation *y = fgt_agg_collect_current(p->g, agg_replay_state(p->r));

	assert_true(!x == !y);
	if (x)
		same_act(x, y, what, 999);
}

/* ---- the recorded streams ---- */

static const char *data_dir(void)
{
	const char *d = getenv("FGT_TEST_DATA");

	return d ? d : "tests/data";
}

static unsigned int replay(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	struct fgt_event ev;
	unsigned long long lost;
	unsigned int lineno = 0, n;
	struct pair p;

	assert_non_null(f);
	pair_init(&p);
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		switch (ev_parse(line, &ev, &lost)) {
		case EV_LINE_EVENT:
			pair_feed(&ev, &p);
			if (lineno % 7 == 0)
				same_current(&p, path);
			break;
		case EV_LINE_LOST:
			pair_lost(&p, lost);
			break;
		case EV_LINE_ERROR:
			fail_msg("%s:%u: cannot parse: %s", path, lineno, line);
			break;
		default:
			break;
		}
	}
	fclose(f);
	pair_flush(&p);
	n = pair_same(&p, path);
	pair_fini(&p);
	return n;
}

static void test_recorded(void **state)
{
	DIR *d = opendir(data_dir());
	struct dirent *de;
	unsigned int files = 0, acts = 0;
	char path[4096];

	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l < 8 || strcmp(de->d_name + l - 7, ".events"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", data_dir(), de->d_name);
		acts += replay(path);
		files++;
	}
	closedir(d);
	assert_true(files >= 7);
	assert_true(acts >= files);
}

/* ---- generated runs: every shape the assembler's tests make ---- */

/*
 * Each shape both ways, and as a kernel whose stacks have their own cache:
 * there BPF passes on only the cache's frees, which are all the reserve's,
 * and trusts them. Returns the fast path's share of the last run.
 */
static uint64_t gen_both(const struct gen_cfg *cfg, const char *what)
{
	struct gen_cfg g = *cfg;
	struct pair p;
	uint64_t fast = 0, untrusted[2] = { 0, 0 };

	for (int run = 0; run < 4; run++) {
		g.direct = run & 1;
		g.cache = run >= 2;
		pair_init(&p);
		agg_replay_trust_frees(p.r, g.cache);
		gen_activation(&g, pair_feed, &p);
		pair_flush(&p);
		assert_int_equal(pair_same(&p, what), 1);
		fast = agg_replay_fast(p.r);
		if (run < 2)
			untrusted[g.direct] = fast;
		else if (fast != untrusted[g.direct])	/* the same path, set or not */
			fail_msg("%s: fast path %llu times trusted, %llu not", what,
				 (unsigned long long)fast, (unsigned long long)untrusted[g.direct]);
		pair_fini(&p);
	}
	return fast;
}

/*
 * The fast path takes every allocation of a clean walk but the one that
 * opens each sweep (direct: the SWEEP_BEGIN does, and only the first has a
 * gap to measure from). Attributed, a walk's first allocation opens the
 * first sweep, and fgt_agg_batch_next() takes the one that opens each
 * sweep after a full batch.
 */
static void test_fast_share(void **state)
{
	struct gen_cfg u = { .lacking = 10000, .idle_cpus = 2, .ts0 = 1000000 };
	struct gen_cfg f = { .fixed = true, .lacking = 10000, .ts0 = 5000 };
	struct gen_cfg *cfgs[] = { &u, &f };

	for (unsigned int i = 0; i < 2; i++) {
		for (int direct = 0; direct < 2; direct++) {
			struct pair p;
			const struct fgt_activation *a;

			cfgs[i]->direct = direct;
			pair_init(&p);
			gen_activation(cfgs[i], pair_feed, &p);
			pair_flush(&p);
			assert_int_equal(pair_same(&p, "fast share"), 1);
			a = &p.ref.acts[0];
			assert_int_equal(agg_replay_fast(p.r), a->blocking + a->nonblocking -
					 (direct ? a->nr_sweeps - 1 : 1));
			assert_int_equal(agg_replay_next(p.r),
					 direct || i ? 0 : a->nr_sweeps - 1);
			pair_fini(&p);
		}
	}
}

static void test_generated(void **state)
{
	static const struct {
		const char *what;
		struct gen_cfg cfg;
	} runs[] = {
		{ "unfixed 1000", { .lacking = 1000, .idle_cpus = 2, .ts0 = 1000000 } },
		{ "unfixed 10000", { .lacking = 10000, .idle_cpus = 2, .ts0 = 1000000 } },
		{ "unfixed 31", { .lacking = 31 } },
		{ "unfixed 64 + 5", { .lacking = 64, .after = 5 } },
		{ "nothing to serve", { .before = 1000 } },
		{ "enomem", { .lacking = 100, .fail_blocking_nth = 40 } },
		{ "fixed", { .fixed = true, .lacking = 10000, .ts0 = 5000 } },
		{ "fixed k=100", { .fixed = true, .lacking = 1000, .fail_nb = 100, .ts0 = 5000 } },
		{ "fixed k=33", { .fixed = true, .lacking = 1000, .fail_nb = 33 } },
		{ "fixed spread", { .fixed = true, .lacking = 1000, .fail_nb = 40, .fail_interval = 7 } },
		{ "fixed enomem", { .fixed = true, .lacking = 200, .fail_nb = 40,
				    .fail_blocking_nth = 50 } },
		{ "fixed-plus", { .fixed = true, .grow = true, .lacking = 1000, .fail_nb = 500,
				  .ts0 = 5000 } },
		{ "fixed-plus big", { .fixed = true, .grow = true, .lacking = 30000, .fail_nb = 4000,
				      .idle_cpus = 2, .before = 7, .after = 9 } },
	};

	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		gen_both(&runs[i].cfg, runs[i].what);
}

/* Activations in a row, forks between, the second over threads served before. */
static void test_in_a_row(void **state)
{
	struct gen_cfg one = { .lacking = 100 }, two = { .before = 100, .lacking = 40, .fixed = true };
	struct pair p;

	pair_init(&p);
	two.ts0 = gen_activation(&one, pair_feed, &p);
	gen_forks(two.ts0, 10, 3, false, pair_feed, &p);
	two.ts0 += 100000;
	two.ts0 = gen_activation(&two, pair_feed, &p);
	one.ts0 = two.ts0 + 1000;
	one.direct = true;
	gen_activation(&one, pair_feed, &p);
	pair_flush(&p);
	assert_int_equal(pair_same(&p, "in a row"), 3);
	pair_fini(&p);
}

/*
 * What the generator never makes, in a walk the fast path is taking:
 * blocking allocations after non-blocking ones in a sweep (its non-blocking
 * latencies add up from the gaps only while those come last), and gaps of
 * every size, among them 0, 2 s and more (the fast path stops short of
 * 2^31), the table's edges (64, 16,384), and
 * the clock going back. Both paths, an activation each.
 */
static void test_kinds_and_gaps(void **state)
{
	static const char kinds[] = "BBBNNNBBNNNBNBNNNBBBBNN";
	static const uint64_t gaps[] = {
		700, 700, 1500, 3000000000ull, 3100000000ull, 2500000000ull, 100, 0, 700,
		1ull << 31, (1ull << 31) + 5, (1ull << 32) + 1, 64, 65, 127, 128,
		63, 16383, 16384, 1, (1ull << 31) - 1,
	};
	struct pair p;
	uint64_t ts = 1000000, ptr = 0xffff888000000000ull;

	pair_init(&p);
	for (uint32_t src = FGT_SRC_DIRECT; src <= FGT_SRC_ATTRIBUTED; src++) {
		bool direct = src == FGT_SRC_DIRECT;

		pair_feed(&(struct fgt_event){ .type = FGT_EV_ACT_BEGIN, .src = src, .ts_ns = ts,
					       .nr_threads = 100 }, &p);
		if (direct)
			pair_feed(&(struct fgt_event){ .type = FGT_EV_SWEEP_BEGIN, .src = src,
						       .ts_ns = ts += 10 }, &p);
		for (unsigned int r = 0; r < 4; r++)
			for (size_t i = 0; kinds[i]; i++) {
				uint64_t g = gaps[(i + r * 5) % (sizeof(gaps) / sizeof(gaps[0]))];

				/* once a round, a clock that went back */
				ts = i == 7 && r ? ts - 50 : ts + g;
				pair_feed(&(struct fgt_event){
					.type = FGT_EV_ALLOC, .src = src, .ts_ns = ts,
					.site = FGT_SITE_SWEEP, .ok = 1, .size = 4096,
					.gfp = kinds[i] == 'B' ? GEN_GFP_KERNEL : GEN_GFP_NOWAIT,
					.ptr = ptr += 4096 }, &p);
			}
		if (direct)
			pair_feed(&(struct fgt_event){ .type = FGT_EV_SWEEP_END, .src = src,
						       .ts_ns = ts += 10 }, &p);
		pair_feed(&(struct fgt_event){ .type = FGT_EV_ACT_END, .src = src,
					       .ts_ns = ts += 10 }, &p);
		ts += 1000000;
	}
	pair_flush(&p);
	assert_int_equal(pair_same(&p, "kinds and gaps"), 2);
	assert_true(agg_replay_fast(p.r) > 0);
	pair_fini(&p);
}

/* Events kept, for tests that cut a stream. */
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
		assert_non_null(s->ev);
	}
	s->ev[s->n++] = *ev;
}

static uint32_t lcg(uint32_t *x)
{
	*x = *x * 1103515245u + 12345u;
	return *x >> 8;
}

/* Events dropped at random, and started mid-way: still the same records. */
static void test_lossy(void **state)
{
	static const unsigned int rates[] = { 2, 10, 100, 1000 };
	uint32_t seed = 7;

	for (unsigned int r = 0; r < sizeof(rates) / sizeof(rates[0]); r++)
		for (unsigned int v = 0; v < 8; v++) {
			struct gen_cfg cfg = { .fixed = v & 1, .direct = v & 2, .grow = v & 4,
					       .lacking = 3000, .fail_nb = v & 1 ? 50 : 0 };
			struct stream st = { 0 };
			struct pair p;

			cfg.ts0 = gen_activation(&cfg, stream_add, &st) + 10;
			gen_activation(&cfg, stream_add, &st);
			pair_init(&p);
			for (size_t i = lcg(&seed) % 100; i < st.n; i++) {
				if (lcg(&seed) % rates[r])
					pair_feed(&st.ev[i], &p);
				else if (lcg(&seed) % 3 == 0)
					pair_lost(&p, 1);
				if (i % 501 == 0)
					same_current(&p, "lossy");
			}
			pair_flush(&p);
			assert_in_range(pair_same(&p, "lossy"), 1, 10);
			pair_fini(&p);
			free(st.ev);
		}
}

/* Garbage in any order (the assembler's own fuzz stream): the same records. */
static void test_fuzz(void **state)
{
	struct pair p;
	uint32_t seed = 42;
	unsigned int total = 0;

	pair_init(&p);
	for (unsigned int i = 0; i < 200000; i++) {
		struct fgt_event ev = {
			.ts_ns = i * 10 + lcg(&seed) % 10, .type = lcg(&seed) % 10,
			.site = lcg(&seed) % 5, .gfp = lcg(&seed) & 1 ? 0xcc0 : 0x800,
			.ok = lcg(&seed) % 4 != 0, .dur_ns = lcg(&seed) % 4 ? 0 : lcg(&seed) % 2000,
			.ret = -(int)(lcg(&seed) % 20), .src = 1 + lcg(&seed) % 2,
			.ptr = (lcg(&seed) % 64) << 12,
		};

		pair_feed(&ev, &p);
		if (i % 1000 == 0)
			pair_lost(&p, 1);
		if (p.ref.n >= MAX_ACTS / 2) {	/* compare and start over: bounded memory */
			total += pair_same(&p, "fuzz");
			side_fini(&p.ref);
			side_fini(&p.agg);
		}
	}
	pair_flush(&p);
	total += pair_same(&p, "fuzz");
	assert_true(total > 100);
	pair_fini(&p);
}

/* The log2 slot without clz, against the histogram's own. */
static void test_hist_slot(void **state)
{
	uint32_t seed = 3;

	for (unsigned int b = 0; b < 64; b++)
		for (int d = -1; d <= 1; d++) {
			uint64_t v = (1ull << b) + d;

			assert_int_equal(fgt_agg_hist_slot(v), fgt_hist_slot(v));
		}
	for (unsigned int i = 0; i < 100000; i++) {
		uint64_t v = ((uint64_t)lcg(&seed) << 40) ^ ((uint64_t)lcg(&seed) << 16) ^ lcg(&seed);

		v >>= lcg(&seed) % 64;
		assert_int_equal(fgt_agg_hist_slot(v), fgt_hist_slot(v));
	}
	assert_int_equal(fgt_agg_hist_slot(UINT64_MAX), FGT_HIST_SLOTS - 1);
}

/* The reserve set: membership by generation, overflow when half full. */
static void test_reserve_set(void **state)
{
	struct fgt_agg st = { 0 };
	uint64_t p;

	memset(test_slots, 0, sizeof(test_slots));
	assert_true(fgt_agg_res_has(&st, NULL, 0x1000));	/* empty: yes */
	fgt_agg_res_clear(&st);
	fgt_agg_res_add(&st, NULL, 0x1000);
	fgt_agg_res_add(&st, NULL, 0x1000);
	assert_int_equal(st.res_n, 1);
	assert_true(fgt_agg_res_has(&st, NULL, 0x1000));
	assert_false(fgt_agg_res_has(&st, NULL, 0x2000));
	fgt_agg_res_clear(&st);		/* a new sweep: nothing written, all gone */
	fgt_agg_res_add(&st, NULL, 0x3000);
	assert_false(fgt_agg_res_has(&st, NULL, 0x1000));
	assert_true(fgt_agg_res_has(&st, NULL, 0x3000));
	/* 4 KiB-aligned stacks, as the fgraph_stack cache gives them, fill it */
	fgt_agg_res_clear(&st);
	for (p = 1; p <= FGT_AGG_SLOTS / 2; p++)
		fgt_agg_res_add(&st, NULL, 0xffff888000000000ull + (p << 12));
	assert_false(st.res_overflow);
	assert_int_equal(st.res_n, FGT_AGG_SLOTS / 2);
	for (p = 1; p <= FGT_AGG_SLOTS / 2; p++)
		assert_true(fgt_agg_res_has(&st, NULL, 0xffff888000000000ull + (p << 12)));
	assert_false(fgt_agg_res_has(&st, NULL, 0xffff888000000000ull));
	fgt_agg_res_add(&st, NULL, 0x5000);	/* past half full: every FREE counts */
	assert_true(st.res_overflow);
	assert_true(fgt_agg_res_has(&st, NULL, 0x6000));
	fgt_agg_res_clear(&st);
	assert_false(st.res_overflow);
}

/*
 * fgt_agg_batch_next(), a stock walk's next batch, leaves the state byte for
 * byte as the general cold code does (fgt_agg_alloc_slow()), and the reserve table
 * too: whatever gap the walk left (none, one, the clock gone back, 2 s and
 * more), with the queue of finished sweeps at every fill, the run touched
 * by another event or not, the reserve trusted or kept. It declines, and
 * changes nothing, where its state is not a clean full batch, and past the
 * last sweep (the cold code counts into that one).
 */
static struct fgt_agg_slot slots_before[FGT_AGG_SLOTS], slots_next[FGT_AGG_SLOTS];

static void batch_of(struct fgt_agg *st, uint64_t *ts, uint64_t *ptr, unsigned int n, int trusted)
{
	for (unsigned int i = 0; i < n; i++) {
		/* the allocator's two gaps: its fast path, a refill */
		*ts += i % 8 == 7 ? 2900 : 700;
		fgt_agg_alloc(st, NULL, *ts, FGT_SRC_ATTRIBUTED, NULL, *ptr += 4096, GEN_GFP_KERNEL,
			      1, 0, trusted);
	}
}

/* The next batch's first allocation at ts, both ways; want: what
 * fgt_agg_batch_next() must return. The state goes on as the cold code's. */
static void next_vs_cold(struct fgt_agg *st, uint64_t ts, uint64_t ptr, int want)
{
	static struct fgt_agg cold;
	unsigned int puts = test_puts, next_puts;

	cold = *st;
	memcpy(slots_before, test_slots, sizeof(test_slots));
	assert_int_equal(fgt_agg_batch_next(st, NULL, ts, ptr), want);
	next_puts = test_puts - puts;
	if (!want) {
		assert_memory_equal(st, &cold, sizeof(cold));
		assert_memory_equal(test_slots, slots_before, sizeof(test_slots));
		assert_int_equal(next_puts, 0);
		*st = cold;
	} else {
		memcpy(slots_next, test_slots, sizeof(test_slots));
		memcpy(test_slots, slots_before, sizeof(test_slots));
	}
	puts = test_puts;
	fgt_agg_alloc_slow(&cold, NULL, ts, FGT_SRC_ATTRIBUTED, NULL, ptr, GEN_GFP_KERNEL, 1, 0);
	if (want) {
		assert_memory_equal(st, &cold, sizeof(cold));
		assert_memory_equal(test_slots, slots_next, sizeof(test_slots));
		assert_int_equal(test_puts - puts, next_puts);
	}
	*st = cold;
}

static void test_batch_next(void **state)
{
	static const uint64_t walks[] = { 0, 1, 700, 2900, 123456, 1ull << 31, 3000000000ull };
	static struct fgt_agg st;
	uint64_t ts, ptr = 0xffff888000000000ull;
	unsigned int taken = 0;

	for (int trusted = 0; trusted < 2; trusted++) {
		memset(&st, 0, sizeof(st));
		memset(test_slots, 0, sizeof(test_slots));
		st.res_trust = trusted;
		ts = 1000000;
		fgt_agg_act_begin(&st, NULL, &(struct fgt_agg_begin){ .ts = ts, .nr_threads = 9999,
								       .src = FGT_SRC_ATTRIBUTED });
		batch_of(&st, &ts, &ptr, 32, trusted);
		/* every fill of the queue, each gap, touched or not, the clock back */
		for (unsigned int k = 0; k < 2 * FGT_AGG_PEND + 3; k++) {
			uint64_t walk = walks[k % (sizeof(walks) / sizeof(walks[0]))];

			if (k % 3 == 1)
				fgt_agg_touch(&st, ts + 10);
			ts = k % 5 == 4 ? ts - 30 : ts + walk;
			next_vs_cold(&st, ts, ptr += 4096, 2);
			taken++;
			batch_of(&st, &ts, &ptr, 31, trusted);
		}
		/* a sweep that is not a clean full batch: a free in it */
		batch_of(&st, &ts, &ptr, 0, trusted);
		fgt_agg_free(&st, NULL, ts += 10, FGT_SRC_ATTRIBUTED, NULL, ptr);
		next_vs_cold(&st, ts += 5000, ptr += 4096, 0);
		batch_of(&st, &ts, &ptr, 31, trusted);
		next_vs_cold(&st, ts += 5000, ptr += 4096, 2);
		/* a batch not full yet */
		batch_of(&st, &ts, &ptr, 10, trusted);
		next_vs_cold(&st, ts += 700, ptr += 4096, 0);
		/* one short of the last sweep, then the last */
		batch_of(&st, &ts, &ptr, 20, trusted);
		st.act.nr_sweeps = FGT_AGG_MAX_SWEEPS - 1;
		next_vs_cold(&st, ts += 5000, ptr += 4096, 2);
		assert_int_equal(st.act.nr_sweeps, FGT_AGG_MAX_SWEEPS);
		batch_of(&st, &ts, &ptr, 31, trusted);
		next_vs_cold(&st, ts += 5000, ptr += 4096, 0);
		assert_int_equal(st.act.nr_sweeps, FGT_AGG_MAX_SWEEPS);
	}
	assert_int_equal(taken, 2 * (2 * FGT_AGG_PEND + 3));
}

/* The fast path's table of slots: fgt_agg_hist_slot()'s, at every gap it
 * holds, and nothing outside [64, 16384). */
static void test_slot_table(void **state)
{
	for (uint64_t v = FGT_AGG_TBL_LO; v < FGT_AGG_TBL_HI; v++)
		assert_int_equal(fgt_agg_slot_tbl[((v - FGT_AGG_TBL_LO) >> 6) + 1],
				 fgt_agg_hist_slot(v) * sizeof(__u64));
	assert_int_equal(fgt_agg_slot_tbl[0], 0);
	assert_int_equal(sizeof(fgt_agg_slot_tbl), FGT_AGG_TBL_HI / FGT_AGG_TBL_LO);
}

/* ---- the consumer's side of BPF's messages ---- */

static void test_hostile_messages(void **state)
{
	struct side sd = { 0 };
	struct fgt_agg_collector *c = fgt_agg_collect_new(side_cb, &sd);
	/* direct sweeps (their calls seen): settling keeps them as they came */
	struct fgt_agg_sweep s = { .seq = 5, .index = FGT_AGG_MAX_SWEEPS, .served = 32, .batch = 32,
				   .ret_known = 1 };
	struct fgt_agg_act a = { .seq = 5, .nr_sweeps = 3, .served = 64 };

	assert_non_null(c);
	assert_int_equal(fgt_agg_collect_sweep(c, &s), -EINVAL);
	s.index = 0;
	assert_int_equal(fgt_agg_collect_sweep(c, &s), 0);
	s.index = 2;
	assert_int_equal(fgt_agg_collect_sweep(c, &s), 0);
	memset(a.comm, 'x', sizeof(a.comm));	/* unterminated */
	assert_int_equal(fgt_agg_collect_act(c, &a), 0);
	assert_int_equal(sd.n, 1);
	assert_int_equal(sd.acts[0].nr_sweeps, 3);
	assert_int_equal(sd.acts[0].sweeps[0].served, 32);
	assert_int_equal(sd.acts[0].sweeps[1].served, 0);	/* never came: lost */
	assert_int_equal(sd.acts[0].sweeps[2].served, 32);
	assert_int_equal(sd.acts[0].lost, 1);
	assert_int_equal(strlen(sd.acts[0].comm), FGT_COMM_LEN - 1);
	/* a sweep of another activation is not this one's */
	s.seq = 6;
	s.index = 0;
	assert_int_equal(fgt_agg_collect_sweep(c, &s), 0);
	a.seq = 7;
	a.nr_sweeps = 1;
	a.lost = 2;
	assert_int_equal(fgt_agg_collect_act(c, &a), 0);
	assert_int_equal(sd.acts[1].sweeps[0].served, 0);
	assert_int_equal(sd.acts[1].lost, 3);
	/* an absurd count is clamped to the assembler's limit */
	a.nr_sweeps = UINT32_MAX;
	assert_int_equal(fgt_agg_collect_act(c, &a), 0);
	assert_int_equal(sd.acts[2].batches, FGT_AGG_MAX_SWEEPS);
	side_fini(&sd);
	fgt_agg_collect_free(c);
}

/* BPF's message of FGT_AGG_PEND finished sweeps: short or overfull, refused
 * whole; else each held, a sweep that makes no sense refused alone. */
static void test_sweeps_message(void **state)
{
	struct side sd = { 0 };
	struct fgt_agg_collector *c = fgt_agg_collect_new(side_cb, &sd);
	struct fgt_sweeps_msg m;
	struct fgt_agg_act a = { .seq = 9, .nr_sweeps = 3 };

	assert_non_null(c);
	memset(&m, 0, sizeof(m));
	m.ev.type = FGT_EV_SWEEP_DONE;
	m.ev.size = FGT_AGG_PEND + 1;
	assert_int_equal(fgt_agg_collect_sweeps(c, &m, sizeof(m)), -EINVAL);
	m.ev.size = 3;
	for (uint32_t i = 0; i < 3; i++)
		m.s[i] = (struct fgt_agg_sweep){ .seq = 9, .index = i, .batch = 32, .served = 30 + i,
						 .ret_known = 1 };
	m.s[1].index = FGT_AGG_MAX_SWEEPS;	/* makes no sense: that one alone */
	assert_int_equal(fgt_agg_collect_sweeps(c, &m, sizeof(m) - 1), -EINVAL);
	assert_int_equal(fgt_agg_collect_sweeps(NULL, &m, sizeof(m)), -EINVAL);
	assert_int_equal(fgt_agg_collect_sweeps(c, &m, sizeof(m)), -EINVAL);
	assert_int_equal(fgt_agg_collect_act(c, &a), 0);
	assert_int_equal(sd.n, 1);
	assert_int_equal(sd.acts[0].sweeps[0].served, 30);
	assert_int_equal(sd.acts[0].sweeps[1].served, 0);
	assert_int_equal(sd.acts[0].sweeps[2].served, 32);
	assert_int_equal(sd.acts[0].lost, 1);
	side_fini(&sd);
	fgt_agg_collect_free(c);
}

/* Around FGT_AGG_PEND: activations of 15 to 33 sweeps, both paths, in a
 * row; those an activation's last message did not carry go with its end. */
static void test_pend_edges(void **state)
{
	static const unsigned int sweeps[] = { 1, 15, 16, 17, 31, 32, 33 };
	struct pair p;
	uint64_t ts = 1000;
	unsigned int n = 0;

	pair_init(&p);
	for (size_t i = 0; i < sizeof(sweeps) / sizeof(sweeps[0]); i++)
		for (int direct = 0; direct < 2; direct++) {
			struct gen_cfg g = { .lacking = sweeps[i] * FGT_RETSTACK_BATCH - 1,
					     .direct = direct, .ts0 = ts };

			ts = gen_activation(&g, pair_feed, &p) + 100000;
			n++;
		}
	pair_flush(&p);
	assert_int_equal(pair_same(&p, "pend edges"), n);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(p.agg.acts[i].nr_sweeps, sweeps[i / 2]);
	pair_fini(&p);
}

/* BPF's end message: the whole state, finished here. Garbage in it is
 * bounded as the rest is; a state with no activation under way is refused. */
static void test_end_message(void **state)
{
	struct side sd = { 0 };
	struct fgt_agg_collector *c = fgt_agg_collect_new(side_cb, &sd);
	struct fgt_agg st;

	assert_non_null(c);
	memset(&st, 0, sizeof(st));
	assert_int_equal(fgt_agg_collect_end(c, &st), -EINVAL);
	assert_int_equal(fgt_agg_collect_end(c, NULL), -EINVAL);
	assert_int_equal(sd.n, 0);
	memset(&st, 0xa5, sizeof(st));	/* every field hostile */
	st.act.active = 1;
	st.act_ev.ok = 1;
	assert_int_equal(fgt_agg_collect_end(c, &st), 0);
	assert_int_equal(sd.n, 1);
	assert_true(sd.acts[0].nr_sweeps <= FGT_AGG_MAX_SWEEPS);
	assert_int_equal(strlen(sd.acts[0].comm), FGT_COMM_LEN - 1);
	side_fini(&sd);
	fgt_agg_collect_free(c);
}

/* At exit, the activation under way in BPF's state: reported incomplete. */
static void test_flush_snapshot(void **state)
{
	struct gen_cfg cfg = { .lacking = 1000 };
	struct stream st = { 0 };
	struct pair p;

	gen_activation(&cfg, stream_add, &st);
	pair_init(&p);
	for (size_t i = 0; i < st.n / 2; i++)
		pair_feed(&st.ev[i], &p);
	/* the consumer holds the sweeps put so far; BPF's state has the rest */
	fgt_agg_collect_flush_snap(p.g, agg_replay_state(p.r));
	fgt_assembler_flush(p.a);
	assert_int_equal(pair_same(&p, "flush"), 1);
	assert_false(p.agg.acts[0].complete);
	assert_int_equal(p.agg.acts[0].lost, 0);
	assert_true(p.agg.acts[0].nr_sweeps > 10);
	pair_fini(&p);
	free(st.ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded),
		cmocka_unit_test(test_generated),
		cmocka_unit_test(test_fast_share),
		cmocka_unit_test(test_in_a_row),
		cmocka_unit_test(test_kinds_and_gaps),
		cmocka_unit_test(test_lossy),
		cmocka_unit_test(test_fuzz),
		cmocka_unit_test(test_hist_slot),
		cmocka_unit_test(test_reserve_set),
		cmocka_unit_test(test_batch_next),
		cmocka_unit_test(test_slot_table),
		cmocka_unit_test(test_hostile_messages),
		cmocka_unit_test(test_sweeps_message),
		cmocka_unit_test(test_pend_edges),
		cmocka_unit_test(test_end_message),
		cmocka_unit_test(test_flush_snapshot),
	};

	(void)test_puts;
	return cmocka_run_group_tests_name("agg", tests, NULL, NULL);
}
