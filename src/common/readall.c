// SPDX-License-Identifier: GPL-2.0
/*
 * One loop for every whole-file read, so that each has the same bounds: a
 * cap the caller names, the growth checked before it overflows, and a read
 * error reported as one (a short read of a kernel file is no evidence).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "common/readall.h"

#define FIRST_CAP	(64u << 10)

/* The next capacity, the NUL's byte included: twice as much, at most max + 1. */
static size_t grown(size_t cap, size_t max)
{
	return cap > max / 2 ? max + 1 : cap * 2;
}

/* At max already: one byte more says whether the file went on (-EFBIG). */
static int at_max(int fd)
{
	char c;
	ssize_t r;

	do
		r = read(fd, &c, 1);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r ? -EFBIG : 0;
}

int fgt_read_all(int fd, size_t max, char **buf, size_t *len)
{
	size_t cap, ncap, n = 0;
	char *b, *nb;
	ssize_t r;
	int err = 0;

	*buf = NULL;
	*len = 0;
	if (max > SIZE_MAX / 2)
		max = SIZE_MAX / 2;
	cap = max < FIRST_CAP ? max + 1 : FIRST_CAP;
	b = malloc(cap);
	if (!b)
		return -ENOMEM;
	for (;;) {
		if (n == cap - 1) {
			if (cap > max) {
				err = at_max(fd);
				break;
			}
			ncap = grown(cap, max);
			nb = realloc(b, ncap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			b = nb;
			cap = ncap;
		}
		r = read(fd, b + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			err = -errno;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	if (err) {
		free(b);
		return err;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}
