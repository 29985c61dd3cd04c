// SPDX-License-Identifier: GPL-2.0
/* Reading the activation log: see src/model/actlog.h. */
#include <string.h>
#include "model/actlog.h"

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

uint64_t fgt_log_drain(const struct fgt_rec *log, uint64_t tail, uint64_t head, uint32_t upto,
		       const struct fgt_log_who *who, fgt_log_feed_fn feed, void *ctx)
{
	struct fgt_event e = { .pid = who->pid, .tid = who->tid, .stack_id = -1 };

	memcpy(e.comm, who->comm, sizeof(e.comm));
	for (; tail < head; tail++) {
		const struct fgt_rec *r = &log[tail & (FGT_LOG_ENTRIES - 1)];

		/* a later activation's: wait for its ACT_BEGIN */
		if ((int32_t)(r->act_seq - upto) > 0)
			break;
		to_event(r, &e);
		feed(&e, ctx);
	}
	return tail;
}
