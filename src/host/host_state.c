// SPDX-License-Identifier: GPL-2.0
/*
 * The host's tracing state, read-only. Everything here is best effort with
 * the evidence in words: the check refuses to trigger on any sign of an
 * fgraph user, and says which sign it saw.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common/clause.h"
#include "host/holders.h"
#include "host/host_state.h"
#include "host/tracefs.h"
#include "facts/kfacts.h"

/* Octal escapes (\040 for a space) back into bytes, in place. */
const char *fgt_host_tracefs(const struct fgt_host *h)
{
	return h && h->tracefs ? h->tracefs : fgt_tracefs_find();
}

/* Is word one of the space-separated words of line? */
static bool has_word(const char *line, const char *word)
{
	size_t n = strlen(word);
	const char *p = line;

	while ((p = strstr(p, word))) {
		if ((p == line || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
		p += n;
	}
	return false;
}

static struct fgt_ksyms *load_ksyms(const struct fgt_host *h)
{
	return fgt_ksyms_load(h && h->kallsyms ? h->kallsyms : NULL);
}

int fgt_host_has_fgraph(const struct fgt_host *h, const struct fgt_ksyms *ks,
			char *why, size_t len)
{
	struct fgt_ksyms *own = NULL;
	const char *tfs = fgt_host_tracefs(h);
	char line[1024], insane[160] = "";
	int tracers = -1;	/* function_graph in available_tracers: 1, 0, -1 unreadable */
	int sym = -1;		/* register_ftrace_graph in kallsyms: 1, 0, -1 cannot tell */

	if (!ks)
		ks = own = load_ksyms(h);
	if (ks && fgt_ksyms_by_name(ks, fgt_sym_name(FGT_SYM_REGISTER)))
		sym = 1;
	else if (ks && fgt_ksyms_sane(ks, insane, sizeof(insane)))
		sym = 0;
	fgt_ksyms_free(own);
	/* kallsyms decides when it can; tracefs only when it cannot, so that the
	 * answer (and its words) do not depend on tracefs being mounted */
	if (sym == 1) {
		snprintf(why, len, "register_ftrace_graph is in kallsyms");
		return 1;
	}
	if (sym == 0) {
		/* kallsyms lists every text symbol, whoever reads it: decisive */
		snprintf(why, len, "no function graph tracer in this kernel: no "
			 "register_ftrace_graph in kallsyms");
		return 0;
	}
	if (tfs && fgt_tracefs_line(tfs, "available_tracers", line, sizeof(line)) == 0)
		tracers = has_word(line, "function_graph");
	if (tracers == 1) {
		snprintf(why, len, "function_graph is in available_tracers");
		return 1;
	}
	if (tracers == 0) {
		snprintf(why, len, "no function graph tracer in this kernel: no "
			 "function_graph in available_tracers (%s)",
			 insane[0] ? insane : "/proc/kallsyms is not readable");
		return 0;
	}
	snprintf(why, len, "cannot tell whether this kernel has a function graph tracer: "
		 "%s, and tracefs is not readable (mount tracefs, run as root)",
		 insane[0] ? insane : "/proc/kallsyms is not readable");
	return -1;
}

/*
 * check's words for each holder (its refusal quotes them): the same reader as
 * the live view's (src/host/holders.c), worded as a sentence.
 */
static void check_words(const struct fgt_holder *h, const char *tfs, char *buf, size_t len)
{
	switch (h->kind) {
	case FGT_HOLDER_TRACER:
		if (h->instance[0])
			snprintf(buf, len, "tracefs instance %s has function_graph", h->instance);
		else
			snprintf(buf, len, "the top-level tracer is function_graph (%s/current_tracer)",
				 tfs);
		break;
	case FGT_HOLDER_LATENCY:
		snprintf(buf, len, "the %s tracer draws the call graph (%s%s%s/options/display-graph)",
			 h->name, tfs, h->instance[0] ? "/instances/" : "", h->instance);
		break;
	case FGT_HOLDER_PROFILER:
		snprintf(buf, len, "the function profiler is on (%s/function_profile_enabled)", tfs);
		break;
	case FGT_HOLDER_FPROBE:
		snprintf(buf, len, "fprobe event 'f:%s%s%s' in dynamic_events", h->name,
			 h->detail[0] ? " " : "", h->detail);
		break;
	case FGT_HOLDER_BPF_LINK:
		if (!h->nr_funcs)
			snprintf(buf, len, "BPF kprobe_multi link %u (prog %u; entry or return: "
				 "not told by this kernel)", h->link_id, h->prog_id);
		else if (h->ret)
			snprintf(buf, len, "BPF kretprobe.multi link %u (prog %u, %u functions)",
				 h->link_id, h->prog_id, h->nr_funcs);
		else
			snprintf(buf, len, "BPF kprobe_multi link %u (prog %u, %u functions; "
				 "entry-only%s)", h->link_id, h->prog_id, h->nr_funcs,
				 h->maybe ? ", unless a kprobe.session" : ", fgraph-based on 6.14..6.18");
		if (h->nr_owners)
			snprintf(buf + strnlen(buf, len), len - strnlen(buf, len), " held by pid %d (%s)",
				 h->pid, h->comm);
		break;
	}
}

int fgt_host_fgraph_users(const struct fgt_host *h, const struct fgt_ksyms *ks,
			  const char *skip_instance, char *why, size_t len)
{
	struct fgt_holders_cfg c = {
		.tracefs = fgt_host_tracefs(h),
		.proc = h ? h->proc : NULL,
		.no_bpf_links = h && h->no_bpf_links,
		.skip_instance = skip_instance,
	};
	struct fgt_ksyms *own = NULL;
	struct fgt_holders *hs;
	char one[512];
	int n;

	if (len)
		why[0] = '\0';
	hs = malloc(sizeof(*hs));
	if (!hs)
		return -ENOMEM;
	if (!ks)
		ks = own = load_ksyms(h);
	fgt_fprobe_facts(ks, &c.fprobe);
	fgt_ksyms_free(own);
	n = fgt_holders_read(&c, hs);
	/* every holder is counted, even past what the buffer (or the reader) keeps */
	for (unsigned int i = 0; i < hs->kept; i++) {
		check_words(&hs->h[i], hs->tracefs, one, sizeof(one));
		fgt_clause_add(why, len, "%s", one);
	}
	if (!hs->tracefs[0] && !n)
		snprintf(why, len, "tracefs is not mounted: tracers in use unknown");
	free(hs);
	return n;
}

long fgt_host_threads(const struct fgt_host *h)
{
	const char *path = h && h->loadavg ? h->loadavg : "/proc/loadavg";
	double l1, l5, l15;
	long running, total;
	FILE *f = fopen(path, "re");
	int n;

	if (!f)
		return -errno;
	/* "0.00 0.01 0.05 1/123 4567": the total after '/' is nr_threads */
	n = fscanf(f, "%lf %lf %lf %ld/%ld", &l1, &l5, &l15, &running, &total);
	fclose(f);
	return n == 5 && total >= 0 ? total : -EINVAL;
}
