/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live tool's --explain (src/live/explain_run.c): what it reads of the
 * running kernel beside the plan (who holds fgraph, ftrace_graph_active),
 * then src/render/explain.c prints it all.
 */
#ifndef FGT_EXPLAIN_RUN_H
#define FGT_EXPLAIN_RUN_H

#include <stdbool.h>
#include "watch/session.h"

/* --explain for the session's plan, as text or one JSON record, on stdout. */
void fgt_live_explain(const struct fgt_session *s, bool json);

#endif
