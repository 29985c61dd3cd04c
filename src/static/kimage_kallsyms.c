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
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "static/kimage.h"
#include "static/kimage_elf.h"
#include "static/kimage_kallsyms.h"
#include "static/kimage_kcore.h"
#include "common/log.h"

#define NTOK		256
#define TOK_MAX		64		/* longer tokens are not the kernel's */
#define NAME_MAX_LEN	512		/* KSYM_NAME_LEN */
#define BLOCK_MAX	(256u * 256u)	/* bytes per 256 names, at most, in practice */

struct kas {
	const uint8_t *d;		/* the image, or its .rodata */
	size_t lo, hi;			/* where to look (.rodata, or all of it) */
	uint64_t va0;			/* d[lo]'s kernel address when d is .rodata; else 0 */
	const struct fgt_kimage *im;
	/* the search's cost: bounded by the input's size (src/static/kimage.h) */
	uint64_t work;			/* steps left */
	int64_t tick;			/* steps until the next look at im->stop */
	bool over, stopped;
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

/*
 * n more steps of the search: false once its budget is spent or a stop
 * came. Every loop of the search pays here, so that a hostile image costs
 * at most FGT_KALLSYMS_WORK_PER_BYTE steps per byte searched (a real one
 * costs a few: docs/static.md) and a SIGTERM ends it within a second.
 */
static bool spend(struct kas *k, uint64_t n)
{
	if (k->over || k->stopped)
		return false;
	if (n > k->work) {
		k->over = true;
		return false;
	}
	k->work -= n;
	k->tick -= (int64_t)n;
	if (k->tick <= 0) {
		k->tick = 1 << 20;
		if (k->im && fgt_kimage_stopped(k->im)) {
			k->stopped = true;
			return false;
		}
	}
	return true;
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
		if (!spend(k, 1 + q - s) || q >= k->hi || k->d[q] || q == s)
			return false;
		k->tok_off[i] = off;
		k->tok_len[i] = (uint8_t)(q - s);
		off = (uint16_t)(off + (q - s) + 1);
		q++;
	}
	end = q;
	/* token_index: 256 u16, at the next 2-, 4- or 8-byte boundary */
	for (size_t ti = (end + 1) & ~(size_t)1; ti <= end + 8 && ti + 2 * NTOK <= k->hi; ti += 2) {
		bool ok = spend(k, NTOK);

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
		bool ok = spend(k, 1);

		/* back over the 0x30 tokens before "0" */
		for (int i = 0; i < 0x30 && ok; i++) {
			size_t q;

			if (p < k->lo + 2 || k->d[p - 1] || !k->d[p - 2]) {
				ok = false;
				break;
			}
			q = p - 2;
			/*
			 * Token 0, the table's first: nothing need end before it.
			 * On 6.1 kallsyms_seqs_of_names sits right in front with
			 * no NUL between (the lab's 6.1 ends it with a printable
			 * ')'): try each start of the printable run, and take the
			 * one the token index confirms.
			 */
			if (i == 0x2f) {
				for (;;) {
					if (token_table_at(k, q))
						return 0;
					if (q == k->lo || !printable(k->d[q - 1]) || p - q >= TOK_MAX)
						break;
					q--;
				}
				ok = false;
				break;
			}
			while (q > k->lo && k->d[q - 1] && printable(k->d[q]) && p - q < TOK_MAX)
				q--;
			ok = spend(k, 1 + p - q) && printable(k->d[q]);
			p = q;
		}
		if (ok && token_table_at(k, p))
			return 0;
		at++;
	}
	return -1;
}

/* markers[] ending at e (exclusive): count, or 0 if none ends there. */
static uint32_t markers_ending(struct kas *k, size_t e, size_t *start)
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

		if (!spend(k, 1))
			return 0;
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
static bool names_fit(struct kas *k, size_t s, uint32_t n)
{
	size_t p = s, len, next;

	for (uint32_t i = 0; i < n; i++) {
		if (!spend(k, 1))
			return false;
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
	for (size_t s = top - 1; s >= bottom && spend(k, 1); s--) {
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

	for (size_t e = k->tt & ~(size_t)3; e > floor + 8 && spend(k, 1); e -= 4) {
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

/* A place in what is searched as a kernel address (PC-relative offsets):
 * from .rodata's address, or through the segments for a whole image. */
static uint64_t vaddr_of(const struct fgt_kimage *im, const struct kas *k, size_t off)
{
	if (k->va0)
		return k->va0 + (off - k->lo);
	for (unsigned int i = 0; i < im->nr_segs; i++)
		if (off >= im->seg[i].off && off - im->seg[i].off < im->seg[i].filesz)
			return im->seg[i].vaddr + (off - im->seg[i].off);
	return 0;
}

/* ---- the tables, wherever they were read from -------------------------------- */

enum mode { M_ABS_PERCPU, M_REL, M_PCREL, M__NR };

struct ktab {
	uint32_t n;
	const uint8_t *names;		/* the names stream */
	size_t names_len;
	const uint8_t *tok;		/* the token table */
	uint16_t tok_off[NTOK];
	uint8_t tok_len[NTOK];
	const uint8_t *offsets;		/* offsets[n], little-endian 32-bit */
	uint64_t offsets_va;		/* the kernel address of offsets[0] */
	enum mode mode;
	uint64_t base;			/* relative_base (not for M_PCREL) */
};

static uint64_t ktab_addr(const struct ktab *t, uint32_t i)
{
	int32_t v = (int32_t)rd32(t->offsets + 4 * (size_t)i);

	switch (t->mode) {
	case M_ABS_PERCPU:
		return v >= 0 ? (uint64_t)v : t->base - 1 - (uint64_t)(int64_t)v;
	case M_REL:
		return t->base + (uint32_t)v;
	default:
		return t->offsets_va + 4 * (uint64_t)i + (uint64_t)(int64_t)v;
	}
}

/* The entry at p of the names stream: its token count and the next entry. */
static bool ktab_entry(const struct ktab *t, size_t p, size_t *len, size_t *next)
{
	size_t l;

	if (p >= t->names_len)
		return false;
	l = t->names[p++];
	if (l & 0x80) {
		if (p >= t->names_len)
			return false;
		l = (l & 0x7f) | (size_t)t->names[p++] << 7;
	}
	if (!l || p + l > t->names_len)
		return false;
	*len = l;
	*next = p + l;
	return true;
}

/* The name of the entry at p (type letter first) into buf; the next entry. */
static bool ktab_expand(const struct ktab *t, size_t p, char *buf, size_t *next)
{
	size_t len, o = 0, q;

	if (!ktab_entry(t, p, &len, next))
		return false;
	q = *next - len;
	for (size_t j = 0; j < len; j++) {
		uint8_t c = t->names[q + j];

		if (o + t->tok_len[c] >= NAME_MAX_LEN)
			return false;
		memcpy(buf + o, t->tok + t->tok_off[c], t->tok_len[c]);
		o += t->tok_len[c];
	}
	buf[o] = '\0';
	return o >= 2;
}

/*
 * Does this reading put symbol idx at want, and the table in address order?
 * How many entries are out of order (at most 1 %), or -1. The caller takes the
 * reading with the fewest: a table read one entry late (offsets 4 bytes
 * on, where _text's neighbour is its alias _stext, so _text still reads
 * right) is out of order only at its last entry, read past the table, and
 * a lab build whose layout made it the first candidate had every name paired
 * with the next symbol's address (register_ftrace_graph read at
 * unregister_ftrace_graph's).
 */
static long ktab_reading(const struct ktab *t, uint32_t idx, uint64_t want)
{
	uint64_t prev = 0;
	uint32_t unsorted = 0;

	if (ktab_addr(t, idx) != want)
		return -1;
	for (uint32_t i = 0; i < t->n; i++) {
		uint64_t a = ktab_addr(t, i);

		unsorted += a < prev;
		prev = a;
	}
	return unsorted <= t->n / 100 ? (long)unsorted : -1;
}

/* The index of the first entry named name (without its type letter). */
static long ktab_find(const struct ktab *t, const char *name)
{
	char buf[NAME_MAX_LEN];
	size_t p = 0, next;

	for (uint32_t i = 0; i < t->n; i++, p = next) {
		if (!ktab_expand(t, p, buf, &next))
			return -1;
		if (!strcmp(buf + 1, name))
			return i;
	}
	return -1;
}

/*
 * Where _text must come out. A raw image (an arm64 Image: no ELF header
 * says where it is linked) is placed only provisionally: a reading whose
 * addresses are absolute (relative_base) may put _text at any page of the
 * kernel's half, and then places the image (fgt_kimage_place); PC-relative
 * ones agree with the provisional place by construction.
 */
static uint64_t reading_want(const struct fgt_kimage *im, const struct ktab *t, uint32_t idx,
			     uint64_t off, uint64_t want)
{
	uint64_t a;

	if (!im->va_free || t->mode == M_PCREL)
		return want;
	a = ktab_addr(t, idx);
	return a >= off && a - off >= fgt_arch_facts[im->arch].kernel_lo && !((a - off) & 0xfff) ?
	       a : want;
}

/*
 * relative_base in a raw arm64 Image reads 0: the kernel is linked as a PIE
 * with --no-apply-dynamic-relocs (arch/arm64/Makefile), so the 8 bytes of
 * `.quad` kallsyms_relative_base hold nothing and its value is the addend
 * of an R_AARCH64_RELATIVE entry in .rela.dyn (24 bytes: r_offset, r_info
 * 1027, r_addend) whose r_offset is that place's link address. The image's
 * link address L is not known either, so an entry counts only where both
 * agree: L = r_offset - at is page aligned in the kernel's half, and the
 * base it gives is L itself or L + _stext's offset (the table's lowest
 * symbol: _text, or _stext where kallsyms holds text only). One pass over
 * the image, paid from the search's budget; 0 if none.
 */
#define R_AARCH64_RELATIVE	1027

static uint64_t rela_base(struct kas *k, size_t at)
{
	const uint64_t lo = fgt_arch_facts[FGT_ARCH_ARM64].kernel_lo;
	uint64_t soff = k->im ? k->im->stext_off : 0;

	for (size_t o = k->lo; o + 24 <= k->hi; o += 8) {
		uint64_t r_off, l, add;

		if ((o & 0xffff) == 0 && !spend(k, 0x10000 / 8))
			return 0;
		if (rd64(k->d + o + 8) != R_AARCH64_RELATIVE)
			continue;
		r_off = rd64(k->d + o);
		add = rd64(k->d + o + 16);
		l = r_off - at;
		if (r_off < at || l < lo || (l & 0xfff))
			continue;
		if (add == l || (soff && add == l + soff))
			return add;
	}
	return 0;
}

/*
 * Place the offsets and pick the reading, among the layouts of the file header
 * comment: of those that pass, the one with the fewest entries out of order,
 * and of equals the one placed first. A reading one entry late (the 8-aligned
 * place 4 bytes after a 4-aligned table: 7.x aligns its labels to 4) is the
 * true one shifted, plus one word read past the table, so it ties whenever
 * that word reads as an address past the last symbol: seen on the 7.2 lab
 * kernels once a block layer made the true table keep one entry out of
 * order, every name then paired with the next symbol's address. A reading
 * one early starts with token_index's last word, far past _text, so it is
 * out of order once more and loses.
 */
static int file_reading(const struct fgt_kimage *im, struct kas *k, struct ktab *t,
			size_t *off_pos, size_t *base_at)
{
	size_t after_index = k->ti + 2 * NTOK, cand[3];
	uint64_t want = im->text_addr, off = 0;
	long idx = ktab_find(t, "_text");
	struct ktab best = *t;
	long best_unsorted = -1;

	/* a raw image's tables without _text: _stext, where its header says */
	if (idx < 0 && im->va_free && im->stext_off) {
		idx = ktab_find(t, "_stext");
		off = im->stext_off;
		want += off;
	}
	if (idx < 0)
		return -1;
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
		long u;

		if (!cand[c] || cand[c] < k->lo || cand[c] + 4 * (size_t)k->n > k->hi)
			continue;
		t->offsets = k->d + cand[c];
		t->offsets_va = vaddr_of(im, k, cand[c]);
		for (int m = 0; m < M__NR; m++) {
			t->mode = (enum mode)m;
			t->base = 0;
			if (m != M_PCREL) {
				if (base_pos + 8 > k->hi)
					continue;
				t->base = rd64(k->d + base_pos);
				if (!t->base && im->va_free && m == M_REL)
					t->base = rela_base(k, base_pos);
			}
			u = ktab_reading(t, (uint32_t)idx, reading_want(im, t, (uint32_t)idx, off, want));
			if (u >= 0 && (best_unsorted < 0 || u < best_unsorted ||
				       (u == best_unsorted && cand[c] < *off_pos))) {
				best = *t;
				best_unsorted = u;
				*off_pos = cand[c];
				*base_at = m == M_PCREL ? 0 : base_pos;
			}
		}
	}
	*t = best;
	return best_unsorted < 0 ? -1 : 0;
}

/* Where to search: .rodata (read through libelf), else a whole image in memory. */
static int search_area(const struct fgt_kimage *im, struct kas *k, char *msg, size_t len)
{
	size_t ro_len;
	uint64_t va;
	const void *ro = fgt_kimage_section_va(im, ".rodata", &ro_len, &va);

	if (ro) {
		k->d = ro;
		k->lo = 0;
		k->hi = ro_len;
		k->va0 = va;
		return 0;
	}
	if (errno == EINTR) {
		k->stopped = true;
		return -1;
	}
	if (errno == EFBIG) {
		snprintf(msg, len, "its .rodata is over the %llu MiB read here",
			 FGT_KIMAGE_MAX_SECTION >> 20);
		return -1;
	}
	if (!im->data) {
		snprintf(msg, len, "no .rodata section to search for kallsyms tables%s",
			 errno == EIO ? " (its header points outside the file)" : "");
		return -1;
	}
	k->d = im->data;
	k->hi = im->size;
	return 0;
}

/* The search failed: why, in msg; -EINTR when it was a stop. */
static int search_failed(const struct kas *k, const char *what, char *msg, size_t len)
{
	if (k->stopped) {
		snprintf(msg, len, "interrupted while searching for the kallsyms tables");
		return -EINTR;
	}
	if (k->over)
		snprintf(msg, len, "the kallsyms search gave up: over its cap of %llu steps for "
			 "%zu bytes (not a kernel's tables)",
			 (unsigned long long)(FGT_KALLSYMS_WORK_FLOOR +
					      FGT_KALLSYMS_WORK_PER_BYTE * (uint64_t)(k->hi - k->lo)),
			 k->hi - k->lo);
	else if (what != msg)
		snprintf(msg, len, "%s", what);
	return -1;
}

/* Find the tables in a file image and read them as the kernel does.
 * 0; -1 with msg; -EINTR when stopped. */
static int locate(const struct fgt_kimage *im, struct kas *k, struct ktab *t, size_t *off_pos,
		  size_t *base_at, char *msg, size_t len)
{
	memset(k, 0, sizeof(*k));
	memset(t, 0, sizeof(*t));
	k->stopped = fgt_kimage_stopped(im);
	if (k->stopped || search_area(im, k, msg, len))
		return search_failed(k, msg, msg, len);
	k->im = im;
	k->work = FGT_KALLSYMS_WORK_FLOOR + FGT_KALLSYMS_WORK_PER_BYTE * (uint64_t)(k->hi - k->lo);
	k->tick = 1 << 20;
	if (find_tokens(k))
		return search_failed(k, "no kallsyms token table in it (CONFIG_KALLSYMS off?)", msg, len);
	if (find_markers_and_names(k))
		return search_failed(k, "a kallsyms token table, but no names and markers matching it",
				     msg, len);
	t->n = k->n;
	t->names = k->d + k->names;
	t->names_len = k->markers - k->names;
	t->tok = k->d + k->tt;
	memcpy(t->tok_off, k->tok_off, sizeof(t->tok_off));
	memcpy(t->tok_len, k->tok_len, sizeof(t->tok_len));
	if (file_reading(im, k, t, off_pos, base_at)) {
		snprintf(msg, len, "kallsyms names (%u), but no address table that puts _text at .text",
			 k->n);
		return fgt_kimage_stopped(im) ? -EINTR : -1;
	}
	log_dbg("kallsyms: found in %llu steps of %zu bytes",
		(unsigned long long)(FGT_KALLSYMS_WORK_FLOOR + FGT_KALLSYMS_WORK_PER_BYTE *
				     (uint64_t)(k->hi - k->lo) - k->work), k->hi - k->lo);
	return 0;
}

int fgt_kallsyms_locate(const struct fgt_kimage *im, struct fgt_vmcoreinfo *vi, char *msg,
			size_t len)
{
	struct kas k;
	struct ktab t;
	size_t off_pos, base_at;
	long stext;

	memset(vi, 0, sizeof(*vi));
	if (locate(im, &k, &t, &off_pos, &base_at, msg, len))
		return -1;
	stext = ktab_find(&t, "_stext");
	if (stext < 0) {
		snprintf(msg, len, "no _stext among the kallsyms names");
		return -1;
	}
	vi->names = vaddr_of(im, &k, k.names);
	vi->num_syms = vaddr_of(im, &k, k.num_pos);
	vi->token_table = vaddr_of(im, &k, k.tt);
	vi->token_index = vaddr_of(im, &k, k.ti);
	vi->offsets = vaddr_of(im, &k, off_pos);
	vi->relative_base = base_at ? vaddr_of(im, &k, base_at) : 0;
	vi->stext = ktab_addr(&t, (uint32_t)stext);
	return 0;
}

int fgt_kallsyms_extract(struct fgt_kimage *im, char **text, size_t *text_len,
			 size_t *nr_syms, char *msg, size_t len)
{
	struct kas k;
	struct ktab t;
	size_t p, next, off_pos, base_at;
	char name[NAME_MAX_LEN], prev[NAME_MAX_LEN] = "";
	FILE *f;
	int err;

	*text = NULL;
	err = locate(im, &k, &t, &off_pos, &base_at, msg, len);
	if (err)
		return err;
	f = open_memstream(text, text_len);
	if (!f) {
		snprintf(msg, len, "%s", strerror(errno));
		return -1;
	}
	p = 0;
	for (uint32_t i = 0; i < t.n; i++, p = next) {
		uint64_t a = ktab_addr(&t, i);

		if (!ktab_expand(&t, p, name, &next))
			break;
		fprintf(f, "%016" PRIx64 " %c %s\n", a, name[0], name + 1);
		/* an entry out of address order, and the one before it: which of
		 * the two lies is not known, so neither is taken as evidence */
		if (i && a < ktab_addr(&t, i - 1)) {
			fgt_kimage_doubt_add(im, prev, "out of address order in the kallsyms tables");
			fgt_kimage_doubt_add(im, name + 1, "out of address order in the kallsyms tables");
		}
		snprintf(prev, sizeof(prev), "%s", name + 1);
	}
	fclose(f);
	*nr_syms = k.n;
	return 0;
}

/* ---- the running kernel's tables, from its memory ------------------------------ */

/*
 * The names stream is not kept: the pass by name reads it in chunks into one
 * buffer, and a symbol's name is read again, with the 255 entries around it,
 * when it is asked for. Reading all of it into fresh memory cost twice the
 * copy under TCG (debian-6.12's 2.3 MB: 14-20 ms against 6.1-6.6 into memory
 * already touched; the page faults and the zeroing are the difference).
 */
#define SCAN_CHUNK	(120u << 10)	/* under glibc's mmap threshold: a heap block */

struct fgt_kmem {
	struct ktab t;			/* t.names: the block being read, if any */
	const struct fgt_kimage *im;
	uint64_t names_va;		/* kallsyms_names */
	size_t span;			/* from names to the token table */
	size_t names_end;		/* where the last entry ends (the pass found it) */
	uint8_t *tok, *offsets;		/* the buffers read */
	uint32_t *mark;			/* where every 256th entry starts in names */
	uint8_t **blk;			/* the 256-entry blocks read again, by number */
	uint32_t nr_blk;
};

void fgt_kmem_free(struct fgt_kmem *km)
{
	if (!km)
		return;
	for (uint32_t b = 0; km->blk && b < km->nr_blk; b++)
		free(km->blk[b]);
	free(km->blk);
	free(km->tok);
	free(km->offsets);
	free(km->mark);
	free(km);
}

uint32_t fgt_kmem_count(const struct fgt_kmem *km)
{
	return km->t.n;
}

/* The 256 tokens from a buffer holding the table; its index must agree. */
static bool parse_tokens(struct ktab *t, const uint8_t *b, size_t len, const uint8_t *index)
{
	size_t q = 0;
	uint16_t off = 0;

	for (int i = 0; i < NTOK; i++) {
		size_t s = q;

		while (q < len && b[q] && printable(b[q]) && q - s < TOK_MAX)
			q++;
		if (q >= len || b[q] || q == s)
			return false;
		t->tok_off[i] = off;
		t->tok_len[i] = (uint8_t)(q - s);
		if ((uint16_t)(index[2 * i] | index[2 * i + 1] << 8) != off)
			return false;
		off = (uint16_t)(off + (q - s) + 1);
		q++;
	}
	t->tok = b;
	return true;
}

static uint8_t *read_at(const struct fgt_kimage *im, uint64_t a, size_t len)
{
	uint8_t *b = malloc(len ? len : 1);

	if (b && fgt_kimage_read(im, a, b, len)) {
		free(b);
		return NULL;
	}
	return b;
}

/* Is the address table in order? A sample is enough to reject a wrong reading. */
static bool sampled_sorted(const struct ktab *t)
{
	uint32_t step = t->n / 512 ? t->n / 512 : 1;
	uint64_t prev = 0;
	uint32_t bad = 0;

	for (uint32_t i = 0; i < t->n; i += step) {
		uint64_t a = ktab_addr(t, i);

		bad += a < prev;
		prev = a;
	}
	return bad <= 2;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Does sorted name a go on with s (n bytes, n >= 1) at offset o? The first
 * byte decides most: memcmp() for each took 1.5 M instructions of the pass. */
static bool goes_on(const char *const *sorted, const size_t *lens, uint16_t a, size_t o,
		    const char *s, size_t n)
{
	return lens[a] >= o + n && sorted[a][o] == s[0] && !memcmp(sorted[a] + o + 1, s + 1, n - 1);
}

/* The wanted names (sorted) in [lo, hi) that go on with s at offset o: narrowed. */
static void narrow(const char *const *sorted, const size_t *lens, uint16_t *lo, uint16_t *hi,
		   size_t o, const char *s, size_t n)
{
	uint16_t a = *lo, b = *hi;

	if (!n)
		return;
	while (a < b && !goes_on(sorted, lens, a, o, s, n))
		a++;
	while (b > a && !goes_on(sorted, lens, b - 1, o, s, n))
		b--;
	*lo = a;
	*hi = b;
}

static bool is_text(char c)
{
	return c == 't' || c == 'T';
}

struct pair_range {
	uint16_t lo, hi;	/* hi == 0xffff: not computed yet */
};

/*
 * Where the first token leaves an entry: a range of the wanted names and the
 * offset in them, shared by the tokens that leave the same (every bare type
 * letter leaves all of them at 0), and that state's ranges by the second
 * token, made when first needed: 1 KiB each, where a table by pair was
 * 256 KiB, all of it written before the pass.
 */
struct first_state {
	uint16_t lo, hi, o;
	struct pair_range *next;	/* [NTOK] */
};

struct want {
	const char *const *names;	/* as asked */
	size_t n;
	const char **sorted;
	size_t *lens;
	long *idx;			/* the first of each name, or its first text one */
	long *any;			/* the first of each name */
	bool *text;
	struct first_state st[NTOK];
	unsigned int nr_st;
	uint8_t st_of[NTOK];		/* by the first token */
	bool live[NTOK];		/* it leaves some wanted name: one load per entry */
};

/* The second token's range from a first state, computed once. */
static const struct pair_range *second(const struct ktab *t, struct want *w,
				       struct first_state *st, uint8_t c)
{
	struct pair_range *pr;

	if (!st->next) {
		st->next = malloc(NTOK * sizeof(*st->next));
		if (!st->next)
			return NULL;
		for (int i = 0; i < NTOK; i++)
			st->next[i].hi = 0xffff;
	}
	pr = &st->next[c];
	if (pr->hi == 0xffff) {
		pr->lo = st->lo;
		pr->hi = st->hi;
		narrow(w->sorted, w->lens, &pr->lo, &pr->hi, st->o, (const char *)t->tok + t->tok_off[c],
		       t->tok_len[c]);
	}
	return pr;
}

/* Do the first two tokens leave no wanted name, as already worked out? Most
 * entries that pass the first token stop here (94,000 of 167,000 on 6.12). */
static bool dead_pair(const struct want *w, const uint8_t *q, size_t l)
{
	const struct first_state *st = &w->st[w->st_of[q[0]]];

	return l >= 2 && st->next && st->next[q[1]].hi != 0xffff &&
	       st->next[q[1]].lo == st->next[q[1]].hi;
}

/* The wanted names an entry of l tokens at q may be: narrowed a token at a time. */
static void match_entry(const struct ktab *t, struct want *w, const uint8_t *q, size_t l, long i)
{
	struct first_state *st = &w->st[w->st_of[q[0]]];
	uint16_t lo = st->lo, hi = st->hi;
	size_t o = st->o;

	if (l >= 2) {
		const struct pair_range *pr = second(t, w, st, q[1]);

		if (!pr)
			return;
		lo = pr->lo;
		hi = pr->hi;
		o += t->tok_len[q[1]];
		for (size_t j = 2; j < l && lo < hi; j++) {
			narrow(w->sorted, w->lens, &lo, &hi, o, (const char *)t->tok + t->tok_off[q[j]],
			       t->tok_len[q[j]]);
			o += t->tok_len[q[j]];
		}
	}
	/* a whole wanted name: the first of it, or the first text one */
	for (; lo < hi; lo++) {
		char type = t->tok[t->tok_off[q[0]]];

		if (w->lens[lo] != o)
			continue;
		for (size_t k = 0; k < w->n; k++) {
			if (w->names[k] != w->sorted[lo] && strcmp(w->names[k], w->sorted[lo]))
				continue;
			if (w->any[k] < 0)
				w->any[k] = i;
			if (w->idx[k] < 0 || (!w->text[k] && is_text(type))) {
				w->idx[k] = i;
				w->text[k] = is_text(type);
			}
		}
	}
}

/*
 * The entries whole in buf[*pos, have) from entry *i on; *pos and *i are left
 * at the first that is not. The inner loop of the pass: its place in
 * registers (with it in memory for every entry it took 40% more instructions).
 */
static int scan_buf(struct fgt_kmem *km, struct want *w, const uint8_t *d, size_t base,
		    size_t *at, size_t have, uint32_t *at_i)
{
	const struct ktab *t = &km->t;
	const bool *live = w->live;
	uint32_t *mark = km->mark, i = *at_i, n = t->n;
	size_t pos = *at;
	int err = 0;

	for (; i < n; i++) {
		size_t l, hl = 1;

		if (!(i & 0xff))
			mark[i >> 8] = (uint32_t)(base + pos);
		if (pos + 2 > have)
			break;
		l = d[pos];
		if (l & 0x80) {
			l = (l & 0x7f) | (size_t)d[pos + 1] << 7;
			hl = 2;
		}
		if (pos + hl + l > have)
			break;
		if (!l) {
			err = -1;
			break;
		}
		if (live[d[pos + hl]] && !dead_pair(w, d + pos + hl, l))
			match_entry(t, w, d + pos + hl, l, i);
		pos += hl + l;
	}
	*at = pos;
	*at_i = i;
	return err;
}

/*
 * One pass over the names, SCAN_CHUNK at a time (an entry cut by a chunk's
 * end goes to the front of the buffer, the next chunk is read after it). The
 * wanted names an entry may be are a range of the sorted list, narrowed by
 * its first token (worked out once for each of the 256; most are a bare type
 * letter, which narrows nothing), then by its second (once per first state
 * and token), then token by token for the few still in the running. On a
 * kcore made of Debian 6.12's vmlinux (167,000 names) the answer is 14.1 M
 * instructions (callgrind), 7.9 M of them this pass; with every pair's range
 * narrowed from all the wanted names and memcmp() for each comparison, over
 * the names read whole, it was 17.4 M, 12.4 M the pass. It notes where every
 * 256th entry starts, and where the last one ends.
 */
static int scan(struct fgt_kmem *km, struct want *w, uint8_t *buf)
{
	size_t base = 0, pos = 0, have = 0, more;
	uint32_t i = 0;

	for (;;) {
		if (scan_buf(km, w, buf, base, &pos, have, &i))
			return -1;
		if (i == km->t.n)
			break;
		if (base + have >= km->span)
			return -1;	/* the names go on past the token table */
		memmove(buf, buf + pos, have - pos);
		base += pos;
		have -= pos;
		pos = 0;
		more = km->span - (base + have);
		if (more > SCAN_CHUNK - have)
			more = SCAN_CHUNK - have;
		if (fgt_kimage_read(km->im, km->names_va + base + have, buf + have, more))
			return -1;
		have += more;
	}
	km->names_end = base + pos;
	return 0;
}

/* The wanted names as a sorted list, and the ranges of the first tokens. */
static int want_init(struct want *w, const struct ktab *t, const char *const *names, size_t n)
{
	w->names = names;
	w->n = n;
	w->idx = malloc(n * sizeof(*w->idx));
	w->any = malloc(n * sizeof(*w->any));
	w->sorted = malloc(n * sizeof(*w->sorted));
	w->lens = malloc(n * sizeof(*w->lens));
	w->text = calloc(n, sizeof(*w->text));
	if (!w->idx || !w->any || !w->sorted || !w->lens || !w->text || n >= 0xffff)
		return -1;
	for (size_t i = 0; i < n; i++)
		w->idx[i] = w->any[i] = -1;
	memcpy(w->sorted, names, n * sizeof(*w->sorted));
	qsort(w->sorted, n, sizeof(*w->sorted), cmp_str);
	for (size_t i = 0; i < n; i++)
		w->lens[i] = strlen(w->sorted[i]);
	/* the type letter starts the first token; names are matched after it */
	for (int c = 0; c < NTOK; c++) {
		struct first_state f = { 0, (uint16_t)n, (uint16_t)(t->tok_len[c] - 1u), NULL };
		unsigned int k;

		narrow(w->sorted, w->lens, &f.lo, &f.hi, 0, (const char *)t->tok + t->tok_off[c] + 1,
		       t->tok_len[c] - 1u);
		w->live[c] = f.lo < f.hi;
		for (k = 0; k < w->nr_st; k++)
			if (w->st[k].lo == f.lo && w->st[k].hi == f.hi && w->st[k].o == f.o)
				break;
		if (k == w->nr_st)
			w->st[w->nr_st++] = f;
		w->st_of[c] = (uint8_t)k;
	}
	return 0;
}

static void want_free(struct want *w)
{
	free(w->idx);
	free(w->any);
	free(w->sorted);
	free(w->lens);
	free(w->text);
	for (unsigned int k = 0; k < w->nr_st; k++)
		free(w->st[k].next);
}

/* The pass, with _stext among the names (the first of that name, any type). */
static int kmem_find(struct fgt_kmem *km, const char *const *names, size_t n, long *idx,
		      long *stext)
{
	const char **all = malloc((n + 1) * sizeof(*all));
	uint8_t *buf = malloc(SCAN_CHUNK);
	struct want w = {};
	int err = -1;

	if (!all || !buf)
		goto out;
	memcpy(all, names, n * sizeof(*all));
	all[n] = "_stext";
	if (want_init(&w, &km->t, all, n + 1) || scan(km, &w, buf))
		goto out;
	memcpy(idx, w.idx, n * sizeof(*idx));
	*stext = w.any[n];
	err = 0;
out:
	want_free(&w);
	free(all);
	free(buf);
	return err;
}

struct fgt_kmem *fgt_kmem_open(const struct fgt_kimage *im, const struct fgt_vmcoreinfo *vi,
			       const char *const *names, size_t n, long *idx, char *msg, size_t len)
{
	struct fgt_kmem *km = calloc(1, sizeof(*km));
	uint8_t num[4], index[2 * NTOK], base[8];
	size_t toklen = NTOK * TOK_MAX;
	long stext;
	bool ok = false;

	for (size_t i = 0; i < n; i++)
		idx[i] = -1;
	if (!km)
		goto oom;
	km->im = im;
	if (fgt_kimage_read(im, vi->num_syms, num, sizeof(num)) ||
	    fgt_kimage_read(im, vi->token_index, index, sizeof(index))) {
		snprintf(msg, len, "cannot read the kallsyms tables VMCOREINFO points at");
		goto fail;
	}
	km->t.n = rd32(num);
	if (km->t.n < 1000 || km->t.n > (1u << 24)) {
		snprintf(msg, len, "kallsyms_num_syms reads %u: not a kernel's", km->t.n);
		goto fail;
	}
	while (toklen >= 4096 && !(km->tok = read_at(im, vi->token_table, toklen)))
		toklen /= 2;
	if (!km->tok || !parse_tokens(&km->t, km->tok, toklen, index)) {
		snprintf(msg, len, "the kallsyms token table is not one we know");
		goto fail;
	}
	/* the names end before the token table in every layout (markers, and in
	 * 6.1 seqs_of_names, come between) */
	if (vi->token_table <= vi->names || vi->token_table - vi->names > (64u << 20)) {
		snprintf(msg, len, "cannot read the kallsyms names and offsets");
		goto fail;
	}
	km->names_va = vi->names;
	km->span = (size_t)(vi->token_table - vi->names);
	km->nr_blk = (km->t.n + 255) / 256;
	km->mark = malloc(km->nr_blk * sizeof(*km->mark));
	km->blk = calloc(km->nr_blk, sizeof(*km->blk));
	km->offsets = read_at(im, vi->offsets, 4 * (size_t)km->t.n);
	if (!km->mark || !km->blk || !km->offsets || kmem_find(km, names, n, idx, &stext)) {
		snprintf(msg, len, "cannot read the kallsyms names and offsets");
		goto fail;
	}
	km->t.offsets = km->offsets;
	km->t.offsets_va = vi->offsets;
	if (stext < 0) {
		snprintf(msg, len, "no _stext among the kallsyms names");
		goto fail;
	}
	/* relative_base (up to 6.x; percpu-absolute or not) or PC-relative (7.x) */
	if (vi->relative_base && !fgt_kimage_read(im, vi->relative_base, base, sizeof(base))) {
		km->t.base = rd64(base);
		for (int m = M_ABS_PERCPU; m <= M_REL && !ok; m++) {
			km->t.mode = (enum mode)m;
			ok = ktab_addr(&km->t, (uint32_t)stext) == vi->stext && sampled_sorted(&km->t);
		}
	} else {
		km->t.mode = M_PCREL;
		ok = ktab_addr(&km->t, (uint32_t)stext) == vi->stext && sampled_sorted(&km->t);
	}
	if (!ok) {
		snprintf(msg, len, "no reading of kallsyms_offsets puts _stext where VMCOREINFO says");
		goto fail;
	}
	return km;
oom:
	snprintf(msg, len, "out of memory");
fail:
	fgt_kmem_free(km);
	return NULL;
}

/* Block b of the names (entries 256 b to 256 b + 255), read when first asked for. */
static const uint8_t *block(struct fgt_kmem *km, uint32_t b, size_t *len)
{
	size_t start = km->mark[b], end = b + 1 < km->nr_blk ? km->mark[b + 1] : km->names_end;

	if (end < start || end > km->span)
		return NULL;
	*len = end - start;
	if (!km->blk[b])
		km->blk[b] = read_at(km->im, km->names_va + start, *len);
	return km->blk[b];
}

/* Symbol i's name (type letter first) into buf. */
static bool kmem_name(struct fgt_kmem *km, long i, char *buf)
{
	struct ktab bt = km->t;
	size_t p = 0, len, next;

	bt.names = block(km, (uint32_t)i >> 8, &bt.names_len);
	if (!bt.names)
		return false;
	for (uint32_t k = 0; k < ((uint32_t)i & 0xff); k++, p = next)
		if (!ktab_entry(&bt, p, &len, &next))
			return false;
	return ktab_expand(&bt, p, buf, &next);
}

long fgt_kmem_at(struct fgt_kmem *km, uint64_t a)
{
	char buf[NAME_MAX_LEN];
	size_t lo = 0, hi = km->t.n;
	long best, first;

	/* the table is in address order (checked when opened) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ktab_addr(&km->t, (uint32_t)mid) <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	best = (long)lo - 1;
	if (best < 0)
		return -1;
	/* aliases: the first text symbol at that address */
	first = best;
	while (first > 0 && ktab_addr(&km->t, (uint32_t)first - 1) == ktab_addr(&km->t, (uint32_t)best))
		first--;
	for (long i = first; i <= best; i++)
		if (kmem_name(km, i, buf) && is_text(buf[0]))
			return i;
	return first;
}

static int kmem_sym(struct fgt_kmem *km, long i, struct fgt_ksym *out)
{
	char buf[NAME_MAX_LEN];

	if (!kmem_name(km, i, buf) || !(out->name = strdup(buf + 1)))
		return 0;
	out->addr = ktab_addr(&km->t, (uint32_t)i);
	out->type = buf[0];
	out->size = 0;
	return 1;
}

int fgt_kmem_syms(struct fgt_kmem *km, long i, struct fgt_ksym out[2])
{
	uint64_t a;
	long j = i + 1;
	int n;

	if (i < 0 || (uint32_t)i >= km->t.n)
		return 0;
	a = ktab_addr(&km->t, (uint32_t)i);
	n = kmem_sym(km, i, &out[0]);
	/* the next higher address bounds its size, as in /proc/kallsyms */
	while ((uint32_t)j < km->t.n && ktab_addr(&km->t, (uint32_t)j) == a)
		j++;
	if ((uint32_t)j < km->t.n)
		n += kmem_sym(km, j, &out[n]);
	return n;
}

struct fgt_ksyms *fgt_kmem_table(struct fgt_kmem *km, const long *idx, size_t n)
{
	struct fgt_ksym *syms = calloc(2 * n + 1, sizeof(*syms));
	struct fgt_ksyms *ks;
	size_t k = 0;

	if (!syms)
		return NULL;
	for (size_t i = 0; i < n; i++)
		k += (size_t)fgt_kmem_syms(km, idx[i], syms + k);
	ks = fgt_ksyms_from(syms, k);
	for (size_t i = 0; i < k; i++)
		free((char *)syms[i].name);
	free(syms);
	return ks;
}
