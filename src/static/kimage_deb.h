/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel package's vmlinuz (src/static/kimage_deb.c).
 */
#ifndef FGT_STATIC_KIMAGE_DEB_H
#define FGT_STATIC_KIMAGE_DEB_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A kernel package (.deb: linux-image-*, or linux-binary-* from 7.x): its
 * vmlinuz (./boot/vmlinuz-*, or ./usr/lib/modules/REL/vmlinuz), read out of
 * the data member with libarchive, never by running dpkg. Capped: at most
 * FGT_DEB_MAX_MEMBERS entries and FGT_DEB_MAX_DATA bytes of the data member
 * read through, the vmlinuz at most FGT_KIMAGE_MAX_BZIMAGE; stop polled
 * between entries and blocks. 0 with *buf (malloc()ed, *size bytes) and its
 * path in member; else an FGT_SW_* with msg. src/static/kimage_deb.c
 */
#define FGT_DEB_MAX_MEMBERS	200000		/* Debian 6.1 linux-image: 4,939 files */

#define FGT_DEB_MAX_DATA	(4ull << 30)	/* its data, uncompressed: 391 MiB */

int fgt_deb_vmlinuz(int fd, const char *path, volatile sig_atomic_t *stop, uint8_t **buf,
		    size_t *size, char *member, size_t mlen, char *msg, size_t len);

#endif
