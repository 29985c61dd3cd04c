/* SPDX-License-Identifier: GPL-2.0 */
/* The code's answer as JSON fields (src/render/static_json.c). */
#ifndef FGT_STATIC_JSON_H
#define FGT_STATIC_JSON_H

#include "common/json_writer.h"
#include "static/static_check.h"

/* The result as a JSON object's fields (the caller opens and closes it):
 * verdict, why, evidence, source, symbols, function, bytes, insns, ms, sites
 * [{site, call, cache, gfp, gfp_flags, size, rcu, kind}], rcu_read_lock,
 * rcu_read_unlock (docs/json.md, "static"). */
void fgt_static_json_fields(const struct fgt_static_result *r, json_writer_t *jw);

#endif
