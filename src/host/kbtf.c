// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's facts read from its BTF (src/host/kbtf.h): from raw BTF, just
 * task_struct::ret_stack; through libbpf's parse, the plan's type ids and
 * member offsets.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem */
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "common/bytes.h"
#include "host/kbtf.h"

/* ---- raw BTF: just task_struct::ret_stack -------------------------------------- */

/*
 * A section of the BTF (types, strings), read as far as the walk needs it: a
 * growing prefix. In memory (a .BTF section) it is all there at once.
 */
struct btf_win {
	const uint8_t *p;		/* the prefix read so far */
	uint8_t *buf;			/* owned, when read through rd */
	uint32_t have, len;		/* bytes in p, bytes in the section */
	uint64_t at;			/* the section's offset in the BTF */
};

struct btf_view {
	struct btf_win types, strs;
	fgt_btf_read_fn rd;		/* NULL: all in memory */
	void *arg;
	uint32_t *off;			/* of type id i (1-based) in types */
	uint32_t n, cap;		/* ids walked so far; room in off */
	uint32_t next;			/* where the record after id n starts */
	bool broken;			/* a record overran its section, or a read failed */
};

/*
 * At least the first end bytes of w (clamped to its length), doubling what is
 * read: Debian's task_struct is type 112-192 and its ret_stack resolves within
 * the first 34 KiB of 2.5-2.9 MiB of types, so the walk reads 64 KiB and the
 * first 8 KiB of the strings, where reading all of /sys/kernel/btf/vmlinux
 * (4.3 MiB, a page per read) took 45-59 ms under TCG (debian-6.1).
 */
static bool btf_need(struct btf_view *v, struct btf_win *w, uint64_t end)
{
	uint32_t want;
	uint8_t *nb;

	if (end > w->len)
		end = w->len;
	if (end <= w->have)
		return true;
	if (!v->rd)
		return false;
	want = w->have ? w->have : 4096;
	while (want < end)
		want = want > w->len / 2 ? w->len : want * 2;
	if (want > w->len)
		want = w->len;
	nb = realloc(w->buf, want);
	if (!nb)
		return false;
	w->buf = nb;
	w->p = nb;
	if (v->rd(v->arg, w->at + w->have, nb + w->have, want - w->have))
		return false;
	w->have = want;
	return true;
}

/* A type record's length: 12 bytes and what its kind appends (include/uapi/linux/btf.h). */
static int64_t btf_rec_len(const uint8_t *t)
{
	uint32_t info = fgt_le32(t + 4), vlen = info & 0xffff;

	switch ((info >> 24) & 0x1f) {
	case BTF_KIND_INT: case BTF_KIND_VAR: case BTF_KIND_DECL_TAG:
		return 16;
	case BTF_KIND_ARRAY:
		return 24;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_DATASEC: case BTF_KIND_ENUM64:
		return 12 + 12 * (int64_t)vlen;
	case BTF_KIND_ENUM: case BTF_KIND_FUNC_PROTO:
		return 12 + 8 * (int64_t)vlen;
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 12;
	}
	return -1;
}

/* One more type walked (its record read whole): false at the end or when broken. */
static bool btf_walk(struct btf_view *v)
{
	uint32_t o = v->next, *no;
	int64_t l;

	if (v->broken || !fgt_in_range(o, 12, v->types.len))
		return false;
	if (v->n + 1 >= v->cap) {
		no = realloc(v->off, (v->cap * 2 + 2) * sizeof(*no));
		if (!no)
			goto broken;
		v->off = no;
		v->cap = v->cap * 2 + 2;
	}
	if (!btf_need(v, &v->types, (uint64_t)o + 12))
		goto broken;
	l = btf_rec_len(v->types.p + o);
	if (l < 0 || !fgt_in_range(o, (uint64_t)l, v->types.len) ||
	    !btf_need(v, &v->types, (uint64_t)o + l))
		goto broken;
	v->off[++v->n] = o;
	v->next = o + (uint32_t)l;
	return true;
broken:
	v->broken = true;
	return false;
}

static bool btf_name_is(struct btf_view *v, uint32_t off, const char *name)
{
	size_t n = strlen(name);

	return off < v->strs.len && v->strs.len - off > n &&
	       btf_need(v, &v->strs, (uint64_t)off + n + 1) && !memcmp(v->strs.p + off, name, n + 1);
}

/* Type id's record, valid until the next call (the prefix may move). */
static const uint8_t *btf_type(struct btf_view *v, uint32_t id)
{
	while (id > v->n && btf_walk(v))
		;
	return id && id <= v->n ? v->types.p + v->off[id] : NULL;
}

/* Past typedefs and qualifiers. */
static const uint8_t *btf_skip(struct btf_view *v, const uint8_t *t)
{
	for (int i = 0; t && i < 16; i++) {
		uint32_t kind = (fgt_le32(t + 4) >> 24) & 0x1f;

		if (kind != BTF_KIND_TYPEDEF && kind != BTF_KIND_VOLATILE && kind != BTF_KIND_CONST &&
		    kind != BTF_KIND_RESTRICT && kind != BTF_KIND_TYPE_TAG)
			return t;
		t = btf_type(v, fgt_le32(t + 8));
	}
	return NULL;
}

/* What ret_stack (of type id) points to. */
static int btf_ret_stack_type(struct btf_view *v, uint32_t id, struct fgt_btf_stack *out)
{
	const uint8_t *mt = btf_skip(v, btf_type(v, id));

	if (!mt || ((fgt_le32(mt + 4) >> 24) & 0x1f) != BTF_KIND_PTR)
		return -1;
	mt = btf_skip(v, btf_type(v, fgt_le32(mt + 8)));
	if (!mt)
		return -1;
	fgt_btf_stack_of(out, ((fgt_le32(mt + 4) >> 24) & 0x1f) == BTF_KIND_STRUCT, fgt_le32(mt + 8));
	return 0;
}

/* Does a name hold fgt_first_word (the name read within the strings section)? */
static bool btf_name_has(struct btf_view *v, uint32_t off, const char *word)
{
	size_t n;

	if (off >= v->strs.len || !btf_need(v, &v->strs, off + 1))
		return false;
	/* at most 128 bytes of the name: a member's is far shorter */
	n = v->strs.len - off < 128 ? v->strs.len - off : 128;
	if (!btf_need(v, &v->strs, (uint64_t)off + n))
		return false;
	return memmem(v->strs.p + off, strnlen((const char *)v->strs.p + off, n), word,
		      strlen(word)) != NULL;
}

/*
 * A task_struct member shaped as fgraph's shadow stack, whatever its name:
 * one whose name holds "ret_stack" (curr_ret_stack), or a pointer to the
 * old frame array's struct ftrace_ret_stack or to unsigned long (6.11 on:
 * no other task_struct member is an unsigned long pointer).
 */
static bool btf_shaped(struct btf_view *v, uint32_t name, uint32_t type)
{
	const uint8_t *mt = btf_skip(v, btf_type(v, type));

	if (btf_name_has(v, name, "ret_stack"))
		return true;
	if (!mt || ((fgt_le32(mt + 4) >> 24) & 0x1f) != BTF_KIND_PTR)
		return false;
	mt = btf_skip(v, btf_type(v, fgt_le32(mt + 8)));
	if (!mt)
		return false;
	return (((fgt_le32(mt + 4) >> 24) & 0x1f) == BTF_KIND_STRUCT &&
		btf_name_is(v, fgt_le32(mt), "ftrace_ret_stack")) ||
	       (((fgt_le32(mt + 4) >> 24) & 0x1f) == BTF_KIND_INT &&
		btf_name_is(v, fgt_le32(mt), "unsigned long"));
}

/* The first struct task_struct, its ret_stack member. */
static int btf_find_task(struct btf_view *v, struct fgt_btf_stack *out)
{
	for (uint32_t id = 1; btf_type(v, id); id++) {
		uint32_t o = v->off[id], info = fgt_le32(v->types.p + o + 4);

		if (((info >> 24) & 0x1f) != BTF_KIND_STRUCT ||
		    !btf_name_is(v, fgt_le32(v->types.p + o), "task_struct"))
			continue;
		/* members by offset: resolving a type may move the prefix */
		for (uint32_t k = 0, m = o + 12; k < (info & 0xffff); k++, m += 12) {
			/* the member's offset in bits (the low 24 with kind_flag) */
			uint32_t bits = fgt_le32(v->types.p + m + 8);

			bits = info >> 31 ? bits & 0xffffff : bits;
			if (btf_name_is(v, fgt_le32(v->types.p + m), "tasks"))
				out->tasks_off = bits / 8;
			if (btf_name_is(v, fgt_le32(v->types.p + m), "ret_stack")) {
				out->off = bits / 8;
				return btf_ret_stack_type(v, fgt_le32(v->types.p + m + 4), out);
			}
		}
		/* task_struct without ret_stack: no fgraph, unless a member has
		 * its shape (issue 40: a renamed one must not clear a kernel) */
		for (uint32_t k = 0, m = o + 12; k < (info & 0xffff); k++, m += 12)
			if (btf_shaped(v, fgt_le32(v->types.p + m), fgt_le32(v->types.p + m + 4)))
				out->shaped = true;
		return 1;
	}
	return -1;
}

static int btf_ret_stack(struct btf_view *v, const uint8_t *b, uint64_t len,
			 struct fgt_btf_stack *out)
{
	uint32_t hdr;
	int ret;

	if (len < 24 || b[0] != 0x9f || b[1] != 0xeb || b[2] != 1)
		return -1;
	hdr = fgt_le32(b + 4);
	if ((uint64_t)hdr + fgt_le32(b + 8) + fgt_le32(b + 12) > len || (uint64_t)hdr + fgt_le32(b + 16) + fgt_le32(b + 20) > len)
		return -1;
	v->types.at = (uint64_t)hdr + fgt_le32(b + 8);
	v->types.len = fgt_le32(b + 12);
	v->strs.at = (uint64_t)hdr + fgt_le32(b + 16);
	v->strs.len = fgt_le32(b + 20);
	if (!v->rd) {
		v->types.p = b + v->types.at;
		v->strs.p = b + v->strs.at;
		v->types.have = v->types.len;
		v->strs.have = v->strs.len;
	}
	memset(out, 0, sizeof(*out));
	ret = btf_find_task(v, out);
	free(v->off);
	free(v->types.buf);
	free(v->strs.buf);
	return ret;
}

int fgt_btf_ret_stack(const void *btf, size_t len, struct fgt_btf_stack *out)
{
	struct btf_view v = {};

	return btf_ret_stack(&v, btf, len, out);
}

int fgt_btf_ret_stack_read(fgt_btf_read_fn rd, void *arg, uint64_t len, struct fgt_btf_stack *out)
{
	struct btf_view v = { .rd = rd, .arg = arg };
	uint8_t hdr[24];

	if (len < sizeof(hdr) || rd(arg, 0, hdr, sizeof(hdr)))
		return -1;
	return btf_ret_stack(&v, hdr, len, out);
}

/* ---- through libbpf's parse ---------------------------------------------------- */

void fgt_btf_want_target(enum fgt_probe_kind kind, const char *target, struct fgt_btf_want *w)
{
	memset(w, 0, sizeof(*w));
	if (kind == FGT_PK_TP_BTF) {
		snprintf(w->name, sizeof(w->name), "btf_trace_%s", target);
		w->kind = BTF_KIND_TYPEDEF;
	} else if (kind == FGT_PK_FENTRY || kind == FGT_PK_FEXIT) {
		snprintf(w->name, sizeof(w->name), "%s", target);
		w->kind = BTF_KIND_FUNC;
	}
}

void fgt_btf_want_iter(const char *target, struct fgt_btf_want *w)
{
	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "bpf_iter_%s", target);
	w->kind = BTF_KIND_FUNC;
}

void fgt_btf_find(const struct btf *btf, struct fgt_btf_want *w, int n)
{
	__u32 cnt = btf__type_cnt(btf), kinds = 0;

	for (int i = 0; i < n; i++)
		kinds |= w[i].kind ? 1u << w[i].kind : 0;
	for (__u32 id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		int kind = btf_kind(t);
		const char *name;

		if (!(kinds & 1u << kind))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name || !name[0])
			continue;
		for (int i = 0; i < n; i++)
			if (!w[i].id && w[i].kind == kind && w[i].name[0] == name[0] &&
			    !strcmp(w[i].name, name))
				w[i].id = (int)id;
	}
}

int fgt_btf_vmlinux_id(const struct fgt_btf_want *w)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int id;

	if (libbpf_get_error(btf))
		return -ESRCH;
	id = btf__find_by_name_kind(btf, w->name, w->kind);
	btf__free(btf);
	return id > 0 ? id : -ESRCH;
}

/* Struct t's member of that name and its byte offset in *off (0 if it is
 * not there: none we read is first); NULL if there is none. */
static const struct btf_member *member_at(const struct btf *btf, const struct btf_type *t,
					  const char *member, __u32 *off)
{
	const struct btf_member *m;
	int i;

	*off = 0;
	if (!t || !btf_is_struct(t))
		return NULL;
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);

		if (name && !strcmp(name, member)) {
			*off = btf_member_bit_offset(t, i) / 8;
			return m;
		}
	}
	return NULL;
}

/* task_struct's members the programs read: their offsets into task, tasks'
 * into out; its ret_stack member, or NULL. */
static const struct btf_member *task_members(const struct btf *btf, const struct btf_type *t,
					     struct fgt_btf_stack *out, struct fgt_task_offs *task)
{
	member_at(btf, t, "pid", &task->pid);
	member_at(btf, t, "tgid", &task->tgid);
	member_at(btf, t, "start_time", &task->start_time);
	member_at(btf, t, "group_leader", &task->group_leader);
	member_at(btf, t, "tasks", &out->tasks_off);
	return member_at(btf, t, "ret_stack", &task->ret_stack);
}

int fgt_btf_read_task(const struct btf *btf, int task_id, int cache_id, struct fgt_btf_stack *out,
		      struct fgt_task_offs *task, uint32_t *cache_size_off)
{
	const struct btf_member *m;
	const struct btf_type *t, *pt;

	memset(out, 0, sizeof(*out));
	memset(task, 0, sizeof(*task));
	member_at(btf, cache_id > 0 ? btf__type_by_id(btf, cache_id) : NULL, "object_size",
		  cache_size_off);
	t = task_id > 0 ? btf__type_by_id(btf, task_id) : NULL;
	if (!t || !btf_is_struct(t))
		return -1;
	m = task_members(btf, t, out, task);
	if (!m)
		return 1;	/* task_struct without ret_stack: no fgraph */
	out->off = task->ret_stack;
	pt = btf__type_by_id(btf, btf__resolve_type(btf, m->type));
	if (!pt || !btf_is_ptr(pt))
		return -1;
	pt = btf__type_by_id(btf, btf__resolve_type(btf, pt->type));
	if (!pt)
		return -1;
	fgt_btf_stack_of(out, btf_is_struct(pt), btf_is_struct(pt) ? pt->size : 0);
	return 0;
}
