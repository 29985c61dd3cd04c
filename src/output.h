/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything fgraphtop prints of what it saw: per-event lines (--events),
 * activation records, interval summaries (-i), a top-like screen on a
 * terminal (src/screen.c draws it), and JSON lines (-j) through the one JSON
 * writer, under the schema of docs/json.md. Pure renderers: the session hands
 * out finished records and status snapshots (the activation under way's
 * progress, who holds fgraph); nothing here reads BPF, tracefs or judges.
 * Messages (errors, warnings) go through the message channel (log.h), not here.
 */
#ifndef FGT_OUTPUT_H
#define FGT_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "activation.h"
#include "exposure.h"
#include "fgraphtop.h"
#include "holders.h"
#include "json_writer.h"
#include "plan.h"
#include "progress.h"
#include "record.h"

struct fgt_out_opts {
	bool json;
	bool events;
	bool screen;		/* top-like redraw (stdout is a tty, no -j/--events) */
	uint64_t start_ns;	/* monotonic ns at start: event times are relative to it */
	int64_t start_wall_ns;	/* CLOCK_REALTIME at start_ns: wall-clock times of events */
	int cols, rows;		/* the screen's size (0: 80x24) */
};

/* What the session knows now, for the interval and final reports and the screen. */
struct fgt_status {
	const struct fgt_activation *cur;	/* under way, or NULL */
	const struct fgt_fork_stats *fork;
	const struct fgt_judge *judge;		/* every activation reported so far */
	uint64_t lost;
	uint64_t now_ns;			/* monotonic, when taken */
	const struct fgt_progress *progress;	/* cur's progress (NULL when none) */
	const struct fgt_holders *holders;	/* who holds fgraph; NULL: not read yet */
	uint64_t holders_ns;			/* when they were read (monotonic) */
	bool holders_stale;			/* ftrace_graph_active changed since: a read is due */
	int graph_active;			/* ftrace_graph_active now, -1 unknown */
	/*
	 * Exposure: the last task-iterator scan (src/exposure.c), threads
	 * lacking a shadow stack of all threads, and the unfixed walk over
	 * them priced; NULL before the first. The session keeps it
	 * (fgt_session_set_exposure()).
	 */
	const struct fgt_exp_walk *exposure;
	struct fgt_exp_estimate exposure_est;
};

/* The exposure as a JSON object, check's and the live view's:
 * {threads, lacking, sweeps, visits, estimate_s, ns_per_visit, cost}. */
void fgt_out_exposure_json(json_writer_t *jw, const struct fgt_exp_walk *w,
			   const struct fgt_exp_estimate *e);

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

/* --explain: who holds fgraph now, as text and as the plan record's field. */
void fgt_out_holders_explain(FILE *f, const struct fgt_holders *h, int graph_active);
void fgt_out_holders_json(json_writer_t *jw, const struct fgt_holders *h, int graph_active);

#endif
