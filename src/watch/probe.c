// SPDX-License-Identifier: GPL-2.0
/*
 * What this kernel lets us observe, found by trying it: every candidate of
 * the probe table (src/facts/kfacts.c) is loaded and attached on its own, as a
 * literal two-instruction program (r0 = 0; exit), the way libbpf-tools'
 * fentry_try_attach() does; the outcome (errno at load or at attach) is
 * recorded, and src/watch/plan.c chooses from it.
 *
 * vmlinux BTF is parsed once, for the shadow-stack size and every attach
 * target's BTF id, and freed before the first probe loads: one parse per
 * probe (a libbpf object each) was 50 ms a probe in the lab's TCG guests.
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
#include "common/exit_codes.h"
#include "host/host_state.h"
#include "common/log.h"
#include "common/waitnote.h"
#include "watch/plan.h"
#include "watch/probe.h"

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
	char why[256];

	/* the same question, and the same words, as fgraphtop check's */
	if (fgt_host_has_fgraph(NULL, ks, why, sizeof(why)) == 0) {
		snprintf(msg, len, "%s: it cannot have the quadratic shadow-stack walk, "
			 "nothing to watch", why);
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
	if (!fgt_ksyms_sane(ks, why, sizeof(why))) {
		snprintf(msg, len, "%s: it is needed to attribute allocations", why);
		return FGT_EXIT_NO_PERM;
	}
	if (!fgt_ksyms_have_addrs(ks)) {
		snprintf(msg, len, "kallsyms addresses are hidden from this process "
			 "(kernel.kptr_restrict): run it as root (CAP_SYSLOG), or set "
			 "kernel.kptr_restrict=0 with kernel.perf_event_paranoid<=1");
		return FGT_EXIT_NO_PERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(msg, len, "this kernel has no BTF (/sys/kernel/btf/vmlinux missing): "
			 "fgraphtop needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return FGT_EXIT_NO_BTF;
	}
	return 0;
}

/* ---- step 2: the probes --------------------------------------------------- */

static const char *probe_target(const struct fgt_probe *pr)
{
	return fgt_row_cand(&fgt_probe_rows[pr->role], pr->cand)->target;
}

/*
 * task_struct::ret_stack and kmem_cache::object_size from the plan's parse
 * (fgt_btf_read_task(), src/host/kbtf.c), read once: the shadow stacks' size
 * (fgt_kernel_stacks()), the cache's object size for the BPF side, and what
 * the static verdict needs of the BTF, which read once more from
 * /sys/kernel/btf/vmlinux, a page a read, was half a second under TCG after
 * the start line, and the live view's peak RSS. The static verdict takes it
 * only from that file's BTF (have_btf): libbpf may have read another.
 */
static void btf_facts(struct fgt_plan *p, const struct btf *btf, int task_id, int cache_id)
{
	if (!btf)
		return;
	p->btf.err = fgt_btf_read_task(btf, task_id, cache_id, &p->btf.stack, &p->k.task,
				       &p->k.cache_size_off);
	fgt_kernel_stacks(&p->k, &p->btf);
	p->have_btf = !access("/sys/kernel/btf/vmlinux", R_OK);
}

/*
 * What the plan reads of vmlinux BTF, all in one pass over its types (67,460
 * on lab-stock, 100k and more on Debian's kernels): each probe's attach
 * target id (btf_ids[i]; 0 for raw_tp; else the error libbpf's load would
 * give: -ESRCH when the target is not there, the parse error err without
 * BTF), also kept in the plan for the session's load (struct fgt_probe
 * btf_id); bpf_iter_task, the task iterator's; and task_struct and
 * kmem_cache for btf_facts(). btf__find_by_name_kind() walks the types for
 * each name: 27 ms for a dozen names in the lab's TCG guests.
 */
static void btf_ids_of(struct fgt_plan *p, const struct btf *btf, int err, int *btf_ids)
{
	struct fgt_btf_want want[FGT_PLAN_MAX_PROBES + 3];
	struct fgt_btf_want *task = &want[p->nr_probes], *cache = task + 1, *iter = task + 2;
	int i;

	for (i = 0; i < p->nr_probes; i++) {
		const struct fgt_probe *pr = &p->probes[i];

		if (pr->skipped)
			memset(&want[i], 0, sizeof(want[i]));
		else
			fgt_btf_want_target(fgt_probe_rows[pr->role].kind, probe_target(pr),
					    &want[i]);
	}
	*task = (struct fgt_btf_want){ .name = "task_struct", .kind = BTF_KIND_STRUCT };
	*cache = (struct fgt_btf_want){ .name = "kmem_cache", .kind = BTF_KIND_STRUCT };
	/* the exposure's task iterator: what libbpf looks "iter/task" up as */
	fgt_btf_want_iter("task", iter);
	if (btf)
		fgt_btf_find(btf, want, p->nr_probes + 3);
	for (i = 0; i < p->nr_probes; i++) {
		btf_ids[i] = !want[i].kind ? 0 : !btf ? err : want[i].id ? want[i].id : -ESRCH;
		p->probes[i].btf_id = btf_ids[i] > 0 ? btf_ids[i] : 0;
	}
	p->iter_btf_id = iter->id;
	btf_facts(p, btf, task->id, cache->id);
}

/* r0 = 0; exit: all a probe needs, no relocation, no map. */
static const struct bpf_insn nop_insns[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

static void load_opts(enum fgt_probe_kind kind, int btf_id, enum bpf_prog_type *type,
		      struct bpf_prog_load_opts *o)
{
	*type = BPF_PROG_TYPE_TRACING;
	o->attach_btf_id = btf_id > 0 ? (__u32)btf_id : 0;
	switch (kind) {
	case FGT_PK_FENTRY:
		o->expected_attach_type = BPF_TRACE_FENTRY;
		break;
	case FGT_PK_FEXIT:
		o->expected_attach_type = BPF_TRACE_FEXIT;
		break;
	case FGT_PK_TP_BTF:
		o->expected_attach_type = BPF_TRACE_RAW_TP;
		break;
	default:
		*type = BPF_PROG_TYPE_RAW_TRACEPOINT;
		o->expected_attach_type = 0;
		break;
	}
}

/* The verifier's words on a refused probe, for -vvv. */
static void log_refusal(const char *target, enum bpf_prog_type type,
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
	fd = bpf_prog_load(type, "fgt_probe", "GPL", nop_insns, 2, &o);
	if (fd >= 0)
		close(fd);
	log_dbg("probe %s: verifier log:\n%s\n", target, buf);
	free(buf);
}

/*
 * Load and attach one candidate with libbpf's syscalls: bpf_link_create() for
 * fentry, fexit and tp_btf (libbpf's attach), bpf_raw_tracepoint_open() for
 * raw_tp. fds[0], fds[1]: the program and its link (or -1), for the caller.
 */
static void try_probe(struct fgt_probe *pr, int btf_id, bool load_only, int fds[2])
{
	enum fgt_probe_kind kind = fgt_probe_rows[pr->role].kind;
	const char *target = probe_target(pr);
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	enum bpf_prog_type type;
	int prog_fd = -1, link_fd = -1;

	if (btf_id < 0) {
		pr->load_err = btf_id;
		goto cleanup;
	}
	load_opts(kind, btf_id, &type, &opts);
	prog_fd = bpf_prog_load(type, "fgt_probe", "GPL", nop_insns, 2, &opts);
	if (prog_fd < 0) {
		pr->load_err = prog_fd;
		log_refusal(target, type, &opts);
		goto cleanup;
	}
	/* a step under way holds ftrace_lock, which a trampoline's attach
	 * waits for: loaded only; the direct rows are left out (their attach
	 * is what would tell), the others taken as they will be once it ends */
	if (pr->deferred) {
		pr->ok = !fgt_probe_rows[pr->role].direct;
		goto cleanup;
	}
	/* and a tracepoint's detach waits for an RCU grace period, which the
	 * walk under rcu_read_lock() holds off: five detaches kept the lab's
	 * joining live view 15 s, past the walk's end, on a loaded host. Its
	 * load is the answer (the kmem and task_newtask tracepoints are there
	 * wherever a BPF raw_tp loads); the attach says the rest */
	if (load_only) {
		pr->ok = true;
		goto cleanup;
	}
	if (type == BPF_PROG_TYPE_RAW_TRACEPOINT)
		link_fd = bpf_raw_tracepoint_open(target, prog_fd);
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
	log_dbg("probe %-6s %-32s load %d attach %d\n", fgt_probe_kind_name(kind), target,
		pr->load_err, pr->attach_err);
}

/*
 * Every probe stays attached until all are tried. A tracepoint's first attach
 * waits for an RCU and an SRCU grace period when any tracepoint lost its last
 * probe since the last such wait (kernel/tracepoint.c, 1->0->1): detaching
 * each raw_tp probe before the next one's attach made every one of them wait
 * (50 ms each in the lab's TCG guests).
 */
static void probe_all(struct fgt_plan *p, const int *btf_ids)
{
	int fds[FGT_PLAN_MAX_PROBES][2], i;
	bool any_loaded = false;
	/* each fentry/fexit attach waits for ftrace_lock: said if it does */
	struct fgt_wait *w = fgt_wait_begin(FGT_WAIT_FTRACE_LOCK, "trying the probes");

	for (i = 0; i < p->nr_probes; i++) {
		struct fgt_probe *pr = &p->probes[i];
		bool tracing = fgt_probe_rows[pr->role].kind != FGT_PK_RAW_TP;

		fds[i][0] = fds[i][1] = -1;
		if (pr->skipped)
			continue;
		pr->deferred = p->defer_ftrace && (fgt_probe_rows[pr->role].kind == FGT_PK_FENTRY ||
						   fgt_probe_rows[pr->role].kind == FGT_PK_FEXIT);
		try_probe(pr, btf_ids[i], p->defer_ftrace, fds[i]);
		if (!tracing)	/* raw_tp loads even where tracing programs do not */
			continue;
		if (!pr->load_err)
			any_loaded = true;
		else if (!p->tracing_err && pr->load_err != -ESRCH && pr->load_err != -ENOENT)
			p->tracing_err = pr->load_err;
	}
	for (i = 0; i < p->nr_probes; i++) {
		if (fds[i][1] >= 0)
			close(fds[i][1]);
		if (fds[i][0] >= 0)
			close(fds[i][0]);
	}
	fgt_wait_end(w);
	p->tracing_refused = !any_loaded;
}


int fgt_plan_build(struct fgt_plan *p, const struct fgt_ksyms *ks,
		   enum fgt_path_pref pref, char *msg, size_t len)
{
	int btf_ids[FGT_PLAN_MAX_PROBES];
	struct btf *btf = btf__load_vmlinux_btf();
	int err = libbpf_get_error(btf);

	/*
	 * vmlinux BTF, parsed once, for the kernel's facts and every target's
	 * id, and freed before the first probe loads: its few MB must not stay
	 * alive under the probes and the main load.
	 */
	bool defer = p->defer_ftrace;

	if (err)
		btf = NULL;
	memset(p, 0, sizeof(*p));
	p->defer_ftrace = defer;
	fgt_kernel_read(&p->k, ks);
	fgt_plan_enumerate(p);	/* which rows to try: the symbols say */
	btf_ids_of(p, btf, err, btf_ids);
	btf__free(btf);
	probe_all(p, btf_ids);
	return fgt_plan_choose(p, pref, msg, len);
}
