/* SPDX-License-Identifier: GPL-2.0 */
/* A snapshot of what a watching session knows, handed to the renderers
 * (src/render/output.h) by the session (src/watch/snapshot.c). */
#ifndef FGT_STATUS_H
#define FGT_STATUS_H

#include <stdbool.h>
#include <stdint.h>
#include "host/holders.h"
#include "model/activation.h"
#include "model/exposure_model.h"
#include "model/progress.h"
#include "model/joined.h"
#include "model/verdict.h"

/* What the session knows now, for the interval and final reports and the screen. */
struct fgt_status {
	const struct fgt_activation *cur;	/* under way, or NULL */
	const struct fgt_fork_stats *fork;
	const struct fgt_judge *judge;		/* every activation reported so far */
	uint64_t lost;
	uint64_t now_ns;			/* monotonic, when taken */
	const struct fgt_progress *progress;	/* cur's progress (NULL when none) */
	/* a step joined under way, until its record: what was seen and inferred */
	const struct fgt_joined *joined;
	const struct fgt_holders *holders;	/* who holds fgraph; NULL: not read yet */
	uint64_t holders_ns;			/* when they were read (monotonic) */
	bool holders_stale;			/* ftrace_graph_active changed since: a read is due */
	int graph_active;			/* ftrace_graph_active now, -1 unknown */
	/*
	 * Exposure: the last task-iterator scan (src/watch/exposure.c), threads
	 * lacking a shadow stack of all threads, and the unfixed walk over
	 * them priced; NULL before the first. The session keeps it
	 * (fgt_session_set_exposure()).
	 */
	const struct fgt_exp_walk *exposure;
	struct fgt_exp_estimate exposure_est;
};


#endif
