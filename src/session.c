// SPDX-License-Identifier: GPL-2.0
/* The BPF watching session shared by the live tool and `fgraphtop check`. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fgraphtop.skel.h"
#include "exit_codes.h"
#include "session.h"
#include "actlog.h"
#include "log.h"

/*
 * Runs the kernel skipped: a tracing program (fentry/fexit, tp_btf, raw_tp) does
 * not run on a CPU where it is already running. On preemptible kernels a task
 * preempted inside one (task_newtask while threads are created in a burst, the
 * allocator's fentry) makes the next task on that CPU skip it: seen as missing
 * task_new events in the lab with one vCPU. Counted as lost, never silently.
 */
static uint64_t recursion_misses(struct fgraphtop_bpf *skel)
{
	struct bpf_program *prog;
	uint64_t total = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len) && info.recursion_misses) {
			bool lat = !strncmp(bpf_program__name(prog), "lat_", 4);

			if (!lat)
				total += info.recursion_misses;
			log_dbg("fgraphtop: %s: %llu runs skipped (recursion)%s\n",
				bpf_program__name(prog), (unsigned long long)info.recursion_misses,
				lat ? ", latency samples only" : "");
		}
	}
	return total;
}

static uint64_t lost_events(struct fgraphtop_bpf *skel)
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

/*
 * The allocator's fentry/fexit pairs, one per argument shape (bpf/fgraphtop.bpf.c);
 * target: the function this kernel uses for the shape (src/plan.c), NULL if none.
 */
#define NR_LAT 3

struct lat_shape {
	struct bpf_program *enter, *exit;
	struct bpf_link **enter_link, **exit_link;
	const char *target;
};

#define LAT_SHAPE(s, t) { skel->progs.lat_##s##_enter, skel->progs.lat_##s##_exit, \
			  &skel->links.lat_##s##_enter, &skel->links.lat_##s##_exit, t }

static void lat_shapes(struct fgraphtop_bpf *skel, const struct fgt_plan *p, struct lat_shape *l)
{
	struct lat_shape all[NR_LAT] = {
		LAT_SHAPE(cache, p->lat_cache),
		LAT_SHAPE(csize, p->lat_csize),
		LAT_SHAPE(size, p->lat_size),
	};

	memcpy(l, all, sizeof(all));
}

/* rodata and program choices from the plan: between open and load. */
static int configure(struct fgraphtop_bpf *skel, const struct fgt_plan *p, unsigned int ringbuf_mb,
		     bool want_exits)
{
	struct fgraphtop_bpf__rodata *ro = skel->rodata;
	struct lat_shape lat[NR_LAT];
	uint64_t rb_bytes = (uint64_t)(ringbuf_mb ? ringbuf_mb : 1) << 20;
	int err;

	ro->sweep_lo = p->sweep.lo;
	ro->sweep_hi = p->sweep.hi;
	ro->start_lo = p->start.lo;
	ro->start_hi = p->start.hi;
	ro->fork_lo = p->fork.lo;
	ro->fork_hi = p->fork.hi;
	ro->idle_lo = p->idle.lo;
	ro->idle_hi = p->idle.hi;
	ro->exit_lo = p->exit.lo;
	ro->exit_hi = p->exit.hi;
	ro->rth_addr = p->rth_addr;
	ro->text_lo = p->text_lo;
	ro->text_hi = p->text_hi;
	ro->graph_active_addr = p->graph_active_addr;
	ro->nr_threads_addr = p->nr_threads_addr;
	ro->cachep_addr = p->cachep_addr;
	ro->shadow_depth = p->shadow_depth;
	ro->shadow_bytes = p->shadow_bytes;
	ro->direct_act = p->direct_act;
	ro->direct_fork = p->direct_fork;
	ro->want_exits = want_exits;

	lat_shapes(skel, p, lat);
	for (int i = 0; i < NR_LAT; i++) {
		bool on = lat[i].target != NULL;

		bpf_program__set_autoload(lat[i].enter, on);
		bpf_program__set_autoload(lat[i].exit, on);
		/* attached while fgraph is active only: lazy_update() */
		bpf_program__set_autoattach(lat[i].enter, false);
		bpf_program__set_autoattach(lat[i].exit, false);
		if (!on)
			continue;
		err = bpf_program__set_attach_target(lat[i].enter, 0, lat[i].target);
		if (!err)
			err = bpf_program__set_attach_target(lat[i].exit, 0, lat[i].target);
		if (err)
			return err;
	}
	bpf_program__set_autoattach(skel->progs.probe_graph_active, false);
	bpf_program__set_autoload(skel->progs.tp_kmem_cache_alloc, p->tp_kca);
	bpf_program__set_autoload(skel->progs.tp_kmem_cache_free, p->tp_kcf);
	bpf_program__set_autoload(skel->progs.tp_task_newtask, p->tp_newtask);
	bpf_program__set_autoload(skel->progs.fork_enter, p->ctx_fork);
	bpf_program__set_autoload(skel->progs.fork_exit, p->ctx_fork);
	bpf_program__set_autoload(skel->progs.d_start_enter, p->direct_act &&
				  !strcmp(p->direct_act_fn, "start_graph_tracing"));
	bpf_program__set_autoload(skel->progs.d_start_exit, p->direct_act &&
				  !strcmp(p->direct_act_fn, "start_graph_tracing"));
	bpf_program__set_autoload(skel->progs.d_reg_enter, p->direct_act &&
				  !strcmp(p->direct_act_fn, "register_ftrace_graph"));
	bpf_program__set_autoload(skel->progs.d_reg_exit, p->direct_act &&
				  !strcmp(p->direct_act_fn, "register_ftrace_graph"));
	bpf_program__set_autoload(skel->progs.d_sweep_enter, p->direct_sweep);
	bpf_program__set_autoload(skel->progs.d_sweep_exit, p->direct_sweep);
	bpf_program__set_autoload(skel->progs.d_fork_exit, p->direct_fork);
	return bpf_map__set_max_entries(skel->maps.events, rb_bytes);
}

/* Is fgraph already active? Make one short-lived child: tp_btf/task_newtask
 * records ftrace_graph_active as it sees it. The fallback of graph_active(). */
static int graph_active_fork(struct fgraphtop_bpf *skel)
{
	uint64_t before = skel->bss->newtask_seen;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return -1;
	waitpid(pid, NULL, 0);
	if (skel->bss->newtask_seen == before)
		return -1;
	return (int)skel->bss->last_graph_active;
}

/* ftrace_graph_active now, read by test-running a program that is never
 * attached (BPF_PROG_TEST_RUN on raw_tp, 5.10+): one syscall, no fork. */
static int graph_active_run(struct fgraphtop_bpf *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int fd = bpf_program__fd(skel->progs.probe_graph_active);

	if (fd < 0 || !skel->rodata->graph_active_addr || bpf_prog_test_run_opts(fd, &opts))
		return -1;
	return (int)skel->bss->graph_active_probe;
}

static int graph_active(struct fgraphtop_bpf *skel)
{
	int v = graph_active_run(skel);

	return v >= 0 ? v : graph_active_fork(skel);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The allocator's fentry/fexit put a trampoline on every allocation of the
 * system; the fork path's latency needs them only while fgraph is active, so
 * they are attached then and detached when it goes off (issue 3's overhead
 * rule). Never while an activation is under way: the attach would wait for
 * ftrace_lock, which the activation holds, with nobody draining the ring
 * buffer. lat_on goes up before the attach and down after the detach: while
 * it is up, the tracepoints look for the fentry's start time.
 *
 * Exits before entries: an entry attached alone leaves in-flight records no
 * fexit removes (stale starts for the latency). So attach in this order,
 * detach in the reverse one. (When the tracepoint still waited for the fexit
 * to emit a fork-path allocation, a 5,000-fork storm lost 14 of them in that
 * window; it no longer waits, see alloc_seen() in bpf/fgraphtop.bpf.c.)
 */
static void lazy_detach(struct fgt_session *s)
{
	struct lat_shape l[NR_LAT];

	lat_shapes(s->skel, s->plan, l);
	for (int i = 0; i < NR_LAT; i++) {
		bpf_link__destroy(*l[i].enter_link);
		*l[i].enter_link = NULL;
	}
	for (int i = 0; i < NR_LAT; i++) {
		bpf_link__destroy(*l[i].exit_link);
		*l[i].exit_link = NULL;
	}
	s->skel->bss->lat_on = 0;
	s->lazy_on = false;
}

static bool lazy_attach_one(struct bpf_program *prog, struct bpf_link **link)
{
	*link = bpf_program__attach(prog);
	if (*link)
		return true;
	log_warn("allocator latency probe %s did not attach (%s): no fork-path latency\n",
		 bpf_program__name(prog), strerror(errno));
	return false;
}

static void lazy_attach(struct fgt_session *s)
{
	struct lat_shape l[NR_LAT];
	bool ok = true;

	lat_shapes(s->skel, s->plan, l);
	s->skel->bss->lat_on = 1;
	for (int i = 0; ok && i < NR_LAT; i++)
		ok = !l[i].target || lazy_attach_one(l[i].exit, l[i].exit_link);
	for (int i = 0; ok && i < NR_LAT; i++)
		ok = !l[i].target || lazy_attach_one(l[i].enter, l[i].enter_link);
	if (!ok) {
		s->lazy_failed = true;	/* not tried again */
		lazy_detach(s);
		return;
	}
	s->lazy_on = true;
	log_dbg("fgraphtop: fgraph active: allocator latency probes attached\n");
}

/*
 * Attach once fgraph has stayed active for FGT_LAZY_SETTLE_MS: ACT_END comes
 * from inside register_ftrace_graph(), which goes on patching call sites under
 * ftrace_lock; attaching then would queue behind it and slow down the very
 * tracer switch we time.
 */
static void lazy_update(struct fgt_session *s)
{
	const struct fgt_plan *p = s->plan;
	uint64_t now = now_ms();
	int active;

	if (s->lazy_failed || !fgt_plan_has_lat(p))
		return;
	active = graph_active_run(s->skel);
	if (active <= 0 || s->skel->bss->act_tid)
		s->active_since_ms = 0;
	else if (!s->active_since_ms)
		s->active_since_ms = now;
	if (active > 0 && !s->lazy_on && s->active_since_ms &&
	    now - s->active_since_ms >= FGT_LAZY_SETTLE_MS)
		lazy_attach(s);
	else if (active == 0 && s->lazy_on) {
		lazy_detach(s);
		log_dbg("fgraphtop: fgraph off: allocator latency probes detached\n");
	}
}

static void feed(struct fgt_session *s, const struct fgt_event *e)
{
	if (s->on_event)
		s->on_event(e, s->event_ctx);
	fgt_asm_feed(s->as, e);
}

/* BPF's array strides values by 8 bytes: the same layout on both sides */
_Static_assert(sizeof(struct fgt_rec) % 8 == 0, "struct fgt_rec must be 8-byte sized");

static size_t log_bytes(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = (size_t)FGT_LOG_ENTRIES * sizeof(struct fgt_rec);

	return page > 0 ? (n + page - 1) / page * page : n;
}

static void feed_cb(const struct fgt_event *e, void *ctx)
{
	feed(ctx, e);
}

/* Feed the activation log's records of activations up to `upto`, then hand
 * their slots back to BPF (src/actlog.c). */
static void log_drain(struct fgt_session *s, uint32_t upto)
{
	uint64_t head, tail;

	if (!s->log)
		return;
	head = __atomic_load_n(&s->skel->bss->log_head, __ATOMIC_ACQUIRE);
	tail = fgt_log_drain(s->log, s->skel->bss->log_tail, head, upto, &s->who, feed_cb, s);
	__atomic_store_n(&s->skel->bss->log_tail, tail, __ATOMIC_RELEASE);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct fgt_session *s = ctx;
	const struct fgt_event *e = data;

	if (size < sizeof(*e))
		return 0;
	switch (e->type) {
	case FGT_EV_LOG:	/* a wake-up: the log is filling */
		log_drain(s, s->begin_seq);
		return 0;
	case FGT_EV_ACT_BEGIN:
		log_drain(s, e->act_seq - 1);
		s->lost_at_begin = lost_events(s->skel);
		s->begin_seq = e->act_seq;
		s->who.pid = e->pid;
		s->who.tid = e->tid;
		memcpy(s->who.comm, e->comm, sizeof(s->who.comm));
		break;
	case FGT_EV_ACT_END:
		log_drain(s, e->act_seq);
		/* what was lost between handling its BEGIN and its END: a window a
		 * little wider than the activation, since both wake us at once */
		fgt_asm_lost(s->as, lost_events(s->skel) - s->lost_at_begin);
		break;
	}
	feed(s, e);
	return 0;
}

int fgt_session_plan(struct fgt_session *s, char *msg, size_t len)
{
	int status;

	s->ks = fgt_ksyms_load(NULL);
	status = fgt_preflight(s->ks, msg, len);
	if (status)
		return status;
	s->plan = calloc(1, sizeof(*s->plan));
	if (!s->plan) {
		snprintf(msg, len, "out of memory");
		return FGT_EXIT_ERROR;
	}
	return fgt_plan_build(s->plan, s->ks, s->pref, msg, len);
}

int fgt_session_start(struct fgt_session *s, fgt_activation_cb cb, void *cb_ctx,
		      char *msg, size_t len)
{
	int err;

	s->skel = fgraphtop_bpf__open();
	if (!s->skel) {
		snprintf(msg, len, "cannot open the BPF object: %s", strerror(errno));
		return FGT_EXIT_ERROR;
	}
	err = configure(s->skel, s->plan, s->ringbuf_mb, s->on_event != NULL);
	if (err) {
		snprintf(msg, len, "cannot configure the BPF programs: %s", strerror(-err));
		return FGT_EXIT_ERROR;
	}
	err = fgraphtop_bpf__load(s->skel);
	if (err) {
		snprintf(msg, len, "loading the planned BPF programs failed (%s); "
			 "rerun with -vvv for libbpf's log, and report it", strerror(-err));
		return FGT_EXIT_ERROR;
	}
	s->log = mmap(NULL, log_bytes(), PROT_READ, MAP_SHARED,
		      bpf_map__fd(s->skel->maps.actlog), 0);
	if (s->log == MAP_FAILED) {
		s->log = NULL;
		snprintf(msg, len, "cannot map the activation log: %s", strerror(errno));
		return FGT_EXIT_ERROR;
	}
	err = fgraphtop_bpf__attach(s->skel);
	if (err) {
		snprintf(msg, len, "attaching the planned BPF programs failed (%s); "
			 "see fgraphtop --explain", strerror(-err));
		return FGT_EXIT_ERROR;
	}
	s->as = fgt_asm_new(cb, cb_ctx);
	if (!s->as) {
		snprintf(msg, len, "out of memory");
		return FGT_EXIT_ERROR;
	}
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), handle_event, s, NULL);
	if (!s->rb) {
		snprintf(msg, len, "cannot set up the ring buffer: %s", strerror(errno));
		return FGT_EXIT_ERROR;
	}
	lazy_update(s);
	return 0;
}

/*
 * An activation's records do not wake us one by one (bpf/fgraphtop.bpf.c):
 * the BPF side wakes us at its end, or when a quarter of the activation log
 * waits. In between, drain once a second for the live view, not on every
 * poll timeout: on a machine short of CPUs our draining would compete with
 * the walk we are timing.
 */
int fgt_session_poll(struct fgt_session *s, int ms)
{
	int err = ring_buffer__poll(s->rb, ms);
	uint64_t now = now_ms();

	if (err >= 0 && (!s->skel->bss->act_tid || now - s->last_drain_ms >= FGT_DRAIN_MS)) {
		err = ring_buffer__consume(s->rb);
		log_drain(s, s->begin_seq);
		s->last_drain_ms = now;
	}
	lazy_update(s);
	return err < 0 ? err : 0;
}

int fgt_session_graph_active(struct fgt_session *s)
{
	return s->skel ? graph_active(s->skel) : -1;
}

uint64_t fgt_session_lost(struct fgt_session *s)
{
	return s->skel ? lost_events(s->skel) : 0;
}

int fgt_session_stack_fd(const struct fgt_session *s)
{
	return s->skel ? bpf_map__fd(s->skel->maps.stacks) : -1;
}

void fgt_session_close(struct fgt_session *s)
{
	if (s->rb)
		ring_buffer__consume(s->rb);
	if (s->skel)	/* whatever is left, even without its ACT_BEGIN */
		log_drain(s, s->skel->bss->act_seq);
	if (s->log)
		munmap((void *)s->log, log_bytes());
	s->log = NULL;
	if (s->as)
		fgt_asm_flush(s->as);
	ring_buffer__free(s->rb);
	s->rb = NULL;
	fgraphtop_bpf__destroy(s->skel);
	s->skel = NULL;
	fgt_asm_free(s->as);
	s->as = NULL;
	free(s->plan);
	s->plan = NULL;
	fgt_ksyms_free(s->ks);
	s->ks = NULL;
}

/* ---- struct fgt_watch_ops for `fgraphtop check` ---- */

static int w_start(void *priv, fgt_activation_cb cb, void *cb_ctx, char *msg, size_t len)
{
	struct fgt_session *s = priv;
	int status = fgt_session_plan(s, msg, len);

	if (!status)
		status = fgt_session_start(s, cb, cb_ctx, msg, len);
	return status ? -EOPNOTSUPP : 0;
}

static int w_graph_active(void *priv)
{
	return fgt_session_graph_active(priv);
}

static int w_poll(void *priv, int ms)
{
	return fgt_session_poll(priv, ms);
}

static bool w_busy(void *priv)
{
	struct fgt_session *s = priv;

	return s->as && fgt_asm_current(s->as) != NULL;
}

static uint64_t w_lost(void *priv)
{
	return fgt_session_lost(priv);
}

static void w_stop(void *priv)
{
	fgt_session_close(priv);
}

const struct fgt_watch_ops *fgt_session_watch_ops(struct fgt_session *s)
{
	s->ops = (struct fgt_watch_ops){
		.start = w_start, .graph_active = w_graph_active, .poll = w_poll,
		.busy = w_busy, .lost = w_lost, .stop = w_stop, .priv = s,
	};
	return &s->ops;
}
