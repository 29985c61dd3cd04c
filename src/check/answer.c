// SPDX-License-Identifier: GPL-2.0
/*
 * check's answer, rendered: the monitoring-plugin line, the JSON object and
 * the node_exporter textfile, all from the values of struct fgt_check_result
 * (the reason too: check.c decides its shape, this file writes its words).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check/check.h"
#include "check/prom.h"
#include <bpf/libbpf.h>
#include "common/clause.h"
#include "common/cli.h"
#include "common/exit_codes.h"
#include "common/json_writer.h"
#include "common/log.h"
#include "render/act_json.h"
#include "render/out_json.h"
#include "render/static_json.h"

/* ---- the reason ---------------------------------------------------------- */

static const char *const by_names[] = {
	[FGT_BY_STATIC]				= "static",
	[FGT_BY_TRIGGER]			= "trigger",
	[FGT_BY_WATCH]				= "watch",
	[FGT_BY_STATIC | FGT_BY_TRIGGER]	= "static+trigger",
	[FGT_BY_STATIC | FGT_BY_WATCH]		= "static+watch",
};

const char *fgt_check_by_name(unsigned int by)
{
	return by < sizeof(by_names) / sizeof(by_names[0]) ? by_names[by] : NULL;
}

/* The activation side's words: the judge's with its clauses, else the note. */
static void act_reason(const struct fgt_check_result *r, char *buf, size_t len)
{
	const struct fgt_judge *j = &r->seen.judge;

	if (!r->judged) {
		snprintf(buf, len, "%s", r->note);
		return;
	}
	fgt_judge_text(j, buf, len);
	if (j->verdict == FGT_VERDICT_FIXED && j->failures)
		fgt_clause_add(buf, len, "%" PRIu64 " shadow-stack allocation%s failed",
			       j->failures, j->failures == 1 ? "" : "s");
	if (r->seen.fig.lost)
		fgt_clause_add(buf, len, "%" PRIu64 " event%s lost during the activation",
			       r->seen.fig.lost, r->seen.fig.lost == 1 ? "" : "s");
	if (r->act_verdict == FGT_VERDICT_UNKNOWN && r->hint[0])
		fgt_clause_add(buf, len, "%s", r->hint);
}

/* The code's words; hinted: when it cannot tell, what would. */
static void code_reason(const struct fgt_check_result *r, bool hinted, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->st.evidence);
	if (!hinted || r->st.verdict != FGT_VERDICT_UNKNOWN)
		return;
	if (r->st.why == FGT_SW_LOCKDOWN)
		fgt_clause_add(buf, len, "--kernel /boot/vmlinuz-%s reads the same code from the "
			       "file", r->kid.release);
	else if (fgt_check_needs_root(r))
		/* --trigger needs root too: no advice a user cannot follow */
		fgt_clause_add(buf, len, "%s", strstr(buf, "run as root") ? "--trigger needs "
			       "root too" : "run as root (--trigger needs root too)");
	else
		fgt_clause_add(buf, len, "--trigger adds an activation's proof");
}

/*
 * At most max bytes of s, into buf: where s is longer, its clauses ("; ")
 * that fit whole, then "; ..." (a field cut mid-word read "t->ret_stack at
 * +0x890 (B; the activation: ..."). One clause longer than max is cut.
 */
#define CLIP_MORE	"; ..."

static const char *clip(const char *s, size_t max, char *buf, size_t len)
{
	const size_t more = sizeof(CLIP_MORE) - 1;
	size_t n = strlen(s), keep = 0;
	const char *p;

	if (n <= max) {
		snprintf(buf, len, "%s", s);
		return buf;
	}
	for (p = strstr(s, "; "); p && (size_t)(p - s) <= max - more; p = strstr(p + 2, "; "))
		keep = (size_t)(p - s);
	if (!keep)
		keep = max - more;
	snprintf(buf, len, "%.*s" CLIP_MORE, (int)keep, s);
	return buf;
}

const char *fgt_check_reason(const struct fgt_check_result *r, char *buf, size_t len)
{
	char act[FGT_CHECK_REASON_LEN], c1[FGT_CHECK_REASON_LEN], c2[FGT_CHECK_REASON_LEN];

	act_reason(r, act, sizeof(act));
	switch (r->shape) {
	case FGT_SHAPE_ACT:
		snprintf(buf, len, "%s", act);
		break;
	case FGT_SHAPE_CODE:
	case FGT_SHAPE_CODE_HINT:
		code_reason(r, r->shape == FGT_SHAPE_CODE_HINT, buf, len);
		break;
	case FGT_SHAPE_AGREE:
		snprintf(buf, len, "%s; the activation: %s", clip(r->st.evidence, 400, c1, sizeof(c1)),
			 clip(act, 300, c2, sizeof(c2)));
		break;
	case FGT_SHAPE_DISAGREE:
		snprintf(buf, len, "the code and the activation disagree: the code says %s "
			 "(%s); the activation says %s (%s)",
			 fgt_verdict_answer(r->st.verdict), clip(r->st.evidence, 300, c1, sizeof(c1)),
			 fgt_verdict_answer(r->act_verdict), clip(act, 300, c2, sizeof(c2)));
		break;
	case FGT_SHAPE_CODE_FIRST:
		code_reason(r, false, buf, len);
		fgt_clause_add(buf, len, "%s: %s",
			       r->act_by == FGT_BY_TRIGGER ? "--trigger" : "watching", act);
		break;
	case FGT_SHAPE_ACT_FIRST:
		snprintf(buf, len, "%s", act);
		fgt_clause_add(buf, len, "the code: %s", r->st.evidence);
		break;
	}
	if (r->prom_err[0])
		fgt_clause_add(buf, len, "--prometheus: %s", r->prom_err);
	return buf;
}

/* ---- the line and the JSON ----------------------------------------------- */

static const char *status_word(int status)
{
	switch (status) {
	case FGT_CHECK_OK:		return "OK";
	case FGT_CHECK_WARNING:		return "WARNING";
	case FGT_CHECK_CRITICAL:	return "CRITICAL";
	default:			return "UNKNOWN";
	}
}


/* ---- outputs ------------------------------------------------------------- */

/* Where the answer came from, in words, once the code was asked. */
static const char *method_words(const struct fgt_check_result *r)
{
	if (!r->have_static || r->verdict == FGT_VERDICT_NOT_AFFECTED)
		return "";
	if (r->answered_by == FGT_BY_STATIC)
		return " (from the code)";
	if (r->answered_by & FGT_BY_STATIC)
		return " (from the code and an activation)";
	if (r->answered_by)
		return " (from an activation)";
	return "";
}

/* A perfdata value: digits and a point only (the monitoring-plugin format
 * has no exponent), to the microsecond, no trailing zeros. */
static const char *perf_seconds(double v, char *b, size_t len)
{
	char *p;

	snprintf(b, len, "%.6f", v);
	p = b + strlen(b) - 1;
	while (p > b && *p == '0')
		*p-- = '\0';
	if (*p == '.')
		*p = '\0';
	return b;
}

/* "; a 0->1 step is under way: ..." or "". */
static const char *under_way_words(const struct fgt_check_result *r, char *b, size_t len)
{
	const struct fgt_joined *j = &r->join;

	if (!r->under_way) {
		b[0] = '\0';
		return b;
	}
	snprintf(b, len, "; a 0->1 step is under way: pid %u (%s)%s%s, %" PRIu64 " threads "
		 "served (inferred), %" PRIu64 " still lacking a stack", j->trig.pid,
		 j->trig.known ? j->trig.comm : "trigger not found", j->trig.via[0] ? " " : "",
		 j->trig.via, fgt_join_served(j), j->seen.lacking);
	return b;
}

static void under_way_json(json_writer_t *jw, const struct fgt_check_result *r)
{
	const struct fgt_joined *j = &r->join;

	jsonw_name(jw, "under_way");
	if (!r->under_way) {
		jsonw_null(jw);
		return;
	}
	jsonw_start_object(jw);
	jsonw_string_field(jw, "why", fgt_join_why_name(j->why));
	jsonw_bool_field(jw, "trigger_known", j->trig.known);
	jsonw_string_field(jw, "named_by", fgt_join_named_by(&j->trig));
	fgt_out_join_trigger_json(jw, &j->trig);
	jsonw_uint_field(jw, "served", fgt_join_served(j));
	jsonw_uint_field(jw, "lacking", j->seen.lacking);
	jsonw_uint_field(jw, "sweeps_before", j->inferred.sweeps);
	jsonw_bool_field(jw, "inferred", true);
	jsonw_end_object(jw);
}

/* Which kernel the answer is about: the running one, or --kernel's file,
 * named whatever could be read of it. */
static void kernel_words(FILE *f, const struct fgt_check_result *r)
{
	const char *rel = r->kid.release[0] ? r->kid.release : NULL;
	const char *bid = r->kid.build_id[0] ? r->kid.build_id : "unknown";

	if (r->kernel_file)
		fprintf(f, "kernel file %s: %s%s build %s", r->kernel_file, rel ? rel : "release",
			rel ? "" : " unknown,", bid);
	else
		fprintf(f, "kernel %s build %s%s", rel ? rel : "release unknown,", bid,
			r->kid.build_id[0] ? "" : " (" FGT_NOTES_PATH " unreadable)");
}

void fgt_check_print_line(FILE *out, const struct fgt_check_result *r)
{
	char est[48], reason[FGT_CHECK_REASON_LEN], uw[256], *line = NULL;
	const char *sep = " | ";	/* perfdata follow it, space-separated */
	size_t n = 0;
	/* made whole, then printed escaped: a path or a kernel's string in it
	 * can hold control bytes (fgt_text_line) */
	FILE *f = open_memstream(&line, &n);

	if (!f) {
		fputs("FGRAPH UNKNOWN - out of memory\n", out);
		return;
	}

	if (r->status == FGT_EXIT_USAGE) {
		/* a bad command line: no kernel was asked, nothing measured */
		fprintf(f, "FGRAPH UNKNOWN - %s", r->note);
		goto done;
	}
	fprintf(f, "FGRAPH %s - %s%s: %s%s%s%s%s; ", status_word(r->status),
		fgt_verdict_words(r->verdict), method_words(r), fgt_check_reason(r, reason, sizeof(reason)),
		r->have_hold && r->hold.held ? "; mitigated: fgraph held by fgraphtop hold (" : "",
		r->have_hold && r->hold.held ? r->hold.method : "",
		r->have_hold && r->hold.held ? ")" : "", under_way_words(r, uw, sizeof(uw)));
	kernel_words(f, r);
	if (r->seen.have) {
		char sw[24] = "U";	/* not observable: the plugin guidelines' "U" */

		if (r->seen.fig.walks != FGT_WALKS_UNSEEN)
			snprintf(sw, sizeof(sw), "%" PRIu64, r->seen.fig.sweeps);
		fprintf(f, "%ssweeps=%s served=%" PRIu64 " duration=%.3fs failures=%"
			PRIu64 " lost=%" PRIu64, sep, sw, r->seen.fig.served,
			r->seen.fig.duration_ns / 1e9, r->seen.fig.failures, r->lost);
		sep = " ";
	} else if (r->verdict != FGT_VERDICT_NOT_AFFECTED && r->answered_by != FGT_BY_STATIC) {
		fprintf(f, "%slost=%" PRIu64, sep, r->lost);
		sep = " ";
	}
	if (r->have_exposure)
		fprintf(f, "%slacking=%" PRIu64 " walk_estimate=%ss", sep, r->exposure.lacking,
			perf_seconds(r->exposure_est.seconds, est, sizeof(est)));
done:
	fclose(f);
	fgt_text_line(out, line ? line : "");
	free(line);
	fflush(out);
}

static void exposure_json(json_writer_t *jw, const struct fgt_check_result *r)
{
	if (!r->have_exposure) {
		if (r->exposure_why[0]) {
			jsonw_name(jw, "exposure");
			jsonw_start_object(jw);
			jsonw_string_field(jw, "error", r->exposure_why);
			jsonw_end_object(jw);
		}
		return;
	}
	jsonw_name(jw, "exposure");
	fgt_out_exposure_json(jw, &r->exposure, &r->exposure_est);
}

void fgt_check_print_json(FILE *f, const struct fgt_check_result *r)
{
	json_writer_t *jw = jsonw_new(f);
	char reason[FGT_CHECK_REASON_LEN];

	if (!jw)
		return;
	jsonw_head(jw, "check");
	jsonw_string_field(jw, "verdict", fgt_verdict_answer(r->verdict));
	jsonw_int_field(jw, "status", r->status);
	jsonw_string_field(jw, "reason", fgt_check_reason(r, reason, sizeof(reason)));
	if (r->answered_by)
		jsonw_string_field(jw, "method", fgt_check_by_name(r->answered_by));
	jsonw_name(jw, "kernel");
	jsonw_start_object(jw);
	jsonw_string_field(jw, "release", r->kid.release);
	if (r->kernel_file)
		jsonw_string_field(jw, "file", r->kernel_file);
	if (r->kid.build_id[0])
		jsonw_string_field(jw, "build_id", r->kid.build_id);
	else
		jsonw_null_field(jw, "build_id");
	jsonw_end_object(jw);
	jsonw_float_field(jw, "check_time", r->check_time);
	jsonw_uint_field(jw, "activations_seen", r->seen.n);
	jsonw_uint_field(jw, "lost_events", r->lost);
	if (r->seen.have) {
		jsonw_name(jw, "activation");
		jsonw_start_object(jw);
		fgt_act_json_fields(jw, &r->seen.fig, FGT_ACTJ_FAILURES | FGT_ACTJ_DEGRADED |
				    FGT_ACTJ_OLD_NAMES);
		/* the activations' own answer, before the code's is combined with it */
		jsonw_string_field(jw, "verdict", fgt_verdict_answer(r->seen.judge.verdict));
		jsonw_bool_field(jw, "triggered_by_check", r->seen.triggered_by_us);
		jsonw_end_object(jw);
	}
	exposure_json(jw, r);
	if (r->have_hold) {
		jsonw_name(jw, "hold");
		jsonw_start_object(jw);
		jsonw_bool_field(jw, "held", r->hold.held);
		jsonw_string_field(jw, "method", r->hold.method[0] ? r->hold.method : "none");
		jsonw_string_field(jw, "where", r->hold.where);
		jsonw_bool_field(jw, "stale", r->hold.stale);
		jsonw_end_object(jw);
	}
	under_way_json(jw, r);
	if (r->triggered || r->parked || r->threads >= 0) {
		jsonw_name(jw, "trigger");
		jsonw_start_object(jw);
		jsonw_bool_field(jw, "done", r->triggered);
		if (r->trig_method != FGT_TRIG_NONE)
			jsonw_string_field(jw, "method", fgt_trig_method_name(r->trig_method));
		if (r->func[0])
			jsonw_string_field(jw, "function", r->func);
		jsonw_uint_field(jw, "parked_threads", r->parked);
		jsonw_int_field(jw, "threads", r->threads);
		jsonw_name(jw, "unfixed_estimate");
		jsonw_start_object(jw);
		jsonw_uint_field(jw, "lacking", r->trig_walk.lacking);
		jsonw_uint_field(jw, "sweeps", r->trig_walk.sweeps);
		jsonw_uint_field(jw, "visits", r->trig_walk.visits);
		jsonw_float_field(jw, "seconds", r->trig_est.seconds);
		jsonw_bool_field(jw, "assumed", r->trig_assumed);
		jsonw_end_object(jw);
		if (r->cleaned[0])
			jsonw_string_field(jw, "cleaned", r->cleaned);
		jsonw_end_object(jw);
	}
	if (r->have_static) {
		jsonw_name(jw, "static");
		jsonw_start_object(jw);
		fgt_static_json_fields(&r->st, jw);
		jsonw_end_object(jw);
	}
	jsonw_end_object(jw);
	jsonw_destroy(&jw);
	fflush(f);
}

static void kernel_labels(FILE *f, const struct fgt_check_result *r)
{
	fputs("release=", f);
	fgt_prom_label(f, r->kid.release);
	fputs(",build_id=", f);
	fgt_prom_label(f, r->kid.build_id);
}

/* Every verdict has a series (a state set: the one reached is 1). */
static const enum fgt_verdict prom_order[] = {
	FGT_VERDICT_FIXED, FGT_VERDICT_NOT_FIXED, FGT_VERDICT_NOT_AFFECTED, FGT_VERDICT_UNKNOWN,
};

static void prom_verdict(FILE *f, const struct fgt_check_result *r)
{
	const char *by = fgt_check_by_name(r->answered_by);

	fgt_prom_help(f, "fgraphtop_verdict", "gauge",
		      "Verdict of the last fgraphtop check on this kernel build: 1 for the verdict "
		      "reached; method: what answered (static: the kernel's code; trigger, watch: "
		      "an activation).");
	for (size_t i = 0; i < sizeof(prom_order) / sizeof(prom_order[0]); i++) {
		fputs("fgraphtop_verdict{verdict=", f);
		fgt_prom_label(f, fgt_verdict_answer(prom_order[i]));
		fputc(',', f);
		kernel_labels(f, r);
		if (by) {
			fputs(",method=", f);
			fgt_prom_label(f, by);
		}
		fprintf(f, "} %d\n", r->verdict == prom_order[i]);
	}
}

static void prom_activation(FILE *f, const struct fgt_check_seen *s)
{
	fgt_prom_gauge_dbl(f, "fgraphtop_activation_duration_seconds",
			   "End to end duration of the shadow-stack allocation phase of the "
			   "activation seen.", s->fig.duration_ns / 1e9);
	if (s->fig.walks != FGT_WALKS_UNSEEN)	/* not observable: no sample */
		fgt_prom_gauge_u64(f, "fgraphtop_activation_sweeps",
				   "Task-list sweeps (alloc_retstack_tasklist calls) in the activation "
				   "seen.", s->fig.sweeps);
	fgt_prom_gauge_u64(f, "fgraphtop_activation_threads_served",
			   "Threads handed a shadow stack by the activation seen.", s->fig.served);
	fgt_prom_gauge_u64(f, "fgraphtop_activation_failures",
			   "Failed shadow-stack allocations in the activation seen.",
			   s->fig.failures);
	fgt_prom_gauge_u64(f, "fgraphtop_activation_nonblocking_failures",
			   "Failed non-blocking (GFP_NOWAIT) shadow-stack allocations in the "
			   "activation seen: on a fixed kernel, memory under the watermark.",
			   s->fig.failed_nonblocking);
	fgt_prom_gauge_u64(f, "fgraphtop_activation_extra_sweeps",
			   "Sweeps after the first in the activation seen: on a fixed kernel, each "
			   "one a reserve used up under memory pressure.", s->fig.extra_sweeps);
	fgt_prom_gauge_dbl(f, "fgraphtop_activation_extra_sweeps_seconds",
			   "Time of the sweeps after the first in the activation seen.",
			   s->fig.extra_sweeps_ns / 1e9);
}

static void prom_exposure(FILE *f, const struct fgt_check_result *r)
{
	fgt_prom_gauge_u64(f, "fgraphtop_threads_without_shadow_stack", "Threads lacking a shadow "
			   "stack when the check ran, before any activation it caused: what the "
			   "next fgraph activation must serve.", r->exposure.lacking);
	fgt_prom_gauge_dbl(f, "fgraphtop_unfixed_walk_estimate_seconds", "Estimated duration of "
			   "an unfixed kernel's batch-of-32 shadow-stack walk over those threads, in "
			   "task-list order.", r->exposure_est.seconds);
	fgt_prom_help(f, "fgraphtop_unfixed_walk_visit_cost_seconds", "gauge", "The cost of one "
		      "thread visit the estimate used: the series' figure (default) or this "
		      "host's observed unfixed walk (observed).");
	fputs("fgraphtop_unfixed_walk_visit_cost_seconds{source=", f);
	fgt_prom_label(f, fgt_exp_cost_src_name(r->exposure_est.src));
	fprintf(f, "} %.6g\n", r->exposure_est.ns_per_visit / 1e9);
}

static void prom_hold(FILE *f, const struct fgt_check_result *r)
{
	fgt_prom_help(f, "fgraphtop_hold", "gauge", "1 when fgraphtop hold keeps fgraph armed "
		      "(method: kretprobe.multi, a pinned link; instance, function_graph in "
		      "tracefs instance fgraphtop-hold): no later fgraph user walks the thread "
		      "list, so an unfixed kernel is mitigated.");
	fputs("fgraphtop_hold{method=", f);
	fgt_prom_label(f, r->hold.held ? r->hold.method : "none");
	fprintf(f, "} %d\n", r->hold.held);
}

/* Which fgraphtop answered: its version and the libbpf linked into it. */
static void prom_build_info(FILE *f)
{
	char libbpf[32];

	fgt_prom_help(f, "fgraphtop_build_info", "gauge",
		      "The fgraphtop that wrote these metrics: its version and its libbpf's.");
	snprintf(libbpf, sizeof(libbpf), "v%u.%u", libbpf_major_version(), libbpf_minor_version());
	fputs("fgraphtop_build_info{version=", f);
	fgt_prom_label(f, FGT_VERSION);
	fputs(",libbpf=", f);
	fgt_prom_label(f, libbpf);
	fputs("} 1\n", f);
}

int fgt_check_render_prom(FILE *f, const struct fgt_check_result *r)
{
	prom_build_info(f);
	prom_verdict(f, r);
	fgt_prom_help(f, "fgraphtop_kernel_info", "gauge",
		      "Kernel the check ran on: release and build ID from /sys/kernel/notes.");
	fputs("fgraphtop_kernel_info{", f);
	kernel_labels(f, r);
	fputs("} 1\n", f);
	fgt_prom_gauge_u64(f, "fgraphtop_check_status", "Exit status of the check: 0 fixed or not "
			   "affected, 1 fixed with problems, 2 not fixed, 3 unknown.",
			   (uint64_t)(r->status & 0xff));
	fgt_prom_gauge_dbl(f, "fgraphtop_check_timestamp_seconds",
			   "When the check ran, seconds since the epoch.", r->check_time);
	if (r->seen.have)
		prom_activation(f, &r->seen);
	fgt_prom_gauge_u64(f, "fgraphtop_lost_events",
			   "Events the kernel could not deliver during the check.", r->lost);
	if (r->have_exposure)
		prom_exposure(f, r);
	if (r->have_hold)
		prom_hold(f, r);
	return ferror(f) ? -EIO : 0;
}

static int render_prom(FILE *f, const void *r)
{
	return fgt_check_render_prom(f, r);
}

int fgt_check_write_prom(const char *path, const struct fgt_check_result *r, char *err, size_t len)
{
	return fgt_prom_write(path, render_prom, r, err, len);
}

int fgt_check_answer(struct fgt_check_result *r, bool json, const char *prom_file, FILE *out)
{
	char err[512];

	if (prom_file && fgt_check_write_prom(prom_file, r, err, sizeof(err))) {
		snprintf(r->prom_err, sizeof(r->prom_err), "%s", err);
		r->status = FGT_CHECK_UNKNOWN;
	}
	if (json)
		fgt_check_print_json(out, r);
	else
		fgt_check_print_line(out, r);
	if (fflush(out) || ferror(out)) {
		log_err("cannot write the answer: %s", strerror(errno));
		return FGT_CHECK_UNKNOWN;
	}
	return r->status;
}
