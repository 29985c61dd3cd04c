// SPDX-License-Identifier: GPL-2.0
/* Reading the activation log: see src/model/act_log_reader.h. */
#include <string.h>
#include "model/act_log_reader.h"

/*
 * Records back into events. What the record does not carry (the thread, its
 * name) is the same for the whole drain, so the event is built once and only
 * the record's own fields are copied per record: at 400,000 records an
 * activation, the zeroing and the name copy were a fifth of the consumer's
 * instructions (callgrind, tests/bench/consumer.c).
 */
static void to_event(const struct fgt_rec *r, struct fgt_event *e)
{
	e->ts_ns = r->ts_ns;
	e->dur_ns = r->dur_ns;
	e->ptr = r->ptr;
	e->type = r->type;
	e->src = r->src;
	e->cpu = r->cpu;
	e->site = r->site;
	e->gfp = r->gfp;
	e->size = r->size;
	e->ret = r->ret;
	e->ok = r->ok;
	e->act_seq = r->act_seq;
}

/*
 * A fixed kernel's activation writes a record per thread, and one per sweep
 * boundary and per stack freed, inside one lock hold: the consumer may not
 * run before it ends, so the log must hold it. The quarter is for threads
 * made between start-up and the activation; past FGT_LOG_MAX, the records
 * that do not fit are counted lost (the figures are the kernel's anyway).
 */
uint32_t fgt_log_entries(long threads)
{
	uint64_t want = FGT_LOG_WAKE, n = FGT_LOG_ENTRIES;

	if (threads > 0)
		want += (uint64_t)threads + (uint64_t)threads / 4;
	while (n < want && n < FGT_LOG_MAX)
		n <<= 1;
	return (uint32_t)n;
}

uint64_t fgt_log_drain(const struct fgt_rec *log, uint32_t entries, uint64_t tail, uint64_t head,
		       uint32_t upto, const struct fgt_log_who *who, fgt_log_feed_fn feed, void *ctx)
{
	struct fgt_event e = { .pid = who->pid, .tid = who->tid, .stack_id = -1 };
	const uint32_t mask = entries - 1;

	/* indices BPF wrote: a ring that is no power of two cannot be read,
	 * and more than a ring's worth ahead is slots written over (the
	 * producer counts a full log's records lost, never laps us): those
	 * are skipped, so that one call reads each slot once at most */
	if (!entries || (entries & mask))
		return head;
	if (head > tail && head - tail > entries)
		tail = head - entries;
	memcpy(e.comm, who->comm, sizeof(e.comm));
	for (; tail < head; tail++) {
		const struct fgt_rec *r = &log[tail & mask];

		/* a later activation's: wait for its ACT_BEGIN */
		if ((int32_t)(r->act_seq - upto) > 0)
			break;
		to_event(r, &e);
		feed(&e, ctx);
	}
	return tail;
}
