/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Nothing that blocks without saying so. A step that may wait on a kernel
 * lock a function-graph activation holds (ftrace_lock: any fentry/fexit
 * attach, through register_ftrace_direct(); trace_types_lock: tracefs
 * files a tracer switch holds) runs between fgt_wait_begin() and
 * fgt_wait_end(); past FGT_WAIT_NOTICE_MS, once the step's thread has been
 * seen asleep in the kernel (state D, as a mutex sleeps) at two looks
 * FGT_WAIT_LOOK_MS apart, a thread of ours says, once, on the one message
 * channel (a "warning" record, code "lock_wait", in JSON), what waits and
 * for what: its kernel stack names it (ftrace_lock, trace_types_lock, or an
 * RCU grace period, which a tracepoint's first attach waits for and the
 * walk's rcu_read_lock() sections delay); a step that is only slow on the
 * CPU (the verifier on a loaded host) says nothing. -v logs when the wait
 * is over.
 */
#ifndef FGT_WAITNOTE_H
#define FGT_WAITNOTE_H

#include <stdbool.h>
#include <stdint.h>

#define FGT_WAIT_NOTICE_MS	1000
#define FGT_WAIT_LOOK_MS	100

enum fgt_wait_lock {
	FGT_WAIT_FTRACE_LOCK,		/* ftrace_lock: fentry/fexit attach */
	FGT_WAIT_TRACE_TYPES_LOCK,	/* trace_types_lock: tracefs files */
};

struct fgt_wait;

/* what: the step, "attaching the probes", run by the calling thread; NULL
 * on failure (no notice then). */
struct fgt_wait *fgt_wait_begin(enum fgt_wait_lock lock, const char *what);
/* The same for a step another thread runs while this one waits for it
 * (--explain's holders: the reader blocks, the caller waits at most 2 s):
 * the time alone tells. */
struct fgt_wait *fgt_wait_begin_other(enum fgt_wait_lock lock, const char *what);
/* true if the notice was given (the step waited past FGT_WAIT_NOTICE_MS). */
bool fgt_wait_end(struct fgt_wait *w);
/* The notice's words for lock, for renderers that mark a step deferred. */
const char *fgt_wait_lock_text(enum fgt_wait_lock lock);
/* Notices given since the start (tests/lab: no step waits silently). */
unsigned int fgt_wait_notices(void);

#endif
