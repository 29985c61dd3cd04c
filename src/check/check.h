/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `fgraphtop check`: does the running kernel carry the fix for the quadratic
 * shadow-stack walk? One answer, monitoring-plugin style (FGT_CHECK_* in
 * exit_codes.h): 0 fixed or not affected, 1 fixed but something is wrong,
 * 2 not fixed, 3 unknown (the line says why and what would let it tell).
 *
 * The watching itself is the BPF session (src/watch/session.c,
 * bpf/fgraphtop.bpf.c), handed in by src/main.c; check needs only the
 * narrow interface below, so that everything else (kernel identity,
 * refusals, trigger, verdict, outputs) is tested without a kernel.
 */
#ifndef FGT_CHECK_H
#define FGT_CHECK_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "model/activation.h"
#include "model/exposure_model.h"
#include "host/holders.h"
#include "host/host_state.h"
#include "host/kernel_id.h"
#include "model/record.h"
#include "static/static_kernel.h"
#include "model/verdict.h"
#include "watch/watch.h"
#include "check/trigger.h"

#include "common/exit_codes.h"

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

/* The static verdict (src/static/static_check.h), injected: fgt_static_check in the
 * program, a fake in tests, NULL where a build has none. */
typedef enum fgt_verdict (*fgt_static_fn)(const struct fgt_static_opts *o,
						 struct fgt_static_result *r);

/* The system check runs against: where it looks and what it may call.
 * Tests point it at fake trees, a fake session and a fake static verdict. */
struct fgt_check_sys {
	struct fgt_host host;
	const char *notes_path;		/* NULL: /sys/kernel/notes */
	const char *state_dir;		/* NULL: /run/fgraphtop */
	const char *proc;		/* NULL: /proc */
	const char *hold_pin;		/* NULL: FGT_HOLD_PIN (fgraphtop hold's link) */
	const char *const *trig_funcs;	/* NULL: trigger.c's cold functions */
	bool no_bpf;			/* tests: no real BPF (links, kretprobe.multi) */
	const struct fgt_watch_ops *watch;	/* NULL: this build cannot watch */
	fgt_static_fn statik;		/* NULL: no answer from the code */
	fgt_kmem_read_fn bpf_read;	/* the code's BPF reader (fgt_kread_bpf); NULL: none */
	FILE *out;			/* the answer (stdout) */
	volatile sig_atomic_t *stop;	/* set by SIGINT/SIGTERM: restore and leave */
};

/* Activations seen: the session's judge as it stood after the last one, and
 * the figures of the one it quotes. */
struct fgt_check_seen {
	struct fgt_judge judge;
	unsigned int n;			/* complete or not */
	bool have;			/* fig is set */
	/* the quoted activation's, as the model gave them (fgt_act_figures_of) */
	struct fgt_act_figures fig;
	bool triggered_by_us;		/* the quoted one was ours (--trigger) */
};
void fgt_check_seen_init(struct fgt_check_seen *s);
void fgt_check_on_record(const struct fgt_record *rec, void *ctx);	/* fgt_record_cb */

/* The reason as rendered (src/check/answer.c), at most. */
#define FGT_CHECK_REASON_LEN	768

/* What answered (JSON "method"): the code, an activation we caused, one we
 * waited for; the code with one of the others ("static+trigger"). */
enum {
	FGT_BY_STATIC	= 1u << 0,
	FGT_BY_TRIGGER	= 1u << 1,
	FGT_BY_WATCH	= 1u << 2,
};

/* How the reason reads, decided with the verdict; src/check/answer.c renders
 * it from the values below when the answer is written. */
enum fgt_check_shape {
	FGT_SHAPE_ACT,		/* the activation side alone (judge, or note) */
	FGT_SHAPE_CODE,		/* the code's evidence */
	FGT_SHAPE_CODE_HINT,	/* the code's, and when unknown what would tell */
	FGT_SHAPE_AGREE,	/* the code's, then the activation's */
	FGT_SHAPE_DISAGREE,	/* both, and their verdicts */
	FGT_SHAPE_CODE_FIRST,	/* the code answers; the activation side in a clause */
	FGT_SHAPE_ACT_FIRST,	/* the activation answers; the code's in a clause */
};

struct fgt_check_result {
	enum fgt_verdict verdict;
	int status;			/* FGT_CHECK_* */
	enum fgt_check_shape shape;
	/* the activation side: the judge's verdict (seen.judge) with its
	 * clauses, or, when nothing was judged, what stopped it (a refusal, a
	 * usage error) or the host's facts, in note */
	bool judged;
	enum fgt_verdict act_verdict;	/* as that side decided, before the code's */
	char note[FGT_CHECK_REASON_LEN];
	char hint[256];			/* what would let it tell (unknown, judged) */
	char prom_err[512];		/* --prometheus could not be written: why */
	struct fgt_kernel_id kid;
	const char *kernel_file;		/* --kernel FILE: the answer is that file's */
	struct fgt_check_seen seen;
	uint64_t lost;
	double check_time;		/* epoch seconds */
	/* --trigger */
	bool triggered;
	enum fgt_trig_method trig_method;	/* FGT_TRIG_NONE: none used */
	char func[128];
	unsigned int parked;
	long threads;			/* before parking, -1 unknown */
	struct fgt_exp_walk trig_walk;	/* the walk the trigger would cause, parked included */
	struct fgt_exp_estimate trig_est;
	bool trig_assumed;		/* no scan: every thread assumed lacking */
	char cleaned[512];		/* what killed runs left and we undid */
	unsigned int answered_by;	/* FGT_BY_*: 0 nothing did */
	unsigned int act_by;		/* FGT_BY_TRIGGER or FGT_BY_WATCH: the asked-for side */
	bool have_static;		/* the code was asked: st is its answer */
	struct fgt_static_result st;
	/* the host's exposure, before the check changed anything */
	bool have_exposure;
	struct fgt_exp_walk exposure;
	struct fgt_exp_estimate exposure_est;
	char exposure_why[256];		/* why not, when !have_exposure */
	/* `fgraphtop hold` in place (not for --kernel FILE): an unfixed kernel
	 * held is mitigated, not healthy (docs/fleet.md) */
	bool have_hold;
	struct fgt_hold_seen hold;
	/* a 0->1 step under way as the check ran (src/model/joined.h): by whom,
	 * how far along; the answer says so */
	bool under_way;
	struct fgt_joined join;
};

/* Above this estimated unfixed walk, --trigger refuses without --force. */
#define FGT_WALK_MAX_S		5.0


/* Verdict and status from what was seen; lost events and allocation
 * failures make a fixed verdict a warning. hint: what would let it tell. */
void fgt_check_decide(struct fgt_check_result *r, const char *hint);

/* ---- src/check/answer.c: the renderers ---------------------------------- */

/* The reason, rendered from r's values into buf; returns buf. */
const char *fgt_check_reason(const struct fgt_check_result *r, char *buf, size_t len);
/* The running kernel's code could not be read for want of privilege: the
 * answer is the same with and without --trigger (check.c). */
bool fgt_check_needs_root(const struct fgt_check_result *r);
/* "static", "trigger", "static+watch", ...; NULL when nothing answered. */
const char *fgt_check_by_name(unsigned int by);

/* The default line: "FGRAPH OK: fixed - <evidence>; kernel R build B | perfdata". */
void fgt_check_print_line(FILE *f, const struct fgt_check_result *r);
void fgt_check_print_json(FILE *f, const struct fgt_check_result *r);
/* The node_exporter textfile's content. 0 or -errno. */
int fgt_check_render_prom(FILE *f, const struct fgt_check_result *r);
/* --prometheus FILE (atomic, via fgt_prom_write). 0 or -errno, err set. */
int fgt_check_write_prom(const char *path, const struct fgt_check_result *r, char *err, size_t len);

/* The whole check (no option parsing, no signal handlers): fills r, prints, returns the status. */
int fgt_check_run(const struct fgt_check_opts *o, const struct fgt_check_sys *sys,
		  struct fgt_check_result *r);

/*
 * The answer: the metrics file first (if it cannot be written, that is part
 * of the answer: status 3 and a clause in the reason), then the line or the
 * JSON object on out. An answer that cannot be written is status 3 too.
 * Returns the exit status.
 */
int fgt_check_answer(struct fgt_check_result *r, bool json, const char *prom_file, FILE *out);

/* `fgraphtop check ...` (src/check_main.c): argv[0] is "check". Parses options,
 * installs SIGINT/SIGTERM/SIGHUP handlers, runs, answers, returns the status. */
int fgt_check_main(int argc, char **argv, const struct fgt_watch_ops *watch,
		   fgt_kmem_read_fn bpf_read);

#endif
