/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The finished activation record the session hands out: the assembled
 * activation, its verdict and the kernel's (the one judge, counted once
 * here), and its trigger's kernel stack symbolized. Text, JSON and the
 * Prometheus textfile only render these; none of them reads BPF or judges.
 */
#ifndef FGT_RECORD_H
#define FGT_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include "model/activation.h"
#include "host/ksyms.h"
#include "model/verdict.h"
#include "model/joined.h"

#define FGT_FRAME_NAME_LEN	96

struct fgt_frame {
	uint64_t ip;
	char name[FGT_FRAME_NAME_LEN];	/* kallsyms name, "" when unknown */
	uint64_t off;			/* ip - the symbol's address */
};

struct fgt_record {
	const struct fgt_activation *act;	/* valid during the callback only */
	struct fgt_verdict_val verdict;		/* this activation's */
	const struct fgt_judge *judge;		/* the kernel's, this one counted */
	bool quoted;				/* this is the activation the judge quotes */
	char via[128];				/* "write() -> tracing_set_tracer", "unknown" */
	int nr_frames;				/* the trigger's stack, from the frame */
	struct fgt_frame frames[FGT_MAX_STACK_DEPTH];	/* holding the 0->1 step outward */
	/* a step joined under way (its ACT_BEGIN never seen): what was seen
	 * and what was inferred (src/model/joined.h); NULL otherwise */
	const struct fgt_joined *joined;
};

/*
 * An activation's figures as every output gives them (docs/json.md,
 * "activation"): its raw counters, and what verdict.c derived from them
 * (the reserve, the extra sweeps and their time, the threads walked again),
 * copied, never derived again (one derivation).
 */
struct fgt_act_figures {
	uint64_t nr_threads;
	int32_t ret;
	uint32_t walks;			/* enum fgt_walks */
	uint64_t sweeps, batches;
	uint64_t served, duration_ns, alloc_ns, walk_ns, lost;
	uint64_t failures, failed_nonblocking, reserve_served;
	uint64_t extra_sweeps, extra_sweeps_ns, rewalked;
};

/* The figures of rec's activation, from rec->act and rec->verdict (pure). */
void fgt_act_figures_of(const struct fgt_record *rec, struct fgt_act_figures *f);

typedef void (*fgt_record_cb)(const struct fgt_record *rec, void *ctx);

/*
 * Build the record of act (pure): ips[0..n) its kernel stack innermost first
 * (n 0 when none), ks to name them (NULL: addresses only); judge counts it.
 */
void fgt_record_make(struct fgt_record *rec, const struct fgt_activation *act,
		     const uint64_t *ips, int n, const struct fgt_ksyms *ks,
		     struct fgt_judge *judge);

/* The frames of ips[0..n) from the one holding the 0->1 step outward, named
 * by ks (NULL: addresses only); returns how many went to out. */
int fgt_frames_of(const uint64_t *ips, int n, const struct fgt_ksyms *ks, struct fgt_frame *out);

/*
 * From the assembler's activations to records: the glue the session and the
 * tests share (so a fake session goes through the same code). stack: the
 * trigger's kernel stack by id (the session reads BPF's stack map), NULL for
 * none; it returns how many ips it wrote (at most FGT_MAX_STACK_DEPTH).
 */
typedef int (*fgt_stack_fn)(int32_t stack_id, uint64_t *ips, void *ctx);

struct fgt_recorder {
	fgt_record_cb cb;
	void *cb_ctx;
	const struct fgt_ksyms *ks;
	fgt_stack_fn stack;
	void *stack_ctx;
	struct fgt_judge judge;		/* the one judge */
	/* set while a joined step's activation is recorded (its records
	 * carry it), NULL otherwise */
	const struct fgt_joined *joined;
};

void fgt_recorder_init(struct fgt_recorder *r, fgt_record_cb cb, void *cb_ctx,
		       const struct fgt_ksyms *ks, fgt_stack_fn stack, void *stack_ctx);
/* An fgt_activation_cb: ctx is the recorder. */
void fgt_recorder_activation(const struct fgt_activation *act, void *ctx);

/* The trigger's way in ("write() -> tracing_set_tracer", else "unknown") from
 * its whole kernel stack: what a record's via says, for the live view too. */
void fgt_record_via(const uint64_t *ips, int n, const struct fgt_ksyms *ks, char *buf, size_t len);

/* "sym+0x1f" (or "0x..." when unknown), into buf. */
const char *fgt_frame_text(const struct fgt_frame *f, char *buf, size_t len);

#endif
