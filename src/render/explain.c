// SPDX-License-Identifier: GPL-2.0
/*
 * --explain, rendered: the kernel's facts, every probe tried and why it did
 * or did not attach, the plan's choice for each figure, and who holds fgraph
 * now. Text for people, one "plan" JSON record for tools. The plan is made
 * elsewhere (src/watch/plan.c, probe.c); nothing here decides.
 */
#include <stdio.h>
#include <string.h>
#include "common/json_writer.h"
#include "render/explain.h"
#include "render/out_json.h"
#include "render/out_text.h"

/* The shadow stack's size in words, for the allocation figure. */
static void shadow_words(const struct fgt_kernel *k, char *buf, size_t len)
{
	if (k->stack_src == FGT_STACK_CACHE)
		snprintf(buf, len, "cache fgraph_stack");
	else if (k->shadow_depth)
		snprintf(buf, len, "size %u * sizeof(struct ftrace_ret_stack)", k->shadow_depth);
	else
		snprintf(buf, len, "size %u", k->shadow_bytes);
}

/* The fork path's latency: the allocator functions attached, ", "-separated. */
static void lat_targets(const struct fgt_plan *p, char *buf, size_t len)
{
	static const enum fgt_role lat[] = {
		FGT_ROLE_LAT_CACHE, FGT_ROLE_LAT_CACHE_SIZE, FGT_ROLE_LAT_SIZE,
	};
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]) && off < len; i++)
		if (fgt_plan_has(p, lat[i]))
			off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
					fgt_plan_target(p, lat[i]));
}

/* How a figure is served by the row the plan gave it, in words. */
static void fig_how(const struct fgt_plan *p, enum fgt_figure f, char *buf, size_t len)
{
	enum fgt_role r = p->fig_row[f];
	const struct fgt_kernel *k = &p->k;
	char words[96];

	switch (f) {
	case FGT_FIG_ACT:
		if (r == FGT_ROLE_ACT_DIRECT)
			snprintf(buf, len, "fentry/fexit %s", fgt_plan_target(p, r));
		else
			snprintf(buf, len, "raw_tp/kmalloc of the ret_stack_list (%u B) from %s, "
				 "raw_tp/kfree of it; without that list, the walk's first "
				 "allocation and its walker leaving register_ftrace_graph",
				 p->kconf.list_bytes, k->start.name);
		return;
	case FGT_FIG_SWEEPS:
		if (r == FGT_ROLE_SWEEP_DIRECT)
			snprintf(buf, len, "fentry/fexit %s", fgt_plan_target(p, r));
		else
			snprintf(buf, len, "inferred from the allocation sequence (batches of %u "
				 "blocking allocations)", FGT_RETSTACK_BATCH);
		return;
	case FGT_FIG_ALLOCS:
		shadow_words(k, words, sizeof(words));
		snprintf(buf, len, "raw_tp/%s, %s, call_site in %s%s",
			 fgt_probe_rows[r].cand[0].target, words, k->sweep.name,
			 fgt_plan_has(p, FGT_ROLE_ACT_DIRECT) ? " or inside the fentry/fexit pair" : "");
		return;
	case FGT_FIG_LAT_SWEEP:
		snprintf(buf, len, "gaps between the sweep's consecutive allocation events");
		return;
	case FGT_FIG_LAT_FORK:
		lat_targets(p, words, sizeof(words));
		if (words[0])
			snprintf(buf, len, "fentry/fexit %s, attached only while fgraph is active",
				 words);
		else
			snprintf(buf, len, "none: no allocator function attached");
		return;
	case FGT_FIG_FORK:
		if (r == FGT_ROLE_FORK_DIRECT)
			snprintf(buf, len, "fexit %s", fgt_plan_target(p, r));
		else if (fgt_plan_has(p, FGT_ROLE_TP_NEWTASK))
			snprintf(buf, len, "tp_btf/task_newtask (task->ret_stack)");
		else
			snprintf(buf, len, "none");
		return;
	default:
		buf[0] = '\0';
	}
}

/* A figure's path column: latency of the sweep follows the sweeps; the fork
 * path's latency and the allocations are always the kmem side's. */
static const char *fig_path(const struct fgt_plan *p, enum fgt_figure f)
{
	const char *path = fgt_plan_fig_path(p, f);

	return path ? path : "attributed";
}

static const char *probe_target(const struct fgt_probe *pr)
{
	return fgt_row_cand(&fgt_probe_rows[pr->role], pr->cand)->target;
}

void fgt_plan_explain(const struct fgt_plan *p, FILE *out)
{
	const struct fgt_kernel *k = &p->k;
	char why[256], how[256];

	fprintf(out, "Kernel facts (kallsyms, BTF):\n");
	fprintf(out, "  sweep code in      %s [%#llx, %#llx)\n", k->sweep.name ? k->sweep.name : "-",
		(unsigned long long)k->sweep.lo, (unsigned long long)k->sweep.hi);
	fprintf(out, "  ret_stack_list in  %s\n", k->start.name ? k->start.name : "-");
	fprintf(out, "  shadow stack       %s\n", fgt_stack_facts[k->stack_src].what);
	fprintf(out, "  ftrace_graph_active %s, nr_threads %s, return_to_handler %s\n",
		k->addr[FGT_SYM_GRAPH_ACTIVE] ? "found" : "MISSING",
		k->addr[FGT_SYM_NR_THREADS] ? "found" : "MISSING",
		k->addr[FGT_SYM_RETURN_TO_HANDLER] ? "found" : "MISSING");
	fprintf(out, "\nProbes (each loaded and attached alone):\n");
	for (int i = 0; i < p->nr_probes; i++) {
		const struct fgt_probe *pr = &p->probes[i];

		fprintf(out, "  %-4s %-6s %-32s %s\n", pr->deferred && !pr->load_err ? "def" :
			pr->ok ? "ok" : pr->skipped ? "-" : "no",
			fgt_probe_kind_name(fgt_probe_rows[pr->role].kind), probe_target(pr),
			fgt_probe_why(pr, why, sizeof(why)));
	}
	fprintf(out, "\nPlan%s:\n", p->pref == FGT_PATH_DIRECT ? " (--path direct)" :
		p->pref == FGT_PATH_ATTRIBUTED ? " (--path attributed)" : "");
	for (int f = 0; f < FGT_FIG__NR; f++) {
		fig_how(p, f, how, sizeof(how));
		fprintf(out, "  %-50s %-10s %s\n", fgt_figures[f].what, fig_path(p, f), how);
	}
}

void fgt_plan_explain_json(const struct fgt_plan *p, json_writer_t *jw)
{
	const struct fgt_kernel *k = &p->k;
	char why[256], how[256];

	jsonw_name(jw, "kernel");
	jsonw_start_object(jw);
	jsonw_string_field(jw, "sweep_holder", k->sweep.name ? k->sweep.name : "");
	jsonw_string_field(jw, "start_holder", k->start.name ? k->start.name : "");
	jsonw_string_field(jw, "shadow_stack", k->stack_src == FGT_STACK_CACHE ?
			   "kmem_cache" : "kmalloc");
	jsonw_uint_field(jw, "shadow_stack_bytes", k->shadow_depth ? 0 : k->shadow_bytes);
	jsonw_end_object(jw);
	jsonw_name(jw, "probes");
	jsonw_start_array(jw);
	for (int i = 0; i < p->nr_probes; i++) {
		const struct fgt_probe *pr = &p->probes[i];
		const struct fgt_probe_row *row = &fgt_probe_rows[pr->role];

		jsonw_start_object(jw);
		jsonw_string_field(jw, "kind", fgt_probe_kind_name(row->kind));
		jsonw_string_field(jw, "target", probe_target(pr));
		jsonw_bool_field(jw, "tried", !pr->skipped);
		jsonw_bool_field(jw, "ok", pr->ok);
		jsonw_bool_field(jw, "deferred", pr->deferred);
		jsonw_int_field(jw, "load_err", pr->load_err);
		jsonw_int_field(jw, "attach_err", pr->attach_err);
		jsonw_string_field(jw, "why", fgt_probe_why(pr, why, sizeof(why)));
		jsonw_string_field(jw, "role", row->what);
		jsonw_string_field(jw, "change", fgt_row_cand(row, pr->cand)->change);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
	jsonw_name(jw, "figures");
	jsonw_start_array(jw);
	for (int f = 0; f < FGT_FIG__NR; f++) {
		fig_how(p, f, how, sizeof(how));
		jsonw_start_object(jw);
		jsonw_string_field(jw, "figure", fgt_figures[f].what);
		jsonw_string_field(jw, "path", fig_path(p, f));
		jsonw_string_field(jw, "how", how);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
}

/* Why ftrace_graph_active could not be read: Debian's 6.1 arm64 kernel has
 * no CONFIG_KALLSYMS_ALL, so no data symbol has an address at all. */
static const char *unknown_why(const struct fgt_plan *p)
{
	if (!p->k.addr[FGT_SYM_GRAPH_ACTIVE])
		return "not in /proc/kallsyms (a kernel without CONFIG_KALLSYMS_ALL)";
	return "neither /proc/kcore nor BPF could read it";
}

/* A 0->1 step under way as --explain ran: why its probes are deferred. */
static void joined_explain(FILE *f, const struct fgt_joined *j)
{
	fprintf(f, "A 0->1 step is under way: pid %u tid %u (%s) %s; %llu threads still lack "
		"a stack, %llu served before this look (inferred). The walk holds ftrace_lock: "
		"fentry/fexit probes are loaded, their attach deferred.\n\n",
		j->trig.pid, j->trig.tid, j->trig.known ? j->trig.comm : "trigger not found",
		j->trig.via, (unsigned long long)j->seen.lacking,
		(unsigned long long)j->inferred.served);
}

static void joined_explain_json(json_writer_t *jw, const struct fgt_joined *j)
{
	jsonw_name(jw, "under_way");
	if (!j) {
		jsonw_null(jw);
		return;
	}
	jsonw_start_object(jw);
	jsonw_string_field(jw, "why", fgt_join_why_name(j->why));
	fgt_out_join_trigger_json(jw, &j->trig);
	jsonw_uint_field(jw, "lacking", j->seen.lacking);
	jsonw_uint_field(jw, "served_before", j->inferred.served);
	jsonw_string_field(jw, "probes", "deferred: the walk holds ftrace_lock");
	jsonw_end_object(jw);
}

void fgt_explain_print(FILE *f, const struct fgt_plan *p, const struct fgt_holders *h,
		       int active, const struct fgt_joined *joined, bool json)
{
	json_writer_t *jw;

	if (!json) {
		if (joined)
			joined_explain(f, joined);
		fgt_plan_explain(p, f);
		if (h)
			fgt_out_holders_explain(f, h, active, unknown_why(p));
		else
			fprintf(f, "\nWho holds fgraph now: not read within 2 s (tracefs busy: a "
				"tracer switch under way?)\n");
		return;
	}
	jw = jsonw_new(f);
	if (!jw)
		return;
	jsonw_head(jw, "plan");
	joined_explain_json(jw, joined);
	fgt_plan_explain_json(p, jw);
	if (h) {
		jsonw_name(jw, "holders");
		jsonw_start_object(jw);
		fgt_out_holders_json(jw, h, active);
		jsonw_end_object(jw);
	} else {
		jsonw_null_field(jw, "holders");
	}
	jsonw_end_object(jw);
	jsonw_destroy(&jw);
}
