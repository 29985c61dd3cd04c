/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `fgraphtop hold`: keep fgraph armed, so that no later fgraph user pays the
 * shadow-stack walk, until a fixed kernel boots.
 *
 * While fgraph has a user, every new task gets its shadow stack at fork
 * (ftrace_graph_init_task), and stacks are freed only when their task exits.
 * A later user then takes ftrace_graph_active from 1 to 2: start_graph_tracing()
 * and its walk run only on 0 -> 1 (register_ftrace_graph, kernel/trace/fgraph.c).
 * The holder traces nothing, patches one call site of a function nothing
 * calls, and needs no process to stay alive. By family (the sources read:
 * Debian's linux-source-6.12 and -7.2, kernel/trace/fgraph.c and fprobe.c):
 *
 *  - 6.14 and later (fprobe on fgraph, kallsyms has fprobe_graph_ops): a BPF
 *    kretprobe.multi link on one cold function, pinned at FGT_HOLD_PIN.
 *    Every fprobe shares one fgraph_ops (fprobe_graph_add_ips registers it
 *    once), so a later kretprobe.multi (bpftrace's kretprobe) registers no
 *    fgraph user at all: not even the second user's linear init_task_vars().
 *    Preferred to an fprobe dynamic event, which registers only when
 *    enabled, and enabling an event expands the top-level ring buffer.
 *  - 6.11 .. 6.13 (fgraph takes several users, fprobe uses rethook): the
 *    function_graph tracer in tracefs instance FGT_HOLD_INSTANCE, its
 *    set_ftrace_filter one cold function, tracing_on 0, its ring buffer
 *    shrunk to the minimum (it records nothing). Also the fallback on 6.14+
 *    when no link can be pinned (no bpffs, no BPF).
 *  - 5.10 and 6.1 (one fgraph user at a time): refused. The holder would
 *    have to be the top-level tracer (6.1's instances do not allow
 *    function_graph), which perf ftrace and trace-cmd take over and reset to
 *    nop, ending the hold; while it held, the function profiler and the
 *    latency tracers' call graphs would fail with EBUSY.
 *
 * Safe to take: its own 0 -> 1 step is the walk it prevents. It states the
 * threads lacking a stack, the unfixed walk over them and the memory, refuses
 * above check --trigger's bound (FGT_WALK_MAX_S) unless forced, and reports
 * its own activation as the live view's session saw it.
 */
#ifndef FGT_HOLD_H
#define FGT_HOLD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "check/check.h"
#include "common/exit_codes.h"
#include "host/holders.h"
#include "host/host_state.h"
#include "host/kernel_id.h"
#include "model/exposure_model.h"
#include "watch/watch.h"

enum fgt_hold_action {
	FGT_HOLD_TAKE,
	FGT_HOLD_RELEASE,
	FGT_HOLD_STATUS,
};

enum fgt_hold_method {
	FGT_HOLD_M_NONE = 0,
	FGT_HOLD_M_LINK,	/* kretprobe.multi link pinned in bpffs (6.14+) */
	FGT_HOLD_M_INSTANCE,	/* function_graph in FGT_HOLD_INSTANCE (6.11+) */
};

const char *fgt_hold_method_name(enum fgt_hold_method m);

/* The holder this kernel allows, from what kallsyms says of it: fprobe on
 * fgraph (6.14+), fgraph taking several users (6.11+). NONE, with the one
 * line saying why, on single-user kernels. Pure. */
enum fgt_hold_method fgt_hold_choose(bool fprobe_on_fgraph, bool multi_user, char *why,
				     size_t len);

struct fgt_hold_opts {
	enum fgt_hold_action action;
	bool json, force, dry_run;
	double timeout_s;	/* for the hold's own activation's records */
};

/* Where it looks and what it may call (tests: fake trees, a fake session). */
struct fgt_hold_sys {
	struct fgt_host host;
	const char *bpffs;		/* NULL: FGT_BPFFS */
	const char *const *funcs;	/* cold functions; NULL: the built-in ones */
	bool no_bpf;			/* tests: never load or pin BPF */
	const struct fgt_watch_ops *watch;	/* NULL: cannot watch */
	volatile sig_atomic_t *stop;
};

/* Exit statuses beyond FGT_EXIT_*: the hold was refused (the walk it would
 * cause is above the bound, or this kernel's fgraph takes one user). */
#define FGT_HOLD_EXIT_REFUSED	FGT_EXIT_REFUSED

struct fgt_hold_result {
	enum fgt_hold_action action;
	int status;			/* the exit status */
	char msg[768];			/* the error or refusal, in one line */
	struct fgt_kernel_id kid;
	/* before anything changed */
	struct fgt_hold_seen before;
	int users;			/* other fgraph users found, -1 unknown */
	char users_text[512];
	long threads;			/* nr_threads, -1 unknown */
	bool have_walk;
	bool walk_assumed;		/* no scan: every thread assumed lacking */
	struct fgt_exp_walk walk;
	struct fgt_exp_estimate est;
	char walk_why[256];
	uint32_t stack_bytes;		/* one shadow stack, this kernel */
	/* the holder */
	enum fgt_hold_method method;
	char func[128];
	char where[PATH_MAX];
	char why_not[512];		/* why a preferred method was not used */
	bool taken, dry_run, forced;
	/* its own activation */
	bool watched;
	char watch_why[256];
	struct fgt_check_seen seen;
	/* --release: what it removed, and what is left (must be nothing) */
	char removed[512];
	char left[512];
	/* after: --status, and the take's and the release's outcome */
	struct fgt_hold_seen after;
	int graph_active;		/* -1 unknown */
};

/* The run: no option parsing, no signal handlers. Fills r, returns r->status. */
int fgt_hold_run(const struct fgt_hold_opts *o, const struct fgt_hold_sys *sys,
		 struct fgt_hold_result *r);
/* Lines, or one JSON object ("type":"hold", docs/json.md). */
void fgt_hold_print(FILE *f, const struct fgt_hold_result *r, bool json);

/* ---- src/hold/holder.c: the holders themselves ------------------------- */

struct fgt_holder_env {
	const char *tracefs;		/* "" when not mounted */
	const char *bpffs;
	const char *const *funcs;
};

/* The cold functions tried, NULL-ended (env->funcs, or the built-in ones). */
const char *const *fgt_hold_funcs(const struct fgt_holder_env *e);
/* Take fgraph: the 0 -> 1 step happens inside (a tracer write, a
 * link_create). On failure nothing is left. 0 or -errno with msg. */
int fgt_holder_take(const struct fgt_holder_env *e, enum fgt_hold_method m, char *func,
		    size_t flen, char *where, size_t wlen, char *msg, size_t len);
/* Remove whatever hold is there (instance, pin, the pin's directory when
 * empty); removed says what, in words. 0, or -errno when something could
 * not be removed (msg). */
int fgt_holder_release(const struct fgt_holder_env *e, char *removed, size_t rlen,
		       char *msg, size_t len);

/* `fgraphtop hold ...` (src/hold_main.c): argv[0] is "hold". */
int fgt_hold_main(int argc, char **argv, const struct fgt_watch_ops *watch);

#endif
