// SPDX-License-Identifier: GPL-2.0
/*
 * Every address a function's code refers to (src/static/refs.h), through
 * the front end of its architecture: what the glue must look up in kernel
 * memory before the decoder runs, and what the recorder keeps.
 */
#include <capstone/capstone.h>
#include "static/decode_arm64.h"
#include "static/decode_x86.h"
#include "static/refs.h"

static void refs_of(const struct fgt_static_code *c, void (*cb)(uint64_t addr, void *arg),
		    void *arg)
{
	cs_insn *ci;
	csh h;

	if (c->arch == FGT_ARCH_ARM64) {
		if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &h) != CS_ERR_OK)
			return;
		cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
		ci = cs_malloc(h);
		for (unsigned int p = 0; ci && p < c->nr_parts; p++)
			fgt_a64_refs(h, ci, c->part[p].addr, c->part[p].bytes, c->part[p].len, cb, arg);
		if (ci)
			cs_free(ci, 1);
		cs_close(&h);
		return;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	ci = cs_malloc(h);
	for (unsigned int p = 0; ci && p < c->nr_parts; p++)
		fgt_x86_refs(h, ci, c->part[p].addr, c->part[p].bytes, c->part[p].len, cb, arg);
	if (ci)
		cs_free(ci, 1);
	cs_close(&h);
}

void fgt_static_refs(const struct fgt_static_code *c, void (*cb)(uint64_t addr, void *arg),
		     void *arg)
{
	struct fgt_static_code cc = { .func = c->caller, .arch = c->arch };

	refs_of(c, cb, arg);
	if (!c->caller)
		return;
	for (unsigned int i = 0; i < c->nr_caller_parts && i < FGT_STATIC_MAX_CALLER_PARTS; i++)
		cc.part[i] = c->caller_part[i];
	cc.nr_parts = c->nr_caller_parts;
	refs_of(&cc, cb, arg);
}
