// SPDX-License-Identifier: GPL-2.0
/*
 * The plan, from the kernel's facts and the probe results alone (no syscall
 * here: tests/test_plan.c runs it over every lab kernel's shape), and how
 * --explain prints it. The rows, their candidates and the figures are in
 * src/facts/kfacts.c; this file only chooses among them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "common/exit_codes.h"
#include "watch/plan.h"

const char *fgt_row_skip(const struct fgt_kernel *k, const struct fgt_probe_row *r)
{
	bool cache = k->stack_src == FGT_STACK_CACHE;

	/* each attach patches kernel text twice (attach, detach): rows that
	 * cannot serve this kernel are not tried */
	if (r->need == FGT_NEED_CACHE && !cache)
		return "not tried: shadow stacks come from kmalloc";
	if (r->need == FGT_NEED_KMALLOC && cache)
		return "not tried: shadow stacks come from the fgraph_stack cache";
	return NULL;
}

void fgt_plan_enumerate(struct fgt_plan *p)
{
	p->nr_probes = 0;
	for (int r = 0; r < FGT_ROLE__NR; r++) {
		const struct fgt_probe_row *row = &fgt_probe_rows[r];
		const char *skip = fgt_row_skip(&p->k, row);

		if (row->kind == FGT_PK_TEST_RUN)
			continue;
		for (int c = 0; fgt_row_cand(row, c) && p->nr_probes < FGT_PLAN_MAX_PROBES; c++)
			p->probes[p->nr_probes++] = (struct fgt_probe){
				.role = (enum fgt_role)r, .cand = c, .skipped = skip,
			};
	}
}

/* The first candidate of the row that attached, in table order. */
static int first_ok(const struct fgt_plan *p, enum fgt_role r)
{
	int best = FGT_NO_CAND;

	for (int i = 0; i < p->nr_probes; i++) {
		const struct fgt_probe *pr = &p->probes[i];

		if (pr->role == r && pr->ok && (best == FGT_NO_CAND || pr->cand < best))
			best = pr->cand;
	}
	return best;
}

const char *fgt_plan_target(const struct fgt_plan *p, enum fgt_role r)
{
	const struct fgt_cand *c;

	if (!fgt_plan_has(p, r))
		return NULL;
	c = fgt_row_cand(&fgt_probe_rows[r], p->chosen[r]);
	return c ? c->target : NULL;
}

bool fgt_plan_has_lat(const struct fgt_plan *p)
{
	return fgt_plan_has(p, FGT_ROLE_LAT_CACHE) || fgt_plan_has(p, FGT_ROLE_LAT_CACHE_SIZE) ||
	       fgt_plan_has(p, FGT_ROLE_LAT_SIZE);
}

const char *fgt_plan_fig_path(const struct fgt_plan *p, enum fgt_figure f)
{
	enum fgt_role r = p->fig_row[f];

	if (r == FGT_ROLE__NR)
		return NULL;
	return fgt_probe_rows[r].direct ? "direct" : "attributed";
}

static void choose_rows(struct fgt_plan *p, enum fgt_path_pref pref)
{
	for (int r = 0; r < FGT_ROLE__NR; r++) {
		const struct fgt_probe_row *row = &fgt_probe_rows[r];

		p->chosen[r] = FGT_NO_CAND;
		if (row->direct && pref == FGT_PATH_ATTRIBUTED)
			continue;
		if (row->kind == FGT_PK_TEST_RUN)
			p->chosen[r] = 0;	/* not a probe: always loaded */
		else
			p->chosen[r] = first_ok(p, (enum fgt_role)r);
	}
	/* the sweeps' fentry/fexit only make sense inside a direct activation */
	if (!fgt_plan_has(p, FGT_ROLE_ACT_DIRECT))
		p->chosen[FGT_ROLE_SWEEP_DIRECT] = FGT_NO_CAND;
	/* one allocator shape serves a cache kernel; kmalloc ones may use two */
	if (fgt_plan_has(p, FGT_ROLE_LAT_CACHE)) {
		p->chosen[FGT_ROLE_LAT_CACHE_SIZE] = FGT_NO_CAND;
		p->chosen[FGT_ROLE_LAT_SIZE] = FGT_NO_CAND;
	}
}

/* The attributed path: every row it needs attached (or not needed on this
 * kernel), and the functions holding the list and the sweep found. */
static bool attributed_ok(const struct fgt_plan *p)
{
	for (int r = 0; r < FGT_ROLE__NR; r++) {
		const struct fgt_probe_row *row = &fgt_probe_rows[r];

		if (row->attributed_needs && !fgt_row_skip(&p->k, row) &&
		    !fgt_plan_has(p, (enum fgt_role)r))
			return false;
	}
	return p->k.start.name && p->k.sweep.name;
}

static void choose_figures(struct fgt_plan *p)
{
	for (int f = 0; f < FGT_FIG__NR; f++) {
		p->fig_row[f] = FGT_ROLE__NR;
		for (int i = 0; i < 3 && fgt_figures[f].rows[i] != FGT_ROLE__NR; i++) {
			enum fgt_role r = fgt_figures[f].rows[i];
			const struct fgt_probe_row *row = &fgt_probe_rows[r];

			/* the attributed rows of a figure stand even when a
			 * probe of theirs failed: the figure is then missing,
			 * and the plan's errors say why */
			if (fgt_plan_has(p, r) ||
			    (!row->direct && !row->lazy && !fgt_row_skip(&p->k, row))) {
				p->fig_row[f] = r;
				break;
			}
		}
	}
}

static void fill_kconf(struct fgt_plan *p)
{
	const struct fgt_kernel *k = &p->k;
	struct fgt_kconf *c = &p->kconf;

	memset(c, 0, sizeof(*c));
	c->sweep_lo = k->sweep.lo;
	c->sweep_hi = k->sweep.hi;
	c->start_lo = k->start.lo;
	c->start_hi = k->start.hi;
	c->fork_lo = k->fork.lo;
	c->fork_hi = k->fork.hi;
	c->idle_lo = k->idle.lo;
	c->idle_hi = k->idle.hi;
	c->exit_lo = k->exit.lo;
	c->exit_hi = k->exit.hi;
	c->rth_addr = k->addr[FGT_SYM_RETURN_TO_HANDLER];
	c->text_lo = k->addr[FGT_SYM_STEXT];
	c->text_hi = k->addr[FGT_SYM_ETEXT];
	c->graph_active_addr = k->addr[FGT_SYM_GRAPH_ACTIVE];
	c->nr_threads_addr = k->addr[FGT_SYM_NR_THREADS];
	c->cachep_addr = k->stack_src == FGT_STACK_CACHE ? k->addr[FGT_SYM_STACK_CACHEP] : 0;
	c->shadow_depth = k->shadow_depth;
	c->shadow_bytes = k->shadow_bytes;
	c->list_bytes = FGT_RETSTACK_BATCH * sizeof(__u64);
	c->direct_act = fgt_plan_has(p, FGT_ROLE_ACT_DIRECT);
	c->direct_fork = fgt_plan_has(p, FGT_ROLE_FORK_DIRECT);
}

int fgt_plan_choose(struct fgt_plan *p, enum fgt_path_pref pref, char *msg, size_t len)
{
	p->pref = pref;
	choose_rows(p, pref);
	p->attributed_ok = attributed_ok(p);
	choose_figures(p);
	fill_kconf(p);
	if (p->tracing_refused) {
		snprintf(msg, len, "this kernel refuses BPF tracing programs (loading "
			 "fentry/tp_btf programs failed: %s); fgraphtop needs "
			 "CONFIG_BPF_SYSCALL, CONFIG_BPF_JIT and CONFIG_DEBUG_INFO_BTF, and no "
			 "lockdown (check `bpftool feature probe`)",
			 strerror(p->tracing_err ? -p->tracing_err : EINVAL));
		return FGT_EXIT_NO_TRACING;
	}
	if (pref == FGT_PATH_DIRECT && !fgt_plan_has(p, FGT_ROLE_ACT_DIRECT)) {
		snprintf(msg, len, "--path direct: the fgraph functions cannot be attached on "
			 "this kernel (see --explain); use --path attributed or no --path");
		return FGT_EXIT_NO_PATH;
	}
	if (!fgt_plan_has(p, FGT_ROLE_ACT_DIRECT) && !p->attributed_ok) {
		snprintf(msg, len, "no path observes the 0->1 step on this kernel: the kmem "
			 "tracepoints did not attach (see --explain)");
		return FGT_EXIT_NO_PATH;
	}
	return 0;
}

/* ---- --explain -------------------------------------------------------------- */

const char *fgt_probe_why(const struct fgt_probe *pr, char *buf, size_t len)
{
	const char *target = fgt_row_cand(&fgt_probe_rows[pr->role], pr->cand)->target;

	if (pr->skipped)
		snprintf(buf, len, "%s", pr->skipped);
	else if (pr->ok)
		snprintf(buf, len, "attached");
	else if (pr->load_err == -ESRCH || pr->load_err == -ENOENT)
		snprintf(buf, len, "load refused (%d): %s not in kernel BTF (absent or inlined)",
			 pr->load_err, target);
	else if (pr->load_err)
		snprintf(buf, len, "load refused (%d): %s", pr->load_err, strerror(-pr->load_err));
	else if (pr->attach_err == -EBUSY)
		snprintf(buf, len, "attach refused (-EBUSY): no __fentry__ nop, a notrace function "
			 "(kernel/trace is built without ftrace instrumentation)");
	else if (pr->attach_err == -ENOENT || pr->attach_err == -EINVAL)
		snprintf(buf, len, "attach refused (%d): %s; notrace function or not in "
			 "available_filter_functions", pr->attach_err, strerror(-pr->attach_err));
	else
		snprintf(buf, len, "attach refused (%d): %s", pr->attach_err,
			 strerror(-pr->attach_err));
	return buf;
}

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
				 "raw_tp/kfree of it", p->kconf.list_bytes, k->start.name);
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

		fprintf(out, "  %-4s %-6s %-32s %s\n", pr->ok ? "ok" : pr->skipped ? "-" : "no",
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
