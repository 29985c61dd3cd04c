// SPDX-License-Identifier: GPL-2.0
/*
 * The progress and time-left model of an activation under way (src/model/progress.c)
 * over generated activations (tests/lib/gen.c simulates
 * alloc_retstack_tasklist() line by line) and the recorded ones of tests/data: the figures rise, the
 * sweeps to come are ceil(lacking / 32), and the range of the time left,
 * taken as a live view would (its data a drain behind), holds the real
 * remaining time, including where the walk is not linear, and on the real
 * walks recorded but where the host's load then went past anything the walk
 * had shown (those counted); on a walk that keeps one pace it is narrow.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "model/activation.h"
#include "lib/events.h"
#include "lib/gen.h"
#include "model/progress.h"
#include "common/clock.h"
#include "bpf/agg_abi.h"

struct evs {
	struct fgt_event *e;
	size_t n, cap;
};

static void keep(const struct fgt_event *ev, void *ctx)
{
	struct evs *v = ctx;

	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 4096;
		v->e = realloc(v->e, v->cap * sizeof(*v->e));
		assert_non_null(v->e);
	}
	v->e[v->n++] = *ev;
}

/* The activation's ACT_BEGIN and ACT_END times. */
static void span(const struct evs *v, uint64_t *begin, uint64_t *end)
{
	for (size_t i = 0; i < v->n; i++) {
		if (v->e[i].type == FGT_EV_ACT_BEGIN)
			*begin = v->e[i].ts_ns;
		if (v->e[i].type == FGT_EV_ACT_END)
			*end = v->e[i].ts_ns;
	}
}

/*
 * Replay v into an assembler as a live view sees it: the events up to time
 * `seen`, the view drawn at `now` (>= seen: the data is a drain behind).
 */
static struct fgt_assembler *fed(const struct evs *v, uint64_t seen)
{
	struct fgt_assembler *a = fgt_assembler_new(NULL, NULL);

	assert_non_null(a);
	for (size_t i = 0; i < v->n && v->e[i].ts_ns <= seen; i++)
		if (v->e[i].type != FGT_EV_ACT_END)
			fgt_assembler_feed(a, &v->e[i]);
	assert_non_null(fgt_assembler_current(a));
	return a;
}

static void at(const struct evs *v, uint64_t seen, uint64_t now, int64_t lacking,
	       struct fgt_progress *p)
{
	struct fgt_assembler *a = fed(v, seen);

	fgt_progress_of(fgt_assembler_current(a), now, lacking, 0, p);
	fgt_assembler_free(a);
}

/*
 * As at(), with the `lag` latest finished sweeps not drained yet: zero, as a
 * live view's are until their messages come (src/model/agg_collect.c).
 */
static void at_lag(const struct evs *v, uint64_t seen, uint32_t lag, struct fgt_progress *p)
{
	struct fgt_assembler *a = fed(v, seen);
	const struct fgt_activation *cur = fgt_assembler_current(a);
	struct fgt_activation act = *cur;
	struct fgt_sweep *sw;

	sw = calloc(act.nr_sweeps, sizeof(*sw));
	assert_non_null(sw);
	memcpy(sw, cur->sweeps, act.nr_sweeps * sizeof(*sw));
	for (uint32_t k = 1; k <= lag && k < act.nr_sweeps; k++)
		memset(&sw[act.nr_sweeps - 1 - k], 0, sizeof(*sw));
	act.sweeps = sw;
	fgt_progress_of(&act, seen, -1, 0, p);
	free(sw);
	fgt_assembler_free(a);
}

static double ratio(uint64_t eta, uint64_t actual)
{
	return actual ? (double)eta / actual : 0;
}

/* Unfixed, every thread lacking (a host's first activation): the lab's case. */
static void test_unfixed_first(void **state)
{
	struct gen_cfg c = { .lacking = 3000, .ts0 = 1000000 };
	struct evs v = {};
	struct fgt_progress p, prev = {};
	uint64_t begin = 0, end = 0;

	gen_activation(&c, keep, &v);
	span(&v, &begin, &end);
	for (int tenth = 1; tenth <= 9; tenth++) {
		uint64_t seen = begin + (end - begin) * tenth / 10;

		at(&v, seen, seen, -1, &p);
		assert_int_equal(p.threads, 3000);
		assert_false(p.lacking_exact);
		assert_int_equal(p.lacking, 3000 - p.served);
		assert_int_equal(p.so_far, FGT_VERDICT_NOT_FIXED);
		assert_true(p.to_come_known);
		/* the sweep under way hands out its whole batch: ceil(lacking/32) after it */
		assert_int_equal(p.sweeps_to_come, (3000 - 32 * p.sweeps + 31) / 32);
		assert_true(p.sweeps_to_come * 32 >= p.lacking - 32);
		/* 3000 / 32: 94 sweeps in all */
		assert_int_equal(p.sweeps + p.sweeps_to_come, 94);
		assert_true(p.served > prev.served && p.sweeps > prev.sweeps);
		assert_true(p.elapsed_ns > prev.elapsed_ns);
		assert_true(p.eta_known);
		/* the model is the generator's, one pace: both ends within 3 % */
		assert_in_range((uint64_t)(ratio(p.eta_ns, end - seen) * 100), 97, 103);
		assert_in_range((uint64_t)(ratio(p.eta_high_ns, end - seen) * 100), 97, 103);
		prev = p;
	}
	free(v.e);
}

/* Threads that hold a stack walked first by every sweep (a later activation,
 * threads created since at the list's end): each sweep nearly a full walk. */
static void test_unfixed_behind(void **state)
{
	struct gen_cfg c = { .before = 20000, .lacking = 1000, .ts0 = 5000 };
	struct evs v = {};
	struct fgt_progress p;
	uint64_t begin = 0, end = 0, half;

	gen_activation(&c, keep, &v);
	span(&v, &begin, &end);
	half = begin + (end - begin) / 2;
	/* U from an exposure scan: exact */
	at(&v, half, half, fgt_progress_lacking_at_start(1000, 21000, 21000), &p);
	assert_true(p.lacking_exact);
	assert_int_equal(p.threads, 1000);
	assert_int_equal(p.sweeps + p.sweeps_to_come, 32);
	assert_in_range((uint64_t)(ratio(p.eta_ns, end - half) * 100), 95, 105);
	/* from nr_threads alone the threads left are an upper bound, and so is the time */
	at(&v, half, half, -1, &p);
	assert_int_equal(p.threads, 21000);
	assert_true(p.eta_ns > (end - half) * 10);
	free(v.e);
}

/* The data is a drain behind the screen: the estimate stays on the kernel's
 * clock, the time left shrinks by the drawing's lag, never below 0. */
static void test_stale(void **state)
{
	struct gen_cfg c = { .lacking = 3000, .ts0 = 1000000 };
	struct evs v = {};
	struct fgt_progress fresh, stale, late;
	uint64_t begin = 0, end = 0, half, lag;

	gen_activation(&c, keep, &v);
	span(&v, &begin, &end);
	half = begin + (end - begin) / 2;
	lag = (end - half) / 4;
	at(&v, half, half, -1, &fresh);
	at(&v, half, half + lag, -1, &stale);
	assert_int_equal(stale.end_ns, fresh.end_ns);
	assert_int_equal(stale.eta_ns, fresh.eta_ns - lag);
	assert_int_equal(stale.data_age_ns, fresh.data_age_ns + lag);
	/* past the estimate: due now */
	at(&v, half, end * 2, -1, &late);
	assert_true(late.eta_known);
	assert_int_equal(late.eta_ns, 0);
	free(v.e);
}

/*
 * A time worked out from absurd figures saturates (tests/fuzz/fuzz_bpfdata.c
 * found a pace times the threads lacking past 2^64 converted, undefined):
 * (uint64_t) of 2^102 gave 2^63 here, an end in the past of a wrapped sum.
 */
static void test_ns_after(void **state)
{
	assert_int_equal(fgt_ns_after(5, 10.9), 15);
	assert_int_equal(fgt_ns_after(5, -3.0), 5);
	assert_int_equal(fgt_ns_after(5, 0.0 / 0.0), 5);
	assert_true(fgt_ns_after(1000, 0x1p102) == UINT64_MAX);
	assert_true(fgt_ns_after(UINT64_MAX - 10, 11.0) == UINT64_MAX);
	assert_true(fgt_ns_after(UINT64_MAX - 10, 10.0) == UINT64_MAX);
	assert_true(fgt_ns_after(1, 0x1p63) == (1ull << 63) + 1);
	(void)state;
}

/* Fixed: one walk allocating inline; the rate so far gives the rest. */
static void test_fixed(void **state)
{
	struct gen_cfg c = { .fixed = true, .lacking = 5000, .ts0 = 1000 };
	struct evs v = {};
	struct fgt_progress p;
	uint64_t begin = 0, end = 0, half;

	gen_activation(&c, keep, &v);
	span(&v, &begin, &end);
	half = begin + (end - begin) / 2;
	at(&v, half, half, -1, &p);
	assert_int_equal(p.so_far, FGT_VERDICT_FIXED);
	assert_int_equal(p.sweeps, 1);
	assert_false(p.to_come_known);
	assert_true(p.eta_known);
	assert_in_range((uint64_t)(ratio(p.eta_ns, end - half) * 100), 90, 110);
	/* a point: the range's two ends are one */
	assert_int_equal(p.eta_high_ns, p.eta_ns);
	assert_int_equal(p.end_high_ns, p.end_ns);
	free(v.e);
}

/*
 * Fixed, degraded by memory pressure: non-blocking failures spread through
 * the walk (every 20th attempt, 200 of them), 1 + floor(200 / 33) = 7
 * sweeps, each after the first walking the threads already served again.
 * Still a fixed kernel to the view (no batches-of-32 forecast), and the time
 * left stays near the real remaining time wherever it is drawn, above all
 * just after a sweep began again (its rate so far holds a reserve and a walk
 * over served threads, not allocations).
 */
static void test_fixed_degraded(void **state)
{
	struct gen_cfg c = { .fixed = true, .lacking = 5000, .fail_nb = 200,
			     .fail_interval = 20, .ts0 = 1000 };
	struct evs v = {};
	struct fgt_progress p;
	uint64_t begin = 0, end = 0, t;
	unsigned int sweeps_seen = 0;

	gen_activation(&c, keep, &v);
	span(&v, &begin, &end);
	for (size_t i = 1; i < v.n; i++) {
		/* a later sweep's first inline allocation: its reserve came before */
		if (v.e[i].type != FGT_EV_ALLOC || (v.e[i].gfp & FGT_GFP_DIRECT_RECLAIM) ||
		    !(v.e[i - 1].gfp & FGT_GFP_DIRECT_RECLAIM) || v.e[i - 1].type != FGT_EV_ALLOC)
			continue;
		t = v.e[i].ts_ns;
		at(&v, t, t, -1, &p);
		if (p.sweeps < 2)
			continue;
		sweeps_seen++;
		assert_int_equal(p.so_far, FGT_VERDICT_FIXED);
		assert_false(p.to_come_known);
		assert_true(p.eta_known);
		assert_in_range((uint64_t)(ratio(p.eta_ns, end - t) * 100), 80, 120);
	}
	assert_int_equal(sweeps_seen, 6);
	for (unsigned int q = 1; q < 4; q++) {
		t = begin + (end - begin) * q / 4;
		at(&v, t, t, -1, &p);
		assert_int_equal(p.so_far, FGT_VERDICT_FIXED);
		assert_true(p.eta_known);
		assert_in_range((uint64_t)(ratio(p.eta_ns, end - t) * 100), 80, 120);
	}
	free(v.e);
}

/*
 * Fixed, under persistent pressure (the lab's starved kswapd,
 * lab/scenarios/pressure.sh STARVE=1): the first 500 inline allocations
 * succeed, then every one fails, so each sweep after the first serves its
 * reserve and walks again over every thread served: the series' fix gone
 * quadratic. Once two of those walks have ended the estimate is a range, and
 * the time really left lies in it wherever it is drawn; its high end, the end
 * if allocations keep failing as they have, is at most 3x the time left
 * here: the fit's a + b*k alone was the end within 10 %, and the bound on
 * walks again (the time so far times (S / s)^2, progress.c
 * walked_again_bound()) that keeps the high end above the time left on
 * the live views of the lab's walks stands above it while the reserve's
 * own cost weighs (2.8x at 30 %, 1.2x at 80 %). lab-fixed-plus's growing reserve ends after the low end too, but
 * not always before the high one: each of its sweeps serves more than the
 * last, and costs more (a reserve twice as big to allocate), which no
 * a + b*k foresees; the line says "failing as they have since its first
 * sweep", and that is what the high end is.
 */
static void persistent(bool grow, unsigned int want_sweeps)
{
	struct gen_cfg c = { .fixed = true, .grow = grow, .lacking = 3000, .fail_after = 500,
			     .fail_nb = 100000, .ts0 = 1000 };
	struct evs v = {};
	struct fgt_progress p;
	uint64_t begin = 0, end = 0, t, left, served = 0;
	unsigned int ranged = 0;

	gen_activation(&c, keep, &v);
	span(&v, &begin, &end);
	at(&v, end - 1, end - 1, -1, &p);
	assert_int_equal(p.sweeps, want_sweeps);
	for (unsigned int pc = 5; pc < 100; pc += 5) {
		t = begin + (end - begin) * pc / 100;
		left = end - t;
		at(&v, t, t, -1, &p);
		assert_int_equal(p.so_far, FGT_VERDICT_FIXED);
		assert_true(p.eta_known);
		/* the reserve counts as it is handed out: never past U */
		assert_true(p.served <= 3000 && p.served >= served);
		served = p.served;
		print_message("%s %2u%%: %u sweeps, left %.3f ms, range %.3f - %.3f ms%s\n",
			      grow ? "plus  " : "series", pc, p.sweeps, left / 1e6,
			      p.eta_ns / 1e6, p.eta_high_ns / 1e6, p.degraded ? "" : " (a point)");
		if (p.sweeps < 4) {
			assert_false(p.degraded);
			continue;
		}
		assert_true(p.degraded);
		assert_true(p.eta_ns <= left);
		/* under a third served its high end is open: the low end alone */
		if (p.served < 1000) {
			assert_true(p.high_open);
			assert_int_equal(p.eta_high_ns, p.eta_ns);
			continue;
		}
		ranged++;
		if (!grow)
			assert_true(left <= p.eta_high_ns && p.eta_high_ns <= 3 * left);
		if (grow || p.sweeps < 8)
			continue;
		/* the same with the drain two sweeps behind: the range stands */
		at_lag(&v, t, 2, &p);
		assert_true(p.degraded);
		assert_true(p.eta_ns <= left && left <= p.eta_high_ns && p.eta_high_ns <= 3 * left);
	}
	print_message("%s: %u of 19 bounded\n", grow ? "plus  " : "series", ranged);
	assert_true(ranged >= 13);
	free(v.e);
}

static void test_fixed_persistent(void **state)
{
	/* 500 inline, then 32 per sweep: 1 + ceil(2468 / 32) sweeps (the first
	 * ends at its 33rd failure, every later one too but the last) */
	persistent(false, 1 + (3000 - 500 - 32 + 31) / 32);
	/* reserves of 32, 64, ..., 2048: 500 + 32 + 64 + ... + 1024 = 2516, and the
	 * last sweep's 2048 serves the 484 left */
	persistent(true, 7);
}

/* An unfixed sweep: its batch of 32 over its allocation phase, then the walk,
 * then what it did not hand out freed. */
static uint64_t replay_unfixed(struct evs *v, uint64_t ts, unsigned int served,
			       unsigned long long walk, unsigned long long alloc)
{
	struct fgt_event ev;

	for (int i = 0; i < 32; i++) {
		ev = (struct fgt_event){ .type = FGT_EV_ALLOC, .src = FGT_SRC_ATTRIBUTED,
			.site = FGT_SITE_SWEEP, .gfp = 0xcc0, .ok = 1, .size = 4096,
			.ts_ns = ts + alloc * (i + 1) / 32 };
		keep(&ev, v);
	}
	ts += alloc + walk;
	for (unsigned int i = served; i < 32; i++) {
		ev = (struct fgt_event){ .type = FGT_EV_FREE, .src = FGT_SRC_ATTRIBUTED,
					 .site = FGT_SITE_SWEEP, .ts_ns = ts };
		keep(&ev, v);
	}
	return ts;
}

/*
 * A fixed sweep: the reserve over the sweep's time outside its walk (alloc_ns
 * - walk_ns: alloc_ns holds the reserve and the inline allocations'
 * latencies, which walk_ns holds too), the inline allocations over the walk,
 * the successes first, then the unused reserve freed.
 */
static uint64_t replay_fixed(struct evs *v, uint64_t ts, unsigned int served,
			     unsigned long long walk, unsigned long long alloc,
			     unsigned int batch, unsigned int nb, unsigned int nbf)
{
	unsigned long long r = alloc > walk ? alloc - walk : batch * 300ull;
	struct fgt_event ev;

	for (unsigned int i = 0; i < batch; i++) {
		ev = (struct fgt_event){ .type = FGT_EV_ALLOC, .src = FGT_SRC_ATTRIBUTED,
			.site = FGT_SITE_SWEEP, .gfp = GEN_GFP_KERNEL, .ok = 1, .size = 4096,
			.ptr = 0xffff888000000000ull + (v->n << 12), .ts_ns = ts + r * (i + 1) / batch };
		keep(&ev, v);
	}
	ts += r;
	for (unsigned int i = 0; i < nb + nbf; i++) {
		ev = (struct fgt_event){ .type = FGT_EV_ALLOC, .src = FGT_SRC_ATTRIBUTED,
			.site = FGT_SITE_SWEEP, .gfp = GEN_GFP_NOWAIT, .ok = i < nb, .size = 4096,
			.ptr = i < nb ? 0xffff888000000000ull + (v->n << 12) : 0,
			.ts_ns = ts + walk * (i + 1) / (nb + nbf + 1) };
		keep(&ev, v);
	}
	ts += walk;
	for (unsigned int i = served - nb; i < batch; i++) {
		ev = (struct fgt_event){ .type = FGT_EV_FREE, .src = FGT_SRC_ATTRIBUTED,
					 .site = FGT_SITE_SWEEP, .ts_ns = ts };
		keep(&ev, v);
	}
	return ts;
}

/*
 * A real walk, sweep by sweep (tests/data/NAME.sweeps), replayed as the
 * attributed path's events. An unfixed walk's lines are "served walk_ns
 * alloc_ns" (replay_unfixed()), a fixed one's "served walk_ns alloc_ns batch
 * nonblocking failed_nonblocking" (replay_fixed()). Returns the sweeps; begin
 * and end are the walk's.
 */
static unsigned int load_sweeps(const char *name, struct evs *v, uint64_t *begin,
				uint64_t *end)
{
	const char *dir = getenv("FGT_TEST_DATA");
	char path[512], line[256];
	unsigned int served, batch, nb, nbf, sweeps = 0;
	unsigned long long walk, alloc, threads = 0;
	uint64_t ts = 1000000000;
	struct fgt_event ev;
	FILE *fp;
	int n;

	snprintf(path, sizeof(path), "%s/%s.sweeps", dir ? dir : "tests/data", name);
	fp = fopen(path, "r");
	assert_non_null(fp);
	*begin = ts;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "# sweeps=%*u served=%*u nr_threads=%llu", &threads) == 1) {
			ev = (struct fgt_event){ .type = FGT_EV_ACT_BEGIN, .src = FGT_SRC_ATTRIBUTED,
						 .ts_ns = ts, .nr_threads = threads, .stack_id = -1 };
			keep(&ev, v);
			continue;
		}
		n = sscanf(line, "%u %llu %llu %u %u %u", &served, &walk, &alloc, &batch, &nb, &nbf);
		if (n == 6)
			ts = replay_fixed(v, ts, served, walk, alloc, batch, nb, nbf);
		else if (n == 3)
			ts = replay_unfixed(v, ts, served, walk, alloc);
		else
			continue;
		sweeps++;
	}
	fclose(fp);
	assert_true(threads > 0);
	*end = ts;
	ev = (struct fgt_event){ .type = FGT_EV_ACT_END, .src = FGT_SRC_ATTRIBUTED, .ts_ns = ts };
	keep(&ev, v);
	return sweeps;
}

/*
 * lab-fixed's walks with kswapd starved (tests/data/lab-fixed-*starved*),
 * quiet and loaded hosts (their headers say which), replayed at every
 * hundredth of its time but the last few (the activation goes on past its
 * last sweep, starting the tracer). Exact, whatever the walk: a fixed
 * kernel to the view all along, degraded once two walks again have ended,
 * its high end open under a third served and bounded from there (the
 * series' walks: an open one has served under half, a sweep in which
 * kswapd caught up serving up to 1,625 here).
 *
 * Then the estimate's hit rate, a measure (issue 38): the time really left
 * at or above the low end (open), inside the range (bounded). Both ends
 * assume the walk goes on at a pace it has shown, the host's and
 * reclaim's, and the line says so; where a walk changed its pace past
 * those it had shown, the time left falls outside. The counts are exact
 * (a replay is deterministic) and quoted in docs/EVENTS.md and the man
 * page: a change of the estimator changes them, and them.
 * On the first six every checkpoint is inside: the high end is at the
 * slowest pace shown and the walk went on at a faster one (the lab's host,
 * building kernels beside it, changed the pace 2x; CI's up to 17x: ci3's
 * sweeps 40 to 60 walked a thread again in 0.4 us, its first ones in 7),
 * from a tenth of its time within 4x of it on the lab's walks and 9x on
 * CI's (within, 0: not judged). Taking the last sweep's count made the
 * range collapse below the time left at 40 % of the first; the average let
 * the second's end pass the high end (and did live, 2 of 8 records); ci2's
 * drawn at 25 % put its high end at 2.87 s with 4.97 s left (hence the
 * third).
 */
struct starved_walk {
	const char *name;
	unsigned int sweeps, served, within;
	unsigned int points, hits;	/* degraded checkpoints, the time left in them */
	unsigned int live_points, live_hits;	/* the same as the live view sees them */
};

static const struct starved_walk starved_walks[] = {
	{ "lab-fixed-30k-starved", 316, 30049, 4, 96, 96, 95, 95 },
	{ "lab-fixed-30k-starved-b", 328, 30049, 4, 94, 94, 92, 92 },
	{ "lab-fixed-30k-starved-ci", 359, 30049, 9, 93, 93, 91, 91 },
	{ "lab-fixed-plus-30k-starved-ci", 10, 30053, 0, 84, 84, 0, 0 },
	{ "lab-fixed-30k-starved-ci2", 338, 30050, 9, 96, 96, 95, 95 },
	{ "lab-fixed-30k-starved-ci3", 289, 30152, 9, 96, 96, 94, 94 },
};

/*
 * live: as the live view sees it. BPF puts the finished sweeps out 16 at a
 * time (bpf/agg.h fgt_agg_put(), FGT_AGG_PEND), so up to 15 of the latest
 * are not drained yet when it draws (zero: src/model/agg_collect.c), and the
 * estimate fits those before them: at_lag() by the sweeps finished mod 16.
 */
static void replay_starved(const struct starved_walk *w, bool live, unsigned int *points,
			   unsigned int *hits)
{
	struct evs v = {};
	struct fgt_progress p;
	uint64_t begin, end;
	unsigned int open = 0, closed = 0;

	*points = *hits = 0;
	assert_int_equal(load_sweeps(w->name, &v, &begin, &end), w->sweeps);
	at(&v, end, end, -1, &p);
	assert_int_equal(p.sweeps, w->sweeps);
	assert_int_equal(p.served, w->served);
	for (int pc = 1; pc < 97; pc++) {
		uint64_t seen = begin + (end - begin) * pc / 100, left = end - seen;
		bool in;

		at(&v, seen, seen, -1, &p);
		if (live)
			at_lag(&v, seen, (p.sweeps - 1) % FGT_AGG_PEND, &p);
		assert_int_equal(p.so_far, FGT_VERDICT_FIXED);
		/* until two walks again have ended the estimate is a point
		 * from the finished sweeps' rate: CI's first was 271 us a
		 * thread, the later ones 35 to 60 (live: until they are
		 * drained, from the 16th sweep on) */
		if (p.sweeps < 4 || (live && p.sweeps <= FGT_AGG_PEND))
			continue;
		assert_true(p.degraded);
		assert_true(p.eta_ns <= p.eta_high_ns);
		/* bounded from a third served, open before */
		if (p.high_open)
			assert_true(p.served < p.threads);
		else
			assert_true(p.served >= p.threads / 3);
		if (w->sweeps >= 100 && p.high_open)
			assert_true(p.served < w->served / 2);
		/* lab-fixed-plus's reserve grows, which no a + b*k foresees:
		 * its low end alone is measured */
		in = p.eta_ns <= left && (p.high_open || w->sweeps < 100 || left <= p.eta_high_ns);
		(*points)++;
		*hits += in;
		if (pc % 10 == 0 || !in)
			print_message("%-29s %s %3d%%: %u sweeps, left %7.3f s, range %7.3f - %7.3f s%s%s\n",
				      w->name, live ? "live" : "    ", pc, p.sweeps, left / 1e9, p.eta_ns / 1e9,
				      p.eta_high_ns / 1e9, p.high_open ? " (open)" : "",
				      in ? "" : " OUT");
		if (p.high_open) {
			open++;
			continue;
		}
		closed++;
		if (in && w->within && pc >= 10)
			assert_true(p.eta_high_ns <= left * w->within);
	}
	/* the series' walks: open early, bounded from then on */
	assert_true(w->sweeps < 100 || (open > 0 && closed > 50) || (live && closed > 50));
	free(v.e);
}

static void test_recorded_starved(void **state)
{
	unsigned int points, hits, all = 0, in = 0, live_all = 0, live_in = 0;

	for (size_t f = 0; f < sizeof(starved_walks) / sizeof(starved_walks[0]); f++) {
		const struct starved_walk *w = &starved_walks[f];

		replay_starved(w, false, &points, &hits);
		print_message("%-34s the time left in the estimate at %u of %u checkpoints\n",
			      w->name, hits, points);
		assert_int_equal(points, w->points);
		assert_int_equal(hits, w->hits);
		all += points;
		in += hits;
		replay_starved(w, true, &points, &hits);
		print_message("%-34s live: at %u of %u\n", w->name, hits, points);
		assert_int_equal(points, w->live_points);
		assert_int_equal(hits, w->live_hits);
		live_all += points;
		live_in += hits;
	}
	print_message("degraded walks: the time left in the estimate at %u of %u checkpoints "
		      "(%.1f %%), as the live view sees them at %u of %u (%.1f %%)\n", in, all,
		      100.0 * in / all, live_in, live_all, 100.0 * live_in / live_all);
}

/*
 * The sweeps not drained yet count in the pace: a live view's latest ones
 * come a drain later, and when the host slowed the walk during them the
 * slowest pace is theirs. An unfixed walk at a steady pace, its 10 latest
 * finished sweeps not drained, and the same walk with those 10 taking twice
 * as long: the high end follows (the time left at the new pace), the low
 * end does not move.
 */
static void test_undrained_pace(void **state)
{
	struct gen_cfg c = { .lacking = 3000, .ts0 = 1000000 };
	struct evs v = {}, w = {};
	struct fgt_progress steady, slow;
	struct fgt_assembler *a;
	const struct fgt_activation *cur;
	uint64_t begin = 0, end = 0, half, from, d;

	gen_activation(&c, keep, &v);
	span(&v, &begin, &end);
	half = begin + (end - begin) / 2;
	a = fed(&v, half);
	cur = fgt_assembler_current(a);
	assert_true(cur->nr_sweeps > 20);
	from = cur->sweeps[cur->nr_sweeps - 11].begin_ns;
	d = cur->sweeps[cur->nr_sweeps - 1].begin_ns - from;
	fgt_assembler_free(a);
	/* the same events, those of the 10 sweeps' time on taking 2x */
	for (size_t i = 0; i < v.n; i++) {
		struct fgt_event ev = v.e[i];

		if (ev.ts_ns > from)
			ev.ts_ns += ev.ts_ns - from < d ? ev.ts_ns - from : d;
		keep(&ev, &w);
	}
	at_lag(&v, half, 10, &steady);
	at_lag(&w, half + d, 10, &slow);
	assert_true(steady.eta_known && slow.eta_known);
	assert_int_equal(slow.sweeps, steady.sweeps);
	print_message("steady %.3f - %.3f ms, 10 undrained at half the pace %.3f - %.3f ms\n",
		      steady.eta_ns / 1e6, steady.eta_high_ns / 1e6, slow.eta_ns / 1e6,
		      slow.eta_high_ns / 1e6);
	assert_true(slow.eta_high_ns >= steady.eta_high_ns * 18 / 10);
	assert_true(slow.eta_ns <= steady.eta_ns + steady.eta_ns / 10);
	free(v.e);
	free(w.e);
}

/* Too early to tell: the first batch only (a fixed kernel's reserve looks the
 * same), or nothing yet. No pattern, no estimate, no sweeps to come. */
static void test_early(void **state)
{
	struct gen_cfg c = { .lacking = 3000, .ts0 = 1000000 };
	struct evs v = {};
	struct fgt_progress p;

	gen_activation(&c, keep, &v);
	/* ACT_BEGIN and 10 allocations of the first batch */
	at(&v, v.e[10].ts_ns, v.e[10].ts_ns + 5, -1, &p);
	assert_int_equal(p.sweeps, 1);
	assert_int_equal(p.served, 10);
	assert_int_equal(p.so_far, FGT_VERDICT_UNKNOWN);
	assert_false(p.to_come_known);
	assert_false(p.eta_known);
	assert_int_equal(p.data_age_ns, 5);
	assert_string_equal(p.comm, "trace-cmd");
	assert_int_equal(p.pid, 4242);
	/* the ACT_BEGIN alone */
	at(&v, v.e[0].ts_ns, v.e[0].ts_ns + 100, -1, &p);
	assert_int_equal(p.sweeps, 0);
	assert_int_equal(p.elapsed_ns, 100);
	assert_false(p.eta_known);
	free(v.e);
}

/*
 * A walk that is not linear: the cost of a thread visit grows as the walk
 * goes deeper (a list longer than the caches, as under qemu), plus noise.
 * Sweep k lasts A + B*k + C*k^2 with +-20 % jitter. From a third of the way
 * on, the range holds the time left (the jitter is a pace, the convexity a
 * pace that grows) and is no wider than 3x.
 */
static void test_convex(void **state)
{
	const unsigned int S = 938, U = S * 32;	/* 30,016 threads */
	const double A = 20000, B = 3000, C = 2;
	struct fgt_event ev = { .src = FGT_SRC_ATTRIBUTED, .pid = 1, .tid = 1 };
	struct evs v = {};
	uint64_t ts = 1000000, begin = ts, end, seen;
	struct fgt_progress p;
	unsigned int seed = 7;

	ev.type = FGT_EV_ACT_BEGIN;
	ev.ts_ns = ts;
	ev.nr_threads = U;
	keep(&ev, &v);
	for (unsigned int k = 0; k < S; k++) {
		double d = A + B * k + C * k * k, jitter = 0.8 + 0.4 * (rand_r(&seed) % 1000) / 1000.0;

		for (int i = 0; i < 32; i++) {
			ev = (struct fgt_event){ .type = FGT_EV_ALLOC, .src = FGT_SRC_ATTRIBUTED,
				.site = FGT_SITE_SWEEP, .gfp = 0xcc0, .ok = 1, .size = 4096,
				.ts_ns = ts + 100 * (i + 1) };
			keep(&ev, &v);
		}
		ts += (uint64_t)(d * jitter);
	}
	end = ts;
	ev = (struct fgt_event){ .type = FGT_EV_ACT_END, .src = FGT_SRC_ATTRIBUTED, .ts_ns = end };
	keep(&ev, &v);
	for (int third = 1; third <= 2; third++) {
		seen = begin + (end - begin) * third / 3;
		at(&v, seen, seen, -1, &p);
		assert_true(p.eta_known);
		assert_true(p.eta_ns <= end - seen && end - seen <= p.eta_high_ns);
		assert_true(p.eta_high_ns < 3 * p.eta_ns);
	}
	/* halfway in time */
	seen = begin + (end - begin) / 2;
	at(&v, seen, seen, -1, &p);
	print_message("convex walk, halfway: %llu sweeps seen, %llu to come, %.3f to %.3f s, "
		      "actual %.3f s\n", (unsigned long long)p.sweeps,
		      (unsigned long long)p.sweeps_to_come, p.eta_ns / 1e9, p.eta_high_ns / 1e9,
		      (end - seen) / 1e9);
	assert_true(p.eta_ns <= end - seen && end - seen <= p.eta_high_ns);
	free(v.e);
}

/*
 * The lab's 30,049-thread activation on lab-stock (tests/data/lab-stock-30k):
 * the sweeps to come add up to those it made wherever it is taken.
 */
static void test_lab_walk(void **state)
{
	struct evs v = {};
	uint64_t begin, end;

	assert_int_equal(load_sweeps("lab-stock-30k", &v, &begin, &end), 940);
	for (int sixth = 1; sixth <= 5; sixth++) {
		uint64_t seen = begin + (end - begin) * sixth / 6;
		struct fgt_progress p;

		at(&v, seen, seen, -1, &p);
		assert_true(p.eta_known);
		assert_int_equal(p.sweeps + p.sweeps_to_come, 940);
	}
	free(v.e);
}

/* A checkpoint of a recorded walk known to fall outside the range. */
struct walk_point {
	const char *name;
	int pc;
	bool above;	/* the time left above the range (else below) */
};

static const struct walk_point *known_outside(const struct walk_point *w, size_t n,
					      const char *name, int pc)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(w[i].name, name) && w[i].pc == pc)
			return &w[i];
	return NULL;
}

/*
 * Every real unfixed walk recorded (tests/data/NAME.sweeps; their headers say
 * where each comes from): the time actually left lies inside the range at
 * 10, 25, 50, 75 and 90 % of the walk's time, as a live view would draw it.
 * These include walks that sped up and slowed down under a loaded host, the
 * case a single fit missed by up to 3x. Three checkpoints are outside, and
 * stay counted as such, on their side, until the range covers them: on
 * Debian's 6.12 at 10 % and its 6.1 at 50 %, each beside two other guests,
 * the host then slowed the walk past any pace it had shown (on 6.1 the
 * guest's soft-lockup watchdog reported the walk on the console meanwhile);
 * on the second 6.12 run at 90 % the load on the host ended and the walk
 * sped up past any pace it had shown. The range assumes the pace seen, and
 * the line says so.
 */
static void test_walks_in_range(void **state)
{
	static const char *const names[] = {
		"lab-stock-30k", "bench-stock-30k-a", "bench-stock-30k-b", "bench-stock-30k-c",
		"bench-stock-20k", "bench-stock-30k-icount", "bench-stock-30k-pressure",
		"debian-6.12-20k-loaded", "debian-6.1-20k-loaded", "lab-stock-30k-loaded",
		"debian-6.12-20k-loaded-b",
	};
	static const struct walk_point outside[] = {
		{ "debian-6.12-20k-loaded", 10, true }, { "debian-6.1-20k-loaded", 50, true },
		{ "debian-6.12-20k-loaded-b", 90, false },
	};
	static const int pcs[] = { 10, 25, 50, 75, 90 };
	unsigned int out = 0, out_known = 0;

	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		struct evs v = {};
		uint64_t begin, end;

		load_sweeps(names[f], &v, &begin, &end);
		for (size_t c = 0; c < sizeof(pcs) / sizeof(pcs[0]); c++) {
			uint64_t seen = begin + (end - begin) * pcs[c] / 100, left = end - seen;
			const struct walk_point *k;
			struct fgt_progress p;

			at(&v, seen, seen, -1, &p);
			print_message("%-26s %3d%%: left %8.3f s, range %8.3f - %8.3f s (%u sweeps) %s\n",
				      names[f], pcs[c], left / 1e9, p.eta_ns / 1e9,
				      p.eta_high_ns / 1e9, p.fit_sweeps,
				      p.eta_ns <= left && left <= p.eta_high_ns ? "in" : "OUT");
			assert_true(p.eta_known);
			assert_true(p.eta_ns <= p.eta_high_ns);
			k = known_outside(outside, sizeof(outside) / sizeof(outside[0]),
					  names[f], pcs[c]);
			if (k) {
				out_known += k->above ? left > p.eta_high_ns : left < p.eta_ns;
				continue;
			}
			out += !(p.eta_ns <= left && left <= p.eta_high_ns);
		}
		free(v.e);
	}
	/* every checkpoint printed first, then none outside but the known ones */
	assert_int_equal(out, 0);
	assert_int_equal(out_known, sizeof(outside) / sizeof(outside[0]));
}

/* The settled activation of a replay: its walks, sweeps and served. */
struct settled {
	uint32_t walks, nr_sweeps, batches;
	uint32_t first;		/* the fewest sweeps whose gaps show the walks */
	uint64_t served;
	int n;
};

static void settled_cb(const struct fgt_activation *act, void *ctx)
{
	struct settled *s = ctx;

	s->walks = act->walks;
	s->nr_sweeps = act->nr_sweeps;
	s->batches = act->batches;
	s->served = act->served;
	s->n++;
	for (s->first = 2; s->first < act->nr_sweeps; s->first++)
		if (fgt_walks_in_gaps(act->sweeps, s->first))
			break;
}

/*
 * Every recorded unfixed walk, replayed whole on the attributed path: its
 * walks shown by the gaps between its batches (docs/EVENTS.md, "Walks"),
 * every batch a sweep, every thread served. lab-debug-stock-1k is the one
 * the live tool called "not observable" (its gaps' early spikes broke the
 * rank order, rho 0.49): the lower envelope of the gaps shows its walks.
 * Each shows them by its 32nd sweep (the raw gaps: debian-7.2-30k-loaded
 * by its 36th, bench-stock-30k-icount its 27th; the envelope: 14th, 24th).
 */
static void test_recorded_walks_shown(void **state)
{
	static const char *const names[] = {
		"lab-stock-30k", "bench-stock-30k-a", "bench-stock-30k-b", "bench-stock-30k-c",
		"bench-stock-20k", "bench-stock-30k-icount", "bench-stock-30k-pressure",
		"debian-6.12-20k-loaded", "debian-6.1-20k-loaded", "lab-stock-30k-loaded",
		"debian-6.12-20k-loaded-b", "debian-7.2-30k-loaded", "lab-debug-stock-1k",
		"lab-debug-stock-1k-b",
	};

	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		struct settled s = {};
		struct fgt_assembler *a = fgt_assembler_new(settled_cb, &s);
		struct evs v = {};
		uint64_t begin, end, served = 0;
		unsigned int sweeps = load_sweeps(names[f], &v, &begin, &end);

		assert_non_null(a);
		for (size_t i = 0; i < v.n; i++) {
			fgt_assembler_feed(a, &v.e[i]);
			if (v.e[i].type == FGT_EV_ALLOC)
				served++;
			else if (v.e[i].type == FGT_EV_FREE)
				served--;
		}
		print_message("%-26s %u sweeps: %s, %u, served %" PRIu64 ", shown from %u\n",
			      names[f], sweeps, fgt_walks_name(s.walks), s.nr_sweeps, s.served,
			      s.first);
		assert_int_equal(s.n, 1);
		assert_int_equal(s.walks, FGT_WALKS_GAPS);
		assert_int_equal(s.nr_sweeps, sweeps);
		assert_int_equal(s.batches, sweeps);
		assert_int_equal(s.served, served);
		/* check --trigger parks 1,024 threads: an unfixed walk of 33 or more */
		assert_in_range(s.first, 2, 32);
		fgt_assembler_free(a);
		free(v.e);
	}
}

/*
 * The unfixed walks' hit rate, a measure (issue 38): at every hundredth of
 * each walk's time from the 5th to the 95th, the time left inside the range.
 * Exact (a replay is deterministic) and quoted in docs/json.md and the man
 * page; the misses are the walks the host slowed, or sped up, past any pace
 * they had shown.
 */
static void test_walks_hit_rate(void **state)
{
	static const struct {
		const char *name;
		unsigned int hits, live_hits;	/* of 91; as the live view sees it (at_lag()) */
	} walks[] = {
		{ "lab-stock-30k", 90, 90 }, { "bench-stock-30k-a", 91, 90 },
		{ "bench-stock-30k-b", 81, 82 }, { "bench-stock-30k-c", 90, 91 },
		{ "bench-stock-20k", 91, 91 }, { "bench-stock-30k-icount", 87, 89 },
		{ "bench-stock-30k-pressure", 91, 91 }, { "debian-6.12-20k-loaded", 85, 85 },
		{ "debian-6.1-20k-loaded", 65, 62 }, { "lab-stock-30k-loaded", 91, 91 },
		{ "debian-6.12-20k-loaded-b", 61, 59 }, { "debian-7.2-30k-loaded", 91, 91 },
	};
	unsigned int all = 0, in = 0, live_in = 0;

	for (size_t f = 0; f < sizeof(walks) / sizeof(walks[0]); f++) {
		struct evs v = {};
		uint64_t begin, end;
		unsigned int hits = 0, live = 0;

		load_sweeps(walks[f].name, &v, &begin, &end);
		for (int pc = 5; pc <= 95; pc++) {
			uint64_t seen = begin + (end - begin) * pc / 100, left = end - seen;
			struct fgt_progress p;

			at(&v, seen, seen, -1, &p);
			assert_true(p.eta_known);
			hits += p.eta_ns <= left && left <= p.eta_high_ns;
			/* the live view: up to 15 finished sweeps not drained */
			at_lag(&v, seen, (p.sweeps - 1) % FGT_AGG_PEND, &p);
			assert_true(p.eta_known);
			live += p.eta_ns <= left && left <= p.eta_high_ns;
		}
		print_message("%-26s the time left in the range at %u of 91 checkpoints, live %u\n",
			      walks[f].name, hits, live);
		assert_int_equal(hits, walks[f].hits);
		assert_int_equal(live, walks[f].live_hits);
		all += 91;
		in += hits;
		live_in += live;
		free(v.e);
	}
	print_message("unfixed walks: the time left in the range at %u of %u checkpoints (%.1f %%), "
		      "live %u (%.1f %%)\n", in, all, 100.0 * in / all, live_in, 100.0 * live_in / all);
}

/* The recorded runs of tests/data: every prefix gives sane figures. */
static void test_recorded(void **state)
{
	static const char *const names[] = { "unfixed-1000-attributed", "unfixed-1000-direct",
					      "fixed-1000-k100-attributed" };
	const char *dir = getenv("FGT_TEST_DATA");

	for (size_t f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		char path[512], line[1024];
		struct evs v = {};
		struct fgt_event e;
		unsigned long long lost;
		uint64_t begin = 0, end = 0, prev_served = 0;
		FILE *fp;

		snprintf(path, sizeof(path), "%s/%s.events", dir ? dir : "tests/data", names[f]);
		fp = fopen(path, "r");
		assert_non_null(fp);
		while (fgets(line, sizeof(line), fp))
			if (ev_parse(line, &e, &lost) == EV_LINE_EVENT)
				keep(&e, &v);
		fclose(fp);
		span(&v, &begin, &end);
		for (int tenth = 1; tenth <= 9; tenth++) {
			uint64_t seen = begin + (end - begin) * tenth / 10;
			struct fgt_progress p;

			at(&v, seen, seen, -1, &p);
			assert_int_equal(p.threads, 1000);
			assert_true(p.served >= prev_served);
			assert_true(p.served <= 1000 + 32);
			if (p.eta_known)
				assert_true(p.end_ns > p.begin_ns);
			prev_served = p.served;
		}
		free(v.e);
	}
}

/* fgraphtop started during the activation: no ACT_BEGIN, no U from it. The
 * threads now stand in for U; without them there is no estimate. */
static void test_midway(void **state)
{
	struct gen_cfg c = { .lacking = 3000, .ts0 = 1000000 };
	struct fgt_assembler *a = fgt_assembler_new(NULL, NULL);
	struct evs v = {};
	struct fgt_progress p;
	uint64_t begin = 0, end = 0, half;

	gen_activation(&c, keep, &v);
	span(&v, &begin, &end);
	half = begin + (end - begin) / 2;
	/* from the 5th sweep on, as if started then */
	for (size_t i = 1 + 32 * 4; i < v.n && v.e[i].ts_ns <= half; i++)
		fgt_assembler_feed(a, &v.e[i]);
	assert_non_null(fgt_assembler_current(a));
	fgt_progress_of(fgt_assembler_current(a), half, -1, 0, &p);
	assert_int_equal(p.u_src, FGT_U_NONE);
	assert_false(p.eta_known);
	assert_false(p.to_come_known);
	fgt_progress_of(fgt_assembler_current(a), half, -1, 3000, &p);
	assert_int_equal(p.u_src, FGT_U_NOW);
	assert_string_equal(fgt_u_src_name(p.u_src), "threads_now");
	assert_true(p.eta_known);
	/* it counts only what it saw: 4 sweeps fewer, so the time left is longer */
	assert_true(p.eta_ns > end - half);
	fgt_assembler_free(a);
	free(v.e);
}

static void test_lacking_at_start(void **state)
{
	/* 1000 lacking of 21000 at the scan, 50 threads created since */
	assert_int_equal(fgt_progress_lacking_at_start(1000, 21000, 21050), 1050);
	/* threads exited since: never below the scan's, never above nr_threads */
	assert_int_equal(fgt_progress_lacking_at_start(1000, 21000, 20000), 1000);
	assert_int_equal(fgt_progress_lacking_at_start(30000, 30000, 29000), 29000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unfixed_first),
		cmocka_unit_test(test_unfixed_behind),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_ns_after),
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_early),
		cmocka_unit_test(test_convex),
		cmocka_unit_test(test_lab_walk),
		cmocka_unit_test(test_walks_in_range),
		cmocka_unit_test(test_walks_hit_rate),
		cmocka_unit_test(test_recorded_walks_shown),
		cmocka_unit_test(test_fixed_degraded),
		cmocka_unit_test(test_fixed_persistent),
		cmocka_unit_test(test_recorded_starved),
		cmocka_unit_test(test_undrained_pace),
		cmocka_unit_test(test_recorded),
		cmocka_unit_test(test_midway),
		cmocka_unit_test(test_lacking_at_start),
	};

	return cmocka_run_group_tests_name("progress", tests, NULL, NULL);
}
