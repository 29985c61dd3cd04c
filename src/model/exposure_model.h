/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exposure: if fgraph were turned on now, how long would an
 * unfixed kernel's shadow-stack walk stall?
 *
 *  - src/watch/exposure.c: counts the threads lacking a shadow stack with a BPF
 *    task iterator (bpf/exposure.bpf.c). No activation, nothing attached.
 *  - src/model/exposure_model.c (pure, unit-tested): the unfixed walk those
 *    threads would cost, in sweeps and thread visits, and in seconds.
 *
 * The unfixed alloc_retstack_tasklist() allocates 32 stacks, walks the task
 * list from its head handing them to threads whose ret_stack is NULL, and
 * returns -EAGAIN once the 32 are used while threads remain: one sweep per 32
 * threads, each restarting at the head. With U threads lacking a stack and
 * all of them first in the list that is about U^2/64 visits; threads that
 * already hold a stack ahead of them (after an earlier activation, every old
 * thread) are walked again by every sweep, so the model follows the task
 * list's order.
 */
#ifndef FGT_EXPOSURE_MODEL_H
#define FGT_EXPOSURE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bpf/events_abi.h"	/* FGT_RETSTACK_BATCH */
#include "bpf/exposure_abi.h"

/*
 * Cost of one visit when nothing better is known: the series' figure, 227 s
 * for 400,000 idle threads (all lacking, 2,500,212,499 visits in this model):
 * 90.8 ns. Under qemu TCG in the lab: 110 to 210 ns (tests/lab/exposure.sh).
 */
#define FGT_EXP_VISIT_NS_DEFAULT	90.8
/* An observed walk calibrates the cost only when it is an unfixed one (2 or
 * more sweeps) of at least this many visits: below, timer resolution and the
 * 32 hand-outs per sweep dominate. */
#define FGT_EXP_CALIB_MIN_VISITS	10000

/* The unfixed walk over the threads as they are now. */
struct fgt_exp_walk {
	uint64_t threads;	/* T: threads the kernel's walk goes over */
	uint64_t lacking;	/* U: of which without a shadow stack */
	uint64_t sweeps;	/* alloc_retstack_tasklist() calls (fixed kernels: 1) */
	uint64_t visits;	/* loop iterations over threads, all sweeps */
	uint64_t pending;	/* (internal) where a full batch ended, if the walk goes on */
	uint64_t held_ahead;	/* threads holding a stack ahead of the first lacking one:
				 * during a walk, those it served (src/model/joined.h) */
	/* the threads a walk under way owes (struct fgt_exp_owed), when
	 * owed: of them, those still here and lacking a stack */
	bool owed;
	uint64_t owed_lacking;
};

/* Feed the threads in task-list order: init, one step per thread, end. */
void fgt_exp_walk_init(struct fgt_exp_walk *w);
void fgt_exp_walk_step(struct fgt_exp_walk *w, bool lacking);
void fgt_exp_walk_end(struct fgt_exp_walk *w);

/* The same walk when the lacking threads come first (every thread lacking,
 * on a host fgraph never ran on), in closed form: the series' U^2/64, plus
 * one visit a sweep and the final full walk. */
void fgt_exp_walk_lacking_first(uint64_t threads, uint64_t lacking, struct fgt_exp_walk *w);

/* Records from the iterator (TID order) into task-list order, then the walk.
 * Sorts recs in place. */
void fgt_exp_walk_from_records(struct fgt_exp_rec *recs, size_t n, struct fgt_exp_walk *w);

/*
 * The threads a walk under way owes a stack: those lacking one at the
 * join's first count, by identity (start time and TID: a TID is reused, not
 * with the same start). Later counts follow them alone. A thread started
 * since got its stack at fork while fgraph was on, or, after fgraph went
 * off again, lacks one no walk owed it (the lab's bpftrace rows served
 * 30,058 of the kernel's 30,063 when the shell's next processes, forked
 * after bpftrace stopped, counted). An owed thread that exits leaves the
 * count as a served one does (src/model/joined.c). Capped by the records:
 * one key each.
 */
struct fgt_exp_key {
	uint64_t start_ns;
	uint32_t tid;
};

struct fgt_exp_owed {
	struct fgt_exp_key *k;	/* sorted */
	size_t n;
};

/* The lacking threads of recs become o's. 0, or -ENOMEM (o left empty). */
int fgt_exp_owed_take(struct fgt_exp_owed *o, const struct fgt_exp_rec *recs, size_t n);
/* Of o's threads, those in recs still lacking a stack. */
uint64_t fgt_exp_owed_lacking(const struct fgt_exp_owed *o, const struct fgt_exp_rec *recs,
			      size_t n);
void fgt_exp_owed_free(struct fgt_exp_owed *o);

/* An activation seen on this host. visits is what the model says that walk
 * visited: a scan just before it (fgt_exposure_scan), or, without one,
 * fgt_exp_walk_lacking_first(activation's nr_threads, threads served), which is
 * the fewest visits possible and so errs towards a higher cost. */
struct fgt_exp_calib {
	uint64_t sweeps;	/* observed */
	uint64_t walk_ns;	/* observed: the walk of all sweeps, allocation excluded */
	uint64_t visits;	/* modelled, see above */
};

enum fgt_exp_cost_src {
	FGT_EXP_COST_DEFAULT,	/* FGT_EXP_VISIT_NS_DEFAULT, the series' figure */
	FGT_EXP_COST_OBSERVED,	/* calibrated from an observed unfixed walk */
};

struct fgt_exp_estimate {
	double seconds;		/* the unfixed walk over w */
	double ns_per_visit;
	enum fgt_exp_cost_src src;
	uint64_t calib_visits;	/* observed: the visits the price was taken over */
};

/* "default" or "observed". */
const char *fgt_exp_cost_src_name(enum fgt_exp_cost_src src);

/* Estimate w's unfixed walk; calib may be NULL. 0, or -EINVAL. */
int fgt_exp_estimate(const struct fgt_exp_walk *w, const struct fgt_exp_calib *calib,
		      struct fgt_exp_estimate *out);

/* One line: "12501 sweeps, 2500212499 thread visits, about 227 s at 90.8 ns
 * a visit (the series' figure)". Returns snprintf's count. */
int fgt_exp_estimate_text(const struct fgt_exp_walk *w, const struct fgt_exp_estimate *e,
			   char *buf, size_t len);

/*
 * The live view's exposure (pure): the last scan, the last one taken while
 * no activation was under way, and the cost of a visit from this host's own
 * unfixed activations since. The estimate prices the last scan's walk.
 */
struct fgt_exp_live {
	bool known, idle_known, prev_known;
	struct fgt_exp_walk now, idle;	/* the last scan, the last idle one */
	uint64_t now_ns, idle_ns;	/* when they were taken (CLOCK_MONOTONIC) */
	/* the idle one before: a scan called idle may have landed after an
	 * activation began, before its first record was read */
	struct fgt_exp_walk prev;
	uint64_t prev_ns;
	struct fgt_exp_calib calib;	/* the latest activation that can price a visit */
	uint64_t calib_ns;		/* its start, 0 when none */
	uint64_t last_begin_ns;		/* the last activation's start */
};

/* A scan at ns; busy: an activation was under way (it is no activation's U). */
void fgt_exp_live_scan(struct fgt_exp_live *l, const struct fgt_exp_walk *w, uint64_t ns,
		       bool busy);
/* A finished activation: it prices a visit when it was an unfixed walk of
 * enough visits, modelled from the idle scan before begin_ns, else as
 * fgt_exp_calib says. */
void fgt_exp_live_activation(struct fgt_exp_live *l, uint64_t begin_ns, uint64_t sweeps,
			     uint64_t walk_ns, uint64_t nr_threads, uint64_t served);
/* The last scan's walk priced: 0, or -ENODATA before the first scan. */
int fgt_exp_live_estimate(const struct fgt_exp_live *l, struct fgt_exp_estimate *e);

#endif
