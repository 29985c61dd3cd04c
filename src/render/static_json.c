// SPDX-License-Identifier: GPL-2.0
/*
 * The code's answer (struct fgt_static_result) as JSON fields: the live
 * tool's "static" record, check's "static" object and fgt-static's output
 * all write it through here. The decoder (src/static/) writes no JSON.
 */
#include "facts/kfacts.h"
#include "render/static_json.h"

static void json_site(const struct fgt_static_site *s, json_writer_t *jw)
{
	char buf[48];

	jsonw_start_object(jw);
	jsonw_string_field(jw, "site", s->at);
	jsonw_string_field(jw, "call", s->fn->name);
	jsonw_bool_field(jw, "tail", s->tail);
	jsonw_bool_field(jw, "thunk", s->thunk);
	if (s->fn->cache_arg >= 0)
		jsonw_string_field(jw, "cache", s->cache_name);
	if (s->gfp.kind == FGT_VAL_CONST) {
		jsonw_string_field(jw, "gfp", fgt_gfp_name((uint32_t)s->gfp.v, buf, sizeof(buf)));
		jsonw_uint_field(jw, "gfp_flags", s->gfp.v);
		jsonw_bool_field(jw, "blocking", fgt_gfp_blocking((uint32_t)s->gfp.v));
	} else {
		jsonw_null_field(jw, "gfp");
	}
	if (s->fn->size_arg >= 0) {
		if (s->size.kind == FGT_VAL_CONST)
			jsonw_uint_field(jw, "size", s->size.v);
		else
			jsonw_null_field(jw, "size");
	}
	jsonw_string_field(jw, "rcu", fgt_static_rcu_name(s->rcu));
	jsonw_string_field(jw, "kind", fgt_static_kind_name(s->kind));
	if (s->dest != FGT_DEST_NONE)
		jsonw_string_field(jw, "stored", fgt_static_dest_name(s->dest));
	else
		jsonw_null_field(jw, "stored");
	jsonw_end_object(jw);
}

void fgt_static_json_fields(const struct fgt_static_result *r, json_writer_t *jw)
{
	jsonw_string_field(jw, "verdict", fgt_verdict_answer(r->verdict));
	if (r->why != FGT_SW_NONE)
		jsonw_string_field(jw, "why", fgt_static_why_name(r->why));
	jsonw_string_field(jw, "evidence", r->evidence);
	if (r->source[0])
		jsonw_string_field(jw, "source", r->source);
	if (r->symbols[0])
		jsonw_string_field(jw, "symbols", r->symbols);
	if (r->release[0])
		jsonw_string_field(jw, "release", r->release);
	if (r->build_id[0])
		jsonw_string_field(jw, "build_id", r->build_id);
	if (r->func[0]) {
		jsonw_string_field(jw, "function", r->func);
		jsonw_uint_field(jw, "bytes", r->func_len);
		jsonw_uint_field(jw, "insns", r->insns);
	}
	jsonw_float_field(jw, "ms", r->ms);
	if (r->insns) {
		/* how the walk and the shadow stacks' destination were told */
		jsonw_string_field(jw, "walk", r->walk_by_loop ? "thread_loop" : "rcu_read_lock");
		if (r->ret_stack_off) {
			jsonw_uint_field(jw, "ret_stack_off", r->ret_stack_off);
			jsonw_string_field(jw, "ret_stack_off_from", r->ret_stack_off_btf ? "btf" : "walk");
		}
	}
	jsonw_name(jw, "sites");
	jsonw_start_array(jw);
	for (unsigned int i = 0; i < r->nr_sites; i++)
		json_site(&r->sites[i], jw);
	jsonw_end_array(jw);
	jsonw_name(jw, "rcu_read_lock");
	jsonw_start_array(jw);
	for (unsigned int i = 0; i < r->nr_rcu_lock; i++)
		jsonw_string(jw, r->rcu_lock[i]);
	jsonw_end_array(jw);
	jsonw_name(jw, "rcu_read_unlock");
	jsonw_start_array(jw);
	for (unsigned int i = 0; i < r->nr_rcu_unlock; i++)
		jsonw_string(jw, r->rcu_unlock[i]);
	jsonw_end_array(jw);
}
