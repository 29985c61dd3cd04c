/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fgraphtop's lines (src/render/out_text.c): what it prints on a pipe, with
 * --events, or with --no-screen; the last activation's text, which the
 * screen shows too; and --explain's list of who holds fgraph.
 */
#ifndef FGT_OUT_TEXT_H
#define FGT_OUT_TEXT_H

#include <stdio.h>
#include "bpf/events_abi.h"
#include "host/holders.h"
#include "model/joined.h"
#include "model/record.h"
#include "model/status.h"
#include "watch/plan.h"

/* --explain: who holds fgraph now; graph_active -1: unknown, for the
 * reason why says. */
void fgt_out_holders_explain(FILE *f, const struct fgt_holders *h, int graph_active,
			     const char *why);

/* The live view's lines, for src/render/output.c. */
struct fgt_out;
void out_text_start(struct fgt_out *o, const struct fgt_plan *p);
/* The static verdict's line (o->code). */
void out_text_static(struct fgt_out *o);
void out_text_event(struct fgt_out *o, const struct fgt_event *e,
		    const struct fgt_frame *frames, int nr_frames);
/* The record's text into o->last, printed unless on the screen. */
void out_text_record(struct fgt_out *o, const struct fgt_record *rec, const char *evidence);
void out_text_joined(struct fgt_out *o, const struct fgt_joined *j);
void out_text_holders(struct fgt_out *o, const struct fgt_holders *h, int graph_active,
		      const char *hms);
void out_text_interval(struct fgt_out *o, const struct fgt_status *st, const char *hms);
void out_text_final(struct fgt_out *o, const struct fgt_status *st, const char *evidence);

#endif
