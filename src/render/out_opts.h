/* SPDX-License-Identifier: GPL-2.0 */
/* What the renderer is told at start (src/render/output.h), in a header of
 * its own: the renderer's state (out_state.h) keeps a copy. */
#ifndef FGT_OUT_OPTS_H
#define FGT_OUT_OPTS_H

#include <stdbool.h>
#include <stdint.h>

struct fgt_out_opts {
	bool json;
	bool events;
	bool screen;		/* top-like redraw (stdout is a tty, no -j/--events) */
	uint64_t start_ns;	/* monotonic ns at start: event times are relative to it */
	int64_t start_wall_ns;	/* CLOCK_REALTIME at start_ns: wall-clock times of events */
	int cols, rows;		/* the screen's size (0: 80x24) */
};

#endif
