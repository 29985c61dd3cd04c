/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This process's own memory: the pages of its executable it read once and
 * no longer needs, given back.
 */
#ifndef FGT_SELFMEM_H
#define FGT_SELFMEM_H

#include <stddef.h>
#include <stdint.h>

struct fgt_mem_range {
	uintptr_t lo, hi;
	size_t rss_kib;		/* resident in it when read */
};

/*
 * The mappings in smaps text (/proc/self/smaps, len bytes, hostile) that are
 * views of the file exe, not writable, and none of whose pages was ever
 * written (Anonymous: 0 kB): at most max of them into out. Returns how many
 * it found (more than max if there were more).
 */
size_t fgt_selfmem_clean(const char *smaps, size_t len, const char *exe,
			 struct fgt_mem_range *out, size_t max);

/*
 * Gives the clean pages of our own executable back (MADV_DONTNEED on each
 * such mapping): a later access reads them again from the page cache. The
 * KiB that were resident in them, or -errno.
 */
long fgt_selfmem_drop_exe(void);

#endif
