/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A file descriptor read to its end into memory: what the kernel writes in
 * one go and gives no size for (procfs, a BPF iterator, sysfs).
 */
#ifndef FGT_READALL_H
#define FGT_READALL_H

#include <stddef.h>

/*
 * Reads fd from where it is to its end into a new buffer, NUL-terminated
 * besides its *len bytes, in *buf (the caller frees it). At most max bytes:
 * more is -EFBIG. A read error is an error, never a shorter answer; EINTR
 * is retried. 0, or -errno (nothing allocated then).
 */
int fgt_read_all(int fd, size_t max, char **buf, size_t *len);

#endif
