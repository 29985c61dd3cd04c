// SPDX-License-Identifier: GPL-2.0
/*
 * The host's tracing state, read-only. Everything here is best effort with
 * the evidence in words: the check refuses to trigger on any sign of an
 * fgraph user, and says which sign it saw.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include "clause.h"
#include "host_state.h"
#include "kfacts.h"

static const char *const tracefs_dirs[] = {
	"/sys/kernel/tracing",
	"/sys/kernel/debug/tracing",
};

const char *fgt_tracefs_find(void)
{
	char p[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/available_tracers", tracefs_dirs[i]);
		if (access(p, R_OK) == 0)
			return tracefs_dirs[i];
	}
	return NULL;
}

const char *fgt_host_tracefs(const struct fgt_host *h)
{
	return h && h->tracefs ? h->tracefs : fgt_tracefs_find();
}

/* First line of dir/name into buf, newline stripped. 0 or -errno. */
static int read_line(const char *dir, const char *name, char *buf, size_t len)
{
	char p[PATH_MAX];
	FILE *f;
	int ret = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return ret;
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
	if (tfs && read_line(tfs, "available_tracers", line, sizeof(line)) == 0)
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

/* "; "-separated list into why; counts every item, keeps what fits. */
struct users {
	char *buf;
	size_t len;
	int n;
};

__attribute__((format(printf, 2, 3)))
static void add_user(struct users *u, const char *fmt, ...)
{
	char one[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(one, sizeof(one), fmt, ap);
	va_end(ap);
	u->n++;
	fgt_clause_add(u->buf, u->len, "%s", one);
}

static void tracers_in_use(const char *tfs, const char *skip, struct users *u)
{
	char dir[PATH_MAX], line[256];
	struct dirent *de;
	DIR *d;

	if (read_line(tfs, "current_tracer", line, sizeof(line)) == 0 &&
	    !strcmp(line, "function_graph"))
		add_user(u, "the top-level tracer is function_graph (%s/current_tracer)", tfs);
	if (read_line(tfs, "function_profile_enabled", line, sizeof(line)) == 0 &&
	    !strcmp(line, "1"))
		add_user(u, "the function profiler is on (%s/function_profile_enabled)", tfs);

	snprintf(dir, sizeof(dir), "%s/instances", tfs);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char inst[PATH_MAX];

		if (de->d_name[0] == '.' || (skip && !strcmp(de->d_name, skip)))
			continue;
		if (snprintf(inst, sizeof(inst), "%s/%s", dir, de->d_name) >= (int)sizeof(inst))
			continue;
		if (read_line(inst, "current_tracer", line, sizeof(line)) == 0 &&
		    !strcmp(line, "function_graph"))
			add_user(u, "tracefs instance %s has function_graph", de->d_name);
	}
	closedir(d);
}

/* dynamic_events: "f:fprobes/name sym" (fprobe events) and "t:..." (tracepoint probes
 * are fprobe-based too from 6.14 on, but only 'f' ones hook functions). */
static void fprobe_events(const char *tfs, struct users *u)
{
	char p[PATH_MAX], line[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/dynamic_events", tfs);
	f = fopen(p, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == 'f' && line[1] == ':')
			add_user(u, "fprobe event '%s' in dynamic_events", line);
	}
	fclose(f);
}

/*
 * struct bpf_link_info's kprobe_multi member appeared in 6.6, after the
 * libbpf-dev headers we build with: the layout, mirrored. Older kernels fill
 * only type/id/prog_id, so count == 0 means "flags unknown".
 */
struct fgt_link_info {
	__u32 type;
	__u32 id;
	__u32 prog_id;
	__u32 pad;
	__u64 addrs;
	__u32 count;
	__u32 flags;
	__u64 missed;
	__u64 cookies;
} __attribute__((aligned(8)));

static void bpf_links(struct users *u)
{
	__u32 id = 0;

	while (bpf_link_get_next_id(id, &id) == 0) {
		struct fgt_link_info info;
		__u32 len = sizeof(info);
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
		    info.type == BPF_LINK_TYPE_KPROBE_MULTI) {
			if (!info.count)
				add_user(u, "BPF kprobe_multi link %u (prog %u; entry or return: "
					 "not told by this kernel)", id, info.prog_id);
			else if (info.flags & BPF_F_KPROBE_MULTI_RETURN)
				add_user(u, "BPF kretprobe.multi link %u (prog %u, %u functions)",
					 id, info.prog_id, info.count);
			else
				add_user(u, "BPF kprobe_multi link %u (prog %u, %u functions; "
					 "entry-only, fgraph-based on 6.14..6.18)", id, info.prog_id,
					 info.count);
		}
		close(fd);
	}
}

int fgt_host_fgraph_users(const struct fgt_host *h, const struct fgt_ksyms *ks,
			  const char *skip_instance, char *why, size_t len)
{
	struct users u = { why, len, 0 };
	struct fgt_ksyms *own = NULL;
	const char *tfs = fgt_host_tracefs(h);

	if (len)
		why[0] = '\0';
	if (tfs) {
		tracers_in_use(tfs, skip_instance, &u);
		fprobe_events(tfs, &u);
	}
	if (!ks)
		ks = own = load_ksyms(h);
	if (fgt_fprobe_on_fgraph(ks) && !(h && h->no_bpf_links))
		bpf_links(&u);
	fgt_ksyms_free(own);
	if (!tfs && !u.n)
		snprintf(why, len, "tracefs is not mounted: tracers in use unknown");
	return u.n;
}

bool fgt_fprobe_on_fgraph(const struct fgt_ksyms *ks)
{
	/* 6.14 moved fprobe onto fgraph (src/kfacts.c); before, it used rethook */
	return ks && (fgt_ksyms_by_name(ks, fgt_sym_name(FGT_SYM_FPROBE_GRAPH_OPS)) ||
		      fgt_ksyms_by_name(ks, fgt_sym_name(FGT_SYM_FPROBE_FGRAPH_ENTRY)));
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
