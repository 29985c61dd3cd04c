/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The static decoder's instruction model, shared by its two front ends:
 * x86-64 (src/static/decode_x86.c) and arm64 (src/static/decode_arm64.c).
 * A front end turns each instruction Capstone decodes into a struct insn
 * (its kind, its direct target, what it does to the general-purpose
 * registers); everything after that (the control flow, the walk, the
 * verdict) is the same for both. Types only (and one inline): the front
 * ends and the code after them both include it, and neither calls the
 * other back.
 */
#ifndef FGT_STATIC_DECODE_H
#define FGT_STATIC_DECODE_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * General-purpose registers: x86-64's in their encoding order (rax 0 ..
 * r15 15), arm64's x0 .. x30 and sp (31). Argument and caller-saved
 * registers per architecture: fgt_arch_facts.
 */
enum {
	R_AX, R_CX, R_DX, R_BX, R_SP, R_BP, R_SI, R_DI,
	R_8, R_9, R_10, R_11, R_12, R_13, R_14, R_15,
	R_A64_SP = 31,
	NGPR = 32, R_NONE = 0xff
};

enum ikind {
	I_OTHER,
	I_CALL,		/* direct call */
	I_CALL_IND,	/* through a register or memory (a retpoline thunk too) */
	I_JMP,		/* direct, unconditional */
	I_JCC,		/* direct, conditional */
	I_JMP_IND,	/* indirect: its targets are not followed */
	I_RET,
	I_TRAP,		/* ud2, brk: BUG() stops, WARN() goes on after it */
	I_STOP,		/* int3, hlt, udf: no successor */
};

/* What an instruction does to one register besides clobbering. */
enum iop {
	OP_NONE,
	OP_CONST,	/* dst = imm */
	OP_MEM,		/* dst = the 8 bytes at imm */
	OP_COPY,	/* dst = src */
	OP_ALU,		/* dst = dst <alu> imm (constants only) */
	OP_LEA,		/* dst = src + imm (constants only) */
	OP_LOAD,	/* dst = the 8 bytes at mbase + ... (origins; mconst: a global) */
	OP_LEA_IDX,	/* dst = mbase + index * scale + disp (origins only) */
	OP_STORE,	/* the 8 bytes at mbase + ... = msrc (and msrc2 after it) */
	OP_MOVK,	/* dst's 16 bits at `shift` = imm (arm64 movk; constants only) */
};

enum callee {
	C_NONE,		/* not a call, or not resolved */
	C_OTHER,	/* some other function */
	C_RCU_LOCK,
	C_RCU_UNLOCK,
	C_ALLOC,	/* fgt_alloc_fns[alloc] */
};

struct insn {
	uint64_t addr;
	uint64_t target;	/* direct call or jump */
	uint64_t imm;
	uint32_t clobber;	/* registers written, made unknown (after op) */
	uint8_t size;
	uint8_t kind;		/* enum ikind */
	uint8_t op, dst, src, width, alu, shift;
	uint8_t callee;		/* enum callee, for calls and jumps out */
	int8_t alloc;		/* fgt_alloc_fns index for C_ALLOC */
	int16_t ord;		/* C_ALLOC: its rank among them, in address order (the site) */
	bool thunk;		/* the target was the callee's padding */
	bool entry;		/* the target is a function's entry (or a thunk's) */
	/* memory operand of OP_LOAD, OP_LEA_IDX, OP_STORE and of a cmp */
	uint8_t mbase, msrc;	/* GPRs, R_NONE if none (rip-relative, absolute) */
	uint8_t msrc2;		/* a store pair's second register (arm64 stp), or R_NONE */
	bool midx;		/* with an index register */
	bool mconst;		/* OP_LOAD: a constant base makes it a global's read (arm64
				 * adrp + ldr: the address is a register's, not the insn's) */
	int32_t mdisp;
	/* the base register moves by wb_imm after the access (arm64 pre- and
	 * post-index: [x0, #8]!, [x0], #8) */
	bool wb;
	int32_t wb_imm;
	/* x86 push (-8) and pop (+8): the stack pointer moved, the frame's
	 * spilled registers (flow.h's slots) now that much further from it */
	int8_t sp_adj;
	/* any other write of fwidth bytes at sp + fdisp (a 4-byte store, an
	 * immediate, an ALU op on memory): the slots it overlaps are gone */
	uint8_t fwidth;
	int32_t fdisp;
	/* cmpq $0x0,disp(%mbase): a NULL test of a field (t->ret_stack); on
	 * arm64, ldr xN, [xB, #disp] with the cbz/cbnz xN right after it */
	bool cmp0;
	/* cmp with an immediate (cimm) or of two registers (creg): the walk's
	 * loop compares its cursor with &init_task.tasks */
	bool has_cimm;
	uint64_t cimm;
	uint8_t creg[2];
	uint8_t treg;		/* arm64 cbz/cbnz: the register tested, or R_NONE */
	int8_t nsucc;		/* successors, as follow() found them */
	long succ[2];
	bool last;		/* last decoded instruction of its part */
	bool cut;		/* ... and the bytes after it did not decode */
	bool warned;		/* an anomaly was recorded for it */
};

/* An insn with nothing known yet: no registers, no effect. Inline here, so
 * that a front end needs nothing of the code that calls it. */
static inline void fgt_insn_init(struct insn *in, uint64_t addr, uint8_t size)
{
	memset(in, 0, sizeof(*in));
	in->addr = addr;
	in->size = size;
	in->dst = in->src = in->mbase = in->msrc = in->msrc2 = in->treg = R_NONE;
	in->creg[0] = in->creg[1] = R_NONE;
	in->alloc = -1;
}


#endif
