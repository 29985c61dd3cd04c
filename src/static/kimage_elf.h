/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A vmlinux through libelf (src/static/kimage_elf.c): its checks, segments
 * and sections.
 */
#ifndef FGT_STATIC_KIMAGE_ELF_H
#define FGT_STATIC_KIMAGE_ELF_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "static/kimage.h"

/* Is libelf usable (its version agreed once)? */
bool fgt_libelf_ready(void);
/* scn with its header in *sh when it lies inside the file; NULL if not. */
Elf_Scn *fgt_kimage_scn_checked(const struct fgt_kimage *im, Elf_Scn *scn, GElf_Shdr *sh);
/* The architecture of an ELF e_machine, false if none we read. */
bool fgt_arch_of_machine(uint16_t machine, enum fgt_arch *arch);
/* im->elf checked to be a kernel's vmlinux, its segments taken: 0, or an
 * FGT_SW_* with msg. */
int fgt_kernel_elf(struct fgt_kimage *im, const char *name, char *msg, size_t len);
/* The ELF header's counts checked against size before libelf reads them. */
bool fgt_elf_counts_ok(const uint8_t *d, size_t size, const char *name, char *msg,
		       size_t len);

/* An ELF image already in memory (tests, and the bzImage path); name for msgs. */
int fgt_kimage_open_elf(struct fgt_kimage *im, const uint8_t *data, size_t size,
			const char *name, char *msg, size_t len);

/* A section's bytes by name (".BTF"), valid until fgt_kimage_close(); NULL
 * with errno ENOENT (absent or empty), EFBIG (over FGT_KIMAGE_MAX_SECTION),
 * EIO (outside the file, or a short read) or EINTR (stopped). */
const void *fgt_kimage_section(const struct fgt_kimage *im, const char *name, size_t *len);

/* The same, with the section's address. */
const void *fgt_kimage_section_va(const struct fgt_kimage *im, const char *name, size_t *len,
				  uint64_t *va);

#endif
