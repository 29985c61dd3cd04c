/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live tool, `fgraphtop` without a command (src/live/live.c): --explain,
 * or the session started and watched until stopped. Its command line is
 * src/env.c's, its process set-up src/live_main.c's; check (src/check/)
 * stands beside it, and neither includes the other.
 */
#ifndef FGT_LIVE_H
#define FGT_LIVE_H

#include <stdbool.h>
#include "watch/plan.h"

/* What the command line asked for (src/env.c's struct fgt_env, copied). */
struct fgt_live_opts {
	unsigned int interval_s;
	unsigned int duration_s;	/* 0: until stopped */
	unsigned int ringbuf_mb;	/* 0: the default */
	bool json;
	bool events;
	bool explain;
	bool no_screen;
	enum fgt_path_pref path;
};

/* Signals, plan, then --explain or the watch; messages said; the exit status. */
int fgt_live_run(const struct fgt_live_opts *lo);

#endif
