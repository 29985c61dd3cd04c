/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Boot images (src/static/kimage_boot.c): a bzImage, an arm64 Image (raw,
 * gzip'd, or in an EFI zboot image), a .deb holding one, and the file
 * opener that tells them from a vmlinux.
 */
#ifndef FGT_STATIC_KIMAGE_BOOT_H
#define FGT_STATIC_KIMAGE_BOOT_H

#include <signal.h>
#include "static/kimage.h"

/*
 * Open a vmlinux or bzImage: a regular file only (checked without blocking:
 * a FIFO is refused, not waited on), never mapped (a file truncated under us
 * is a short read, not SIGBUS). A vmlinux is read on demand through libelf;
 * a bzImage is read whole and its payload decompressed, within the caps
 * above. stop (may be NULL) ends any step within a second. 0, or an FGT_SW_*
 * with msg.
 */
int fgt_kimage_open_file(struct fgt_kimage *im, const char *path, volatile sig_atomic_t *stop,
			 char *msg, size_t len);

#endif
