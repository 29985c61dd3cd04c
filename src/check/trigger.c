// SPDX-License-Identifier: GPL-2.0
/*
 * Causing a 0->1 fgraph activation and undoing it; see trigger.h for the
 * methods and the crash-safety rules. Every change is recorded in the state
 * file before it is made.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* close_range */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include "common/clause.h"
#include "host/host_state.h"
#include "host/tracefs.h"
#include "common/log.h"
#include "check/trigger.h"

/*
 * Cold functions: traceable (syscall entry points are in
 * available_filter_functions on every kernel looked at) and not called while a
 * check runs. The first one the kernel accepts is used.
 */
static const char *const default_funcs[] = {
	"__x64_sys_reboot", "__arm64_sys_reboot", "__x64_sys_kexec_load",
	"__x64_sys_swapoff", "sys_reboot", NULL,
};

const char *fgt_trig_method_name(enum fgt_trig_method m)
{
	switch (m) {
	case FGT_TRIG_INSTANCE:		return "instance";
	case FGT_TRIG_KRETMULTI:	return "kretprobe.multi";
	case FGT_TRIG_TOPLEVEL:		return "toplevel";
	default:			return "none";
	}
}

/* Write s to dir/name (truncating, never creating). 0 or -errno. */
static int write_file(const char *dir, const char *name, const char *s)
{
	size_t n = strlen(s);
	ssize_t w;
	int dfd, fd, ret = 0;

	/* root writes: relative to the directory, opened as one, and never
	 * through a symlink in the file's place (tracefs's control files exist,
	 * so no O_EXCL) */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	fd = openat(dfd, name, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	ret = fd < 0 ? -errno : 0;
	close(dfd);
	if (fd < 0)
		return ret;
	if (n) {
		w = write(fd, s, n);
		if (w < 0)
			ret = -errno;
		else if ((size_t)w != n)
			ret = -EIO;
	}
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static bool filter_is_empty(const char *content)
{
	/* an empty filter reads "#### all functions enabled ####" */
	return !*content || !strncmp(content, "#### all functions enabled ####", 31);
}

const char *const *fgt_trig_funcs(const struct fgt_trig_cfg *cfg)
{
	return cfg->funcs ? cfg->funcs : default_funcs;
}

/* ---- state file ------------------------------------------------------- */

static int write_state(struct fgt_trigger *t)
{
	struct fgt_state st = { .owner = t->self };
	char text[1024];

	snprintf(st.instance, sizeof(st.instance), "%s", t->instance);
	if (t->toplevel_set)
		snprintf(st.toplevel, sizeof(st.toplevel), "%s", t->func);
	st.link = t->link_fd >= 0;
	fgt_state_render(&st, text, sizeof(text));
	return fgt_state_write(t->dir_fd, t->state_name, text);
}

/* Undo an instance: tracer off (unregisters its fgraph ops), then rmdir.
 * rmdir fails with EBUSY while a file in it is open: a few retries. */
static int remove_instance(const char *tracefs, const char *name)
{
	char dir[PATH_MAX];
	int i;

	snprintf(dir, sizeof(dir), "%s/instances/%s", tracefs, name);
	if (access(dir, F_OK))
		return errno == ENOENT ? 0 : -errno;
	write_file(dir, "current_tracer", "nop");
	for (i = 0; i < 20; i++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		nanosleep(&ts, NULL);
	}
	return -EBUSY;
}

/* Undo the top-level change, only if it is still ours: function_graph (or
 * nop, if the run died between its two writes) with our function as the filter. */
static int reset_toplevel(const char *tracefs, const char *func, bool *left_alone)
{
	char cur[64], filt[256];
	int ret;

	*left_alone = false;
	if (fgt_tracefs_read(tracefs, "current_tracer", cur, sizeof(cur)) ||
	    fgt_tracefs_read(tracefs, "set_ftrace_filter", filt, sizeof(filt)))
		return -errno;
	if (!strcmp(cur, "nop") && filter_is_empty(filt))
		return 0;			/* nothing of ours left */
	if (strcmp(filt, func) || (strcmp(cur, "function_graph") && strcmp(cur, "nop"))) {
		*left_alone = true;		/* someone else's now */
		return 0;
	}
	ret = strcmp(cur, "nop") ? write_file(tracefs, "current_tracer", "nop") : 0;
	if (!ret)
		ret = write_file(tracefs, "set_ftrace_filter", "");
	return ret;
}

/* One dead run's state: undo what it lists (on our tracefs, never a path
 * from the file). Returns items undone, -1 if some remain. */
static int undo_state(const struct fgt_trigger *t, const struct fgt_state *st, char *out,
		      size_t len)
{
	long pid = st->owner.pid;
	int n = 0, err = 0;

	if (st->instance[0] && t->tracefs[0]) {
		char idir[PATH_MAX];
		bool there;
		int r;

		/* recorded before its mkdir: the killed run may never have made it */
		snprintf(idir, sizeof(idir), "%s/instances/%s", t->tracefs, st->instance);
		there = access(idir, F_OK) == 0;
		r = remove_instance(t->tracefs, st->instance);
		if (r) {
			fgt_clause_add(out, len, "could not remove instance %s left by pid %ld: %s",
				       st->instance, pid, strerror(-r));
			err = 1;
		} else if (there) {
			fgt_clause_add(out, len, "removed tracefs instance %s left by killed "
				       "check pid %ld", st->instance, pid);
			n++;
		}
	}
	if (st->toplevel[0] && t->tracefs[0]) {
		bool left_alone;
		int r = reset_toplevel(t->tracefs, st->toplevel, &left_alone);

		if (r) {
			fgt_clause_add(out, len, "could not reset the top-level tracer left by "
				       "pid %ld: %s", pid, strerror(-r));
			err = 1;
		} else if (left_alone) {
			fgt_clause_add(out, len, "top-level tracer changed since killed check pid "
				       "%ld: left alone", pid);
		} else {
			fgt_clause_add(out, len, "reset the top-level tracer left by killed check "
				       "pid %ld", pid);
			n++;
		}
	}
	return err ? -1 : n;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

/* One file of the state directory: a dead run's state is undone and
 * removed, its unfinished temporary file removed; a live run's left alone. */
static int cleanup_file(const struct fgt_trigger *t, const char *name, char *out, size_t len)
{
	char own_tmp[96], text[2048];
	struct fgt_state st;
	int alive, r;

	snprintf(own_tmp, sizeof(own_tmp), "%s.tmp", t->state_name);
	if (strncmp(name, "check-", 6) || !strcmp(name, t->state_name) || !strcmp(name, own_tmp))
		return 0;
	if (has_suffix(name, ".state.tmp")) {
		/* the lock is held: no other run of this mount namespace writes one */
		unlinkat(t->dir_fd, name, 0);
		return 0;
	}
	if (!has_suffix(name, ".state"))
		return 0;
	if (fgt_state_read(t->dir_fd, name, text, sizeof(text)) ||
	    fgt_state_parse(text, &st, fgt_trig_funcs(&t->cfg))) {
		fgt_clause_add(out, len, "ignored %s: not a state file of fgraphtop's", name);
		return 0;
	}
	alive = fgt_owner_alive(&st.owner, t->cfg.proc);
	if (alive) {
		fgt_clause_add(out, len, "left %s alone: check pid %ld %s", name, st.owner.pid,
			       alive > 0 ? "is still running" : "may still run (another PID "
			       "namespace, or it cannot be told)");
		return 0;
	}
	r = undo_state(t, &st, out, len);
	if (r >= 0)
		unlinkat(t->dir_fd, name, 0);
	return r > 0 ? r : 0;
}

/* Instances of runs killed before their state file said so (cannot happen
 * by construction, but an instance of ours must never outlive its run), and
 * of runs whose /run is another's (another mount namespace). */
static int cleanup_instances(const struct fgt_trigger *t, char *out, size_t len)
{
	char p[PATH_MAX];
	struct dirent *de;
	int n = 0, r;
	DIR *d;

	snprintf(p, sizeof(p), "%s/instances", t->tracefs);
	d = opendir(p);
	while (d && (de = readdir(d))) {
		struct fgt_owner o;

		if (fgt_instance_owner(de->d_name, &o) || !strcmp(de->d_name, t->instance))
			continue;
		if (fgt_owner_alive(&o, t->cfg.proc))
			continue;	/* a live run's, or one we cannot tell: fgraph users */
		r = remove_instance(t->tracefs, de->d_name);
		if (r)
			fgt_clause_add(out, len, "could not remove stray instance %s: %s",
				       de->d_name, strerror(-r));
		else {
			fgt_clause_add(out, len, "removed stray tracefs instance %s", de->d_name);
			n++;
		}
	}
	if (d)
		closedir(d);
	return n;
}

static int cleanup_stale(const struct fgt_trigger *t, char *out, size_t len)
{
	struct dirent *de;
	int n = 0, fd = dup(t->dir_fd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d && fd >= 0)
		close(fd);
	while (d && (de = readdir(d)))
		n += cleanup_file(t, de->d_name, out, len);
	if (d)
		closedir(d);
	if (t->tracefs[0])
		n += cleanup_instances(t, out, len);
	return n;
}

/* ---- lock --------------------------------------------------------------- */

/*
 * A run SIGKILLed inside mkdir_instance() leaves its helper child holding the
 * lock (the child shares the lock's open file) until the mkdir, and the
 * helper's own rmdir, end: seconds under TCG on Debian's kernels, whose
 * instances get a directory per trace event. The next run waits for it, for
 * at most this long, rather than answer "another check is running" for a
 * check that is dead (seen: lab kill round 10 on Debian's 6.1, 1767 ms in).
 */
#define LOCK_HELPER_WAIT_MS	30000

/* The lock's holder as it wrote itself in: "PID PIDNS START". */
static void lock_owner(int fd, struct fgt_owner *o, char *pid, size_t len)
{
	char buf[96] = "";

	memset(o, 0, sizeof(*o));
	(void)(pread(fd, buf, sizeof(buf) - 1, 0) > 0);
	if (sscanf(buf, "%ld %llu %llu", &o->pid, &o->pidns, &o->start) < 1)
		o->pid = 0;
	snprintf(pid, len, "%.*s", (int)strcspn(buf, " \n"), buf[0] ? buf : "?");
}

/* EWOULDBLOCK from a dead holder: its instance helper; wait for it. */
static int wait_dead_holder(struct fgt_trigger *t, const struct fgt_owner *o)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i;

	if (o->pid <= 0 || fgt_owner_alive(o, t->cfg.proc) != 0)
		return EWOULDBLOCK;
	log_info("check pid %ld died while creating its tracefs instance: waiting for its "
		 "helper, at most %d s", o->pid, LOCK_HELPER_WAIT_MS / 1000);
	for (i = 0; i < LOCK_HELPER_WAIT_MS / 10; i++) {
		if (!flock(t->lock_fd, LOCK_EX | LOCK_NB)) {
			t->helper_pid = o->pid;
			t->helper_ms = i * 10;
			return 0;
		}
		if (errno != EWOULDBLOCK)
			return errno;
		nanosleep(&ts, NULL);
	}
	return EWOULDBLOCK;
}

static int take_lock(struct fgt_trigger *t, char *msg, size_t len)
{
	char pid[32], line[96];	/* line: three 64-bit numbers, as lock_owner() reads them */
	struct fgt_owner o;
	struct stat st;
	int e;

	t->dir_fd = fgt_state_dir_open(t->state_dir, msg, len);
	if (t->dir_fd < 0)
		return t->dir_fd;
	t->lock_fd = openat(t->dir_fd, "check.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
			    0600);
	if (t->lock_fd < 0 || fstat(t->lock_fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid()) {
		e = t->lock_fd < 0 ? errno : EPERM;
		snprintf(msg, len, "cannot open %s/check.lock: %s", t->state_dir, strerror(e));
		if (t->lock_fd >= 0)
			close(t->lock_fd);
		t->lock_fd = -1;
		return -e;
	}
	e = flock(t->lock_fd, LOCK_EX | LOCK_NB) ? errno : 0;
	/*
	 * Kernels built without CONFIG_FILE_LOCKING (the lab's minimal ones)
	 * have no flock(): run unlocked rather than not at all; the state
	 * files and their owners still keep runs apart.
	 */
	if (e == ENOSYS) {
		log_info("no file locking in this kernel: running unlocked");
		e = 0;
	}
	if (e == EWOULDBLOCK) {
		lock_owner(t->lock_fd, &o, pid, sizeof(pid));
		e = wait_dead_holder(t, &o);
	}
	if (e) {
		if (e == EWOULDBLOCK)
			snprintf(msg, len, "another fgraphtop check --trigger is running (pid %s): "
				 "one at a time", pid);
		else
			snprintf(msg, len, "cannot lock %s/check.lock: %s", t->state_dir, strerror(e));
		close(t->lock_fd);
		t->lock_fd = -1;
		return e == EWOULDBLOCK ? -EBUSY : -e;
	}
	snprintf(line, sizeof(line), "%ld %llu %llu\n", t->self.pid, t->self.pidns, t->self.start);
	if (ftruncate(t->lock_fd, 0) == 0)
		(void)(pwrite(t->lock_fd, line, strlen(line), 0) > 0);
	return 0;
}

int fgt_trig_prepare(struct fgt_trigger *t, const struct fgt_trig_cfg *cfg,
		     char *cleaned, size_t clen, char *msg, size_t len)
{
	const char *tfs;
	int ret;

	memset(t, 0, sizeof(*t));
	t->cfg = *cfg;
	t->dir_fd = t->lock_fd = t->prog_fd = t->link_fd = -1;
	if (clen)
		cleaned[0] = '\0';
	tfs = cfg->tracefs ? cfg->tracefs : fgt_tracefs_find();
	snprintf(t->tracefs, sizeof(t->tracefs), "%s", tfs ? tfs : "");
	snprintf(t->state_dir, sizeof(t->state_dir), "%s", cfg->state_dir ? cfg->state_dir :
		 FGT_STATE_DIR);
	snprintf(t->state_name, sizeof(t->state_name), "check-%d.state", (int)getpid());
	ret = fgt_owner_self(&t->self, cfg->proc);
	if (ret) {
		snprintf(msg, len, "cannot tell who this process is (%s/self): %s",
			 cfg->proc ? cfg->proc : "/proc", strerror(-ret));
		return ret;
	}
	ret = take_lock(t, msg, len);
	if (ret)
		return ret;
	if (t->helper_pid)
		fgt_clause_add(cleaned, clen, "waited %u ms for the instance helper of killed check "
			       "pid %ld", t->helper_ms, t->helper_pid);
	cleanup_stale(t, cleaned, clen);
	/* the state file exists before anything changes */
	ret = write_state(t);
	if (ret) {
		snprintf(msg, len, "cannot write %s/%s: %s", t->state_dir, t->state_name,
			 strerror(-ret));
		return ret;
	}
	return 0;
}

/* ---- methods ------------------------------------------------------------ */

/*
 * Write one function to dir's set_ftrace_filter, and read it back: ftrace
 * parses a name written without a newline only when the file is closed, and
 * a close reports no failed match (Debian's 6.1 arm64 took
 * "__x64_sys_reboot", an empty filter, and function_graph then traced every
 * function, and the top level was left on since its filter was not ours).
 * A name the filter does not hold was not accepted: -EINVAL, as a write that
 * failed.
 */
static int write_filter(const char *dir, const char *func)
{
	char got[256];
	int ret = write_file(dir, "set_ftrace_filter", func);

	if (ret)
		return ret;
	ret = fgt_tracefs_read(dir, "set_ftrace_filter", got, sizeof(got));
	if (ret)
		return ret;
	return strcmp(got, func) ? -EINVAL : 0;
}

/* Set dir's set_ftrace_filter to the first cold function the kernel accepts. */
static int set_cold_filter(struct fgt_trigger *t, const char *dir)
{
	const char *const *f = fgt_trig_funcs(&t->cfg);
	int ret = -ENOENT;

	for (; *f; f++) {
		ret = write_filter(dir, *f);
		if (!ret) {
			snprintf(t->func, sizeof(t->func), "%s", *f);
			return 0;
		}
		if (ret != -EINVAL && ret != -ENODEV && ret != -ENOENT)
			return ret;
		if (ret == -ENOENT && access(dir, F_OK) == 0) {
			char p[PATH_MAX + 32];

			snprintf(p, sizeof(p), "%s/set_ftrace_filter", dir);
			if (access(p, F_OK))
				return -ENOENT;	/* no filter file: cannot limit the tracer */
		}
	}
	return ret;
}

/*
 * The mkdir helper keeps the lock (the next run waits for it, see
 * take_lock()) and nothing else: the check's BPF links and maps, inherited
 * open, must die with the check, not outlive it in the helper (the lab's
 * kill test found a dead run's links still up after the next run).
 */
static void keep_only_lock(int lock_fd)
{
	int fd;

	if (lock_fd < 3) {
		if (!close_range(3, ~0U, 0))
			return;
	} else if (!close_range(3, lock_fd - 1, 0) && !close_range(lock_fd + 1, ~0U, 0)) {
		return;
	}
	for (fd = 3; fd < 65536; fd++)	/* no close_range (before 5.9) */
		if (fd != lock_fd)
			close(fd);
}

/*
 * mkdir of a tracefs instance, in a child process. Creating an instance
 * allocates its ring buffers, and that allocation gives up when the caller
 * has a fatal signal pending: a check SIGKILLed inside mkdir() would make the
 * kernel WARN ("failed to allocate ring buffer on CPU n", seen on Debian's
 * 7.2), a panic under panic_on_warn. A SIGKILL sent to the check alone (not to
 * its whole cgroup) spares the child: it finishes the mkdir, and if we died
 * meanwhile it removes the instance itself (the next check may have looked
 * before it existed). Returns 0 or -errno.
 */
static int mkdir_instance(const struct fgt_trigger *t, const char *name)
{
	char dir[PATH_MAX];
	pid_t parent = getpid(), pid;
	int st;

	snprintf(dir, sizeof(dir), "%s/instances/%s", t->tracefs, name);
	pid = fork();
	if (pid < 0)
		return mkdir(dir, 0700) ? -errno : 0;
	if (pid == 0) {
		int e;

		keep_only_lock(t->lock_fd);
		e = mkdir(dir, 0700) ? errno : 0;

		if (!e && getppid() != parent)
			remove_instance(t->tracefs, name);
		_exit(e);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? -WEXITSTATUS(st) : -EIO;
}

static int try_instance(struct fgt_trigger *t, char *msg, size_t len)
{
	char dir[PATH_MAX], buf[1024];
	int ret;

	fgt_instance_name(&t->self, t->instance, sizeof(t->instance));
	snprintf(dir, sizeof(dir), "%s/instances/%s", t->tracefs, t->instance);
	ret = write_state(t);
	if (ret) {
		snprintf(msg, len, "cannot record the instance in %s/%s: %s", t->state_dir,
			 t->state_name, strerror(-ret));
		t->instance[0] = '\0';
		return ret;
	}
	ret = mkdir_instance(t, t->instance);
	if (ret) {
		fgt_clause_add(msg, len, "instance: cannot create %s: %s", dir, strerror(-ret));
		t->instance[0] = '\0';
		write_state(t);
		return ret;
	}
	/* instances list only the tracers they allow (6.1: no function_graph) */
	if (fgt_tracefs_read(dir, "available_tracers", buf, sizeof(buf)) ||
	    !strstr(buf, "function_graph")) {
		fgt_clause_add(msg, len, "instance: this kernel does not allow function_graph in "
		       "tracefs instances");
		return -EOPNOTSUPP;
	}
	write_file(dir, "tracing_on", "0");	/* nothing to record: only the 0->1 step matters */
	ret = set_cold_filter(t, dir);
	if (ret) {
		fgt_clause_add(msg, len, "instance: cannot limit set_ftrace_filter to a cold function: %s",
		       strerror(-ret));
		return ret;
	}
	ret = write_file(dir, "current_tracer", "function_graph");
	if (ret) {
		fgt_clause_add(msg, len, "instance: setting function_graph failed: %s", strerror(-ret));
		return ret;
	}
	t->method = FGT_TRIG_INSTANCE;
	return 0;
}

/* r0 = 0; exit: the program never matters, the link's fprobe does. */
static int load_nop_prog(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_KPROBE_MULTI);

	return bpf_prog_load(BPF_PROG_TYPE_KPROBE, "fgt_check_trig", "GPL", insns, 2, &o);
}

static int try_kretmulti(struct fgt_trigger *t, char *msg, size_t len)
{
	const char *const *f = fgt_trig_funcs(&t->cfg);
	int err = 0;

	if (t->cfg.no_bpf || !t->cfg.fprobe_fgraph) {
		fgt_clause_add(msg, len, "kretprobe.multi: fprobe does not go through fgraph on this "
		       "kernel (before 6.14)");
		return -EOPNOTSUPP;
	}
	t->prog_fd = load_nop_prog();
	if (t->prog_fd < 0) {
		err = -errno;
		fgt_clause_add(msg, len, "kretprobe.multi: cannot load a kprobe_multi program: %s",
		       strerror(errno));
		return err;
	}
	for (; *f; f++) {
		LIBBPF_OPTS(bpf_link_create_opts, lo);

		lo.kprobe_multi.syms = (const char **)f;
		lo.kprobe_multi.cnt = 1;
		lo.kprobe_multi.flags = BPF_F_KPROBE_MULTI_RETURN;
		snprintf(t->func, sizeof(t->func), "%s", *f);
		write_state(t);		/* informational: the link dies with us */
		t->link_fd = bpf_link_create(t->prog_fd, 0, BPF_TRACE_KPROBE_MULTI, &lo);
		if (t->link_fd >= 0) {
			write_state(t);
			t->method = FGT_TRIG_KRETMULTI;
			return 0;
		}
		err = -errno;
	}
	fgt_clause_add(msg, len, "kretprobe.multi: attach failed: %s", strerror(-err));
	return err;
}

static int try_toplevel(struct fgt_trigger *t, char *msg, size_t len)
{
	const char *const *f;
	char cur[64], buf[256];
	int ret;

	if (fgt_tracefs_read(t->tracefs, "current_tracer", cur, sizeof(cur))) {
		fgt_clause_add(msg, len, "toplevel: cannot read current_tracer: %s", strerror(errno));
		return -errno;
	}
	if (strcmp(cur, "nop")) {
		fgt_clause_add(msg, len, "toplevel: the top-level tracer is in use (%s), left alone", cur);
		return -EBUSY;
	}
	if (fgt_tracefs_read(t->tracefs, "set_ftrace_filter", buf, sizeof(buf)) == 0 &&
	    !filter_is_empty(buf)) {
		fgt_clause_add(msg, len, "toplevel: set_ftrace_filter is in use, left alone");
		return -EBUSY;
	}
	if (fgt_tracefs_read(t->tracefs, "set_event", buf, sizeof(buf)) == 0 && buf[0]) {
		fgt_clause_add(msg, len, "toplevel: trace events are enabled (set_event); a tracer "
		       "change would clear their buffer, left alone");
		return -EBUSY;
	}
	/* each candidate is recorded before it is written: on SIGKILL the next
	 * run resets exactly this */
	ret = -ENOENT;
	for (f = fgt_trig_funcs(&t->cfg); *f; f++) {
		snprintf(t->func, sizeof(t->func), "%s", *f);
		t->toplevel_set = true;
		ret = write_state(t);
		if (ret)
			break;
		ret = write_filter(t->tracefs, *f);
		if (ret != -EINVAL && ret != -ENODEV)
			break;
	}
	if (ret) {
		fgt_clause_add(msg, len, "toplevel: cannot limit set_ftrace_filter to a cold function: %s",
		       strerror(-ret));
		return ret;
	}
	ret = write_file(t->tracefs, "current_tracer", "function_graph");
	if (ret) {
		fgt_clause_add(msg, len, "toplevel: setting function_graph failed: %s", strerror(-ret));
		return ret;
	}
	t->method = FGT_TRIG_TOPLEVEL;
	return 0;
}

int fgt_trig_on(struct fgt_trigger *t, char *msg, size_t len)
{
	char undo[256] = "";
	int ret = -ENOENT;

	if (len)
		msg[0] = '\0';
	if (t->tracefs[0]) {
		ret = try_instance(t, msg, len);
		if (!ret)
			return 0;
		fgt_trig_off(t, undo, sizeof(undo));
	}
	ret = try_kretmulti(t, msg, len);
	if (!ret)
		return 0;
	fgt_trig_off(t, undo, sizeof(undo));
	if (t->tracefs[0]) {
		ret = try_toplevel(t, msg, len);
		if (!ret)
			return 0;
		fgt_trig_off(t, undo, sizeof(undo));
	} else {
		fgt_clause_add(msg, len, "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
	}
	if (undo[0])
		fgt_clause_add(msg, len, "%s", undo);
	return ret ? ret : -EOPNOTSUPP;
}

int fgt_trig_off(struct fgt_trigger *t, char *msg, size_t len)
{
	int ret = 0, r;

	if (t->link_fd >= 0)
		close(t->link_fd);
	if (t->prog_fd >= 0)
		close(t->prog_fd);
	t->link_fd = t->prog_fd = -1;
	if (t->instance[0]) {
		r = remove_instance(t->tracefs, t->instance);
		if (r) {
			fgt_clause_add(msg, len, "could not remove instance %s: %s (the next check "
			       "removes it)", t->instance, strerror(-r));
			ret = r;
		} else {
			t->instance[0] = '\0';
		}
	}
	if (t->toplevel_set) {
		bool left_alone;

		r = reset_toplevel(t->tracefs, t->func, &left_alone);
		if (r) {
			fgt_clause_add(msg, len, "could not reset the top-level tracer: %s", strerror(-r));
			ret = r;
		} else {
			t->toplevel_set = false;
		}
	}
	t->method = FGT_TRIG_NONE;
	if (t->dir_fd >= 0)
		write_state(t);
	return ret;
}

void fgt_trig_release(struct fgt_trigger *t)
{
	if (t->dir_fd >= 0 && !t->instance[0] && !t->toplevel_set)
		unlinkat(t->dir_fd, t->state_name, 0);
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	if (t->dir_fd >= 0)
		close(t->dir_fd);
	t->lock_fd = t->dir_fd = -1;
}
