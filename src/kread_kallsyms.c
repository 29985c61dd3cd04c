// SPDX-License-Identifier: GPL-2.0
/*
 * The kallsyms tables a kernel image carries (CONFIG_KALLSYMS), read without
 * the kernel's help: what makes a distribution's vmlinuz enough, where its
 * System.map is a placeholder and its vmlinux (extracted from the bzImage)
 * has no .symtab.
 *
 * scripts/kallsyms.c writes, into .rodata, in an order that changed:
 *   6.1 (Debian's 6.1 has kallsyms_seqs_of_names, upstream's from 6.2):
 *     offsets[N], relative_base, num_syms, names, markers, seqs_of_names[3N],
 *     token_table, token_index
 *   6.12: num_syms, names, markers, token_table, token_index, offsets[N],
 *     relative_base, seqs_of_names
 *   7.x: the same without relative_base: offsets are PC-relative (the entry's
 *     address + its value)
 * with offsets read as (x86-64, CONFIG_KALLSYMS_ABSOLUTE_PERCPU up to 6.14)
 * "v >= 0 ? v : relative_base - 1 - v", or relative_base + (u32)v, or
 * PC-relative. names: per symbol a length (ULEB128, two bytes for "big"
 * symbols since 6.1) then that many token indexes; token_table: 256
 * NUL-terminated strings, token_index their offsets; markers: the offset in
 * names of every 256th symbol. The first character of a name is its type.
 *
 * So, independently of the order:
 *  1. the token table: the single-character tokens "0".."9" sit at indexes
 *     0x30..0x39 (every digit occurs in some name, so each is its own token),
 *     which places the table; token_index must follow it and match;
 *  2. markers: an increasing array of u32 from 0, ending right before the
 *     token table or before seqs_of_names (3N bytes);
 *  3. names and num_syms: the N whose names, parsed from just after it, hit
 *     every marker and end at the markers;
 *  4. offsets: each candidate place and reading, kept if _text comes out at
 *     the image's .text address and the addresses come out sorted (the
 *     tables are in address order).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kread.h"

#define NTOK		256
#define TOK_MAX		64		/* longer tokens are not the kernel's */
#define NAME_MAX_LEN	512		/* KSYM_NAME_LEN */
#define BLOCK_MAX	(256u * 256u)	/* bytes per 256 names, at most, in practice */

struct kas {
	const uint8_t *d;		/* the image */
	size_t lo, hi;			/* where to look (.rodata, or all of it) */
	size_t tt, ti;			/* token table, token index */
	uint16_t tok_off[NTOK];
	uint8_t tok_len[NTOK];
	size_t markers;			/* offset of markers[0] */
	uint32_t nr_markers;
	size_t names, num_pos;		/* names, num_syms */
	uint32_t n;
};

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static bool printable(uint8_t c)
{
	return c >= 0x20 && c < 0x7f;
}

/* The table starting at p: 256 non-empty printable strings; index right after. */
static bool token_table_at(struct kas *k, size_t p)
{
	size_t q = p, end;
	uint16_t off = 0;

	for (int i = 0; i < NTOK; i++) {
		size_t s = q;

		while (q < k->hi && k->d[q] && printable(k->d[q]) && q - s < TOK_MAX)
			q++;
		if (q >= k->hi || k->d[q] || q == s)
			return false;
		k->tok_off[i] = off;
		k->tok_len[i] = (uint8_t)(q - s);
		off = (uint16_t)(off + (q - s) + 1);
		q++;
	}
	end = q;
	/* token_index: 256 u16, at the next 2-, 4- or 8-byte boundary */
	for (size_t ti = (end + 1) & ~(size_t)1; ti <= end + 8 && ti + 2 * NTOK <= k->hi; ti += 2) {
		bool ok = true;

		for (int i = 0; i < NTOK && ok; i++)
			ok = (uint16_t)(k->d[ti + 2 * i] | k->d[ti + 2 * i + 1] << 8) == k->tok_off[i];
		if (ok) {
			k->tt = p;
			k->ti = ti;
			return true;
		}
	}
	return false;
}

static int find_tokens(struct kas *k)
{
	static const char digits[] = "0\0001\0002\0003\0004\0005\0006\0007\0008\0009";
	const size_t dl = sizeof(digits);	/* with the last NUL */
	const uint8_t *at = k->d + k->lo;

	while ((at = memmem(at, (size_t)(k->d + k->hi - at), digits, dl))) {
		size_t p = (size_t)(at - k->d);
		bool ok = true;

		/* back over the 0x30 tokens before "0" */
		for (int i = 0; i < 0x30 && ok; i++) {
			size_t q;

			if (p < k->lo + 2 || k->d[p - 1] || !k->d[p - 2]) {
				ok = false;
				break;
			}
			q = p - 2;
			while (q > k->lo && k->d[q - 1] && printable(k->d[q]) && p - q < TOK_MAX)
				q--;
			ok = printable(k->d[q]);
			p = q;
		}
		if (ok && token_table_at(k, p))
			return 0;
		at++;
	}
	return -1;
}

/* markers[] ending at e (exclusive): count, or 0 if none ends there. */
static uint32_t markers_ending(const struct kas *k, size_t e, size_t *start)
{
	uint32_t count = 0, v;
	size_t p = e;

	if (e < k->lo + 8)
		return 0;
	v = rd32(k->d + e - 4);
	if (!v)
		return 0;
	for (p = e - 4;; p -= 4) {
		uint32_t cur = rd32(k->d + p), prev;

		count++;
		if (!cur)
			break;
		if (p < k->lo + 4)
			return 0;
		prev = rd32(k->d + p - 4);
		if (prev >= cur || cur - prev < 512 || cur - prev > BLOCK_MAX)
			return 0;
	}
	*start = p;
	return count;
}

/* One name entry at p: its token count and where the next begins; false if bad. */
static bool entry_at(const struct kas *k, size_t p, size_t *len, size_t *next)
{
	size_t l;

	if (p >= k->hi)
		return false;
	l = k->d[p++];
	if (l & 0x80) {
		if (p >= k->hi)
			return false;
		l = (l & 0x7f) | (size_t)k->d[p++] << 7;
	}
	if (!l || p + l > k->hi)
		return false;
	*len = l;
	*next = p + l;
	return true;
}

/* Do N names from s hit every marker and end (padding aside) at the markers? */
static bool names_fit(const struct kas *k, size_t s, uint32_t n)
{
	size_t p = s, len, next;

	for (uint32_t i = 0; i < n; i++) {
		if (!(i & 0xff) && rd32(k->d + k->markers + 4 * (i >> 8)) != p - s)
			return false;
		if (!entry_at(k, p, &len, &next))
			return false;
		p = next;
	}
	if (p > k->markers || k->markers - p > 7)
		return false;
	for (; p < k->markers; p++)
		if (k->d[p])
			return false;
	return true;
}

/* names begin right after num_syms (4 bytes, 4- or 8-aligned before them). */
static bool find_names(struct kas *k)
{
	uint32_t last = rd32(k->d + k->markers + 4 * (k->nr_markers - 1));
	size_t top, bottom;

	if (k->markers < k->lo + last + 8)
		return false;
	top = k->markers - last;
	bottom = top > k->lo + BLOCK_MAX + 16 ? top - BLOCK_MAX - 16 : k->lo + 8;
	for (size_t s = top - 1; s >= bottom; s--) {
		for (size_t gap = 4; gap <= 8; gap += 4) {
			size_t np = s - gap;
			uint32_t n;

			if (np % 4)
				continue;
			n = rd32(k->d + np);
			if (!n || (n + 255) / 256 != k->nr_markers)
				continue;
			if (gap == 8 && rd32(k->d + np + 4))
				continue;	/* the padding after an 8-aligned num_syms */
			if (names_fit(k, s, n)) {
				k->names = s;
				k->num_pos = np;
				k->n = n;
				return true;
			}
		}
	}
	return false;
}

static int find_markers_and_names(struct kas *k)
{
	size_t floor = k->tt > k->lo + 3 * (1u << 24) ? k->tt - 3 * (1u << 24) : k->lo;

	for (size_t e = k->tt & ~(size_t)3; e > floor + 8; e -= 4) {
		size_t start;
		uint32_t m = markers_ending(k, e, &start);
		size_t gap = k->tt - e;

		if (m < 4)
			continue;
		/* right before the table, or before seqs_of_names (3N bytes, padded) */
		if (gap > 8 && (gap < 3u * 256 * (m - 1) || gap > 3u * 256 * m + 16))
			continue;
		k->markers = start;
		k->nr_markers = m;
		if (find_names(k))
			return 0;
	}
	return -1;
}

/* A file offset of the image as a kernel address (PC-relative offsets). */
static uint64_t vaddr_of(const struct fgt_kimage *im, size_t off)
{
	for (unsigned int i = 0; i < im->nr_segs; i++)
		if (off >= im->seg[i].off && off - im->seg[i].off < im->seg[i].filesz)
			return im->seg[i].vaddr + (off - im->seg[i].off);
	return 0;
}

enum mode { M_ABS_PERCPU, M_REL, M_PCREL, M__NR };

struct reading {
	size_t pos;			/* offsets[] */
	uint64_t base;			/* relative_base (not for M_PCREL) */
	enum mode mode;
};

static uint64_t addr_of(const struct fgt_kimage *im, const struct kas *k, const struct reading *r,
			uint32_t i)
{
	int32_t v = (int32_t)rd32(k->d + r->pos + 4 * (size_t)i);

	switch (r->mode) {
	case M_ABS_PERCPU:
		return v >= 0 ? (uint64_t)v : r->base - 1 - (uint64_t)(int64_t)v;
	case M_REL:
		return r->base + (uint32_t)v;
	default:
		return vaddr_of(im, r->pos + 4 * (size_t)i) + (uint64_t)(int64_t)v;
	}
}

/* Decode name i (from the entry at p) into buf; the next entry in *next. */
static bool expand(const struct kas *k, size_t p, char *buf, size_t *next)
{
	size_t len, o = 0, q;

	if (!entry_at(k, p, &len, next))
		return false;
	q = *next - len;
	for (size_t j = 0; j < len; j++) {
		uint8_t t = k->d[q + j];

		if (o + k->tok_len[t] >= NAME_MAX_LEN)
			return false;
		memcpy(buf + o, k->d + k->tt + k->tok_off[t], k->tok_len[t]);
		o += k->tok_len[t];
	}
	buf[o] = '\0';
	return o >= 2;
}

/* Which reading puts _text at the .text address and the table in order? */
static bool reading_ok(const struct fgt_kimage *im, const struct kas *k, const struct reading *r,
		       uint32_t text_idx, uint64_t want)
{
	uint64_t prev = 0;
	uint32_t unsorted = 0;

	if (r->pos < k->lo || r->pos + 4 * (size_t)k->n > k->hi)
		return false;
	if (addr_of(im, k, r, text_idx) != want)
		return false;
	for (uint32_t i = 0; i < k->n; i++) {
		uint64_t a = addr_of(im, k, r, i);

		unsorted += a < prev;
		prev = a;
	}
	return unsorted <= k->n / 100;
}

static int choose_reading(const struct fgt_kimage *im, const struct kas *k, uint32_t text_idx,
			  struct reading *out)
{
	size_t after_index = k->ti + 2 * NTOK, cand[3];
	uint64_t want = im->text_addr;

	if (!want)
		for (unsigned int i = 0; i < im->nr_segs; i++)
			if (im->seg[i].vaddr >= 0xffff800000000000ull) {
				want = im->seg[i].vaddr;
				break;
			}
	/* offsets before relative_base before num_syms (6.1), or after token_index */
	cand[0] = k->num_pos >= 8 + 4 * (size_t)k->n ?
		  ((k->num_pos - 8) - 4 * (size_t)k->n) & ~(size_t)7 : 0;
	cand[1] = (after_index + 7) & ~(size_t)7;
	cand[2] = (after_index + 3) & ~(size_t)3;
	for (int c = 0; c < 3; c++) {
		size_t base_pos = c == 0 ? k->num_pos - 8 :
				  (cand[c] + 4 * (size_t)k->n + 7) & ~(size_t)7;

		if (!cand[c])
			continue;
		for (int m = 0; m < M__NR; m++) {
			struct reading r = { cand[c], 0, (enum mode)m };

			if (m != M_PCREL) {
				if (base_pos + 8 > k->hi)
					continue;
				r.base = rd64(k->d + base_pos);
			}
			if (reading_ok(im, k, &r, text_idx, want)) {
				*out = r;
				return 0;
			}
		}
	}
	return -1;
}

int fgt_kallsyms_extract(const struct fgt_kimage *im, char **text, size_t *text_len,
			 size_t *nr_syms, char *msg, size_t len)
{
	struct kas k = { .d = im->data, .lo = 0, .hi = im->size };
	const void *ro;
	size_t ro_len, p, next;
	uint32_t text_idx = UINT32_MAX;
	struct reading r;
	char name[NAME_MAX_LEN];
	FILE *f;

	*text = NULL;
	if (!im->data) {
		snprintf(msg, len, "no image in memory");
		return -1;
	}
	ro = fgt_kimage_section(im, ".rodata", &ro_len);
	if (ro) {
		k.lo = (size_t)((const uint8_t *)ro - im->data);
		k.hi = k.lo + ro_len;
	}
	if (find_tokens(&k)) {
		snprintf(msg, len, "no kallsyms token table in it (CONFIG_KALLSYMS off?)");
		return -1;
	}
	if (find_markers_and_names(&k)) {
		snprintf(msg, len, "a kallsyms token table, but no names and markers matching it");
		return -1;
	}
	for (size_t i = 0, q = k.names; i < k.n; i++) {
		if (!expand(&k, q, name, &p))
			break;
		if (!strcmp(name + 1, "_text")) {
			text_idx = (uint32_t)i;
			break;
		}
		q = p;
	}
	if (text_idx == UINT32_MAX || choose_reading(im, &k, text_idx, &r)) {
		snprintf(msg, len, "kallsyms names (%u), but no address table that puts _text at .text",
			 k.n);
		return -1;
	}
	f = open_memstream(text, text_len);
	if (!f) {
		snprintf(msg, len, "%s", strerror(errno));
		return -1;
	}
	p = k.names;
	for (uint32_t i = 0; i < k.n; i++) {
		if (!expand(&k, p, name, &next))
			break;
		fprintf(f, "%016" PRIx64 " %c %s\n", addr_of(im, &k, &r, i), name[0], name + 1);
		p = next;
	}
	fclose(f);
	*nr_syms = k.n;
	return 0;
}
