// SPDX-License-Identifier: GPL-2.0
/* The session's two assemblers behind one set of calls (src/watch/assemble.h). */
#include <errno.h>
#include <string.h>
#include "watch/assemble.h"
#include "model/agg_collect.h"

int fgt_assemble_init(struct fgt_assemble *m, fgt_activation_cb cb, void *ctx, bool trust_frees)
{
	m->as = fgt_assembler_new(cb, ctx);
	fgt_assembler_trust_frees(m->as, trust_frees);
	m->agg = fgt_agg_collect_new(cb, ctx);
	return m->as && m->agg ? 0 : -ENOMEM;
}

void fgt_assemble_free(struct fgt_assemble *m)
{
	fgt_assembler_free(m->as);
	m->as = NULL;
	fgt_agg_collect_free(m->agg);
	m->agg = NULL;
}

void fgt_assemble_msg(struct fgt_assemble *m, const void *data, size_t size)
{
	const struct fgt_event *e = data;

	switch (e->type) {
	case FGT_EV_ACT_BEGIN:	/* as the assembler ends them at an ACT_BEGIN */
		fgt_assembler_flush(m->as);
		return;
	case FGT_EV_SWEEP_DONE:
		fgt_agg_collect_sweeps(m->agg, data, size);
		return;
	case FGT_EV_ACT_END:
		/* BPF's state, whole, behind it (bpf/fgraphtop.bpf.c agg_send_end()) */
		if (size >= sizeof(struct fgt_agg))
			fgt_agg_collect_end(m->agg, data);
		return;
	}
	fgt_assembler_feed(m->as, e);
}

/* The collector's record is its own: a copy is numbered, not the record. */
const struct fgt_activation *fgt_assemble_current(struct fgt_assemble *m, const void *bpf,
						  uint32_t seq)
{
	const struct fgt_activation *cur = NULL;

	if (bpf) {
		memcpy(&m->snap, bpf, sizeof(m->snap));
		cur = fgt_agg_collect_current(m->agg, &m->snap);
	}
	if (!cur)
		return fgt_assembler_current(m->as);
	m->cur = *cur;
	m->cur.seq = seq;
	return &m->cur;
}

const struct fgt_activation *fgt_assemble_unbracketed(const struct fgt_assemble *m)
{
	return fgt_assembler_current(m->as);
}

const struct fgt_fork_stats *fgt_assemble_fork(const struct fgt_assemble *m)
{
	return fgt_assembler_fork(m->as);
}

void fgt_assemble_end(struct fgt_assemble *m)
{
	/* ends at its last event: the call site patching after the walk is no part of it */
	fgt_assembler_end(m->as, 0);
}

void fgt_assemble_flush(struct fgt_assemble *m, const void *bpf)
{
	/* BPF's state is BPF's: a copy is flushed, once per activation */
	if (bpf) {
		memcpy(&m->snap, bpf, sizeof(m->snap));
		if (m->snap.act.active && m->snap.act.seq != m->flushed_seq) {
			m->flushed_seq = m->snap.act.seq;
			fgt_agg_collect_flush_snap(m->agg, &m->snap);
		}
	}
	fgt_assembler_flush(m->as);
}
