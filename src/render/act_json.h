/* SPDX-License-Identifier: GPL-2.0 */
/* An activation's figures as JSON fields (src/render/act_json.c). */
#ifndef FGT_ACT_JSON_H
#define FGT_ACT_JSON_H

#include "common/json_writer.h"
#include "model/record.h"

/* The parts of the activation object a record carries (docs/json.md). */
enum {
	FGT_ACTJ_CALLS		= 1u << 0,	/* ret, alloc_ns (the live record) */
	FGT_ACTJ_WALK_NS	= 1u << 1,	/* walk_ns (the live record, hold) */
	FGT_ACTJ_FAILURES	= 1u << 2,	/* failures (check, hold) */
	FGT_ACTJ_DEGRADED	= 1u << 3,	/* failed_nonblocking, reserve_served,
						 * extra_sweeps, extra_sweeps_ns, rewalked (check) */
	FGT_ACTJ_OLD_NAMES	= 1u << 4,	/* check's and hold's schema 1 names too,
						 * until schema 2 (docs/json.md) */
};

/*
 * The activation's figures as fields of an object the caller opened, the
 * same names wherever they appear: nr_threads, sweeps (null when not
 * observable), walks, batches, served, duration_ns, lost, and the parts
 * asked for.
 * The live record, check's answer and hold's take all write them here.
 */
void fgt_act_json_fields(json_writer_t *jw, const struct fgt_act_figures *f, unsigned int parts);

#endif
