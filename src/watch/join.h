/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is a 0->1 step under way as we start? The host side of joining one
 * (src/model/joined.h is the model): looks that cannot block on the locks
 * the step holds. ftrace_graph_active read as the static verdict reads
 * memory (kcore, else one BPF read); the threads lacking a stack by a task
 * iterator (an iterator link: no trampoline, no ftrace_lock); the task
 * inside register_ftrace_graph() by /proc/PID/task/TID/stack.
 */
#ifndef FGT_WATCH_JOIN_H
#define FGT_WATCH_JOIN_H

#include <stdbool.h>
#include "host/ksyms.h"
#include "model/joined.h"

/* The looks at a steady rate: at least this far apart, and at most 5 % of a
 * CPU (a count costs about what the walk pays to visit as many threads). */
#define FGT_JOIN_LOOK_MS	500
#define FGT_JOIN_DUTY		20

struct fgt_joiner;

/* ks: the kernel's symbols (ftrace_graph_active's address); NULL with msg. */
struct fgt_joiner *fgt_joiner_open(const struct fgt_ksyms *ks, char *msg, size_t len);
void fgt_joiner_close(struct fgt_joiner *jr);

/*
 * Two looks a moment apart: is a step under way? If it is, *j is joined
 * (code: the static verdict, or FGT_VERDICT_UNKNOWN) and true is returned.
 * graph_active == 0 answers at once, with no count taken.
 */
bool fgt_joiner_detect(struct fgt_joiner *jr, enum fgt_verdict code, struct fgt_joined *j);

/* One look: the count, ftrace_graph_active, and t's stack (t known). */
void fgt_joiner_look(struct fgt_joiner *jr, const struct fgt_join_trigger *t,
		     struct fgt_join_look *l);

/* The next look is due at now_ns (the steady rate). */
bool fgt_joiner_due(const struct fgt_joiner *jr, uint64_t now_ns);

/* Is task tid of process pid inside register_ftrace_graph()? 1 yes, 0 no
 * (or gone), -1 not known: its stack unreadable (running on another CPU). */
int fgt_join_task_inside(int pid, int tid);

/* ftrace_graph_active, -1 unknown. */
int fgt_joiner_graph_active(struct fgt_joiner *jr);

#endif
