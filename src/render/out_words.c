// SPDX-License-Identifier: GPL-2.0
/* Names and figures in words, for more than one format: see out_words.h. */
#include <string.h>
#include <time.h>
#include "render/out_words.h"

const char *out_ev_name(uint32_t t)
{
	static const char *n[] = {
		[FGT_EV_ACT_BEGIN] = "act_begin", [FGT_EV_ACT_END] = "act_end",
		[FGT_EV_SWEEP_BEGIN] = "sweep_begin", [FGT_EV_SWEEP_END] = "sweep_end",
		[FGT_EV_ALLOC] = "alloc", [FGT_EV_FREE] = "free",
		[FGT_EV_TASK_NEW] = "task_new", [FGT_EV_TASK_EXIT] = "task_exit",
	};
	return t < sizeof(n) / sizeof(n[0]) && n[t] ? n[t] : "unknown";
}

const char *out_site_name(uint32_t s)
{
	switch (s) {
	case FGT_SITE_SWEEP:	return "sweep";
	case FGT_SITE_FORK:	return "fork";
	case FGT_SITE_IDLE:	return "idle";
	}
	return "unknown";
}

const char *out_src_name(uint32_t s)
{
	return s == FGT_SRC_DIRECT ? "direct" : s == FGT_SRC_ATTRIBUTED ? "attributed" : "unknown";
}

const char *out_gfp_class(uint32_t gfp)
{
	return gfp & FGT_GFP_DIRECT_RECLAIM ? "blocking" : "nonblocking";
}

double out_rel_s(const struct fgt_out *o, uint64_t ns)
{
	return ns > o->o.start_ns ? (ns - o->o.start_ns) / 1e9 : 0;
}

void out_clock_hms(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%H:%M:%S", &tm);
}

/* 30048 -> "30,048" */
const char *out_grp(uint64_t v, char *b, size_t len)
{
	char raw[32];
	int n = snprintf(raw, sizeof(raw), "%llu", (unsigned long long)v), j = 0;

	for (int i = 0; i < n && (size_t)j + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			b[j++] = ',';
		b[j++] = raw[i];
	}
	b[j] = '\0';
	return b;
}

const char *out_dur(uint64_t ns, char *b, size_t len)
{
	if (ns >= 1000000000ull)
		snprintf(b, len, "%.3f s", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(b, len, "%.1f ms", ns / 1e6);
	else
		snprintf(b, len, "%.0f us", ns / 1e3);
	return b;
}

/* The wall-clock time of a monotonic instant, HH:MM:SS. */
const char *out_hms_of(const struct fgt_out *o, uint64_t mono_ns, char *b, size_t len)
{
	int64_t wall = o->o.start_wall_ns + ((int64_t)mono_ns - (int64_t)o->o.start_ns);
	time_t t = (time_t)(wall / 1000000000);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(b, len, "%H:%M:%S", &tm);
	return b;
}

const char *out_u_words(const struct fgt_progress *p)
{
	switch (p->u_src) {
	case FGT_U_NR_THREADS:	return " (at most: U counts every thread)";
	case FGT_U_NOW:		return " (at most: U is the threads now)";
	case FGT_U_NONE:	return " (U unknown)";
	default:		return "";
	}
}

const char *out_pattern_words(const struct fgt_progress *p)
{
	switch (p->so_far) {
	case FGT_VERDICT_NOT_FIXED:	return "unfixed: a sweep per 32 threads";
	case FGT_VERDICT_FIXED:
		return p->sweeps > 1 ? "fixed, walking again: its reserve used up (memory pressure)"
				     : "fixed: one walk, allocating inline";
	default:			return "too early to tell the pattern";
	}
}

/*
 * "1.400 s to 6.952 s (at a pace seen in its 622 sweeps)": the range assumes
 * no more than that (src/model/progress.h). A fixed kernel's is a point:
 * "about 1.6 s (estimate from 1 sweep)", a range again when it walks again
 * under memory pressure (degraded), open above until a third is served.
 * A degraded walk's pace is reclaim's as much as the host's, and the line
 * says the range holds only while they keep it (issue 38: a quiet lab host
 * missed too; the hit rate on the recorded walks is in docs/EVENTS.md).
 */
const char *out_left_words(const struct fgt_progress *p, char *b, size_t len)
{
	const char *s = p->fit_sweeps == 1 ? "" : "s";
	char d[32], h[32];

	if (p->eta_known && p->high_open)
		snprintf(b, len, "%s or more (if no more failures; failing on, bounded once a third is served)",
			 p->eta_ns ? out_dur(p->eta_ns, d, sizeof(d)) : "0");
	else if (p->eta_known && p->degraded)
		snprintf(b, len, "%s to %s (no more failures, or failing as they have since its first "
			 "sweep; if reclaim and the host keep their pace)",
			 p->eta_ns ? out_dur(p->eta_ns, d, sizeof(d)) : "0",
			 out_dur(p->eta_high_ns, h, sizeof(h)));
	else if (p->eta_known && p->eta_high_ns > p->eta_ns)
		snprintf(b, len, "%s to %s (at a pace seen in its %u sweep%s)",
			 p->eta_ns ? out_dur(p->eta_ns, d, sizeof(d)) : "0",
			 out_dur(p->eta_high_ns, h, sizeof(h)), p->fit_sweeps, s);
	else if (p->eta_known && p->eta_ns)
		snprintf(b, len, "about %s (estimate from %u sweep%s)",
			 out_dur(p->eta_ns, d, sizeof(d)), p->fit_sweeps, s);
	else if (p->eta_known)
		snprintf(b, len, "due now (past the estimate from %u sweep%s)", p->fit_sweeps, s);
	else if (p->u_src == FGT_U_NONE)
		snprintf(b, len, "unknown (no U: no count of its threads from its start)");
	else
		snprintf(b, len, "not estimated yet (needs the pattern and %s)",
			 p->so_far == FGT_VERDICT_FIXED ? "an inline allocation" : "2 finished sweeps");
	return b;
}

/* ftrace_graph_active's registrations no holder found accounts for. */
int out_unnamed(const struct fgt_holders *h, int graph_active)
{
	int n = graph_active - (int)h->regs - (int)h->regs_maybe;

	return graph_active < 0 || n < 0 ? 0 : n;
}

const char *out_owner_words(const struct fgt_holder *h, char *b, size_t len)
{
	if (h->kind != FGT_HOLDER_BPF_LINK)
		b[0] = '\0';
	else if (h->nr_owners)
		snprintf(b, len, ", held by pid %d (%s)%s", h->pid, h->comm,
			 h->nr_owners > 1 ? " and others" : "");
	else
		snprintf(b, len, ", held by no process");
	return b;
}

/* The notes under a list of holders: what could not be named or read. */
void out_holders_notes(const struct fgt_holders *h, int graph_active,
		       void (*line)(void *ctx, const char *s), void *ctx)
{
	char b[256];
	int un = out_unnamed(h, graph_active);

	if (!h->n && graph_active == 0)
		line(ctx, "none: fgraph is off; its next user makes the 0->1 step");
	else if (!h->n && graph_active < 0)
		line(ctx, "none found");
	if (un) {
		snprintf(b, sizeof(b), "+%d fgraph user%s no tracefs file or BPF link names "
			 "(a kernel module's, or the kernel's own)", un, un == 1 ? "" : "s");
		line(ctx, b);
	}
	if (!h->tracefs[0])
		line(ctx, "tracefs is not mounted: tracers in use unknown");
	if (h->links_err) {
		snprintf(b, sizeof(b), "BPF links not listed: %s", strerror(-h->links_err));
		line(ctx, b);
	}
	if (h->n > h->kept) {
		snprintf(b, sizeof(b), "... and %u more", h->n - h->kept);
		line(ctx, b);
	}
}

/* One history row; a NULL h gives the heading. What a narrow terminal cuts
 * comes last: the threads served and the way in. */
void out_hist_row(const struct fgt_out *o, const struct hist_ent *h, char *b, size_t len)
{
	char t[16], th[32], sv[32], d[32], sw[24];

	if (!h) {
		snprintf(b, len, "%3s  %-8s  %-15s  %9s  %6s  %9s  %-12s  %9s  %s", "#", "BEGAN",
			 "TRIGGER", "THREADS", "SWEEPS", "DURATION", "VERDICT", "SERVED", "VIA");
		return;
	}
	if (h->sweeps < 0)
		snprintf(sw, sizeof(sw), "n/o");	/* not observable */
	else
		snprintf(sw, sizeof(sw), "%lld", (long long)h->sweeps);
	snprintf(b, len, "%3u  %-8s  %-15.15s  %9s  %6s  %9s  %-12s  %9s  %s%s", h->seq,
		 out_hms_of(o, h->begin_ns, t, sizeof(t)), h->comm, out_grp(h->threads, th, sizeof(th)),
		 sw, out_dur(h->dur_ns, d, sizeof(d)), fgt_verdict_name(h->verdict),
		 out_grp(h->served, sv, sizeof(sv)), h->via,
		 !h->complete ? " (incomplete)" : h->lost ? " (events lost)" : "");
}

/* The i-th newest history entry (0: the newest). */
const struct hist_ent *out_hist_nth(const struct fgt_out *o, unsigned int i)
{
	unsigned int kept = o->nhist < FGT_HISTORY_MAX ? o->nhist : FGT_HISTORY_MAX;

	return i < kept ? &o->hist[(o->nhist - 1 - i) % FGT_HISTORY_MAX] : NULL;
}

/* "lacking a stack: 30,048 of 30,112 threads; unfixed walk ~1.29 s (series'
 * cost)": 80 columns hold it up to 400,000 threads */
void out_exposure_words(const struct fgt_status *st, char *b, size_t len)
{
	char a[32], t[32];

	snprintf(b, len, "lacking a stack: %s of %s threads; unfixed walk ~%.3g s (%s)",
		 out_grp(st->exposure->lacking, a, sizeof(a)), out_grp(st->exposure->threads, t, sizeof(t)),
		 st->exposure_est.seconds,
		 st->exposure_est.src == FGT_EXP_COST_OBSERVED ? "host's cost" : "series' cost");
}
