/* SPDX-License-Identifier: GPL-2.0 */
/* Sentences built from clauses: "a; b; c" in a fixed buffer, truncated, never overrun. */
#ifndef FGT_CLAUSE_H
#define FGT_CLAUSE_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Append one clause to buf, after "; " when buf is not empty. */
__attribute__((format(printf, 3, 4)))
static inline void fgt_clause_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	if (used + 1 >= len)
		return;
	if (used)
		used += snprintf(buf + used, len - used, "; ");
	if (used >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

#endif
