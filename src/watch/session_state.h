/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one BPF watching session holds (struct fgt_session), shared by its
 * units in watch/: the lifecycle (session.c), the stream drain (drain.c),
 * the finished records and the joined step (follow.c) and the status
 * snapshot (snapshot.c). Parts of it are held by structs of
 * their own: the BPF object's attach state (attach.h) and the two
 * assemblers (assemble.h).
 */
#ifndef FGT_SESSION_STATE_H
#define FGT_SESSION_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include "model/activation.h"
#include "model/act_log_reader.h"
#include "model/agg_collect.h"
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
	bool join_cut;			/* stopped before a look found its end */
	bool deferred_pending;		/* the plan's deferred rows wait for their attach */
	int32_t join_stack_id;		/* the trigger's stack from its sweeps seen outside
					 * BPF's activation, -1 none */
	unsigned int after_looks;	/* looks for the trigger's leaving, once the walk ended */
	uint64_t unbr_next_ns;		/* the next look at an unbracketed one's walker */
};

#endif
