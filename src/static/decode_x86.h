/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The static decoder's x86-64 front end (src/static/decode_x86.c): Capstone's
 * instruction into the decoder's model (src/static/decode.h). It calls
 * nothing of the decoder after it.
 */
#ifndef FGT_STATIC_DECODE_X86_H
#define FGT_STATIC_DECODE_X86_H

#include <capstone/capstone.h>
#include <stddef.h>
#include <stdint.h>
#include "static/decode.h"

/* One instruction Capstone decoded (with its detail), into in
 * (fgt_insn_init()ed): its kind, its target, its register effect. */
void fgt_x86_insn(csh h, const cs_insn *ci, struct insn *in);
/*
 * UD0 and UD1's length with their ModRM operand, which Capstone 4 (Debian
 * 12's) leaves out; 0 if p is neither. The caller steps over them itself
 * (a trap), so that the instruction boundaries after them hold.
 */
size_t fgt_x86_ud_len(const uint8_t *p, size_t left);
/* Every address the x86-64 code refers to (fgt_static_refs): each part's
 * start, kernel-half immediates and fixed memory operands. */
void fgt_x86_refs(csh h, cs_insn *ci, uint64_t at, const uint8_t *bytes, size_t len,
		  void (*cb)(uint64_t addr, void *arg), void *arg);

#endif
