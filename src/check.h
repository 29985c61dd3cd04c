/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `fgraphtop check`: does the running kernel carry the fix for the quadratic
 * shadow-stack walk? One answer, monitoring-plugin style (FGT_CHECK_* in
 * exit_codes.h): 0 fixed or not affected, 1 fixed but something is wrong,
 * 2 not fixed, 3 unknown (the line says why and what would let it tell).
 *
 * The watching itself is the live tool's BPF session (src/fgraphtop.c,
 * bpf/fgraphtop.bpf.c); check needs only the narrow interface below, so that
 * everything else (kernel identity, refusals, trigger, verdict, outputs) is
 * tested without a kernel.
 */
#ifndef FGT_CHECK_H
#define FGT_CHECK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "activation.h"
#include "exposure.h"
#include "host_state.h"
#include "kernel_id.h"
#include "record.h"
#include "static_check.h"
#include "verdict.h"

#include "exit_codes.h"

/*
 * What check needs from a BPF session that watches fgraph activations: the
 * live tool's (src/session.c, fgt_session_watch_ops), or a test's fake.
 */
struct fgt_watch_ops {
	/* Plan, load, attach, with kallsyms as check read it (so it is parsed
	 * once; it outlives the session). Finished activation records go to cb
	 * (during poll/stop). 0, or -errno with msg: what is wrong and what to do. */
	int (*start)(void *priv, const struct fgt_ksyms *ks, fgt_record_cb cb, void *cb_ctx,
		     char *msg, size_t len);
	/* fgraph users as the kernel counts them (ftrace_graph_active); -1 unknown. */
	int (*graph_active)(void *priv);
	/* Wait up to ms for events and deliver them. 0 or -errno (-EINTR is fine). */
	int (*poll)(void *priv, int ms);
	/* An activation is under way (begun, not ended): worth waiting for. */
	bool (*busy)(void *priv);
	/* Events lost so far (ring buffer full, runs skipped): read it before
	 * stop, which frees what it counts. */
	uint64_t (*lost)(void *priv);
	/* The threads lacking a shadow stack now and the unfixed walk over them
	 * (src/exposure.c's task iterator; no activation). 0 or -errno, msg. */
	int (*exposure)(void *priv, struct fgt_exp_walk *w, char *msg, size_t len);
	/* Flush (an unfinished activation is reported incomplete), detach, free. */
	void (*stop)(void *priv);
	void *priv;
};

enum fgt_check_verdict {
	FGT_CHECK_V_UNKNOWN = 0,
	FGT_CHECK_V_FIXED,
	FGT_CHECK_V_NOT_FIXED,
	FGT_CHECK_V_NOT_AFFECTED,
};

struct fgt_check_opts {
	double timeout_s;	/* passive: how long to wait; --trigger: for its events */
	bool trigger, force, json;
	/* what answers: the code (static), and an activation: --trigger causes
	 * one, watch waits --timeout for someone else's (--timeout given) */
	bool static_only;	/* --static: the code only */
	bool watch;
	const char *kernel;	/* --kernel FILE: a kernel file's code, not the running one */
	const char *system_map;	/* --system-map FILE, with --kernel */
	const char *prom_file;
	unsigned int park;	/* threads to park before triggering (FGT_PARK_THREADS) */
};

/* The static verdict (src/static_check.h), injected: fgt_static_check in the
 * program, a fake in tests, NULL where a build has none. */
typedef enum fgt_static_verdict (*fgt_static_fn)(const struct fgt_static_opts *o,
						 struct fgt_static_result *r);

/* Where check looks; tests point it at fake trees and a fake session. */
struct fgt_check_env {
	struct fgt_host host;
	const char *notes_path;		/* NULL: /sys/kernel/notes */
	const char *state_dir;		/* NULL: /run/fgraphtop */
	const char *proc;		/* NULL: /proc */
	const char *const *trig_funcs;	/* NULL: trigger.c's cold functions */
	bool no_bpf;			/* tests: no real BPF (links, kretprobe.multi) */
	const struct fgt_watch_ops *watch;	/* NULL: this build cannot watch */
	fgt_static_fn statik;		/* NULL: no answer from the code */
	FILE *out;			/* the answer (stdout) */
	volatile sig_atomic_t *stop;	/* set by SIGINT/SIGTERM: restore and leave */
};

/* Activations seen: the session's judge as it stood after the last one, and
 * the figures of the one it quotes. */
struct fgt_check_seen {
	struct fgt_judge judge;
	unsigned int n;			/* complete or not */
	bool have;			/* figures below are set */
	double duration_s;
	uint64_t sweeps, served, failures, nr_threads, lost, walk_ns;
	/* degraded under memory pressure: non-blocking failures, the threads the
	 * reserve served, and the sweeps after the first with their time */
	uint64_t failed_nonblocking, reserve_served, extra_sweeps, rewalked;
	double extra_s;
	bool triggered_by_us;		/* the quoted one was ours (--trigger) */
};
void fgt_check_seen_init(struct fgt_check_seen *s);
void fgt_check_on_record(const struct fgt_record *rec, void *ctx);	/* fgt_record_cb */

struct fgt_check_result {
	enum fgt_check_verdict verdict;
	int status;			/* FGT_CHECK_* */
	char reason[768];
	struct fgt_kernel_id kid;
	struct fgt_check_seen seen;
	uint64_t lost;
	double check_time;		/* epoch seconds */
	/* --trigger */
	bool triggered;
	const char *method;		/* instance, kretprobe.multi, toplevel */
	char func[128];
	unsigned int parked;
	long threads;			/* before parking, -1 unknown */
	struct fgt_exp_walk trig_walk;	/* the walk the trigger would cause, parked included */
	struct fgt_exp_estimate trig_est;
	bool trig_assumed;		/* no scan: every thread assumed lacking */
	char cleaned[512];		/* what killed runs left and we undid */
	/* what answered (JSON "method"): "static", "trigger", "watch",
	 * "static+trigger", "static+watch" */
	const char *answered_by;
	bool have_static;		/* the code was asked: st is its answer */
	struct fgt_static_result st;
	/* the host's exposure, before the check changed anything */
	bool have_exposure;
	struct fgt_exp_walk exposure;
	struct fgt_exp_estimate exposure_est;
	char exposure_why[256];		/* why not, when !have_exposure */
};

/* Above this estimated unfixed walk, --trigger refuses without --force. */
#define FGT_WALK_MAX_S		5.0

const char *fgt_check_verdict_name(enum fgt_check_verdict v);

/* Verdict, status and reason from what was seen; lost events and allocation
 * failures make a fixed verdict a warning. hint: what would let it tell. */
void fgt_check_decide(struct fgt_check_result *r, const char *hint);

/* The default line: "FGRAPH OK: fixed - <evidence>; kernel R build B | perfdata". */
void fgt_check_print_line(FILE *f, const struct fgt_check_result *r);
void fgt_check_print_json(FILE *f, const struct fgt_check_result *r);
/* --prometheus FILE (atomic, via fgt_prom_write). 0 or -errno, err set. */
int fgt_check_write_prom(const char *path, const struct fgt_check_result *r, char *err, size_t len);

/* The whole check (no option parsing, no signal handlers): fills r, prints, returns the status. */
int fgt_check_run(const struct fgt_check_opts *o, const struct fgt_check_env *env,
		  struct fgt_check_result *r);

/*
 * The answer: the metrics file first (if it cannot be written, that is part
 * of the answer: status 3 and a clause in the reason), then the line or the
 * JSON object on out. An answer that cannot be written is status 3 too.
 * Returns the exit status.
 */
int fgt_check_answer(struct fgt_check_result *r, bool json, const char *prom_file, FILE *out);

/* `fgraphtop check ...` (src/check_env.c): argv[0] is "check". Parses options,
 * installs SIGINT/SIGTERM/SIGHUP handlers, runs, answers, returns the status. */
int fgt_check_main(int argc, char **argv, const struct fgt_watch_ops *watch);

#endif
