/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything fgraphtop prints of what it saw: per-event lines (--events),
 * activation records, interval summaries (-i), a top-like screen on a
 * terminal (src/render/screen.c draws it), and JSON lines (-j) through the
 * one JSON writer, under the schema of docs/json.md. output.c keeps the
 * state and hands each call to its format: out_text.c (lines), out_json.c
 * (JSON), out_screen.c (the screen), with out_words.c for what more than
 * one of them writes. Pure renderers: the session hands out finished
 * records and status snapshots (the activation under way's progress, who
 * holds fgraph); nothing here reads BPF, tracefs or judges. Messages
 * (errors, warnings) go through the message channel (log.h), not here.
 */
#ifndef FGT_OUTPUT_H
#define FGT_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "model/activation.h"
#include "model/exposure_model.h"
#include "bpf/events_abi.h"
#include "host/holders.h"
#include "common/json_writer.h"
#include "watch/plan.h"
#include "model/progress.h"
#include "model/record.h"
#include "model/status.h"
#include "render/out_opts.h"

struct fgt_out;

struct fgt_out *fgt_out_new(FILE *f, const struct fgt_out_opts *o);
void fgt_out_free(struct fgt_out *o);

void fgt_out_start(struct fgt_out *o, const struct fgt_plan *p);
/* What this kernel's code says (the static verdict), at start: a line, a JSON
 * record of type "static", or the screen's second line. */
struct fgt_static_result;
void fgt_out_static(struct fgt_out *o, const struct fgt_static_result *r);
/* One kernel event (--events); frames: ACT_BEGIN's trigger stack. */
void fgt_out_event(struct fgt_out *o, const struct fgt_event *e,
		   const struct fgt_frame *frames, int nr_frames);
void fgt_out_record(const struct fgt_record *rec, void *ctx);
/* A 0->1 step joined under way: said at once (src/model/joined.h). */
void fgt_out_joined(struct fgt_out *o, const struct fgt_joined *j);	/* fgt_record_cb */
/* Every -i seconds: the interval summary (and the activation under way's
 * progress, lines and -j); the screen is redrawn. */
void fgt_out_interval(struct fgt_out *o, const struct fgt_status *st);
/* The screen only: redraw now (new figures, a resize). */
void fgt_out_redraw(struct fgt_out *o, const struct fgt_status *st);
void fgt_out_resize(struct fgt_out *o, int cols, int rows);
/* The terminal could not be had after all: lines instead of the screen. */
void fgt_out_set_screen(struct fgt_out *o, bool on);
/* Lines and -j: the holders, when they differ from those last printed. */
void fgt_out_holders(struct fgt_out *o, const struct fgt_status *st);
void fgt_out_final(struct fgt_out *o, const struct fgt_status *st);

#endif
