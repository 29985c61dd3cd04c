// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel code simulated here (kernel/trace/fgraph.c):
 *
 * unfixed alloc_retstack_tasklist():
 *	for (i = 0; i < 32; i++)
 *		if (!(list[i] = alloc(GFP_KERNEL))) { end = i; ret = -ENOMEM; goto free; }
 *	for_each_process_thread(g, t) {
 *		if (start == end) { ret = -EAGAIN; goto unlock; }
 *		if (t->ret_stack == NULL) t->ret_stack = list[start++];
 *	}
 *	free: for (i = start; i < end; i++) free(list[i]);
 *
 * fixed (lab/patches/fix): same reserve, then
 *	for_each_process_thread(g, t) {
 *		if (t->ret_stack) continue;
 *		if (!(s = alloc(GFP_NOWAIT))) {
 *			if (start == end) { ret = -EAGAIN; goto unlock; }
 *			s = list[start++];
 *		}
 *		t->ret_stack = s;
 *	}
 *
 * fixed-plus (lab/patches/fix-plus, gen_cfg.grow): the same walk, the
 * reserve doubling on each -EAGAIN, never above max(nr_threads, 32):
 *	size = size >= limit / 2 ? max(size, limit) : size * 2;
 *
 * start_graph_tracing() gives idle tasks a stack, then loops on -EAGAIN.
 * Timestamps are chosen so the direct and attributed streams carry the same
 * times: SWEEP_BEGIN at the first allocation's start, SWEEP_END where the
 * next sweep begins. The sweep's and idle tasks' allocations carry no dur_ns:
 * the allocator's fexit is not attached during an activation (the assembler
 * takes the gaps); the fork path's do (it is attached while fgraph is active).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/gen.h"

#define BATCH		32
#define ALLOC_NS	300
#define VISIT_NS	10
#define FREE_NS		50
#define STACK_SIZE	4096

struct gen {
	const struct gen_cfg *c;
	gen_emit_fn emit;
	void *ctx;
	uint64_t ts;
	uint64_t ptr;
	unsigned int nb_attempts, nb_failed, blocking_attempts;
	uint64_t last_ptr;	/* of the latest allocation, 0 if it failed */
	unsigned char *has;	/* per thread in walk order: holds a stack */
	unsigned int nthreads;
};

static void emit(struct gen *g, struct fgt_event *ev)
{
	ev->src = g->c->direct ? FGT_SRC_DIRECT : FGT_SRC_ATTRIBUTED;
	ev->pid = ev->tid = 4242;
	strcpy(ev->comm, "trace-cmd");
	g->emit(ev, g->ctx);
}

static void simple(struct gen *g, uint32_t type, int32_t ret)
{
	struct fgt_event ev = { .ts_ns = g->ts, .type = type, .ret = ret };

	if (type == FGT_EV_ACT_BEGIN) {
		ev.nr_threads = g->nthreads;
		ev.stack_id = 7;
	}
	emit(g, &ev);
}

static bool alloc(struct gen *g, uint32_t site, uint32_t gfp)
{
	struct fgt_event ev = { .type = FGT_EV_ALLOC, .site = site, .gfp = gfp,
				.size = STACK_SIZE, .ok = 1 };
	const struct gen_cfg *c = g->c;
	unsigned int every = c->fail_interval ? c->fail_interval : 1;

	if (gfp & FGT_GFP_DIRECT_RECLAIM) {
		if (++g->blocking_attempts == c->fail_blocking_nth)
			ev.ok = 0;
	} else if (g->nb_failed < c->fail_nb && ++g->nb_attempts > c->fail_after &&
		   (g->nb_attempts - c->fail_after) % every == 0) {
		/* failslab with ignore-gfp-wait: only non-blocking ones are eligible */
		g->nb_failed++;
		ev.ok = 0;
	}
	g->ts += ALLOC_NS;
	ev.ts_ns = g->ts;
	ev.ptr = ev.ok ? 0xffff888000000000ull + (++g->ptr) * STACK_SIZE : 0;
	g->last_ptr = ev.ptr;
	emit(g, &ev);
	return ev.ok;
}

static void free_one(struct gen *g, uint64_t ptr)
{
	/* kmem_cache_free's tracepoint fires as the free begins */
	struct fgt_event ev = { .type = FGT_EV_FREE, .site = FGT_SITE_SWEEP, .ts_ns = g->ts,
				.ptr = ptr };

	emit(g, &ev);
	g->ts += FREE_NS;
}

/* The walk of one sweep; start counts reserve stacks handed out. */
static int walk(struct gen *g, unsigned int *start, unsigned int end)
{
	unsigned int i;

	for (i = 0; i < g->nthreads; i++) {
		g->ts += VISIT_NS;
		if (!g->c->fixed) {
			if (*start == end)
				return -EAGAIN;
			if (!g->has[i]) {
				g->has[i] = 1;
				(*start)++;
			}
			continue;
		}
		if (g->has[i])
			continue;
		if (!alloc(g, FGT_SITE_SWEEP, GEN_GFP_NOWAIT)) {
			if (*start == end)
				return -EAGAIN;
			(*start)++;
		}
		g->has[i] = 1;
	}
	return 0;
}

/* lab-fixed-plus's kvfree() of a reserve array, a tail call into kfree():
 * a FREE of no stack from the sweep's code, between two sweeps (it takes no
 * time here, so that SWEEP_END stays where the next sweep begins) */
static void free_array(struct gen *g, unsigned int size)
{
	struct fgt_event ev = { .type = FGT_EV_FREE, .site = FGT_SITE_SWEEP, .ts_ns = g->ts,
				.ptr = 0xffffc90000000000ull + size };

	if (!g->c->cache)
		emit(g, &ev);
}

static int sweep(struct gen *g, unsigned int size)
{
	unsigned int i, start = 0, end = size;
	uint64_t *list = calloc(size, sizeof(*list));
	int ret = 0;

	if (!list)
		abort();
	if (g->c->direct)
		simple(g, FGT_EV_SWEEP_BEGIN, 0);
	for (i = 0; i < size; i++) {
		if (!alloc(g, FGT_SITE_SWEEP, GEN_GFP_KERNEL)) {
			end = i;
			ret = -ENOMEM;
			break;
		}
		list[i] = g->last_ptr;
	}
	if (!ret)
		ret = walk(g, &start, end);
	for (i = start; i < end; i++)
		free_one(g, list[i]);
	free(list);
	if (g->c->direct)
		simple(g, FGT_EV_SWEEP_END, ret);
	return ret;
}

/* The walk of the linear shapes (enum gen_shape): one walk, no retry. */
static int walk_shape(struct gen *g)
{
	const struct gen_cfg *c = g->c;
	unsigned int i, n = 0, next = 0;
	uint64_t *list = NULL;
	int ret = 0;

	if (c->direct)
		simple(g, FGT_EV_SWEEP_BEGIN, 0);
	if (c->shape == GEN_BLOCKING) {
		for (i = 0; i < g->nthreads; i++)
			n += !g->has[i];
		n += BATCH;
		list = calloc(n, sizeof(*list));
		if (!list)
			abort();
		for (i = 0; i < n; i++) {
			if (!alloc(g, FGT_SITE_SWEEP, GEN_GFP_KERNEL)) {
				n = i;
				ret = -ENOMEM;
				break;
			}
			list[i] = g->last_ptr;
		}
	}
	for (i = 0; i < g->nthreads && !ret; i++) {
		g->ts += VISIT_NS;
		if (g->has[i])
			continue;
		if (c->shape == GEN_BLOCKING) {
			next++;
			g->has[i] = 1;
			continue;
		}
		if (!alloc(g, FGT_SITE_SWEEP, GEN_GFP_NOWAIT)) {
			if (c->shape == GEN_SINGLE)
				continue;	/* runs without a stack */
			if (!alloc(g, FGT_SITE_SWEEP, GEN_GFP_KERNEL)) {
				ret = -ENOMEM;
				break;
			}
		}
		g->has[i] = 1;
	}
	for (i = next; i < n; i++)
		free_one(g, list[i]);
	free(list);
	if (c->direct)
		simple(g, FGT_EV_SWEEP_END, ret);
	return ret;
}

uint64_t gen_activation(const struct gen_cfg *c, gen_emit_fn fn, void *ctx)
{
	struct gen g = { .c = c, .emit = fn, .ctx = ctx, .ts = c->ts0 };
	unsigned int i, size = BATCH, limit;
	int ret;

	g.nthreads = c->before + c->lacking + c->after;
	limit = g.nthreads > BATCH ? g.nthreads : BATCH;
	g.has = calloc(g.nthreads ? g.nthreads : 1, 1);
	if (!g.has)
		abort();
	memset(g.has, 1, c->before);
	memset(g.has + c->before + c->lacking, 1, c->after);
	/* the linear shapes have no ret_stack_list: the attributed path sees
	 * no bracket (the direct one's fentry/fexit stay) */
	if (c->shape == GEN_LAB || c->direct)
		simple(&g, FGT_EV_ACT_BEGIN, 0);
	for (i = 0; i < c->idle_cpus; i++)
		alloc(&g, FGT_SITE_IDLE, GEN_GFP_KERNEL);
	if (c->shape != GEN_LAB) {
		ret = walk_shape(&g);
		if (c->direct)
			simple(&g, FGT_EV_ACT_END, ret);
		free(g.has);
		return g.ts + 1000;
	}
	while ((ret = sweep(&g, size)) == -EAGAIN) {
		if (!c->grow)
			continue;
		/* the bigger reserve array: the one it replaces is kvfree()d */
		if (size > BATCH)
			free_array(&g, size);
		size = size >= limit / 2 ? (size > limit ? size : limit) : size * 2;
	}
	if (c->grow && size > BATCH)
		free_array(&g, size);
	/* attributed ACT_END is the kfree of the list: it cannot carry ret */
	simple(&g, FGT_EV_ACT_END, c->direct ? ret : 0);
	free(g.has);
	return g.ts + 1000;
}

uint64_t gen_forks(uint64_t ts, unsigned int m, unsigned int failed, bool direct,
		   gen_emit_fn fn, void *ctx)
{
	unsigned int i;

	for (i = 0; i < m; i++) {
		struct fgt_event ev = { .type = FGT_EV_ALLOC, .site = FGT_SITE_FORK,
					.gfp = GEN_GFP_KERNEL, .size = STACK_SIZE,
					.dur_ns = ALLOC_NS, .ok = i >= failed,
					.src = direct ? FGT_SRC_DIRECT : FGT_SRC_ATTRIBUTED };

		ts += ALLOC_NS;
		ev.ts_ns = ts;
		fn(&ev, ctx);
		ev.type = FGT_EV_TASK_NEW;
		ev.site = 0;
		ev.target_tid = 10000 + i;
		ts += 1000;
		ev.ts_ns = ts;
		fn(&ev, ctx);
	}
	return ts;
}
