/* SPDX-License-Identifier: GPL-2.0 */
/* /proc/kallsyms: address ranges of functions and data symbols, symbolization. */
#ifndef FGT_KSYMS_H
#define FGT_KSYMS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct fgt_ksym {
	const char *name;
	uint64_t addr;
	uint64_t size;		/* up to the next symbol's address */
	char type;		/* kallsyms type letter: t T d D b B r R ... */
};

struct fgt_ksyms;

/* Parse a kallsyms-format file (path, or NULL for /proc/kallsyms). NULL + errno on error. */
struct fgt_ksyms *fgt_ksyms_load(const char *path);
struct fgt_ksyms *fgt_ksyms_load_file(FILE *f);
/*
 * The same from symbols in memory (name, addr and type; size is worked out),
 * as from their kallsyms lines in that order: for a few symbols, no printf()
 * and parse round trip (its first run under TCG cost 4-11 ms, mostly
 * translating stdio's code).
 */
struct fgt_ksyms *fgt_ksyms_from(const struct fgt_ksym *syms, size_t n);
void fgt_ksyms_free(struct fgt_ksyms *ks);
/* False when every address reads 0 (kptr_restrict, not root). */
bool fgt_ksyms_have_addrs(const struct fgt_ksyms *ks);
/* The kernel's symbol count (for a part, the whole's). */
size_t fgt_ksyms_count(const struct fgt_ksyms *ks);
/*
 * A part: a table of some of a kernel's n symbols, read from its own kallsyms
 * tables (each with the next one, so sizes are the whole table's). Name
 * lookups of those symbols, count and sane answer as the whole would;
 * address lookups know only the part.
 */
void fgt_ksyms_set_whole(struct fgt_ksyms *ks, size_t n);
bool fgt_ksyms_is_part(const struct fgt_ksyms *ks);
/*
 * Does the table look like a whole kernel's? A masked (empty) or truncated
 * kallsyms must not pass for one that lacks a symbol: it needs _stext and
 * _etext (text symbols come between them) and FGT_KSYMS_MIN symbols. If not,
 * why says so, in words.
 */
#define FGT_KSYMS_MIN	1000
bool fgt_ksyms_sane(const struct fgt_ksyms *ks, char *why, size_t len);
/* Exact name (first match of a text symbol for functions, any type otherwise). */
const struct fgt_ksym *fgt_ksyms_by_name(const struct fgt_ksyms *ks, const char *name);
/* The table's symbols in address order, i < fgt_ksyms_len() (a part's own
 * symbols only); NULL when out of memory. */
size_t fgt_ksyms_len(const struct fgt_ksyms *ks);
const struct fgt_ksym *fgt_ksyms_nth(const struct fgt_ksyms *ks, size_t i);
/* The symbol whose [addr, addr+size) holds a; NULL if none. */
const struct fgt_ksym *fgt_ksyms_by_addr(const struct fgt_ksyms *ks, uint64_t a);
/* "sym+0x1a" into buf (or "0x..." when unknown). */
const char *fgt_ksyms_format(const struct fgt_ksyms *ks, uint64_t a, char *buf, size_t len);

#endif
