// SPDX-License-Identifier: GPL-2.0
/*
 * The static verdict's glue (src/static_check.h, fgt_static_check): find the
 * function holding the sweep, read its text, size the shadow stack, decode.
 * Reads only: kallsyms, /proc/kcore (or one BPF_PROG_TEST_RUN of a program
 * that is never attached, src/kread_bpf.c), BTF; or a kernel file.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kread.h"
#include "static_check.h"

/* A function bigger than this is not the one we know (register_ftrace_graph: 2-3 KiB). */
#define MAX_FUNC	(64u << 10)

fgt_kmem_read_fn fgt_static_bpf_read;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static enum fgt_static_verdict fail(struct fgt_static_result *r, int why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum fgt_static_verdict fail(struct fgt_static_result *r, int why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->evidence, sizeof(r->evidence), fmt, ap);
	va_end(ap);
	r->why = (enum fgt_static_why)why;
	return r->verdict = FGT_SV_UNKNOWN;
}

/* task_struct::ret_stack: a struct pointer (the old array of frames, up to
 * 6.10) or unsigned long * (4096-byte stacks): as the live tool reads it. */
static int shadow_size(const struct btf *btf, enum fgt_stack_src *src, uint32_t *bytes)
{
	const struct btf_member *m;
	const struct btf_type *t;
	int id;

	id = btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT);
	if (id <= 0)
		return -1;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const struct btf_type *mt;
		__s64 sz;

		if (strcmp(btf__name_by_offset(btf, m->name_off), "ret_stack"))
			continue;
		mt = btf__type_by_id(btf, m->type);
		if (!btf_is_ptr(mt))
			return -1;
		id = btf__resolve_type(btf, mt->type);
		mt = btf__type_by_id(btf, id);
		if (!btf_is_struct(mt)) {
			*src = FGT_STACK_KMALLOC;
			*bytes = FGT_SHADOW_STACK_SIZE;
			return 0;
		}
		sz = btf__resolve_size(btf, id);
		if (sz <= 0)
			return -1;
		*src = FGT_STACK_KMALLOC_ARRAY;
		*bytes = (uint32_t)(FGT_RETFUNC_DEPTH * sz);
		return 0;
	}
	return -1;
}

struct ctx {
	const struct fgt_static_opts *o;
	struct fgt_static_result *r;
	struct fgt_kimage im;
	bool have_im;
	struct fgt_ksyms *ks_owned;
	const struct fgt_ksyms *ks;
	uint8_t *text[FGT_STATIC_MAX_PARTS];
};

/* Where shadow stacks come from: the cache (6.13+), else BTF decides. */
static int stack_source(struct ctx *c, struct fgt_static_kernel *k)
{
	struct btf *btf = NULL;
	const void *raw;
	size_t len;
	int err;

	if (fgt_ksyms_by_name(c->ks, fgt_sym_name(FGT_SYM_STACK_CACHEP))) {
		k->stack_src = FGT_STACK_CACHE;
		return 0;
	}
	if (c->o->kernel) {
		raw = fgt_kimage_section(&c->im, ".BTF", &len);
		if (raw)
			btf = btf__new(raw, (__u32)len);
	} else {
		btf = btf__parse(c->o->btf ? c->o->btf : "/sys/kernel/btf/vmlinux", NULL);
	}
	if (!btf || libbpf_get_error(btf)) {
		fail(c->r, FGT_SW_NO_BTF, "no fgraph_stack_cachep, so shadow stacks are kmalloc()ed, "
		     "and their size needs the kernel's BTF, which %s has not",
		     c->o->kernel ? c->o->kernel : "this kernel");
		return -1;
	}
	err = shadow_size(btf, &k->stack_src, &k->shadow_bytes);
	btf__free(btf);
	if (err)
		fail(c->r, FGT_SW_SHAPE, "task_struct::ret_stack is not a pointer in BTF: not a "
		     "shadow stack we know");
	return err;
}

static int symbols(struct ctx *c)
{
	const struct fgt_static_opts *o = c->o;
	struct fgt_static_result *r = c->r;
	char msg[sizeof(r->evidence)], why[160];
	int err = 0;

	if (o->kernel) {
		err = fgt_kimage_open_file(&c->im, o->kernel, msg, sizeof(msg));
		if (err)
			return fail(r, err, "%s", msg), -1;
		c->have_im = true;
		snprintf(r->source, sizeof(r->source), "%s", c->im.desc);
		if (o->system_map) {
			c->ks_owned = fgt_kimage_system_map(&c->im, o->system_map, &err, msg, sizeof(msg));
			snprintf(r->symbols, sizeof(r->symbols), "System.map %s", o->system_map);
		} else {
			c->ks_owned = fgt_kimage_symbols(&c->im, r->symbols, sizeof(r->symbols),
							 &err, msg, sizeof(msg));
		}
		if (!c->ks_owned)
			return fail(r, err, "%s", msg), -1;
		c->ks = c->ks_owned;
		return 0;
	}
	snprintf(r->symbols, sizeof(r->symbols), "%s", o->kallsyms ? o->kallsyms : "/proc/kallsyms");
	c->ks = o->ks;
	if (!c->ks) {
		c->ks = c->ks_owned = fgt_ksyms_load(o->kallsyms);
		if (!c->ks)
			return fail(r, errno == EACCES ? FGT_SW_NO_PERM : FGT_SW_READ, "%s: %s",
				    r->symbols, strerror(errno)), -1;
	}
	if (!fgt_ksyms_have_addrs(c->ks))
		return fail(r, FGT_SW_KSYMS_HIDDEN, "kallsyms addresses are hidden (kernel.kptr_restrict, "
			    "or not root): run as root"), -1;
	if (!fgt_ksyms_sane(c->ks, why, sizeof(why)))
		return fail(r, FGT_SW_KSYMS_HIDDEN, "%s", why), -1;
	return 0;
}

/* Read [addr, addr + len) of the running kernel: kcore, else BPF. */
static int read_running(struct ctx *c, uint64_t addr, void *buf, size_t len)
{
	const struct fgt_static_opts *o = c->o;
	struct fgt_static_result *r = c->r;
	char msg[sizeof(r->evidence)], bmsg[200];
	int err, why;

	if (!c->have_im) {
		why = fgt_kimage_open_kcore(&c->im, o->kcore, msg, sizeof(msg));
		if (!why) {
			c->have_im = true;
			snprintf(r->source, sizeof(r->source), "%s", c->im.desc);
		} else if (!o->no_bpf && fgt_static_bpf_read && why != FGT_SW_LOCKDOWN) {
			/* a container without kcore may still let BPF read kernel memory */
			err = fgt_static_bpf_read(addr, buf, len, bmsg, sizeof(bmsg));
			if (!err) {
				snprintf(r->source, sizeof(r->source), "kernel memory through BPF "
					 "(bpf_probe_read_kernel; %.180s)", msg);
				return 0;
			}
			return fail(r, why, "%s; and BPF could not read it either: %s", msg, bmsg), -1;
		} else {
			return fail(r, why, "%s", msg), -1;
		}
	}
	err = fgt_kimage_read(&c->im, addr, buf, len);
	if (err)
		return fail(r, FGT_SW_READ, "%s: cannot read %zu bytes at %#lx: %s", c->im.desc, len,
			    (unsigned long)addr, strerror(-err)), -1;
	return 0;
}

static int read_text(struct ctx *c, uint64_t addr, void *buf, size_t len)
{
	int err;

	if (!c->o->kernel)
		return read_running(c, addr, buf, len);
	err = fgt_kimage_read(&c->im, addr, buf, len);
	if (err)
		return fail(c->r, FGT_SW_READ, "%s: the text at %#lx is not in the image: %s",
			    c->im.desc, (unsigned long)addr, strerror(-err)), -1;
	return 0;
}

/* The function holding the sweep, and its .cold part. */
static int find_code(struct ctx *c, struct fgt_static_code *code)
{
	struct fgt_static_result *r = c->r;
	const struct fgt_ksym *f, *cold;
	char name[128];

	f = fgt_ksyms_by_name(c->ks, fgt_sym_name(FGT_SYM_SWEEP));
	if (!f || (f->type != 't' && f->type != 'T'))
		f = fgt_ksyms_by_name(c->ks, fgt_sym_name(FGT_SYM_REGISTER));
	if (!f) {
		r->verdict = FGT_SV_NOT_AFFECTED;
		snprintf(r->evidence, sizeof(r->evidence), "no %s in %s: no function graph tracer, "
			 "so no shadow-stack walk", fgt_sym_name(FGT_SYM_REGISTER), r->symbols);
		return -1;
	}
	if (!f->size || f->size > MAX_FUNC)
		return fail(r, FGT_SW_SHAPE, "%s: %lu bytes by its symbols: not the function we know",
			    f->name, (unsigned long)f->size), -1;
	snprintf(r->func, sizeof(r->func), "%s", f->name);
	r->func_addr = f->addr;
	r->func_len = f->size;
	code->func = r->func;
	code->part[0] = (struct fgt_static_part){ f->addr, NULL, f->size };
	code->nr_parts = 1;
	snprintf(name, sizeof(name), "%s.cold", f->name);
	cold = fgt_ksyms_by_name(c->ks, name);
	if (cold && cold->size && cold->size <= MAX_FUNC)
		code->part[code->nr_parts++] = (struct fgt_static_part){ cold->addr, NULL, cold->size };
	for (unsigned int i = 0; i < code->nr_parts; i++) {
		c->text[i] = malloc(code->part[i].len);
		if (!c->text[i])
			return fail(r, FGT_SW_READ, "out of memory"), -1;
		if (read_text(c, code->part[i].addr, c->text[i], code->part[i].len))
			return -1;
		code->part[i].bytes = c->text[i];
	}
	return 0;
}

enum fgt_static_verdict fgt_static_check(const struct fgt_static_opts *o,
					 struct fgt_static_result *r)
{
	struct ctx c = { .o = o, .r = r };
	struct fgt_static_code code = {};
	struct fgt_static_kernel k = {};
	double t0 = now_ms();

	memset(r, 0, sizeof(*r));
	c.im.fd = -1;
	if (!symbols(&c) && !find_code(&c, &code)) {
		k.ks = c.ks;
		if (!stack_source(&c, &k)) {
			if (o->code_cb)
				o->code_cb(&code, &k, o->code_arg);
			fgt_static_decode(&code, &k, r);
		}
	}
	r->ms = now_ms() - t0;
	if (c.have_im)
		fgt_kimage_close(&c.im);
	for (int i = 0; i < FGT_STATIC_MAX_PARTS; i++)
		free(c.text[i]);
	fgt_ksyms_free(c.ks_owned);
	return r->verdict;
}
