// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms: the attributed path needs the address range of the function
 * holding the inlined sweep (register_ftrace_graph on stock kernels), and the
 * trigger's stack needs symbolizing. ~200k lines: parse once, qsort once,
 * bsearch after that.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "ksyms.h"

struct fgt_ksyms {
	struct fgt_ksym *syms;		/* by address, then file order */
	size_t n, cap;
	const struct fgt_ksym **by_name;	/* by name, then preference */
	char *names;			/* all names, NUL-separated */
	size_t names_len, names_cap;
	bool have_addrs;
};

static bool is_text(char t)
{
	return t == 't' || t == 'T';
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 4096;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * elem);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

/*
 * "ffffffff81000000 T _stext" or "ffffffffc0a01000 t foo\t[mod]": the module
 * suffix is dropped, the name is what lookups use. Returns 0 to skip the line.
 */
static int parse_line(char *line, uint64_t *addr, char *type, char **name)
{
	char *p, *end;

	*addr = strtoull(line, &end, 16);
	if (end == line || (*end != ' ' && *end != '\t'))
		return 0;
	p = end + strspn(end, " \t");
	if (!*p || (p[1] != ' ' && p[1] != '\t'))
		return 0;
	*type = p[0];
	p += 1 + strspn(p + 1, " \t");
	end = p + strcspn(p, " \t\r\n");
	if (end == p)
		return 0;
	*end = '\0';
	*name = p;
	return 1;
}

static int add_sym(struct fgt_ksyms *ks, uint64_t addr, char type, const char *name)
{
	size_t len = strlen(name) + 1;

	if (grow((void **)&ks->syms, &ks->cap, ks->n + 1, sizeof(*ks->syms)) ||
	    grow((void **)&ks->names, &ks->names_cap, ks->names_len + len, 1))
		return -ENOMEM;
	memcpy(ks->names + ks->names_len, name, len);
	/* names may still move: keep the offset, pointers are set at the end */
	ks->syms[ks->n] = (struct fgt_ksym){
		.name = (const char *)(uintptr_t)ks->names_len,
		.addr = addr, .type = type,
	};
	ks->names_len += len;
	ks->n++;
	if (addr)
		ks->have_addrs = true;
	return 0;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct fgt_ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* names are still offsets here: file order, so the sort is stable */
	return (uintptr_t)x->name < (uintptr_t)y->name ? -1 : 1;
}

/* Same name: text symbols first, then lower address (file order of aliases). */
static int cmp_name(const void *a, const void *b)
{
	const struct fgt_ksym *x = *(const struct fgt_ksym *const *)a;
	const struct fgt_ksym *y = *(const struct fgt_ksym *const *)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (is_text(x->type) != is_text(y->type))
		return is_text(x->type) ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int finish(struct fgt_ksyms *ks)
{
	size_t i, j;

	qsort(ks->syms, ks->n, sizeof(*ks->syms), cmp_addr);
	for (i = 0; i < ks->n; i++)
		ks->syms[i].name = ks->names + (uintptr_t)ks->syms[i].name;
	/* size: up to the next higher address; aliases share it; the last has none */
	for (i = 0; i < ks->n; i = j) {
		for (j = i + 1; j < ks->n && ks->syms[j].addr == ks->syms[i].addr; j++)
			;
		for (size_t k = i; k < j; k++)
			ks->syms[k].size = j < ks->n ? ks->syms[j].addr - ks->syms[i].addr : 0;
	}
	ks->by_name = malloc((ks->n ? ks->n : 1) * sizeof(*ks->by_name));
	if (!ks->by_name)
		return -ENOMEM;
	for (i = 0; i < ks->n; i++)
		ks->by_name[i] = &ks->syms[i];
	qsort(ks->by_name, ks->n, sizeof(*ks->by_name), cmp_name);
	return 0;
}

struct fgt_ksyms *fgt_ksyms_load_file(FILE *f)
{
	struct fgt_ksyms *ks = calloc(1, sizeof(*ks));
	char *line = NULL, *name, type;
	size_t cap = 0;
	uint64_t addr;
	int err = 0;

	if (!ks) {
		errno = ENOMEM;
		return NULL;
	}
	while (getline(&line, &cap, f) > 0) {
		if (parse_line(line, &addr, &type, &name) &&
		    (err = add_sym(ks, addr, type, name)))
			break;
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	if (!err)
		err = finish(ks);
	if (err) {
		fgt_ksyms_free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}

struct fgt_ksyms *fgt_ksyms_load(const char *path)
{
	struct fgt_ksyms *ks;
	FILE *f = fopen(path ? path : "/proc/kallsyms", "re");
	int err;

	if (!f)
		return NULL;
	ks = fgt_ksyms_load_file(f);
	err = errno;
	fclose(f);
	errno = err;
	return ks;
}

void fgt_ksyms_free(struct fgt_ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->by_name);
	free(ks->names);
	free(ks);
}

bool fgt_ksyms_have_addrs(const struct fgt_ksyms *ks)
{
	return ks && ks->have_addrs;
}

const struct fgt_ksym *fgt_ksyms_by_name(const struct fgt_ksyms *ks, const char *name)
{
	size_t lo = 0, hi;

	if (!ks || !name)
		return NULL;
	/* lower bound: the first of equal names is the preferred one */
	hi = ks->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ks->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ks->n && !strcmp(ks->by_name[lo]->name, name))
		return ks->by_name[lo];
	return NULL;
}

const struct fgt_ksym *fgt_ksyms_by_addr(const struct fgt_ksyms *ks, uint64_t a)
{
	size_t lo = 0, hi, first, i;
	const struct fgt_ksym *s;

	if (!ks || !ks->n || !ks->have_addrs)
		return NULL;
	/* upper bound: the first symbol above a; the one before holds it */
	hi = ks->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &ks->syms[lo - 1];
	if (a - s->addr >= s->size && !(s->size == 0 && a == s->addr))
		return NULL;
	/* aliases at one address: the first text symbol in file order */
	for (first = lo - 1; first > 0 && ks->syms[first - 1].addr == s->addr; first--)
		;
	for (i = first; i < lo; i++)
		if (is_text(ks->syms[i].type))
			return &ks->syms[i];
	return &ks->syms[first];
}

const char *fgt_ksyms_format(const struct fgt_ksyms *ks, uint64_t a, char *buf, size_t len)
{
	const struct fgt_ksym *s = fgt_ksyms_by_addr(ks, a);

	if (s)
		snprintf(buf, len, "%s+0x%" PRIx64, s->name, a - s->addr);
	else
		snprintf(buf, len, "0x%" PRIx64, a);
	return buf;
}
