// SPDX-License-Identifier: GPL-2.0
/*
 * Recorded sequences for the static decoder (tests/data/static/README): the
 * code of the function holding the sweep, and just the symbols that decoding
 * it needs, so that a kernel's answer replays without the kernel.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "static/static_rec.h"
#include "static/refs.h"

#define MAX_SYMS	1024

struct symset {
	const struct fgt_ksyms *ks;
	const struct fgt_ksym *s[MAX_SYMS];
	size_t n;
};

static void add(struct symset *ss, const struct fgt_ksym *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < ss->n; i++)
		if (ss->s[i] == s)
			return;
	if (ss->n < MAX_SYMS)
		ss->s[ss->n++] = s;
}

static void add_name(struct symset *ss, const char *prefix, const char *name)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "%s%s", prefix, name);
	add(ss, fgt_ksyms_by_name(ss->ks, buf));
}

/* A referenced address: its symbol, and a padding symbol's function. */
static void add_ref(uint64_t a, void *arg)
{
	struct symset *ss = arg;
	const struct fgt_ksym *s = fgt_ksyms_by_addr(ss->ks, a);

	add(ss, s);
	if (s && !strncmp(s->name, "__pfx_", 6))
		add_name(ss, "", s->name + 6);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct fgt_ksym *x = *(const struct fgt_ksym *const *)a;
	const struct fgt_ksym *y = *(const struct fgt_ksym *const *)b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const char *const src_names[FGT_STACK__NR] = {
	[FGT_STACK_KMALLOC_ARRAY] = "kmalloc_array",
	[FGT_STACK_KMALLOC] = "kmalloc",
	[FGT_STACK_CACHE] = "cache",
};

static void write_part(FILE *f, const struct fgt_static_part *p)
{
	fprintf(f, "part %016" PRIx64 " %zu\n", p->addr, p->len);
	for (size_t j = 0; j < p->len; j++)
		fprintf(f, "%02x%s", p->bytes[j], (j % 32 == 31 || j + 1 == p->len) ? "\n" : "");
}

int fgt_static_rec_write(FILE *f, const char *name, const struct fgt_static_code *c,
			 const struct fgt_static_kernel *k)
{
	struct symset *ss = calloc(1, sizeof(*ss));

	if (!ss)
		return -ENOMEM;
	ss->ks = k->ks;
	for (int i = 0; i < FGT_SYM__NR; i++)
		add_name(ss, "", fgt_sym_name(i));
	/* the allocators, and their padding (tests redirect calls into it) */
	for (size_t i = 0; i < fgt_nr_alloc_fns; i++) {
		add_name(ss, "", fgt_alloc_fns[i].name);
		add_name(ss, "__pfx_", fgt_alloc_fns[i].name);
	}
	for (size_t i = 0; i < fgt_nr_walk_calls; i++)
		add_name(ss, "", fgt_walk_calls[i].name);
	fgt_static_refs(c, add_ref, ss);
	qsort(ss->s, ss->n, sizeof(ss->s[0]), cmp_sym);
	fprintf(f, "# %s: recorded by fgt-static --record\n", name);
	fprintf(f, "func %s\nstack %s %u\n", c->func, src_names[k->stack_src], k->shadow_bytes);
	if (k->ret_stack_off)
		fprintf(f, "retstack %#x\n", k->ret_stack_off);
	if (k->tasks_off)
		fprintf(f, "tasks %#x\n", k->tasks_off);
	/* x86-64 recordings (the first ones) say nothing: it is the default */
	if (c->arch != FGT_ARCH_X86_64)
		fprintf(f, "arch %s\n", fgt_arch_facts[c->arch].name);
	for (size_t i = 0; i < ss->n; i++)
		fprintf(f, "sym %016" PRIx64 " %c %s\n", ss->s[i]->addr, ss->s[i]->type, ss->s[i]->name);
	for (unsigned int i = 0; i < c->nr_parts; i++)
		write_part(f, &c->part[i]);
	if (c->caller) {
		fprintf(f, "caller %s\n", c->caller);
		for (unsigned int i = 0; i < c->nr_caller_parts; i++)
			write_part(f, &c->caller_part[i]);
	}
	free(ss);
	return ferror(f) ? -EIO : 0;
}

void fgt_static_rec_free(struct fgt_static_rec *r)
{
	fgt_ksyms_free(r->ks);
	for (int i = 0; i < FGT_STATIC_MAX_PARTS; i++)
		free(r->bytes[i]);
	for (int i = 0; i < FGT_STATIC_MAX_CALLER_PARTS; i++)
		free(r->cbytes[i]);
	memset(r, 0, sizeof(*r));
}

static int hexbytes(const char *l, uint8_t *out, size_t room, size_t *got)
{
	for (; l[0] && l[0] != '\n'; l += 2) {
		unsigned int b;

		if (*got == room || sscanf(l, "%2x", &b) != 1)
			return -1;
		out[(*got)++] = (uint8_t)b;
	}
	return 0;
}

/* A recording's one-value lines (func, stack, retstack, tasks, arch): 1 when
 * line is one, 0 when not, -1 when its value is none known here. */
static int rec_fact(const char *line, struct fgt_static_rec *r)
{
	char src[32];
	unsigned int v;

	if (sscanf(line, "func %63s", r->func) == 1)
		return 1;
	if (sscanf(line, "stack %31s %u", src, &v) == 2) {
		for (int i = 0; i < FGT_STACK__NR; i++)
			if (!strcmp(src, src_names[i]))
				r->k.stack_src = (enum fgt_stack_src)i;
		r->k.shadow_bytes = v;
		return 1;
	}
	if (sscanf(line, "retstack %x", &v) == 1) {
		r->k.ret_stack_off = v;
		return 1;
	}
	if (sscanf(line, "tasks %x", &v) == 1) {
		r->k.tasks_off = v;
		return 1;
	}
	if (sscanf(line, "arch %31s", src) != 1)
		return 0;
	r->code.arch = FGT_ARCH__NR;
	for (int i = 0; i < FGT_ARCH__NR; i++)
		if (!strcmp(src, fgt_arch_facts[i].name))
			r->code.arch = (enum fgt_arch)i;
	return r->code.arch == FGT_ARCH__NR ? -1 : 1;
}

/* A "part ADDR LEN" line: a new part of the function (cl: of its caller),
 * the one before it read whole (got bytes). 0, or -1 when it cannot be. */
static int rec_part(struct fgt_static_rec *r, bool cl, uint64_t a, size_t n, size_t got)
{
	unsigned int np = cl ? r->code.nr_caller_parts : r->code.nr_parts;
	unsigned int maxp = cl ? FGT_STATIC_MAX_CALLER_PARTS : FGT_STATIC_MAX_PARTS;
	struct fgt_static_part *parts = cl ? r->code.caller_part : r->code.part;
	uint8_t **pb = cl ? r->cbytes : r->bytes;

	if (np == maxp || !n || n > (1u << 20))
		return -1;
	if (np && got != parts[np - 1].len)
		return -1;
	pb[np] = malloc(n);
	if (!pb[np])
		return -1;
	parts[np] = (struct fgt_static_part){ a, pb[np], n };
	if (cl)
		r->code.nr_caller_parts = np + 1;
	else
		r->code.nr_parts = np + 1;
	return 0;
}

/* A line of the last part's bytes, in hex (cl: of the caller's): into it
 * after the *got read so far. 0, or -1 with no part or not its bytes. */
static int rec_bytes(struct fgt_static_rec *r, bool cl, const char *line, size_t *got)
{
	unsigned int np = cl ? r->code.nr_caller_parts : r->code.nr_parts;
	struct fgt_static_part *parts = cl ? r->code.caller_part : r->code.part;
	uint8_t **pb = cl ? r->cbytes : r->bytes;

	if (!np)
		return -1;
	return hexbytes(line, pb[np - 1], parts[np - 1].len, got);
}

/* The recording read to its end, its function (and caller) whole: got, the
 * bytes of the last part read. */
static bool rec_whole(FILE *f, const struct fgt_static_rec *r, size_t got)
{
	if (!feof(f) || !r->code.nr_parts || !r->func[0])
		return false;
	if (r->caller[0])
		return r->code.nr_caller_parts &&
		       got == r->code.caller_part[r->code.nr_caller_parts - 1].len;
	return got == r->code.part[r->code.nr_parts - 1].len;
}

int fgt_static_rec_load(const char *path, struct fgt_static_rec *r, char *msg, size_t len)
{
	FILE *f = fopen(path, "re"), *syms;
	char line[600], *text = NULL;
	size_t text_len = 0, got = 0, lineno = 0;
	uint64_t a;
	size_t n;
	int err = -1, k;

	memset(r, 0, sizeof(*r));
	if (!f) {
		snprintf(msg, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	syms = open_memstream(&text, &text_len);
	if (!syms) {
		snprintf(msg, len, "%s: %s", path, strerror(errno));
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		/* the parts being read: the function's, or its caller's after "caller" */
		bool cl = r->caller[0];

		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		k = rec_fact(line, r);
		if (k < 0)
			break;
		if (k)
			continue;
		if (!strncmp(line, "sym ", 4)) {
			fputs(line + 4, syms);
			continue;
		}
		if (sscanf(line, "caller %63s", r->caller) == 1) {
			/* after the function's parts, once */
			if (cl || !r->code.nr_parts ||
			    got != r->code.part[r->code.nr_parts - 1].len) {
				r->caller[0] = '\0';
				break;
			}
			got = 0;
			continue;
		}
		if (sscanf(line, "part %" SCNx64 " %zu", &a, &n) == 2) {
			if (rec_part(r, cl, a, n, got))
				break;
			got = 0;
			continue;
		}
		if (rec_bytes(r, cl, line, &got))
			break;
	}
	if (!rec_whole(f, r, got)) {
		snprintf(msg, len, "%s:%zu: not a recorded sequence", path, lineno);
		goto out;
	}
	fclose(syms);
	syms = fmemopen(text, text_len ? text_len : 1, "r");
	r->ks = syms ? fgt_ksyms_load_file(syms) : NULL;
	if (!r->ks) {
		snprintf(msg, len, "%s: its symbols do not load", path);
		goto out;
	}
	r->code.func = r->func;
	r->code.caller = r->caller[0] ? r->caller : NULL;
	r->k.ks = r->ks;
	err = 0;
out:
	if (syms)
		fclose(syms);
	free(text);
	fclose(f);
	if (err)
		fgt_static_rec_free(r);
	return err;
}
