// SPDX-License-Identifier: GPL-2.0
/* The host side of joining a 0->1 step under way (join.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>
#include "common/clock.h"
#include "common/log.h"
#include "static/ksyms_kcore.h"
#include "static/kread_bpf.h"
#include "static/static_kernel.h"
#include "watch/exposure.h"
#include "watch/join.h"

/* The step's holder; fgraph's own code is inlined into it on stock kernels. */
static const char holder[] = "register_ftrace_graph";
/* Processes with more threads than this have only their main thread's stack
 * read: the trigger is a tool's thread, not one of 30,000 parked ones. */
#define JOIN_MAX_TASKS	256
#define JOIN_STACK_MAX	8192
#define JOIN_FRAMES	48

struct fgt_joiner {
	struct fgt_exposure *e;
	uint64_t graph_active_addr;
	uint64_t next_ns;
};

/* One symbol's address from /proc/kallsyms, read as a stream (check's quick
 * answer has no table of them); 0 when absent or hidden. */
static uint64_t kallsyms_addr(const char *name)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], sym[256], type;
	unsigned long long a;
	uint64_t found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && !strcmp(sym, name))
			found = a;
	fclose(f);
	return found;
}

/* The kernel's own kallsyms tables through kcore first (a few reads), the
 * whole /proc/kallsyms only where kcore cannot. */
static uint64_t symbol_addr(const char *name)
{
	const char *names[] = { name };
	struct fgt_ksyms *ks = fgt_ksyms_kcore(NULL, names, 1);
	const struct fgt_ksym *k = ks ? fgt_ksyms_by_name(ks, name) : NULL;
	uint64_t a = k ? k->addr : 0;

	fgt_ksyms_free(ks);
	return a ? a : kallsyms_addr(name);
}

struct fgt_joiner *fgt_joiner_open(const struct fgt_ksyms *ks, char *msg, size_t len)
{
	struct fgt_joiner *jr = calloc(1, sizeof(*jr));
	const struct fgt_ksym *k;

	if (!jr) {
		snprintf(msg, len, "out of memory");
		return NULL;
	}
	k = ks ? fgt_ksyms_by_name(ks, "ftrace_graph_active") : NULL;
	jr->graph_active_addr = k ? k->addr : ks ? 0 : symbol_addr("ftrace_graph_active");
	/* the count's own iterator: opened only when a step may be under way */
	return jr;
}

void fgt_joiner_close(struct fgt_joiner *jr)
{
	if (!jr)
		return;
	fgt_exposure_close(jr->e);
	free(jr);
}

int fgt_joiner_graph_active(struct fgt_joiner *jr)
{
	const struct fgt_static_opts o = { .bpf_read = fgt_kread_bpf };
	char msg[256];
	int v = -1;

	if (!jr->graph_active_addr)
		return -1;
	if (fgt_static_read_running(&o, jr->graph_active_addr, &v, sizeof(v), msg, sizeof(msg))) {
		log_dbg("fgraphtop: join: ftrace_graph_active: %s\n", msg);
		return -1;
	}
	return v < 0 ? -1 : v;
}

/* A stack file's function names, innermost first ("[<0>] name+0x1/0x2"). */
static int stack_names(char *buf, char **names, int max)
{
	int n = 0;

	for (char *line = strtok(buf, "\n"); line && n < max; line = strtok(NULL, "\n")) {
		char *p = strchr(line, ']');

		if (!p)
			continue;
		while (*++p == ' ')
			;
		p[strcspn(p, "+ \t")] = '\0';
		if (*p)
			names[n++] = p;
	}
	return n;
}

/* 1: inside the holder (t filled), 0: read and outside, -1: unreadable or empty. */
static int task_stack(int pid, int tid, struct fgt_join_trigger *t)
{
	char path[64], buf[JOIN_STACK_MAX], *names[JOIN_FRAMES];
	ssize_t got;
	int fd, n, at = -1;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? 0 : -1;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return -1;	/* running on another CPU: the unwinder gives nothing */
	buf[got] = '\0';
	n = stack_names(buf, names, JOIN_FRAMES);
	if (!n)
		return -1;
	for (int i = 0; i < n && at < 0; i++)
		if (!strcmp(names[i], holder))
			at = i;
	if (at < 0)
		return 0;
	if (!t)
		return 1;
	memset(t, 0, sizeof(*t));
	t->known = true;
	t->pid = (uint32_t)pid;
	t->tid = (uint32_t)tid;
	fgt_join_syscall_of((const char *const *)names, n, t->syscall, sizeof(t->syscall));
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		got = read(fd, t->comm, sizeof(t->comm) - 1);
		close(fd);
		t->comm[got > 0 ? got : 0] = '\0';
		t->comm[strcspn(t->comm, "\n")] = '\0';
	}
	/* the way in: the call, and who called the holder */
	snprintf(t->via, sizeof(t->via), "%s%s%s%s", t->syscall[0] ? t->syscall : "",
		 t->syscall[0] ? "()" : "", at + 1 < n ? " -> " : "", at + 1 < n ? names[at + 1] : "");
	return 1;
}

int fgt_join_task_inside(int pid, int tid)
{
	return task_stack(pid, tid, NULL);
}

static bool numeric(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* The tasks of one process worth reading; true when one is inside. */
static bool process_in(int pid, struct fgt_join_trigger *t)
{
	char path[64];
	struct dirent *d;
	int tids[JOIN_MAX_TASKS], n = 0;
	bool many = false;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return false;
	while ((d = readdir(dir))) {
		if (!numeric(d->d_name))
			continue;
		if (n == JOIN_MAX_TASKS) {
			many = true;
			break;
		}
		tids[n++] = atoi(d->d_name);
	}
	closedir(dir);
	if (many)
		return task_stack(pid, pid, t) == 1;
	for (int i = 0; i < n; i++)
		if (task_stack(pid, tids[i], t) == 1)
			return true;
	return false;
}

/* Every process's candidates; true (and t) when a task is inside the holder. */
static bool find_trigger(struct fgt_join_trigger *t)
{
	DIR *dir = opendir("/proc");
	struct dirent *d;
	int self = getpid();
	bool found = false;

	if (!dir)
		return false;
	while (!found && (d = readdir(dir)))
		if (numeric(d->d_name) && atoi(d->d_name) != self)
			found = process_in(atoi(d->d_name), t);
	closedir(dir);
	return found;
}

/*
 * Where no stack names it (a task running on another CPU: the unwinder
 * refuses it), the walker is the task running in the kernel only: state R,
 * its system time growing, its user time not. Candidates are taken at the
 * first look and read again at the second.
 */
#define JOIN_CANDS	64

struct cand {
	int pid, tid;
	unsigned long long utime, stime;
	char comm[FGT_COMM_LEN];
};

/* State, utime and stime of a task (/proc/PID/task/TID/stat); false if gone. */
static bool task_times(struct cand *c, char *state)
{
	char path[64], buf[1024], *p, *rp;
	ssize_t got;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", c->pid, c->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return false;
	buf[got] = '\0';
	/* comm may hold spaces and parentheses: the last ')' ends it */
	p = strchr(buf, '(');
	rp = strrchr(buf, ')');
	if (!p || !rp || rp < p)
		return false;
	snprintf(c->comm, sizeof(c->comm), "%.*s", (int)(rp - p - 1), p + 1);
	return sscanf(rp + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", state,
		      &c->utime, &c->stime) == 3;
}

static int running_cands(struct cand *cs, int max)
{
	DIR *dir = opendir("/proc"), *td;
	struct dirent *d, *t;
	int self = getpid(), n = 0;
	char path[64], st;

	if (!dir)
		return 0;
	while (n < max && (d = readdir(dir))) {
		int pid, seen = 0;

		if (!numeric(d->d_name) || (pid = atoi(d->d_name)) == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		td = opendir(path);
		if (!td)
			continue;
		/* a process of many threads: its main one only (as find_trigger()) */
		while (n < max && seen < JOIN_MAX_TASKS && (t = readdir(td))) {
			struct cand c = { .pid = pid };

			if (!numeric(t->d_name))
				continue;
			seen++;
			c.tid = atoi(t->d_name);
			if (task_times(&c, &st) && st == 'R')
				cs[n++] = c;
		}
		closedir(td);
	}
	closedir(dir);
	return n;
}

/* The candidate whose time went to the kernel only, most of it. */
static bool pick_running(const struct cand *cs, int n, struct fgt_join_trigger *t)
{
	unsigned long long best = 0;
	int at = -1;

	for (int i = 0; i < n; i++) {
		struct cand c = cs[i];
		char st;

		if (!task_times(&c, &st) || c.utime != cs[i].utime || c.stime <= cs[i].stime)
			continue;
		if (c.stime - cs[i].stime > best) {
			best = c.stime - cs[i].stime;
			at = i;
		}
	}
	if (at < 0)
		return false;
	memset(t, 0, sizeof(*t));
	t->known = true;
	t->pid = (uint32_t)cs[at].pid;
	t->tid = (uint32_t)cs[at].tid;
	memcpy(t->comm, cs[at].comm, sizeof(t->comm));
	return true;
}

static bool count(struct fgt_joiner *jr, struct fgt_join_look *l)
{
	struct fgt_exp_walk w;
	char msg[256];
	uint64_t t0;

	if (!jr->e) {
		jr->e = fgt_exposure_open(msg, sizeof(msg));
		if (!jr->e) {
			log_info("fgraphtop: join: no count of the threads lacking a stack: %s", msg);
			return false;
		}
		/* the walk under way owes stacks to this first count's lacking
		 * threads: later counts follow those (struct fgt_exp_owed) */
		fgt_exposure_owe(jr->e);
	}
	t0 = fgt_mono_ns();
	if (fgt_exposure_read(jr->e, &w, msg, sizeof(msg))) {
		log_info("fgraphtop: join: counting the threads lacking a stack: %s", msg);
		return false;
	}
	l->ns = fgt_mono_ns();
	l->scan_ns = l->ns - t0;
	l->counted = true;
	l->threads = w.threads;
	l->lacking = w.owed ? w.owed_lacking : w.lacking;
	l->held_ahead = w.held_ahead;
	return true;
}

/* A task's system time in ns (its stat's stime, in clock ticks), 0 unknown. */
static uint64_t sys_ns(uint32_t pid, uint32_t tid)
{
	struct cand c = { .pid = (int)pid, .tid = (int)tid };
	long hz = sysconf(_SC_CLK_TCK);
	char st;

	if (hz <= 0 || !task_times(&c, &st))
		return 0;
	return c.stime * (1000000000ull / (uint64_t)hz);
}

void fgt_joiner_look(struct fgt_joiner *jr, const struct fgt_join_trigger *t,
		     struct fgt_join_look *l)
{
	uint64_t wait;

	memset(l, 0, sizeof(*l));
	l->graph_active = fgt_joiner_graph_active(jr);
	if (t && t->known) {
		int in = task_stack((int)t->pid, (int)t->tid, NULL);

		l->trigger_in = in == 1;
		l->trigger_left = in == 0;
		l->trig_sys_ns = sys_ns(t->pid, t->tid);
	}
	if (!count(jr, l))
		l->ns = fgt_mono_ns();
	wait = FGT_JOIN_DUTY * l->scan_ns;
	jr->next_ns = l->ns + (wait > FGT_JOIN_LOOK_MS * 1000000ull ? wait :
			       FGT_JOIN_LOOK_MS * 1000000ull);
}

bool fgt_joiner_due(const struct fgt_joiner *jr, uint64_t now_ns)
{
	return now_ns >= jr->next_ns;
}

bool fgt_joiner_detect(struct fgt_joiner *jr, enum fgt_verdict code, struct fgt_joined *j)
{
	struct fgt_join_look a = {}, b = {};
	struct fgt_join_trigger t = {};
	struct timespec gap = { 0, 100 * 1000000L };
	struct cand cands[JOIN_CANDS];
	int ncands = 0;

	memset(j, 0, sizeof(*j));
	a.graph_active = fgt_joiner_graph_active(jr);
	if (a.graph_active == 0)
		return false;
	/* a running walker's stack reads empty on another CPU: a few tries */
	for (int i = 0; i < 3 && !t.known; i++) {
		a.trigger_in = find_trigger(&t);
		if (!t.known && i < 2)
			nanosleep(&(struct timespec){ 0, 20 * 1000000L }, NULL);
	}
	if (!a.trigger_in && a.graph_active < 0)
		return false;	/* neither signal can be read: nothing to join */
	if (t.known)
		a.trig_sys_ns = sys_ns(t.pid, t.tid);
	count(jr, &a);
	if (!a.counted && !a.trigger_in)
		return false;
	if (!t.known)
		ncands = running_cands(cands, JOIN_CANDS);
	nanosleep(&gap, NULL);
	fgt_joiner_look(jr, &t, &b);
	/* threads lacking a stack with fgraph on, and the count still: a walk
	 * whose next batch has not come yet (a loaded host: lab-stock's 30,000
	 * threads took 83 s, and 100 ms showed no fall), or a fixed kernel's
	 * failed inline allocations. Looked at again, 0.3 s then 0.6 s later */
	for (int i = 0; i < 2 && !b.trigger_in && a.counted && b.counted && a.lacking &&
	     b.lacking == a.lacking && b.graph_active != 0; i++) {
		log_dbg("fgraphtop: join: %llu threads lacking a stack, the count still: "
			"looking again\n", (unsigned long long)b.lacking);
		nanosleep(&(struct timespec){ 0, (i + 1) * 300 * 1000000L }, NULL);
		fgt_joiner_look(jr, &t, &b);
	}
	b.trigger_in = b.trigger_in || a.trigger_in;
	/* named by its times only: in the kernel, not seen inside the holder */
	if (!t.known && b.counted && a.counted && b.lacking < a.lacking &&
	    pick_running(cands, ncands, &t))
		t.by_time = true;
	if (fgt_join_detect(&a, &b) == FGT_JOIN_NO)
		return false;
	fgt_join_begin(j, &a, &b, &t, code);
	log_info("fgraphtop: join: a 0->1 step is under way (%s): %llu threads lacking a stack",
		 fgt_join_why_name(j->why), (unsigned long long)j->seen.lacking);
	return true;
}
