/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel aggregation's side in userspace (bpf/agg.h, docs/EVENTS.md):
 * the finished sweeps and activations the BPF programs put into the ring
 * buffer, back into struct fgt_activation records; the activation under way
 * from a snapshot of the BPF side's state (the live view's progress). The
 * same logic over an event stream (tests/lib/agg_replay.c) puts into this
 * collector what tests/bpf/test_agg.c holds against the reference assembler
 * (src/model/activation.c).
 *
 * Everything from BPF is hostile: an index out of range, a sweep of another
 * activation, a count beyond the limits is dropped or clamped, never trusted.
 */
#ifndef FGT_AGG_COLLECT_H
#define FGT_AGG_COLLECT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "bpf/agg_abi.h"
#include <stddef.h>
#include "bpf/events_abi.h"
#include "model/activation.h"

struct fgt_agg_collector;

struct fgt_agg_collector *fgt_agg_collect_new(fgt_activation_cb cb, void *ctx);
void fgt_agg_collect_free(struct fgt_agg_collector *c);

/* A finished sweep, as BPF put it: 0, or -EINVAL when it makes no sense. */
int fgt_agg_collect_sweep(struct fgt_agg_collector *c, const struct fgt_agg_sweep *s);
/* BPF's FGT_EV_SWEEP_DONE message of `size` bytes (struct fgt_sweeps_msg):
 * its ev.size sweeps, each as fgt_agg_collect_sweep(). -EINVAL if it is short,
 * says more than it can hold, or a sweep made no sense. */
int fgt_agg_collect_sweeps(struct fgt_agg_collector *c, const void *data, size_t size);
/*
 * A finished activation: its record (with the sweeps put before it) goes to
 * the callback. Sweeps that never arrived (the ring buffer was full) are
 * counted in its `lost` and left zero. 0, or -EINVAL.
 */
int fgt_agg_collect_act(struct fgt_agg_collector *c, const struct fgt_agg_act *a);
/*
 * BPF's end message: its whole state at an activation's end (act_ev.ok 1) or
 * at the next ACT_BEGIN when the END was lost (ok 0), act_ev.ts_ns the end;
 * finished here with bpf/agg.h's own code (its last sweep and its record go
 * to the callback). -EINVAL unless the state is of an activation under way.
 */
int fgt_agg_collect_end(struct fgt_agg_collector *c, const struct fgt_agg *msg);

/*
 * The activation under way in `snap` (a copy of BPF's struct fgt_agg), with
 * the sweeps put so far; NULL if none. Valid until the next call.
 */
const struct fgt_activation *fgt_agg_collect_current(struct fgt_agg_collector *c,
						     const struct fgt_agg *snap);
/* The activation under way in `snap` reported, incomplete (at exit). */
void fgt_agg_collect_flush_snap(struct fgt_agg_collector *c, const struct fgt_agg *snap);

#endif
