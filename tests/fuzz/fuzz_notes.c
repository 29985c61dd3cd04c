// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the ELF note stream parser behind the build ID (src/host/kernel_id.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "host/kernel_id.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char hex[2 * FGT_BUILD_ID_MAX + 1], small[9];
	/* a copy of exactly size bytes: a read past it is ASan's */
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	fgt_build_id_parse(copy, size, hex, sizeof(hex));
	fgt_build_id_parse(copy, size, small, sizeof(small));
	free(copy);
	return 0;
}
