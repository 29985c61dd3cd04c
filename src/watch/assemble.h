/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session's two assemblers behind one set of calls (src/watch/assemble.c):
 * BPF's messages in, finished activations out to one callback, and the
 * activation under way as the live view sees it. The in-kernel aggregation's
 * collector (src/model/agg_collect.c) takes its finished sweeps and activations;
 * the reference assembler (src/model/activation.c) takes the events outside
 * the aggregation: the fork path, and sweeps seen without their ACT_BEGIN
 * (fgraphtop started mid-activation, a joined step). The rest of the session
 * calls these, never either assembler.
 */
#ifndef FGT_WATCH_ASSEMBLE_H
#define FGT_WATCH_ASSEMBLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bpf/agg_abi.h"
#include "model/activation.h"

struct fgt_agg_collector;

struct fgt_assemble {
	struct fgt_assembler *as;	/* the fork path, sweeps seen without their ACT_BEGIN */
	struct fgt_agg_collector *agg;		/* the activations BPF aggregated */
	struct fgt_agg snap;		/* BPF's aggregation, as last read */
	struct fgt_activation cur;	/* its activation under way, numbered as the session's */
	uint32_t flushed_seq;		/* BPF's activation reported incomplete at exit */
};

/* Both made, finished activations to cb; trust_frees: fgt_assembler_trust_frees().
 * 0, or -ENOMEM (fgt_assemble_free() frees what was made). */
int fgt_assemble_init(struct fgt_assemble *m, fgt_activation_cb cb, void *ctx, bool trust_frees);
void fgt_assemble_free(struct fgt_assemble *m);
/*
 * One of BPF's messages of `size` bytes, at least a struct fgt_event, to
 * the one that takes it: an ACT_BEGIN ends the sweeps seen before it
 * without theirs; the aggregation's finished sweeps and its end message
 * (bpf/agg_abi.h) to the collector; any other event to the assembler.
 */
void fgt_assemble_msg(struct fgt_assemble *m, const void *data, size_t size);
/*
 * The activation under way: the one in `bpf` (BPF's struct fgt_agg as it
 * stands, copied here; NULL: BPF has none under way), numbered seq, else
 * the assembler's. Valid until the next call.
 */
const struct fgt_activation *fgt_assemble_current(struct fgt_assemble *m, const void *bpf,
						  uint32_t seq);
/* The assembler's activation under way (sweeps without their ACT_BEGIN); NULL: none. */
const struct fgt_activation *fgt_assemble_unbracketed(const struct fgt_assemble *m);
/* The fork path's figures. */
const struct fgt_fork_stats *fgt_assemble_fork(const struct fgt_assemble *m);
/* The trigger's system call returned: the assembler's activation under way
 * is over at its last event, and complete (fgt_assembler_end()). */
void fgt_assemble_end(struct fgt_assemble *m);
/* What is under way reported, incomplete: BPF's activation in `bpf` (NULL:
 * not asked) once per activation, then the assembler's. */
void fgt_assemble_flush(struct fgt_assemble *m, const void *bpf);

#endif
