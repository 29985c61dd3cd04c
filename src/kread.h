/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel text and symbols for the static verdict (src/static_kernel.c), from:
 *  - the running kernel: /proc/kcore (an ELF core file whose PT_LOAD segments
 *    are kernel virtual addresses, KASLR included) and /proc/kallsyms;
 *  - a kernel file: an x86-64 vmlinux (ELF), or a bzImage, whose payload is
 *    that ELF compressed (gzip, xz, lzma, zstd: Debian's are xz up to 6.1,
 *    zstd since; the lab's gzip). Its symbols come from, in this order: a
 *    System.map given with it, the ELF's .symtab, or the kallsyms tables the
 *    kernel carries in its .rodata (CONFIG_KALLSYMS: every distribution
 *    kernel), which is what makes a distribution's vmlinuz usable alone
 *    where its System.map is a placeholder (Debian's says "The real
 *    System.map is in the linux-image-<version>-dbg package").
 *
 * Every bad input is one line in msg and an enum fgt_static_why.
 */
#ifndef FGT_KREAD_H
#define FGT_KREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ksyms.h"
#include "static_check.h"

#define FGT_KIMAGE_MAX_SEGS	64

struct fgt_kseg {
	uint64_t vaddr, off, filesz;
};

struct fgt_kimage {
	char desc[200];			/* "/proc/kcore", "vmlinux FILE", "bzImage FILE (zstd)" */
	int fd;				/* /proc/kcore: read on demand; -1 otherwise */
	/* a file: the ELF in memory (mapped, or decompressed from a bzImage) */
	const uint8_t *data;
	size_t size;
	void *map;			/* munmap(map, size) */
	void *heap;			/* free(heap) */
	struct fgt_kseg seg[FGT_KIMAGE_MAX_SEGS];
	unsigned int nr_segs;
	uint64_t text_addr;		/* the .text section's address (files), 0 if unknown */
};

/* Open /proc/kcore (path NULL) or a fake for tests. 0, or an FGT_SW_* with msg. */
int fgt_kimage_open_kcore(struct fgt_kimage *im, const char *path, char *msg, size_t len);
/* Open a vmlinux or bzImage. 0, or an FGT_SW_* with msg. */
int fgt_kimage_open_file(struct fgt_kimage *im, const char *path, char *msg, size_t len);
/* An ELF image already in memory (tests, and the bzImage path); name for msgs. */
int fgt_kimage_open_elf(struct fgt_kimage *im, const uint8_t *data, size_t size,
			const char *name, char *msg, size_t len);
void fgt_kimage_close(struct fgt_kimage *im);

/* Read len bytes at a kernel virtual address: 0 or -errno (-EFAULT: not mapped). */
int fgt_kimage_read(const struct fgt_kimage *im, uint64_t addr, void *buf, size_t len);

/* A file image's symbols: .symtab, else the embedded kallsyms tables. NULL and
 * an FGT_SW_* in *why with msg when it has neither; what was used in desc. */
struct fgt_ksyms *fgt_kimage_symbols(const struct fgt_kimage *im, char *desc, size_t dlen,
				     int *why, char *msg, size_t len);
/* A System.map for a file image: checked to be a real one (not Debian's
 * placeholder) and this image's (linux_banner reads "Linux version" there). */
struct fgt_ksyms *fgt_kimage_system_map(const struct fgt_kimage *im, const char *path,
					int *why, char *msg, size_t len);
/* A section's bytes by name (".BTF"), NULL if absent. */
const void *fgt_kimage_section(const struct fgt_kimage *im, const char *name, size_t *len);

/*
 * The kallsyms tables embedded in a kernel image (scripts/kallsyms.c's
 * output), decoded into kallsyms-format text ("addr type name\n" lines),
 * malloc()ed into *text. Exposed for tests. 0, or -1 with msg.
 */
int fgt_kallsyms_extract(const struct fgt_kimage *im, char **text, size_t *text_len,
			 size_t *nr_syms, char *msg, size_t len);

#endif
