/* SPDX-License-Identifier: GPL-2.0 */
/* Fuzz input as an argv: NUL-separated words, after argv[0]. */
#ifndef FGT_FUZZ_ARGS_H
#define FGT_FUZZ_ARGS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_ARGS 32

/* argv[0] = name; the words of data (copied into *buf, freed by the caller). */
static inline int fuzz_argv(const uint8_t *data, size_t size, char *name, char **argv,
			    char **buf)
{
	int argc = 1;
	char *p;

	*buf = malloc(size + 1);
	if (!*buf)
		return 0;
	memcpy(*buf, data, size);
	(*buf)[size] = '\0';
	argv[0] = name;
	for (p = *buf; p <= *buf + size && argc < FUZZ_MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	return argc;
}

#endif
