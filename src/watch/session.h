/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One BPF watching session: preflight, plan, open -> set rodata -> load ->
 * attach; the activations' figures aggregated by BPF (bpf/agg.h) read from
 * the ring buffer, the fork path's events fed to the assembler. Used by the live
 * tool (src/main.c) and, through struct fgt_watch_ops, by `fgraphtop check`.
 */
#ifndef FGT_SESSION_H
#define FGT_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include "model/activation.h"
#include "model/actlog.h"
#include "model/aggact.h"
#include "watch/watch.h"
#include "bpf/events_abi.h"
#include "host/ksyms.h"
#include "model/status.h"
#include "host/holders.h"
#include "watch/plan.h"
#include "model/progress.h"
#include "model/record.h"
#include "watch/exposure.h"
#include "watch/join.h"
#include "model/joined.h"
#include "watch/attach.h"
#include "watch/assemble.h"

/* While an activation is under way, drain the ring buffer at most this often. */
#define FGT_DRAIN_MS	1000
/* Who holds fgraph: read this often (by a thread of its own, holders.h). */
#define FGT_HOLDERS_MS		1000

struct fgraphtop_bpf;
struct ring_buffer;
struct bpf_link;

struct fgt_session {
	/* set by the caller before fgt_session_plan() */
	enum fgt_path_pref pref;
	unsigned int ringbuf_mb;		/* 0: 1 MiB */
	/* each event, before the assembler (--events); frames: ACT_BEGIN's stack */
	void (*on_event)(const struct fgt_event *e, const struct fgt_frame *frames, int nr_frames,
			 void *ctx);
	void *event_ctx;
	/* the caller's kallsyms (kept, not freed), else loaded by fgt_session_plan() */
	const struct fgt_ksyms *ks;
	bool want_holders;		/* the live view: read who holds fgraph (fgt_session_status) */
	bool want_exposure;		/* load the exposure's task iterator with the programs */
	/* before the plan: join a 0->1 step already under way (the live view) */
	bool want_join;
	/* state */
	struct fgt_ksyms *own_ks;
	struct fgt_ksyms *part_ks;	/* the start-up part, once own_ks is the whole */
	struct fgt_plan *plan;
	struct fgraphtop_bpf *skel;
	struct ring_buffer *rb;
	struct fgt_assemble assemble;	/* BPF's aggregates and the events outside it */
	uint32_t done_seq;		/* BPF's act_seq whose end has been read */
	uint32_t reported;		/* activation records reported: their seq */
	struct fgt_recorder rec;	/* activations to records: the one judge */
	struct fgt_watch_ops ops;
	/* the BPF object's targets, handlers, lazy and deferred links */
	struct fgt_attach att;
	uint64_t last_drain_ms;		/* CLOCK_MONOTONIC of the last full drain */
	const struct fgt_rec *log;	/* the activation log, mapped read-only */
	uint32_t log_entries;		/* its slots (fgt_log_entries()), 0: no log */
	uint32_t begin_seq;		/* act_seq of the last ACT_BEGIN fed */
	struct fgt_log_who who;		/* ... and its thread, for the log's records */
	uint64_t fed;			/* events and BPF's aggregates read so far */
	/* the live view's status (fgt_session_status) */
	struct fgt_holders_watch *hw;
	struct fgt_holders holders;
	uint64_t holders_ns;
	int graph_active;		/* as last seen, and when it changed */
	uint64_t graph_active_ns;
	bool holders_wait;		/* a stale list was shown: its re-read is awaited */
	uint32_t holders_fresh;		/* re-reads that came after a stale list */
	struct fgt_progress prog;
	uint32_t via_seq;		/* prog_via is this activation's */
	char prog_via[FGT_VIA_LEN];
	/* the exposure hook: the last scans, the cost of a visit seen */
	struct fgt_exp_live exp;
	/* the exposure's iterator, loaded with the programs; else why not */
	struct fgt_exposure *exp_it;
	char exp_why[256];
	/* a 0->1 step joined under way (src/model/joined.h): followed by
	 * looks until its walk ends; the fentry/fexit rows attached then */
	struct fgt_joiner *jr;
	struct fgt_joined join;
	bool joining;			/* joined, its record not made yet */
	bool join_recorded;		/* its record was made */
	bool deferred_pending;		/* the plan's deferred rows wait for their attach */
	int32_t join_stack_id;		/* the trigger's stack from its sweeps, -1 none */
	unsigned int after_looks;	/* looks for the trigger's leaving, once the walk ended */
};

/* Preflight and attach plan (no program of ours is left loaded).
 * 0, or an FGT_EXIT_* status with one line in msg. */
int fgt_session_plan(struct fgt_session *s, char *msg, size_t len);
/* Load and attach as planned; finished activation records go to cb.
 * 0 or FGT_EXIT_* with msg. */
int fgt_session_start(struct fgt_session *s, fgt_record_cb cb, void *cb_ctx,
		      char *msg, size_t len);
/*
 * After the start line, before the first poll: what start-up left for once
 * the programs are attached: the whole /proc/kallsyms, for stacks and the
 * static verdict, where the plan was made from a part of it (the kcore
 * tables, src/static/ksyms_kcore.c).
 */
void fgt_session_started(struct fgt_session *s);
/* The exposure's iterator the start loaded (want_exposure), the session's;
 * NULL, and why in msg, if it has none (empty where none was wanted). */
struct fgt_exposure *fgt_session_exposure(struct fgt_session *s, char *msg, size_t len);
/* -vv: a start-up phase ended (NULL: one begins): its time and memory. */
void fgt_session_phase(const char *what);
int fgt_session_poll(struct fgt_session *s, int ms);	/* 0 or -errno */
/* ftrace_graph_active now; -1 unknown. */
int fgt_session_graph_active(struct fgt_session *s);
uint64_t fgt_session_lost(struct fgt_session *s);
/* The activation under way (and its progress), the fork path, the judge,
 * the losses, who holds fgraph (want_holders), now. */
void fgt_session_status(struct fgt_session *s, struct fgt_status *st);
/* The holders' generation, and with events the events fed so far: has
 * anything changed since the last call's value? */
uint64_t fgt_session_changes(struct fgt_session *s, bool events);
/*
 * The exposure hook: the threads as a task iterator walked them at `ns`
 * (CLOCK_MONOTONIC), src/watch/exposure.c. The status shows it, priced at this
 * host's own cost of a visit once an unfixed activation showed it; a scan
 * taken before an activation began makes that activation's U exact
 * (fgt_progress_lacking_at_start()) and its visits known.
 */
void fgt_session_set_exposure(struct fgt_session *s, const struct fgt_exp_walk *w, uint64_t ns);
/* An activation is under way, or its 0->1 step has begun: no time to scan. */
bool fgt_session_busy(const struct fgt_session *s);
/* The activation under way reported, incomplete (at exit, before the final status). */
void fgt_session_flush(struct fgt_session *s);
/* Flush (fgt_session_flush()), detach, free. */
void fgt_session_close(struct fgt_session *s);
/*
 * A step joined under way (want_join): its looks at their steady rate, its
 * record once its walk ends, then the deferred rows' attach once its
 * trigger has left register_ftrace_graph(). Called every pass of the live
 * loop; true when something changed for the view.
 */
bool fgt_session_join_tick(struct fgt_session *s);
/* The code's verdict for the joined step's inference (the static verdict). */
void fgt_session_join_code(struct fgt_session *s, enum fgt_verdict code);

/* The session as `fgraphtop check` drives it; s must outlive the ops. */
const struct fgt_watch_ops *fgt_session_watch_ops(struct fgt_session *s);

#endif
