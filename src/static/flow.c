// SPDX-License-Identifier: GPL-2.0
/*
 * The static decoder's data flow (src/static/flow.h), the same for both
 * architectures: each part of the function decoded through its front end
 * (decode_x86.c, decode_arm64.c) into one array of instructions, the direct
 * calls resolved to what they reach, and the control flow followed from the
 * entry to a fixed point, per instruction: reached or not, the RCU
 * read-side depth, and per register a constant, "the 8 bytes at this
 * global" or unknown, with the origins of the pointers it may hold.
 * The walk finder (walk_loop.c) and the judge (static_check.c) read that
 * state; nothing here calls them.
 */
#include <capstone/capstone.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "static/decode.h"
#include "static/decode_arm64.h"
#include "static/decode_x86.h"
#include "static/flow.h"

/* ---- step 1: decode -------------------------------------------------------- */

/* The first anomaly on a reached path is what the answer will say. */
void fgt_flow_note(struct dec *d, enum fgt_static_why why, const char *fmt, ...)
{
	va_list ap;

	if (d->anomaly[0])
		return;
	va_start(ap, fmt);
	vsnprintf(d->anomaly, sizeof(d->anomaly), fmt, ap);
	va_end(ap);
	d->anomaly_why = why;
}

const char *fgt_flow_where(const struct dec *d, uint64_t a, char *buf, size_t len)
{
	return fgt_ksyms_format(d->k->ks, a, buf, len);
}

static int grow(struct dec *d)
{
	size_t cap = d->cap ? d->cap * 2 : 512;
	struct insn *p = realloc(d->in, cap * sizeof(*p));

	if (!p)
		return -1;
	d->in = p;
	d->cap = cap;
	return 0;
}

/*
 * arm64: one 4-byte word at a time (A64 has no other size), through
 * Capstone, else by hand (fgt_a64_raw) where Capstone 4 does not know the
 * instruction; a word neither knows ends the part.
 */
static int decode_part_a64(struct dec *d, csh h, cs_insn *ci, const struct fgt_static_part *p)
{
	size_t first = d->n;

	for (size_t o = 0; o + 4 <= p->len; o += 4) {
		const uint8_t *code = p->bytes + o;
		size_t left = 4;
		uint64_t addr = p->addr + o;
		uint32_t w = (uint32_t)code[0] | (uint32_t)code[1] << 8 |
			     (uint32_t)code[2] << 16 | (uint32_t)code[3] << 24;
		struct insn *in;

		if (d->n == d->cap && grow(d))
			return -1;
		in = &d->in[d->n];
		fgt_insn_init(in, addr, 4);
		if (cs_disasm_iter(h, &code, &left, &addr, ci)) {
			fgt_a64_insn(h, ci, in);
		} else if (!fgt_a64_raw(w, in)) {
			if (!d->undecoded)
				d->undecoded = p->addr + o;
			if (d->n > first)
				d->in[d->n - 1].cut = true;
			break;
		}
		d->n++;
	}
	if (d->n > first) {
		d->in[d->n - 1].last = true;
		fgt_a64_null_tests(d->in + first, d->n - first);
	}
	return 0;
}

int fgt_flow_decode_part(struct dec *d, csh h, cs_insn *ci, const struct fgt_static_part *p)
{
	const uint8_t *code = p->bytes;
	size_t left = p->len, first = d->n;
	uint64_t addr = p->addr;

	if (d->c->arch == FGT_ARCH_ARM64)
		return decode_part_a64(d, h, ci, p);
	while (left) {
		struct insn *in;
		size_t ud = fgt_x86_ud_len(code, left);

		if (ud) {
			/* a trap: BUG() stops there, WARN() goes on after it */
			if (d->n == d->cap && grow(d))
				return -1;
			in = &d->in[d->n++];
			fgt_insn_init(in, addr, (uint8_t)ud);
			in->kind = I_TRAP;
			code += ud;
			left -= ud;
			addr += ud;
			continue;
		}
		if (!cs_disasm_iter(h, &code, &left, &addr, ci)) {
			/* The part ends here: a path that runs into it is an anomaly
			 * (successors()); padding after the last instruction is not. */
			if (!d->undecoded)
				d->undecoded = addr;
			if (d->n > first)
				d->in[d->n - 1].cut = true;
			break;
		}
		if (d->n == d->cap && grow(d))
			return -1;
		in = &d->in[d->n++];
		fgt_insn_init(in, ci->address, (uint8_t)ci->size);
		fgt_x86_insn(h, ci, in);
	}
	if (d->n > first)
		d->in[d->n - 1].last = true;
	return 0;
}

/* ---- call targets ---------------------------------------------------------- */

static bool starts_with(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static const struct fgt_text_fact *text_fact(const char *name)
{
	for (size_t i = 0; i < fgt_nr_text_facts; i++) {
		const struct fgt_text_fact *f = &fgt_text_facts[i];

		if (f->prefix ? starts_with(name, f->name) : !strcmp(name, f->name))
			return f;
	}
	return NULL;
}

bool fgt_flow_in_code(const struct fgt_static_code *c, uint64_t a)
{
	for (unsigned int i = 0; i < c->nr_parts; i++)
		if (a >= c->part[i].addr && a - c->part[i].addr < c->part[i].len)
			return true;
	return false;
}

/*
 * What a direct call (or a jump out of the function) reaches: the function
 * at the target, the padding before a function counting as that function
 * (call thunks), a return thunk as a return, a retpoline as an indirect
 * transfer. The target must be a function's entry: a call into the middle of
 * one is "another function", named as such.
 */
static void resolve(struct dec *d, struct insn *in)
{
	const struct fgt_ksym *s = fgt_ksyms_by_addr(d->k->ks, in->target);
	const struct fgt_text_fact *f = s ? text_fact(s->name) : NULL;
	uint64_t t = in->target;

	in->callee = C_OTHER;
	if (f && f->role == FGT_TEXT_PADDING) {
		const struct fgt_ksym *fn = fgt_ksyms_by_name(d->k->ks, s->name + strlen(f->name));

		if (fn && fn->addr > t && fn->addr - t <= s->size) {
			t = fn->addr;
			in->thunk = true;
		}
	} else if (f && s->addr == t) {
		in->entry = true;
		if (f->role == FGT_TEXT_NOP && in->kind == I_CALL) {
			in->kind = I_OTHER;
			in->callee = C_NONE;
			in->clobber = 0;
			return;
		}
		if (f->role == FGT_TEXT_NORETURN && in->kind == I_CALL) {
			in->kind = I_STOP;
			in->callee = C_OTHER;
			return;
		}
		if (f->role == FGT_TEXT_RETURN && in->kind == I_JMP)
			in->kind = I_RET;
		else if (f->role == FGT_TEXT_INDIRECT)
			in->kind = in->kind == I_CALL ? I_CALL_IND : I_JMP_IND;
		return;
	}
	if (!s || (s->addr != t && !in->thunk))
		return;
	in->entry = true;
	if (t == d->rcu_lock && d->rcu_lock) {
		in->callee = C_RCU_LOCK;
		return;
	}
	if (t == d->rcu_unlock && d->rcu_unlock) {
		in->callee = C_RCU_UNLOCK;
		return;
	}
	for (size_t i = 0; i < fgt_nr_alloc_fns && i < 16; i++)
		if (d->alloc_addr[i] && t == d->alloc_addr[i]) {
			in->callee = C_ALLOC;
			in->alloc = (int8_t)i;
			return;
		}
}

/* Does the code call (or tail-call) addr, directly or through its padding? */
static bool calls_to(const struct dec *d, uint64_t addr)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct insn *in = &d->in[i];

		if ((in->kind == I_CALL || in->kind == I_JMP) &&
		    in->target <= addr && addr - in->target <= 16)
			return true;
	}
	return false;
}

void fgt_flow_resolve(struct dec *d)
{
	const struct fgt_ksym *s;

	s = fgt_ksyms_by_name(d->k->ks, fgt_sym_name(FGT_SYM_STACK_CACHEP));
	d->cachep = s ? s->addr : 0;
	s = fgt_ksyms_by_name(d->k->ks, FGT_INIT_TASK);
	if (s) {
		d->init_lo = s->addr;
		d->init_hi = s->addr + (s->size ? s->size : 1);
	}
	/* the walk's bounds: the first of fgt_walk_bounds whose closing call
	 * this code makes (a kernel has the symbols of several); none: the
	 * first's, whose absence the judge words, and the walk by its loop */
	for (size_t i = 0; i < fgt_nr_walk_bounds && !d->rcu_lock; i++) {
		const struct fgt_ksym *o = fgt_ksyms_by_name(d->k->ks, fgt_sym_name(fgt_walk_bounds[i].open));

		s = fgt_ksyms_by_name(d->k->ks, fgt_sym_name(fgt_walk_bounds[i].close));
		if (o && s && calls_to(d, s->addr)) {
			d->rcu_lock = o->addr;
			d->rcu_unlock = s->addr;
			d->lock_read = fgt_walk_bounds[i].open_is_read;
		}
	}
	if (!d->rcu_lock) {
		s = fgt_ksyms_by_name(d->k->ks, fgt_sym_name(FGT_SYM_RCU_READ_LOCK));
		d->rcu_lock = s ? s->addr : 0;
		s = fgt_ksyms_by_name(d->k->ks, fgt_sym_name(FGT_SYM_RCU_READ_UNLOCK));
		d->rcu_unlock = s ? s->addr : 0;
	}
	for (size_t i = 0; i < fgt_nr_alloc_fns && i < 16; i++) {
		s = fgt_ksyms_by_name(d->k->ks, fgt_alloc_fns[i].name);
		d->alloc_addr[i] = s ? s->addr : 0;
	}
	for (size_t i = 0, ord = 0; i < d->n; i++) {
		struct insn *in = &d->in[i];

		in->ord = -1;
		if (in->kind == I_CALL ||
		    ((in->kind == I_JMP || in->kind == I_JCC) && !fgt_flow_in_code(d->c, in->target)))
			resolve(d, in);
		else if (d->lock_read && in->op == OP_MEM &&
			 (s = fgt_ksyms_by_addr(d->k->ks, in->imm)) && s->addr == d->rcu_lock)
			in->callee = C_RCU_LOCK;	/* a read opening the walk */
		if (in->callee == C_ALLOC)
			in->ord = (int16_t)(ord < 0x7fff ? ord++ : ord);
	}
}

/* ---- step 2: follow the control flow ------------------------------------- */

long fgt_flow_find_insn(const struct dec *d, uint64_t a)
{
	size_t lo = 0, hi = d->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->in[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->n && d->in[lo].addr == a ? (long)lo : -1;
}

static bool val_eq(const struct val *a, const struct val *b)
{
	return a->kind == b->kind && (a->kind == FGT_VAL_UNKNOWN || a->v == b->v);
}

/* Meet b into a, one value; true if a changed. */
static bool meet_val(struct val *a, const struct val *b)
{
	bool changed = false;

	if (a->kind != FGT_VAL_UNKNOWN && !val_eq(a, b)) {
		a->kind = FGT_VAL_UNKNOWN;
		changed = true;
	}
	if ((b->ret & ~a->ret) || (b->addr & ~a->addr) || (b->elem & ~a->elem)) {
		a->ret |= b->ret;
		a->addr |= b->addr;
		a->elem |= b->elem;
		changed = true;
	}
	return changed;
}

/* Does v say anything (a constant, a global's bytes, an origin)? */
static bool known(const struct val *v)
{
	return v->kind != FGT_VAL_UNKNOWN || v->ret || v->addr || v->elem;
}

/* The slot at sp + off, its index; -1: none. */
static int slot_find(const struct state *s, int32_t off)
{
	for (int k = 0; k < NSLOT; k++)
		if (s->slot[k].used && s->slot[k].off == off)
			return k;
	return -1;
}

static struct slot *slot_at(struct state *s, int32_t off)
{
	int k = slot_find(s, off);

	return k < 0 ? NULL : &s->slot[k];
}

static struct slot *slot_new(struct state *s, int32_t off)
{
	for (int k = 0; k < NSLOT; k++)
		if (!s->slot[k].used) {
			s->slot[k] = (struct slot){ true, off, { FGT_VAL_UNKNOWN, 0, 0, 0, 0 } };
			return &s->slot[k];
		}
	return NULL;	/* full: that spill is not followed (its load knows nothing) */
}

/*
 * The slots met: a slot one side lacks holds, on that side, what nothing
 * says: its value unknown, its origins the other side's. Full, a slot is
 * not added: its load then knows nothing, as before spills were followed.
 */
static bool meet_slots(struct state *dst, const struct state *src)
{
	static const struct val none = { FGT_VAL_UNKNOWN, 0, 0, 0, 0 };
	bool changed = false;

	for (int k = 0; k < NSLOT; k++) {
		struct slot *a = &dst->slot[k];

		if (a->used && slot_find(src, a->off) < 0)
			changed |= meet_val(&a->v, &none);
	}
	for (int k = 0; k < NSLOT; k++) {
		const struct slot *b = &src->slot[k];
		struct slot *a;

		if (!b->used)
			continue;
		a = slot_at(dst, b->off);
		if (!a)
			a = slot_new(dst, b->off);	/* unknown: b's origins, not its value */
		if (a)
			changed |= meet_val(&a->v, &b->v);
	}
	return changed;
}

/* Meet src into dst; true if dst changed. */
static bool meet(struct state *dst, const struct state *src)
{
	bool changed = false;

	if (!dst->reached) {
		*dst = *src;
		return true;
	}
	if (dst->rcu != src->rcu && dst->rcu != RCU_MIXED) {
		dst->rcu = RCU_MIXED;
		changed = true;
	}
	for (int g = 0; g < NGPR; g++)
		changed |= meet_val(&dst->r[g], &src->r[g]);
	return meet_slots(dst, src) || changed;
}

static uint64_t alu(uint8_t op, uint64_t a, uint64_t b)
{
	switch (op) {
	case '^': return a ^ b;
	case '-': return a - b;
	case '&': return a & b;
	case '|': return a | b;
	default:  return a + b;
	}
}

/* The origins a pointer into an object keeps: the object's. */
uint64_t fgt_flow_into(const struct val *v)
{
	return v->ret | v->addr;
}

/* The base register after a pre- or post-indexed access: moved by wb_imm,
 * still pointing into the object it pointed into. */
static void writeback(const struct insn *in, struct state *s)
{
	struct val *b = &s->r[in->mbase];
	struct val nv = { FGT_VAL_UNKNOWN, 0, 0, fgt_flow_into(b), 0 };

	if (b->kind == FGT_VAL_CONST) {
		nv.kind = FGT_VAL_CONST;
		nv.v = b->v + (uint64_t)(int64_t)in->wb_imm;
	}
	*b = nv;
}

/* What a call does to the state besides its own writes: the caller-saved
 * registers lost, the pointer it returns, the walk's depth (a call, or the
 * read opening the walk where rcu_read_lock() is no code). */
static void call_effects(const struct dec *d, const struct insn *in, struct state *s)
{
	if (in->kind == I_CALL || in->kind == I_CALL_IND) {
		for (int g = 0; g < NGPR; g++)
			if (d->arch->caller_saved & (1u << g))
				s->r[g] = (struct val){ FGT_VAL_UNKNOWN, 0, 0, 0, 0 };
		if (in->callee == C_ALLOC && in->ord >= 0 && in->ord < NSITE_BITS)
			s->r[d->arch->ret_reg].ret = 1ull << in->ord;
		else if (in->kind == I_CALL && in->callee == C_OTHER)
			s->r[d->arch->ret_reg].ret = OTHER;
	}
	/* a call, or the read opening the walk where rcu_read_lock() is no code */
	if ((in->kind == I_CALL || in->kind == I_CALL_IND || in->op == OP_MEM || in->op == OP_LOAD) &&
	    s->rcu != RCU_MIXED) {
		if (in->callee == C_RCU_LOCK)
			s->rcu = s->rcu < RCU_MAX ? s->rcu + 1 : RCU_MIXED;
		else if (in->callee == C_RCU_UNLOCK)
			s->rcu = s->rcu > 0 ? s->rcu - 1 : RCU_MIXED;
	}
}

static uint8_t sp_of(const struct dec *d)
{
	return d->c->arch == FGT_ARCH_ARM64 ? R_A64_SP : R_SP;
}

/* A store's registers into the frame's slots (a store pair's second 8 bytes
 * after its first); a load from the frame reads the slot back. */
static void spill(const struct insn *in, struct state *s)
{
	for (int k = 0; k < 2; k++) {
		uint8_t sr = k ? in->msrc2 : in->msrc;
		int64_t off = (int64_t)in->mdisp + 8 * k;
		struct slot *sl;

		if (sr == R_NONE || off > INT32_MAX)
			continue;
		sl = slot_at(s, off);
		if (!known(&s->r[sr])) {
			if (sl)		/* nothing known is no slot: room for those that are */
				*sl = (struct slot){ 0 };
			continue;
		}
		if (!sl)
			sl = slot_new(s, off);
		if (sl)
			sl->v = s->r[sr];
	}
}

/*
 * How far in moves the stack pointer: *delta, true where known (push, pop,
 * add or sub of a constant, a pre- or post-indexed access through sp; a
 * call's push is its callee's pop: 0). False: sp moved by what is not known.
 */
static bool sp_moved(const struct dec *d, const struct insn *in, int64_t *delta)
{
	uint8_t sp = sp_of(d);

	*delta = 0;
	if (in->kind == I_CALL || in->kind == I_CALL_IND)
		return true;
	if (in->sp_adj) {
		*delta = in->sp_adj;
		return true;
	}
	if (in->op == OP_ALU && in->dst == sp && in->width == 8 && (in->alu == '+' || in->alu == '-')) {
		*delta = in->alu == '+' ? (int64_t)in->imm : -(int64_t)in->imm;
		/* a frame past 1 MiB is no kernel's (its stack is 16 KiB) */
		return *delta > -(1 << 20) && *delta < (1 << 20);
	}
	if (in->wb && in->mbase == sp) {
		*delta = in->wb_imm;
		return true;
	}
	return !((in->clobber & (1u << sp)) || in->dst == sp);
}

/* Another write into the frame: the slots whose 8 bytes it touches. */
static void frame_clobber(const struct insn *in, struct state *s)
{
	int64_t lo = in->fdisp, hi = lo + in->fwidth;

	for (int k = 0; k < NSLOT; k++) {
		struct slot *sl = &s->slot[k];

		if (sl->used && (int64_t)sl->off < hi && (int64_t)sl->off + 8 > lo)
			*sl = (struct slot){ 0 };
	}
}

/* The slots after sp moved by delta: each that much nearer (a push: further
 * away); one now below sp is gone. Moved by what is not known: all gone. */
static void slots_follow_sp(const struct dec *d, const struct insn *in, struct state *s)
{
	int64_t delta;

	if (!sp_moved(d, in, &delta)) {
		memset(s->slot, 0, sizeof(s->slot));
		return;
	}
	for (int k = 0; delta && k < NSLOT; k++) {
		struct slot *sl = &s->slot[k];

		if (!sl->used)
			continue;
		if ((int64_t)sl->off - delta < 0 || (int64_t)sl->off - delta > INT32_MAX)
			*sl = (struct slot){ 0 };
		else
			sl->off = (int32_t)((int64_t)sl->off - delta);
	}
}

/* The state after in, from the state before it. */
void fgt_flow_transfer(const struct dec *d, const struct insn *in, struct state *s)
{
	struct val *dv = in->dst != R_NONE ? &s->r[in->dst] : NULL;
	const struct val *base = in->mbase != R_NONE ? &s->r[in->mbase] : NULL;
	struct val nv = { FGT_VAL_UNKNOWN, 0, 0, 0, 0 };
	bool frame = in->mbase == sp_of(d) && !in->midx;
	const struct slot *sl;

	switch (in->op) {
	case OP_CONST:
		nv.kind = FGT_VAL_CONST;
		nv.v = in->imm;
		break;
	case OP_MEM:
		nv.kind = FGT_VAL_MEM;
		nv.v = in->imm;
		break;
	case OP_COPY:
		nv = s->r[in->src];
		if (in->width == 4) {
			if (nv.kind == FGT_VAL_MEM)
				nv.kind = FGT_VAL_UNKNOWN;
			nv.ret = nv.addr = nv.elem = 0;	/* a pointer cut to 32 bits */
		}
		break;
	case OP_ALU:
		if (dv->kind == FGT_VAL_CONST) {
			nv.kind = FGT_VAL_CONST;
			nv.v = alu(in->alu, dv->v, in->imm);
		}
		if (in->width == 8 && (in->alu == '+' || in->alu == '-'))
			nv.addr = fgt_flow_into(dv);
		break;
	case OP_LEA:
		if (s->r[in->src].kind == FGT_VAL_CONST) {
			nv.kind = FGT_VAL_CONST;
			nv.v = s->r[in->src].v + in->imm;
		}
		nv.addr = fgt_flow_into(&s->r[in->src]);
		break;
	case OP_LEA_IDX:
		nv.addr = base ? fgt_flow_into(base) : 0;
		break;
	case OP_LOAD:
		if (frame && !in->wb && (sl = slot_at(s, in->mdisp))) {
			nv = sl->v;
			break;
		}
		nv.elem = base ? fgt_flow_into(base) : 0;
		if (in->mconst && base && base->kind == FGT_VAL_CONST && !in->midx) {
			nv.kind = FGT_VAL_MEM;
			nv.v = base->v + (uint64_t)(int64_t)in->mdisp;
		}
		break;
	case OP_MOVK:
		if (dv->kind == FGT_VAL_CONST) {
			nv.kind = FGT_VAL_CONST;
			nv.v = (dv->v & ~(0xffffull << in->shift)) | in->imm << in->shift;
		}
		break;
	}
	if (in->op == OP_STORE && frame && !in->wb)
		spill(in, s);
	if (in->fwidth)
		frame_clobber(in, s);
	if (dv) {
		/* a 32-bit write zero-extends */
		if (in->width == 4 && nv.kind == FGT_VAL_CONST)
			nv.v &= 0xffffffffu;
		*dv = nv;
	}
	slots_follow_sp(d, in, s);
	if (in->wb && in->mbase != R_NONE)
		writeback(in, s);
	for (int g = 0; g < NGPR; g++)
		if (in->clobber & (1u << g))
			s->r[g] = (struct val){ FGT_VAL_UNKNOWN, 0, 0, 0, 0 };
	call_effects(d, in, s);
}

static void push(long *wl, size_t *nwl, bool *queued, long i)
{
	if (!queued[i]) {
		queued[i] = true;
		wl[(*nwl)++] = i;
	}
}

/* Where control goes after in (at most two places); anomalies noted. */
static int successors(struct dec *d, size_t i, long out[2])
{
	struct insn *in = &d->in[i];
	int n = 0;
	char a[96];

	if (in->kind == I_JMP_IND) {
		if (!in->warned)
			fgt_flow_note(d, FGT_SW_SHAPE, "indirect jump at %s: its targets are not followed",
			     fgt_flow_where(d, in->addr, a, sizeof(a)));
		in->warned = true;
		return 0;
	}
	if (in->kind == I_JMP || in->kind == I_JCC) {
		if (fgt_flow_in_code(d->c, in->target)) {
			long t = fgt_flow_find_insn(d, in->target);

			if (t >= 0)
				out[n++] = t;
			else if (!in->warned) {
				fgt_flow_note(d, FGT_SW_DISASM, "jump at %s into the middle of an instruction",
				     fgt_flow_where(d, in->addr, a, sizeof(a)));
				in->warned = true;
			}
		}
		/*
		 * A jump out of the function is a tail call when it reaches a
		 * function's entry (resolve()): no successor here. Anywhere else
		 * (the middle of a function, a part that was not read) control
		 * goes on in code the decoder has not seen: it cannot judge.
		 */
		else if (!in->entry && !in->warned) {
			const struct fgt_ksym *ts = fgt_ksyms_by_addr(d->k->ks, in->target);
			size_t fl = strlen(d->c->func);
			char t[96];

			fgt_flow_where(d, in->addr, a, sizeof(a));
			fgt_flow_where(d, in->target, t, sizeof(t));
			if (ts && !strncmp(ts->name, d->c->func, fl) &&
			    (!ts->name[fl] || ts->name[fl] == '.'))
				fgt_flow_note(d, FGT_SW_DISASM, "jump at %s to %s, past the code read (its "
				     "text is cut short)", a, t);
			else
				fgt_flow_note(d, FGT_SW_SHAPE, "jump at %s to %s, outside the code read and "
				     "not a function's entry: where control goes is not known", a, t);
			in->warned = true;
		}
	}
	/*
	 * Falling through. After a call that does not return (__stack_chk_fail)
	 * or a BUG()'s ud2 the next bytes are another block: going on into it
	 * only adds paths, so the answer can get less sure, never wrong. At
	 * the end of a part, those two are how GCC ends one; anything else
	 * running off the end is an anomaly.
	 */
	if (in->kind == I_OTHER || in->kind == I_CALL || in->kind == I_CALL_IND ||
	    in->kind == I_JCC || in->kind == I_TRAP) {
		if (!in->last)
			out[n++] = (long)i + 1;
		else if ((in->cut || in->kind == I_OTHER || in->kind == I_JCC) && !in->warned) {
			if (in->cut)
				fgt_flow_note(d, FGT_SW_DISASM, "control runs past %s into bytes Capstone "
				     "cannot decode (at %s)", fgt_flow_where(d, in->addr, a, sizeof(a)),
				     fgt_flow_where(d, d->undecoded, a + 48, 48));
			else
				fgt_flow_note(d, FGT_SW_DISASM, "control runs past the end of the code at %s",
				     fgt_flow_where(d, in->addr, a, sizeof(a)));
			in->warned = true;
		}
	}
	return n;
}

int fgt_flow_follow(struct dec *d)
{
	long *wl = malloc(d->n * sizeof(*wl) + 1);
	bool *queued = calloc(d->n + 1, sizeof(*queued));
	size_t nwl = 0;
	int err = -1;

	d->st = calloc(d->n + 1, sizeof(*d->st));
	if (!wl || !queued || !d->st)
		goto out;
	d->st[d->entry].reached = true;	/* entry: depth 0, nothing known */
	d->st[d->entry].r[d->arch->arg_reg[0]].ret = ARG0;	/* but the first argument's origin */
	push(wl, &nwl, queued, d->entry);
	while (nwl) {
		long i = wl[--nwl], succ[2];
		struct state s = d->st[i];
		int ns;

		queued[i] = false;
		fgt_flow_transfer(d, &d->in[i], &s);
		ns = successors(d, (size_t)i, succ);
		d->in[i].nsucc = (int8_t)ns;
		for (int k = 0; k < ns; k++)
			d->in[i].succ[k] = succ[k];
		for (int k = 0; k < ns; k++)
			if (meet(&d->st[succ[k]], &s))
				push(wl, &nwl, queued, succ[k]);
	}
	err = 0;
out:
	free(wl);
	free(queued);
	return err;
}

/*
 * Where the walk opens with a read (fgt_walk_bounds' open_is_read) and the
 * read's address is a register's (arm64: adrp + ldr), the first pass over
 * the control flow gives the address: mark those reads, and say whether
 * any was found (then the flow is followed again, with the walk's depth).
 */
bool fgt_flow_reads_open(struct dec *d)
{
	bool any = false;

	for (size_t i = 0; i < d->n; i++) {
		struct insn *in = &d->in[i];
		const struct val *b;
		const struct fgt_ksym *s;

		if (in->op != OP_LOAD || !in->mconst || in->midx || in->mbase == R_NONE ||
		    !d->st[i].reached)
			continue;
		b = &d->st[i].r[in->mbase];
		if (b->kind != FGT_VAL_CONST)
			continue;
		s = fgt_ksyms_by_addr(d->k->ks, b->v + (uint64_t)(int64_t)in->mdisp);
		if (s && s->addr == d->rcu_lock && in->callee != C_RCU_LOCK) {
			in->callee = C_RCU_LOCK;
			any = true;
		}
	}
	return any;
}

int fgt_flow_preds(struct dec *d)
{
	size_t n = d->n;
	long *fill;

	if (d->pstart)
		return 0;	/* the walk finder's, on the same flow */
	d->pstart = calloc(n + 2, sizeof(*d->pstart));
	d->pred = malloc((2 * n + 1) * sizeof(*d->pred));
	fill = calloc(n + 1, sizeof(*fill));
	if (!d->pstart || !d->pred || !fill) {
		free(fill);
		free(d->pstart);
		free(d->pred);
		d->pstart = d->pred = NULL;
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < d->in[i].nsucc; k++)
			d->pstart[d->in[i].succ[k] + 1]++;
	for (size_t i = 0; i < n; i++)
		d->pstart[i + 1] += d->pstart[i];
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < d->in[i].nsucc; k++) {
			long x = d->in[i].succ[k];

			d->pred[d->pstart[x] + fill[x]++] = (long)i;
		}
	free(fill);
	return 0;
}
