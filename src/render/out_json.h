/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fgraphtop's JSON lines (-j), under docs/json.md's schema
 * (src/render/out_json.c): one record per call, through the one JSON writer.
 */
#ifndef FGT_OUT_JSON_H
#define FGT_OUT_JSON_H

#include "bpf/events_abi.h"
#include "common/json_writer.h"
#include "host/holders.h"
#include "model/exposure_model.h"
#include "model/joined.h"
#include "model/record.h"
#include "model/status.h"
#include "watch/plan.h"

/* The exposure as a JSON object, check's, hold's and the live view's:
 * {threads, lacking, sweeps, visits, estimate_s, ns_per_visit, cost}. */
void fgt_out_exposure_json(json_writer_t *jw, const struct fgt_exp_walk *w,
			   const struct fgt_exp_estimate *e);
/* The trigger of a step joined under way, as fields: its pid, tid, comm,
 * syscall and via (the live view's joined record, check's and --explain's
 * under_way objects). */
void fgt_out_join_trigger_json(json_writer_t *jw, const struct fgt_join_trigger *t);
/* Who holds fgraph, as the fields of a holders or plan record (--explain). */
void fgt_out_holders_json(json_writer_t *jw, const struct fgt_holders *h, int graph_active);

/* The live view's records, for src/render/output.c. */
struct fgt_out;
struct fgt_static_result;
void out_json_start(struct fgt_out *o, const struct fgt_plan *p);
void out_json_static(struct fgt_out *o, const struct fgt_static_result *r);
void out_json_event(struct fgt_out *o, const struct fgt_event *e,
		    const struct fgt_frame *frames, int nr_frames);
void out_json_record(struct fgt_out *o, const struct fgt_record *rec, const char *evidence);
void out_json_joined(struct fgt_out *o, const struct fgt_joined *j);
void out_json_holders(struct fgt_out *o, const struct fgt_holders *h, int graph_active,
		      const char *hms);
void out_json_interval(struct fgt_out *o, const struct fgt_status *st, const char *hms);
void out_json_final(struct fgt_out *o, const struct fgt_status *st, const char *evidence);

#endif
