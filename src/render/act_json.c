// SPDX-License-Identifier: GPL-2.0
/*
 * An activation's figures (struct fgt_act_figures, copied from the model)
 * as JSON fields. The live tool's "activation" record, check's and hold's
 * "activation" objects used to write them each in their own words
 * (served/duration_ns/lost beside threads_served/duration_s/lost_events);
 * they all come through here now, so one name means one figure everywhere.
 */
#include "render/act_json.h"

/* The figures only a fixed kernel under memory pressure makes non-zero. */
static void degraded_fields(json_writer_t *jw, const struct fgt_act_figures *f)
{
	jsonw_uint_field(jw, "failed_nonblocking", f->failed_nonblocking);
	jsonw_uint_field(jw, "reserve_served", f->reserve_served);
	jsonw_uint_field(jw, "extra_sweeps", f->extra_sweeps);
	jsonw_uint_field(jw, "extra_sweeps_ns", f->extra_sweeps_ns);
	jsonw_uint_field(jw, "rewalked", f->rewalked);
}

/*
 * Schema 1 promised check's and hold's consumers these names ("names are
 * stable"): they stay beside the shared ones until schema 2 drops them.
 */
static void old_name_fields(json_writer_t *jw, const struct fgt_act_figures *f,
			    unsigned int parts)
{
	jsonw_uint_field(jw, "threads_served", f->served);
	jsonw_float_field(jw, "duration_s", f->duration_ns / 1e9);
	if (parts & FGT_ACTJ_DEGRADED)
		jsonw_float_field(jw, "extra_sweeps_s", f->extra_sweeps_ns / 1e9);
	jsonw_uint_field(jw, "lost_events", f->lost);
}

void fgt_act_json_fields(json_writer_t *jw, const struct fgt_act_figures *f, unsigned int parts)
{
	const char *walks = fgt_walks_name(f->walks);

	jsonw_uint_field(jw, "nr_threads", f->nr_threads);
	if (parts & FGT_ACTJ_CALLS)
		jsonw_int_field(jw, "ret", f->ret);
	/* not observable (docs/EVENTS.md, "Walks"): no count */
	if (f->walks == FGT_WALKS_UNSEEN)
		jsonw_null_field(jw, "sweeps");
	else
		jsonw_uint_field(jw, "sweeps", f->sweeps);
	if (walks)
		jsonw_string_field(jw, "walks", walks);
	else
		jsonw_null_field(jw, "walks");
	/* what the allocations were cut into: with sweeps null, all there is */
	jsonw_uint_field(jw, "batches", f->batches);
	jsonw_uint_field(jw, "served", f->served);
	jsonw_uint_field(jw, "duration_ns", f->duration_ns);
	if (parts & FGT_ACTJ_CALLS)
		jsonw_uint_field(jw, "alloc_ns", f->alloc_ns);
	if (parts & FGT_ACTJ_WALK_NS)
		jsonw_uint_field(jw, "walk_ns", f->walk_ns);
	jsonw_uint_field(jw, "lost", f->lost);
	if (parts & FGT_ACTJ_FAILURES)
		jsonw_uint_field(jw, "failures", f->failures);
	if (parts & FGT_ACTJ_DEGRADED)
		degraded_fields(jw, f);
	if (parts & FGT_ACTJ_OLD_NAMES)
		old_name_fields(jw, f, parts);
}
