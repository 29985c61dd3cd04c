// SPDX-License-Identifier: GPL-2.0
/*
 * The static decoder's arm64 front end (src/static/decode_arm64.h): each A64
 * instruction as the rest of the decoder sees it.
 *
 * What the verdict reads, and how arm64 kernels write it (Debian's 6.1,
 * 6.12 and 7.2 arm64 images, GCC):
 *  - calls: `bl target`; tail calls `b target`; `blr`/`br` are indirect;
 *  - arguments: x0-x7 (fgt_arch_facts), so the gfp is `mov w1, #0xcc0`
 *    (movz; a wider constant movz + movk, or orr from wzr), a size
 *    `mov x2, #0x1000`, the cache `adrp x0, fgraph_stack_cachep` then
 *    `ldr x0, [x0, #:lo12:fgraph_stack_cachep]`: the register holds the
 *    page's address, the load adds the offset, and the value read is the
 *    global's (OP_LOAD with mconst);
 *  - &init_task.tasks: `adrp` + `add`, compared with the cursor (`cmp x0,
 *    x1`) right before the loop's `b.ne`;
 *  - t->ret_stack == NULL: `ldr x0, [x19, #off]` then `cbz x0` (no cmp);
 *  - function entries: `paciasp` or `bti c` (hint-space: no register of
 *    ours), and with CALL_OPS two `nop`s before the entry.
 * Capstone 4 (Debian 12's) decodes ARMv8.0 and most of v8.1-v8.3; what it
 * does not (LSE atomics such as `stset`) is handled in fgt_a64_raw().
 */
#include <string.h>
#include "static/decode.h"
#include "static/decode_arm64.h"

/* Capstone's register to (GPR, width in bytes); R_NONE for the zero register
 * and anything that is not a GPR (*zr says which). */
static uint8_t a64_gpr(unsigned int reg, uint8_t *width, bool *zr)
{
	*width = 0;
	*zr = false;
	if (reg >= ARM64_REG_X0 && reg <= ARM64_REG_X28) {
		*width = 8;
		return (uint8_t)(reg - ARM64_REG_X0);
	}
	if (reg >= ARM64_REG_W0 && reg <= ARM64_REG_W30) {
		*width = 4;
		return (uint8_t)(reg - ARM64_REG_W0);
	}
	switch (reg) {
	case ARM64_REG_X29:
		*width = 8;
		return 29;
	case ARM64_REG_X30:
		*width = 8;
		return 30;
	case ARM64_REG_SP:
		*width = 8;
		return R_A64_SP;
	case ARM64_REG_WSP:
		*width = 4;
		return R_A64_SP;
	case ARM64_REG_XZR:
		*width = 8;
		*zr = true;
		return R_NONE;
	case ARM64_REG_WZR:
		*width = 4;
		*zr = true;
		return R_NONE;
	}
	return R_NONE;
}

static uint8_t gpr(unsigned int reg, uint8_t *width)
{
	bool zr;

	return a64_gpr(reg, width, &zr);
}

/* Registers the instruction writes: its operands marked written, and what
 * Capstone says it writes besides (x30 for bl). cmp, cmn and tst write only
 * the flags, whatever Capstone 4 says of their first operand. */
static uint32_t a64_written(csh h, const cs_insn *ci)
{
	const cs_arm64 *x = &ci->detail->arm64;
	cs_regs rr, rw;
	uint8_t nr = 0, nw = 0, w;
	uint32_t m = 0;

	if (ci->id == ARM64_INS_CMP || ci->id == ARM64_INS_CMN || ci->id == ARM64_INS_TST)
		return 0;
	for (int i = 0; i < x->op_count; i++) {
		const cs_arm64_op *op = &x->operands[i];
		uint8_t g;

		if (op->type == ARM64_OP_REG && (op->access & CS_AC_WRITE) &&
		    (g = gpr(op->reg, &w)) != R_NONE)
			m |= 1u << g;
		if (op->type == ARM64_OP_MEM && x->writeback &&
		    (g = gpr(op->mem.base, &w)) != R_NONE)
			m |= 1u << g;
	}
	if (cs_regs_access(h, ci, rr, &nr, rw, &nw) != CS_ERR_OK)
		return 0xffffffffu;	/* cannot tell: everything unknown */
	for (unsigned int i = 0; i < nw; i++) {
		uint8_t g = gpr(rw[i], &w);

		if (g != R_NONE)
			m |= 1u << g;
	}
	return m;
}

/* The last immediate operand: a branch's target. */
static bool last_imm(const cs_arm64 *x, uint64_t *v)
{
	for (int i = x->op_count - 1; i >= 0; i--)
		if (x->operands[i].type == ARM64_OP_IMM) {
			*v = (uint64_t)x->operands[i].imm;
			return true;
		}
	return false;
}

static void a64_kind(const cs_insn *ci, struct insn *in)
{
	const cs_arm64 *x = &ci->detail->arm64;
	uint8_t w;

	switch (ci->id) {
	case ARM64_INS_BL:
		in->kind = I_CALL;
		break;
	case ARM64_INS_BLR:
		in->kind = I_CALL_IND;
		return;
	case ARM64_INS_B:
		in->kind = x->cc == ARM64_CC_INVALID || x->cc == ARM64_CC_AL ? I_JMP : I_JCC;
		break;
	case ARM64_INS_CBZ:
	case ARM64_INS_CBNZ:
		if (x->op_count && x->operands[0].type == ARM64_OP_REG &&
		    gpr(x->operands[0].reg, &w) != R_NONE && w == 8)
			in->treg = gpr(x->operands[0].reg, &w);
		/* fall through */
	case ARM64_INS_TBZ:
	case ARM64_INS_TBNZ:
		in->kind = I_JCC;
		break;
	case ARM64_INS_BR:
		in->kind = I_JMP_IND;
		return;
	case ARM64_INS_RET:
	case ARM64_INS_ERET:
		in->kind = I_RET;
		return;
	case ARM64_INS_BRK:
		/* BUG() and WARN() (arch/arm64/include/asm/bug.h: brk BUG_BRK_IMM) */
		in->kind = I_TRAP;
		return;
	case ARM64_INS_HLT:
		in->kind = I_STOP;
		return;
	default:
		return;
	}
	if (!last_imm(x, &in->target))
		in->kind = in->kind == I_CALL ? I_CALL_IND : I_JMP_IND;
}

/* An immediate operand's value, its lsl applied. */
static uint64_t imm_of(const cs_arm64_op *op)
{
	uint64_t v = (uint64_t)op->imm;

	if (op->shift.type == ARM64_SFT_LSL && op->shift.value < 64)
		v <<= op->shift.value;
	return v;
}

/* mov/movz/movn/movk/orr-from-zr, adrp/adr: what a register is set to. */
static void a64_set(const cs_insn *ci, struct insn *in, uint8_t dst, uint8_t dw)
{
	const cs_arm64 *x = &ci->detail->arm64;
	const cs_arm64_op *s = &x->operands[1];
	uint8_t sw;
	bool zr;
	uint8_t src = s->type == ARM64_OP_REG ? a64_gpr(s->reg, &sw, &zr) : R_NONE;

	switch (ci->id) {
	case ARM64_INS_MOV:
	case ARM64_INS_MOVZ:
	case ARM64_INS_ADRP:
	case ARM64_INS_ADR:
		if (s->type == ARM64_OP_IMM) {
			in->op = OP_CONST;
			in->imm = imm_of(s);
		} else if (s->type == ARM64_OP_REG && zr) {
			in->op = OP_CONST;
			in->imm = 0;
		} else if (src != R_NONE && src != R_A64_SP && sw == dw) {
			in->op = OP_COPY;
			in->src = src;
		}
		break;
	case ARM64_INS_MOVN:
		if (s->type == ARM64_OP_IMM) {
			in->op = OP_CONST;
			in->imm = ~imm_of(s);
		}
		break;
	case ARM64_INS_MOVK:
		if (s->type == ARM64_OP_IMM && s->shift.value < 64 &&
		    (s->shift.type == ARM64_SFT_LSL || !s->shift.value)) {
			in->op = OP_MOVK;
			in->imm = (uint64_t)s->imm & 0xffff;
			in->shift = (uint8_t)s->shift.value;
		}
		break;
	case ARM64_INS_ORR:
		/* orr xd, xzr, #imm (mov of a bitmask immediate) */
		if (x->op_count == 3 && s->type == ARM64_OP_REG && zr &&
		    x->operands[2].type == ARM64_OP_IMM) {
			in->op = OP_CONST;
			in->imm = imm_of(&x->operands[2]);
		}
		break;
	}
}

/* add/sub xd, xn, #imm: an address (adrp + add), or a pointer into an
 * object; add xd, xn, xm(, lsl #k): &xn[xm] (origins only). */
static void a64_arith(const cs_insn *ci, struct insn *in, uint8_t dw)
{
	const cs_arm64 *x = &ci->detail->arm64;
	uint8_t sw, src;

	if (x->op_count != 3 || x->operands[1].type != ARM64_OP_REG)
		return;
	src = gpr(x->operands[1].reg, &sw);
	if (src == R_NONE || src == R_A64_SP || sw != dw)
		return;
	if (x->operands[2].type == ARM64_OP_IMM) {
		uint64_t v = imm_of(&x->operands[2]);

		in->op = OP_LEA;
		in->src = src;
		in->imm = ci->id == ARM64_INS_SUB ? (uint64_t)-(int64_t)v : v;
	} else if (x->operands[2].type == ARM64_OP_REG && ci->id == ARM64_INS_ADD && dw == 8) {
		in->op = OP_LEA_IDX;
		in->mbase = src;
		in->midx = true;
	}
}

/* The memory operand of a load or store: base, displacement, writeback. */
static bool a64_mem(const cs_insn *ci, struct insn *in, int memop)
{
	const cs_arm64 *x = &ci->detail->arm64;
	const cs_arm64_op *m = &x->operands[memop];
	uint8_t bw;

	if (m->type != ARM64_OP_MEM)
		return false;
	in->mbase = gpr(m->mem.base, &bw);
	if (in->mbase == R_NONE || bw != 8)
		return false;
	in->midx = m->mem.index != ARM64_REG_INVALID;
	in->mdisp = m->mem.disp;
	if (x->writeback) {
		in->wb = true;
		/* post-index: [xn], #imm (the immediate after the operand);
		 * pre-index: [xn, #imm]! (the displacement) */
		if (memop + 1 < x->op_count && x->operands[memop + 1].type == ARM64_OP_IMM) {
			in->wb_imm = (int32_t)x->operands[memop + 1].imm;
			in->mdisp = 0;
		} else {
			in->wb_imm = in->mdisp;
		}
	}
	return true;
}

static void a64_load_store(const cs_insn *ci, struct insn *in)
{
	const cs_arm64 *x = &ci->detail->arm64;
	uint8_t w, w2;
	bool zr;
	uint8_t r0 = x->op_count ? a64_gpr(x->operands[0].reg, &w, &zr) : R_NONE;

	switch (ci->id) {
	case ARM64_INS_LDR:
		if (x->op_count < 2 || x->operands[0].type != ARM64_OP_REG || r0 == R_NONE ||
		    w != 8 || !a64_mem(ci, in, 1))
			return;
		in->op = OP_LOAD;
		in->dst = r0;
		in->width = 8;
		in->mconst = true;
		if (in->dst == in->mbase)
			in->wb = false;	/* the loaded value wins */
		break;
	case ARM64_INS_STR:
		if (x->op_count < 2 || x->operands[0].type != ARM64_OP_REG || w != 8 ||
		    !a64_mem(ci, in, 1))
			return;
		in->op = OP_STORE;
		in->msrc = r0;		/* R_NONE for xzr: nothing of ours stored */
		break;
	case ARM64_INS_STP:
		if (x->op_count < 3 || x->operands[0].type != ARM64_OP_REG ||
		    x->operands[1].type != ARM64_OP_REG || w != 8 || !a64_mem(ci, in, 2))
			return;
		in->op = OP_STORE;
		in->msrc = r0;
		in->msrc2 = a64_gpr(x->operands[1].reg, &w2, &zr);
		break;
	}
}

static void a64_cmp(const cs_insn *ci, struct insn *in)
{
	const cs_arm64 *x = &ci->detail->arm64;
	uint8_t w;

	if (x->op_count != 2 || x->operands[0].type != ARM64_OP_REG)
		return;
	if (x->operands[1].type == ARM64_OP_IMM) {
		in->creg[0] = gpr(x->operands[0].reg, &w);
		in->has_cimm = true;
		in->cimm = imm_of(&x->operands[1]);
	} else if (x->operands[1].type == ARM64_OP_REG) {
		in->creg[0] = gpr(x->operands[0].reg, &w);
		in->creg[1] = gpr(x->operands[1].reg, &w);
	}
}

void fgt_a64_insn(csh h, const cs_insn *ci, struct insn *in)
{
	const cs_arm64 *x = &ci->detail->arm64;
	uint8_t dw = 0, dst = R_NONE;

	a64_kind(ci, in);
	in->clobber = a64_written(h, ci);
	if (ci->id == ARM64_INS_CMP) {
		a64_cmp(ci, in);
		return;
	}
	if (ci->id == ARM64_INS_LDR || ci->id == ARM64_INS_STR || ci->id == ARM64_INS_STP) {
		a64_load_store(ci, in);
	} else if (x->op_count >= 2 && x->operands[0].type == ARM64_OP_REG &&
		   (dst = gpr(x->operands[0].reg, &dw)) != R_NONE && dst != R_A64_SP) {
		in->dst = dst;
		in->width = dw;
		if (ci->id == ARM64_INS_ADD || ci->id == ARM64_INS_SUB)
			a64_arith(ci, in, dw);
		else
			a64_set(ci, in, dst, dw);
	}
	if (in->op == OP_NONE || in->op == OP_STORE)
		in->dst = R_NONE;
	if (in->op != OP_NONE && in->dst != R_NONE)
		in->clobber &= ~(1u << in->dst);
}

/*
 * The A64 encoding groups (Arm ARM C4.1, bits 28:25): 0000 reserved (udf),
 * 1010/1011 branches, exception generation and system instructions, x1x0
 * loads and stores, the rest data processing. Of the system space only the
 * hints are taken (d503201f | imm << 5: nop, yield, PAC's paciasp/autiasp,
 * bti; they write no register of ours but x30 for PAC). A load, store or
 * data-processing word Capstone 4 does not know (LSE atomics, v8.4+) may
 * write any register: all are made unknown. Anything else ends the part.
 */
bool fgt_a64_raw(uint32_t w, struct insn *in)
{
	uint32_t op0 = (w >> 25) & 0xf;

	if ((w & 0xfffff01fu) == 0xd503201fu) {
		in->clobber = 1u << 30;
		return true;
	}
	if (op0 == 0) {
		in->kind = I_STOP;	/* udf: permanently undefined */
		return true;
	}
	if ((op0 & 0xe) == 0xa)
		return false;		/* a branch or system instruction we cannot read */
	if ((op0 & 0x5) == 0x4 || (op0 & 0x7) == 0x5 || (op0 & 0xe) == 0x8 || (op0 & 0x7) == 0x7) {
		in->clobber = 0xffffffffu;
		/* a store we cannot read could hide where a pointer goes: no store
		 * of ours is recorded, so no destination comes of it (judge()
		 * then finds fewer shadow stacks, never more) */
		return true;
	}
	return false;
}

void fgt_a64_null_tests(struct insn *in, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		struct insn *l = &in[i], *b = &in[i + 1];

		if (l->op == OP_LOAD && !l->midx && !l->wb && l->mdisp > 0 && l->dst != R_NONE &&
		    b->kind == I_JCC && b->treg == l->dst && b->addr == l->addr + 4)
			l->cmp0 = true;
	}
}

/*
 * Every address the code refers to: call and branch targets, and what
 * adrp + add / adrp + ldr compute (followed in straight lines; a register
 * is forgotten when anything else writes it). A superset is harmless: the
 * caller only looks the addresses up.
 */
void fgt_a64_refs(csh h, cs_insn *ci, uint64_t at, const uint8_t *bytes, size_t len,
		  void (*cb)(uint64_t addr, void *arg), void *arg)
{
	uint64_t page[NGPR];
	uint32_t known = 0;

	cb(at, arg);
	for (size_t o = 0; o + 4 <= len; o += 4) {
		const uint8_t *code = bytes + o;
		size_t left = 4;
		uint64_t addr = at + o;
		struct insn in;

		if (!cs_disasm_iter(h, &code, &left, &addr, ci)) {
			known = 0;
			continue;
		}
		fgt_insn_init(&in, ci->address, 4);
		fgt_a64_insn(h, ci, &in);
		if (in.kind == I_CALL || in.kind == I_JMP || in.kind == I_JCC)
			cb(in.target, arg);
		if ((in.op == OP_LEA || in.op == OP_LOAD) &&
		    (in.op == OP_LEA ? in.src : in.mbase) < NGPR &&
		    (known & (1u << (in.op == OP_LEA ? in.src : in.mbase))))
			cb(page[in.op == OP_LEA ? in.src : in.mbase] +
			   (in.op == OP_LEA ? in.imm : (uint64_t)(int64_t)in.mdisp), arg);
		known &= ~in.clobber;
		if (in.dst != R_NONE)
			known &= ~(1u << in.dst);
		if (ci->id == ARM64_INS_ADRP && in.op == OP_CONST && in.dst != R_NONE) {
			page[in.dst] = in.imm;
			known |= 1u << in.dst;
		}
	}
}
