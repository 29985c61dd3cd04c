/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The renderer's state (src/render/output.c keeps it): what every format
 * reads, the history and the last activation's text the screen shows, the
 * holders last printed. Only render/'s out_*.c include it.
 */
#ifndef FGT_OUT_STATE_H
#define FGT_OUT_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "common/json_writer.h"
#include "host/holders.h"
#include "bpf/events_abi.h"
#include "model/progress.h"
#include "model/verdict.h"
#include "render/out_opts.h"
#include "render/screen.h"
#include "static/static_check.h"

#define FGT_HISTORY_MAX	64

/* One finished activation, as the history table shows it. */
struct hist_ent {
	uint32_t seq;
	uint64_t begin_ns;		/* monotonic */
	char comm[FGT_COMM_LEN];
	char via[FGT_VIA_LEN];
	uint64_t threads, served, dur_ns, lost;
	int64_t sweeps;			/* -1: not observable */
	enum fgt_verdict verdict;
	bool complete;
};

struct fgt_out {
	FILE *f;
	struct fgt_out_opts o;
	json_writer_t *jw;
	char last[4096];		/* last activation's text, for the screen */
	char code[FGT_STATIC_EVIDENCE + 64];	/* the static verdict, whole */
	char code_head[FGT_STATIC_EVIDENCE + 96];	/* its first clause, for the screen */
	struct hist_ent hist[FGT_HISTORY_MAX];	/* a ring, newest at nhist - 1 */
	unsigned int nhist;		/* all reported */
	struct fgt_lines lines;		/* the screen's frame */
	struct fgt_holders shown;	/* holders last printed (lines, -j) */
	int shown_active;
	bool shown_any;
};

#endif
