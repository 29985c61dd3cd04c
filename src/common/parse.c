// SPDX-License-Identifier: GPL-2.0
/* Strict number parsing: see parse.h. */
#include <errno.h>
#include <stdlib.h>
#include "common/parse.h"

static int digits(const char *s)
{
	int n = 0;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

int fgt_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	int n;

	if (!s)
		return -1;
	n = digits(s);
	if (!n || s[n])
		return -1;
	errno = 0;
	v = strtoull(s, NULL, 10);
	if (errno || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int fgt_parse_seconds(const char *s, double max, double *out)
{
	double v;
	int n;

	if (!s)
		return -1;
	n = digits(s);
	if (!n)
		return -1;
	if (s[n] == '.') {
		int f = digits(s + n + 1);

		if (!f)
			return -1;
		n += 1 + f;
	}
	if (s[n])
		return -1;
	errno = 0;
	v = strtod(s, NULL);
	if (errno || !(v >= 0 && v <= max))
		return -1;
	*out = v;
	return 0;
}
