/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf/agg.h run in userspace over an event stream, as the BPF programs run
 * it over the kernel's events, into a collector (src/model/agg_collect.h): the
 * replay tests/bpf/test_agg.c holds against the reference assembler. A test
 * helper: the binary only collects what BPF aggregated, it never replays.
 */
#ifndef FGT_TEST_AGG_REPLAY_H
#define FGT_TEST_AGG_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include "model/agg_collect.h"

struct agg_replay;

/* A replay putting its sweeps and activations into `c`, which it does not own. */
struct agg_replay *agg_replay_new(struct fgt_agg_collector *c);
void agg_replay_free(struct agg_replay *r);

/* The events of either path, as the BPF programs see them. */
void agg_replay_feed(struct agg_replay *r, const struct fgt_event *ev);
/* n ring-buffer reservations that failed, as BPF counts them. */
void agg_replay_lost(struct agg_replay *r, uint64_t n);
/* At the stream's end: what BPF holds put out (bpf/agg.h fgt_agg_flush()). */
void agg_replay_flush(struct agg_replay *r);
/* The replay's own state, as a snapshot of BPF's map would show it. */
const struct fgt_agg *agg_replay_state(const struct agg_replay *r);
/* As BPF on a kernel whose stacks have their own cache: every FREE fed is a
 * stack of the latest sweep's reserve, so no set is kept (bpf/agg.h). */
void agg_replay_trust_frees(struct agg_replay *r, bool on);
/* Allocations the fast path took (bpf/agg.h fgt_agg_alloc_fast()) ... */
uint64_t agg_replay_fast(const struct agg_replay *r);
/* ... of which a full batch's successor took (bpf/agg.h fgt_agg_batch_next()). */
uint64_t agg_replay_next(const struct agg_replay *r);

#endif
