/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kernel a file image is (src/static/kimage_ident.c): its build ID,
 * release and built-in .config.
 */
#ifndef FGT_STATIC_KIMAGE_IDENT_H
#define FGT_STATIC_KIMAGE_IDENT_H

#include <stddef.h>
#include "host/ksyms.h"
#include "static/kimage.h"

/* A file image's GNU build ID (hex, from its notes) and release (from
 * linux_banner, "Linux version R ..."), "" where absent. */
void fgt_kimage_ident(const struct fgt_kimage *im, const struct fgt_ksyms *ks,
		      char *release, size_t rlen, char *build_id, size_t blen);

/* The image's built-in .config (CONFIG_IKCONFIG): 1 when option is =y or
 * =m in it, 0 when not; -1 when it is broken; -2 when there is none. */
int fgt_kimage_ikconfig(const struct fgt_kimage *im, const char *option);

#endif
