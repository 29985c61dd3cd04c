/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running kernel's image (src/static/kimage_kcore.c): /proc/kcore, its
 * VMCOREINFO note, and a file image written as kcore would show it.
 */
#ifndef FGT_STATIC_KIMAGE_KCORE_H
#define FGT_STATIC_KIMAGE_KCORE_H

#include <stdio.h>
#include <stdint.h>
#include "static/kimage.h"

/*
 * What /proc/kcore's VMCOREINFO note says (kernel/vmcore_info.c; the
 * kallsyms tables' addresses are there from 6.0: "vmcoreinfo: include
 * kallsyms symbols"): the running kernel's symbols without reading
 * /proc/kallsyms, which under qemu TCG takes 0.3 s for Debian 7.2's 199k
 * lines, three times the whole answer's budget.
 */
struct fgt_vmcoreinfo {
	uint64_t names, num_syms, token_table, token_index, offsets, relative_base, stext;
	char osrelease[65];
	char build_id[41];
};

/* Write a file image as /proc/kcore would show it (ELF core: VMCOREINFO note,
 * one PT_LOAD per segment). 0 or -errno. */
int fgt_kimage_write_core(const struct fgt_kimage *im, const struct fgt_vmcoreinfo *vi, FILE *f);

/* Parse it; 0, or -1 when there is none or it has no kallsyms tables. */
int fgt_kimage_vmcoreinfo(const struct fgt_kimage *im, struct fgt_vmcoreinfo *vi);

/* Open /proc/kcore (path NULL) or a fake for tests. 0, or an FGT_SW_* with msg. */
int fgt_kimage_open_kcore(struct fgt_kimage *im, const char *path, char *msg, size_t len);

#endif
