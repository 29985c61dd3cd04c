/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `fgraphtop check --trigger`: cause one 0->1 step of ftrace_graph_active in
 * the least disturbing way this kernel offers, and put everything back.
 *
 * Methods, in order of preference:
 *  1. instance:  a private tracefs instance (instances/fgraphtop-check-PID)
 *     with tracing_on 0, set_ftrace_filter = one cold function, tracer
 *     function_graph. Needs a kernel that allows function_graph in instances
 *     (6.12 and 7.2 do, 6.1 does not: its instances' available_tracers lack it).
 *  2. kretmulti: a BPF kretprobe.multi link on one cold function, where fprobe
 *     goes through fgraph (>= 6.14). Never pinned: it dies with the process.
 *  3. toplevel:  the top-level tracer, only when it is idle (current_tracer
 *     nop, no set_ftrace_filter, no events enabled): a tracer change resets
 *     the top-level ring buffer, so it is refused on a busy one.
 *
 * Crash safety: the lock /run/fgraphtop/check.lock serialises triggering
 * checks, and a state file (/run/fgraphtop/check-PID.state) records each change
 * before it is made and is removed once it is undone. A run that holds the lock
 * undoes what dead runs left (their state files, and instances named for
 * them), before it looks for fgraph users: what they left would otherwise
 * count as one and block the cleanup forever (fgt_trig_prepare). What a live
 * run owns, or a run of another PID namespace, is never touched; see
 * trigger_state.h for the owner, the directory and the state file rules.
 */
#ifndef FGT_TRIGGER_H
#define FGT_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>

#include "check/trigger_state.h"

#define FGT_STATE_DIR		"/run/fgraphtop"

enum fgt_trig_method {
	FGT_TRIG_NONE = 0,
	FGT_TRIG_INSTANCE,
	FGT_TRIG_KRETMULTI,
	FGT_TRIG_TOPLEVEL,
};

struct fgt_trig_cfg {
	const char *tracefs;	/* NULL: found (host_state.h) */
	const char *state_dir;	/* NULL: FGT_STATE_DIR */
	const char *const *funcs;	/* cold functions to try, NULL-terminated; NULL: built-in */
	bool fprobe_fgraph;	/* kretmulti can work: this kernel's fprobe uses fgraph */
	bool no_bpf;		/* tests: never try the kretmulti method */
	const char *proc;	/* NULL: /proc (tests: a fake tree) */
};

struct fgt_trigger {
	struct fgt_trig_cfg cfg;
	struct fgt_owner self;
	char tracefs[256];
	char state_dir[256];
	char state_name[64];	/* check-PID.state, in dir_fd */
	char instance[96];	/* our instance's name, "" when none */
	char func[128];		/* the cold function used */
	enum fgt_trig_method method;
	bool toplevel_set;	/* we changed the top-level tracer and filter */
	int dir_fd, lock_fd, prog_fd, link_fd;
	long helper_pid;	/* the dead check whose mkdir helper we waited for, 0 none */
	unsigned int helper_ms;	/* how long */
};

const char *fgt_trig_method_name(enum fgt_trig_method m);

/*
 * Take the lock (-EBUSY with the holder's pid in msg when another check
 * triggers; a dead holder's mkdir helper is waited for), then undo what dead
 * runs left. cleaned: what was undone, in
 * words ("" when nothing). 0 or -errno, msg set. Call fgt_trig_release()
 * in any case.
 */
int fgt_trig_prepare(struct fgt_trigger *t, const struct fgt_trig_cfg *cfg,
		     char *cleaned, size_t clen, char *msg, size_t len);

/* Cause the 0->1 step (synchronous: it has happened when this returns). 0 or -errno, msg set. */
int fgt_trig_on(struct fgt_trigger *t, char *msg, size_t len);

/* Undo fgt_trig_on; idempotent, safe after a partial fgt_trig_on. 0, or -errno
 * when something could not be undone (msg says what; the state file stays, so
 * the next run retries). */
int fgt_trig_off(struct fgt_trigger *t, char *msg, size_t len);

/* Drop the lock (and the state file, when nothing is left to undo). */
void fgt_trig_release(struct fgt_trigger *t);

/* The cold functions tried, NULL-ended (cfg->funcs, or the built-in ones). */
const char *const *fgt_trig_funcs(const struct fgt_trig_cfg *cfg);

#endif
