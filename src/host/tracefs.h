/* SPDX-License-Identifier: GPL-2.0 */
/* tracefs: where it is mounted, and its small files read (src/host/tracefs.c). */
#ifndef FGT_TRACEFS_H
#define FGT_TRACEFS_H

#include <stddef.h>
#include <stdio.h>

/*
 * The mounted tracefs, readable: /sys/kernel/tracing, else
 * /sys/kernel/debug/tracing, else any other tracefs mount; NULL if none. Read
 * from /proc/self/mountinfo, so that nothing is automounted. The string is
 * the calling thread's, until its next call.
 */
const char *fgt_tracefs_find(void);
/* The best tracefs mount point in a mountinfo stream, into buf: 0 or -ENOENT. */
int fgt_tracefs_from_mountinfo(FILE *f, char *buf, size_t len);
/* The first line of dir/name into buf (len > 0), newline stripped: 0 or -errno. */
int fgt_tracefs_line(const char *dir, const char *name, char *buf, size_t len);
/* All of a small dir/name into buf (len > 0), truncated at len - 1, trailing
 * newlines stripped: 0 or -errno. */
int fgt_tracefs_read(const char *dir, const char *name, char *buf, size_t len);

#endif
