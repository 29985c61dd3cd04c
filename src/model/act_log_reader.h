/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the activation log (bpf/events_abi.h, docs/EVENTS.md): records back
 * into events, in order, an activation's only after its ACT_BEGIN.
 */
#ifndef FGT_ACT_LOG_READER_H
#define FGT_ACT_LOG_READER_H

#include <stdint.h>
#include <linux/types.h>
#include "bpf/events_abi.h"

/* The thread inside the activation, from its ACT_BEGIN: records do not carry it. */
struct fgt_log_who {
	uint32_t pid, tid;
	char comm[FGT_COMM_LEN];
};

typedef void (*fgt_log_feed_fn)(const struct fgt_event *e, void *ctx);

/*
 * The log's slots for a system of `threads` threads (<= 0: unknown): a power
 * of two in [FGT_LOG_ENTRIES, FGT_LOG_MAX] holding an activation of a
 * quarter more threads than that, and the records of one wake-up besides.
 */
uint32_t fgt_log_entries(long threads);

/*
 * Feed records [tail, head) of the `entries`-slot ring `log` (a power of two)
 * whose activation is at most `upto` (act_seq, modulo 2^32), stopping at the
 * first later one. Returns the new tail, to hand back to the producer.
 */
uint64_t fgt_log_drain(const struct fgt_rec *log, uint32_t entries, uint64_t tail, uint64_t head,
		       uint32_t upto, const struct fgt_log_who *who, fgt_log_feed_fn feed, void *ctx);

#endif
