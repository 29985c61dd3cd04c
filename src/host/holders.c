// SPDX-License-Identifier: GPL-2.0
/*
 * Who holds fgraph now (holders.h). Read-only: tracefs files are opened for
 * reading, BPF links listed by id and queried for their info (as `bpftool
 * link` does), /proc/PID/fd and fdinfo read to find the processes holding a
 * link. Each source fails alone; what could not be read is said, not guessed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* pthread_timedjoin_np */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include "host/holders.h"
#include "common/clock.h"
#include "host/tracefs.h"
#include "facts/kfacts.h"

/* The latency tracers that draw the call graph through fgraph when their
 * display-graph and function-trace options are on (trace_irqsoff.c,
 * trace_sched_wakeup.c: register_ftrace_graph() instead of a function tracer). */
static const char *const latency_tracers[] = {
	"irqsoff", "preemptoff", "preemptirqoff", "wakeup", "wakeup_rt", "wakeup_dl",
};

#define LINKS_MAX	1024

bool fgt_fprobe_on_fgraph(const struct fgt_ksyms *ks)
{
	/* 6.14 moved fprobe onto fgraph (src/facts/kfacts.c); before, it used rethook */
	return ks && (fgt_ksyms_by_name(ks, fgt_sym_name(FGT_SYM_FPROBE_GRAPH_OPS)) ||
		      fgt_ksyms_by_name(ks, fgt_sym_name(FGT_SYM_FPROBE_FGRAPH_ENTRY)));
}

void fgt_fprobe_facts(const struct fgt_ksyms *ks, struct fgt_fprobe_facts *f)
{
	char insane[8];
	bool sane = ks && fgt_ksyms_sane(ks, insane, sizeof(insane));

	f->on_fgraph = fgt_fprobe_on_fgraph(ks) ? 1 : sane ? 0 : -1;
	f->entry_on_ftrace = ks && fgt_ksyms_by_name(ks, fgt_sym_name(FGT_SYM_FPROBE_FTRACE_ENTRY)) ?
			     1 : sane ? 0 : -1;
}

static bool file_is(const char *dir, const char *name, const char *want)
{
	char line[64];

	return fgt_tracefs_line(dir, name, line, sizeof(line)) == 0 && !strcmp(line, want);
}

/* A new holder (counted even when there is no room to keep it). */
static struct fgt_holder *add(struct fgt_holders *hs, enum fgt_holder_kind kind, bool maybe)
{
	static struct fgt_holder spare;
	struct fgt_holder *h;

	hs->n++;
	if (!maybe && kind != FGT_HOLDER_FPROBE && kind != FGT_HOLDER_BPF_LINK)
		hs->regs++;
	if (hs->kept == FGT_HOLDERS_MAX) {
		memset(&spare, 0, sizeof(spare));
		return &spare;
	}
	h = &hs->h[hs->kept++];
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->maybe = maybe;
	return h;
}

/* The tracer of one trace array (dir: tracefs or an instance of it). */
static void tracer_of(struct fgt_holders *hs, const char *dir, const char *instance)
{
	char cur[64];
	struct fgt_holder *h;

	if (fgt_tracefs_line(dir, "current_tracer", cur, sizeof(cur)))
		return;
	if (!strcmp(cur, "function_graph")) {
		h = add(hs, FGT_HOLDER_TRACER, false);
		snprintf(h->name, sizeof(h->name), "%s", cur);
		snprintf(h->instance, sizeof(h->instance), "%s", instance);
		return;
	}
	for (size_t i = 0; i < sizeof(latency_tracers) / sizeof(latency_tracers[0]); i++) {
		if (strcmp(cur, latency_tracers[i]))
			continue;
		if (file_is(dir, "options/display-graph", "1") &&
		    file_is(dir, "options/function-trace", "1")) {
			h = add(hs, FGT_HOLDER_LATENCY, false);
			snprintf(h->name, sizeof(h->name), "%s", cur);
			snprintf(h->instance, sizeof(h->instance), "%s", instance);
		}
		return;
	}
}

static void instances(struct fgt_holders *hs, const char *tfs, const char *skip)
{
	char dir[PATH_MAX], inst[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/instances", tfs);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || (skip && !strcmp(de->d_name, skip)))
			continue;
		if (snprintf(inst, sizeof(inst), "%s/%s", dir, de->d_name) >= (int)sizeof(inst))
			continue;
		tracer_of(hs, inst, de->d_name);
		if (hs->kept && !strcmp(hs->h[hs->kept - 1].instance, de->d_name) &&
		    !strcmp(de->d_name, FGT_HOLD_INSTANCE))
			hs->h[hs->kept - 1].hold = true;
	}
	closedir(d);
}

/*
 * One "f:GROUP/EVENT SYMBOL[%return] [ARGS]" line of dynamic_events. An
 * fprobe with a return handler is an fgraph user from 6.14; an entry-only one
 * too until entry-only fprobes got an ftrace_ops of their own. Whether a
 * disabled event has registered its fprobe depends on the kernel (7.2
 * registers on enable), so those may hold it.
 */
static void fprobe_line(struct fgt_holders *hs, const char *tfs, const char *line,
			const struct fgt_fprobe_facts *f)
{
	char name[64] = "", rest[160] = "", en[PATH_MAX], state[16];
	const char *sp = strchr(line, ' ');
	bool ret, maybe;
	struct fgt_holder *h;
	size_t n;

	if (line[0] != 'f' || line[1] != ':' || f->on_fgraph == 0)
		return;
	n = (sp ? (size_t)(sp - line) : strlen(line)) - 2;
	snprintf(name, sizeof(name), "%.*s", (int)n, line + 2);
	if (sp)
		snprintf(rest, sizeof(rest), "%s", sp + 1);
	ret = strstr(rest, "%return") != NULL;
	if (!ret && f->entry_on_ftrace == 1)
		return;		/* entry-only, on its ftrace_ops */
	maybe = f->on_fgraph < 0 || (!ret && f->entry_on_ftrace < 0);
	if (snprintf(en, sizeof(en), "%s/events/%s", tfs, name) < (int)sizeof(en) &&
	    fgt_tracefs_line(en, "enable", state, sizeof(state)) == 0 && !strcmp(state, "0"))
		maybe = true;	/* defined, not enabled */
	h = add(hs, FGT_HOLDER_FPROBE, maybe);
	snprintf(h->name, sizeof(h->name), "%s", name);
	snprintf(h->detail, sizeof(h->detail), "%s", rest);
	h->ret = ret;
}

static void fprobe_events(struct fgt_holders *hs, const char *tfs, const struct fgt_fprobe_facts *f)
{
	char p[PATH_MAX], line[512];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/dynamic_events", tfs);
	fp = fopen(p, "re");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = '\0';
		fprobe_line(hs, tfs, line, f);
	}
	fclose(fp);
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

/* 100 x 1 ms: a settle follows the register within microseconds, but a
 * TCG guest under load can deschedule the attaching thread in between (the
 * lab's live test saw a holders record name 2 of ftrace_graph_active 3). */
#define LINK_SETTLE_TRIES	100

int fgt_link_fd_settled(uint32_t id, int (*get)(uint32_t id))
{
	struct timespec ms = { 0, 1000 * 1000 };
	int fd, i;

	for (i = 0;; i++) {
		fd = get(id);
		if (fd >= 0 || errno != EAGAIN || i + 1 >= LINK_SETTLE_TRIES)
			return fd;
		nanosleep(&ms, NULL);
	}
}

static int link_fd_by_id(uint32_t id)
{
	return bpf_link_get_fd_by_id(id);
}

/* The running kernel's BPF links, as `bpftool link` lists them. */
static int sys_links(struct fgt_link_ent *out, int max, void *ctx)
{
	__u32 id = 0;
	int n = 0;

	while (n < max) {
		struct fgt_link_info info;
		__u32 len = sizeof(info);
		int fd;

		if (bpf_link_get_next_id(id, &id))
			return errno == ENOENT ? n : -errno;
		fd = fgt_link_fd_settled(id, link_fd_by_id);
		if (fd < 0)
			continue;	/* gone meanwhile */
		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			out[n++] = (struct fgt_link_ent){ .id = id, .prog_id = info.prog_id,
				.type = info.type, .count = info.count, .flags = info.flags };
		close(fd);
	}
	return n;
}

/* "link_id:\t12" in /proc/PID/fdinfo/FD: the link it is, 0 if none. */
static uint32_t fdinfo_link(const char *proc, const char *pid, const char *fd)
{
	char p[PATH_MAX], line[128];
	unsigned int id = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s/fdinfo/%s", proc, pid, fd);
	f = fopen(p, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "link_id: %u", &id) == 1)
			break;
	fclose(f);
	return id;
}

static void owner_is(struct fgt_holders *hs, uint32_t id, const char *proc, const char *pid)
{
	for (unsigned int i = 0; i < hs->kept; i++) {
		struct fgt_holder *h = &hs->h[i];
		char dir[PATH_MAX];

		if (h->kind != FGT_HOLDER_BPF_LINK || h->link_id != id)
			continue;
		if (!h->nr_owners++) {
			h->pid = atoi(pid);
			snprintf(dir, sizeof(dir), "%s/%s", proc, pid);
			if (fgt_tracefs_line(dir, "comm", h->comm, sizeof(h->comm)))
				h->comm[0] = '\0';
		}
	}
}

uint32_t fgt_hold_pinned_link(const char *path)
{
	struct fgt_link_info info;
	__u32 len = sizeof(info);
	char fds[16];
	uint32_t id = 0;
	int fd = bpf_obj_get(path ? path : FGT_HOLD_PIN);

	if (fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	snprintf(fds, sizeof(fds), "%d", fd);
	/* a pinned map or program answers the info call too, with a type of
	 * its own kind: only a link's fd says link_id in its fdinfo */
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.type == BPF_LINK_TYPE_KPROBE_MULTI &&
	    fdinfo_link("/proc", "self", fds) == info.id)
		id = info.id;
	close(fd);
	return id;
}

bool fgt_hold_seen_read(const char *tracefs, const char *pin, struct fgt_hold_seen *out)
{
	const char *tfs = tracefs ? tracefs : fgt_tracefs_find();
	char dir[PATH_MAX];

	memset(out, 0, sizeof(*out));
	out->link_id = fgt_hold_pinned_link(pin);
	if (out->link_id) {
		out->held = true;
		out->kind = FGT_HOLDER_BPF_LINK;
		snprintf(out->method, sizeof(out->method), "kretprobe.multi");
		snprintf(out->where, sizeof(out->where), "%s", pin ? pin : FGT_HOLD_PIN);
		return true;
	}
	if (!tfs || snprintf(dir, sizeof(dir), "%s/instances/%s", tfs, FGT_HOLD_INSTANCE) >=
	    (int)sizeof(dir) || access(dir, F_OK))
		return false;
	out->kind = FGT_HOLDER_TRACER;
	snprintf(out->method, sizeof(out->method), "instance");
	snprintf(out->where, sizeof(out->where), "%s", dir);
	out->held = file_is(dir, "current_tracer", "function_graph");
	out->stale = !out->held;
	return out->held;
}

/* Which processes hold the links' fds: /proc/PID/fd/N -> anon_inode:bpf_link,
 * then its fdinfo's link_id (the kernel names no owner in the link itself). */
static void link_owners(struct fgt_holders *hs, const char *proc)
{
	struct dirent *pe, *fe;
	char dir[PATH_MAX], lnk[PATH_MAX], target[64];
	DIR *pd, *fd;

	pd = opendir(proc);
	if (!pd)
		return;
	while ((pe = readdir(pd))) {
		if (pe->d_name[0] < '1' || pe->d_name[0] > '9')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s/fd", proc, pe->d_name);
		fd = opendir(dir);
		if (!fd)
			continue;	/* gone, or not ours to read */
		while ((fe = readdir(fd))) {
			ssize_t n;
			uint32_t id;

			if (fe->d_name[0] == '.')
				continue;
			if (snprintf(lnk, sizeof(lnk), "%s/%s", dir, fe->d_name) >= (int)sizeof(lnk))
				continue;
			n = readlink(lnk, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			if (strcmp(target, "anon_inode:bpf_link"))
				continue;
			id = fdinfo_link(proc, pe->d_name, fe->d_name);
			if (id)
				owner_is(hs, id, proc, pe->d_name);
		}
		closedir(fd);
	}
	closedir(pd);
}

/*
 * kprobe_multi links are fprobes: an fgraph user from 6.14 with a return
 * handler; entry-only ones too until they got their ftrace_ops. A
 * kprobe.session link has an exit handler but no RETURN flag, and its link
 * info does not say it is one: where entry-only links are off fgraph, an
 * entry-only looking link may still hold it.
 */
static void bpf_links(struct fgt_holders *hs, const struct fgt_holders_cfg *c)
{
	struct fgt_link_ent *ls;
	bool any = false;
	uint32_t hold;
	int n;

	if (c->no_bpf_links || c->fprobe.on_fgraph == 0)
		return;
	ls = calloc(LINKS_MAX, sizeof(*ls));
	if (!ls) {
		hs->links_err = -ENOMEM;
		return;
	}
	n = (c->links ? c->links : sys_links)(ls, LINKS_MAX, c->links_ctx);
	if (n < 0) {
		hs->links_err = n;
		free(ls);
		return;
	}
	hs->links_listed = true;
	hold = n > 0 ? (c->hold_link ? c->hold_link(c->links_ctx) : fgt_hold_pinned_link(NULL)) : 0;
	for (int i = 0; i < n; i++) {
		bool ret = ls[i].flags & BPF_F_KPROBE_MULTI_RETURN;
		struct fgt_holder *h;

		if (ls[i].type != BPF_LINK_TYPE_KPROBE_MULTI)
			continue;
		h = add(hs, FGT_HOLDER_BPF_LINK, c->fprobe.on_fgraph < 0 ||
			(!ret && (c->fprobe.entry_on_ftrace != 0 || !ls[i].count)));
		h->link_id = ls[i].id;
		h->prog_id = ls[i].prog_id;
		h->nr_funcs = ls[i].count;
		h->ret = ret;
		h->hold = hold && ls[i].id == hold;
		snprintf(h->name, sizeof(h->name), "%s", ret ? "kretprobe.multi" : "kprobe_multi");
		any = true;
	}
	free(ls);
	if (any)
		link_owners(hs, c->proc ? c->proc : "/proc");
}

/* fprobe registers one fgraph_ops for all its probes (kernel/trace/fprobe.c). */
static void count_fprobe_regs(struct fgt_holders *hs)
{
	bool sure = false, maybe = false;

	for (unsigned int i = 0; i < hs->kept; i++) {
		const struct fgt_holder *h = &hs->h[i];

		if (h->kind != FGT_HOLDER_FPROBE && h->kind != FGT_HOLDER_BPF_LINK)
			continue;
		if (h->maybe)
			maybe = true;
		else
			sure = true;
	}
	if (sure)
		hs->regs++;
	else if (maybe)
		hs->regs_maybe++;
}

int fgt_holders_read(const struct fgt_holders_cfg *c, struct fgt_holders *out)
{
	const char *tfs = c->tracefs ? c->tracefs : fgt_tracefs_find();

	memset(out, 0, sizeof(*out));
	if (tfs && access(tfs, R_OK) == 0) {
		snprintf(out->tracefs, sizeof(out->tracefs), "%s", tfs);
		tracer_of(out, tfs, "");
		if (file_is(tfs, "function_profile_enabled", "1"))
			add(out, FGT_HOLDER_PROFILER, false);
		instances(out, tfs, c->skip_instance);
		fprobe_events(out, tfs, &c->fprobe);
	}
	bpf_links(out, c);
	count_fprobe_regs(out);
	return (int)out->n;
}

/* ---- words ----------------------------------------------------------------- */

const char *fgt_holder_kind_name(enum fgt_holder_kind k)
{
	switch (k) {
	case FGT_HOLDER_TRACER:		return "tracer";
	case FGT_HOLDER_LATENCY:	return "latency_tracer";
	case FGT_HOLDER_PROFILER:	return "profiler";
	case FGT_HOLDER_FPROBE:		return "fprobe";
	case FGT_HOLDER_BPF_LINK:	return "bpf_link";
	}
	return "unknown";
}

static bool check_instance(const char *name)
{
	return !strncmp(name, "fgraphtop-check-", 16);
}

/* perf ftrace (perf 6.x/7.x) traces in an instance of its own, removed at its exit */
static bool perf_instance(const char *name)
{
	return !strncmp(name, "perf-ftrace-", 12);
}

const char *fgt_holder_where(const struct fgt_holder *h, char *buf, size_t len)
{
	switch (h->kind) {
	case FGT_HOLDER_BPF_LINK:
		snprintf(buf, len, "link %u", h->link_id);
		break;
	case FGT_HOLDER_FPROBE:
		snprintf(buf, len, "dynamic_events");
		break;
	default:
		if (h->instance[0])
			snprintf(buf, len, "instance %s", h->instance);
		else
			snprintf(buf, len, "top level");
	}
	return buf;
}

const char *fgt_holder_text(const struct fgt_holder *h, char *buf, size_t len)
{
	char where[96];

	switch (h->kind) {
	case FGT_HOLDER_TRACER:
		if (h->instance[0])
			snprintf(buf, len, "function_graph in tracefs instance %s%s", h->instance,
				 h->hold ? " (fgraphtop hold's: holds fgraph on one function nothing "
				 "calls)" :
				 check_instance(h->instance) ? " (fgraphtop check --trigger's)" :
				 perf_instance(h->instance) ? " (perf ftrace's)" : "");
		else
			snprintf(buf, len, "function_graph, the top-level tracer");
		break;
	case FGT_HOLDER_LATENCY:
		snprintf(buf, len, "%s tracer drawing the call graph (display-graph), %s", h->name,
			 fgt_holder_where(h, where, sizeof(where)));
		break;
	case FGT_HOLDER_PROFILER:
		snprintf(buf, len, "the function profiler");
		break;
	case FGT_HOLDER_FPROBE:
		snprintf(buf, len, "fprobe event %s on %s%s", h->name, h->detail,
			 h->maybe ? " (may hold fgraph: not enabled, or this kernel does not say)" : "");
		break;
	case FGT_HOLDER_BPF_LINK:
		snprintf(buf, len, "BPF %s link %u (prog %u, %u function%s%s)", h->name, h->link_id,
			 h->prog_id, h->nr_funcs, h->nr_funcs == 1 ? "" : "s",
			 h->hold ? "; fgraphtop hold's, pinned at " FGT_HOLD_PIN :
			 h->maybe ? "; entry only: holds fgraph only if it is a kprobe.session link" : "");
		break;
	}
	return buf;
}

const char *fgt_holder_undo(const struct fgt_holder *h, const char *tfs, char *buf, size_t len)
{
	char dir[PATH_MAX];

	if (!tfs || !tfs[0])
		tfs = "/sys/kernel/tracing";
	if (h->instance[0])
		snprintf(dir, sizeof(dir), "%s/instances/%s", tfs, h->instance);
	else
		snprintf(dir, sizeof(dir), "%s", tfs);
	if (h->hold) {
		/* its own undo: it leaves nothing behind, and it knows what */
		snprintf(buf, len, "fgraphtop hold --release (%s)", h->kind == FGT_HOLDER_BPF_LINK ?
			 "unpins " FGT_HOLD_PIN : "removes the instance");
		return buf;
	}
	switch (h->kind) {
	case FGT_HOLDER_TRACER:
		snprintf(buf, len, "echo nop > %s/current_tracer", dir);
		break;
	case FGT_HOLDER_LATENCY:
		snprintf(buf, len, "echo 0 > %s/options/display-graph", dir);
		break;
	case FGT_HOLDER_PROFILER:
		snprintf(buf, len, "echo 0 > %s/function_profile_enabled", dir);
		break;
	case FGT_HOLDER_FPROBE:
		snprintf(buf, len, "echo 0 > %s/events/%s/enable; echo '-:%s' >> %s/dynamic_events",
			 tfs, h->name, h->name, tfs);
		break;
	case FGT_HOLDER_BPF_LINK:
		if (h->nr_owners)
			snprintf(buf, len, "stop pid %d (%s)%s: the link goes with its last fd",
				 h->pid, h->comm[0] ? h->comm : "?",
				 h->nr_owners > 1 ? " and the other processes holding it" : "");
		else
			snprintf(buf, len, "no process holds it: remove its pin in bpffs");
		break;
	}
	return buf;
}

bool fgt_holders_same(const struct fgt_holders *a, const struct fgt_holders *b)
{
	if (a->n != b->n || a->kept != b->kept || a->regs != b->regs ||
	    a->regs_maybe != b->regs_maybe || strcmp(a->tracefs, b->tracefs))
		return false;
	for (unsigned int i = 0; i < a->kept; i++) {
		const struct fgt_holder *x = &a->h[i], *y = &b->h[i];

		if (x->kind != y->kind || x->maybe != y->maybe || x->link_id != y->link_id ||
		    x->pid != y->pid || x->nr_owners != y->nr_owners || x->hold != y->hold ||
		    strcmp(x->name, y->name) || strcmp(x->instance, y->instance) ||
		    strcmp(x->detail, y->detail))
			return false;
	}
	return true;
}

/* ---- the watcher ------------------------------------------------------------ */

/*
 * The thread sleeps in poll() on a pipe, with a relative timeout; a kick or
 * the end of a busy spell writes a byte to it. The mutex guards the shared
 * fields only, never a wait: in the lab, a pthread_cond_timedwait() loop
 * that returned at once kept the mutex to itself and starved the main
 * thread (all three fgraphtops of a run hung on it).
 */
struct fgt_holders_watch {
	pthread_t thr;
	pthread_mutex_t mu;
	int wake[2];			/* the pipe: [0] polled by the thread */
	struct fgt_holders_cfg cfg;
	unsigned int interval_ms;
	bool stop, busy, have;
	struct fgt_holders h, tmp;
	uint64_t ns;
	unsigned int gen;
};

static void wake(struct fgt_holders_watch *w)
{
	char c = 1;

	/* a full pipe already holds a wake-up: nothing lost */
	if (write(w->wake[1], &c, 1) < 0 && errno != EAGAIN)
		return;
}

/* Sleep up to ms, or until woken; the wake-ups waiting are consumed. */
static void nap(struct fgt_holders_watch *w, unsigned int ms)
{
	uint64_t until = fgt_mono_ns() + (uint64_t)ms * 1000000ull, now;
	struct pollfd p = { .fd = w->wake[0], .events = POLLIN };
	char buf[64];

	while ((now = fgt_mono_ns()) < until) {
		int r = poll(&p, 1, (int)((until - now + 999999) / 1000000));

		if (r > 0) {
			while (read(w->wake[0], buf, sizeof(buf)) > 0)
				;
			return;
		}
		if (r < 0 && errno != EINTR)
			return;
	}
}

static void *watch_main(void *arg)
{
	struct fgt_holders_watch *w = arg;

	for (;;) {
		bool stop, busy;
		uint64_t t;

		pthread_mutex_lock(&w->mu);
		stop = w->stop;
		busy = w->busy;
		pthread_mutex_unlock(&w->mu);
		if (stop)
			break;
		if (!busy) {
			/* stamped with its start: a change seen after that makes it stale
			 * (a link can go while we list it: our own fd may be its last) */
			t = fgt_mono_ns();
			fgt_holders_read(&w->cfg, &w->tmp);
			pthread_mutex_lock(&w->mu);
			if (!w->have || !fgt_holders_same(&w->h, &w->tmp))
				w->gen++;
			w->h = w->tmp;
			w->ns = t;
			w->have = true;
			pthread_mutex_unlock(&w->mu);
		}
		/* busy: no read however woken; the end of it wakes us again */
		nap(w, w->interval_ms);
	}
	return NULL;
}

struct fgt_holders_watch *fgt_holders_watch_start(const struct fgt_holders_cfg *c,
						  unsigned int interval_ms)
{
	struct fgt_holders_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->cfg = *c;
	w->interval_ms = interval_ms ? interval_ms : 1000;
	if (pipe2(w->wake, O_CLOEXEC | O_NONBLOCK)) {
		free(w);
		return NULL;
	}
	pthread_mutex_init(&w->mu, NULL);
	if (pthread_create(&w->thr, NULL, watch_main, w)) {
		close(w->wake[0]);
		close(w->wake[1]);
		pthread_mutex_destroy(&w->mu);
		free(w);
		return NULL;
	}
	return w;
}

void fgt_holders_watch_busy(struct fgt_holders_watch *w, bool busy)
{
	bool ended;

	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	ended = w->busy && !busy;
	w->busy = busy;
	pthread_mutex_unlock(&w->mu);
	/* an activation just ended: read again now, not a second later */
	if (ended)
		wake(w);
}

void fgt_holders_watch_kick(struct fgt_holders_watch *w)
{
	if (w)
		wake(w);	/* a read under way is followed by another */
}

bool fgt_holders_watch_get(struct fgt_holders_watch *w, struct fgt_holders *out,
			   uint64_t *ns, unsigned int *gen)
{
	bool have;

	if (!w)
		return false;
	pthread_mutex_lock(&w->mu);
	have = w->have;
	if (have && out)
		*out = w->h;
	if (ns)
		*ns = w->ns;
	if (gen)
		*gen = w->gen;
	pthread_mutex_unlock(&w->mu);
	return have;
}

bool fgt_holders_watch_wait(struct fgt_holders_watch *w, unsigned int ms)
{
	uint64_t until = fgt_mono_ns() + (uint64_t)ms * 1000000ull;

	while (w && !fgt_holders_watch_get(w, NULL, NULL, NULL)) {
		if (fgt_mono_ns() >= until)
			return false;
		usleep(10000);
	}
	return w != NULL;
}

void fgt_holders_watch_stop(struct fgt_holders_watch *w)
{
	struct timespec until;

	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_mutex_unlock(&w->mu);
	wake(w);
	/* pthread_timedjoin_np() takes an absolute CLOCK_REALTIME deadline */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 200000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	/* stuck behind trace_types_lock: leave it (and w) to the process's exit */
	if (pthread_timedjoin_np(w->thr, NULL, &until)) {
		pthread_detach(w->thr);
		return;
	}
	close(w->wake[0]);
	close(w->wake[1]);
	pthread_mutex_destroy(&w->mu);
	free(w);
}
