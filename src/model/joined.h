/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Joining a 0->1 step already under way (pure, replay-tested:
 * tests/model/test_joined.c). fgraphtop started seconds into a walk sees
 * neither its ACT_BEGIN nor the batches of the sweeps before it; and until
 * register_ftrace_graph() returns it cannot attach an fentry or fexit
 * program (the walk holds ftrace_lock, which register_ftrace_direct()
 * takes). What it can see at once, without blocking:
 *
 *  - ftrace_graph_active (1 during the walk: the step counts the user first);
 *  - the threads lacking a shadow stack, a task iterator's count
 *    (src/watch/exposure.c), falling as the walk serves them;
 *  - the task inside register_ftrace_graph(), by its kernel stack: the
 *    trigger, with its system call.
 *
 * Looks are taken again at a steady rate until the walk ends. What came
 * before the join is inferred, and said as inferred:
 *
 *  - served before joining: the threads holding a stack ahead of the first
 *    one still lacking, in task-list order. The walk (unfixed or fixed)
 *    goes down the list from its head and serves every lacking thread it
 *    meets, so its served threads are a prefix of the list; new tasks are
 *    added at its tail, and get their stack from the fork path. Exact on a
 *    host's first activation; where an earlier one left stacks on old
 *    threads, those count too (an upper bound).
 *  - sweeps before joining: unfixed code hands out one batch of 32 a sweep,
 *    so ceil(served / 32) sweeps had begun (one more may have allocated its
 *    batch and served nobody yet: within one batch); fixed code walks once.
 *  - the time in: the trigger's system time (its stat's stime: the walk
 *    runs in its system call, which may have spent some before it, so an
 *    upper bound of the walk's CPU time), else the unfixed walk's visits up
 *    to there (sweep k walks to the 32k-th lacking thread: lacking-first,
 *    32 k (k + 1) / 2), priced at what our own task iterator paid per
 *    thread, which walks the same list (on a loaded host that price, and so
 *    this time, comes out far too high: the lab's 114 s for 11).
 *
 * The walk has ended when no thread lacks a stack any more, or when the
 * trigger has left register_ftrace_graph() (a fixed kernel whose inline
 * allocation failed leaves threads without one), or when the count has
 * stood still for FGT_JOIN_STILL looks and the last did not see the
 * trigger inside. A trigger running on another CPU has a stack no unwinder
 * reads (x86's ORC refuses it): the sweeps the tracepoints see then name it
 * (their events carry its pid, comm and, for the first, its stack).
 */
#ifndef FGT_JOINED_H
#define FGT_JOINED_H

#include <stdbool.h>
#include <stdint.h>
#include "model/activation.h"
#include "model/progress.h"
#include "model/verdict.h"

#define FGT_JOIN_SYSCALL_LEN	32
/* Looks without change, trigger unknown, before the walk is taken as over. */
#define FGT_JOIN_STILL		4

/* The task found inside register_ftrace_graph(), by its stack. */
struct fgt_join_trigger {
	bool known;
	bool from_sweeps;			/* named by the sweeps seen, not by its stack */
	bool by_time;				/* named by its CPU time (running in the
						 * kernel only), not by its stack */
	uint32_t pid, tid;
	char comm[FGT_COMM_LEN];
	char syscall[FGT_JOIN_SYSCALL_LEN];	/* "bpf", "write", "" unknown */
	char via[FGT_VIA_LEN];			/* "bpf() -> register_fprobe", "" */
};

/* One look at the host (src/watch/join.c takes them). */
struct fgt_join_look {
	uint64_t ns;			/* CLOCK_MONOTONIC, when the count was taken */
	int graph_active;		/* ftrace_graph_active, -1 unknown */
	bool counted;			/* the exposure count below was taken */
	uint64_t threads;		/* every thread the walk goes over */
	/* ... without a shadow stack: after the first count, of the threads
	 * that count found lacking, the ones still here and lacking
	 * (struct fgt_exp_owed) */
	uint64_t lacking;
	uint64_t held_ahead;		/* ... holding one ahead of the first lacking one */
	uint64_t scan_ns;		/* what the count's pass took */
	bool trigger_in;		/* a task was seen inside register_ftrace_graph() */
	/* the trigger was seen out of it (its stack read without it, or it
	 * is gone); a stack that cannot be read (running on another CPU) is
	 * neither */
	bool trigger_left;
	/* the trigger's system time so far (its stat's stime), 0 unknown: its
	 * time in the walk, at most (a bpf() also verifies programs first) */
	uint64_t trig_sys_ns;
};

enum fgt_join_why {
	FGT_JOIN_NO,		/* nothing under way */
	FGT_JOIN_TRIGGER,	/* a task is inside register_ftrace_graph() */
	FGT_JOIN_FALLING,	/* fgraph active and the count lacking a stack falls */
};

struct fgt_join_inferred {
	uint64_t served;		/* threads served before joining */
	uint32_t sweeps;		/* sweeps begun before joining */
	uint64_t lacking_at_start;	/* served + lacking at the join: U */
	uint64_t visits;		/* the walk's visits up to the join (unfixed model) */
	double ns_per_visit;		/* the price put on one */
	uint64_t elapsed_ns;		/* the walk's time before the join */
	bool elapsed_from_cpu;		/* elapsed_ns is the trigger's system time, else
					 * the visits at ns_per_visit */
	bool sweeps_from_total;		/* sweeps: the walk's whole, ceil(U / 32), less
					 * those seen (fgt_join_finish()); else from
					 * the count at the join */
};

struct fgt_join_seen {
	uint32_t looks;			/* counts taken since joining */
	uint64_t served;		/* threads served since (the count's fall) */
	uint64_t lacking;		/* still lacking, at the last look */
	uint32_t sweeps;		/* sweeps whose batch the tracepoints saw */
	uint64_t sweeps_served;		/* threads those sweeps served */
	uint64_t blocking, nonblocking;	/* their allocations by class */
};

struct fgt_joined {
	enum fgt_join_why why;		/* FGT_JOIN_NO: not joined */
	struct fgt_join_trigger trig;
	enum fgt_verdict code;		/* the static verdict: which code walks */
	uint64_t join_ns;		/* the first look's time */
	struct fgt_join_look first, last;
	uint32_t still;			/* looks since the count last moved */
	struct fgt_join_inferred inferred;
	uint32_t seen_at_base;		/* sweeps seen by the end of the base look */
	struct fgt_join_seen seen;
	bool walk_over;			/* the walk has ended (see above) */
	uint64_t end_ns;		/* the look that saw it end */
	bool trigger_out;		/* the trigger has left register_ftrace_graph() */
	enum fgt_verdict so_far;	/* from the sweeps seen (fgt_verdict_so_far) */
};

/* Two looks a moment apart (b after a): is a 0->1 step under way? */
enum fgt_join_why fgt_join_detect(const struct fgt_join_look *a, const struct fgt_join_look *b);

/* Join it: a and b the detecting looks; code what the kernel's code says. */
void fgt_join_begin(struct fgt_joined *j, const struct fgt_join_look *a,
		    const struct fgt_join_look *b, const struct fgt_join_trigger *t,
		    enum fgt_verdict code);

/*
 * The tracepoints are attached: from this look on, the sweeps are seen. The
 * join is taken again here (the inference over it, the count's fall from
 * it), so that what is inferred and what is seen meet: the sweeps between
 * the detecting looks and the attach would otherwise be neither. seen: the
 * sweeps the tracepoints had seen by the end of that look (read just after
 * it): they are in its count too, and are not inferred. A look that finds
 * the walk over is no base: the join stays, the next look finds the end.
 */
void fgt_join_rebase(struct fgt_joined *j, const struct fgt_join_look *l, uint32_t seen);

/* The code's verdict, once known (the static verdict comes after the join):
 * the inference again, over the first look. */
void fgt_join_set_code(struct fgt_joined *j, enum fgt_verdict code);

/* A later look; true when it is the one that finds the walk over. */
bool fgt_join_look_at(struct fgt_joined *j, const struct fgt_join_look *l);

/* The sweeps the tracepoints saw since joining (the assembler's activation
 * without its ACT_BEGIN; NULL: none yet). */
void fgt_join_sweeps(struct fgt_joined *j, const struct fgt_activation *seen);

/*
 * The progress, as the live view shows an activation under way, through
 * progress.c: the sweeps seen, U the threads lacking at the join (served
 * since are counted by those sweeps); elapsed and served include what was
 * inferred before the join. seen may be NULL.
 */
void fgt_join_progress(const struct fgt_joined *j, const struct fgt_activation *seen,
		       uint64_t now_ns, struct fgt_progress *p);

/*
 * The walk is over and its sweeps seen are all in: the sweeps before the
 * join, for unfixed code, from the served count and the kernel's batch:
 * ceil(U / 32) in all, less those seen. The count at the join is one pass
 * of the task iterator, and on a loaded host a pass takes seconds, during
 * which sweeps the tracepoints see go on (the lab's debian-6.12 at 3 s:
 * 15 sweeps off); the whole walk's U is exact (served_total = the
 * oracle's U in every lab run).
 */
void fgt_join_finish(struct fgt_joined *j);

/* Threads served by the whole walk: inferred before, counted since. */
uint64_t fgt_join_served(const struct fgt_joined *j);
/* How the trigger was named: "stack", "cpu_time", "sweeps", "none". */
const char *fgt_join_named_by(const struct fgt_join_trigger *t);
/* "trigger", "falling", "no" */
const char *fgt_join_why_name(enum fgt_join_why w);
/* The system call of a kernel stack's outermost "__x64_sys_NAME",
 * "__arm64_sys_NAME", "__se_sys_NAME" or "__do_sys_NAME" frame: NAME into
 * buf ("" when none). names: innermost first. */
void fgt_join_syscall_of(const char *const *names, int n, char *buf, size_t len);

#endif
