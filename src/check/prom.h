/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node_exporter's textfile format: the exposition pieces a renderer writes
 * with (src/check/answer.c renders check's metrics), and the writer that
 * replaces FILE atomically: never half-written, never through a symlink.
 */
#ifndef FGT_PROM_H
#define FGT_PROM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "# HELP name text" and "# TYPE name type". */
void fgt_prom_help(FILE *f, const char *name, const char *type, const char *text);
/* A label value, quoted, with backslash, quote and newline escaped. */
void fgt_prom_label(FILE *f, const char *s);
/* A gauge with its HELP and TYPE, unlabelled. */
void fgt_prom_gauge_u64(FILE *f, const char *name, const char *text, uint64_t v);
void fgt_prom_gauge_dbl(FILE *f, const char *name, const char *text, double v);

/* Writes the whole content to f: 0 or -errno. */
typedef int (*fgt_prom_render_fn)(FILE *f, const void *ctx);

/*
 * Render into memory, then write path atomically: temp file (O_EXCL) in
 * path's directory, fsync, chmod 0644, rename over path. Refuses a symlink at
 * path and a directory that is not one. 0, or -errno with a message in err.
 */
int fgt_prom_write(const char *path, fgt_prom_render_fn render, const void *ctx, char *err,
		   size_t errlen);

#endif
