/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kallsyms tables a kernel carries (src/static/kimage_kallsyms.c): in a
 * file image's .rodata, or in the running kernel's memory through kcore.
 */
#ifndef FGT_STATIC_KIMAGE_KALLSYMS_H
#define FGT_STATIC_KIMAGE_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>
#include "host/ksyms.h"
#include "static/kimage.h"
#include "static/kimage_kcore.h"

/* Where a file image's kallsyms tables are, as VMCOREINFO would say (tests
 * make a fake /proc/kcore of a vmlinux with it). 0, or -1 with msg. */
int fgt_kallsyms_locate(const struct fgt_kimage *im, struct fgt_vmcoreinfo *vi, char *msg,
			size_t len);

/* The kernel's own kallsyms tables, read from its memory (kcore). */
struct fgt_kmem;

/*
 * Read the tables VMCOREINFO points at and, in one pass over the names,
 * idx[i]: the symbol named names[i] (a text one if several), -1 if none.
 * NULL with msg when they are not tables we know.
 */
struct fgt_kmem *fgt_kmem_open(const struct fgt_kimage *im, const struct fgt_vmcoreinfo *vi,
			       const char *const *names, size_t n, long *idx, char *msg, size_t len);

void fgt_kmem_free(struct fgt_kmem *km);

uint32_t fgt_kmem_count(const struct fgt_kmem *km);

/* The symbol whose range holds addr (a text one among aliases), -1 if none. */
long fgt_kmem_at(struct fgt_kmem *km, uint64_t addr);

/* Symbol i, and the next symbol at a higher address (its end), into out:
 * how many (0-2), their names malloc()ed. */
int fgt_kmem_syms(struct fgt_kmem *km, long i, struct fgt_ksym out[2]);

/* Symbols idx[0..n) (negative ones skipped), each with the next one for its
 * size, as a table (src/host/ksyms.h); NULL when out of memory. */
struct fgt_ksyms *fgt_kmem_table(struct fgt_kmem *km, const long *idx, size_t n);

/*
 * The kallsyms tables embedded in a kernel image (scripts/kallsyms.c's
 * output), decoded into kallsyms-format text ("addr type name\n" lines),
 * malloc()ed into *text. Exposed for tests. 0; -1 with msg; -EINTR when
 * stopped. The search is capped at FGT_KALLSYMS_WORK_PER_BYTE steps per
 * byte of .rodata (plus a floor). Entries out of address order (up to 1 %
 * is tolerated in a reading) are recorded in im's doubt, both sides of each.
 */
int fgt_kallsyms_extract(struct fgt_kimage *im, char **text, size_t *text_len,
			 size_t *nr_syms, char *msg, size_t len);

#endif
