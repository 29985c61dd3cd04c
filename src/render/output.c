// SPDX-License-Identifier: GPL-2.0
/*
 * What fgraphtop prints: the renderer's state, and each call handed to the
 * format chosen at start: JSON lines (out_json.c), lines (out_text.c) or
 * the screen (out_screen.c).
 */
#include <stdlib.h>
#include <string.h>
#include "render/out_json.h"
#include "render/out_screen.h"
#include "render/out_state.h"
#include "render/out_text.h"
#include "render/out_words.h"
#include "render/output.h"

struct fgt_out *fgt_out_new(FILE *f, const struct fgt_out_opts *opts)
{
	struct fgt_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->f = f;
	o->o = *opts;
	fgt_lines_init(&o->lines, opts->cols, opts->rows);
	if (opts->json) {
		o->jw = jsonw_new(f);
		if (!o->jw) {
			free(o);
			return NULL;
		}
	}
	return o;
}

void fgt_out_free(struct fgt_out *o)
{
	if (!o)
		return;
	if (o->jw)
		jsonw_destroy(&o->jw);
	fgt_lines_free(&o->lines);
	free(o);
}

void fgt_out_set_screen(struct fgt_out *o, bool on)
{
	o->o.screen = on;
}

void fgt_out_resize(struct fgt_out *o, int cols, int rows)
{
	fgt_lines_free(&o->lines);
	fgt_lines_init(&o->lines, cols, rows);
}

void fgt_out_start(struct fgt_out *o, const struct fgt_plan *p)
{
	if (o->jw)
		out_json_start(o, p);
	else if (!o->o.screen)
		out_text_start(o, p);
}

void fgt_out_static(struct fgt_out *o, const struct fgt_static_result *r)
{
	/* the judge's evidence is clauses joined by "; ", the finding first:
	 * the screen shows that one (the whole took five of its rows at 120
	 * columns on lab-stock), the lines and JSON all of them */
	size_t head = strcspn(r->evidence, ";");

	snprintf(o->code, sizeof(o->code), "this kernel's code says %s: %s",
		 fgt_verdict_answer(r->verdict), r->evidence);
	snprintf(o->code_head, sizeof(o->code_head), "this kernel's code says %s: %.*s%s",
		 fgt_verdict_answer(r->verdict), (int)head, r->evidence,
		 r->evidence[head] ? " (the rest: fgraphtop check)" : "");
	if (o->jw)
		out_json_static(o, r);
	else if (!o->o.screen)
		out_text_static(o);
}

void fgt_out_event(struct fgt_out *o, const struct fgt_event *e,
		   const struct fgt_frame *frames, int nr_frames)
{
	if (!o->o.events)
		return;
	if (o->jw)
		out_json_event(o, e, frames, nr_frames);
	else
		out_text_event(o, e, frames, nr_frames);
}

static void hist_add(struct fgt_out *o, const struct fgt_record *rec)
{
	const struct fgt_activation *a = rec->act;
	struct hist_ent *h = &o->hist[o->nhist++ % FGT_HISTORY_MAX];

	h->seq = a->seq;
	h->begin_ns = a->begin_ns;
	memcpy(h->comm, a->comm, sizeof(h->comm));
	snprintf(h->via, sizeof(h->via), "%s", rec->via);
	h->threads = a->nr_threads;
	h->served = a->served;
	h->sweeps = a->walks == FGT_WALKS_UNSEEN ? -1 : (int64_t)a->nr_sweeps;
	h->dur_ns = a->end_ns > a->begin_ns ? a->end_ns - a->begin_ns : 0;
	h->lost = a->lost;
	h->verdict = rec->verdict.verdict;
	h->complete = a->complete;
}

void fgt_out_record(const struct fgt_record *rec, void *ctx)
{
	struct fgt_out *o = ctx;
	char evidence[FGT_EVIDENCE_LEN];

	fgt_verdict_text(&rec->verdict, evidence, sizeof(evidence));
	hist_add(o, rec);
	if (o->jw)
		out_json_record(o, rec, evidence);
	else
		out_text_record(o, rec, evidence);
}

void fgt_out_joined(struct fgt_out *o, const struct fgt_joined *j)
{
	if (o->jw)
		out_json_joined(o, j);
	else if (!o->o.screen)	/* the screen's first frame says it */
		out_text_joined(o, j);
}

/* Lines and -j: the holders when they changed (or were never printed). */
void fgt_out_holders(struct fgt_out *o, const struct fgt_status *st)
{
	const struct fgt_holders *h = st->holders;
	char hms[16];

	/* a record is a consistent picture: not while a re-read is due */
	if (!h || st->holders_stale || o->o.screen || (o->o.events && !o->jw))
		return;
	if (o->shown_any && o->shown_active == st->graph_active && fgt_holders_same(&o->shown, h))
		return;
	o->shown = *h;
	o->shown_active = st->graph_active;
	o->shown_any = true;
	out_clock_hms(hms, sizeof(hms));
	if (o->jw)
		out_json_holders(o, h, st->graph_active, hms);
	else
		out_text_holders(o, h, st->graph_active, hms);
}

void fgt_out_redraw(struct fgt_out *o, const struct fgt_status *st)
{
	if (o->o.screen)
		out_screen_draw(o, st);
}

void fgt_out_interval(struct fgt_out *o, const struct fgt_status *st)
{
	char hms[16];

	if (o->o.events && !o->jw)
		return;
	out_clock_hms(hms, sizeof(hms));
	if (o->jw)
		out_json_interval(o, st, hms);
	else if (o->o.screen)
		out_screen_draw(o, st);
	else
		out_text_interval(o, st, hms);
}

void fgt_out_final(struct fgt_out *o, const struct fgt_status *st)
{
	char evidence[FGT_EVIDENCE_LEN];

	fgt_judge_text(st->judge, evidence, sizeof(evidence));
	if (o->jw)
		out_json_final(o, st, evidence);
	else
		out_text_final(o, st, evidence);
}
