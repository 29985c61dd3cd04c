// SPDX-License-Identifier: GPL-2.0
/*
 * The static decoder's x86-64 front end (src/static/decode_x86.h): each
 * instruction Capstone decodes, as the rest of the decoder sees it (a
 * struct insn, src/static/decode.h), beside arm64's (decode_arm64.c).
 * Nothing here knows the function being judged: the data flow, the walk
 * and the verdict come after it (flow.c, walk_loop.c, static_check.c), so that
 * a front end never calls back into them.
 */
#include <capstone/capstone.h>
#include <string.h>
#include "static/decode.h"
#include "static/decode_x86.h"

/* Capstone's register to (GPR, width in bytes); width 0: not a GPR. */
static uint8_t gpr_of(unsigned int reg, uint8_t *width)
{
	static const struct { uint16_t r64, r32, r16, r8, r8h; } map[NGPR] = {
		[R_AX] = { X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH },
		[R_CX] = { X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH },
		[R_DX] = { X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH },
		[R_BX] = { X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH },
		[R_SP] = { X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, 0 },
		[R_BP] = { X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, 0 },
		[R_SI] = { X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, 0 },
		[R_DI] = { X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, 0 },
		[R_8] = { X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, 0 },
		[R_9] = { X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, 0 },
		[R_10] = { X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, 0 },
		[R_11] = { X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, 0 },
		[R_12] = { X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, 0 },
		[R_13] = { X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, 0 },
		[R_14] = { X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, 0 },
		[R_15] = { X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, 0 },
	};

	*width = 0;
	if (reg == X86_REG_INVALID)
		return R_NONE;
	for (uint8_t g = 0; g < NGPR; g++) {
		if (reg == map[g].r64)
			*width = 8;
		else if (reg == map[g].r32)
			*width = 4;
		else if (reg == map[g].r16)
			*width = 2;
		else if (reg == map[g].r8 || (map[g].r8h && reg == map[g].r8h))
			*width = 1;
		if (*width)
			return g;
	}
	return R_NONE;
}

/* A memory operand's address when it is a fixed one (rip-relative or absolute). */
static bool mem_addr(const cs_insn *ci, const cs_x86_op *op, uint64_t *addr)
{
	if (op->mem.segment != X86_REG_INVALID || op->mem.index != X86_REG_INVALID)
		return false;
	if (op->mem.base == X86_REG_RIP) {
		*addr = ci->address + ci->size + (uint64_t)op->mem.disp;
		return true;
	}
	if (op->mem.base == X86_REG_INVALID) {
		*addr = (uint64_t)op->mem.disp;	/* -mcmodel=kernel: sign-extended */
		return true;
	}
	return false;
}

/*
 * cmp and the 8-byte register store: no register effect of ours, but what
 * the walk finder (the loop's compare, the NULL test of t->ret_stack) and the
 * destinations (where a shadow stack's pointer goes) read. True if ci was one.
 */
static bool decode_cmp_store(const cs_insn *ci, struct insn *in)
{
	const cs_x86 *x = &ci->detail->x86;
	const cs_x86_op *d = &x->operands[0], *s = &x->operands[1];
	uint8_t dw, sw, src;

	if (ci->id == X86_INS_CMP && d->type == X86_OP_MEM && s->type == X86_OP_IMM &&
	    s->imm == 0 && d->size == 8 && d->mem.index == X86_REG_INVALID &&
	    d->mem.segment == X86_REG_INVALID) {
		in->mbase = gpr_of(d->mem.base, &sw);
		if (in->mbase != R_NONE && sw == 8) {
			in->cmp0 = true;
			in->mdisp = (int32_t)d->mem.disp;
		} else {
			in->mbase = R_NONE;
		}
		return true;
	}
	if (ci->id == X86_INS_CMP && d->type == X86_OP_REG) {
		if (s->type == X86_OP_IMM) {
			in->has_cimm = true;
			in->cimm = (uint64_t)s->imm;
		} else if (s->type == X86_OP_REG) {
			in->creg[0] = gpr_of(d->reg, &dw);
			in->creg[1] = gpr_of(s->reg, &sw);
		}
		return true;
	}
	if ((ci->id == X86_INS_MOV) && d->type == X86_OP_MEM && s->type == X86_OP_REG &&
	    d->mem.segment == X86_REG_INVALID) {
		src = gpr_of(s->reg, &sw);
		if (src != R_NONE && sw == 8) {
			in->op = OP_STORE;
			in->msrc = src;
			in->mbase = gpr_of(d->mem.base, &dw);
			in->midx = d->mem.index != X86_REG_INVALID;
			in->mdisp = (int32_t)d->mem.disp;
		}
		return true;
	}
	return false;
}

/* The register effect of the instructions we follow: mov, movabs, lea, xor,
 * and, or, add, sub. Everything else only clobbers what it writes. */
static void decode_op(const cs_insn *ci, struct insn *in)
{
	const cs_x86 *x = &ci->detail->x86;
	const cs_x86_op *d = &x->operands[0], *s = &x->operands[1];
	uint8_t dw, sw, dst, src = R_NONE;
	uint64_t a;

	if (x->op_count != 2 || decode_cmp_store(ci, in))
		return;
	if (d->type != X86_OP_REG)
		return;
	dst = gpr_of(d->reg, &dw);
	if (dst == R_NONE || dw < 4)
		return;
	if (s->type == X86_OP_REG)
		src = gpr_of(s->reg, &sw);
	in->dst = dst;
	in->width = dw;
	switch (ci->id) {
	case X86_INS_MOV:
	case X86_INS_MOVABS:
		if (s->type == X86_OP_IMM) {
			in->op = OP_CONST;
			in->imm = (uint64_t)s->imm;
		} else if (src != R_NONE && sw == dw) {
			in->op = OP_COPY;
			in->src = src;
		} else if (s->type == X86_OP_MEM && dw == 8 && mem_addr(ci, s, &a)) {
			in->op = OP_MEM;
			in->imm = a;
		} else if (s->type == X86_OP_MEM && dw == 8 && s->mem.segment == X86_REG_INVALID) {
			in->op = OP_LOAD;
			in->mbase = gpr_of(s->mem.base, &sw);
			in->midx = s->mem.index != X86_REG_INVALID;
			in->mdisp = (int32_t)s->mem.disp;
		}
		break;
	case X86_INS_LEA:
		if (s->type != X86_OP_MEM)
			break;
		if (mem_addr(ci, s, &a)) {
			in->op = OP_CONST;
			in->imm = a;
		} else if (s->mem.index == X86_REG_INVALID && s->mem.segment == X86_REG_INVALID) {
			src = gpr_of(s->mem.base, &sw);
			if (src != R_NONE && sw == 8) {
				in->op = OP_LEA;
				in->src = src;
				in->imm = (uint64_t)s->mem.disp;
			}
		} else if (s->mem.segment == X86_REG_INVALID && dw == 8) {
			in->op = OP_LEA_IDX;
			in->mbase = gpr_of(s->mem.base, &sw);
			in->midx = true;
			in->mdisp = (int32_t)s->mem.disp;
		}
		break;
	case X86_INS_XOR:
	case X86_INS_SUB:
		if (src == dst && sw == dw) {
			in->op = OP_CONST;
			in->imm = 0;
			break;
		}
		/* fall through */
	case X86_INS_AND:
	case X86_INS_OR:
	case X86_INS_ADD:
		if (s->type == X86_OP_IMM) {
			in->op = OP_ALU;
			in->alu = (uint8_t)(ci->id == X86_INS_XOR ? '^' : ci->id == X86_INS_SUB ? '-' :
					    ci->id == X86_INS_AND ? '&' : ci->id == X86_INS_OR ? '|' : '+');
			in->imm = (uint64_t)s->imm;
		}
		break;
	}
	if (in->op == OP_NONE || in->op == OP_STORE)
		in->dst = R_NONE;	/* test, cmp, ...: no register effect of ours */
}

static uint32_t written_gprs(csh h, const cs_insn *ci)
{
	cs_regs rr, rw;
	uint8_t nr = 0, nw = 0, w;
	uint32_t m = 0;

	if (cs_regs_access(h, ci, rr, &nr, rw, &nw) != CS_ERR_OK)
		return 0xffffffffu;	/* cannot tell: everything unknown */
	for (unsigned int i = 0; i < nw; i++) {
		uint8_t g = gpr_of(rw[i], &w);

		if (g != R_NONE)
			m |= 1u << g;
	}
	return m;
}

static void decode_kind(csh h, const cs_insn *ci, struct insn *in)
{
	const cs_x86 *x = &ci->detail->x86;
	bool direct = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;

	switch (ci->id) {
	case X86_INS_CALL:
		in->kind = direct ? I_CALL : I_CALL_IND;
		break;
	case X86_INS_JMP:
		in->kind = direct ? I_JMP : I_JMP_IND;
		break;
	case X86_INS_RET:
	case X86_INS_RETF:
	case X86_INS_IRET:
	case X86_INS_IRETQ:
		in->kind = I_RET;
		break;
	case X86_INS_UD2:
		in->kind = I_TRAP;
		break;
	case X86_INS_INT3:
	case X86_INS_HLT:
		in->kind = I_STOP;
		break;
	default:
		if (cs_insn_group(h, ci, X86_GRP_JUMP))
			in->kind = direct ? I_JCC : I_JMP_IND;
		break;
	}
	if (direct && in->kind != I_OTHER && in->kind != I_JMP_IND)
		in->target = (uint64_t)x->operands[0].imm;
}

/*
 * UD0 (0f ff /r) and UD1 (0f b9 /r) take a ModRM operand; Capstone 4 (Debian
 * 12's) decodes them as two bytes without it and loses the instruction
 * boundaries after them. 7.x patches every WARN()'s `call __SCT__WARN_trap`
 * into `ud1 (%edx),%rdi` at boot (arch/x86/kernel/static_call.c): so they are
 * measured here. Returns their length, 0 if p is not one.
 */
size_t fgt_x86_ud_len(const uint8_t *p, size_t left)
{
	size_t i = 0, n;
	uint8_t modrm, mod, rm;

	while (i < left && i < 4 && (p[i] == 0x66 || p[i] == 0x67 || p[i] == 0x2e ||
				     p[i] == 0x3e || p[i] == 0x26 || p[i] == 0x36 ||
				     p[i] == 0x64 || p[i] == 0x65))
		i++;
	if (i < left && (p[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (i + 3 > left || p[i] != 0x0f || (p[i + 1] != 0xb9 && p[i + 1] != 0xff))
		return 0;
	modrm = p[i + 2];
	mod = modrm >> 6;
	rm = modrm & 7;
	n = i + 3;
	if (mod != 3 && rm == 4) {		/* SIB */
		if (n >= left)
			return 0;
		if (mod == 0 && (p[n] & 7) == 5)
			n += 4;
		n++;
	}
	if (mod == 0 && rm == 5)
		n += 4;				/* disp32 (rip/eip-relative) */
	else if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return n <= left ? n : 0;
}

/* A write into the frame (rsp-based, no index) other than the 8-byte
 * register store decode_cmp_store() took: its bytes, for the slots. */
static void frame_write(const cs_insn *ci, struct insn *in)
{
	const cs_x86 *x = &ci->detail->x86;
	uint8_t w;

	if (in->op == OP_STORE)
		return;
	for (int i = 0; i < x->op_count; i++) {
		const cs_x86_op *o = &x->operands[i];

		if (o->type != X86_OP_MEM || !(o->access & CS_AC_WRITE) ||
		    o->mem.index != X86_REG_INVALID || o->mem.segment != X86_REG_INVALID ||
		    gpr_of(o->mem.base, &w) != R_SP)
			continue;
		in->fwidth = o->size ? o->size : 16;	/* unsized: as wide as any */
		in->fdisp = (int32_t)o->mem.disp;
	}
}

void fgt_x86_insn(csh h, const cs_insn *ci, struct insn *in)
{
	decode_kind(h, ci, in);
	decode_op(ci, in);
	frame_write(ci, in);
	/* 8 bytes each in 64-bit mode (a 66h-prefixed 2-byte push: not ours) */
	if ((ci->id == X86_INS_PUSH || ci->id == X86_INS_POP) && !ci->detail->x86.prefix[2])
		in->sp_adj = ci->id == X86_INS_PUSH ? -8 : 8;
	in->clobber = written_gprs(h, ci);
	if (in->op != OP_NONE && in->dst != R_NONE)
		in->clobber &= ~(1u << in->dst);
}

void fgt_x86_refs(csh h, cs_insn *ci, uint64_t at, const uint8_t *bytes, size_t len,
		  void (*cb)(uint64_t addr, void *arg), void *arg)
{
	const uint8_t *code = bytes;
	size_t left = len;
	uint64_t addr = at;

	cb(addr, arg);
	while (left) {
		size_t ud = fgt_x86_ud_len(code, left);
		const cs_x86 *x;

		if (ud) {
			code += ud;
			left -= ud;
			addr += ud;
			continue;
		}
		if (!cs_disasm_iter(h, &code, &left, &addr, ci))
			break;
		x = &ci->detail->x86;
		for (int i = 0; i < x->op_count; i++) {
			const cs_x86_op *op = &x->operands[i];
			uint64_t a;

			if (op->type == X86_OP_IMM && (uint64_t)op->imm >= 0xffff800000000000ull)
				cb((uint64_t)op->imm, arg);
			else if (op->type == X86_OP_MEM && mem_addr(ci, op, &a))
				cb(a, arg);
		}
	}
}
