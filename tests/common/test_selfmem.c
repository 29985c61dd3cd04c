// SPDX-License-Identifier: GPL-2.0
/*
 * Giving our executable's clean pages back (src/common/selfmem.c): which
 * mappings of smaps text are taken, over a static binary's as Linux prints
 * them and over broken text; then the real thing on this test's own
 * executable, which must keep running.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/selfmem.h"

#define EXE "/usr/bin/fgraphtop"

/* A static binary's mappings (6.18), the writable and written ones among them. */
static const char smaps[] =
	"00400000-00401000 r--p 00000000 fe:01 1835105                            " EXE "\n"
	"Size:                  4 kB\n"
	"Rss:                   4 kB\n"
	"Anonymous:             0 kB\n"
	"VmFlags: rd mr mw me sd \n"
	"00401000-00a33000 r-xp 00001000 fe:01 1835105                            " EXE "\n"
	"Size:               6344 kB\n"
	"Rss:                1320 kB\n"
	"Pss:                1320 kB\n"
	"Anonymous:             0 kB\n"
	"00a33000-00e8c000 r--p 00633000 fe:01 1835105                            " EXE "\n"
	"Rss:                1812 kB\n"
	"Anonymous:             0 kB\n"
	/* RELRO: read-only now, written at start-up */
	"00e8d000-00e93000 r--p 00a8c000 fe:01 1835105                            " EXE "\n"
	"Rss:                  24 kB\n"
	"Anonymous:            24 kB\n"
	"00e93000-00eac000 rw-p 00a92000 fe:01 1835105                            " EXE "\n"
	"Rss:                  64 kB\n"
	"Anonymous:             0 kB\n"
	/* another file whose name begins with ours */
	"7f0000000000-7f0000001000 r--p 00000000 fe:01 99                         " EXE "2\n"
	"Rss:                   4 kB\n"
	"Anonymous:             0 kB\n"
	"0101e000-01040000 rw-p 00000000 00:00 0                                  [heap]\n"
	"Rss:                   8 kB\n"
	"Anonymous:             8 kB\n";

static void test_static_binary(void **state)
{
	struct fgt_mem_range r[8];
	size_t n = fgt_selfmem_clean(smaps, strlen(smaps), EXE, r, 8);

	assert_int_equal(n, 3);
	assert_int_equal(r[0].lo, 0x400000);
	assert_int_equal(r[0].hi, 0x401000);
	assert_int_equal(r[0].rss_kib, 4);
	assert_int_equal(r[1].lo, 0x401000);
	assert_int_equal(r[1].rss_kib, 1320);
	assert_int_equal(r[2].lo, 0xa33000);
	assert_int_equal(r[2].hi, 0xe8c000);
	assert_int_equal(r[2].rss_kib, 1812);
	/* fewer slots: the count is still all of them */
	assert_int_equal(fgt_selfmem_clean(smaps, strlen(smaps), EXE, r, 1), 3);
	assert_int_equal(r[0].lo, 0x400000);
	/* another executable's view of the same text: nothing is ours */
	assert_int_equal(fgt_selfmem_clean(smaps, strlen(smaps), "/usr/bin/other", r, 8), 0);
	assert_int_equal(fgt_selfmem_clean(smaps, strlen(smaps), "", r, 8), 0);
}

/* What must not be taken: no Anonymous line (cut short), a written page,
 * hi <= lo, a bad header, numbers too long; and text cut anywhere. */
static void test_broken(void **state)
{
	static const char *bad[] = {
		"00400000-00401000 r--p 00000000 fe:01 1 " EXE "\nRss: 4 kB\n",
		"00400000-00401000 r--p 00000000 fe:01 1 " EXE "\nAnonymous: 4 kB\n",
		"00401000-00400000 r--p 00000000 fe:01 1 " EXE "\nAnonymous: 0 kB\n",
		"00400000-00401000 r--p 00000000 fe:01 1 " EXE "\nAnonymous: x kB\n",
		"00400000 r--p 00000000 fe:01 1 " EXE "\nAnonymous: 0 kB\n",
		"00400000-00401000 r--p\nAnonymous: 0 kB\n",
		"11112222333344445-00401000 r--p 00000000 fe:01 1 " EXE "\nAnonymous: 0 kB\n",
		"00400000-00401000 r--p 00000000 fe:01 1 " EXE "\n"
		"Anonymous: 99999999999999999999999999 kB\n",
		"00400000-00401000 r--p 00000000 fe:01 1 " EXE " (deleted)\nAnonymous: 0 kB\n",
		"",
	};
	struct fgt_mem_range r[2];
	size_t len = strlen(smaps);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(fgt_selfmem_clean(bad[i], strlen(bad[i]), EXE, r, 2), 0);
	/* cut anywhere: never more than the whole, never a range upside down */
	for (size_t cut = 0; cut <= len; cut++) {
		size_t n = fgt_selfmem_clean(smaps, cut, EXE, r, 2);

		assert_true(n <= 3);
		for (size_t i = 0; i < n && i < 2; i++)
			assert_true(r[i].hi > r[i].lo);
	}
}

static int twice(int x)
{
	return 2 * x;
}

/* On ourselves: something was resident in our executable's clean mappings,
 * and the code dropped runs on. */
static void test_drop_exe(void **state)
{
	long kib = fgt_selfmem_drop_exe();

	assert_true(kib > 0);
	assert_int_equal(twice(21), 42);
	assert_true(fgt_selfmem_drop_exe() >= 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_static_binary),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_drop_exe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
