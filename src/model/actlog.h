/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the activation log (bpf/events_abi.h, docs/EVENTS.md): records back
 * into events, in order, an activation's only after its ACT_BEGIN.
 */
#ifndef FGT_ACTLOG_H
#define FGT_ACTLOG_H

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
 * Feed records [tail, head) of the FGT_LOG_ENTRIES-slot ring `log` whose
 * activation is at most `upto` (act_seq, modulo 2^32), stopping at the first
 * later one. Returns the new tail, to hand back to the producer.
 */
uint64_t fgt_log_drain(const struct fgt_rec *log, uint64_t tail, uint64_t head, uint32_t upto,
		       const struct fgt_log_who *who, fgt_log_feed_fn feed, void *ctx);

#endif
