/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One BPF watching session: preflight, plan, open -> set rodata -> load ->
 * attach (session.c, attach.c); the activations' figures aggregated by BPF
 * (bpf/agg.h) read from the ring buffer, the fork path's events fed to the
 * assembler (drain.c, assemble.c); the status the live view shows
 * (snapshot.c); finished activations into records, a step joined under way
 * followed (follow.c). Used by the live tool (src/live/live.c) and, through struct
 * fgt_watch_ops, by `fgraphtop check`.
 */
#ifndef FGT_SESSION_H
#define FGT_SESSION_H

#include <stddef.h>
#include "watch/session_state.h"
#include "watch/drain.h"
#include "watch/snapshot.h"
#include "watch/follow.h"

/* Who holds fgraph: read this often (by a thread of its own, holders.h). */
#define FGT_HOLDERS_MS		1000

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
/* Flush (fgt_session_flush()), detach, free. */
void fgt_session_close(struct fgt_session *s);

/* The session as `fgraphtop check` drives it; s must outlive the ops. */
const struct fgt_watch_ops *fgt_session_watch_ops(struct fgt_session *s);

#endif
