/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session's status snapshot (src/watch/snapshot.c): the activation under
 * way and its progress, the fork path, the judge, the losses, who holds
 * fgraph, the exposure; what has changed, and whether anything is under way.
 */
#ifndef FGT_WATCH_SNAPSHOT_H
#define FGT_WATCH_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include "model/activation.h"
#include "model/exposure_model.h"
#include "model/status.h"

struct fgt_session;

/* ftrace_graph_active now; -1 unknown. */
int fgt_session_graph_active(struct fgt_session *s);
uint64_t fgt_session_lost(struct fgt_session *s);
/* The activation under way (and its progress), the fork path, the judge,
 * the losses, who holds fgraph (want_holders), now. */
void fgt_session_status(struct fgt_session *s, struct fgt_status *st);
/* The holders' generation, and with events the events fed so far: has
 * anything changed since the last call's value? */
uint64_t fgt_session_changes(struct fgt_session *s, bool events);
/*
 * The exposure hook: the threads as a task iterator walked them at `ns`
 * (CLOCK_MONOTONIC), src/watch/exposure.c. The status shows it, priced at this
 * host's own cost of a visit once an unfixed activation showed it; a scan
 * taken before an activation began makes that activation's U exact
 * (fgt_progress_lacking_at_start()) and its visits known.
 */
void fgt_session_set_exposure(struct fgt_session *s, const struct fgt_exp_walk *w, uint64_t ns);
/* An activation is under way, or its 0->1 step has begun: no time to scan. */
bool fgt_session_busy(const struct fgt_session *s);

/* A joined trigger named by its sweeps (cur): its way in from their stack. */
void fgt_snapshot_join_via(struct fgt_session *s, const struct fgt_activation *cur);

#endif
