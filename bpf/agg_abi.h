/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared between bpf/fgraphtop.bpf.c and userspace: the activation figures
 * the BPF programs aggregate themselves (bpf/agg.h), so that the consumer
 * reads finished sweeps and activations, not one record per thread served.
 * The fields are those of src/model/activation.h's records, which stay the
 * reference (tests/bpf/test_agg.c replays the recorded streams through both).
 */
#ifndef FGT_AGG_ABI_H
#define FGT_AGG_ABI_H

#ifndef __bpf__
#include <linux/types.h>
#endif
#include "events_abi.h"

#define FGT_AGG_HIST_SLOTS	40		/* = FGT_HIST_SLOTS (src/model/hist.h) */
#define FGT_AGG_MAX_SWEEPS	(1u << 20)	/* = the assembler's FGT_MAX_SWEEPS */
/*
 * Finished sweeps go out this many to a message (bpf/agg.h fgt_agg_put()):
 * one ring-buffer output per 16 sweeps of a stock kernel's walk, not per
 * sweep, on the CPU of the walk being timed. Those of an activation's last
 * message go with its end, which carries the state whole.
 */
#define FGT_AGG_PEND		16

/*
 * The latest sweep's reserve (its blocking allocations), by pointer: a FREE
 * that is none of them is no shadow stack. Open addressing in a fixed table
 * with generation tags, so that starting a sweep clears nothing: a slot is in
 * the set when its gen is the sweep's. At most half full, at most
 * FGT_AGG_PROBES probes; beyond, the set overflows and every FREE counts (as
 * the assembler's does when out of memory). lab-fixed-plus's reserve doubles
 * on each -EAGAIN: 8,192 after the 9 sweeps of 100,000 threads.
 */
#define FGT_AGG_SLOTS		(1u << 16)
#define FGT_AGG_PROBES		32

struct fgt_agg_slot {
	__u64 ptr;
	__u32 gen;
	__u32 pad;
};

struct fgt_agg_hist {		/* the layout of struct fgt_hist */
	__u64 slots[FGT_AGG_HIST_SLOTS];
	__u64 count, sum, min, max;
};

/* One sweep (struct fgt_sweep's fields). */
struct fgt_agg_sweep {
	__u64 begin_ns, end_ns;
	__u64 alloc_ns, walk_ns;
	__u32 batch, nonblocking;
	__u32 failed_nonblocking, failed_blocking;
	__u32 freed, served;
	__s32 ret;
	__u32 ret_known;
	__u32 seq;		/* its activation's */
	__u32 index;		/* 0, 1, ... within it */
};

/* One activation's totals (struct fgt_activation's, but the sweeps). */
struct fgt_agg_act {
	__u64 begin_ns, end_ns, last_ns;
	__u64 nr_threads;
	__u64 served, blocking, nonblocking;
	__u64 failed_blocking, failed_nonblocking, freed;
	__u64 alloc_ns, walk_ns;
	__u64 lost;
	__u32 seq, src, pid, tid;
	__s32 stack_id, ret;
	__u32 nr_sweeps;
	__u8 complete, implicit, active, pad;
	char comm[16];
	struct fgt_agg_hist lat;
};

/* Everything the aggregation keeps: one activation at a time. */
struct fgt_agg {
	/* The headers of the two ring-buffer messages, each leading what it
	 * carries, so that BPF sends either with one copy (bpf_ringbuf_output()),
	 * not field by field: act_ev (an ACT_END event; ok = the END was seen)
	 * leads the whole state, which the consumer finishes (src/model/agg_collect.c
	 * fgt_agg_collect_end()); pend_ev leads the finished sweeps not sent yet
	 * (struct fgt_sweeps_msg), FGT_AGG_PEND of them once it is full. */
	struct fgt_event act_ev;
	struct fgt_agg_act act;
	struct fgt_event pend_ev;
	struct fgt_agg_sweep pend[FGT_AGG_PEND];
	__u32 pend_n;		/* how many pend holds */
	__u32 pad0;
	struct fgt_agg_sweep sweep;	/* the latest sweep (open when `open`) */
	__u64 batch_end;	/* end of the open sweep's last blocking allocation, 0 if none */
	__u64 walk_end;		/* its first FREE, 0 if none */
	/* latencies of its non-blocking allocations, but the fast path's run's
	 * (fgt_agg_sync() adds those up from the gaps) */
	__u64 inline_ns;
	__u64 gap_from;		/* its previous event, 0 if a gap would hold a walk */
	__u64 last_ts;		/* the activation's latest event */
	__u64 sum_from;		/* gap_from when the fast path's run began */
	/* the sweep's batch and nonblocking when the fast path's run began */
	__u32 run_batch, run_nb;
	__u32 seq;		/* activations begun */
	__u32 res_gen, res_n;	/* the reserve set: its generation, its size */
	/* The fast path takes a blocking allocation while the sweep's batch is
	 * below this (bpf/agg.h fgt_agg_fast_set()): the next would start one.
	 * 0 once it took a non-blocking one: a run's blocking allocations come
	 * before its non-blocking ones, whose gaps then add up to their span. */
	__u32 blk_limit;
	__u8 open, expl;	/* a sweep is open; opened by SWEEP_BEGIN */
	__u8 res_overflow;
	__u8 fast;		/* the fast path may take a successful allocation */
	/* Every FREE the programs pass on is a stack of the sweep's reserve
	 * (a kernel whose stacks come from their own cache): no set is kept. */
	__u8 res_trust;
	/* fast && !blk_limit: the fast path takes a non-blocking allocation
	 * with this one test, where it would clear blk_limit every time */
	__u8 nb_fast;
	__u8 pad[2];
};

/*
 * BPF's state on the allocation path (bpf/fgraphtop.bpf.c `hot`), one object
 * so that its programs reach all of it from one register: what every kmem
 * event is tested against first, then the aggregation. Userspace reads agg.
 */
struct fgt_hot {
	/* fgraph_stack_cachep (6.13+), 0 until read (read_cachep()) */
	__u64 cachep;
	/* While an activation is under way, the sweep's code, [walk_lo,
	 * walk_lo + walk_span); an empty range outside one (walk_site()). */
	__u64 walk_lo, walk_span;
	/* ... and the call site in it of the walk's last allocation, 0 outside
	 * one: a walk allocates from one place (the batch) or two (the fix's
	 * reserve, then inline), many times in a row each. */
	__u64 walk_hot;
	struct fgt_agg agg;
};

/*
 * Ring-buffer messages of the aggregation (bpf/fgraphtop.bpf.c), each behind
 * a struct fgt_event header whose type says which: FGT_EV_SWEEP_DONE,
 * FGT_AGG_PEND finished sweeps (ev.size says how many), in the order they
 * finished; FGT_EV_ACT_END, the activation's end as before (what --events
 * prints), and behind it the rest of BPF's whole state, the sweeps not sent
 * yet among it: the message is struct fgt_agg itself, act_ev its first member.
 */
struct fgt_sweeps_msg {
	struct fgt_event ev;
	struct fgt_agg_sweep s[FGT_AGG_PEND];
};

_Static_assert(__builtin_offsetof(struct fgt_agg, act_ev) == 0, "act_ev must lead the state");
_Static_assert(__builtin_offsetof(struct fgt_agg, pend) - __builtin_offsetof(struct fgt_agg, pend_ev) ==
	       __builtin_offsetof(struct fgt_sweeps_msg, s), "pend_ev must lead pend as in its message");
_Static_assert((FGT_AGG_PEND & (FGT_AGG_PEND - 1)) == 0, "FGT_AGG_PEND is a power of two");

#endif /* FGT_AGG_ABI_H */
