/* SPDX-License-Identifier: GPL-2.0 */
/* Every address a function's code refers to (src/static/refs.c). */
#ifndef FGT_STATIC_REFS_H
#define FGT_STATIC_REFS_H

#include <stdint.h>
#include "static/static_types.h"

/*
 * Every address the decoder will look up in the symbol table for this code:
 * direct call and jump targets, fixed memory operands, immediates that are
 * kernel addresses. The glue builds its symbol table from these when it
 * reads kallsyms from kernel memory; the recorder keeps their symbols.
 */
void fgt_static_refs(const struct fgt_static_code *c, void (*cb)(uint64_t addr, void *arg),
		     void *arg);

#endif
