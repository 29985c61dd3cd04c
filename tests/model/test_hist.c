// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "model/hist.h"

static void test_slots(void **state)
{
	assert_int_equal(fgt_hist_slot(0), 0);
	assert_int_equal(fgt_hist_slot(1), 1);
	assert_int_equal(fgt_hist_slot(2), 2);
	assert_int_equal(fgt_hist_slot(3), 2);
	assert_int_equal(fgt_hist_slot(4), 3);
	assert_int_equal(fgt_hist_slot(1023), 10);
	assert_int_equal(fgt_hist_slot(1024), 11);
	assert_int_equal(fgt_hist_slot(UINT64_MAX), FGT_HIST_SLOTS - 1);
}

static void test_add_and_stats(void **state)
{
	struct fgt_hist h = { 0 };

	fgt_hist_add(&h, 300);
	fgt_hist_add(&h, 5);
	fgt_hist_add(&h, 0);
	assert_int_equal(h.count, 3);
	assert_int_equal(h.sum, 305);
	assert_int_equal(h.min, 0);
	assert_int_equal(h.max, 300);
	assert_int_equal(h.slots[0], 1);
	assert_int_equal(h.slots[3], 1);	/* 4..7 */
	assert_int_equal(h.slots[9], 1);	/* 256..511 */
}

static void test_percentile(void **state)
{
	struct fgt_hist h = { 0 };
	int i;

	assert_int_equal(fgt_hist_percentile(&h, 50), 0);
	for (i = 0; i < 90; i++)
		fgt_hist_add(&h, 100);		/* slot 7: 64..127 */
	for (i = 0; i < 10; i++)
		fgt_hist_add(&h, 5000);		/* slot 13: 4096..8191 */
	/* the slot's upper bound, 127: within [min, max], kept */
	assert_int_equal(fgt_hist_percentile(&h, 50), 127);
	assert_int_equal(fgt_hist_percentile(&h, 90), 127);
	assert_int_equal(fgt_hist_percentile(&h, 91), 5000);	/* 8191 clamped to max */
	assert_int_equal(fgt_hist_percentile(&h, 0), 100);
	assert_int_equal(fgt_hist_percentile(&h, 100), 5000);
}

static void test_percentile_slot_bound(void **state)
{
	struct fgt_hist h = { 0 };

	fgt_hist_add(&h, 65);
	fgt_hist_add(&h, 70);
	fgt_hist_add(&h, 1000);
	/* p50 lands in slot 7 (64..127): its upper bound, observed max being higher */
	assert_int_equal(fgt_hist_percentile(&h, 50), 127);
}

static char *print(const struct fgt_hist *h, const char *unit, uint64_t div)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fgt_hist_print(f, h, unit, div);
	fclose(f);
	return buf;
}

static void test_print(void **state)
{
	struct fgt_hist h = { 0 };
	char *s;

	fgt_hist_add(&h, 1);
	fgt_hist_add(&h, 2);
	fgt_hist_add(&h, 3);
	s = print(&h, "nsecs", 1);
	assert_string_equal(s,
		"     nsecs               : count    distribution\n"
		"         0 -> 0          : 0        |                                        |\n"
		"         1 -> 1          : 1        |********************                    |\n"
		"         2 -> 3          : 2        |****************************************|\n");
	free(s);
}

static void test_print_divisor(void **state)
{
	struct fgt_hist h = { 0 };
	char *s;

	fgt_hist_add(&h, 4096);		/* 4 usecs with divisor 1024 */
	s = print(&h, "usecs", 1024);
	assert_non_null(strstr(s, "         4 -> 7          : 1        |****"));
	assert_null(strstr(s, "4096"));
	free(s);
	memset(&h, 0, sizeof(h));
	s = print(&h, "usecs", 1000);
	assert_string_equal(s, "");	/* nothing recorded, nothing printed */
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots),
		cmocka_unit_test(test_add_and_stats),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_percentile_slot_bound),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_print_divisor),
	};

	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
