// SPDX-License-Identifier: GPL-2.0
/*
 * The static verdict's judge (src/static/static_check.h), at the end of the
 * decoder: pure, so that every recorded kernel replays exactly
 * (tests/static/test_static.c). Step 1 is the front ends' (decode_x86.c,
 * decode_arm64.c) through flow.c, step 2 is flow.c's and the walk finder's
 * (walk_loop.c); step 3, the sites, their evidence and the verdict, is here.
 *
 * 1. Disassemble every part of the function with Capstone, linearly (kernel
 *    text holds no data; the function's end is the next symbol, as kallsyms
 *    gives it), keeping per instruction only what the analysis needs: its
 *    kind (call, jump, return, ...), its direct target and what it does to
 *    the general-purpose registers.
 * 2. Follow the control flow from the entry to a fixed point. The state per
 *    instruction: reached or not, the RCU read-side depth (calls of
 *    __rcu_read_lock / __rcu_read_unlock), and per register a constant, "the
 *    8 bytes at this global" or unknown. Paths meeting with different values
 *    make the value unknown (the depth: mixed); that lattice is short, so the
 *    iteration ends. Calls clobber the caller-saved registers (SysV ABI, as
 *    the kernel is built).
 * 3. Read each allocator call's arguments off its state (positions from
 *    fgt_alloc_fns), classify it (shadow stack by the fgraph_stack_cachep
 *    value or the shadow stack's size, per fgt_stack_facts), and judge.
 *
 * Why the control flow and not the layout: GCC moves blocks around (Debian's
 * 7.2 has three __rcu_read_unlock calls, one after the function's own
 * return, and a .cold part): "between lock and unlock" by address would be a
 * guess.
 */
#include <capstone/capstone.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "static/static_check.h"
#include "static/decode.h"
#include "static/flow.h"
#include "static/walk_loop.h"

const char *fgt_static_why_name(enum fgt_static_why w)
{
	static const char *const names[FGT_SW__NR] = {
		[FGT_SW_NONE] = "",
		[FGT_SW_SHAPE] = "shape",
		[FGT_SW_DISASM] = "disasm",
		[FGT_SW_NO_KCORE] = "no_kcore",
		[FGT_SW_LOCKDOWN] = "lockdown",
		[FGT_SW_NO_PERM] = "no_permission",
		[FGT_SW_KSYMS_HIDDEN] = "kallsyms_hidden",
		[FGT_SW_NOT_KERNEL] = "not_a_kernel",
		[FGT_SW_NO_SYMBOLS] = "no_symbols",
		[FGT_SW_BAD_MAP] = "bad_system_map",
		[FGT_SW_READ] = "read",
		[FGT_SW_NO_BTF] = "no_btf",
		[FGT_SW_STOPPED] = "interrupted",
	};

	return (unsigned int)w < FGT_SW__NR && names[w] ? names[w] : "?";
}

const char *fgt_static_rcu_name(enum fgt_static_rcu r)
{
	switch (r) {
	case FGT_RCU_OUTSIDE:	return "outside";
	case FGT_RCU_INSIDE:	return "inside";
	case FGT_RCU_MIXED:	return "mixed";
	case FGT_RCU_UNREACHED:	break;
	}
	return "unreached";
}

/* ---- step 3: sites and verdict --------------------------------------------- */

static enum fgt_static_rcu rcu_of(const struct state *s)
{
	if (!s->reached)
		return FGT_RCU_UNREACHED;
	if (s->rcu == RCU_MIXED)
		return FGT_RCU_MIXED;
	return s->rcu > 0 ? FGT_RCU_INSIDE : FGT_RCU_OUTSIDE;
}

static struct fgt_static_arg arg_of(const struct dec *d, const struct state *s, int pos)
{
	const struct val *v;

	if (pos < 0 || pos >= FGT_ARCH_MAX_ARGS)
		return (struct fgt_static_arg){ FGT_VAL_UNKNOWN, 0 };
	v = &s->r[d->arch->arg_reg[pos]];
	return (struct fgt_static_arg){ (enum fgt_static_val)v->kind, v->v };
}

/* Shadow stack or not, by the argument its source is known by. */
static enum fgt_static_kind classify(const struct dec *d, const struct fgt_static_site *s)
{
	const struct fgt_stack_fact *sf = &fgt_stack_facts[d->k->stack_src];

	if (!(sf->shapes & (1u << s->fn->shape)))
		return FGT_SITE_OTHER;
	if (d->k->stack_src == FGT_STACK_CACHE) {
		if (s->cache.kind == FGT_VAL_UNKNOWN)
			return FGT_SITE_UNCLASSIFIED;
		return s->cache.kind == FGT_VAL_MEM && d->cachep && s->cache.v == d->cachep ?
			FGT_SITE_SHADOW : FGT_SITE_OTHER;
	}
	if (s->size.kind == FGT_VAL_UNKNOWN)
		return FGT_SITE_UNCLASSIFIED;
	return s->size.kind == FGT_VAL_CONST && s->size.v == d->k->shadow_bytes ?
		FGT_SITE_SHADOW : FGT_SITE_OTHER;
}

/* The cache argument by name: "fgraph_stack_cachep", "kmalloc_caches+0x18", "?". */
static void cache_name(const struct fgt_ksyms *ks, const struct fgt_static_arg *a,
		       char *buf, size_t len)
{
	const struct fgt_ksym *s;

	if (a->kind == FGT_VAL_MEM) {
		s = fgt_ksyms_by_addr(ks, a->v);
		if (s && s->addr == a->v)
			snprintf(buf, len, "%s", s->name);
		else
			fgt_ksyms_format(ks, a->v, buf, len);
	} else if (a->kind == FGT_VAL_CONST) {
		snprintf(buf, len, "%#" PRIx64, a->v);
	} else {
		snprintf(buf, len, "?");
	}
}

static void collect(struct dec *d)
{
	struct fgt_static_result *r = d->r;
	unsigned int nalloc = 0;

	for (size_t i = 0; i < d->n; i++) {
		const struct insn *in = &d->in[i];
		const struct state *st = &d->st[i];
		struct fgt_static_site *s;

		if (in->callee == C_RCU_LOCK && st->reached && r->nr_rcu_lock < FGT_STATIC_MAX_MARKS)
			fgt_flow_where(d, in->addr, r->rcu_lock[r->nr_rcu_lock++], sizeof(r->rcu_lock[0]));
		if (in->callee == C_RCU_UNLOCK && st->reached &&
		    r->nr_rcu_unlock < FGT_STATIC_MAX_MARKS)
			fgt_flow_where(d, in->addr, r->rcu_unlock[r->nr_rcu_unlock++], sizeof(r->rcu_unlock[0]));
		if (in->callee != C_ALLOC)
			continue;
		if (nalloc++ == FGT_STATIC_MAX_SITES) {
			char a[96];

			fgt_flow_note(d, FGT_SW_SHAPE, "more than %u allocator calls (one more at %s): the "
			     "rest would go unjudged", FGT_STATIC_MAX_SITES,
			     fgt_flow_where(d, in->addr, a, sizeof(a)));
		}
		if (r->nr_sites == FGT_STATIC_MAX_SITES)
			continue;
		s = &r->sites[r->nr_sites++];
		memset(s, 0, sizeof(*s));
		s->addr = in->addr;
		fgt_flow_where(d, in->addr, s->at, sizeof(s->at));
		s->fn = &fgt_alloc_fns[in->alloc];
		s->tail = in->kind != I_CALL;
		s->thunk = in->thunk;
		if (d->by_loop)
			s->rcu = !st->reached ? FGT_RCU_UNREACHED :
				 d->walk[i] ? FGT_RCU_INSIDE : FGT_RCU_OUTSIDE;
		else
			s->rcu = rcu_of(st);
		s->cache = arg_of(d, st, s->fn->cache_arg);
		s->gfp = arg_of(d, st, s->fn->gfp_arg);
		s->size = arg_of(d, st, s->fn->size_arg);
		s->kind = s->by_arg = classify(d, s);
		cache_name(d->k->ks, &s->cache, s->cache_name, sizeof(s->cache_name));
	}
}

/*
 * task_struct::ret_stack: BTF's offset, else the one field the walk tests
 * for NULL (`if (t->ret_stack == NULL)`: cmpq $0x0,OFF(%reg)). 0: none.
 */
/* Is an access at disp (of a base register the walk holds) t->ret_stack? */
static bool is_field(const struct dec *d, int64_t disp)
{
	return disp > 0 && ((uint64_t)disp == d->r->ret_stack_off ||
			    (d->node_off && (uint64_t)disp == d->node_off));
}

/*
 * The walk's cursor may point into task_struct rather than at it: clang
 * steps for_each_thread() through &t->thread_node and reaches ret_stack at
 * a smaller displacement from there. Such a displacement is one the walk
 * both tests for NULL and stores into, below the field's offset, from a
 * register the walk steps as a list cursor (x = x->next); BTF gives no
 * thread_node offset here to check it against, so it is taken only when
 * there is exactly one and the walk does not use the field's own.
 */
/* Is the register a list cursor in the walk: stepped by x = x->next (a
 * load of itself at +0)? Then it points at a list node inside the task. */
static bool steps_list(const struct dec *d, uint8_t g)
{
	if (g == R_NONE)
		return false;
	for (size_t i = 0; i < d->n; i++) {
		const struct insn *in = &d->in[i];

		if (in->op == OP_LOAD && in->dst == g && in->mbase == g && !in->midx &&
		    in->mdisp == 0 && d->st[i].reached && fgt_walk_loop_in(d, i))
			return true;
	}
	return false;
}

static void node_field(struct dec *d)
{
	uint32_t f = d->r->ret_stack_off, cand = 0;

	for (size_t i = 0; f && i < d->n; i++) {
		const struct insn *in = &d->in[i];

		if (!d->st[i].reached || !fgt_walk_loop_in(d, i) || in->mdisp <= 0)
			continue;
		if ((in->cmp0 || in->op == OP_STORE) && (uint32_t)in->mdisp == f)
			return;		/* the walk uses the field's own offset */
		if (!in->cmp0 || (uint32_t)in->mdisp >= f || !steps_list(d, in->mbase))
			continue;
		for (size_t j = 0; j < d->n; j++) {
			const struct insn *st = &d->in[j];

			if (st->op == OP_STORE && !st->midx && d->st[j].reached && fgt_walk_loop_in(d, j) &&
			    st->mdisp == in->mdisp) {
				if (cand && cand != (uint32_t)in->mdisp)
					return;		/* two: which one is not known */
				cand = (uint32_t)in->mdisp;
				break;
			}
		}
	}
	d->node_off = cand;
}

static void ret_stack_field(struct dec *d)
{
	struct fgt_static_result *r = d->r;
	uint32_t off = 0;

	r->ret_stack_off = d->k->ret_stack_off;
	r->ret_stack_off_btf = d->k->ret_stack_off != 0;
	if (r->ret_stack_off)
		return;
	for (size_t i = 0; i < d->n; i++) {
		const struct insn *in = &d->in[i];

		if (!in->cmp0 || !d->st[i].reached || !fgt_walk_loop_in(d, i) || in->mdisp <= 0)
			continue;
		if (off && off != (uint32_t)in->mdisp)
			return;		/* two fields tested: which one is not known */
		off = (uint32_t)in->mdisp;
	}
	r->ret_stack_off = off;
}

/* Does the walk test the field for NULL? In a thread loop, that loop names
 * the walk (register_ftrace_graph can hold other loops over the threads). */
static bool walk_tests_field(struct dec *d, uint32_t off)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->in[i].cmp0 && d->st[i].reached && fgt_walk_loop_in(d, i) &&
		    ((uint32_t)d->in[i].mdisp == off || is_field(d, d->in[i].mdisp))) {
			for (int l = 0; d->by_loop && l < d->nloops; l++)
				if (d->walk[i] & (1u << l)) {
					fgt_flow_where(d, d->latch[l], d->r->walk_loop, sizeof(d->r->walk_loop));
					break;
				}
			return true;
		}
	if (d->by_loop && d->nloops)
		fgt_flow_where(d, d->latch[0], d->r->walk_loop, sizeof(d->r->walk_loop));
	return false;
}

/*
 * Where each site's pointer goes, from the stores reached: into
 * task_struct::ret_stack (8 bytes at the field's offset from a register, no
 * index), or into an object (the ret_stack_list) whose entries, loaded back,
 * are stored there. A shadow stack is a site whose pointer goes there and
 * whose cache or size does not say otherwise.
 */
static void destinations(struct dec *d)
{
	struct fgt_static_result *r = d->r;
	uint64_t task = 0, elem_task = 0, arr[NSITE_BITS] = { 0 };
	uint32_t f = r->ret_stack_off;

	for (size_t i = 0; f && i < d->n; i++) {
		const struct insn *in = &d->in[i];
		const struct state *st = &d->st[i];
		const struct val *src, *base;

		if (in->op != OP_STORE || !st->reached || in->mbase == R_NONE)
			continue;
		base = &st->r[in->mbase];
		/* a store pair's second register lands 8 bytes after the first */
		for (int k = 0; k < 2; k++) {
			uint8_t sr = k ? in->msrc2 : in->msrc;
			int64_t disp = (int64_t)in->mdisp + 8 * k;

			if (sr == R_NONE)
				continue;
			src = &st->r[sr];
			if (!in->midx && is_field(d, disp)) {
				task |= src->ret;
				elem_task |= src->elem;
			}
			if (fgt_flow_into(base))
				for (int j = 0; j < NSITE_BITS; j++)
					if (src->ret & (1ull << j))
						arr[j] |= fgt_flow_into(base);
		}
	}
	for (unsigned int j = 0; j < r->nr_sites; j++) {
		struct fgt_static_site *s = &r->sites[j];

		s->dest = j >= NSITE_BITS ? FGT_DEST_NONE :
			  task & (1ull << j) ? FGT_DEST_TASK :
			  arr[j] & elem_task ? FGT_DEST_LIST : FGT_DEST_NONE;
		if (s->dest != FGT_DEST_NONE)
			s->kind = s->by_arg == FGT_SITE_OTHER ? FGT_SITE_OTHER : FGT_SITE_SHADOW;
		else
			s->kind = s->by_arg == FGT_SITE_SHADOW ? FGT_SITE_OTHER : s->by_arg;
	}
}

const char *fgt_static_dest_name(enum fgt_static_dest dd)
{
	switch (dd) {
	case FGT_DEST_TASK:	return "ret_stack";
	case FGT_DEST_LIST:	return "ret_stack_list";
	case FGT_DEST_NONE:	break;
	}
	return "";
}

/* The evidence, written piece by piece. */
struct ev {
	char *buf;
	size_t len, at;
	size_t start;		/* where the list of sites starts (its first has no "; ") */
};

static void ev_add(struct ev *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void ev_add(struct ev *e, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (e->at >= e->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(e->buf + e->at, e->len - e->at, fmt, ap);
	va_end(ap);
	if (n > 0)
		e->at = e->at + (size_t)n < e->len ? e->at + (size_t)n : e->len;
}

static const char *num_str(const struct fgt_static_arg *a, bool is_gfp, char *buf, size_t len)
{
	if (a->kind != FGT_VAL_CONST)
		snprintf(buf, len, "?");
	else if (is_gfp)
		fgt_gfp_name((uint32_t)a->v, buf, len);
	else
		snprintf(buf, len, "%" PRIu64, a->v);
	return buf;
}

const char *fgt_static_site_str(const struct fgt_static_site *s, char *buf, size_t len)
{
	const struct fgt_alloc_fn *f = s->fn;
	const char *jmp = s->tail ? "jmp " : "";
	char gfp[48], size[32];

	num_str(&s->gfp, true, gfp, sizeof(gfp));
	num_str(&s->size, false, size, sizeof(size));
	switch (f->shape) {
	case FGT_ALLOC_CACHE:
		snprintf(buf, len, "%s: %s%s(%s, %s)", s->at, jmp, f->name, s->cache_name, gfp);
		break;
	case FGT_ALLOC_CACHE_SIZE:
		snprintf(buf, len, "%s: %s%s(%s, %s, %s)", s->at, jmp, f->name, s->cache_name,
			 gfp, size);
		break;
	default:
		snprintf(buf, len, "%s: %s%s(%s, %s)", s->at, jmp, f->name, size, gfp);
		break;
	}
	return buf;
}

/* Sites of one class into the evidence, "; "-separated, each with how it lies. */
static unsigned int ev_sites(struct ev *e, const struct dec *d, bool (*want)(const struct fgt_static_site *),
			     const char *tail)
{
	const struct fgt_static_result *r = d->r;
	unsigned int n = 0;
	char buf[256];

	for (unsigned int i = 0; i < r->nr_sites; i++) {
		const struct fgt_static_site *s = &r->sites[i];

		if (!want(s))
			continue;
		ev_add(e, "%s%s %s", e->at > e->start ? "; " : "", fgt_static_site_str(s, buf, sizeof(buf)),
		       d->by_loop ? (s->rcu == FGT_RCU_INSIDE ? "inside the walk" : "outside the walk") :
		       s->rcu == FGT_RCU_INSIDE ? "inside rcu_read_lock()" : "outside rcu_read_lock()");
		if (s->thunk)
			ev_add(e, " (through its call thunk)");
		if (tail)
			ev_add(e, " %s", tail);
		if (s->dest == FGT_DEST_TASK)
			ev_add(e, ", into t->ret_stack");
		else if (s->dest == FGT_DEST_LIST)
			ev_add(e, ", into ret_stack_list[]");
		n++;
	}
	return n;
}

static bool shadow(const struct fgt_static_site *s)
{
	return s->kind == FGT_SITE_SHADOW;
}

static bool blocking(const struct fgt_static_site *s)
{
	return fgt_gfp_blocking((uint32_t)s->gfp.v);
}

static bool inside_nb(const struct fgt_static_site *s)
{
	return shadow(s) && s->rcu == FGT_RCU_INSIDE && !blocking(s);
}

static bool outside_b(const struct fgt_static_site *s)
{
	return shadow(s) && s->rcu == FGT_RCU_OUTSIDE && blocking(s);
}

/* Blocking, before the walk, into ret_stack_list[]: a reserve, or a batch. */
static bool reserve(const struct fgt_static_site *s)
{
	return outside_b(s) && s->dest == FGT_DEST_LIST;
}

/* Blocking, outside the walk's RCU section but straight into t->ret_stack:
 * a pinned cursor's fallback (the walk left and taken again around it). */
static bool fallback(const struct fgt_static_site *s)
{
	return outside_b(s) && s->dest == FGT_DEST_TASK;
}

static const struct fgt_static_site *first_site(const struct dec *d,
						bool (*want)(const struct fgt_static_site *))
{
	for (unsigned int i = 0; i < d->r->nr_sites; i++)
		if (want(&d->r->sites[i]))
			return &d->r->sites[i];
	return NULL;
}

/* How the destinations were told: the field's offset and where it came from. */
static void ev_field(struct ev *e, const struct dec *d)
{
	if (d->r->ret_stack_off_btf)
		ev_add(e, "; t->ret_stack at +%#x (BTF)", d->r->ret_stack_off);
	else
		ev_add(e, "; t->ret_stack at +%#x (the field the walk tests for NULL; no BTF offset)",
		       d->r->ret_stack_off);
	if (d->node_off)
		ev_add(e, ", at +%#x from the thread list's node the walk steps through (the "
		       "field it tests for NULL and stores into)", d->node_off);
}

static enum fgt_verdict unknown(struct fgt_static_result *r, enum fgt_static_why why,
				       const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The answer unknown, with why in words (the evidence). */
static void answer_unknown(struct fgt_static_result *r, enum fgt_static_why why,
			   const char *fmt, va_list ap)
{
	vsnprintf(r->evidence, sizeof(r->evidence), fmt, ap);
	r->why = why;
	r->verdict = FGT_VERDICT_UNKNOWN;
}

static enum fgt_verdict unknown(struct fgt_static_result *r, enum fgt_static_why why,
				       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	answer_unknown(r, why, fmt, ap);
	va_end(ap);
	return r->verdict;
}

/* unknown() for the checks that say whether they answered (true). */
static bool refused(struct fgt_static_result *r, enum fgt_static_why why,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool refused(struct fgt_static_result *r, enum fgt_static_why why,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	answer_unknown(r, why, fmt, ap);
	va_end(ap);
	return true;
}

/*
 * Is this call one the walk may make without allocating (fgt_walk_calls)?
 * Asked by name, not by the one symbol found at the target: a function may
 * have several names at one address (arm64's memset is __pi_memset, __memset
 * and memset), and the symbol tables of one kernel name it differently (the
 * vmlinux's memset, its kallsyms tables' __memset).
 */
static bool harmless(const struct dec *d, const struct insn *in)
{
	const struct fgt_ksym *s;

	if ((in->kind != I_CALL && in->kind != I_JMP && in->kind != I_JCC) ||
	    in->callee != C_OTHER)
		return false;
	for (size_t i = 0; i < fgt_nr_walk_calls; i++) {
		s = fgt_ksyms_by_name(d->k->ks, fgt_walk_calls[i].name);
		if (s && s->addr == in->target)
			return true;
	}
	return false;
}

/* A call inside the walk that is neither the walk's RCU calls, nor a known
 * allocation, nor in fgt_walk_calls: the walk could allocate there. */
static const struct insn *walk_call(const struct dec *d)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct insn *in = &d->in[i];
		const struct state *st = &d->st[i];

		if (in->kind != I_CALL && in->kind != I_CALL_IND &&
		    !((in->kind == I_JMP || in->kind == I_JCC) && !fgt_flow_in_code(d->c, in->target)))
			continue;
		if (!st->reached || !fgt_walk_loop_in(d, i) || in->callee == C_RCU_LOCK ||
		    in->callee == C_RCU_UNLOCK || in->callee == C_ALLOC || harmless(d, in))
			continue;
		return in;
	}
	return NULL;
}

/* ---- the bug's signature and the fix's shapes (docs/static.md) ------------- */

/*
 * FTRACE_RETSTACK_ALLOC_SIZE as the code compares with it: a count (i < 32,
 * start == end; i <= 31) or the list's bytes (32 pointers: 256; 248).
 */
static bool batch_bound(uint64_t v)
{
	v &= 0xffffffffu;
	return v == 32 || v == 31 || v == 256 || v == 248;
}

/* A compare of one of these (an immediate, or a register holding one). */
static bool cmp_bound(const struct dec *d, size_t i)
{
	const struct insn *in = &d->in[i];

	if (in->has_cimm)
		return batch_bound(in->cimm);
	for (int k = 0; k < 2; k++) {
		uint8_t g = in->creg[k];

		if (g != R_NONE && d->st[i].r[g].kind == FGT_VAL_CONST && batch_bound(d->st[i].r[g].v))
			return true;
	}
	return false;
}

static bool is_cmp(const struct insn *in)
{
	return in->has_cimm || in->creg[0] != R_NONE;
}

/*
 * Marks in out[] what is reached from the instructions set in from[] (not
 * themselves, unless reached again), going forwards (or backwards), never
 * into an instruction for which avoid_walk says it is the walk's.
 */
static void reach(const struct dec *d, const bool *from, bool backwards, bool avoid_walk,
		  bool *out, long *wl)
{
	size_t nwl = 0;

	memset(out, 0, d->n * sizeof(*out));
	for (size_t i = 0; i < d->n; i++)
		if (from[i])
			wl[nwl++] = (long)i;
	while (nwl) {
		long x = wl[--nwl];
		long lo = backwards ? d->pstart[x] : 0, hi = backwards ? d->pstart[x + 1] : d->in[x].nsucc;

		for (long k = lo; k < hi; k++) {
			long y = backwards ? d->pred[k] : d->in[x].succ[k];

			if (out[y] || !d->st[y].reached || (avoid_walk && fgt_walk_loop_in(d, (size_t)y)))
				continue;
			out[y] = true;
			wl[nwl++] = y;
		}
	}
}

enum bound { B_NONE, B_32, B_CONST, B_COUNT };

/* Scratch for the searches over the control flow: four flags and a work
 * list per instruction. */
struct scratch {
	bool *one, *fw, *bw, *loop;
	long *wl;
};

static int scratch_get(const struct dec *d, struct scratch *t)
{
	bool *b = calloc(4 * d->n + 1, sizeof(*b));

	t->wl = malloc((d->n + 1) * sizeof(*t->wl));
	if (!b || !t->wl) {
		free(b);
		free(t->wl);
		return -1;
	}
	t->one = b;
	t->fw = b + d->n;
	t->bw = b + 2 * d->n;
	t->loop = b + 3 * d->n;
	return 0;
}

static void scratch_put(struct scratch *t)
{
	free(t->one);
	free(t->wl);
}

/* A count of 32 set before the loop (on an edge into it) and stepped in it:
 * a loop counting down. The stepping instruction, or -1. */
static long count_down(const struct dec *d, const bool *loop)
{
	for (size_t p = 0; p < d->n; p++) {
		if (loop[p] || !d->st[p].reached)
			continue;
		for (int k = 0; k < d->in[p].nsucc; k++) {
			struct state s;

			if (!loop[d->in[p].succ[k]])
				continue;
			s = d->st[p];
			fgt_flow_transfer(d, &d->in[p], &s);
			for (size_t i = 0; i < d->n; i++) {
				const struct insn *in = &d->in[i];

				if (loop[i] && in->op == OP_ALU && in->dst != R_NONE &&
				    (in->alu == '-' || in->alu == '+') &&
				    s.r[in->dst].kind == FGT_VAL_CONST &&
				    (s.r[in->dst].v & 0xffffffffu) == 32)
					return (long)i;
			}
		}
	}
	return -1;
}

/*
 * What bounds the loop that makes the batch (its allocator call at
 * instruction ci): the instructions on a cycle through it outside the walk.
 * B_32: a compare with FTRACE_RETSTACK_ALLOC_SIZE in that loop, or a count
 * of 32 stepped in it (*at: that instruction); B_CONST: its exit compares
 * with another constant; B_COUNT: its exit compares two registers, no
 * constant known (a count made at run time); B_NONE: no loop, or no
 * compare at its exit.
 */
static enum bound batch_loop(const struct dec *d, size_t ci, long *at, struct scratch *t)
{
	enum bound b = B_NONE;
	size_t n = d->n;

	*at = -1;
	memset(t->one, 0, n * sizeof(*t->one));
	t->one[ci] = true;
	reach(d, t->one, false, true, t->fw, t->wl);
	reach(d, t->one, true, true, t->bw, t->wl);
	for (size_t i = 0; i < n; i++)
		t->loop[i] = t->fw[i] && t->bw[i];
	if (!t->loop[ci])
		return B_NONE;
	for (size_t i = 0; i < n; i++)
		if (t->loop[i] && is_cmp(&d->in[i]) && cmp_bound(d, i)) {
			*at = (long)i;
			return B_32;
		}
	*at = count_down(d, t->loop);
	if (*at >= 0)
		return B_32;
	/* the loop's exit: a conditional jump out of it right after a compare */
	for (size_t i = 1; i < n && b != B_CONST; i++) {
		const struct insn *in = &d->in[i], *c = &d->in[i - 1];

		if (!t->loop[i] || in->kind != I_JCC || !t->loop[i - 1] || !is_cmp(c))
			continue;
		for (int k = 0; k < in->nsucc; k++)
			if (!t->loop[in->succ[k]]) {
				*at = (long)(i - 1);
				b = c->has_cimm ? B_CONST : B_COUNT;
				break;
			}
	}
	return b;
}

/* The walk's own compare with FTRACE_RETSTACK_ALLOC_SIZE: its exit when the
 * batch is used up (start == end). -1: none. */
static long walk_bound(const struct dec *d)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->st[i].reached && fgt_walk_loop_in(d, i) && is_cmp(&d->in[i]) && cmp_bound(d, i))
			return (long)i;
	return -1;
}

/* Is the instruction ci reached again from the walk (the retry loop around
 * it, inlined)? */
static bool from_walk(const struct dec *d, size_t ci, struct scratch *t)
{
	for (size_t i = 0; i < d->n; i++)
		t->one[i] = d->st[i].reached && fgt_walk_loop_in(d, i);
	reach(d, t->one, false, false, t->fw, t->wl);
	return t->fw[ci];
}

/* -EAGAIN (-11) loaded on a reached path: the out-of-line walk's return. */
static long eagain(const struct dec *d)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->st[i].reached && d->in[i].op == OP_CONST &&
		    (d->in[i].imm & 0xffffffffu) == 0xfffffff5u)
			return (long)i;
	return -1;
}

/* A store into t->ret_stack (8 bytes at its offset, no index) inside the
 * walk (of the thread loops in bits, when given). -1: none. */
static long walk_store(const struct dec *d, uint8_t bits)
{
	uint32_t f = d->r->ret_stack_off;

	for (size_t i = 0; f && i < d->n; i++) {
		const struct insn *in = &d->in[i];

		if (in->op != OP_STORE || in->midx || !d->st[i].reached || !fgt_walk_loop_in(d, i) ||
		    (bits && !(d->walk[i] & bits)))
			continue;
		if (is_field(d, in->mdisp) || (in->msrc2 != R_NONE && is_field(d, in->mdisp + 8)))
			return (long)i;
	}
	return -1;
}

/*
 * Without PREEMPT_RCU the walk is the thread loop; a loop over the threads
 * that never stores into t->ret_stack is another one (6.11's init_task_vars()
 * for a second fgraph user only tests it): it is not the walk.
 */
static void walk_loops_that_store(struct dec *d)
{
	int kept = 0;

	for (int l = 0; l < d->nloops; l++) {
		uint8_t bit = (uint8_t)(1u << l);

		if (walk_store(d, bit) >= 0) {
			kept++;
			continue;
		}
		for (size_t i = 0; i < d->n; i++)
			d->walk[i] &= (uint8_t)~bit;
	}
	if (d->nloops && !kept) {
		d->dropped_loops = d->nloops;
		d->by_loop = false;
		d->r->walk_by_loop = false;
	}
}

static long caller_loop(const struct dec *d, char *at, size_t len);

/*
 * The rest of the bug's signature once the batch is bounded by 32 (at bnd):
 * the walk's exit when the batch is used up (its compare with 32) and the
 * loop back into the walk (the batch reached again from the walk; or, out
 * of line, -EAGAIN returned and the caller's loop calling again). 1: all
 * there, the shape's evidence written; 0: not, why written; -1: ENOMEM.
 */
static int signature(const struct dec *d, const struct fgt_static_site *s, long ci, long bnd,
		     struct scratch *t, struct ev *e, char *why, size_t wlen)
{
	char a[96], b[96], c[96], cl[96];
	long wb = walk_bound(d), ea, cc;

	fgt_flow_where(d, d->in[bnd].addr, a, sizeof(a));
	if (wb < 0) {
		snprintf(why, wlen, "the batch at %s is bounded by 32 (at %s), but the walk never "
			 "compares with 32: its exit when the batch is used up is not seen", s->at, a);
		return 0;
	}
	fgt_flow_where(d, d->in[wb].addr, b, sizeof(b));
	if (from_walk(d, (size_t)ci, t)) {
		ev_add(e, "the batch of 32 and its -EAGAIN loop at %s: the batch bounded by 32 at "
		       "%s, the walk's exit when it is used up at %s, and the loop back from the "
		       "walk into the batch; ", s->at, a, b);
		return 1;
	}
	ea = eagain(d);
	if (ea < 0) {
		snprintf(why, wlen, "the batch at %s is bounded by 32 (at %s) and the walk leaves "
			 "when it is used up (at %s), but nothing loops back: no path from the walk "
			 "to the batch, and no -EAGAIN returned", s->at, a, b);
		return 0;
	}
	fgt_flow_where(d, d->in[ea].addr, c, sizeof(c));
	cc = caller_loop(d, cl, sizeof(cl));
	if (cc == -4)
		return -1;
	if (cc < 0) {
		snprintf(why, wlen, "the batch at %s is bounded by 32 (at %s), the walk leaves when "
			 "it is used up (at %s) and -EAGAIN is returned (at %s), but %s", s->at, a, b, c,
			 cc == -2 ? "no loop of its caller calls it again on -EAGAIN" :
			 cc == -3 ? "its caller's code does not decode" :
			 "its caller's code was not read: the loop back is not seen");
		return 0;
	}
	ev_add(e, "the batch of 32 and its -EAGAIN loop at %s: the batch bounded by 32 at %s, "
	       "the walk's exit when it is used up at %s, -EAGAIN at %s, and the loop of %s "
	       "calling it again at %s; ", s->at, a, b, c, d->c->caller, cl);
	return 1;
}

/* One site that no verdict can come from (its pointer's destination, its
 * arguments, where it is against the walk): true when r says so. */
static bool refuse_site(const struct dec *d, const struct fgt_static_site *s)
{
	struct fgt_static_result *r = d->r;
	char buf[256];

	if (s->dest != FGT_DEST_NONE && s->by_arg == FGT_SITE_OTHER)
		return refused(r, FGT_SW_SHAPE, "%s: its pointer goes into %s, but its %s "
			       "says it is not a shadow stack (%s)",
			       fgt_static_site_str(s, buf, sizeof(buf)),
			       s->dest == FGT_DEST_TASK ? "t->ret_stack" : "ret_stack_list[]",
			       d->k->stack_src == FGT_STACK_CACHE ? "cache" : "size",
			       fgt_stack_facts[d->k->stack_src].what);
	if (s->kind == FGT_SITE_UNCLASSIFIED && s->rcu != FGT_RCU_OUTSIDE)
		return refused(r, FGT_SW_SHAPE, "%s: the %s argument is not a constant here",
			       fgt_static_site_str(s, buf, sizeof(buf)),
			       d->k->stack_src == FGT_STACK_CACHE ? "cache" : "size");
	if (s->kind != FGT_SITE_SHADOW && (s->rcu == FGT_RCU_INSIDE || s->rcu == FGT_RCU_MIXED))
		return refused(r, FGT_SW_SHAPE, "%s inside the walk: an allocation whose "
			       "pointer goes neither into t->ret_stack nor into "
			       "ret_stack_list[] is neither shape",
			       fgt_static_site_str(s, buf, sizeof(buf)));
	if (s->kind != FGT_SITE_SHADOW)
		return false;
	if (s->rcu == FGT_RCU_UNREACHED || s->rcu == FGT_RCU_MIXED)
		return refused(r, FGT_SW_SHAPE, "%s: %s",
			       fgt_static_site_str(s, buf, sizeof(buf)),
			       s->rcu == FGT_RCU_MIXED ?
			       "reached both inside and outside rcu_read_lock()" :
			       "not reached from the function's entry");
	if (s->gfp.kind != FGT_VAL_CONST)
		return refused(r, FGT_SW_SHAPE, "%s: the gfp argument is not a constant here",
			       fgt_static_site_str(s, buf, sizeof(buf)));
	if (s->rcu == FGT_RCU_INSIDE && blocking(s))
		return refused(r, FGT_SW_SHAPE, "%s inside rcu_read_lock(): a blocking allocation "
			       "inside the walk is neither shape",
			       fgt_static_site_str(s, buf, sizeof(buf)));
	if (s->rcu == FGT_RCU_OUTSIDE && !blocking(s))
		return refused(r, FGT_SW_SHAPE, "%s outside rcu_read_lock(): a non-blocking "
			       "allocation outside the walk is neither shape",
			       fgt_static_site_str(s, buf, sizeof(buf)));
	return false;
}

/*
 * The shapes no verdict can come from, before any is looked for: an
 * anomaly, no walk, no ret_stack to follow, a site refused, no shadow
 * stack at all. True when r says which (unknown).
 */
static bool refuse_shape(struct dec *d)
{
	struct fgt_static_result *r = d->r;
	const char *fn = d->c->func;
	unsigned int nshadow = 0;

	if (d->anomaly[0])
		return refused(r, d->anomaly_why, "%s: %s", fn, d->anomaly);
	if (!r->nr_rcu_lock && !d->by_loop && d->dropped_loops)
		return refused(r, FGT_SW_SHAPE, "no call of %s in %s, and its %d loop%s over the "
			       "thread list never store%s into t->ret_stack (+%#x): not the walk "
			       "(a second user's init_task_vars() only tests it)",
			       fgt_sym_name(FGT_SYM_RCU_READ_LOCK), fn, d->dropped_loops,
			       d->dropped_loops == 1 ? "" : "s", d->dropped_loops == 1 ? "s" : "",
			       r->ret_stack_off);
	if (!r->nr_rcu_lock && !d->by_loop)
		return refused(r, FGT_SW_SHAPE, "no call of %s in %s, and no loop over the thread "
			       "list (closed by a cmp with &init_task.tasks): cannot tell the walk",
			       fgt_sym_name(FGT_SYM_RCU_READ_LOCK), fn);
	if (!r->ret_stack_off)
		return refused(r, FGT_SW_SHAPE, "%s: no BTF offset of task_struct::ret_stack, and "
			       "the walk tests no one field for NULL: cannot tell where a shadow "
			       "stack goes", fn);
	if (!walk_tests_field(d, r->ret_stack_off) && d->by_loop)
		return refused(r, FGT_SW_SHAPE, "the loop over the thread list (%s) never tests "
			       "t->ret_stack (+%#x) for NULL: not the walk we know", r->walk_loop,
			       r->ret_stack_off);
	for (unsigned int i = 0; i < r->nr_sites; i++) {
		if (refuse_site(d, &r->sites[i]))
			return true;
		nshadow += r->sites[i].kind == FGT_SITE_SHADOW;
	}
	if (!nshadow)
		return refused(r, FGT_SW_SHAPE, "no shadow-stack allocation (%s) found in %s "
			       "(%u allocator call%s)", fgt_stack_facts[d->k->stack_src].what, fn,
			       r->nr_sites, r->nr_sites == 1 ? "" : "s");
	return false;
}

/* fixed: one walk allocating inline, non-blocking (nb), and the evidence
 * for it; t is given back. */
static enum fgt_verdict fixed_inline(struct dec *d, const struct fgt_static_site *nb,
				     struct scratch *t, struct ev *e)
{
	struct fgt_static_result *r = d->r;
	const struct fgt_static_site *fb;
	char g[48];

	ev_add(e, "one walk allocating inline, %s, at %s",
	       num_str(&nb->gfp, true, g, sizeof(g)), nb->at);
	fb = first_site(d, fallback);
	if (fb)
		ev_add(e, ", falling back to a blocking allocation outside the walk's "
		       "rcu_read_lock() at %s (a pinned cursor)", fb->at);
	ev_add(e, "; ");
	e->start = e->at;
	ev_sites(e, d, inside_nb, NULL);
	ev_sites(e, d, fallback, "(the fallback)");
	ev_sites(e, d, reserve, "(the reserve)");
	ev_field(e, d);
	scratch_put(t);
	r->why = FGT_SW_NONE;
	return r->verdict = FGT_VERDICT_FIXED;
}

/* Where the walk is, for not_fixed's evidence: no shadow stack inside it. */
static void ev_walk(struct ev *e, const struct dec *d)
{
	const struct fgt_static_result *r = d->r;

	if (d->by_loop && d->head_by_tasks)
		ev_add(e, "; no shadow-stack allocation inside the walk (the loop over the thread "
		       "list closed at %s, its cursor stepped through task_struct::tasks at +%#x "
		       "(BTF; no init_task symbol); no rcu_read_lock() call: not PREEMPT_RCU)",
		       r->walk_loop, d->k->tasks_off);
	else if (d->by_loop)
		ev_add(e, "; no shadow-stack allocation inside the walk (the loop over the thread "
		       "list closed at %s; no rcu_read_lock() call: not PREEMPT_RCU)", r->walk_loop);
	else
		ev_add(e, "; no shadow-stack allocation inside the walk (rcu_read_lock() at %s)",
		       r->rcu_lock[0]);
}

/* fixed: every stack allocated before one walk, in a loop bounded by a
 * count made at run time (its compare at insn bnd), not by 32 */
static enum fgt_verdict fixed_count(struct dec *d, const struct fgt_static_site *bt, long bnd,
				    struct scratch *t, struct ev *e)
{
	struct fgt_static_result *r = d->r;
	char at[96];

	ev_add(e, "every stack allocated before one walk at %s: the batch's loop bounded "
	       "by a count made at run time (its compare at %s), not by 32; ", bt->at,
	       fgt_flow_where(d, d->in[bnd].addr, at, sizeof(at)));
	e->start = e->at;
	ev_sites(e, d, reserve, "(the batch)");
	ev_field(e, d);
	scratch_put(t);
	r->why = FGT_SW_NONE;
	return r->verdict = FGT_VERDICT_FIXED;
}

static enum fgt_verdict judge(struct dec *d)
{
	struct fgt_static_result *r = d->r;
	const char *fn = d->c->func;
	struct ev e = { r->evidence, sizeof(r->evidence), 0, 0 };
	const struct fgt_static_site *nb, *bt;
	struct scratch t = { 0 };
	const struct insn *wc;
	char buf[256], at[96], why[800];
	long ws, ci, bnd = -1;
	enum bound k;
	int sig;

	if (refuse_shape(d))
		return r->verdict;
	/*
	 * Before either answer, fixed included: a call the walk makes that may
	 * allocate is an allocation not judged, and a blocking one there is the
	 * bug whatever the fix's allocation beside it says.
	 */
	wc = walk_call(d);
	if (wc)
		return unknown(r, FGT_SW_SHAPE, "%s: the walk calls %s, which is not known not to allocate",
			       fgt_flow_where(d, wc->addr, at, sizeof(at)),
			       wc->kind == I_CALL_IND ? "through a pointer" :
			       fgt_flow_where(d, wc->target, buf, sizeof(buf)));
	ws = walk_store(d, 0);
	if (ws < 0)
		return unknown(r, FGT_SW_SHAPE, "%s: the walk (%s) never stores into t->ret_stack "
			       "(+%#x), it only tests it: not the walk that hands out stacks", fn,
			       d->by_loop ? r->walk_loop : r->rcu_lock[0], r->ret_stack_off);
	if (scratch_get(d, &t))
		return unknown(r, FGT_SW_DISASM, "out of memory");
	/* fixed: one walk allocating inline, non-blocking */
	nb = first_site(d, inside_nb);
	if (nb)
		return fixed_inline(d, nb, &t, &e);
	/* the batch before the walk: of 32 (the bug), or of every stack (a count) */
	bt = first_site(d, reserve);
	if (!bt) {
		scratch_put(&t);
		return unknown(r, FGT_SW_SHAPE, "%s: no shadow-stack allocation inside the walk and "
			       "no batch before it whose stacks the walk stores into t->ret_stack "
			       "(%u allocator call%s; its store at %s): neither the bug's "
			       "signature nor a linear shape", fn, r->nr_sites,
			       r->nr_sites == 1 ? "" : "s", fgt_flow_where(d, d->in[ws].addr, at, sizeof(at)));
	}
	ci = fgt_flow_find_insn(d, bt->addr);
	k = ci < 0 ? B_NONE : batch_loop(d, (size_t)ci, &bnd, &t);
	if (k == B_COUNT)
		return fixed_count(d, bt, bnd, &t, &e);
	if (k != B_32) {
		scratch_put(&t);
		return unknown(r, FGT_SW_SHAPE, "%s before the walk, into ret_stack_list[]: it is "
			       "%s%s: neither the batch of 32 nor every stack",
			       fgt_static_site_str(bt, buf, sizeof(buf)),
			       k == B_CONST ? "in a loop bounded by another constant than 32, at " :
			       "in no loop, or in one whose exit compares nothing seen here",
			       k == B_CONST ? fgt_flow_where(d, d->in[bnd].addr, at, sizeof(at)) : "");
	}
	sig = signature(d, bt, ci, bnd, &t, &e, why, sizeof(why));
	scratch_put(&t);
	if (sig < 0)
		return unknown(r, FGT_SW_DISASM, "out of memory");
	if (!sig)
		return unknown(r, FGT_SW_SHAPE, "%s: %s", fn, why);
	e.start = e.at;
	ev_sites(&e, d, reserve, "(the batch)");
	ev_walk(&e, d);
	ev_field(&e, d);
	r->why = FGT_SW_NONE;
	return r->verdict = FGT_VERDICT_NOT_FIXED;
}

/* Is ci on a cycle whose compare is with -EAGAIN (while (ret == -EAGAIN))? */
static bool eagain_cycle(struct dec *e, size_t ci, struct scratch *t)
{
	memset(t->one, 0, e->n * sizeof(*t->one));
	t->one[ci] = true;
	reach(e, t->one, false, false, t->fw, t->wl);
	reach(e, t->one, true, false, t->bw, t->wl);
	if (!t->fw[ci])
		return false;
	for (size_t i = 0; i < e->n; i++)
		if (t->fw[i] && t->bw[i] && e->in[i].has_cimm &&
		    (e->in[i].cimm & 0xffffffffu) == 0xfffffff5u)
			return true;
	return false;
}

/*
 * The caller's loop back, where the function read is out of line: decode
 * the caller (c->caller), find its calls of the function's entry, and take
 * one on a cycle that compares with -EAGAIN. Its address into at; the call's
 * index, or -1: no caller read; -2: no such loop; -3: its code does not
 * decode; -4: ENOMEM.
 */
static long caller_loop(const struct dec *d, char *at, size_t len)
{
	const struct fgt_static_code *c = d->c;
	struct fgt_static_code cc = { .func = c->caller, .arch = c->arch };
	struct fgt_static_result *rr;
	struct dec e = { .c = &cc, .k = d->k, .arch = d->arch };
	uint64_t fn = c->part[0].addr;
	struct scratch t = { 0 };
	cs_insn *ci = NULL;
	long ret = -2;
	csh h = 0;

	if (!c->caller || !c->nr_caller_parts || c->nr_caller_parts > FGT_STATIC_MAX_CALLER_PARTS)
		return -1;
	for (unsigned int i = 0; i < c->nr_caller_parts; i++)
		cc.part[i] = c->caller_part[i];
	cc.nr_parts = c->nr_caller_parts;
	/* part[0] is the entry; a .cold part after it in address order */
	if (cc.nr_parts == 2 && cc.part[1].addr < cc.part[0].addr)
		return -3;
	rr = calloc(1, sizeof(*rr));
	e.r = rr;
	if (!rr)
		return -4;
	if (cs_open(c->arch == FGT_ARCH_ARM64 ? CS_ARCH_ARM64 : CS_ARCH_X86,
		    c->arch == FGT_ARCH_ARM64 ? CS_MODE_ARM : CS_MODE_64, &h) != CS_ERR_OK ||
	    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK || !(ci = cs_malloc(h))) {
		ret = -3;
		goto out;
	}
	for (unsigned int i = 0; i < cc.nr_parts; i++)
		if (fgt_flow_decode_part(&e, h, ci, &cc.part[i])) {
			ret = -4;
			goto out;
		}
	if (!e.n || e.in[0].addr != cc.part[0].addr) {
		ret = -3;
		goto out;
	}
	fgt_flow_resolve(&e);
	if (fgt_flow_follow(&e) || fgt_flow_preds(&e) || scratch_get(&e, &t)) {
		ret = -4;
		goto out;
	}
	for (size_t i = 0; i < e.n; i++) {
		const struct insn *in = &e.in[i];

		if (in->kind != I_CALL || !e.st[i].reached || in->target > fn || fn - in->target > 16)
			continue;
		if (eagain_cycle(&e, i, &t)) {
			fgt_flow_where(d, in->addr, at, len);
			ret = (long)i;
			break;
		}
	}
out:
	scratch_put(&t);
	if (ci)
		cs_free(ci, 1);
	if (h)
		cs_close(&h);
	free(e.in);
	free(e.st);
	free(e.pstart);
	free(e.pred);
	free(rr);
	return ret;
}

/*
 * Step 1: every part through its front end, in address order (a .cold part
 * may come first), the entry remembered. 0; 1: answered (unknown); -1: out
 * of memory. Capstone's handle is closed here whatever happens.
 */
static int decode_all(struct dec *d, struct fgt_static_result *r)
{
	const struct fgt_static_code *c = d->c;
	unsigned int order[FGT_STATIC_MAX_PARTS];
	cs_insn *ci = NULL;
	csh h = 0;
	int err = 0;

	if (cs_open(c->arch == FGT_ARCH_ARM64 ? CS_ARCH_ARM64 : CS_ARCH_X86,
		    c->arch == FGT_ARCH_ARM64 ? CS_MODE_ARM : CS_MODE_64, &h) != CS_ERR_OK ||
	    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK || !(ci = cs_malloc(h))) {
		if (h)
			cs_close(&h);
		unknown(r, FGT_SW_DISASM, "the disassembler (Capstone) could not start");
		return 1;
	}
	for (unsigned int i = 0; i < c->nr_parts; i++)
		order[i] = i;
	for (unsigned int i = 1; i < c->nr_parts; i++)
		for (unsigned int j = i; j > 0 && c->part[order[j]].addr < c->part[order[j - 1]].addr; j--) {
			unsigned int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (unsigned int i = 0; i < c->nr_parts && !err; i++) {
		if (order[i] == 0)
			d->entry = (long)d->n;
		if (fgt_flow_decode_part(d, h, ci, &c->part[order[i]]))
			err = -1;
		else if (order[i] == 0 && d->entry == (long)d->n)
			d->entry = -1;	/* nothing decoded at the entry */
	}
	cs_free(ci, 1);
	cs_close(&h);
	return err;
}

/* Steps 2 and 3 on the decoded code: the flow, the walk, the sites, the
 * verdict. -1: out of memory. */
static int analyse(struct dec *d)
{
	struct fgt_static_result *r = d->r;

	fgt_flow_resolve(d);
	if (fgt_flow_follow(d))
		return -1;
	if (d->lock_read && fgt_flow_reads_open(d)) {
		/* the reads opening the walk are known now: follow again */
		free(d->st);
		d->st = NULL;
		if (fgt_flow_follow(d))
			return -1;
	}
	d->by_loop = true;
	for (size_t i = 0; i < d->n; i++)
		if (d->in[i].callee == C_RCU_LOCK && d->st[i].reached)
			d->by_loop = false;
	if (d->by_loop) {
		int nloop = fgt_walk_loop_find(d);

		if (nloop < 0)
			return -1;
		d->by_loop = nloop > 0;
	}
	r->walk_by_loop = d->by_loop;
	ret_stack_field(d);
	node_field(d);
	if (d->by_loop && r->ret_stack_off)
		walk_loops_that_store(d);
	collect(d);
	walk_tests_field(d, r->ret_stack_off);	/* names the walk's loop */
	destinations(d);
	if (fgt_flow_preds(d))
		return -1;
	judge(d);
	return 0;
}

enum fgt_verdict fgt_static_decode(const struct fgt_static_code *c,
					  const struct fgt_static_kernel *k,
					  struct fgt_static_result *r)
{
	struct dec d = { .c = c, .k = k, .r = r };
	size_t total = 0;

	r->verdict = FGT_VERDICT_UNKNOWN;
	r->why = FGT_SW_NONE;
	r->evidence[0] = '\0';
	r->insns = r->nr_sites = r->nr_rcu_lock = r->nr_rcu_unlock = 0;
	r->walk_by_loop = false;
	r->walk_loop[0] = '\0';
	r->ret_stack_off = 0;
	r->ret_stack_off_btf = false;
	for (unsigned int i = 0; i < c->nr_parts; i++)
		total += c->part[i].len;
	if (!c->nr_parts || c->nr_parts > FGT_STATIC_MAX_PARTS || !total || total > MAX_TEXT)
		return unknown(r, FGT_SW_SHAPE, "%s: %zu bytes of text in %u part(s): not the "
			       "function we know", c->func, total, c->nr_parts);
	if ((unsigned int)k->stack_src >= FGT_STACK__NR)
		return unknown(r, FGT_SW_SHAPE, "no shadow-stack source for this kernel");
	if ((unsigned int)c->arch >= FGT_ARCH__NR)
		return unknown(r, FGT_SW_DISASM, "%s: code of no architecture known here", c->func);
	d.arch = &fgt_arch_facts[c->arch];
	switch (decode_all(&d, r)) {
	case 1:
		return r->verdict;
	case -1:
		goto oom;
	}
	r->insns = (unsigned int)d.n;
	if (d.entry < 0) {
		free(d.in);
		return unknown(r, FGT_SW_DISASM, "%s: its first instruction does not decode", c->func);
	}
	/* parts in address order, for the lookups */
	for (size_t i = 1; i < d.n; i++)
		if (d.in[i].addr <= d.in[i - 1].addr) {
			free(d.in);
			return unknown(r, FGT_SW_SHAPE, "%s: its parts overlap", c->func);
		}
	if (analyse(&d))
		goto oom;
	free(d.in);
	free(d.st);
	free(d.walk);
	free(d.pstart);
	free(d.pred);
	return r->verdict;
oom:
	free(d.in);
	free(d.st);
	free(d.walk);
	free(d.pstart);
	free(d.pred);
	return unknown(r, FGT_SW_DISASM, "out of memory");
}

const char *fgt_static_kind_name(enum fgt_static_kind k)
{
	switch (k) {
	case FGT_SITE_SHADOW:		return "shadow";
	case FGT_SITE_UNCLASSIFIED:	return "unclassified";
	case FGT_SITE_OTHER:		break;
	}
	return "other";
}
