// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: what check --static reads from an untrusted kernel file
 * (src/kread.c, src/kread_kallsyms.c) and decodes (src/static_check.c):
 * the bytes as an ELF image (its symbols: .symtab, the kallsyms tables), as
 * raw BTF, and as a function's machine code.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kread.h"
#include "static_check.h"

/* The allocator, RCU and cache symbols the decoder looks for, at fixed places. */
static const char syms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T register_ftrace_graph\n"
	"ffffffff81002000 T __rcu_read_lock\n"
	"ffffffff81002100 T __rcu_read_unlock\n"
	"ffffffff81003000 T kmem_cache_alloc_noprof\n"
	"ffffffff81003ff0 T __pfx___kmalloc_cache_noprof\n"
	"ffffffff81004000 T __kmalloc_cache_noprof\n"
	"ffffffff81005000 T __x86_return_thunk\n"
	"ffffffff81005100 T __x86_indirect_thunk_rax\n"
	"ffffffff82000000 b fgraph_stack_cachep\n"
	"ffffffff82000100 D kmalloc_caches\n"
	"ffffffff83000000 T _etext\n";

static struct fgt_ksyms *ks;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fgt_static_code c = { .func = "register_ftrace_graph", .nr_parts = 1 };
	struct fgt_static_kernel k = { .stack_src = FGT_STACK_CACHE };
	struct fgt_static_result *r = malloc(sizeof(*r));
	enum fgt_stack_src src;
	struct fgt_kimage im;
	struct fgt_ksyms *fs;
	char msg[256], desc[160], rel[65], bid[41];
	uint32_t bytes;
	int why = 0;

	if (!r)
		return 0;
	if (!ks) {
		FILE *f = fmemopen((void *)syms, sizeof(syms) - 1, "r");

		ks = fgt_ksyms_load_file(f);
		fclose(f);
	}
	/* as a function's code, with the cache and kmalloc sources in turn */
	c.part[0] = (struct fgt_static_part){ 0xffffffff81001000ull, data, size };
	k.ks = ks;
	fgt_static_decode(&c, &k, r);
	k.stack_src = FGT_STACK_KMALLOC;
	k.shadow_bytes = 4096;
	fgt_static_decode(&c, &k, r);
	free(r);
	/* as raw BTF */
	fgt_btf_ret_stack(data, size, &src, &bytes);
	/* as a kernel image */
	memset(&im, 0, sizeof(im));
	im.fd = -1;
	if (!fgt_kimage_open_elf(&im, data, size, "fuzz", msg, sizeof(msg))) {
		fs = fgt_kimage_symbols(&im, desc, sizeof(desc), &why, msg, sizeof(msg));
		fgt_kimage_ident(&im, fs, rel, sizeof(rel), bid, sizeof(bid));
		fgt_ksyms_free(fs);
	}
	return 0;
}
