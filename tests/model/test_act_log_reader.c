// SPDX-License-Identifier: GPL-2.0
/*
 * The activation log reader (src/model/act_log_reader.c): order, wrap-around, and the rule
 * that an activation's records wait for its ACT_BEGIN.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "model/act_log_reader.h"

/* the largest log a test uses: four times the least */
#define BIG	(4 * FGT_LOG_ENTRIES)
static struct fgt_rec ring[BIG];
static uint32_t entries = FGT_LOG_ENTRIES;	/* the log's size the records are put by */

struct got {
	struct fgt_event ev[64];
	unsigned int n;
};

static void collect(const struct fgt_event *e, void *ctx)
{
	struct got *g = ctx;

	assert_true(g->n < 64);
	g->ev[g->n++] = *e;
}

/* Record number `i` (absolute index) of activation `seq`. */
static void put(uint64_t i, uint32_t seq, uint32_t type)
{
	struct fgt_rec *r = &ring[i & (entries - 1)];

	memset(r, 0, sizeof(*r));
	r->ts_ns = 1000 + i;
	r->act_seq = seq;
	r->type = type;
	r->src = FGT_SRC_ATTRIBUTED;
	r->site = FGT_SITE_SWEEP;
	r->gfp = 0xcc0;
	r->size = 4096;
	r->ok = 1;
	r->ptr = 0xffff888000000000ull + i;
	r->cpu = 1;
}

static const struct fgt_log_who who = { .pid = 42, .tid = 43, .comm = "trace-cmd" };

/*
 * The indices come from BPF's memory: read as hostile. A head 2^40 records
 * ahead reads the ring once (its last `entries` records), not 2^40 times;
 * a log size that is no power of two reads nothing.
 */
static void test_hostile_indices(void **state)
{
	static struct got g;
	uint64_t head = 1ull << 40, tail;
	uint32_t saved = entries;

	entries = 64;
	for (uint64_t i = head - 64; i < head; i++)
		put(i, 1, FGT_EV_ALLOC);
	g.n = 0;
	tail = fgt_log_drain(ring, 64, 0, head, 1, &who, collect, &g);
	assert_int_equal(tail, head);
	assert_int_equal(g.n, 64);
	assert_int_equal(g.ev[0].ts_ns, 1000 + head - 64);
	g.n = 0;
	assert_int_equal(fgt_log_drain(ring, 48, 5, 9, 1, &who, collect, &g), 9);
	assert_int_equal(fgt_log_drain(ring, 0, 5, 9, 1, &who, collect, &g), 9);
	assert_int_equal(g.n, 0);
	entries = saved;
}

static void test_converts_in_order(void **state)
{
	struct got g = { .n = 0 };
	uint64_t tail;

	put(0, 1, FGT_EV_ALLOC);
	put(1, 1, FGT_EV_ALLOC);
	put(2, 1, FGT_EV_FREE);
	ring[2].ok = 0;
	tail = fgt_log_drain(ring, FGT_LOG_ENTRIES, 0, 3, 1, &who, collect, &g);
	assert_int_equal(tail, 3);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.ev[0].type, FGT_EV_ALLOC);
	assert_int_equal(g.ev[2].type, FGT_EV_FREE);
	for (unsigned int i = 0; i < 3; i++) {
		assert_int_equal(g.ev[i].ts_ns, 1000 + i);
		assert_int_equal(g.ev[i].ptr, 0xffff888000000000ull + i);
		assert_int_equal(g.ev[i].pid, 42);
		assert_int_equal(g.ev[i].tid, 43);
		assert_string_equal(g.ev[i].comm, "trace-cmd");
		assert_int_equal(g.ev[i].stack_id, -1);
		assert_int_equal(g.ev[i].site, FGT_SITE_SWEEP);
		assert_int_equal(g.ev[i].gfp, 0xcc0);
		assert_int_equal(g.ev[i].size, 4096);
		assert_int_equal(g.ev[i].act_seq, 1);
	}
	assert_int_equal(g.ev[1].ok, 1);
	assert_int_equal(g.ev[2].ok, 0);
}

/* Activation 2's records stay until its ACT_BEGIN has been fed. */
static void test_waits_for_its_begin(void **state)
{
	struct got g = { .n = 0 };
	uint64_t tail;

	put(10, 1, FGT_EV_ALLOC);
	put(11, 2, FGT_EV_ALLOC);
	put(12, 2, FGT_EV_ALLOC);
	tail = fgt_log_drain(ring, FGT_LOG_ENTRIES, 10, 13, 1, &who, collect, &g);
	assert_int_equal(tail, 11);
	assert_int_equal(g.n, 1);
	tail = fgt_log_drain(ring, FGT_LOG_ENTRIES, tail, 13, 2, &who, collect, &g);
	assert_int_equal(tail, 13);
	assert_int_equal(g.n, 3);
	/* nothing new: nothing fed, tail unchanged */
	assert_int_equal(fgt_log_drain(ring, FGT_LOG_ENTRIES, 13, 13, 2, &who, collect, &g), 13);
	assert_int_equal(g.n, 3);
}

/* Indices run past the ring's size; act_seq past 2^32. */
static void test_wraps(void **state)
{
	struct got g = { .n = 0 };
	uint64_t base = 5ull * FGT_LOG_ENTRIES - 2, tail;

	for (uint64_t i = base; i < base + 4; i++)
		put(i, 0xffffffffu + (i >= base + 2), FGT_EV_ALLOC);	/* 2^32-1, then 0 */
	tail = fgt_log_drain(ring, FGT_LOG_ENTRIES, base, base + 4, 0xffffffffu, &who, collect, &g);
	assert_int_equal(tail, base + 2);
	assert_int_equal(g.ev[0].ts_ns, 1000 + base);
	assert_int_equal(g.ev[1].ts_ns, 1000 + base + 1);
	tail = fgt_log_drain(ring, FGT_LOG_ENTRIES, tail, base + 4, 0, &who, collect, &g);
	assert_int_equal(tail, base + 4);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.ev[3].ts_ns, 1000 + base + 3);
}

/* A larger log is indexed by its own size: slot 16,385 is not slot 1. */
static void test_larger_log(void **state)
{
	struct got g = { .n = 0 };
	uint64_t base = 3ull * BIG + FGT_LOG_ENTRIES + 1, tail;

	entries = BIG;
	put(base, 7, FGT_EV_ALLOC);
	put(base + 1, 7, FGT_EV_FREE);
	ring[1].ts_ns = ring[2].ts_ns = 1;	/* where the least log's mask would look */
	tail = fgt_log_drain(ring, BIG, base, base + 2, 7, &who, collect, &g);
	entries = FGT_LOG_ENTRIES;
	assert_int_equal(tail, base + 2);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.ev[0].ts_ns, 1000 + base);
	assert_int_equal(g.ev[1].type, FGT_EV_FREE);
	assert_int_equal(g.ev[1].ts_ns, 1000 + base + 1);
}

/* The log holds an activation of a quarter more threads, and a wake-up's records. */
static void test_sizes(void **state)
{
	assert_int_equal(fgt_log_entries(-22), FGT_LOG_ENTRIES);	/* unknown */
	assert_int_equal(fgt_log_entries(0), FGT_LOG_ENTRIES);
	assert_int_equal(fgt_log_entries(100), FGT_LOG_ENTRIES);
	/* 9,831 + 2,457 + 4,096 = 16,384 fits; one more thread does not */
	assert_int_equal(fgt_log_entries(9831), FGT_LOG_ENTRIES);
	assert_int_equal(fgt_log_entries(9832), 2 * FGT_LOG_ENTRIES);
	/* 5.10's 30,004 threads: 41,601 records, 65,536 slots */
	assert_int_equal(fgt_log_entries(30004), 1u << 16);
	assert_int_equal(fgt_log_entries(400000), 1u << 19);
	assert_int_equal(fgt_log_entries(1600000), FGT_LOG_MAX);
	assert_int_equal(fgt_log_entries(4194304), FGT_LOG_MAX);	/* pid_max's limit */
	assert_int_equal(fgt_log_entries(0x7fffffffl), FGT_LOG_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_converts_in_order),
		cmocka_unit_test(test_waits_for_its_begin),
		cmocka_unit_test(test_wraps),
		cmocka_unit_test(test_larger_log),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_hostile_indices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
