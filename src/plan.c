// SPDX-License-Identifier: GPL-2.0
/*
 * Attach planning: what this kernel lets us observe, by trying it.
 *
 * Every program of bpf/calib_feat.bpf.c is loaded and attached on its own,
 * and the outcome (errno at load or at attach) recorded. The choices below
 * then pick, per figure, the best path that worked.
 *
 * The probes go through the same syscalls libbpf would use (so the same
 * errors), not through a libbpf object load each: that parsed all of vmlinux
 * BTF again for every probe, 50 ms each in the lab's TCG guests, the largest
 * part of fgraphtop's start-up (issue 5). vmlinux BTF is parsed once here, for
 * the shadow-stack size and every attach target's BTF id, and freed before
 * the first probe loads.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/btf.h>
#include "calib_feat.skel.h"
#include "exit_codes.h"
#include "log.h"
#include "plan.h"

/* FTRACE_RETFUNC_DEPTH, a macro (not in BTF), while task_struct::ret_stack was a
 * struct ftrace_ret_stack * (up to 6.7; 6.8 made it unsigned long *). */
#define FTRACE_RETFUNC_DEPTH	50
/* SHADOW_STACK_SIZE from 6.8 (unsigned long * ret_stack) on, 4096 up to 7.2. */
#define SHADOW_STACK_SIZE	4096

static int read_first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	fclose(f);
	return 0;
}

/* 1 yes, 0 no, -1 tracefs not readable */
static int tracer_has_function_graph(void)
{
	static const char *paths[] = {
		"/sys/kernel/tracing/available_tracers",
		"/sys/kernel/debug/tracing/available_tracers",
	};
	char buf[512];

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (read_first_line(paths[i], buf, sizeof(buf)) == 0)
			return strstr(buf, "function_graph") != NULL;
	}
	return -1;
}

static bool have_cap(int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

int fgt_preflight(const struct fgt_ksyms *ks, char *msg, size_t len)
{
	int ft = tracer_has_function_graph();
	bool reg = ks && fgt_ksyms_by_name(ks, "register_ftrace_graph");

	if (ks && !reg && ft != 1) {
		snprintf(msg, len, "this kernel has no function graph tracer "
			 "(no register_ftrace_graph in kallsyms%s): it cannot have the "
			 "quadratic shadow-stack walk, nothing to watch",
			 ft == 0 ? ", no function_graph in available_tracers" : "");
		return FGT_EXIT_NO_FGRAPH;
	}
	if (!(have_cap(CAP_SYS_ADMIN) || (have_cap(CAP_BPF) && have_cap(CAP_PERFMON)))) {
		snprintf(msg, len, "not permitted: fgraphtop needs root, or CAP_BPF and "
			 "CAP_PERFMON; run it with sudo");
		return FGT_EXIT_NO_PERM;
	}
	if (!ks) {
		snprintf(msg, len, "cannot read /proc/kallsyms (%s): it is needed to "
			 "attribute allocations; check that /proc is mounted", strerror(errno));
		return FGT_EXIT_NO_PERM;
	}
	if (!fgt_ksyms_have_addrs(ks)) {
		snprintf(msg, len, "kallsyms addresses are hidden (kernel.kptr_restrict): "
			 "run as root or set kernel.kptr_restrict=1");
		return FGT_EXIT_NO_PERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(msg, len, "this kernel has no BTF (/sys/kernel/btf/vmlinux missing): "
			 "fgraphtop needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return FGT_EXIT_NO_BTF;
	}
	return 0;
}

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

static uint64_t addr_of(const struct fgt_ksyms *ks, const char *name)
{
	const struct fgt_ksym *s = fgt_ksyms_by_name(ks, name);

	return s ? s->addr : 0;
}

/* The shadow stack's size: CO-RE facts from the running kernel's BTF
 * (task_struct: its type id, 0 when absent). */
static void shadow_size_from_btf(struct fgt_plan *p, const struct btf *btf, int task_struct)
{
	const struct btf_type *t;
	const struct btf_member *m;
	int i;

	p->shadow_bytes = SHADOW_STACK_SIZE;
	p->shadow_depth = 0;
	if (!btf || task_struct <= 0)
		return;
	t = btf__type_by_id(btf, task_struct);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		const struct btf_type *mt;

		if (strcmp(btf__name_by_offset(btf, m->name_off), "ret_stack"))
			continue;
		mt = btf__type_by_id(btf, m->type);
		if (!btf_is_ptr(mt))
			break;
		mt = btf__type_by_id(btf, btf__resolve_type(btf, mt->type));
		/* up to 6.7: struct ftrace_ret_stack *ret_stack, FTRACE_RETFUNC_DEPTH of
		 * them; bpf/fgraphtop.bpf.c multiplies by bpf_core_type_size(). */
		if (btf_is_struct(mt))
			p->shadow_depth = FTRACE_RETFUNC_DEPTH;
		break;
	}
}

/* A type looked up in vmlinux BTF by name and kind; id: the first match, as
 * btf__find_by_name_kind() answers, or 0. kind 0: nothing to look up. */
struct btf_want {
	char name[96];
	int kind;
	int id;
};

/*
 * All of them in one pass over the types (64k on lab-stock, 100k and more on
 * Debian's kernels), where btf__find_by_name_kind() walks them all for each
 * name: 27 ms for the dozen names in the lab's TCG guests.
 */
static void btf_find_all(const struct btf *btf, struct btf_want *w, int n)
{
	__u32 cnt = btf__type_cnt(btf);

	for (__u32 id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		int kind = btf_kind(t);
		const char *name;

		if (kind != BTF_KIND_FUNC && kind != BTF_KIND_TYPEDEF && kind != BTF_KIND_STRUCT)
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name || !name[0])
			continue;
		for (int i = 0; i < n; i++)
			if (!w[i].id && w[i].kind == kind && w[i].name[0] == name[0] &&
			    !strcmp(w[i].name, name))
				w[i].id = (int)id;
	}
}

/*
 * What a probe's attach target is looked up as, the way libbpf finds it: the
 * FUNC for fentry/fexit, the btf_trace_<name> TYPEDEF for tp_btf; nothing for
 * raw_tp (no BTF id).
 */
static void target_want(const struct bpf_program *prog, const char *target, struct btf_want *w)
{
	memset(w, 0, sizeof(*w));
	if (bpf_program__type(prog) != BPF_PROG_TYPE_TRACING)
		return;
	if (bpf_program__expected_attach_type(prog) == BPF_TRACE_RAW_TP) {
		snprintf(w->name, sizeof(w->name), "btf_trace_%s", target);
		w->kind = BTF_KIND_TYPEDEF;
	} else {
		snprintf(w->name, sizeof(w->name), "%s", target);
		w->kind = BTF_KIND_FUNC;
	}
}

/* The verifier's words on a refused probe, for -vvv. */
static void log_refusal(const struct fgt_probe *pr, const struct bpf_program *prog,
			const struct bpf_prog_load_opts *opts)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o);
	char *buf;
	int fd;

	if (fgt_verbose < 3)
		return;
	buf = malloc(1 << 16);
	if (!buf)
		return;
	o = *opts;
	o.log_buf = buf;
	o.log_size = 1 << 16;
	o.log_level = 1;
	buf[0] = '\0';
	fd = bpf_prog_load(bpf_program__type(prog), pr->prog, "GPL", bpf_program__insns(prog),
			   bpf_program__insn_cnt(prog), &o);
	if (fd >= 0)
		close(fd);
	log_dbg("probe %s: verifier log:\n%s\n", pr->prog, buf);
	free(buf);
}

/* Nothing libbpf would have had to relocate: no 64-bit load (maps, globals,
 * ksyms), no call but to helpers. (A CO-RE field access cannot be seen in the
 * instructions: calib_feat.bpf.c says not to make any.) */
static bool self_contained(const struct bpf_program *prog)
{
	const struct bpf_insn *insn = bpf_program__insns(prog);
	size_t n = bpf_program__insn_cnt(prog);

	for (size_t i = 0; i < n; i++) {
		if (insn[i].code == (BPF_LD | BPF_IMM | BPF_DW))
			return false;
		if (insn[i].code == (BPF_JMP | BPF_CALL) && insn[i].src_reg)
			return false;
	}
	return true;
}

/*
 * Load and attach one calib program alone, with libbpf's syscalls: the
 * object's instructions (calib_feat.bpf.c keeps them free of relocations),
 * its program and attach types, the target's BTF id (btf_id, or the error
 * finding it); attached with bpf_link_create() (libbpf's attach for fentry,
 * fexit, tp_btf; it falls back to raw_tracepoint_open() itself) or
 * bpf_raw_tracepoint_open() for raw_tp. fds[0], fds[1]: the program and its
 * link (or -1), for the caller to close.
 */
static void try_probe(struct fgt_probe *pr, const struct bpf_program *prog, int btf_id,
		      int fds[2])
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = bpf_program__expected_attach_type(prog));
	enum bpf_prog_type type = bpf_program__type(prog);
	int prog_fd = -1, link_fd = -1;

	if (!self_contained(prog)) {
		log_err("%s: calib_feat.bpf.c probes must not use maps, globals or "
			"subprograms (loaded without relocation)\n", pr->prog);
		pr->load_err = -EINVAL;
		goto cleanup;
	}
	if (btf_id < 0) {
		pr->load_err = btf_id;
		goto cleanup;
	}
	opts.attach_btf_id = (__u32)btf_id;
	prog_fd = bpf_prog_load(type, pr->prog, "GPL", bpf_program__insns(prog),
				bpf_program__insn_cnt(prog), &opts);
	if (prog_fd < 0) {
		pr->load_err = prog_fd;
		log_refusal(pr, prog, &opts);
		goto cleanup;
	}
	if (type == BPF_PROG_TYPE_RAW_TRACEPOINT)
		link_fd = bpf_raw_tracepoint_open(pr->target, prog_fd);
	else
		link_fd = bpf_link_create(prog_fd, 0, opts.expected_attach_type, NULL);
	if (link_fd < 0) {
		pr->attach_err = link_fd;
		goto cleanup;
	}
	pr->ok = true;
cleanup:
	fds[0] = prog_fd;
	fds[1] = link_fd;
	log_dbg("probe %-40s load %d attach %d\n", pr->prog, pr->load_err, pr->attach_err);
}

static const struct fgt_probe *probe(const struct fgt_plan *p, const char *prog)
{
	for (int i = 0; i < p->nr_probes; i++)
		if (!strcmp(p->probes[i].prog, prog))
			return &p->probes[i];
	return NULL;
}

static bool ok(const struct fgt_plan *p, const char *prog)
{
	const struct fgt_probe *pr = probe(p, prog);

	return pr && pr->ok;
}

/* First working allocator of a shape, in calib_feat.bpf.c's order. */
static const char *first_ok(const struct fgt_plan *p, const char *prefix)
{
	for (int i = 0; i < p->nr_probes; i++)
		if (p->probes[i].ok && !strncmp(p->probes[i].prog, prefix, strlen(prefix)))
			return p->probes[i].target;
	return NULL;
}

/* The probes, in calib_feat.bpf.c's order; progs[i] is probe i's program. */
static void enumerate(struct fgt_plan *p, struct calib_feat_bpf *skel,
		      const struct bpf_program **progs)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		struct fgt_probe *pr;
		const char *sec = bpf_program__section_name(prog), *slash;

		if (p->nr_probes >= FGT_PLAN_MAX_PROBES)
			break;
		progs[p->nr_probes] = prog;
		pr = &p->probes[p->nr_probes++];
		memset(pr, 0, sizeof(*pr));
		snprintf(pr->prog, sizeof(pr->prog), "%s", bpf_program__name(prog));
		if (*sec == '?')
			sec++;
		slash = strchr(sec, '/');
		snprintf(pr->kind, sizeof(pr->kind), "%.*s", slash ? (int)(slash - sec) : 0, sec);
		snprintf(pr->target, sizeof(pr->target), "%s", slash ? slash + 1 : "");
	}
}

/* Skipped probes: each successful attach patches kernel text twice (attach,
 * detach), so allocators this kernel's shadow stacks cannot come from are not tried. */
static const char *skip_reason(const struct fgt_plan *p, const char *name)
{
	if (p->cachep_addr && (!strncmp(name, "lat_csize__", 11) || !strncmp(name, "lat_size__", 10)))
		return "not tried: shadow stacks come from the fgraph_stack cache";
	if (!p->cachep_addr && !strncmp(name, "lat_cache__", 11))
		return "not tried: shadow stacks come from kmalloc";
	return NULL;
}

/*
 * vmlinux BTF, parsed once: the shadow-stack size, then each probe's attach
 * target id (btf_ids[i]; 0 for raw_tp; else the error libbpf's load would
 * give: -ESRCH when the target is not there (the targets are all built-in
 * code, so the module BTFs libbpf would also search cannot have them), the
 * parse error without BTF). Freed at once: its few MB must not stay alive
 * under the probes and the main load.
 */
static void btf_facts(struct fgt_plan *p, const struct bpf_program **progs, int *btf_ids)
{
	struct btf_want want[FGT_PLAN_MAX_PROBES + 1];
	struct btf *btf = btf__load_vmlinux_btf();
	int err = libbpf_get_error(btf), task = p->nr_probes, i;

	if (err)
		btf = NULL;
	for (i = 0; i < p->nr_probes; i++) {
		if (p->probes[i].skipped)
			memset(&want[i], 0, sizeof(want[i]));
		else
			target_want(progs[i], p->probes[i].target, &want[i]);
	}
	want[task] = (struct btf_want){ .name = "task_struct", .kind = BTF_KIND_STRUCT };
	if (btf)
		btf_find_all(btf, want, task + 1);
	shadow_size_from_btf(p, btf, want[task].id);
	for (i = 0; i < p->nr_probes; i++)
		btf_ids[i] = !want[i].kind ? 0 : !btf ? err : want[i].id ? want[i].id : -ESRCH;
	btf__free(btf);
}

int fgt_plan_build(struct fgt_plan *p, const struct fgt_ksyms *ks,
		   enum fgt_path_pref pref, char *msg, size_t len)
{
	const struct bpf_program *progs[FGT_PLAN_MAX_PROBES];
	int btf_ids[FGT_PLAN_MAX_PROBES], fds[FGT_PLAN_MAX_PROBES][2];
	struct calib_feat_bpf *skel;
	bool any_loaded = false;
	int i;

	memset(p, 0, sizeof(*p));
	p->pref = pref;

	/* kallsyms: where the inlined code lives */
	range_of(ks, "alloc_retstack_tasklist", &p->sweep);
	if (!p->sweep.name)	/* inlined (Debian 6.1, 6.12, 7.2) */
		range_of(ks, "register_ftrace_graph", &p->sweep);
	range_of(ks, "start_graph_tracing", &p->start);
	if (!p->start.name)
		range_of(ks, "register_ftrace_graph", &p->start);
	range_of(ks, "ftrace_graph_init_task", &p->fork);
	range_of(ks, "ftrace_graph_init_idle_task", &p->idle);
	range_of(ks, "ftrace_graph_exit_task", &p->exit);
	p->rth_addr = addr_of(ks, "return_to_handler");
	p->text_lo = addr_of(ks, "_stext");
	p->text_hi = addr_of(ks, "_etext");
	p->graph_active_addr = addr_of(ks, "ftrace_graph_active");
	p->nr_threads_addr = addr_of(ks, "nr_threads");
	/* 6.13+: shadow stacks come from the fgraph_stack kmem_cache */
	p->cachep_addr = addr_of(ks, "fgraph_stack_cachep");

	/* the calib object is only opened: its programs name the probes (libbpf's
	 * object load printed its own failures; the syscalls below print nothing) */
	skel = calib_feat_bpf__open();
	if (skel)
		enumerate(p, skel, progs);
	for (i = 0; i < p->nr_probes; i++)
		p->probes[i].skipped = skip_reason(p, p->probes[i].prog);
	btf_facts(p, progs, btf_ids);
	/*
	 * Every probe stays attached until all are tried. A tracepoint's first
	 * attach waits for an RCU and an SRCU grace period when any tracepoint
	 * lost its last probe since the last such wait (kernel/tracepoint.c,
	 * 1->0->1): detaching each raw_tp probe before the next one's attach
	 * made every one of them wait (50 ms each in the lab's TCG guests).
	 */
	for (i = 0; i < p->nr_probes; i++) {
		bool tracing = strcmp(p->probes[i].kind, "raw_tp") != 0;

		fds[i][0] = fds[i][1] = -1;
		if (p->probes[i].skipped)
			continue;
		try_probe(&p->probes[i], progs[i], btf_ids[i], fds[i]);
		if (!tracing)	/* raw_tp loads even where tracing programs do not */
			continue;
		if (!p->probes[i].load_err)
			any_loaded = true;
		else if (!p->tracing_err && p->probes[i].load_err != -ESRCH &&
			 p->probes[i].load_err != -ENOENT)
			p->tracing_err = p->probes[i].load_err;
	}
	for (i = 0; i < p->nr_probes; i++) {
		if (fds[i][1] >= 0)
			close(fds[i][1]);
		if (fds[i][0] >= 0)
			close(fds[i][0]);
	}
	calib_feat_bpf__destroy(skel);
	if (!any_loaded) {
		p->tracing_refused = true;
		snprintf(msg, len, "this kernel refuses BPF tracing programs (loading "
			 "fentry/tp_btf programs failed: %s); fgraphtop needs "
			 "CONFIG_BPF_SYSCALL, CONFIG_BPF_JIT and CONFIG_DEBUG_INFO_BTF, and no "
			 "lockdown (check `bpftool feature probe`)",
			 strerror(p->tracing_err ? -p->tracing_err : EINVAL));
		return FGT_EXIT_NO_TRACING;
	}

	/* attributed path */
	p->tp_kmalloc = ok(p, "tp__kmalloc");
	p->tp_kfree = ok(p, "tp__kfree");
	p->tp_kca = p->cachep_addr && ok(p, "tp__kmem_cache_alloc");
	p->tp_kcf = p->cachep_addr && ok(p, "tp__kmem_cache_free");
	p->tp_newtask = ok(p, "tp__task_newtask");
	p->ctx_fork = ok(p, "ctx__copy_process");
	p->attributed_ok = p->tp_kmalloc && p->tp_kfree && p->start.name && p->sweep.name &&
			   (!p->cachep_addr || (p->tp_kca && p->tp_kcf));
	if (p->cachep_addr) {
		p->lat_cache = first_ok(p, "lat_cache__");
	} else {
		p->lat_csize = first_ok(p, "lat_csize__");
		p->lat_size = first_ok(p, "lat_size__");
	}

	/* direct path, where fgraph itself is attachable */
	if (pref != FGT_PATH_ATTRIBUTED) {
		if (ok(p, "direct__start_graph_tracing"))
			p->direct_act_fn = "start_graph_tracing";
		else if (ok(p, "direct__register_ftrace_graph"))
			p->direct_act_fn = "register_ftrace_graph";
		p->direct_act = p->direct_act_fn != NULL;
		p->direct_sweep = p->direct_act && ok(p, "direct__alloc_retstack_tasklist");
		p->direct_fork = ok(p, "direct__ftrace_graph_init_task");
	}
	if (pref == FGT_PATH_DIRECT && !p->direct_act) {
		snprintf(msg, len, "--path direct: the fgraph functions cannot be attached on "
			 "this kernel (see --explain); use --path attributed or no --path");
		return FGT_EXIT_NO_PATH;
	}
	if (!p->direct_act && !p->attributed_ok) {
		snprintf(msg, len, "no path observes the 0->1 step on this kernel: the kmem "
			 "tracepoints did not attach (see --explain)");
		return FGT_EXIT_NO_PATH;
	}
	return 0;
}

const char *fgt_probe_why(const struct fgt_probe *pr, char *buf, size_t len)
{
	if (pr->skipped)
		snprintf(buf, len, "%s", pr->skipped);
	else if (pr->ok)
		snprintf(buf, len, "attached");
	else if (pr->load_err == -ESRCH || pr->load_err == -ENOENT)
		snprintf(buf, len, "load refused (%d): %s not in kernel BTF (absent or inlined)",
			 pr->load_err, pr->target);
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

struct figure {
	const char *what, *path, *how;
};

/* Which path serves which figure. */
static int figures(const struct fgt_plan *p, struct figure *f)
{
	static char act_how[128], sweep_how[128], alloc_how[160], lat_how[160], fork_how[128];
	int n = 0;

	if (p->direct_act)
		snprintf(act_how, sizeof(act_how), "fentry/fexit %s", p->direct_act_fn);
	else
		snprintf(act_how, sizeof(act_how), "raw_tp/kmalloc of the ret_stack_list "
			 "(%u B) from %s, raw_tp/kfree of it", 32 * 8, p->start.name);
	f[n++] = (struct figure){ "activation (trigger, threads, end-to-end)",
				  p->direct_act ? "direct" : "attributed", act_how };
	if (p->direct_sweep)
		snprintf(sweep_how, sizeof(sweep_how), "fentry/fexit alloc_retstack_tasklist");
	else
		snprintf(sweep_how, sizeof(sweep_how), "inferred from the allocation sequence "
			 "(batches of 32 blocking allocations)");
	f[n++] = (struct figure){ "sweeps, walk time",
				  p->direct_sweep ? "direct" : "attributed", sweep_how };
	snprintf(alloc_how, sizeof(alloc_how), "raw_tp/%s, %s, call_site in %s%s",
		 p->cachep_addr ? "kmem_cache_alloc" : "kmalloc",
		 p->cachep_addr ? "cache fgraph_stack" : p->shadow_depth ?
		 "size 50 * sizeof(struct ftrace_ret_stack)" : "size 4096",
		 p->sweep.name, p->direct_act ? " or inside the fentry/fexit pair" : "");
	f[n++] = (struct figure){ "shadow-stack allocations, failures by gfp class",
				  "attributed", alloc_how };
	f[n++] = (struct figure){ "per-allocation latency, sweep path",
				  p->direct_sweep ? "direct" : "attributed",
				  "gaps between the sweep's consecutive allocation events" };
	if (fgt_plan_has_lat(p))
		snprintf(lat_how, sizeof(lat_how), "fentry/fexit %s%s%s, attached only while "
			 "fgraph is active",
			 p->lat_cache ? p->lat_cache : p->lat_csize ? p->lat_csize : "",
			 p->lat_csize && p->lat_size ? ", " : "",
			 p->lat_size && !p->lat_cache ? p->lat_size : "");
	else
		snprintf(lat_how, sizeof(lat_how), "none: no allocator function attached");
	f[n++] = (struct figure){ "per-allocation latency, fork path", "attributed", lat_how };
	snprintf(fork_how, sizeof(fork_how), "%s",
		 p->direct_fork ? "fexit ftrace_graph_init_task" :
		 p->tp_newtask ? "tp_btf/task_newtask (task->ret_stack)" : "none");
	f[n++] = (struct figure){ "fork path (new tasks, tasks left without a stack)",
				  p->direct_fork ? "direct" : "attributed", fork_how };
	return n;
}

void fgt_plan_explain(const struct fgt_plan *p, FILE *out)
{
	struct figure f[8];
	char why[256];
	int n, i;

	fprintf(out, "Kernel facts (kallsyms, BTF):\n");
	fprintf(out, "  sweep code in      %s [%#llx, %#llx)\n", p->sweep.name ? p->sweep.name : "-",
		(unsigned long long)p->sweep.lo, (unsigned long long)p->sweep.hi);
	fprintf(out, "  ret_stack_list in  %s\n", p->start.name ? p->start.name : "-");
	fprintf(out, "  shadow stack       %s\n", p->cachep_addr ?
		"kmem_cache fgraph_stack (fgraph_stack_cachep in kallsyms)" :
		p->shadow_depth ? "kmalloc FTRACE_RETFUNC_DEPTH * sizeof(struct ftrace_ret_stack) (CO-RE)" :
		"kmalloc SHADOW_STACK_SIZE (4096)");
	fprintf(out, "  ftrace_graph_active %s, nr_threads %s, return_to_handler %s\n",
		p->graph_active_addr ? "found" : "MISSING", p->nr_threads_addr ? "found" : "MISSING",
		p->rth_addr ? "found" : "MISSING");
	fprintf(out, "\nProbes (each loaded and attached alone):\n");
	for (i = 0; i < p->nr_probes; i++) {
		const struct fgt_probe *pr = &p->probes[i];

		fprintf(out, "  %-4s %-6s %-32s %s\n", pr->ok ? "ok" : pr->skipped ? "-" : "no",
			pr->kind, pr->target,
			fgt_probe_why(pr, why, sizeof(why)));
	}
	fprintf(out, "\nPlan%s:\n", p->pref == FGT_PATH_DIRECT ? " (--path direct)" :
		p->pref == FGT_PATH_ATTRIBUTED ? " (--path attributed)" : "");
	n = figures(p, f);
	for (i = 0; i < n; i++)
		fprintf(out, "  %-50s %-10s %s\n", f[i].what, f[i].path, f[i].how);
}

void fgt_plan_explain_json(const struct fgt_plan *p, json_writer_t *jw)
{
	struct figure f[8];
	char why[256];
	int n, i;

	jsonw_name(jw, "kernel");
	jsonw_start_object(jw);
	jsonw_string_field(jw, "sweep_holder", p->sweep.name ? p->sweep.name : "");
	jsonw_string_field(jw, "start_holder", p->start.name ? p->start.name : "");
	jsonw_string_field(jw, "shadow_stack", p->cachep_addr ? "kmem_cache" : "kmalloc");
	jsonw_uint_field(jw, "shadow_stack_bytes", p->shadow_depth ? 0 : p->shadow_bytes);
	jsonw_end_object(jw);
	jsonw_name(jw, "probes");
	jsonw_start_array(jw);
	for (i = 0; i < p->nr_probes; i++) {
		const struct fgt_probe *pr = &p->probes[i];

		jsonw_start_object(jw);
		jsonw_string_field(jw, "kind", pr->kind);
		jsonw_string_field(jw, "target", pr->target);
		jsonw_bool_field(jw, "tried", !pr->skipped);
		jsonw_bool_field(jw, "ok", pr->ok);
		jsonw_int_field(jw, "load_err", pr->load_err);
		jsonw_int_field(jw, "attach_err", pr->attach_err);
		jsonw_string_field(jw, "why", fgt_probe_why(pr, why, sizeof(why)));
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
	jsonw_name(jw, "figures");
	jsonw_start_array(jw);
	n = figures(p, f);
	for (i = 0; i < n; i++) {
		jsonw_start_object(jw);
		jsonw_string_field(jw, "figure", f[i].what);
		jsonw_string_field(jw, "path", f[i].path);
		jsonw_string_field(jw, "how", f[i].how);
		jsonw_end_object(jw);
	}
	jsonw_end_array(jw);
}
