// SPDX-License-Identifier: GPL-2.0
/*
 * The holders of `fgraphtop hold` (hold.h): taken, and removed leaving
 * nothing. No state file: the instance and the pin are the state, found by
 * name (host/holders.h) by every later run, whatever became of this one.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include "common/clause.h"
#include "host/holders.h"
#include "host/tracefs.h"
#include "hold/hold.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC	0xcafe4a11
#endif

/*
 * Functions nothing calls while a host runs: bpf_fentry_test1 is called only
 * by BPF_PROG_TEST_RUN of a tracing program (net/bpf/test_run.c); kexec_load
 * only to stage a kexec; reboot once, at the end. Traceable on every kernel
 * looked at (the lab's FGT_TRIG_FUNC is the first).
 */
static const char *const default_funcs[] = {
	"bpf_fentry_test1", "__x64_sys_kexec_load", "__arm64_sys_kexec_load",
	"__x64_sys_reboot", "__arm64_sys_reboot", NULL,
};

const char *const *fgt_hold_funcs(const struct fgt_holder_env *e)
{
	return e->funcs ? e->funcs : default_funcs;
}

/* Write s to dir/name, an existing control file (never created, never
 * through a symlink in its place). 0 or -errno. */
static int put(const char *dir, const char *name, const char *s)
{
	size_t n = strlen(s);
	int dfd, fd, ret;
	ssize_t w;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	fd = openat(dfd, name, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	ret = fd < 0 ? -errno : 0;
	close(dfd);
	if (fd < 0)
		return ret;
	w = n ? write(fd, s, n) : 0;
	if (w < 0)
		ret = -errno;
	else if ((size_t)w != n)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/* ---- the instance (6.11 .. 6.13) ------------------------------------------ */

static void instance_dir(const struct fgt_holder_env *e, char *dir, size_t len)
{
	snprintf(dir, len, "%s/instances/%s", e->tracefs, FGT_HOLD_INSTANCE);
}

/* Tracer off (unregisters its fgraph_ops), then rmdir; rmdir fails with
 * EBUSY while someone has a file of it open: a few retries. */
static int remove_instance(const struct fgt_holder_env *e)
{
	char dir[PATH_MAX];
	int i;

	instance_dir(e, dir, sizeof(dir));
	if (access(dir, F_OK))
		return errno == ENOENT ? 0 : -errno;
	put(dir, "current_tracer", "nop");
	for (i = 0; i < 40; i++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		if (!rmdir(dir) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		nanosleep(&ts, NULL);
	}
	return -EBUSY;
}

/* The filter holds exactly func once written: ftrace takes a name it does
 * not know as an empty filter, i.e. every function (src/check/trigger.c). */
static int cold_filter(const struct fgt_holder_env *e, const char *dir, char *func, size_t flen)
{
	char got[256];
	int ret = -ENOENT;

	for (const char *const *f = fgt_hold_funcs(e); *f; f++) {
		ret = put(dir, "set_ftrace_filter", *f);
		if (!ret)
			ret = fgt_tracefs_read(dir, "set_ftrace_filter", got, sizeof(got));
		if (!ret && !strcmp(got, *f)) {
			snprintf(func, flen, "%s", *f);
			return 0;
		}
		if (!ret || ret == -EINVAL || ret == -ENODEV)
			continue;
		return ret;
	}
	return ret ? ret : -ENOENT;
}

static int take_instance(const struct fgt_holder_env *e, char *func, size_t flen, char *msg,
			 size_t len)
{
	char dir[PATH_MAX], buf[1024];
	int ret;

	if (!e->tracefs[0]) {
		fgt_clause_add(msg, len, "instance: tracefs is not mounted (mount -t tracefs "
			       "nodev /sys/kernel/tracing)");
		return -ENOENT;
	}
	instance_dir(e, dir, sizeof(dir));
	if (mkdir(dir, 0700)) {
		ret = -errno;
		fgt_clause_add(msg, len, "instance: cannot create %s: %s", dir, strerror(errno));
		return ret;
	}
	/* an instance lists only the tracers it allows (6.1: no function_graph) */
	ret = fgt_tracefs_read(dir, "available_tracers", buf, sizeof(buf));
	if (ret || !strstr(buf, "function_graph")) {
		fgt_clause_add(msg, len, "instance: this kernel does not allow function_graph in "
			       "a tracefs instance");
		ret = -EOPNOTSUPP;
		goto fail;
	}
	/* it records nothing: tracing off, and the per-CPU buffers that mkdir
	 * gave it (trace_buf_size, 1.4 MB each) down to the least */
	put(dir, "tracing_on", "0");
	put(dir, "buffer_size_kb", "1");
	ret = cold_filter(e, dir, func, flen);
	if (ret) {
		fgt_clause_add(msg, len, "instance: cannot limit set_ftrace_filter to a function "
			       "nothing calls: %s", strerror(-ret));
		goto fail;
	}
	ret = put(dir, "current_tracer", "function_graph");
	if (ret) {
		fgt_clause_add(msg, len, "instance: setting function_graph failed: %s",
			       strerror(-ret));
		goto fail;
	}
	return 0;
fail:
	remove_instance(e);
	return ret;
}

/* ---- the pinned link (6.14+) ---------------------------------------------- */

/* r0 = 0; exit: the program never runs (its function is never called); the
 * link's fprobe, with its return handler, is what holds fgraph. */
static int load_nop_prog(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_KPROBE_MULTI);

	return bpf_prog_load(BPF_PROG_TYPE_KPROBE, FGT_HOLD_PROG_NAME, "GPL", insns, 2, &o);
}

/*
 * bpffs's FGT_HOLD_PIN_DIR, made 0700 when missing, and checked as the state
 * directory of check is: bpffs itself, a real directory (no symlink), ours,
 * writable by no one else. Its fd, or -errno with msg.
 */
static int pin_dir(const struct fgt_holder_env *e, bool create, char *msg, size_t len)
{
	struct statfs sfs;
	struct stat st;
	int bfd, dfd, err;

	bfd = open(e->bpffs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (bfd < 0) {
		err = -errno;
		fgt_clause_add(msg, len, "link: cannot open %s: %s", e->bpffs, strerror(errno));
		return err;
	}
	if (fstatfs(bfd, &sfs) || sfs.f_type != BPF_FS_MAGIC) {
		fgt_clause_add(msg, len, "link: %s is not a bpffs (mount -t bpf bpf %s)", e->bpffs,
			       e->bpffs);
		close(bfd);
		return -ENOTDIR;
	}
	if (create && mkdirat(bfd, FGT_HOLD_PIN_DIR, 0700) && errno != EEXIST) {
		err = -errno;
		fgt_clause_add(msg, len, "link: cannot create %s/%s: %s", e->bpffs,
			       FGT_HOLD_PIN_DIR, strerror(errno));
		close(bfd);
		return err;
	}
	dfd = openat(bfd, FGT_HOLD_PIN_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	err = dfd < 0 ? -errno : 0;
	close(bfd);
	if (dfd < 0) {
		if (create || err != -ENOENT)
			fgt_clause_add(msg, len, "link: cannot open %s/%s: %s", e->bpffs,
				       FGT_HOLD_PIN_DIR, strerror(-err));
		return err;
	}
	if (fstat(dfd, &st) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		fgt_clause_add(msg, len, "link: %s/%s is not a directory of this user's alone: "
			       "left alone", e->bpffs, FGT_HOLD_PIN_DIR);
		close(dfd);
		return -EPERM;
	}
	return dfd;
}

static int take_link(const struct fgt_holder_env *e, char *func, size_t flen, char *msg,
		     size_t len)
{
	char path[64];
	int dfd, prog, link = -1, err = 0;

	dfd = pin_dir(e, true, msg, len);
	if (dfd < 0)
		return dfd;
	prog = load_nop_prog();
	if (prog < 0) {
		err = -errno;
		fgt_clause_add(msg, len, "link: cannot load a kprobe_multi program: %s",
			       strerror(errno));
		goto out;
	}
	for (const char *const *f = fgt_hold_funcs(e); *f; f++) {
		LIBBPF_OPTS(bpf_link_create_opts, lo);

		lo.kprobe_multi.syms = (const char **)f;
		lo.kprobe_multi.cnt = 1;
		lo.kprobe_multi.flags = BPF_F_KPROBE_MULTI_RETURN;
		link = bpf_link_create(prog, 0, BPF_TRACE_KPROBE_MULTI, &lo);
		if (link >= 0) {
			snprintf(func, flen, "%s", *f);
			break;
		}
		err = -errno;
	}
	if (link < 0) {
		fgt_clause_add(msg, len, "link: kretprobe.multi attach failed: %s", strerror(-err));
		goto out;
	}
	/* pinned relative to the checked directory: through its fd, so that
	 * nothing renamed in between redirects it; EEXIST if a pin is there */
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dfd, FGT_HOLD_PIN_NAME);
	err = bpf_obj_pin(link, path) ? -errno : 0;
	if (err)
		fgt_clause_add(msg, len, "link: cannot pin it at %s: %s", FGT_HOLD_PIN,
			       strerror(-err));
out:
	/* pinned, the link outlives these fds; not pinned, it goes with them */
	if (link >= 0)
		close(link);
	if (prog >= 0)
		close(prog);
	close(dfd);
	if (err) {
		int bfd = open(e->bpffs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (bfd >= 0) {
			unlinkat(bfd, FGT_HOLD_PIN_DIR, AT_REMOVEDIR);	/* only when empty */
			close(bfd);
		}
	}
	return err;
}

int fgt_holder_take(const struct fgt_holder_env *e, enum fgt_hold_method m, char *func,
		    size_t flen, char *where, size_t wlen, char *msg, size_t len)
{
	int ret = -EOPNOTSUPP;

	if (m == FGT_HOLD_M_LINK) {
		ret = take_link(e, func, flen, msg, len);
		if (!ret)
			snprintf(where, wlen, "%s/%s/%s", e->bpffs, FGT_HOLD_PIN_DIR,
				 FGT_HOLD_PIN_NAME);
	} else if (m == FGT_HOLD_M_INSTANCE) {
		ret = take_instance(e, func, flen, msg, len);
		if (!ret)
			instance_dir(e, where, wlen);
	}
	return ret;
}

static int release_pin(const struct fgt_holder_env *e, char *removed, size_t rlen, char *msg,
		       size_t len)
{
	char path[64], m[256] = "";
	int dfd = pin_dir(e, false, m, sizeof(m)), bfd, err = 0;

	if (dfd == -ENOENT || dfd == -ENOTDIR)
		return 0;		/* no directory of ours, or no bpffs: no pin */
	if (dfd < 0) {
		fgt_clause_add(msg, len, "%s", m);
		return dfd;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dfd, FGT_HOLD_PIN_NAME);
	if (!access(path, F_OK)) {
		if (unlinkat(dfd, FGT_HOLD_PIN_NAME, 0)) {
			err = -errno;
			fgt_clause_add(msg, len, "cannot unpin %s/%s/%s: %s", e->bpffs,
				       FGT_HOLD_PIN_DIR, FGT_HOLD_PIN_NAME, strerror(errno));
		} else {
			fgt_clause_add(removed, rlen, "unpinned %s/%s/%s (the link went with it)",
				       e->bpffs, FGT_HOLD_PIN_DIR, FGT_HOLD_PIN_NAME);
		}
	}
	close(dfd);
	bfd = open(e->bpffs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (bfd >= 0) {
		if (!unlinkat(bfd, FGT_HOLD_PIN_DIR, AT_REMOVEDIR))
			fgt_clause_add(removed, rlen, "removed %s/%s", e->bpffs, FGT_HOLD_PIN_DIR);
		close(bfd);
	}
	return err;
}

int fgt_holder_release(const struct fgt_holder_env *e, char *removed, size_t rlen,
		       char *msg, size_t len)
{
	char dir[PATH_MAX];
	int ret = 0, r;

	r = release_pin(e, removed, rlen, msg, len);
	if (r)
		ret = r;
	if (e->tracefs[0]) {
		instance_dir(e, dir, sizeof(dir));
		if (!access(dir, F_OK)) {
			r = remove_instance(e);
			if (r) {
				fgt_clause_add(msg, len, "cannot remove %s: %s", dir, strerror(-r));
				ret = r;
			} else {
				fgt_clause_add(removed, rlen, "removed tracefs instance %s", dir);
			}
		}
	}
	return ret;
}
