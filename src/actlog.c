// SPDX-License-Identifier: GPL-2.0
/* Reading the activation log: see src/actlog.h. */
#include <string.h>
#include "actlog.h"

static void to_event(const struct fgt_rec *r, const struct fgt_log_who *who,
		     struct fgt_event *e)
{
	*e = (struct fgt_event){
		.ts_ns = r->ts_ns, .dur_ns = r->dur_ns, .ptr = r->ptr,
		.type = r->type, .src = r->src, .pid = who->pid, .tid = who->tid,
		.cpu = r->cpu, .site = r->site, .gfp = r->gfp, .size = r->size,
		.ret = r->ret, .ok = r->ok, .stack_id = -1, .act_seq = r->act_seq,
	};
	memcpy(e->comm, who->comm, sizeof(e->comm));
}

uint64_t fgt_log_drain(const struct fgt_rec *log, uint64_t tail, uint64_t head, uint32_t upto,
		       const struct fgt_log_who *who, fgt_log_feed_fn feed, void *ctx)
{
	for (; tail < head; tail++) {
		const struct fgt_rec *r = &log[tail & (FGT_LOG_ENTRIES - 1)];
		struct fgt_event e;

		/* a later activation's: wait for its ACT_BEGIN */
		if ((int32_t)(r->act_seq - upto) > 0)
			break;
		to_event(r, who, &e);
		feed(&e, ctx);
	}
	return tail;
}
