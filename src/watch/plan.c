// SPDX-License-Identifier: GPL-2.0
/*
 * The plan, from the kernel's facts and the probe results alone (no syscall
 * here: tests/watch/test_plan.c runs it over every lab kernel's shape), and how
 * --explain prints it. The rows, their candidates and the figures are in
 * src/facts/kfacts.c; this file only chooses among them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "common/exit_codes.h"
#include "host/ksyms.h"
#include "watch/plan.h"

/* include/linux/errno.h: the kernel's own, not in userspace's errno.h */
#define FGT_ENOTSUPP	524

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

int fgt_plan_target_btf_id(const struct fgt_plan *p, enum fgt_role r)
{
	if (!fgt_plan_has(p, r))
		return 0;
	for (int i = 0; i < p->nr_probes; i++)
		if (p->probes[i].role == r && p->probes[i].cand == p->chosen[r])
			return p->probes[i].btf_id;
	return 0;
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
	c->shadow_bytes = k->shadow_bytes;
	c->cache_size_off = k->cache_size_off;
	c->task = k->task;
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
	else if (pr->deferred && !pr->load_err)
		snprintf(buf, len, "deferred: the walk holds ftrace_lock (loaded; attached "
			 "once it ends)");
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
	else if (pr->attach_err == -FGT_ENOTSUPP)
		/* the kernel's own ENOTSUPP, which strerror() does not know:
		 * arm64's bpf_arch_text_poke() refuses a site that is not an
		 * ftrace call site (arch/arm64/net/bpf_jit_comp.c), and before
		 * 6.4 every site, there being no ftrace direct calls for a
		 * trampoline (6.4: "arm64: ftrace: Add direct call support") */
		snprintf(buf, len, "attach refused (-ENOTSUPP): no BPF trampoline at this "
			 "function (a notrace one, or on arm64 before 6.4 any: no ftrace "
			 "direct calls)");
	else if (pr->attach_err == -ENOENT || pr->attach_err == -EINVAL)
		snprintf(buf, len, "attach refused (%d): %s; notrace function or not in "
			 "available_filter_functions", pr->attach_err, strerror(-pr->attach_err));
	else
		snprintf(buf, len, "attach refused (%d): %s", pr->attach_err,
			 strerror(-pr->attach_err));
	return buf;
}

/* ---- step 1: the kernel's facts ------------------------------------------- */

static void range_of(const struct fgt_ksyms *ks, const char *name, struct fgt_range *r)
{
	const struct fgt_ksym *s = fgt_ksyms_by_name(ks, name);

	memset(r, 0, sizeof(*r));
	if (!s)
		return;
	r->name = s->name;
	r->lo = s->addr;
	r->hi = s->addr + s->size;
}

void fgt_kernel_read(struct fgt_kernel *k, const struct fgt_ksyms *ks)
{
	memset(k, 0, sizeof(*k));
	for (int i = 0; i < FGT_SYM__NR; i++) {
		const struct fgt_ksym *s = fgt_ksyms_by_name(ks, fgt_sym_name(i));

		k->addr[i] = s ? s->addr : 0;
	}
	/* where the inlined code lives (stock builds: register_ftrace_graph) */
	range_of(ks, fgt_sym_name(FGT_SYM_SWEEP), &k->sweep);
	if (!k->sweep.name)
		range_of(ks, fgt_sym_name(FGT_SYM_REGISTER), &k->sweep);
	range_of(ks, fgt_sym_name(FGT_SYM_START), &k->start);
	if (!k->start.name)
		range_of(ks, fgt_sym_name(FGT_SYM_REGISTER), &k->start);
	range_of(ks, fgt_sym_name(FGT_SYM_INIT_TASK), &k->fork);
	range_of(ks, fgt_sym_name(FGT_SYM_INIT_IDLE), &k->idle);
	range_of(ks, fgt_sym_name(FGT_SYM_EXIT_TASK), &k->exit);

	k->shadow_bytes = FGT_SHADOW_STACK_SIZE;
	k->stack_src = k->addr[FGT_SYM_STACK_CACHEP] ? FGT_STACK_CACHE : FGT_STACK_KMALLOC;
}

void fgt_kernel_stacks(struct fgt_kernel *k, const struct fgt_btf_known *btf)
{
	if (k->stack_src != FGT_STACK_KMALLOC || !btf || btf->err ||
	    btf->stack.src != FGT_STACK_KMALLOC_ARRAY)
		return;
	/* sizeof(struct ftrace_ret_stack) from the BTF the plan has parsed:
	 * the BPF side takes the bytes, with no CO-RE type of its own for it
	 * (each costs libbpf a pass over vmlinux BTF) */
	k->stack_src = FGT_STACK_KMALLOC_ARRAY;
	k->shadow_depth = FGT_RETFUNC_DEPTH;
	k->shadow_bytes = btf->stack.bytes;
}
