// SPDX-License-Identifier: GPL-2.0
/*
 * Causing a 0->1 fgraph activation and undoing it; see trigger.h for the
 * methods and the crash-safety rules. Every change is recorded in the state
 * file before it is made.
 */
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
#include "clause.h"
#include "host_state.h"
#include "log.h"
#include "trigger.h"

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
	char p[PATH_MAX];
	size_t n = strlen(s);
	ssize_t w;
	int fd, ret = 0;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
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

/* Whole small file into buf (NUL-terminated, trailing newlines stripped). */
static int read_file(const char *dir, const char *name, char *buf, size_t len)
{
	char p[PATH_MAX];
	size_t n;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

static bool filter_is_empty(const char *content)
{
	/* an empty filter reads "#### all functions enabled ####" */
	return !*content || !strncmp(content, "#### all functions enabled ####", 31);
}

/* ---- state file ------------------------------------------------------- */

static int write_state(struct fgt_trigger *t)
{
	char tmp[sizeof(t->state_path) + 8];
	FILE *f;
	int ret = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp", t->state_path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "# fgraphtop check --trigger: tracing state changed by pid %d;\n"
		"# a later check undoes it if this process is gone\n", (int)getpid());
	fprintf(f, "pid=%d\ntracefs=%s\n", (int)getpid(), t->tracefs);
	if (t->instance[0])
		fprintf(f, "instance=%s\n", t->instance);
	if (t->toplevel_set)
		fprintf(f, "toplevel=%s\n", t->func);
	if (t->link_fd >= 0)
		fprintf(f, "link=kretprobe.multi %s (not pinned: gone with the process)\n", t->func);
	if (fflush(f) || fsync(fileno(f)))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, t->state_path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
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
	if (read_file(tracefs, "current_tracer", cur, sizeof(cur)) ||
	    read_file(tracefs, "set_ftrace_filter", filt, sizeof(filt)))
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

/* One dead run's state file: undo what it lists. Returns items undone, -1 if some remain. */
static int undo_state_file(const char *path, const char *def_tracefs, char *out, size_t len)
{
	char line[512], tracefs[256], inst[128] = "", func[128] = "";
	int pid = 0, n = 0, err = 0;
	FILE *f = fopen(path, "re");

	snprintf(tracefs, sizeof(tracefs), "%s", def_tracefs ? def_tracefs : "");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "pid=", 4))
			pid = atoi(line + 4);
		else if (!strncmp(line, "tracefs=", 8) && !def_tracefs)
			snprintf(tracefs, sizeof(tracefs), "%.*s", (int)sizeof(tracefs) - 1, line + 8);
		else if (!strncmp(line, "instance=", 9))
			snprintf(inst, sizeof(inst), "%.*s", (int)sizeof(inst) - 1, line + 9);
		else if (!strncmp(line, "toplevel=", 9))
			snprintf(func, sizeof(func), "%.*s", (int)sizeof(func) - 1, line + 9);
	}
	fclose(f);
	if (inst[0] && strchr(inst, '/') == NULL && tracefs[0]) {
		char idir[PATH_MAX];
		bool there;
		int r;

		/* recorded before its mkdir: the killed run may never have made it */
		snprintf(idir, sizeof(idir), "%s/instances/%s", tracefs, inst);
		there = access(idir, F_OK) == 0;
		r = remove_instance(tracefs, inst);
		if (r) {
			fgt_clause_add(out, len, "could not remove instance %s left by pid %d: %s",
			       inst, pid, strerror(-r));
			err = 1;
		} else if (there) {
			fgt_clause_add(out, len, "removed tracefs instance %s left by killed check pid %d",
			       inst, pid);
			n++;
		}
	}
	if (func[0] && tracefs[0]) {
		bool left_alone;
		int r = reset_toplevel(tracefs, func, &left_alone);

		if (r) {
			fgt_clause_add(out, len, "could not reset the top-level tracer left by pid %d: %s",
			       pid, strerror(-r));
			err = 1;
		} else if (left_alone) {
			fgt_clause_add(out, len, "top-level tracer changed since killed check pid %d: left alone",
			       pid);
		} else {
			fgt_clause_add(out, len, "reset the top-level tracer left by killed check pid %d", pid);
			n++;
		}
	}
	if (!err)
		unlink(path);
	return err ? -1 : n;
}

int fgt_trig_cleanup_stale(const char *tracefs, const char *state_dir, const char *own_state,
			   char *out, size_t len)
{
	char p[PATH_MAX];
	struct dirent *de;
	int n = 0, r;
	DIR *d;

	d = opendir(state_dir);
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (strncmp(de->d_name, "check-", 6) || l < 7 || strcmp(de->d_name + l - 6, ".state"))
			continue;
		snprintf(p, sizeof(p), "%s/%s", state_dir, de->d_name);
		if (own_state && !strcmp(p, own_state))
			continue;
		r = undo_state_file(p, tracefs, out, len);
		n += r > 0 ? r : 0;
	}
	if (d)
		closedir(d);
	/* instances of runs killed before their state file said so (cannot happen
	 * by construction, but an instance of ours must never outlive its run) */
	if (!tracefs)
		return n;
	snprintf(p, sizeof(p), "%s/instances", tracefs);
	d = opendir(p);
	while (d && (de = readdir(d))) {
		char own[64];

		snprintf(own, sizeof(own), FGT_INSTANCE_PREFIX "%d", (int)getpid());
		if (strncmp(de->d_name, FGT_INSTANCE_PREFIX, strlen(FGT_INSTANCE_PREFIX)) ||
		    !strcmp(de->d_name, own))
			continue;
		r = remove_instance(tracefs, de->d_name);
		if (r)
			fgt_clause_add(out, len, "could not remove stray instance %s: %s", de->d_name,
			       strerror(-r));
		else {
			fgt_clause_add(out, len, "removed stray tracefs instance %s", de->d_name);
			n++;
		}
	}
	if (d)
		closedir(d);
	return n;
}

/* ---- lock --------------------------------------------------------------- */

static int take_lock(struct fgt_trigger *t, char *msg, size_t len)
{
	char p[PATH_MAX + 16];

	if (mkdir(t->state_dir, 0700) && errno != EEXIST) {
		snprintf(msg, len, "cannot create %s: %s", t->state_dir, strerror(errno));
		return -errno;
	}
	snprintf(p, sizeof(p), "%s/check.lock", t->state_dir);
	t->lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (t->lock_fd < 0) {
		snprintf(msg, len, "cannot open %s: %s", p, strerror(errno));
		return -errno;
	}
	if (flock(t->lock_fd, LOCK_EX | LOCK_NB)) {
		int e = errno;

		/*
		 * Kernels built without CONFIG_FILE_LOCKING (the lab's minimal
		 * ones) have no flock(): run unlocked rather than not at all;
		 * the state file still lets the next run undo a killed one.
		 */
		if (e == ENOSYS) {
			log_info("no file locking in this kernel: running unlocked\n");
			goto locked;
		}
		char holder[32] = "?";

		if (e == EWOULDBLOCK)
			(void)(pread(t->lock_fd, holder, sizeof(holder) - 1, 0) > 0);
		holder[strcspn(holder, "\n")] = '\0';
		snprintf(msg, len, e == EWOULDBLOCK ? "another fgraphtop check --trigger is "
			 "running (pid %s): one at a time" : "cannot lock %s", e == EWOULDBLOCK ?
			 holder : p);
		close(t->lock_fd);
		t->lock_fd = -1;
		return e == EWOULDBLOCK ? -EBUSY : -e;
	}
locked:
	snprintf(p, sizeof(p), "%d\n", (int)getpid());
	if (ftruncate(t->lock_fd, 0) == 0)
		(void)(pwrite(t->lock_fd, p, strlen(p), 0) > 0);
	return 0;
}

int fgt_trig_prepare(struct fgt_trigger *t, const struct fgt_trig_cfg *cfg,
		     char *cleaned, size_t clen, char *msg, size_t len)
{
	const char *tfs;
	int ret;

	memset(t, 0, sizeof(*t));
	t->cfg = *cfg;
	t->lock_fd = t->prog_fd = t->link_fd = -1;
	if (clen)
		cleaned[0] = '\0';
	tfs = cfg->tracefs ? cfg->tracefs : fgt_tracefs_find();
	snprintf(t->tracefs, sizeof(t->tracefs), "%s", tfs ? tfs : "");
	snprintf(t->state_dir, sizeof(t->state_dir), "%s", cfg->state_dir ? cfg->state_dir :
		 FGT_STATE_DIR);
	snprintf(t->state_path, sizeof(t->state_path), "%s/check-%d.state", t->state_dir,
		 (int)getpid());
	ret = take_lock(t, msg, len);
	if (ret)
		return ret;
	fgt_trig_cleanup_stale(tfs ? t->tracefs : NULL, t->state_dir, t->state_path,
			       cleaned, clen);
	/* the state file exists before anything changes */
	ret = write_state(t);
	if (ret) {
		snprintf(msg, len, "cannot write %s: %s", t->state_path, strerror(-ret));
		return ret;
	}
	return 0;
}

/* ---- methods ------------------------------------------------------------ */

/* Set dir's set_ftrace_filter to the first cold function the kernel accepts. */
static int set_cold_filter(struct fgt_trigger *t, const char *dir)
{
	const char *const *f = t->cfg.funcs ? t->cfg.funcs : default_funcs;
	int ret = -ENOENT;

	for (; *f; f++) {
		ret = write_file(dir, "set_ftrace_filter", *f);
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
 * mkdir of a tracefs instance, in a child process. Creating an instance
 * allocates its ring buffers, and that allocation gives up when the caller
 * has a fatal signal pending: a check SIGKILLed inside mkdir() would make the
 * kernel WARN ("failed to allocate ring buffer on CPU n", seen on Debian's
 * 7.2), a panic under panic_on_warn. A SIGKILL sent to the check alone (not to
 * its whole cgroup) spares the child: it finishes the mkdir, and if we died
 * meanwhile it removes the instance itself (the next check may have looked
 * before it existed). Returns 0 or -errno.
 */
static int mkdir_instance(const char *tracefs, const char *name)
{
	char dir[PATH_MAX];
	pid_t parent = getpid(), pid;
	int st;

	snprintf(dir, sizeof(dir), "%s/instances/%s", tracefs, name);
	pid = fork();
	if (pid < 0)
		return mkdir(dir, 0700) ? -errno : 0;
	if (pid == 0) {
		int e = mkdir(dir, 0700) ? errno : 0;

		if (!e && getppid() != parent)
			remove_instance(tracefs, name);
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

	snprintf(t->instance, sizeof(t->instance), FGT_INSTANCE_PREFIX "%d", (int)getpid());
	snprintf(dir, sizeof(dir), "%s/instances/%s", t->tracefs, t->instance);
	ret = write_state(t);
	if (ret) {
		snprintf(msg, len, "cannot record the instance in %s: %s", t->state_path,
			 strerror(-ret));
		t->instance[0] = '\0';
		return ret;
	}
	ret = mkdir_instance(t->tracefs, t->instance);
	if (ret) {
		fgt_clause_add(msg, len, "instance: cannot create %s: %s", dir, strerror(-ret));
		t->instance[0] = '\0';
		write_state(t);
		return ret;
	}
	/* instances list only the tracers they allow (6.1: no function_graph) */
	if (read_file(dir, "available_tracers", buf, sizeof(buf)) ||
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
	const char *const *f = t->cfg.funcs ? t->cfg.funcs : default_funcs;
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

	if (read_file(t->tracefs, "current_tracer", cur, sizeof(cur))) {
		fgt_clause_add(msg, len, "toplevel: cannot read current_tracer: %s", strerror(errno));
		return -errno;
	}
	if (strcmp(cur, "nop")) {
		fgt_clause_add(msg, len, "toplevel: the top-level tracer is in use (%s), left alone", cur);
		return -EBUSY;
	}
	if (read_file(t->tracefs, "set_ftrace_filter", buf, sizeof(buf)) == 0 &&
	    !filter_is_empty(buf)) {
		fgt_clause_add(msg, len, "toplevel: set_ftrace_filter is in use, left alone");
		return -EBUSY;
	}
	if (read_file(t->tracefs, "set_event", buf, sizeof(buf)) == 0 && buf[0]) {
		fgt_clause_add(msg, len, "toplevel: trace events are enabled (set_event); a tracer "
		       "change would clear their buffer, left alone");
		return -EBUSY;
	}
	/* each candidate is recorded before it is written: on SIGKILL the next
	 * run resets exactly this */
	ret = -ENOENT;
	for (f = t->cfg.funcs ? t->cfg.funcs : default_funcs; *f; f++) {
		snprintf(t->func, sizeof(t->func), "%s", *f);
		t->toplevel_set = true;
		ret = write_state(t);
		if (ret)
			break;
		ret = write_file(t->tracefs, "set_ftrace_filter", *f);
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
	if (t->lock_fd >= 0)
		write_state(t);
	return ret;
}

void fgt_trig_release(struct fgt_trigger *t)
{
	if (t->lock_fd < 0)
		return;
	if (!t->instance[0] && !t->toplevel_set)
		unlink(t->state_path);
	close(t->lock_fd);
	t->lock_fd = -1;
}
