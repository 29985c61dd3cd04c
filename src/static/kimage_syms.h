/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A file image's symbols (src/static/kimage_syms.c): .symtab, else its
 * embedded kallsyms tables (kimage_kallsyms.c), or a System.map.
 */
#ifndef FGT_STATIC_KIMAGE_SYMS_H
#define FGT_STATIC_KIMAGE_SYMS_H

#include "host/ksyms.h"
#include "static/kimage.h"

/* A file image's symbols: .symtab, else the embedded kallsyms tables. NULL and
 * an FGT_SW_* in *why with msg when it has neither; what was used in desc. */
struct fgt_ksyms *fgt_kimage_symbols(struct fgt_kimage *im, char *desc, size_t dlen,
				     int *why, char *msg, size_t len);

/* A raw image (va_free) moved to where its symbols put _text: 0, or -1
 * when they have no _text at a plausible address. */
int fgt_kimage_place(struct fgt_kimage *im, const struct fgt_ksyms *ks);

/* A System.map for a file image: a regular file of at most
 * FGT_KIMAGE_MAX_MAP bytes, checked to be a real one (not Debian's
 * placeholder: then im->map_placeholder is set too) and this image's
 * (linux_banner reads "Linux version" there). */
struct fgt_ksyms *fgt_kimage_system_map(struct fgt_kimage *im, const char *path,
					int *why, char *msg, size_t len);

#endif
