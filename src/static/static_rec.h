/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recorded code sequences (src/static/static_rec.c, tests/data/static/README):
 * a function's text with the symbols it needs, written and loaded back.
 */
#ifndef FGT_STATIC_STATIC_REC_H
#define FGT_STATIC_STATIC_REC_H

#include <stdint.h>
#include <stdio.h>
#include "host/ksyms.h"
#include "static/static_types.h"

struct fgt_static_rec {
	char func[64];
	struct fgt_static_code code;
	struct fgt_static_kernel k;
	struct fgt_ksyms *ks;		/* owned */
	uint8_t *bytes[FGT_STATIC_MAX_PARTS];
	char caller[64];		/* "caller NAME": the parts after it are its */
	uint8_t *cbytes[FGT_STATIC_MAX_CALLER_PARTS];
};

/* Write the code with the symbols it needs (from k->ks). 0 or -errno. */
int fgt_static_rec_write(FILE *f, const char *name, const struct fgt_static_code *c,
			 const struct fgt_static_kernel *k);
/* Load one; 0, or -1 with msg. */
int fgt_static_rec_load(const char *path, struct fgt_static_rec *r, char *msg, size_t len);
void fgt_static_rec_free(struct fgt_static_rec *r);

#endif
