/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Threads parked by `fgraphtop check --trigger` so the activation has work to
 * do: created while fgraph is off, they lack shadow stacks, so the walk must
 * serve at least n threads. With n > 64, an unfixed kernel needs >= 3 sweeps
 * (batches of 32) and a fixed one needs 1: the two cannot look alike.
 */
#ifndef FGT_PARKED_THREADS_H
#define FGT_PARKED_THREADS_H

/*
 * 32 unfixed sweeps at least: on the attributed path a sweep counts only
 * where the gaps between batches show walks (src/model/activation.c), which
 * every recorded unfixed walk does by its 32nd sweep (tests/data's .sweeps,
 * test_progress.c's test_recorded_walks_shown)
 */
#define FGT_PARK_THREADS	1024

struct fgt_park;

/* Start n threads blocked on a pipe (small stacks). NULL + errno on failure
 * (the threads already started are reaped). */
struct fgt_park *fgt_park_start(unsigned int n);
unsigned int fgt_park_count(const struct fgt_park *p);
/* Wake them, wait for all to exit, free. NULL is fine. */
void fgt_park_stop(struct fgt_park *p);

#endif
