/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A finished activation into its record, and a step joined under way
 * followed to its record (src/watch/follow.c).
 */
#ifndef FGT_WATCH_FOLLOW_H
#define FGT_WATCH_FOLLOW_H

#include <stdbool.h>
#include "model/activation.h"
#include "model/verdict.h"

struct fgt_session;

/* The assemblers' callback (ctx: the session): a finished activation, its
 * walk pricing a visit on this host (whole ones only: a lost event makes
 * its figures a lower bound), a joined step's record said so, then the
 * record made by the one judge. */
void fgt_follow_activation(const struct fgt_activation *rec, void *ctx);
/*
 * The tracepoints see the sweeps from their attach: the join is taken again
 * there, with the sweeps they saw while that count was taken (read at once
 * after it: the ring buffer holds them since the attach).
 */
void fgt_follow_rebase(struct fgt_session *s);
/*
 * A step joined under way (want_join): its looks at their steady rate, its
 * record once its walk ends, then the deferred rows' attach once its
 * trigger has left register_ftrace_graph(). Called every pass of the live
 * loop; true when something changed for the view.
 */
bool fgt_session_join_tick(struct fgt_session *s);
/*
 * Stopped while a step is joined (Ctrl-C before a look found its end): its
 * record all the same, with what was seen and inferred by one last look;
 * its walk over only if a look found it so. Nothing when none is joined.
 */
void fgt_session_join_stop(struct fgt_session *s);
/*
 * An activation begun without its ACT_BEGIN while fgraphtop watched (a
 * kernel whose fgraph keeps no ret_stack_list): ended, complete, at its last
 * event once its walker has left register_ftrace_graph(). Called after every
 * poll (the live loop, check's watch); true when it ended.
 */
bool fgt_session_unbracketed_tick(struct fgt_session *s);
/* Its walk known over (check --trigger's system call returned): ended now,
 * BPF's and the assembler's alike. */
void fgt_session_unbracketed_end(struct fgt_session *s);
/* The code's verdict for the joined step's inference (the static verdict). */
void fgt_session_join_code(struct fgt_session *s, enum fgt_verdict code);

#endif
