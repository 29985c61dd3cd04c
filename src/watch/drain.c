// SPDX-License-Identifier: GPL-2.0
/* The session's stream drain: BPF's ring buffer and activation log into the
 * assemblers, the events shown as they come (src/watch/drain.h). */
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "watch/drain.h"
#include "watch/session_state.h"
#include "common/clock.h"
#include "fgraphtop.skel.h"
#include "model/act_log_reader.h"
#include "watch/attach.h"
#include "watch/assemble.h"

int fgt_drain_stack(int32_t id, uint64_t *ips, void *ctx)
{
	struct fgt_session *s = ctx;
	int n;

	if (id < 0 || !s->skel)
		return 0;
	memset(ips, 0, FGT_MAX_STACK_DEPTH * sizeof(*ips));
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.stacks), &id, ips))
		return 0;
	for (n = 0; n < FGT_MAX_STACK_DEPTH && ips[n]; n++)
		;
	return n;
}

/* --events: the event as it came (ACT_BEGIN with its stack). */
static void show(struct fgt_session *s, const struct fgt_event *e)
{
	struct fgt_frame frames[FGT_MAX_STACK_DEPTH];
	uint64_t ips[FGT_MAX_STACK_DEPTH];
	int n = 0;

	if (!s->on_event)
		return;
	if (e->type == FGT_EV_ACT_BEGIN)
		n = fgt_frames_of(ips, fgt_drain_stack(e->stack_id, ips, s), s->ks, frames);
	s->on_event(e, frames, n, s->event_ctx);
}

/* BPF's array strides values by 8 bytes: the same layout on both sides */
_Static_assert(sizeof(struct fgt_rec) % 8 == 0, "struct fgt_rec must be 8-byte sized");

size_t fgt_drain_log_bytes(uint32_t entries)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t n = (size_t)entries * sizeof(struct fgt_rec);

	return page > 0 ? (n + page - 1) / page * page : n;
}

/* The activation log's records (--events only): shown, not assembled: BPF
 * aggregated them already. */
static void feed_cb(const struct fgt_event *e, void *ctx)
{
	struct fgt_session *s = ctx;

	show(s, e);
	s->fed++;
}

void fgt_drain_log(struct fgt_session *s, uint32_t upto)
{
	uint64_t head, tail;

	if (!s->log)
		return;
	head = __atomic_load_n(&s->skel->bss->log_head, __ATOMIC_ACQUIRE);
	tail = fgt_log_drain(s->log, s->log_entries, s->skel->bss->log_tail, head, upto, &s->who,
			     feed_cb, s);
	__atomic_store_n(&s->skel->bss->log_tail, tail, __ATOMIC_RELEASE);
}

/*
 * BPF's messages: its events (struct fgt_event), and the aggregation's
 * finished sweeps and activations behind an event header (bpf/agg_abi.h).
 * A message shorter than its type says is dropped.
 */
int fgt_drain_event(void *ctx, void *data, size_t size)
{
	struct fgt_session *s = ctx;
	const struct fgt_event *e = data;

	if (size < sizeof(*e))
		return 0;
	switch (e->type) {
	case FGT_EV_LOG:	/* a wake-up: the log is filling */
		fgt_drain_log(s, s->begin_seq);
		return 0;
	case FGT_EV_ACT_BEGIN:
		fgt_drain_log(s, e->act_seq - 1);
		s->begin_seq = e->act_seq;
		s->who.pid = e->pid;
		s->who.tid = e->tid;
		memcpy(s->who.comm, e->comm, sizeof(s->who.comm));
		/* sweeps seen before it, without theirs, end here */
		fgt_assemble_msg(&s->assemble, data, size);
		show(s, e);
		s->fed++;
		return 0;
	case FGT_EV_SWEEP_DONE:
		fgt_assemble_msg(&s->assemble, data, size);
		s->fed++;
		return 0;
	case FGT_EV_ACT_END:
		fgt_drain_log(s, e->act_seq);
		if (e->ok)	/* else an END never seen, reported at the next ACT_BEGIN */
			show(s, e);
		fgt_assemble_msg(&s->assemble, data, size);
		s->fed++;
		return 0;
	}
	/* a sweep's allocations outside BPF's activation (a joined step, a
	 * kernel without the ret_stack_list) carry the trigger's stack; the
	 * others' stack_id is no stack (joined.h) */
	if (e->type == FGT_EV_ALLOC && e->site == FGT_SITE_SWEEP && e->stack_id >= 0 &&
	    s->join_stack_id < 0)
		s->join_stack_id = e->stack_id;
	/* outside the aggregation (the fork path, a sweep seen without its
	 * ACT_BEGIN): shown, then to the assembler */
	show(s, e);
	fgt_assemble_msg(&s->assemble, data, size);
	s->fed++;
	return 0;
}

int fgt_drain(struct fgt_session *s, uint64_t now_ms)
{
	int err = ring_buffer__consume(s->rb);

	fgt_drain_log(s, s->begin_seq);
	s->last_drain_ms = now_ms;
	return err;
}

/*
 * An activation's records do not wake us one by one (bpf/fgraphtop.bpf.c):
 * the BPF side wakes us when a quarter of the activation log waits; its end
 * (ACT_END) wakes nobody, and the next poll timeout finds it, after the
 * tracer switch that goes on past it. In between, drain once a second for
 * the live view, not on every poll timeout: on a machine short of CPUs our
 * draining would compete with the walk we are timing.
 */
int fgt_session_poll(struct fgt_session *s, int ms)
{
	int err = ring_buffer__poll(s->rb, ms);
	uint64_t now = fgt_mono_ms();
	uint32_t seq = s->skel->bss->act_seq;
	bool in = s->skel->bss->act_tid;

	if (err >= 0 && (!in || now - s->last_drain_ms >= FGT_DRAIN_MS)) {
		err = fgt_drain(s, now);
		/* BPF put an activation's end before it cleared act_tid: read
		 * now, or lost (then counted), it is no longer under way */
		if (!in)
			s->done_seq = seq;
	}
	fgt_attach_lazy_update(&s->att, s->skel, s->plan, s->joining || s->deferred_pending);
	return err < 0 ? err : 0;
}

void fgt_session_flush(struct fgt_session *s)
{
	if (s->rb)
		ring_buffer__consume(s->rb);
	fgt_assemble_flush(&s->assemble, s->skel ? (const void *)&s->skel->bss->hot.agg : NULL);
}