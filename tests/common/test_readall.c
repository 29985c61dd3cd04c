// SPDX-License-Identifier: GPL-2.0
/*
 * Whole-file reads (src/common/readall.c): the bytes exactly, whatever the
 * size against the first buffer and the cap; past the cap -EFBIG, a read
 * error -errno, and nothing left allocated either way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <cmocka.h>
#include "common/readall.h"

/* A memfd holding n bytes of a pattern, at offset 0. */
static int file_of(size_t n)
{
	int fd = memfd_create("readall", MFD_CLOEXEC);
	char blk[4096];
	size_t done = 0;

	assert_true(fd >= 0);
	while (done < n) {
		size_t k = n - done < sizeof(blk) ? n - done : sizeof(blk);

		for (size_t i = 0; i < k; i++)
			blk[i] = (char)('a' + (done + i) % 23);
		assert_int_equal(write(fd, blk, k), (ssize_t)k);
		done += k;
	}
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static void check_pattern(const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != (char)('a' + i % 23))
			fail_msg("byte %zu differs", i);
	assert_int_equal(b[n], '\0');
}

/* Every size around the first buffer (64 KiB) and the cap, both sides. */
static void test_sizes(void **state)
{
	static const size_t sizes[] = { 0, 1, 4095, 65535, 65536, 65537, 200000, 262144 };
	static const size_t caps[] = { 0, 1, 65535, 65536, 131072, 262144, 1u << 20 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t j = 0; j < sizeof(caps) / sizeof(caps[0]); j++) {
			int fd = file_of(sizes[i]);
			char *b = (char *)1;
			size_t n = 7;
			int err = fgt_read_all(fd, caps[j], &b, &n);

			close(fd);
			if (sizes[i] > caps[j]) {
				assert_int_equal(err, -EFBIG);
				assert_null(b);
				assert_int_equal(n, 0);
				continue;
			}
			assert_int_equal(err, 0);
			assert_int_equal(n, sizes[i]);
			check_pattern(b, n);
			free(b);
		}
}

/* A pipe: no size, short reads; the writer's bytes whole. */
static void test_pipe(void **state)
{
	int p[2];
	char *b;
	size_t n;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "one ", 4), 4);
	assert_int_equal(write(p[1], "two", 3), 3);
	close(p[1]);
	assert_int_equal(fgt_read_all(p[0], 100, &b, &n), 0);
	close(p[0]);
	assert_int_equal(n, 7);
	assert_string_equal(b, "one two");
	free(b);
}

/* Read errors: an error, not what came before it. */
static void test_errors(void **state)
{
	int fd = open("/", O_RDONLY | O_DIRECTORY);
	char *b = (char *)1;
	size_t n = 7;

	assert_true(fd >= 0);
	assert_int_equal(fgt_read_all(fd, 100, &b, &n), -EISDIR);
	assert_null(b);
	assert_int_equal(n, 0);
	close(fd);
	assert_int_equal(fgt_read_all(-1, 100, &b, &n), -EBADF);
	assert_null(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests_name("readall", tests, NULL, NULL);
}
