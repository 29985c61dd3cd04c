// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the smaps parser behind giving our executable's pages back
 * (src/common/selfmem.c). The input is the text; the executable's path is
 * its own first line when there is one, so both vary. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "common/selfmem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fgt_mem_range r[4];
	const uint8_t *nl = memchr(data, '\n', size);
	size_t plen = nl ? (size_t)(nl - data) : 0, n;
	char *path = malloc(plen + 1);
	/* a copy of exactly size bytes: a read past it is ASan's */
	char *copy = malloc(size ? size : 1);

	if (!path || !copy)
		goto out;
	memcpy(path, data, plen);
	path[plen] = '\0';
	memcpy(copy, data, size);
	n = fgt_selfmem_clean(copy, size, path, r, 4);
	for (size_t i = 0; i < n && i < 4; i++)
		if (r[i].hi <= r[i].lo)
			abort();
	n = fgt_selfmem_clean(copy, size, "/usr/bin/fgraphtop", r, 0);
	(void)n;
out:
	free(path);
	free(copy);
	return 0;
}
