/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The activation under way, for the live view (pure, unit-tested): how far
 * it is, and an estimate of the time left.
 *
 * U at the start is the ACT_BEGIN's nr_threads: every thread, those that
 * already hold a stack included, so the threads still lacking one are an
 * upper bound; on a host's first activation (no thread holds a stack) it is
 * exact. An exposure count (a task iterator's threads lacking a stack, taken
 * before the activation began) makes it exact: fgt_progress_lacking_at_start().
 *
 * The estimate, a range. An unfixed sweep walks the task list from its head
 * until it has handed out its 32 stacks: with the lacking threads spread over
 * the list, sweep k walks about k/S of it, so the sweeps cost a + b*k, and
 * when the lacking threads are all at its end every sweep is a full walk
 * (b = 0). The durations of the sweeps seen (begin to the next begin) are
 * fitted to a + b*k (least squares over all of them, b >= 0): the shape. The
 * pace is what a host lends the walk, and it changes under the walk (another
 * guest, the other vCPU's work, fgraphtop's own consumer): each stretch of a
 * thirtieth of their time on the fit (at least 4 sweeps) took
 * some multiple of what the fit gives it, and the sweeps to come,
 * ceil(lacking / 32), summed on the fit and scaled by the smallest and the
 * largest of those multiples, are the range: the end if the walk goes on at
 * the fastest, or the slowest, pace it has shown. It assumes that, no more; a
 * host that slows the walk past any pace it has shown ends it later (the
 * lab's recorded walks, tests/data, and the two that did: test_progress.c).
 * A fixed kernel walks once, allocating inline: its rate so far times the
 * threads left, a point (low = high), an estimate said as one. When memory
 * pressure makes it walk again (a reserve used up) and two of those walks
 * have ended, a range ("degraded"): from that point, as if no allocation
 * failed any more, to the end if they kept failing as they have since
 * its first sweep, each sweep to come walking again over the served threads at the
 * slowest pace shown, and never below the time so far times (S / s)^2 (s
 * served since the first sweep, S to serve: walks again over the served
 * cost at most that at the same pace; tests/data/lab-fixed-30k-starved,
 * test_progress.c).
 * Its high end waits for a third of the threads served: until then it is
 * "that point or more" (high_open).
 *
 * The sweeps' durations are measured begin to begin, and a live view's
 * latest ones may not be drained yet: their time counts in the pace all the
 * same, as one span (progress.c pace()).
 */
#ifndef FGT_PROGRESS_H
#define FGT_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include "model/activation.h"
#include "model/verdict.h"

#define FGT_VIA_LEN	128


/* Where U comes from. */
enum fgt_u_src {
	FGT_U_NR_THREADS,	/* ACT_BEGIN's nr_threads: every thread (an upper bound) */
	FGT_U_EXPOSURE,		/* an exposure count taken before it began: exact */
	FGT_U_NOW,		/* its ACT_BEGIN was not seen (fgraphtop started during
				 * it): the threads now, an upper bound */
	FGT_U_NONE,		/* not known at all */
};

struct fgt_progress {
	uint32_t seq;
	uint32_t src;			/* enum fgt_src */
	uint32_t pid, tid;		/* the trigger */
	char comm[FGT_COMM_LEN];
	char via[FGT_VIA_LEN];		/* the system call and mechanism; the caller's (the stack) */
	uint64_t begin_ns;		/* monotonic */
	uint64_t elapsed_ns;		/* now - begin */
	uint64_t data_age_ns;		/* now - its latest event seen */
	uint64_t threads;		/* U at the start (see u_src) */
	enum fgt_u_src u_src;
	bool lacking_exact;		/* threads counts only those lacking a stack */
	uint64_t served;		/* so far */
	uint64_t lacking;		/* threads - served: still lacking (at most, unless exact) */
	uint32_t sweeps;		/* so far, the one under way included */
	enum fgt_verdict so_far;	/* fgt_verdict_so_far(): the pattern seen */
	bool to_come_known;
	uint64_t sweeps_to_come;	/* unfixed: ceil(lacking / 32) after the one under way,
					 * which is counted as handing out its whole batch */
	bool eta_known;
	uint64_t eta_ns;		/* time left, the range's low end; 0: past it */
	uint64_t eta_high_ns;		/* its high end (= eta_ns for a fixed kernel) */
	uint64_t end_ns;		/* the end at the low end, monotonic */
	uint64_t end_high_ns;		/* at the high end */
	uint32_t fit_sweeps;		/* sweeps the estimate rests on */
	bool degraded;			/* fixed, walking again: the range runs from no more
					 * failures to failures as since its first sweep */
	bool high_open;			/* degraded, but its high end not bounded yet: under
					 * a third of the threads served (eta_high_ns = eta_ns) */
	uint64_t lost;			/* its records lost so far */
};

/*
 * The progress of act at now_ns (CLOCK_MONOTONIC, the events' clock).
 * lacking_at_start: the threads lacking a stack when it began, or -1 when
 * unknown (then ACT_BEGIN's nr_threads); threads_now: the threads in the
 * system now, for an activation whose ACT_BEGIN was not seen (0: unknown).
 * p->via is left empty.
 */
void fgt_progress_of(const struct fgt_activation *act, uint64_t now_ns,
		     int64_t lacking_at_start, uint64_t threads_now, struct fgt_progress *p);

/* "nr_threads", "exposure", "threads_now", "none". */
const char *fgt_u_src_name(enum fgt_u_src s);

/*
 * Threads lacking a stack at an activation's start, from a scan taken before
 * it (scan_lacking of scan_threads) and the activation's nr_threads: threads
 * created in between lack one too; never more than nr_threads.
 */
int64_t fgt_progress_lacking_at_start(uint64_t scan_lacking, uint64_t scan_threads,
				      uint64_t act_threads);

/* Percent of U served so far, 0..100. */
unsigned int fgt_progress_percent(const struct fgt_progress *p);

#endif
