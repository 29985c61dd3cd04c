/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The running kernel's symbols through kcore (src/static/ksyms_kcore.c).
 */
#ifndef FGT_STATIC_KSYMS_KCORE_H
#define FGT_STATIC_KSYMS_KCORE_H

#include <stddef.h>
#include "host/ksyms.h"

/* The part of the running kernel's table holding names[0..n), read from its
 * kallsyms tables through kcore (NULL: /proc/kcore); NULL where kcore cannot
 * say (absent, masked, not root, before 6.0). src/static/ksyms_kcore.c */
struct fgt_ksyms *fgt_ksyms_kcore(const char *kcore, const char *const *names, size_t n);

#endif
