/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The activation assembler: turns the event stream of either path (direct or
 * attributed, see docs/EVENTS.md) into activation records and fork-path
 * statistics. Pure userspace, no kernel needed: unit-tested over recorded
 * event sequences.
 */
#ifndef FGT_ACTIVATION_H
#define FGT_ACTIVATION_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "bpf/events_abi.h"
#include "model/hist.h"

struct fgt_sweep {
	uint32_t batch;		/* blocking allocations (the reserve / the batch of 32) */
	uint32_t nonblocking;	/* successful non-blocking (inline) allocations */
	uint32_t failed_nonblocking;
	uint32_t failed_blocking;
	uint32_t freed;		/* unused stacks freed at the end of the sweep */
	uint32_t served;	/* threads handed a stack by this sweep */
	int32_t ret;		/* direct path: alloc_retstack_tasklist()'s return; else inferred */
	bool ret_known;		/* true when ret came from fexit (direct) */
	uint64_t begin_ns, end_ns;
	uint64_t alloc_ns;	/* batch phase (begin to the last batch alloc's end)
				 * + the inline allocations' own latencies */
	uint64_t walk_ns;	/* last batch alloc's end to the walk's end (first FREE,
				 * else the sweep's end); includes inline allocations */
};

/*
 * How the activation's sweeps (walks of the thread list) were seen: a sweep
 * is counted only where something shows a walk (docs/EVENTS.md, "Walks").
 */
enum fgt_walks {
	FGT_WALKS_NONE = 0,	/* no sweep, or not settled yet (under way) */
	FGT_WALKS_CALLS,	/* direct: each call of alloc_retstack_tasklist() seen */
	FGT_WALKS_INLINE,	/* attributed: the walk allocates inline (non-blocking); a
				 * new walk only where its reserve was used up, one more
				 * inline allocation failed (-EAGAIN) and a reserve was
				 * taken again */
	FGT_WALKS_GAPS,		/* attributed, blocking only: the gaps between batches hold
				 * walks (they grow with k, or each is a walk's length) */
	FGT_WALKS_ONE,		/* attributed, blocking only: a single batch, one walk */
	FGT_WALKS_UNSEEN,	/* attributed, blocking only: several batches with nothing
				 * between them that shows a walk: not observable */
	FGT_WALKS__NR
};

struct fgt_activation {
	uint32_t seq;		/* 1, 2, ... since fgraphtop started */
	uint32_t src;		/* enum fgt_src of the events that made it */
	uint32_t pid, tid;	/* who triggered it */
	char comm[FGT_COMM_LEN];
	int32_t stack_id;
	uint64_t nr_threads;	/* threads in the system at the start */
	uint64_t begin_ns, end_ns;
	uint64_t last_ns;	/* its latest event so far: how fresh a live view's figures are */
	int32_t ret;		/* start_graph_tracing()'s return */
	bool complete;		/* ACT_BEGIN and ACT_END both seen */
	bool implicit;		/* started by a sweep event without ACT_BEGIN (fgraphtop
				 * started mid-activation, a kernel whose fgraph keeps
				 * no ret_stack_list, or ACT_BEGIN was lost) */
	bool joined;		/* fgraphtop started during it: the session joined it
				 * (src/watch/follow.c); the assembler never sets it */
	uint64_t lost;		/* events reported lost while it was under way */
	uint32_t nr_sweeps;
	struct fgt_sweep *sweeps;	/* nr_sweeps of them */
	uint32_t walks;		/* enum fgt_walks, set when it is settled */
	uint32_t batches;	/* the sweeps as cut from the allocations, before settling:
				 * more than nr_sweeps where no walk was seen between them */
	uint64_t served;	/* threads handed a stack, all sweeps */
	uint64_t blocking, nonblocking;	/* successful allocations by class */
	uint64_t failed_blocking, failed_nonblocking;
	uint64_t freed;
	uint64_t alloc_ns;	/* allocation phase: sum of the sweeps' alloc_ns + inline allocs */
	uint64_t walk_ns;	/* sum of the sweeps' walk_ns */
	struct fgt_hist lat;	/* per-allocation latency, sweep path (ns, log2) */
};

struct fgt_fork_stats {
	uint64_t allocs, failed;	/* fork-path shadow-stack allocations (FORK and IDLE sites) */
	uint64_t tasks_new;		/* tasks created while fgraph was active */
	uint64_t tasks_without;		/* ... that were left without a stack */
	uint64_t idle_allocs;		/* ... of which from ftrace_graph_init_idle_task() */
	struct fgt_hist lat;		/* per-allocation latency, fork path (ns, log2) */
};

/*
 * A finished activation's sweeps as the kernel made them: on the attributed
 * path the allocation stream is cut into batches (a blocking allocation after
 * 32 blocking ones, or after a non-blocking one or a FREE, begins one); a
 * batch counts as a sweep of its own only where something shows a walk
 * before it (enum fgt_walks), else it is merged into the sweep before it.
 * Both paths' records go through it (src/model/agg_collect.c too). Pure.
 */
void fgt_activation_settle(struct fgt_activation *act);
/* The walks an activation under way has made so far, as settling would count
 * them: a fixed one's batches merged where no walk restarted (a pinned
 * cursor's one blocking allocation per failure), the batches otherwise. */
uint32_t fgt_activation_walks_now(const struct fgt_activation *act);
/* Do the gaps after batches 0 .. n-2 (each closed by the next) hold walks? */
bool fgt_walks_in_gaps(const struct fgt_sweep *s, uint32_t n);
/* "calls", "inline", "gaps", "one", "not_observable"; NULL for NONE. */
const char *fgt_walks_name(uint32_t walks);

struct fgt_assembler;

/* Called for every completed activation; the record is valid during the call only. */
typedef void (*fgt_activation_cb)(const struct fgt_activation *act, void *ctx);

struct fgt_assembler *fgt_assembler_new(fgt_activation_cb cb, void *ctx);
void fgt_assembler_free(struct fgt_assembler *a);
/* Feed one event; events must come in ts_ns order per activation. */
void fgt_assembler_feed(struct fgt_assembler *a, const struct fgt_event *ev);
/* The activation under way (NULL if none): for live views. */
const struct fgt_activation *fgt_assembler_current(const struct fgt_assembler *a);
const struct fgt_fork_stats *fgt_assembler_fork(const struct fgt_assembler *a);
/*
 * Ring-buffer losses: n events never arrived. The activation under way (if any)
 * records them, so its figures are known to be a lower bound.
 */
void fgt_assembler_lost(struct fgt_assembler *a, uint64_t n);
/* Flush an activation that never saw ACT_END (e.g. at exit): reported incomplete. */
void fgt_assembler_flush(struct fgt_assembler *a);
/*
 * The system call that made the 0->1 step has returned, and fgraphtop was
 * watching before it began (check --trigger makes the step itself, fgraph
 * idle before): an activation under way that began without an ACT_BEGIN is
 * over and was seen whole, and is reported complete. On the attributed path
 * ACT_BEGIN/END are the ret_stack_list's kcalloc and kfree, which a fix may
 * drop (one walk with no reserve, a pinned cursor, every stack allocated
 * before the walk): its sweep's allocations are all there is to see.
 */
void fgt_assembler_end(struct fgt_assembler *a, uint64_t end_ns);
/*
 * Every FREE fed is a shadow stack of the activation's (a kernel whose stacks
 * have their own cache, from which BPF passes frees on: bpf/agg.h's
 * FGT_AGG_RES_TRUST), not only those of the latest batch: a fix that takes
 * every stack before its walk frees the unused ones of any batch.
 */
void fgt_assembler_trust_frees(struct fgt_assembler *a, bool on);

#endif
