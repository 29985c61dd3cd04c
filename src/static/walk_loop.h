/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The static decoder's walk finder (src/static/walk_loop.c): the walk over
 * the threads found by its loop, where no __rcu_read_lock call marks it.
 */
#ifndef FGT_STATIC_WALK_LOOP_H
#define FGT_STATIC_WALK_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include "static/flow.h"

/* The thread loops (d->walk, d->latch); how many, -1: out of memory. */
int fgt_walk_loop_find(struct dec *d);
/* Inside the walk: its RCU read-side section, or its loop. */
bool fgt_walk_loop_in(const struct dec *d, size_t i);

#endif
