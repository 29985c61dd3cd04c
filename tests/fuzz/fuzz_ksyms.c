// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: the kallsyms parser (src/host/ksyms.c) and its lookups over any text. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "host/ksyms.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size, "r");
	struct fgt_ksyms *ks;
	char why[256], buf[128];

	if (!f)
		return 0;
	ks = fgt_ksyms_load_file(f);
	fclose(f);
	if (!ks)
		return 0;
	fgt_ksyms_sane(ks, why, sizeof(why));
	fgt_ksyms_by_name(ks, "register_ftrace_graph");
	fgt_ksyms_by_name(ks, "__pfx_register_ftrace_graph");
	for (size_t i = 0; i + 8 <= size && i < 512; i += 8) {
		uint64_t a;

		memcpy(&a, data + i, sizeof(a));
		fgt_ksyms_format(ks, a | 0xffffffff80000000ull, buf, sizeof(buf));
	}
	fgt_ksyms_free(ks);
	return 0;
}
