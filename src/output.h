/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything fgraphtop prints: per-event lines (--events), activation reports,
 * interval summaries (-i), a top-like screen on a terminal, and JSON lines
 * (-j) through the one JSON writer, under the schema of docs/json.md.
 */
#ifndef FGT_OUTPUT_H
#define FGT_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "activation.h"
#include "fgraphtop.h"
#include "ksyms.h"
#include "plan.h"

#define FGT_JSON_SCHEMA 1	/* bump only when a name or meaning changes */

struct fgt_out_opts {
	bool json;
	bool events;
	bool screen;		/* top-like redraw (stdout is a tty, no -j/--events) */
	const struct fgt_ksyms *ks;
	int stack_map_fd;
	uint64_t start_ns;	/* monotonic ns at start: event times are relative to it */
};

struct fgt_out;

struct fgt_out *fgt_out_new(FILE *f, const struct fgt_out_opts *o);
void fgt_out_free(struct fgt_out *o);

/* One line (what is wrong, what to do), or a JSON "error" object with -j. */
void fgt_out_error(FILE *f, bool json, int status, const char *msg);
void fgt_out_warning(struct fgt_out *o, const char *code, const char *msg);
void fgt_out_start(struct fgt_out *o, const struct fgt_plan *p);
void fgt_out_event(struct fgt_out *o, const struct fgt_event *e);
void fgt_out_activation(const struct fgt_activation *act, void *ctx);	/* fgt_activation_cb */
void fgt_out_interval(struct fgt_out *o, const struct fgt_assembler *a, uint64_t lost);
void fgt_out_final(struct fgt_out *o, const struct fgt_assembler *a, uint64_t lost);

#endif
