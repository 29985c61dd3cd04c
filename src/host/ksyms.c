// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms: the attributed path needs the address range of the function
 * holding the inlined sweep (register_ftrace_graph on stock kernels), and the
 * trigger's stack needs symbolizing.
 *
 * 59k lines on the lab's own kernels, 94k to 199k on Debian's, kept for the whole
 * run: its memory is most of fgraphtop's own and its parse was a third of the
 * start-up. So, per symbol, in address order: the address (8 bytes),
 * where its name starts in one blob of NUL-terminated names (4) and its type
 * letter (1); sizes come from the next address when asked. The name index is
 * 4 bytes a symbol: symbol numbers sorted by a hash of the name (radix sort, no
 * string compares). The struct fgt_ksym a lookup returns exists only for the
 * few symbols looked up, made in chunks on first use, so a symbol's pointer
 * stays the same for the life of the table (lookups fill that cache: they are
 * not safe to run from two threads at once).
 *
 * Kernels built with call padding (x86, 6.2+: Debian's 6.12 and 7.2) list a
 * "__pfx_foo" right before each "foo": 57k of Debian 7.2's 199k names, 1.6 of
 * its 5.3 MB. Such a name is not stored: its offset is foo's, with NAME_PFX set.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "host/ksyms.h"

/* What one read asks for: a few dozen reads of /proc/kallsyms, not thousands. */
#define KS_READ_BUF	(256 << 10)
/* Returned structs are made this many symbols at a time. */
#define KS_CHUNK	32

/* Padding symbols: the name is PFX followed by the name at the offset. */
#define PFX		"__pfx_"
#define PFX_LEN		(sizeof(PFX) - 1)
#define NAME_PFX	(1u << 31)
#define NAME_OFF_MAX	(NAME_PFX - 1)
/* Longer names are stored as they are (the kernel's limit is 512). */
#define PFX_NAME_MAX	256

struct fgt_ksyms {
	size_t n;
	uint64_t *addr;			/* ascending; equal addresses in file order */
	uint32_t *name_off;		/* into names; NAME_PFX: a padding symbol */
	char *type;			/* kallsyms type letter */
	char *names;			/* all names, NUL-terminated */
	uint32_t *by_name;		/* symbol numbers by name hash, then text first, then address */
	struct fgt_ksym **chunks;	/* [n / KS_CHUNK]: returned structs, made on first use */
	size_t whole;			/* 0, or the kernel's count when this is a part of it */
	bool have_addrs;
};

/* The table while lines are read: file order, arrays grown by doubling. */
struct ks_build {
	uint64_t *addr;
	uint32_t *name_off;
	char *type;
	uint32_t *hash;			/* of the name, for the name index */
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	bool have_addrs;
	bool eof;			/* the last block is in */
};

static bool is_text(char t)
{
	return t == 't' || t == 'T';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * A word at a time: 8 bytes read at once, little-endian (fgraphtop builds for
 * x86). The buffers read this way have room for a word past their data.
 */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "ksyms.c reads words little-endian");

#define ONES	0x0101010101010101ull
#define HIGHS	0x8080808080808080ull

static uint64_t load8(const char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

/* High bit of each byte below c (c <= 128); exact up to the first one. */
static uint64_t bytes_below(uint64_t w, unsigned int c)
{
	return (w - ONES * c) & ~w & HIGHS;
}

/* High bit of each byte in [lo, hi], for words of bytes below 0x80. */
static uint64_t bytes_in(uint64_t w, unsigned int lo, unsigned int hi)
{
	return (w + ONES * (0x80 - lo)) & ~(w + ONES * (0x7f - hi)) & HIGHS;
}

/* 8 hex digits, the first most significant; false if one is not a hex digit. */
static inline bool hex8(uint64_t w, uint32_t *out)
{
	uint64_t v;

	if ((w & HIGHS) || (bytes_in(w, '0', '9') | bytes_in(w | ONES * 0x20, 'a', 'f')) != HIGHS)
		return false;
	/* '0'-'9': 0-9; 'a'-'f' and 'A'-'F' (bit 6 set): 1-6 + 9 */
	v = (w & ONES * 0x0f) + (w >> 6 & ONES) * 9;
	/* pack the nibbles: pairs of bytes, pairs of pairs, then the two halves */
	v = (v << 4 & 0x00f000f000f000f0ull) | (v >> 8 & 0x000f000f000f000full);
	v = (v << 8 & 0x0000ff000000ff00ull) | (v >> 16 & 0x000000ff000000ffull);
	*out = (uint32_t)((v & 0xffff) << 16 | (v >> 32 & 0xffff));
	return true;
}

/* Hex digit value + 1; 0 for anything else. */
static const unsigned char hexval[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* The name hash, a word at a time, the last one zero-padded; the parser
 * computes it as it scans a name. */
static uint64_t hash_mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ h >> 29;
}

static uint32_t hash_fold(uint64_t h)
{
	return (uint32_t)(h ^ h >> 32);
}

static uint32_t name_hash_len(const char *s, size_t len)
{
	uint64_t h = 0, w = 0;

	for (; len >= 8; s += 8, len -= 8)
		h = hash_mix(h, load8(s));
	memcpy(&w, s, len);
	return hash_fold(hash_mix(h, w));
}

static uint32_t name_hash(const char *s)
{
	return name_hash_len(s, strlen(s));
}

/* Large blocks are mmap()ed: realloc() moves them with mremap(), no copy, and
 * the room not yet written is never touched, so it costs no RSS. */
static int grow_names(struct ks_build *b, size_t need)
{
	size_t cap = b->names_cap ? b->names_cap : 1 << 16;
	char *p;

	if (need <= b->names_cap)
		return 0;
	while (cap < need)
		cap *= 2;
	p = realloc(b->names, cap);
	if (!p)
		return -ENOMEM;
	b->names = p;
	b->names_cap = cap;
	return 0;
}

static int grow_syms(struct ks_build *b)
{
	size_t cap = b->cap ? b->cap * 2 : 4096;
	uint64_t *addr;
	uint32_t *off, *hash;
	char *type;

	addr = realloc(b->addr, cap * sizeof(*addr));
	if (!addr)
		return -ENOMEM;
	b->addr = addr;
	off = realloc(b->name_off, cap * sizeof(*off));
	if (!off)
		return -ENOMEM;
	b->name_off = off;
	type = realloc(b->type, cap);
	if (!type)
		return -ENOMEM;
	b->type = type;
	hash = realloc(b->hash, cap * sizeof(*hash));
	if (!hash)
		return -ENOMEM;
	b->hash = hash;
	b->cap = cap;
	return 0;
}

/*
 * Is the last symbol "__pfx_" + name, and its name free to go? It goes when
 * it is the last name stored and no padding symbol before it points to it.
 */
static bool last_is_pfx_of(const struct ks_build *b, const char *name, size_t len)
{
	uint32_t off;

	if (!b->n || len > PFX_NAME_MAX)
		return false;
	off = b->name_off[b->n - 1];
	return !(off & NAME_PFX) && b->names_len - off == PFX_LEN + len + 1 &&
	       !memcmp(b->names + off, PFX, PFX_LEN) &&
	       !memcmp(b->names + off + PFX_LEN, name, len) &&
	       !(b->n >= 2 && b->name_off[b->n - 2] == (off | NAME_PFX));
}

static int add_sym(struct ks_build *b, uint64_t addr, char type, const char *name,
		   size_t len, uint32_t hash)
{
	/* name offsets (one bit is NAME_PFX) and symbol numbers are 32-bit */
	if (b->names_len + len + 1 > NAME_OFF_MAX || b->n >= UINT32_MAX)
		return -E2BIG;
	if (grow_names(b, b->names_len + len + 1) || (b->n == b->cap && grow_syms(b)))
		return -ENOMEM;
	if (last_is_pfx_of(b, name, len)) {
		/* foo's name goes where "__pfx_foo" was, and serves both */
		b->names_len = b->name_off[b->n - 1];
		b->name_off[b->n - 1] |= NAME_PFX;
	}
	memcpy(b->names + b->names_len, name, len);
	b->names[b->names_len + len] = '\0';
	b->addr[b->n] = addr;
	b->name_off[b->n] = (uint32_t)b->names_len;
	b->type[b->n] = type;
	b->hash[b->n] = hash;
	b->names_len += len + 1;
	b->n++;
	if (addr)
		b->have_addrs = true;
	return 0;
}

/*
 * The line at p: "ffffffff81000000 T _stext", or "ffffffffc0a01000 t foo\t[mod]".
 * The module suffix is dropped: the name is what lookups use, and it ends at
 * the first blank or control character. Lines of any other shape are skipped.
 * There is a newline at end at the latest (put there past the data). Returns
 * where the next line starts, or NULL when this one goes on past end (it is
 * read again with more data) or on failure (*err).
 */
static const char *parse_line(struct ks_build *b, const char *p, const char *end, int *err)
{
	const char *q = p, *name = NULL, *nl;
	uint64_t addr = 0, h = 0, w, m;
	uint32_t hi, lo;
	size_t len = 0;
	char type = 0;

	if (end - p > 16 && hex8(load8(p), &hi) && hex8(load8(p + 8), &lo) && is_blank(p[16])) {
		/* 16 digits, every address of a 64-bit kernel */
		addr = (uint64_t)hi << 32 | lo;
		q = p + 16;
	} else {
		for (; hexval[(unsigned char)*q]; q++)
			addr = addr << 4 | (uint64_t)(hexval[(unsigned char)*q] - 1);
		if (q == p || q - p > 16 || !is_blank(*q))
			goto next;
	}
	while (is_blank(*q))
		q++;
	if ((unsigned char)*q <= ' ' || !is_blank(q[1]))
		goto next;
	type = *q++;
	while (is_blank(*q))
		q++;
	/* the name, hashed as it is scanned; the newline at end stops it */
	for (name = q;; q += 8) {
		w = load8(q);
		m = bytes_below(w, ' ' + 1);
		if (m)
			break;
		h = hash_mix(h, w);
	}
	len = (size_t)__builtin_ctzll(m) / 8;
	h = hash_mix(h, w & ((1ull << (len * 8)) - 1));
	q += len;
	len = (size_t)(q - name);
next:
	nl = *q == '\n' ? q : memchr(q, '\n', (size_t)(end - q) + 1);
	if (nl == end && !b->eof)
		return NULL;
	if (len) {
		*err = add_sym(b, addr, type, name, len, hash_fold(h));
		if (*err)
			return NULL;
	}
	return nl + 1;
}

/*
 * Every line of f, read in large blocks (one read() each with the stream
 * unbuffered). A line as long as the block is no kallsyms line: dropped.
 */
static int read_lines(struct ks_build *b, FILE *f)
{
	/* + the newline put past the data, + a word read past that */
	char *buf = calloc(1, KS_READ_BUF + 1 + 8);
	size_t have = 0;
	bool skipping = false;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (!b->eof && !err) {
		size_t want = KS_READ_BUF - have, got = fread(buf + have, 1, want, f);
		char *end = buf + have + got;
		const char *p = buf, *next;

		b->eof = got < want;
		*end = '\n';
		if (skipping) {
			const char *nl = memchr(p, '\n', (size_t)(end - p) + 1);

			if (nl == end) {	/* still in it (or at its end, at EOF) */
				have = 0;
				continue;
			}
			p = nl + 1;
			skipping = false;
		}
		while (p < end && (next = parse_line(b, p, end, &err)))
			p = next;
		if (err || b->eof)
			break;
		have = (size_t)(end - p);
		if (have == KS_READ_BUF) {
			skipping = true;
			have = 0;
		} else {
			memmove(buf, p, have);
		}
	}
	if (!err && ferror(f))
		err = -EIO;
	free(buf);
	return err;
}

/* A symbol after the sorted run, while it is sorted. */
struct ks_pos {
	uint64_t addr;
	uint32_t idx;
};

static int cmp_pos(const void *a, const void *b)
{
	const struct ks_pos *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Shrink a block to what it holds; keep it as it is if that fails. */
static void *fit(void *p, size_t size)
{
	void *np = realloc(p, size ? size : 1);

	return np ? np : p;
}

/*
 * Address order, equal addresses in file order; *hash gets the name hashes in
 * that order. /proc/kallsyms lists vmlinux already sorted, then modules and BPF
 * programs in their own order: only what follows the sorted run is sorted,
 * then merged with it.
 */
static int sort_by_addr(struct fgt_ksyms *ks, struct ks_build *b, uint32_t **hash)
{
	size_t n = b->n, run = 1, i, j, k;
	struct ks_pos *rest = NULL;
	int err = -ENOMEM;

	while (run < n && b->addr[run] >= b->addr[run - 1])
		run++;
	if (run >= n) {
		/* already sorted: keep the arrays, without their spare room */
		ks->addr = fit(b->addr, n * sizeof(*ks->addr));
		ks->name_off = fit(b->name_off, n * sizeof(*ks->name_off));
		ks->type = fit(b->type, n);
		*hash = b->hash;
		b->addr = NULL;
		b->name_off = NULL;
		b->type = NULL;
		b->hash = NULL;
		return 0;
	}
	ks->addr = malloc(n * sizeof(*ks->addr));
	ks->name_off = malloc(n * sizeof(*ks->name_off));
	ks->type = malloc(n);
	*hash = malloc(n * sizeof(**hash));
	rest = malloc((n - run) * sizeof(*rest));
	if (!ks->addr || !ks->name_off || !ks->type || !*hash || !rest)
		goto cleanup;
	for (i = run; i < n; i++)
		rest[i - run] = (struct ks_pos){ .addr = b->addr[i], .idx = (uint32_t)i };
	qsort(rest, n - run, sizeof(*rest), cmp_pos);
	/* merge; on equal addresses the sorted run's symbol came first in the file */
	for (i = 0, j = 0, k = 0; k < n; k++) {
		size_t from;

		if (j == n - run || (i < run && b->addr[i] <= rest[j].addr))
			from = i++;
		else
			from = rest[j++].idx;
		ks->addr[k] = b->addr[from];
		ks->name_off[k] = b->name_off[from];
		ks->type[k] = b->type[from];
		(*hash)[k] = b->hash[from];
	}
	err = 0;
cleanup:
	free(rest);
	return err;
}

/*
 * The name index: (hash << 32 | symbol) keys, text symbols first, each group in
 * address order, then a stable LSD radix sort on the hash. The first entry of
 * a name is then its preferred symbol: text, then lowest address, then file order.
 */
static int index_names(struct fgt_ksyms *ks, uint32_t **hash)
{
	static const int bits[] = { 11, 11, 10 };
	uint64_t *key = malloc((ks->n ? ks->n : 1) * sizeof(*key)), *tmp = NULL;
	size_t i, k = 0, count[1 << 11];
	int pass, shift = 32, err = -ENOMEM;

	if (!key)
		goto cleanup;
	for (int text = 1; text >= 0; text--)
		for (i = 0; i < ks->n; i++)
			if (is_text(ks->type[i]) == text)
				key[k++] = (uint64_t)(*hash)[i] << 32 | i;
	free(*hash);	/* before tmp: they do not stack */
	*hash = NULL;
	tmp = malloc((ks->n ? ks->n : 1) * sizeof(*tmp));
	if (!tmp)
		goto cleanup;
	for (pass = 0; pass < 3; pass++) {
		uint64_t *t;
		size_t mask = ((size_t)1 << bits[pass]) - 1, sum = 0;

		memset(count, 0, sizeof(count));
		for (i = 0; i < ks->n; i++)
			count[key[i] >> shift & mask]++;
		for (i = 0; i <= mask; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < ks->n; i++)
			tmp[count[key[i] >> shift & mask]++] = key[i];
		t = key;
		key = tmp;
		tmp = t;
		shift += bits[pass];
	}
	free(tmp);
	tmp = NULL;
	ks->by_name = malloc((ks->n ? ks->n : 1) * sizeof(*ks->by_name));
	if (!ks->by_name)
		goto cleanup;
	for (i = 0; i < ks->n; i++)
		ks->by_name[i] = (uint32_t)key[i];
	err = 0;
cleanup:
	free(key);
	free(tmp);
	return err;
}

static void build_free(struct ks_build *b)
{
	free(b->addr);
	free(b->name_off);
	free(b->type);
	free(b->hash);
	free(b->names);
	memset(b, 0, sizeof(*b));
}

/* The table from what was read (or made): sorted, indexed; b is freed. */
static struct fgt_ksyms *finish(struct ks_build *b, int err)
{
	struct fgt_ksyms *ks = err ? NULL : calloc(1, sizeof(*ks));
	uint32_t *hash = NULL;

	if (!err && !ks)
		err = -ENOMEM;
	if (err)
		goto cleanup;
	ks->n = b->n;
	ks->have_addrs = b->have_addrs;
	ks->names = fit(b->names, b->names_len);
	b->names = NULL;
	err = sort_by_addr(ks, b, &hash);
	if (err)
		goto cleanup;
	/* the file-order arrays go before the index is built: they do not stack */
	build_free(b);
	err = index_names(ks, &hash);
	if (err)
		goto cleanup;
	ks->chunks = calloc(ks->n / KS_CHUNK + 1, sizeof(*ks->chunks));
	if (!ks->chunks)
		err = -ENOMEM;
cleanup:
	build_free(b);
	free(hash);
	if (err) {
		fgt_ksyms_free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}

struct fgt_ksyms *fgt_ksyms_load_file(FILE *f)
{
	struct ks_build b = {};

	return finish(&b, read_lines(&b, f));
}

struct fgt_ksyms *fgt_ksyms_from(const struct fgt_ksym *syms, size_t n)
{
	struct ks_build b = {};
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		const char *name = syms[i].name;
		size_t len = 0;

		/* what parse_line() would take of the line "addr type name" */
		while ((unsigned char)name[len] > ' ')
			len++;
		if (len && (unsigned char)syms[i].type > ' ')
			err = add_sym(&b, syms[i].addr, syms[i].type, name, len, name_hash_len(name, len));
	}
	return finish(&b, err);
}

struct fgt_ksyms *fgt_ksyms_load(const char *path)
{
	struct fgt_ksyms *ks;
	FILE *f = fopen(path ? path : "/proc/kallsyms", "re");
	int err;

	if (!f)
		return NULL;
	/* read_lines() asks for large blocks: let them go straight to read() */
	setvbuf(f, NULL, _IONBF, 0);
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
	for (size_t c = 0; ks->chunks && c <= ks->n / KS_CHUNK; c++) {
		struct fgt_ksym *chunk = ks->chunks[c];

		/* padding symbols' names were made for their struct */
		for (size_t k = 0; chunk && k < KS_CHUNK; k++)
			if (chunk[k].name && (ks->name_off[c * KS_CHUNK + k] & NAME_PFX))
				free((char *)chunk[k].name);
		free(chunk);
	}
	free(ks->chunks);
	free(ks->addr);
	free(ks->name_off);
	free(ks->type);
	free(ks->names);
	free(ks->by_name);
	free(ks);
}

bool fgt_ksyms_have_addrs(const struct fgt_ksyms *ks)
{
	return ks && ks->have_addrs;
}

size_t fgt_ksyms_count(const struct fgt_ksyms *ks)
{
	return !ks ? 0 : ks->whole ? ks->whole : ks->n;
}

void fgt_ksyms_set_whole(struct fgt_ksyms *ks, size_t n)
{
	ks->whole = n;
}

bool fgt_ksyms_is_part(const struct fgt_ksyms *ks)
{
	return ks && ks->whole;
}

bool fgt_ksyms_sane(const struct fgt_ksyms *ks, char *why, size_t len)
{
	bool stext = fgt_ksyms_by_name(ks, "_stext"), etext = fgt_ksyms_by_name(ks, "_etext");
	size_t n = fgt_ksyms_count(ks);

	if (stext && etext && n >= FGT_KSYMS_MIN)
		return true;
	snprintf(why, len, "/proc/kallsyms looks masked or truncated (%zu symbols%s%s)", n,
		 stext ? "" : ", no _stext", etext ? "" : ", no _etext");
	return false;
}

/* Up to the next higher address; aliases share it; the last has none (0). */
static uint64_t size_of(const struct fgt_ksyms *ks, size_t i)
{
	size_t j = i + 1;

	while (j < ks->n && ks->addr[j] == ks->addr[i])
		j++;
	return j < ks->n ? ks->addr[j] - ks->addr[i] : 0;
}

/* Symbol i's stored name: without its "__pfx_" if it is a padding symbol. */
static const char *stored_name(const struct fgt_ksyms *ks, size_t i)
{
	return ks->names + (ks->name_off[i] & ~NAME_PFX);
}

static bool is_pfx(const struct fgt_ksyms *ks, size_t i)
{
	return ks->name_off[i] & NAME_PFX;
}

static uint32_t sym_hash(const struct fgt_ksyms *ks, size_t i)
{
	char buf[PFX_LEN + PFX_NAME_MAX + 1];

	if (!is_pfx(ks, i))
		return name_hash(stored_name(ks, i));
	/* stored names of padding symbols are at most PFX_NAME_MAX long */
	memcpy(buf, PFX, PFX_LEN);
	strcpy(buf + PFX_LEN, stored_name(ks, i));
	return name_hash(buf);
}

static bool sym_is(const struct fgt_ksyms *ks, size_t i, const char *name)
{
	if (is_pfx(ks, i))
		return !strncmp(name, PFX, PFX_LEN) && !strcmp(name + PFX_LEN, stored_name(ks, i));
	return !strcmp(name, stored_name(ks, i));
}

/* Symbol i as a struct fgt_ksym, made on first use and kept. */
static const struct fgt_ksym *sym_at(const struct fgt_ksyms *ks, size_t i)
{
	struct fgt_ksym **chunk = &ks->chunks[i / KS_CHUNK], *s;
	const char *stored = stored_name(ks, i);

	if (!*chunk) {
		*chunk = calloc(KS_CHUNK, sizeof(**chunk));
		if (!*chunk)
			return NULL;
	}
	s = &(*chunk)[i % KS_CHUNK];
	if (s->name)
		return s;
	if (is_pfx(ks, i)) {
		/* the one name made for its struct (fgt_ksyms_free() frees it) */
		size_t len = strlen(stored);
		char *name = malloc(PFX_LEN + len + 1);

		if (!name)
			return NULL;
		memcpy(name, PFX, PFX_LEN);
		memcpy(name + PFX_LEN, stored, len + 1);
		s->name = name;
	} else {
		s->name = stored;
	}
	s->addr = ks->addr[i];
	s->size = size_of(ks, i);
	s->type = ks->type[i];
	return s;
}

size_t fgt_ksyms_len(const struct fgt_ksyms *ks)
{
	return ks ? ks->n : 0;
}

const struct fgt_ksym *fgt_ksyms_nth(const struct fgt_ksyms *ks, size_t i)
{
	return ks && i < ks->n ? sym_at(ks, i) : NULL;
}

const struct fgt_ksym *fgt_ksyms_by_name(const struct fgt_ksyms *ks, const char *name)
{
	size_t lo = 0, hi;
	uint32_t h;

	if (!ks || !name)
		return NULL;
	h = name_hash(name);
	/* lower bound of the hash; the first of equal names is the preferred one */
	hi = ks->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sym_hash(ks, ks->by_name[mid]) < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ks->n && sym_hash(ks, ks->by_name[lo]) == h; lo++)
		if (sym_is(ks, ks->by_name[lo], name))
			return sym_at(ks, ks->by_name[lo]);
	return NULL;
}

const struct fgt_ksym *fgt_ksyms_by_addr(const struct fgt_ksyms *ks, uint64_t a)
{
	size_t lo = 0, hi, first, i;
	uint64_t size;

	if (!ks || !ks->n || !ks->have_addrs)
		return NULL;
	/* upper bound: the first symbol above a; the one before holds it */
	hi = ks->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->addr[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	size = size_of(ks, lo - 1);
	if (a - ks->addr[lo - 1] >= size && !(size == 0 && a == ks->addr[lo - 1]))
		return NULL;
	/* aliases at one address: the first text symbol in file order */
	for (first = lo - 1; first > 0 && ks->addr[first - 1] == ks->addr[lo - 1]; first--)
		;
	for (i = first; i < lo; i++)
		if (is_text(ks->type[i]))
			return sym_at(ks, i);
	return sym_at(ks, first);
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
