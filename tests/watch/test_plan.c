// SPDX-License-Identifier: GPL-2.0
/*
 * The plan (src/watch/plan.c) over the probe results of every kernel shape in the
 * lab, as `fgraphtop --explain` showed them there: which candidate serves
 * each row, which path each figure, the BPF side's configuration, the errors.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/exit_codes.h"
#include <bpf/btf.h>
#include "host/ksyms.h"
#include "watch/plan.h"
#include "watch/probe.h"
#include "render/explain.h"

/* One probe outcome by "kind/target": load_err, attach_err (0, 0: attached). */
struct outcome {
	const char *target;
	int load_err, attach_err;
};

#define END { NULL, 0, 0 }

/* A kernel: where shadow stacks come from, whether fgraph.c is attachable. */
struct shape {
	enum fgt_stack_src src;
	bool traceable;			/* alloc_retstack_tasklist out of line */
	const struct outcome *outcomes;	/* unlisted targets: not in BTF (-ESRCH) */
	int default_err;		/* for unlisted ones; 0: -ESRCH */
};

static void kernel_of(struct fgt_kernel *k, const struct shape *sh)
{
	memset(k, 0, sizeof(*k));
	k->addr[FGT_SYM_REGISTER] = 0xffffffff81254c50;
	k->addr[FGT_SYM_GRAPH_ACTIVE] = 0xffffffff82a00000;
	k->addr[FGT_SYM_NR_THREADS] = 0xffffffff82a1b2c8;
	k->addr[FGT_SYM_RETURN_TO_HANDLER] = 0xffffffff81e00100;
	k->addr[FGT_SYM_STEXT] = 0xffffffff81000000;
	k->addr[FGT_SYM_ETEXT] = 0xffffffff81f00000;
	if (sh->src == FGT_STACK_CACHE)
		k->addr[FGT_SYM_STACK_CACHEP] = 0xffffffff82b00000;
	if (sh->traceable) {
		k->sweep = (struct fgt_range){ "alloc_retstack_tasklist", 0xffffffff81254000,
					       0xffffffff81254400 };
		k->start = (struct fgt_range){ "start_graph_tracing", 0xffffffff81254400,
					       0xffffffff81254800 };
	} else {
		k->sweep = (struct fgt_range){ "register_ftrace_graph", 0xffffffff81254c50,
					       0xffffffff81255490 };
		k->start = k->sweep;
	}
	k->fork = (struct fgt_range){ "ftrace_graph_init_task", 0xffffffff81256000,
				      0xffffffff81256100 };
	k->stack_src = sh->src;
	k->shadow_bytes = FGT_SHADOW_STACK_SIZE;
	k->shadow_depth = sh->src == FGT_STACK_KMALLOC_ARRAY ? FGT_RETFUNC_DEPTH : 0;
	if (k->shadow_depth)	/* Debian 6.1's x86-64 ftrace_ret_stack: 40 bytes */
		k->shadow_bytes = FGT_RETFUNC_DEPTH * 40;
}

static const struct outcome *outcome_of(const struct shape *sh, const char *target)
{
	for (const struct outcome *o = sh->outcomes; o->target; o++)
		if (!strcmp(o->target, target))
			return o;
	return NULL;
}

/* The plan as fgt_plan_build() would make it on that kernel. */
static int plan_of(struct fgt_plan *p, const struct shape *sh, enum fgt_path_pref pref,
		   char *msg, size_t len)
{
	memset(p, 0, sizeof(*p));
	kernel_of(&p->k, sh);
	fgt_plan_enumerate(p);
	for (int i = 0; i < p->nr_probes; i++) {
		struct fgt_probe *pr = &p->probes[i];
		const struct fgt_probe_row *row = &fgt_probe_rows[pr->role];
		char t[128];
		const struct outcome *o;

		snprintf(t, sizeof(t), "%s/%s", fgt_probe_kind_name(row->kind),
			 fgt_row_cand(row, pr->cand)->target);
		o = outcome_of(sh, t);

		if (pr->skipped)
			continue;
		pr->load_err = o ? o->load_err : sh->default_err ? sh->default_err : -ESRCH;
		pr->attach_err = o ? o->attach_err : 0;
		pr->ok = !pr->load_err && !pr->attach_err;
	}
	p->tracing_refused = true;
	for (int i = 0; i < p->nr_probes; i++)
		if (fgt_probe_rows[p->probes[i].role].kind != FGT_PK_RAW_TP &&
		    !p->probes[i].skipped && !p->probes[i].load_err)
			p->tracing_refused = false;
	if (p->tracing_refused)
		p->tracing_err = sh->default_err;
	msg[0] = '\0';
	return fgt_plan_choose(p, pref, msg, len);
}

/* kernel/trace/ built without ftrace instrumentation: fgraph's functions
 * load (BTF has them, unless inlined) and refuse the attach */
#define STOCK_DIRECT \
	{ "fentry/register_ftrace_graph", 0, -EBUSY }, { "fexit/ftrace_graph_init_task", 0, -EBUSY }

#define ATTRIBUTED_TPS \
	{ "raw_tp/kmalloc", 0, 0 }, { "raw_tp/kfree", 0, 0 }, { "tp_btf/task_newtask", 0, 0 }, \
	{ "fentry/copy_process", 0, 0 }

static const struct outcome debian_6_1[] = {
	STOCK_DIRECT, ATTRIBUTED_TPS,
	{ "fentry/kmalloc_trace", 0, 0 }, { "fentry/__kmalloc", 0, 0 }, END,
};

static const struct outcome debian_6_12[] = {
	STOCK_DIRECT, ATTRIBUTED_TPS,
	{ "fentry/__kmalloc_cache_noprof", 0, 0 }, { "fentry/__kmalloc_noprof", 0, 0 }, END,
};

static const struct outcome cache_stock[] = {	/* debian-7.2, lab-stock, lab-fixed */
	STOCK_DIRECT, ATTRIBUTED_TPS,
	{ "raw_tp/kmem_cache_alloc", 0, 0 }, { "raw_tp/kmem_cache_free", 0, 0 },
	{ "fentry/kmem_cache_alloc_noprof", 0, 0 }, END,
};

/* Debian's arm64 6.1, as the lab showed it (tests/lab/tool.sh): no BPF
 * trampolines (no ftrace direct calls before 6.4), so every fentry/fexit that
 * loads is refused with the kernel's ENOTSUPP (524); the tracepoints stand. */
#define ENOTSUPP_K 524
static const struct outcome arm64_6_1[] = {
	{ "fentry/register_ftrace_graph", 0, -ENOTSUPP_K },
	{ "fexit/ftrace_graph_init_task", 0, -ENOTSUPP_K },
	{ "raw_tp/kmalloc", 0, 0 }, { "raw_tp/kfree", 0, 0 }, { "tp_btf/task_newtask", 0, 0 },
	{ "fentry/copy_process", 0, -ENOTSUPP_K }, { "fentry/kmalloc_trace", 0, -ENOTSUPP_K },
	{ "fentry/__kmalloc", 0, -ENOTSUPP_K }, END,
};

static const struct outcome traceable[] = {	/* lab-traceable-{stock,fixed} */
	{ "fentry/start_graph_tracing", 0, 0 }, { "fentry/register_ftrace_graph", 0, 0 },
	{ "fentry/alloc_retstack_tasklist", 0, 0 }, { "fexit/ftrace_graph_init_task", 0, 0 },
	ATTRIBUTED_TPS, { "raw_tp/kmem_cache_alloc", 0, 0 }, { "raw_tp/kmem_cache_free", 0, 0 },
	{ "fentry/kmem_cache_alloc_noprof", 0, 0 }, END,
};

static const struct shape sh_6_1 = { FGT_STACK_KMALLOC_ARRAY, false, debian_6_1, 0 };
static const struct shape sh_6_12 = { FGT_STACK_KMALLOC, false, debian_6_12, 0 };
static const struct shape sh_7_2 = { FGT_STACK_CACHE, false, cache_stock, 0 };
static const struct shape sh_arm64_6_1 = { FGT_STACK_KMALLOC_ARRAY, false, arm64_6_1, 0 };
static const struct shape sh_traceable = { FGT_STACK_CACHE, true, traceable, 0 };

static const char *target(const struct fgt_plan *p, enum fgt_role r)
{
	const char *t = fgt_plan_target(p, r);

	return t ? t : "-";
}

static void test_debian_6_1(void **state)
{
	struct fgt_plan p;
	char msg[512];

	assert_int_equal(plan_of(&p, &sh_6_1, FGT_PATH_AUTO, msg, sizeof(msg)), 0);
	assert_false(fgt_plan_has(&p, FGT_ROLE_ACT_DIRECT));
	assert_false(fgt_plan_has(&p, FGT_ROLE_FORK_DIRECT));
	assert_true(p.attributed_ok);
	/* the kmem_cache tracepoints are not even tried on a kmalloc kernel */
	assert_false(fgt_plan_has(&p, FGT_ROLE_TP_CACHE_ALLOC));
	assert_false(fgt_plan_has(&p, FGT_ROLE_LAT_CACHE));
	assert_string_equal(target(&p, FGT_ROLE_LAT_CACHE_SIZE), "kmalloc_trace");
	assert_string_equal(target(&p, FGT_ROLE_LAT_SIZE), "__kmalloc");
	assert_string_equal(fgt_plan_fig_path(&p, FGT_FIG_ACT), "attributed");
	assert_string_equal(fgt_plan_fig_path(&p, FGT_FIG_FORK), "attributed");
	/* the BPF side: 50 * sizeof(struct ftrace_ret_stack), no cache */
	assert_int_equal(p.kconf.shadow_bytes, 2000);
	assert_int_equal(p.kconf.cachep_addr, 0);
	assert_int_equal(p.kconf.list_bytes, 256);
	assert_int_equal(p.kconf.direct_act, 0);
	assert_true(p.kconf.sweep_lo == 0xffffffff81254c50 && p.kconf.sweep_hi == 0xffffffff81255490);
	assert_true(p.kconf.start_lo == p.kconf.sweep_lo);
}

/*
 * The kernel's facts from its symbols, then the plan's BTF answer: a stack's
 * bytes, which the BPF side takes as they are (kconf.shadow_bytes), come from
 * that answer where stacks are frame arrays.
 */
static void kernel_of_syms(struct fgt_kernel *k, const struct fgt_ksyms *ks,
			   const struct fgt_btf_known *btf)
{
	fgt_kernel_read(k, ks);
	fgt_kernel_stacks(k, btf);
}

static void test_kernel_read(void **state)
{
	const struct fgt_ksym syms[] = {
		{ .name = "register_ftrace_graph", .addr = 0xffffffff81254c50, .type = 'T' },
		{ .name = "fgraph_stack_cachep", .addr = 0xffffffff82b00000, .type = 'b' },
		{ .name = "zzz_end", .addr = 0xffffffff82b00100, .type = 'b' },
	};
	struct fgt_btf_known arr = { .err = 0, .stack = { .src = FGT_STACK_KMALLOC_ARRAY,
							  .bytes = 50 * 48 } };
	struct fgt_btf_known flat = { .err = 0, .stack = { .src = FGT_STACK_KMALLOC,
							   .bytes = FGT_SHADOW_STACK_SIZE } };
	struct fgt_ksyms *no_cache = fgt_ksyms_from(syms, 1), *cache = fgt_ksyms_from(syms, 3);
	struct fgt_kernel k;

	assert_non_null(no_cache);
	assert_non_null(cache);
	kernel_of_syms(&k, no_cache, &arr);
	assert_int_equal(k.stack_src, FGT_STACK_KMALLOC_ARRAY);
	assert_int_equal(k.shadow_depth, FGT_RETFUNC_DEPTH);
	assert_int_equal(k.shadow_bytes, 2400);
	assert_int_equal(k.sweep.lo, 0xffffffff81254c50);
	kernel_of_syms(&k, no_cache, &flat);
	assert_int_equal(k.stack_src, FGT_STACK_KMALLOC);
	assert_int_equal(k.shadow_depth, 0);
	assert_int_equal(k.shadow_bytes, FGT_SHADOW_STACK_SIZE);
	/* a BTF that could not say: 4096-byte kmalloc()s, as before the frames */
	arr.err = -1;
	kernel_of_syms(&k, no_cache, &arr);
	assert_int_equal(k.stack_src, FGT_STACK_KMALLOC);
	assert_int_equal(k.shadow_bytes, FGT_SHADOW_STACK_SIZE);
	kernel_of_syms(&k, no_cache, NULL);
	assert_int_equal(k.shadow_bytes, FGT_SHADOW_STACK_SIZE);
	/* their own cache wins over whatever the BTF says */
	arr.err = 0;
	kernel_of_syms(&k, cache, &arr);
	assert_int_equal(k.stack_src, FGT_STACK_CACHE);
	assert_int_equal(k.shadow_depth, 0);
	assert_int_equal(k.shadow_bytes, FGT_SHADOW_STACK_SIZE);
	fgt_ksyms_free(no_cache);
	fgt_ksyms_free(cache);
}

/*
 * The plan's own read of vmlinux BTF (fgt_btf_read_task()): both structs in
 * one pass, each the first of its name as libbpf's lookup by name would
 * take it, kmem_cache::object_size and the task_struct fields the programs
 * read at their offsets, task_struct::ret_stack as the static reader answers
 * (tests/static/test_static_read.c checks that against raw bytes). Built with
 * libbpf's writer.
 */
static struct btf *btf_with(bool cache, bool frames, bool ret_stack)
{
	struct btf *b = btf__new_empty();
	int u32 = btf__add_int(b, "unsigned int", 4, 0);
	int i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	int ul = btf__add_int(b, "long unsigned int", 8, 0);
	int frame, ptr, task, fwd = btf__add_fwd(b, "task_struct", BTF_FWD_STRUCT);
	int tptr = btf__add_ptr(b, fwd);

	/* a decoy of the same name in another kind: not the struct */
	btf__add_typedef(b, "kmem_cache", u32);
	if (cache) {
		btf__add_struct(b, "kmem_cache", 24);
		btf__add_field(b, "flags", ul, 0, 0);
		btf__add_field(b, "min_partial", ul, 64, 0);
		btf__add_field(b, "size", u32, 128, 0);
		btf__add_field(b, "object_size", u32, 160, 0);
	}
	{
		int proto = btf__add_func_proto(b, u32);

		btf__add_func(b, "copy_process", BTF_FUNC_GLOBAL, proto);
		btf__add_typedef(b, "btf_trace_task_newtask", proto);
	}
	frame = btf__add_struct(b, "ftrace_ret_stack", 40);
	btf__add_field(b, "ret", ul, 0, 0);
	btf__add_field(b, "func", ul, 64, 0);
	btf__add_field(b, "calltime", ul, 128, 0);
	btf__add_field(b, "subtime", ul, 192, 0);
	btf__add_field(b, "retp", ul, 256, 0);
	ptr = btf__add_ptr(b, frames ? frame : ul);
	task = btf__add_struct(b, "task_struct", 4096);
	btf__add_field(b, "state", ul, 0, 0);
	btf__add_field(b, "tasks", ul, 64 * 8, 0);
	btf__add_field(b, "pid", i32, 1200 * 8, 0);
	btf__add_field(b, "tgid", i32, 1204 * 8, 0);
	btf__add_field(b, "group_leader", tptr, 1272 * 8, 0);
	btf__add_field(b, "start_time", ul, 1600 * 8, 0);
	if (ret_stack)
		btf__add_field(b, "ret_stack", ptr, 2048 * 8, 0);
	/* a second of each: never taken */
	btf__add_struct(b, "task_struct", 8);
	btf__add_field(b, "ret_stack", ul, 0, 0);
	if (cache) {
		btf__add_struct(b, "kmem_cache", 8);
		btf__add_field(b, "object_size", u32, 32, 0);
	}
	assert_true(task > 0);
	return b;
}

/* The plan's wants: a probe's FUNC and TYPEDEF, and the two structs. */
static int btf_read(const struct btf *b, struct fgt_btf_stack *st, struct fgt_kernel *k)
{
	struct fgt_btf_want w[] = {
		{ .name = "" },
		{ .name = "task_struct", .kind = BTF_KIND_STRUCT },
		{ .name = "kmem_cache", .kind = BTF_KIND_STRUCT },
		{ .name = "" }, { .name = "" },
	};

	/* as the probes' targets are wanted, libbpf's names */
	fgt_btf_want_target(FGT_PK_FEXIT, "copy_process", &w[0]);
	assert_string_equal(w[0].name, "copy_process");
	assert_int_equal(w[0].kind, BTF_KIND_FUNC);
	fgt_btf_want_target(FGT_PK_TP_BTF, "task_newtask", &w[3]);
	assert_string_equal(w[3].name, "btf_trace_task_newtask");
	assert_int_equal(w[3].kind, BTF_KIND_TYPEDEF);
	fgt_btf_want_target(FGT_PK_RAW_TP, "kmalloc", &w[4]);	/* nothing */
	assert_int_equal(w[4].kind, 0);
	{
		struct fgt_btf_want it;

		fgt_btf_want_iter("task", &it);
		assert_string_equal(it.name, "bpf_iter_task");
		assert_int_equal(it.kind, BTF_KIND_FUNC);
	}
	fgt_btf_find(b, w, 5);
	/* the same first match as libbpf's lookup by name, for every want */
	for (int i = 0; i < 4; i++)
		assert_int_equal(w[i].id, btf__find_by_name_kind(b, w[i].name, w[i].kind) > 0 ?
					  btf__find_by_name_kind(b, w[i].name, w[i].kind) : 0);
	assert_int_equal(w[4].id, 0);
	memset(k, 0xff, sizeof(*k));	/* what the read does not set stays */
	return fgt_btf_read_task(b, w[1].id, w[2].id, st, &k->task, &k->cache_size_off);
}

static void test_btf_read(void **state)
{
	struct fgt_btf_stack st;
	struct fgt_kernel k;
	struct btf *b = btf_with(true, true, true);

	assert_int_equal(btf_read(b, &st, &k), 0);
	assert_int_equal(k.cache_size_off, 20);
	assert_int_equal(k.task.pid, 1200);
	assert_int_equal(k.task.tgid, 1204);
	assert_int_equal(k.task.group_leader, 1272);
	assert_int_equal(k.task.start_time, 1600);
	assert_int_equal(k.task.ret_stack, 2048);
	assert_int_equal(st.tasks_off, 64);
	assert_int_equal(st.src, FGT_STACK_KMALLOC_ARRAY);
	assert_int_equal(st.bytes, FGT_RETFUNC_DEPTH * 40);
	assert_int_equal(st.off, 2048);
	btf__free(b);

	/* no struct kmem_cache (the typedef is not one); 4096-byte stacks */
	b = btf_with(false, false, true);
	assert_int_equal(btf_read(b, &st, &k), 0);
	assert_int_equal(k.cache_size_off, 0);
	assert_int_equal(k.task.ret_stack, 2048);
	assert_int_equal(st.src, FGT_STACK_KMALLOC);
	assert_int_equal(st.bytes, FGT_SHADOW_STACK_SIZE);
	btf__free(b);

	/* no ret_stack: no function graph tracer; the other fields still */
	b = btf_with(true, true, false);
	assert_int_equal(btf_read(b, &st, &k), 1);
	assert_int_equal(k.task.ret_stack, 0);
	assert_int_equal(k.task.pid, 1200);
	btf__free(b);
}

static void test_debian_6_12(void **state)
{
	struct fgt_plan p;
	char msg[512];

	assert_int_equal(plan_of(&p, &sh_6_12, FGT_PATH_AUTO, msg, sizeof(msg)), 0);
	assert_string_equal(target(&p, FGT_ROLE_LAT_CACHE_SIZE), "__kmalloc_cache_noprof");
	assert_string_equal(target(&p, FGT_ROLE_LAT_SIZE), "__kmalloc_noprof");
	assert_int_equal(p.kconf.shadow_bytes, 4096);
	assert_int_equal(p.kconf.cachep_addr, 0);
}

static void test_cache_stock(void **state)
{
	struct fgt_plan p;
	char msg[512];

	assert_int_equal(plan_of(&p, &sh_7_2, FGT_PATH_AUTO, msg, sizeof(msg)), 0);
	assert_true(fgt_plan_has(&p, FGT_ROLE_TP_CACHE_ALLOC));
	assert_true(fgt_plan_has(&p, FGT_ROLE_TP_CACHE_FREE));
	assert_string_equal(target(&p, FGT_ROLE_LAT_CACHE), "kmem_cache_alloc_noprof");
	assert_false(fgt_plan_has(&p, FGT_ROLE_LAT_CACHE_SIZE));
	assert_false(fgt_plan_has(&p, FGT_ROLE_LAT_SIZE));
	assert_int_equal(p.kconf.cachep_addr, 0xffffffff82b00000);
	assert_int_equal(p.fig_row[FGT_FIG_ALLOCS], FGT_ROLE_TP_CACHE_ALLOC);
	/* the direct path cannot be forced here */
	assert_int_equal(plan_of(&p, &sh_7_2, FGT_PATH_DIRECT, msg, sizeof(msg)), FGT_EXIT_NO_PATH);
	assert_string_equal(msg, "--path direct: the fgraph functions cannot be attached on this "
			    "kernel (see --explain); use --path attributed or no --path");
}

static void test_traceable(void **state)
{
	struct fgt_plan p;
	char msg[512];

	assert_int_equal(plan_of(&p, &sh_traceable, FGT_PATH_AUTO, msg, sizeof(msg)), 0);
	/* start_graph_tracing, out of line, is preferred to its caller */
	assert_string_equal(target(&p, FGT_ROLE_ACT_DIRECT), "start_graph_tracing");
	assert_string_equal(target(&p, FGT_ROLE_SWEEP_DIRECT), "alloc_retstack_tasklist");
	assert_string_equal(target(&p, FGT_ROLE_FORK_DIRECT), "ftrace_graph_init_task");
	assert_string_equal(fgt_plan_fig_path(&p, FGT_FIG_ACT), "direct");
	assert_string_equal(fgt_plan_fig_path(&p, FGT_FIG_SWEEPS), "direct");
	assert_string_equal(fgt_plan_fig_path(&p, FGT_FIG_FORK), "direct");
	assert_int_equal(p.kconf.direct_act, 1);
	assert_int_equal(p.kconf.direct_fork, 1);
	/* --path attributed: the same kernel without the direct rows */
	assert_int_equal(plan_of(&p, &sh_traceable, FGT_PATH_ATTRIBUTED, msg, sizeof(msg)), 0);
	assert_false(fgt_plan_has(&p, FGT_ROLE_ACT_DIRECT));
	assert_false(fgt_plan_has(&p, FGT_ROLE_SWEEP_DIRECT));
	assert_false(fgt_plan_has(&p, FGT_ROLE_FORK_DIRECT));
	assert_int_equal(p.kconf.direct_act, 0);
	assert_string_equal(fgt_plan_fig_path(&p, FGT_FIG_SWEEPS), "attributed");
}

/* Only register_ftrace_graph attachable: its fentry/fexit pair makes the
 * activation, and the sweeps are inferred. */
static void test_direct_register_only(void **state)
{
	static const struct outcome o[] = {
		{ "fentry/register_ftrace_graph", 0, 0 }, ATTRIBUTED_TPS,
		{ "raw_tp/kmem_cache_alloc", 0, 0 }, { "raw_tp/kmem_cache_free", 0, 0 }, END,
	};
	struct shape sh = { FGT_STACK_CACHE, false, o, 0 };
	struct fgt_plan p;
	char msg[512];

	assert_int_equal(plan_of(&p, &sh, FGT_PATH_AUTO, msg, sizeof(msg)), 0);
	assert_string_equal(target(&p, FGT_ROLE_ACT_DIRECT), "register_ftrace_graph");
	assert_false(fgt_plan_has(&p, FGT_ROLE_SWEEP_DIRECT));
	assert_false(fgt_plan_has_lat(&p));
	assert_string_equal(fgt_plan_fig_path(&p, FGT_FIG_SWEEPS), "attributed");
}

/* This build machine's kind: no tracing program loads at all. */
static void test_tracing_refused(void **state)
{
	static const struct outcome none[] = { END };
	struct shape sh = { FGT_STACK_CACHE, false, none, -EPERM };
	struct fgt_plan p;
	char msg[512];

	assert_int_equal(plan_of(&p, &sh, FGT_PATH_AUTO, msg, sizeof(msg)), FGT_EXIT_NO_TRACING);
	assert_non_null(strstr(msg, "this kernel refuses BPF tracing programs (loading fentry/tp_btf "
			       "programs failed: Operation not permitted)"));
}

/* The kmem tracepoints would not attach, and fgraph is not attachable: no path. */
static void test_no_path(void **state)
{
	static const struct outcome o[] = {
		STOCK_DIRECT, { "raw_tp/kfree", 0, 0 }, { "tp_btf/task_newtask", 0, 0 },
		{ "raw_tp/kmalloc", 0, -EINVAL }, END,
	};
	struct shape sh = { FGT_STACK_KMALLOC, false, o, 0 };
	struct fgt_plan p;
	char msg[512];

	assert_int_equal(plan_of(&p, &sh, FGT_PATH_AUTO, msg, sizeof(msg)), FGT_EXIT_NO_PATH);
	assert_false(p.attributed_ok);
	assert_string_equal(msg, "no path observes the 0->1 step on this kernel: the kmem "
			    "tracepoints did not attach (see --explain)");
}

/* A text capture of --explain. */
static char *explain(const struct fgt_plan *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fgt_plan_explain(p, f);
	fclose(f);
	return buf;
}

/* Debian's arm64 6.1: the attributed path on tracepoints alone, and --explain
 * naming why every trampoline was refused (not "Unknown error 524"). */
static void test_explain_arm64_6_1(void **state)
{
	struct fgt_plan p;
	char msg[512], *t;

	assert_int_equal(plan_of(&p, &sh_arm64_6_1, FGT_PATH_AUTO, msg, sizeof(msg)), 0);
	assert_true(p.attributed_ok);
	assert_false(fgt_plan_has(&p, FGT_ROLE_ACT_DIRECT));
	assert_string_equal(fgt_plan_fig_path(&p, FGT_FIG_ACT), "attributed");
	t = explain(&p);
	assert_non_null(strstr(t, "  no   fentry register_ftrace_graph            attach refused "
			       "(-ENOTSUPP): no BPF trampoline at this function (a notrace one, "
			       "or on arm64 before 6.4 any: no ftrace direct calls)\n"));
	assert_null(strstr(t, "Unknown error"));
	free(t);
}

/* --explain, as Debian 6.1 showed it in the lab (the probes and plan lines). */
static void test_explain_6_1(void **state)
{
	struct fgt_plan p;
	char msg[512], *t;

	assert_int_equal(plan_of(&p, &sh_6_1, FGT_PATH_AUTO, msg, sizeof(msg)), 0);
	t = explain(&p);
	assert_non_null(strstr(t, "  shadow stack       kmalloc FTRACE_RETFUNC_DEPTH * "
			       "sizeof(struct ftrace_ret_stack) (CO-RE)\n"));
	assert_non_null(strstr(t, "  no   fentry register_ftrace_graph            attach refused "
			       "(-EBUSY): no __fentry__ nop"));
	assert_non_null(strstr(t, "  -    raw_tp kmem_cache_alloc                 not tried: "
			       "shadow stacks come from kmalloc\n"));
	assert_non_null(strstr(t, "  ok   fentry kmalloc_trace                    attached\n"));
	assert_non_null(strstr(t, "  activation (trigger, threads, end-to-end)          attributed "
			       "raw_tp/kmalloc of the ret_stack_list (256 B) from "
			       "register_ftrace_graph, raw_tp/kfree of it; without that list, "
			       "the walk's first allocation and its walker leaving "
			       "register_ftrace_graph\n"));
	assert_non_null(strstr(t, "  shadow-stack allocations, failures by gfp class    attributed "
			       "raw_tp/kmalloc, size 50 * sizeof(struct ftrace_ret_stack), "
			       "call_site in register_ftrace_graph\n"));
	assert_non_null(strstr(t, "  per-allocation latency, fork path                  attributed "
			       "fentry/fexit kmalloc_trace, __kmalloc, attached only while fgraph "
			       "is active\n"));
	free(t);
}

static void test_explain_traceable(void **state)
{
	struct fgt_plan p;
	char msg[512], *t;

	assert_int_equal(plan_of(&p, &sh_traceable, FGT_PATH_AUTO, msg, sizeof(msg)), 0);
	t = explain(&p);
	assert_non_null(strstr(t, "  activation (trigger, threads, end-to-end)          direct     "
			       "fentry/fexit start_graph_tracing\n"));
	assert_non_null(strstr(t, "  sweeps, walk time                                  direct     "
			       "fentry/fexit alloc_retstack_tasklist\n"));
	assert_non_null(strstr(t, "raw_tp/kmem_cache_alloc, cache fgraph_stack, call_site in "
			       "alloc_retstack_tasklist or inside the fentry/fexit pair\n"));
	assert_non_null(strstr(t, "  fork path (new tasks, tasks left without a stack)  direct     "
			       "fexit ftrace_graph_init_task\n"));
	assert_non_null(strstr(t, "  -    fentry __kmalloc_cache_noprof           not tried: shadow "
			       "stacks come from the fgraph_stack cache\n"));
	free(t);
}

/* Every row's candidates exist, allocator rows take fgt_alloc_fns' in order,
 * and every row that probes enables programs. */
static void test_table(void **state)
{
	const struct fgt_probe_row *lat = &fgt_probe_rows[FGT_ROLE_LAT_SIZE];

	for (int r = 0; r < FGT_ROLE__NR; r++) {
		const struct fgt_probe_row *row = &fgt_probe_rows[r];

		assert_int_equal(row->role, r);
		assert_non_null(row->what);
		if (row->kind == FGT_PK_TEST_RUN) {
			assert_null(fgt_row_cand(row, 0));
			continue;
		}
		assert_non_null(fgt_row_cand(row, 0));
		for (int c = 0; fgt_row_cand(row, c); c++)
			assert_true(row->progs[0] || fgt_row_cand(row, c)->progs[0]);
	}
	assert_string_equal(fgt_row_cand(lat, 0)->target, "__kmalloc");
	assert_string_equal(fgt_row_cand(lat, 1)->target, "__kmalloc_noprof");
	assert_null(fgt_row_cand(lat, 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_read),
		cmocka_unit_test(test_btf_read),
		cmocka_unit_test(test_debian_6_1),
		cmocka_unit_test(test_debian_6_12),
		cmocka_unit_test(test_cache_stock),
		cmocka_unit_test(test_traceable),
		cmocka_unit_test(test_direct_register_only),
		cmocka_unit_test(test_tracing_refused),
		cmocka_unit_test(test_no_path),
		cmocka_unit_test(test_explain_6_1),
		cmocka_unit_test(test_explain_arm64_6_1),
		cmocka_unit_test(test_explain_traceable),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
