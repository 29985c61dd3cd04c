/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers from the command line, strictly: plain decimal digits, nothing
 * else. strtoul() takes a sign and leading blanks ("-18446744073709551615"
 * is 1), strtod() takes hex floats and exponents ("0x10" is 16): an option
 * value that is not what it looks like is refused instead.
 */
#ifndef FGT_PARSE_H
#define FGT_PARSE_H

#include <stdint.h>

/* [0-9]+ within [min, max]. 0, or -1 (nothing written). */
int fgt_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* [0-9]+ or [0-9]+.[0-9]+ within [0, max]. 0, or -1 (nothing written). */
int fgt_parse_seconds(const char *s, double max, double *out);

#endif
