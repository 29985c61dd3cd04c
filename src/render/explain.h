/* SPDX-License-Identifier: GPL-2.0 */
/* --explain's renderers (src/render/explain.c). */
#ifndef FGT_EXPLAIN_H
#define FGT_EXPLAIN_H

#include <stdbool.h>
#include <stdio.h>
#include "common/json_writer.h"
#include "host/holders.h"
#include "watch/plan.h"
#include "model/joined.h"

void fgt_plan_explain(const struct fgt_plan *p, FILE *f);
void fgt_plan_explain_json(const struct fgt_plan *p, json_writer_t *jw);
/* All of --explain: the plan, and who holds fgraph (h NULL: not read in
 * time; active: ftrace_graph_active, -1 unknown; joined: a 0->1 step under
 * way, whose walk defers the fentry/fexit probes, else NULL), as text or JSON. */
void fgt_explain_print(FILE *f, const struct fgt_plan *p, const struct fgt_holders *h,
		       int active, const struct fgt_joined *joined, bool json);

#endif
