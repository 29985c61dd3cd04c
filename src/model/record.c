// SPDX-License-Identifier: GPL-2.0
/* The activation record: see record.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "facts/kfacts.h"
#include "model/record.h"
#include "model/trigger_words.h"

static void frame_of(struct fgt_frame *f, uint64_t ip, const struct fgt_ksyms *ks)
{
	const struct fgt_ksym *s = ks ? fgt_ksyms_by_addr(ks, ip) : NULL;

	f->ip = ip;
	f->off = s ? ip - s->addr : 0;
	snprintf(f->name, sizeof(f->name), "%s", s ? s->name : "");
}

const char *fgt_frame_text(const struct fgt_frame *f, char *buf, size_t len)
{
	if (f->name[0])
		snprintf(buf, len, "%s+0x%" PRIx64, f->name, f->off);
	else
		snprintf(buf, len, "0x%" PRIx64, f->ip);
	return buf;
}

/* The frame holding the 0->1 step: the stack is shown from there outward,
 * without the probe's and the allocator's frames above it. */
static int holder_frame(const struct fgt_frame *fr, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(fr[i].name, fgt_sym_name(FGT_SYM_REGISTER)) ||
		    !strcmp(fr[i].name, fgt_sym_name(FGT_SYM_START)))
			return i;
	return 0;
}

int fgt_frames_of(const uint64_t *ips, int n, const struct fgt_ksyms *ks, struct fgt_frame *out)
{
	struct fgt_frame all[FGT_MAX_STACK_DEPTH];
	int first;

	if (n > FGT_MAX_STACK_DEPTH)
		n = FGT_MAX_STACK_DEPTH;
	for (int i = 0; i < n; i++)
		frame_of(&all[i], ips[i], ks);
	first = holder_frame(all, n);
	memcpy(out, all + first, (n - first) * sizeof(all[0]));
	return n - first;
}

/* The trigger in words, from the whole stack (the system call is below the
 * holder's frame, the mechanism above or below it). */
void fgt_record_via(const uint64_t *ips, int n, const struct fgt_ksyms *ks, char *buf, size_t len)
{
	struct fgt_frame all[FGT_MAX_STACK_DEPTH];
	const char *names[FGT_MAX_STACK_DEPTH];
	char hex[FGT_MAX_STACK_DEPTH][24];

	if (n > FGT_MAX_STACK_DEPTH)
		n = FGT_MAX_STACK_DEPTH;
	for (int i = 0; i < n; i++) {
		frame_of(&all[i], ips[i], ks);
		snprintf(hex[i], sizeof(hex[i]), "0x%" PRIx64, ips[i]);
		names[i] = all[i].name[0] ? all[i].name : hex[i];
	}
	if (fgt_trigger_via(names, n, buf, len) <= 0)
		snprintf(buf, len, "unknown");
}

void fgt_record_make(struct fgt_record *rec, const struct fgt_activation *act,
		     const uint64_t *ips, int n, const struct fgt_ksyms *ks,
		     struct fgt_judge *judge)
{
	memset(rec, 0, sizeof(*rec));
	rec->act = act;
	fgt_record_via(ips, n, ks, rec->via, sizeof(rec->via));
	rec->nr_frames = fgt_frames_of(ips, n, ks, rec->frames);
	fgt_verdict_judge(act, &rec->verdict);
	rec->quoted = fgt_judge_add(judge, &rec->verdict, act);
	rec->judge = judge;
}

void fgt_act_figures_of(const struct fgt_record *rec, struct fgt_act_figures *f)
{
	const struct fgt_activation *a = rec->act;
	const struct fgt_verdict_val *v = &rec->verdict;

	memset(f, 0, sizeof(*f));
	f->nr_threads = a->nr_threads;
	f->ret = a->ret;
	f->walks = a->walks;
	f->sweeps = a->nr_sweeps;
	f->batches = a->batches;
	f->alloc_ns = a->alloc_ns;
	f->walk_ns = a->walk_ns;
	/* the judge's own figures: what the verdict was decided on */
	f->served = v->served;
	f->duration_ns = v->total_ns;
	f->lost = v->lost;
	f->failures = v->failed;
	f->failed_nonblocking = v->failed_nb;
	f->reserve_served = v->reserve;
	f->extra_sweeps = v->extra_sweeps;
	f->extra_sweeps_ns = v->extra_ns;
	f->rewalked = v->rewalked;
}

void fgt_recorder_init(struct fgt_recorder *r, fgt_record_cb cb, void *cb_ctx,
		       const struct fgt_ksyms *ks, fgt_stack_fn stack, void *stack_ctx)
{
	memset(r, 0, sizeof(*r));
	r->cb = cb;
	r->cb_ctx = cb_ctx;
	r->ks = ks;
	r->stack = stack;
	r->stack_ctx = stack_ctx;
	fgt_judge_init(&r->judge);
}

void fgt_recorder_activation(const struct fgt_activation *act, void *ctx)
{
	struct fgt_recorder *r = ctx;
	uint64_t ips[FGT_MAX_STACK_DEPTH];
	struct fgt_record rec;
	int n = 0;

	if (r->stack && act->stack_id >= 0)
		n = r->stack(act->stack_id, ips, r->stack_ctx);
	fgt_record_make(&rec, act, ips, n > 0 ? n : 0, r->ks, &r->judge);
	if (act->implicit)
		rec.joined = r->joined;
	/* a joined step's way in, from the trigger's stack the join read */
	if (rec.joined && rec.joined->trig.via[0] && !strcmp(rec.via, "unknown"))
		snprintf(rec.via, sizeof(rec.via), "%s", rec.joined->trig.via);
	if (r->cb)
		r->cb(&rec, r->cb_ctx);
}
