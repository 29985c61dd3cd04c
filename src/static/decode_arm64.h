/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The static decoder's arm64 front end (src/static/decode_arm64.c): Capstone's
 * A64 instruction, or a word it does not know, into the decoder's model
 * (src/static/decode.h). It calls nothing of the decoder after it.
 */
#ifndef FGT_STATIC_DECODE_ARM64_H
#define FGT_STATIC_DECODE_ARM64_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "static/decode.h"

/* One instruction Capstone decoded, into in (fgt_insn_init()ed). */
void fgt_a64_insn(csh h, const cs_insn *ci, struct insn *in);
/*
 * A word Capstone 4 (Debian 12's) does not decode: the hint space (PAC,
 * BTI: no effect here) and newer loads, stores and data processing (LSE
 * atomics: every register unknown after it), into in; false for anything
 * else, a branch or system instruction above all: the part ends there.
 */
bool fgt_a64_raw(uint32_t w, struct insn *in);
/* ldr xN, [xB, #off] followed by cbz/cbnz xN: the NULL test of a field. */
void fgt_a64_null_tests(struct insn *in, size_t n);
/* Every address the arm64 code refers to (fgt_static_refs). */
void fgt_a64_refs(csh h, cs_insn *ci, uint64_t at, const uint8_t *bytes, size_t len,
		  void (*cb)(uint64_t addr, void *arg), void *arg);

#endif
