// SPDX-License-Identifier: GPL-2.0
/* fgraphtop's screen: see out_screen.h. */
#include <string.h>
#include "common/log.h"
#include "render/out_screen.h"
#include "render/out_state.h"
#include "render/out_words.h"

static void scr_header(struct fgt_out *o, const struct fgt_status *st)
{
	struct fgt_lines *l = &o->lines;
	char hms[16];

	out_clock_hms(hms, sizeof(hms));
	/* the verdict first; on a narrow terminal the rows wrap, between
	 * fields where they can: every fact stays on the screen */
	fgt_lines_wrap(l, 2, "verdict %s   fgraphtop  %s   activations %u%s   lost %llu   (q quits)",
		       fgt_verdict_name(st->judge->verdict), hms, st->judge->n,
		       st->cur ? " (+1 under way)" : "", (unsigned long long)st->lost);
	if (o->code_head[0])
		fgt_lines_wrap(l, 2, "%s", o->code_head);
	if (st->graph_active < 0)
		fgt_lines_add(l, "fgraph: users unknown");
	else if (!st->graph_active)
		fgt_lines_add(l, "fgraph: off (ftrace_graph_active 0)");
	else
		fgt_lines_add(l, "fgraph: on, ftrace_graph_active %d", st->graph_active);
	if (st->exposure) {
		char ex[128];

		out_exposure_words(st, ex, sizeof(ex));
		fgt_lines_wrap(l, 2, "%s", ex);
	}
}

#define SCR_WARNINGS	3

/* The newest warnings, which stderr would have lost under the next frame;
 * all of them are printed once the terminal is back (src/common/log.c). */
static void scr_warnings(struct fgt_out *o)
{
	const char *w[SCR_WARNINGS];
	unsigned int n = fgt_log_warnings(w, SCR_WARNINGS);

	for (unsigned int i = 0; i < n && i < SCR_WARNINGS; i++)
		fgt_lines_wrap(&o->lines, 2, "%s", w[i]);
	if (n > SCR_WARNINGS)
		fgt_lines_add(&o->lines, "(%u earlier warnings: all are printed on exit)",
			      n - SCR_WARNINGS);
}

static void scr_bar(struct fgt_lines *l, unsigned int pct)
{
	char bar[128];
	int w = l->cols - 10, full;

	if (w > 60)
		w = 60;
	if (w < 10)
		return;
	full = w * (int)pct / 100;
	for (int i = 0; i < w; i++)
		bar[i] = i < full ? '#' : '.';
	bar[w] = '\0';
	fgt_lines_add(l, "  [%s] %3u%%", bar, pct);
}

static void scr_progress(struct fgt_out *o, const struct fgt_status *st)
{
	const struct fgt_progress *p = st->progress;
	struct fgt_lines *l = &o->lines;
	char e[32], age[64] = "", a[32], b[32], c[32], left[160];

	if (!p) {
		fgt_lines_wrap(l, 2, "%s", st->judge->n ? "no activation under way" :
			       "no activation seen yet: waiting for fgraph's next 0->1 step "
			       "(fgraphtop never causes one)");
		return;
	}
	/* every fact of it wraps rather than being cut (a 60-column terminal) */
	if (st->joined)
		fgt_lines_wrap(l, 2, "ACTIVATION UNDER WAY (joined %.1f s in)  pid %u (%s)  %s  "
			      "[before joining, inferred: %llu served, %u sweeps; fentry probes "
			      "deferred: the walk holds ftrace_lock]",
			      st->joined->inferred.elapsed_ns / 1e9, p->pid, p->comm,
			      p->via[0] ? p->via : "way in not known",
			      (unsigned long long)st->joined->inferred.served,
			      st->joined->inferred.sweeps);
	else
		fgt_lines_wrap(l, 2, "ACTIVATION #%u UNDER WAY  pid %u (%s)  %s%s", p->seq, p->pid,
			      p->comm, p->via[0] ? p->via : "way in not known yet",
			      p->u_src == FGT_U_NOW || p->u_src == FGT_U_NONE ?
			      "  (no count of its threads from its start)" : "");
	if (p->data_age_ns >= 500000000ull)
		snprintf(age, sizeof(age), " (figures %s old: read once a second)",
			 out_dur(p->data_age_ns, b, sizeof(b)));
	fgt_lines_wrap(l, 13, "  elapsed    %s%s", out_dur(p->elapsed_ns, e, sizeof(e)), age);
	fgt_lines_wrap(l, 13, "  threads    %s served of %s at the start, %s still lacking%s",
		      out_grp(p->served, a, sizeof(a)), out_grp(p->threads, b, sizeof(b)),
		      out_grp(p->lacking, c, sizeof(c)), out_u_words(p));
	if (p->to_come_known)
		fgt_lines_wrap(l, 13, "  sweeps     %u so far, %llu to come (%s)", p->sweeps,
			      (unsigned long long)p->sweeps_to_come, out_pattern_words(p));
	else
		fgt_lines_wrap(l, 13, "  sweeps     %u so far (%s)", p->sweeps, out_pattern_words(p));
	fgt_lines_wrap(l, 13, "  time left  %s", out_left_words(p, left, sizeof(left)));
	if (p->u_src != FGT_U_NONE)
		scr_bar(l, fgt_progress_percent(p));
}

static void scr_note(void *ctx, const char *s)
{
	fgt_lines_wrap(ctx, 4, "  %s", s);
}

static void scr_holders(struct fgt_out *o, const struct fgt_status *st)
{
	const struct fgt_holders *h = st->holders;
	struct fgt_lines *l = &o->lines;
	char t[256], u[256], ow[64], line[512], hms[16];
	int w = 0, wu = 0;

	if (!h) {
		fgt_lines_add(l, "HOLDERS  not read yet");
		return;
	}
	if (st->holders_stale)
		/* fgraph changed since the read; during a tracer switch tracefs
		 * is locked: the old list, said to be old, and no sums with it */
		fgt_lines_wrap(l, 2, "HOLDERS  as read at %s, before fgraph changed (a tracer "
			       "switch locks tracefs while it runs)",
			       out_hms_of(o, st->holders_ns, hms, sizeof(hms)));
	else
		fgt_lines_add(l, "HOLDERS  what keeps fgraph on, and what turning it off takes");
	for (unsigned int i = 0; i < h->kept; i++) {
		int n = snprintf(line, sizeof(line), "%s%s", fgt_holder_text(&h->h[i], t, sizeof(t)),
				 out_owner_words(&h->h[i], ow, sizeof(ow)));
		int m = (int)strlen(fgt_holder_undo(&h->h[i], h->tracefs, u, sizeof(u)));

		if (n > w)
			w = n;
		if (m > wu)
			wu = m;
	}
	/* a table when it fits, else each holder over two rows */
	for (unsigned int i = 0; i < h->kept; i++) {
		snprintf(line, sizeof(line), "%s%s", fgt_holder_text(&h->h[i], t, sizeof(t)),
			 out_owner_words(&h->h[i], ow, sizeof(ow)));
		fgt_holder_undo(&h->h[i], h->tracefs, u, sizeof(u));
		if (2 + w + 2 + wu <= l->cols) {
			fgt_lines_add(l, "  %-*s  %s", w, line, u);
		} else {
			fgt_lines_wrap(l, 4, "  %s", line);
			/* a remedy is a command to type: wrapped, never cut */
			fgt_lines_wrap(l, 11, "      off: %s", u);
		}
	}
	if (!st->holders_stale)
		out_holders_notes(h, st->graph_active, scr_note, l);
	else if (!h->kept)
		fgt_lines_add(l, "  none then");
}

/* The history table: as many of the newest as fit, leaving `keep` rows. */
static void scr_history(struct fgt_out *o, int keep)
{
	struct fgt_lines *l = &o->lines;
	unsigned int kept = o->nhist < FGT_HISTORY_MAX ? o->nhist : FGT_HISTORY_MAX;
	int room = fgt_lines_left(l) - keep - 1;
	char row[256];

	if (!o->nhist)
		return;
	fgt_lines_add(l, "HISTORY  the last activations, newest first");
	out_hist_row(o, NULL, row, sizeof(row));
	fgt_lines_add(l, "%s", row);
	for (unsigned int i = 0; i < kept && (int)i < (room > 1 ? room - 1 : 1); i++) {
		out_hist_row(o, out_hist_nth(o, i), row, sizeof(row));
		fgt_lines_add(l, "%s", row);
	}
}

static void scr_last(struct fgt_out *o)
{
	struct fgt_lines *l = &o->lines;
	const char *p = o->last;

	if (!o->last[0])
		return;
	fgt_lines_add(l, "LAST ACTIVATION");
	while (*p) {
		const char *nl = strchr(p, '\n');

		fgt_lines_wrap(l, 4, "%.*s", (int)(nl ? nl - p : (long)strlen(p)), p);
		p = nl ? nl + 1 : p + strlen(p);
	}
}

static void scr_fork(struct fgt_out *o, const struct fgt_status *st)
{
	const struct fgt_fork_stats *fk = st->fork;

	fgt_lines_wrap(&o->lines, 2, "fork path: %llu allocations (%llu failed), %llu new tasks, "
		       "%llu left without a stack, %llu idle-task allocations",
		       (unsigned long long)fk->allocs, (unsigned long long)fk->failed,
		       (unsigned long long)fk->tasks_new, (unsigned long long)fk->tasks_without,
		       (unsigned long long)fk->idle_allocs);
}

/*
 * A frame, most urgent first: the header and the newest warnings, the
 * activation under way, who holds fgraph, the history, the last activation's
 * details, the fork path. A short terminal loses the bottom; the history
 * keeps at least its newest row.
 */
void out_screen_draw(struct fgt_out *o, const struct fgt_status *st)
{
	struct fgt_lines *l = &o->lines;

	fgt_lines_reset(l);
	scr_header(o, st);
	scr_warnings(o);
	fgt_lines_add(l, "%s", "");
	scr_progress(o, st);
	fgt_lines_add(l, "%s", "");
	scr_holders(o, st);
	fgt_lines_add(l, "%s", "");
	scr_history(o, o->last[0] ? 4 : 1);
	if (o->nhist)
		fgt_lines_add(l, "%s", "");
	scr_fork(o, st);
	if (o->last[0]) {
		fgt_lines_add(l, "%s", "");
		scr_last(o);
	}
	fgt_lines_draw(l, o->f);
}
