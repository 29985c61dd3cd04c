// SPDX-License-Identifier: GPL-2.0
/* The session's BPF object as the plan shapes it: targets, rodata, the lazy
 * and the deferred rows' attach, BPF's counters (src/watch/attach.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "watch/attach.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/waitnote.h"
#include "bpf/agg_abi.h"	/* the skeleton's types */
#include "fgraphtop.skel.h"

/*
 * Runs the kernel skipped: a tracing program (fentry/fexit, tp_btf, raw_tp) does
 * not run on a CPU where it is already running. On preemptible kernels a task
 * preempted inside one (task_newtask while threads are created in a burst, the
 * allocator's fentry) makes the next task on that CPU skip it: seen as missing
 * task_new events in the lab with one vCPU. Counted as lost, never silently.
 */
/* A program of a lazy row (the allocator latency): its skipped runs lose
 * latency samples, never an event. */
static bool lazy_prog(const struct bpf_program *prog)
{
	const char *name = bpf_program__name(prog);

	for (int r = 0; r < FGT_ROLE__NR; r++)
		for (int i = 0; fgt_probe_rows[r].lazy && i < FGT_MAX_PROGS &&
		     fgt_probe_rows[r].progs[i]; i++)
			if (!strcmp(fgt_probe_rows[r].progs[i], name))
				return true;
	return false;
}

static uint64_t recursion_misses(struct fgraphtop_bpf *skel)
{
	struct bpf_program *prog;
	uint64_t total = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) && info.recursion_misses) {
			bool lat = lazy_prog(prog);

			if (!lat)
				total += info.recursion_misses;
			log_dbg("fgraphtop: %s: %llu runs skipped (recursion)%s\n",
				bpf_program__name(prog), (unsigned long long)info.recursion_misses,
				lat ? ", latency samples only" : "");
		}
	}
	return total;
}

uint64_t fgt_attach_lost(struct fgraphtop_bpf *skel)
{
	int ncpus = libbpf_num_possible_cpus();
	uint64_t total = 0, *vals;
	uint32_t zero = 0;

	if (ncpus <= 0)
		return 0;
	vals = calloc(ncpus, sizeof(*vals));
	if (!vals)
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.lost), &zero, vals))
		for (int i = 0; i < ncpus; i++)
			total += vals[i];
	free(vals);
	return total + recursion_misses(skel);
}

/* The program of the probe table named name (src/facts/kfacts.c), or NULL. */
static struct bpf_program *table_prog(struct fgraphtop_bpf *skel, const char *name)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(skel->obj, name);

	if (!prog)
		log_err("bpf/fgraphtop.bpf.c has no program %s, which src/facts/kfacts.c names\n", name);
	return prog;
}

/* The programs a chosen row enables: its candidate's, else the row's own. */
static const char *const *row_progs(const struct fgt_plan *p, enum fgt_role r)
{
	const struct fgt_probe_row *row = &fgt_probe_rows[r];
	const struct fgt_cand *c = fgt_row_cand(row, p->chosen[r]);

	if (c && c->progs[0])
		return c->progs;
	if (p->kconf.cachep_addr && row->cache_progs[0])
		return row->cache_progs;
	return row->progs;
}

/*
 * The programs' attach targets by the plan's ids. libbpf finds a tracing
 * program's target by name in vmlinux BTF as it opens or loads it (fentry,
 * fexit, tp_btf, iter: btf__find_by_name_kind(), a pass over all its types
 * each; 1.9 M instructions on lab-stock under qemu instruction counting, six
 * of them before the start line there), where the plan's one pass found
 * every id already. Handlers of our own for those sections (custom ones come
 * before libbpf's own: libbpf_register_prog_handler()) hand the kernel the
 * plan's id, and attach as libbpf's do. Registered while a session's object
 * lives: its programs hold pointers to them. Another object's program
 * loaded meanwhile (check's own task iterator) is looked up by name, as
 * libbpf would. The handlers' cookie is their struct fgt_attach_handler:
 * the targets are the session's (struct fgt_attach), no file's.
 */
void fgt_attach_target(struct fgt_attach *a, const struct bpf_program *prog, int btf_id)
{
	if (a->nr_targets < FGT_ATTACH_TARGETS)
		a->targets[a->nr_targets++] = (typeof(a->targets[0])){ prog, btf_id };
}

/* A program the plan did not see: its section's target, as libbpf finds it. */
static int target_by_name(const struct bpf_program *prog, int type)
{
	const char *sec = bpf_program__section_name(prog), *name = strchr(sec, '/');
	struct fgt_btf_want w;

	if (!name)
		return -ESRCH;
	if (type == BPF_TRACE_ITER)
		fgt_btf_want_iter(name + 1, &w);
	else
		fgt_btf_want_target(type == BPF_TRACE_RAW_TP ? FGT_PK_TP_BTF : FGT_PK_FENTRY,
				    name + 1, &w);
	return fgt_btf_vmlinux_id(&w);
}

static int target_load(struct bpf_program *prog, struct bpf_prog_load_opts *opts, long cookie)
{
	const struct fgt_attach_handler *h = (const struct fgt_attach_handler *)cookie;
	const struct fgt_attach *a = h->a;
	int id = -ESRCH, i;

	for (i = 0; i < a->nr_targets && a->targets[i].prog != prog; i++)
		;
	if (i < a->nr_targets)
		id = a->targets[i].btf_id > 0 ? a->targets[i].btf_id : -ESRCH;
	else
		id = target_by_name(prog, h->type);
	if (id < 0) {
		log_dbg("fgraphtop: %s: no attach target\n", bpf_program__name(prog));
		return id;
	}
	opts->attach_btf_id = (__u32)id;
	opts->attach_btf_obj_fd = 0;	/* vmlinux */
	return 0;
}

static int target_attach(const struct bpf_program *prog, long cookie, struct bpf_link **link)
{
	const struct fgt_attach_handler *h = (const struct fgt_attach_handler *)cookie;

	*link = h->type == BPF_TRACE_ITER ? bpf_program__attach_iter(prog, NULL) :
					   bpf_program__attach_trace(prog);
	return *link ? 0 : -errno;
}

void fgt_attach_handlers_off(struct fgt_attach *a)
{
	while (a->nr_handlers > 0)
		libbpf_unregister_prog_handler(a->handlers[--a->nr_handlers].id);
	a->nr_targets = 0;
}

/* true if ours are in place (else libbpf's look the targets up by name) */
bool fgt_attach_handlers_on(struct fgt_attach *a)
{
	static const struct {
		const char *sec;
		enum bpf_attach_type type;
	} secs[] = {
		{ "fentry+", BPF_TRACE_FENTRY }, { "fexit+", BPF_TRACE_FEXIT },
		{ "tp_btf+", BPF_TRACE_RAW_TP }, { "iter+", BPF_TRACE_ITER },
	};
	LIBBPF_OPTS(libbpf_prog_handler_opts, o, .prog_prepare_load_fn = target_load,
		    .prog_attach_fn = target_attach);

	_Static_assert(sizeof(secs) / sizeof(secs[0]) == FGT_ATTACH_HANDLERS, "an id per handler");
	if (a->nr_handlers)
		return true;
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
		struct fgt_attach_handler *h = &a->handlers[i];
		int id;

		h->a = a;
		h->type = secs[i].type;
		o.cookie = (long)h;
		id = libbpf_register_prog_handler(secs[i].sec, BPF_PROG_TYPE_TRACING,
						  secs[i].type, &o);
		if (id < 0) {
			log_dbg("fgraphtop: no handler of our own for %s (%d): libbpf finds "
				"the targets\n", secs[i].sec, id);
			fgt_attach_handlers_off(a);
			return false;
		}
		h->id = id;
		a->nr_handlers++;
	}
	return true;
}

/* The chosen candidate's probe was deferred (plan.h defer_ftrace). */
static bool row_deferred(const struct fgt_plan *p, enum fgt_role r)
{
	for (int i = 0; i < p->nr_probes; i++)
		if (p->probes[i].role == r && p->probes[i].cand == p->chosen[r])
			return p->probes[i].deferred;
	return false;
}

/* Load a chosen row's programs; its attach target is the chosen candidate's. */
static int enable_row(struct fgt_attach *a, struct fgraphtop_bpf *skel, const struct fgt_plan *p,
		      enum fgt_role r)
{
	const struct fgt_probe_row *row = &fgt_probe_rows[r];
	const char *const *names = row_progs(p, r);
	const char *target = fgt_plan_target(p, r);
	int err = 0;

	for (int i = 0; i < FGT_MAX_PROGS && names[i] && !err; i++) {
		struct bpf_program *prog = table_prog(skel, names[i]);

		if (!prog)
			return -ENOENT;
		bpf_program__set_autoload(prog, true);
		/* lazy rows: by fgt_attach_lazy_update(); test-run ones: never;
		 * deferred ones: once the step under way ends */
		if (row->lazy || row->kind == FGT_PK_TEST_RUN || row_deferred(p, r))
			bpf_program__set_autoattach(prog, false);
		if (row->kind == FGT_PK_FENTRY || row->kind == FGT_PK_FEXIT ||
		    row->kind == FGT_PK_TP_BTF) {
			if (a->nr_handlers)
				fgt_attach_target(a, prog, fgt_plan_target_btf_id(p, r));
			else if (row->kind != FGT_PK_TP_BTF)
				err = bpf_program__set_attach_target(prog, 0, target);
		}
	}
	return err;
}

/* The union of some of kconf's [lo, hi) ranges (absent ones are 0), for a
 * BPF program's one comparison pair: the free programs' (free_seen(): nearly
 * every free is rejected by it) and the stack walk's (stack_call_site()). */
static void union_range(const __u64 (*r)[2], size_t n, __u64 *lo, __u64 *hi)
{
	*lo = *hi = 0;
	for (size_t i = 0; i < n; i++) {
		if (!r[i][0])
			continue;
		if (!*lo || r[i][0] < *lo)
			*lo = r[i][0];
		if (r[i][1] > *hi)
			*hi = r[i][1];
	}
}

static void frees_range(const struct fgt_kconf *k, __u64 *lo, __u64 *hi)
{
	const __u64 r[][2] = {
		{ k->sweep_lo, k->sweep_hi }, { k->start_lo, k->start_hi }, { k->exit_lo, k->exit_hi },
	};

	union_range(r, sizeof(r) / sizeof(r[0]), lo, hi);
}

static void sites_range(const struct fgt_kconf *k, __u64 *lo, __u64 *hi)
{
	const __u64 r[][2] = {
		{ k->sweep_lo, k->sweep_hi }, { k->start_lo, k->start_hi },
		{ k->fork_lo, k->fork_hi }, { k->idle_lo, k->idle_hi },
	};

	union_range(r, sizeof(r) / sizeof(r[0]), lo, hi);
}

/* rodata and program choices from the plan: between open and load. */
int fgt_attach_configure(struct fgt_attach *a, struct fgraphtop_bpf *skel, const struct fgt_plan *p,
			 unsigned int ringbuf_mb, uint32_t log_entries)
{
	bool events = log_entries != 0;
	uint64_t rb_bytes = (uint64_t)(ringbuf_mb ? ringbuf_mb : 1) << 20;
	struct bpf_program *prog;
	int err;

	a->nr_targets = 0;
	skel->rodata->kconf = p->kconf;
	skel->rodata->kconf.want_exits = events;
	/* --events: every allocation of an activation as a record; else the
	 * activation log is not written, nor mapped, and holds one slot */
	skel->rodata->log_on = events;
	skel->rodata->log_mask = events ? log_entries - 1 : 0;
	err = bpf_map__set_max_entries(skel->maps.actlog, events ? log_entries : 1);
	if (err)
		return err;
	frees_range(&p->kconf, (__u64 *)&skel->rodata->frees_lo, (__u64 *)&skel->rodata->frees_hi);
	sites_range(&p->kconf, (__u64 *)&skel->rodata->sites_lo, (__u64 *)&skel->rodata->sites_hi);
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, false);
	for (int r = 0; r < FGT_ROLE__NR; r++) {
		if (!fgt_plan_has(p, r))
			continue;
		err = enable_row(a, skel, p, r);
		if (err)
			return err;
	}
	return bpf_map__set_max_entries(skel->maps.events, rb_bytes);
}

/* Is fgraph already active? Make one short-lived child: tp_btf/task_newtask
 * records ftrace_graph_active as it sees it. The fallback of
 * fgt_attach_graph_active(). */
static int graph_active_fork(struct fgraphtop_bpf *skel)
{
	uint64_t before = skel->bss->newtask_seen;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return -1;
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;	/* a signal (SIGINT to stop us) must not leave a zombie or a stale read */
	if (skel->bss->newtask_seen == before)
		return -1;
	return (int)skel->bss->last_graph_active;
}

/* ftrace_graph_active now, read by test-running a program that is never
 * attached (BPF_PROG_TEST_RUN on raw_tp, 5.10+): one syscall, no fork. */
int fgt_attach_graph_active_run(struct fgraphtop_bpf *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int fd = bpf_program__fd(skel->progs.probe_graph_active);

	if (fd < 0 || !skel->rodata->kconf.graph_active_addr || bpf_prog_test_run_opts(fd, &opts))
		return -1;
	return (int)skel->bss->graph_active_probe;
}

int fgt_attach_end_at_sweep(struct fgraphtop_bpf *skel, uint32_t tid)
{
	__u64 args[1] = { tid };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));
	int fd = bpf_program__fd(skel->progs.end_at_sweep);

	return fd < 0 || bpf_prog_test_run_opts(fd, &opts) ? -1 : 0;
}

int fgt_attach_graph_active(struct fgraphtop_bpf *skel)
{
	int v = fgt_attach_graph_active_run(skel);

	return v >= 0 ? v : graph_active_fork(skel);
}

/*
 * The allocator's fentry/fexit put a trampoline on every allocation of the
 * system; the fork path's latency needs them only while fgraph is active, so
 * they are attached then and detached when it goes off. Never while an
 * activation is under way: the attach would wait for ftrace_lock, which the
 * activation holds, with nobody draining the ring buffer. lat_on goes up
 * before the attach and down after the detach: while it is up, the
 * tracepoints look for the fentry's start time.
 *
 * Exits before entries: an entry attached alone leaves in-flight records no
 * fexit removes (stale starts for the latency). So attach in this order,
 * detach in the reverse one. (When the tracepoint still waited for the fexit
 * to emit a fork-path allocation, a 5,000-fork storm lost 14 of them in that
 * window; it no longer waits, see alloc_seen() in bpf/fgraphtop.bpf.c.)
 */
static bool is_fexit(const struct bpf_program *prog)
{
	return bpf_program__expected_attach_type(prog) == BPF_TRACE_FEXIT;
}

/* Each lazy row's programs, exits first (exits == true) or entries first. */
static void lazy_each(struct fgt_attach *a, struct fgraphtop_bpf *skel, const struct fgt_plan *p,
		      bool exits, bool (*fn)(struct fgt_attach *a, struct bpf_program *prog,
					     struct bpf_link **link))
{
	for (int pass = 0; pass < 2; pass++)
		for (int r = 0; r < FGT_ROLE__NR; r++) {
			const char *const *names;

			if (!fgt_probe_rows[r].lazy || !fgt_plan_has(p, r))
				continue;
			names = row_progs(p, r);
			for (int i = 0; i < FGT_MAX_PROGS && names[i]; i++) {
				struct bpf_program *prog =
					bpf_object__find_program_by_name(skel->obj, names[i]);

				if (!prog || is_fexit(prog) != (exits == !pass))
					continue;
				if (!fn(a, prog, &a->lazy_links[r][i]))
					return;
			}
		}
}

static bool detach_one(struct fgt_attach *a, struct bpf_program *prog, struct bpf_link **link)
{
	bpf_link__destroy(*link);
	*link = NULL;
	return true;
}

static void lazy_detach(struct fgt_attach *a, struct fgraphtop_bpf *skel, const struct fgt_plan *p)
{
	lazy_each(a, skel, p, false, detach_one);
	skel->bss->lat_on = 0;
	a->lat_attached = false;
}

static bool attach_one(struct fgt_attach *a, struct bpf_program *prog, struct bpf_link **link)
{
	*link = bpf_program__attach(prog);
	if (*link)
		return true;
	p_warn("latency_probe", "allocator latency probe %s did not attach (%s): no fork-path latency",
		 bpf_program__name(prog), strerror(errno));
	a->lat_failed = true;	/* not tried again */
	return false;
}

static void lazy_attach(struct fgt_attach *a, struct fgraphtop_bpf *skel, const struct fgt_plan *p)
{
	skel->bss->lat_on = 1;
	lazy_each(a, skel, p, true, attach_one);
	if (a->lat_failed) {
		lazy_detach(a, skel, p);
		return;
	}
	a->lat_attached = true;
	log_dbg("fgraphtop: fgraph active: allocator latency probes attached\n");
}

/*
 * Attach once fgraph has stayed active for FGT_LAZY_SETTLE_MS: ACT_END comes
 * from inside register_ftrace_graph(), which goes on patching call sites under
 * ftrace_lock; attaching then would queue behind it and slow down the very
 * tracer switch we time.
 */
void fgt_attach_lazy_update(struct fgt_attach *a, struct fgraphtop_bpf *skel,
			    const struct fgt_plan *p, bool hold)
{
	uint64_t now = fgt_mono_ms();
	int active;

	if (a->lat_failed || !fgt_plan_has_lat(p) || hold)
		return;
	active = fgt_attach_graph_active_run(skel);
	if (active <= 0 || skel->bss->act_tid)
		a->active_since_ms = 0;
	else if (!a->active_since_ms)
		a->active_since_ms = now;
	if (active > 0 && !a->lat_attached && a->active_since_ms &&
	    now - a->active_since_ms >= FGT_LAZY_SETTLE_MS)
		lazy_attach(a, skel, p);
	else if (active == 0 && a->lat_attached) {
		lazy_detach(a, skel, p);
		log_dbg("fgraphtop: fgraph off: allocator latency probes detached\n");
	}
}

/* The deferred rows' programs (not the lazy ones: fgt_attach_lazy_update()'s),
 * now that the step no longer holds ftrace_lock, or may still: then said. */
void fgt_attach_deferred(struct fgt_attach *a, struct fgraphtop_bpf *skel, const struct fgt_plan *p)
{
	struct fgt_wait *w = fgt_wait_begin(FGT_WAIT_FTRACE_LOCK, "attaching the deferred probes");
	int n = 0;

	for (int r = 0; r < FGT_ROLE__NR; r++) {
		const char *const *names;

		if (!fgt_plan_has(p, r) || fgt_probe_rows[r].lazy || !row_deferred(p, r))
			continue;
		names = row_progs(p, r);
		for (int i = 0; i < FGT_MAX_PROGS && names[i]; i++) {
			struct bpf_program *prog =
				bpf_object__find_program_by_name(skel->obj, names[i]);

			if (!prog)
				continue;
			a->deferred_links[r][i] = bpf_program__attach(prog);
			if (a->deferred_links[r][i])
				n++;
			else
				p_warn("deferred_probe", "%s: its deferred attach failed (%s): "
				       "fgraphtop goes on without it", bpf_program__name(prog),
				       strerror(errno));
		}
	}
	fgt_wait_end(w);
	log_info("fgraphtop: join: the walk is over: %d deferred program%s attached", n,
		 n == 1 ? "" : "s");
}

void fgt_attach_unlink(struct fgt_attach *a)
{
	for (int r = 0; r < FGT_ROLE__NR; r++)
		for (int i = 0; i < FGT_MAX_PROGS; i++) {
			bpf_link__destroy(a->deferred_links[r][i]);
			a->deferred_links[r][i] = NULL;
		}
}
