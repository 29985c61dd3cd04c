/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything fgraphtop prints of what it saw: per-event lines (--events),
 * activation records, interval summaries (-i), a top-like screen on a
 * terminal, and JSON lines (-j) through the one JSON writer, under the schema
 * of docs/json.md. Pure renderers: the session hands out finished records and
 * status snapshots; nothing here reads BPF or judges. Messages (errors,
 * warnings) go through the message channel (log.h), not here.
 */
#ifndef FGT_OUTPUT_H
#define FGT_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "activation.h"
#include "fgraphtop.h"
#include "plan.h"
#include "record.h"


struct fgt_out_opts {
	bool json;
	bool events;
	bool screen;		/* top-like redraw (stdout is a tty, no -j/--events) */
	uint64_t start_ns;	/* monotonic ns at start: event times are relative to it */
};

/* What the session knows now, for the interval and final reports. */
struct fgt_status {
	const struct fgt_activation *cur;	/* under way, or NULL */
	const struct fgt_fork_stats *fork;
	const struct fgt_judge *judge;		/* every activation reported so far */
	uint64_t lost;
};

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
void fgt_out_record(const struct fgt_record *rec, void *ctx);	/* fgt_record_cb */
void fgt_out_interval(struct fgt_out *o, const struct fgt_status *st);
void fgt_out_final(struct fgt_out *o, const struct fgt_status *st);

#endif
