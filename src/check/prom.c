// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus textfile for node_exporter. The collector may read FILE at any
 * moment, so the content goes to a temp file in the same directory (rename is
 * atomic only within one file system) whose name node_exporter ignores (it
 * reads *.prom only), and is renamed over FILE once complete and synced.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check/prom.h"

const char *const fgt_prom_verdicts[] = {
	"fixed", "not_fixed", "not_affected", "unknown", NULL,
};

/* Label values: the exposition format escapes backslash, quote and newline. */
static void label_value(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void help(FILE *f, const char *name, const char *type, const char *text)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

static void kernel_labels(FILE *f, const struct fgt_prom_metrics *m)
{
	fputs("release=", f);
	label_value(f, m->release ? m->release : "");
	fputs(",build_id=", f);
	label_value(f, m->build_id ? m->build_id : "");
}

static void gauge_u64(FILE *f, const char *name, const char *text, uint64_t v)
{
	help(f, name, "gauge", text);
	fprintf(f, "%s %" PRIu64 "\n", name, v);
}

static void gauge_dbl(FILE *f, const char *name, const char *text, double v)
{
	help(f, name, "gauge", text);
	fprintf(f, "%s %.15g\n", name, v);	/* epoch seconds need 13+ digits */
}

int fgt_prom_render(FILE *f, const struct fgt_prom_metrics *m)
{
	const char *const *v;

	help(f, "fgraphtop_verdict", "gauge",
	     "Verdict of the last fgraphtop check on this kernel build: 1 for the verdict reached; "
	     "method: what answered (static: the kernel's code; trigger, watch: an activation).");
	for (v = fgt_prom_verdicts; *v; v++) {
		fputs("fgraphtop_verdict{verdict=", f);
		label_value(f, *v);
		fputc(',', f);
		kernel_labels(f, m);
		if (m->method) {
			fputs(",method=", f);
			label_value(f, m->method);
		}
		fprintf(f, "} %d\n", m->verdict && !strcmp(m->verdict, *v));
	}
	help(f, "fgraphtop_kernel_info", "gauge",
	     "Kernel the check ran on: release and build ID from /sys/kernel/notes.");
	fputs("fgraphtop_kernel_info{", f);
	kernel_labels(f, m);
	fputs("} 1\n", f);
	gauge_u64(f, "fgraphtop_check_status", "Exit status of the check: 0 fixed or not affected, "
		  "1 fixed with problems, 2 not fixed, 3 unknown.", (uint64_t)(m->status & 0xff));
	gauge_dbl(f, "fgraphtop_check_timestamp_seconds",
		  "When the check ran, seconds since the epoch.", m->check_time);
	if (m->have_activation) {
		gauge_dbl(f, "fgraphtop_activation_duration_seconds",
			  "End to end duration of the shadow-stack allocation phase of the activation seen.",
			  m->activation_seconds);
		gauge_u64(f, "fgraphtop_activation_sweeps",
			  "Task-list sweeps (alloc_retstack_tasklist calls) in the activation seen.", m->sweeps);
		gauge_u64(f, "fgraphtop_activation_threads_served",
			  "Threads handed a shadow stack by the activation seen.", m->threads_served);
		gauge_u64(f, "fgraphtop_activation_failures",
			  "Failed shadow-stack allocations in the activation seen.", m->failures);
		gauge_u64(f, "fgraphtop_activation_nonblocking_failures",
			  "Failed non-blocking (GFP_NOWAIT) shadow-stack allocations in the activation "
			  "seen: on a fixed kernel, memory under the watermark.", m->failed_nonblocking);
		gauge_u64(f, "fgraphtop_activation_extra_sweeps",
			  "Sweeps after the first in the activation seen: on a fixed kernel, each "
			  "one a reserve used up under memory pressure.", m->extra_sweeps);
		gauge_dbl(f, "fgraphtop_activation_extra_sweeps_seconds",
			  "Time of the sweeps after the first in the activation seen.", m->extra_seconds);
	}
	gauge_u64(f, "fgraphtop_lost_events", "Events the kernel could not deliver during the check.",
		  m->lost_events);
	if (m->have_exposure) {
		gauge_u64(f, "fgraphtop_threads_without_shadow_stack", "Threads lacking a shadow "
			  "stack when the check ran, before any activation it caused: what the "
			  "next fgraph activation must serve.", m->lacking);
		gauge_dbl(f, "fgraphtop_unfixed_walk_estimate_seconds", "Estimated duration of "
			  "an unfixed kernel's batch-of-32 shadow-stack walk over those threads, in "
			  "task-list order.", m->walk_estimate_s);
		help(f, "fgraphtop_unfixed_walk_visit_cost_seconds", "gauge", "The cost of one "
		     "thread visit the estimate used: the series' figure (default) or this "
		     "host's observed unfixed walk (observed).");
		fputs("fgraphtop_unfixed_walk_visit_cost_seconds{source=", f);
		label_value(f, m->visit_cost_src);
		fprintf(f, "} %.6g\n", m->visit_cost_s);
	}
	return ferror(f) ? -EIO : 0;
}

static int fail(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -e;
}

/*
 * FILE's directory, opened once and checked (a real directory: a symlink in
 * its place is refused); everything after is relative to that fd, so the
 * directory cannot be swapped between the check and the writes. FILE, if
 * present, must not be a symlink. The fd, or -errno with err set.
 */
static int open_dir(const char *path, const char *dir, const char *base, char *err,
		    size_t errlen)
{
	struct stat st;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOTDIR || errno == ELOOP)
			return fail(err, errlen, ENOTDIR, "%s: not a directory (symlinks refused)", dir);
		return fail(err, errlen, errno, "%s: %s", dir, strerror(errno));
	}
	if (fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
		close(fd);
		return fail(err, errlen, ELOOP, "%s: is a symlink, refusing to replace it", path);
	}
	return fd;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= n;
	}
	return 0;
}

static int render_to_buf(const struct fgt_prom_metrics *m, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	int ret;

	if (!f)
		return -errno;
	ret = fgt_prom_render(f, m);
	if (fclose(f) && !ret)
		ret = -EIO;
	return ret;
}

/* Content into the temp file, made durable and readable by node_exporter. */
static int fill_tmp(int fd, const char *buf, size_t len)
{
	int ret = write_all(fd, buf, len);

	if (!ret && fsync(fd))
		ret = -errno;
	if (!ret && fchmod(fd, 0644))
		ret = -errno;
	return ret;
}

static void split_path(const char *path, char *dir, size_t dlen, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, dlen, ".");
		*base = path;
	} else if (slash == path) {
		snprintf(dir, dlen, "/");
		*base = slash + 1;
	} else {
		snprintf(dir, dlen, "%.*s", (int)(slash - path), path);
		*base = slash + 1;
	}
}

/* A fresh temporary next to FILE, O_EXCL: leading dot and no .prom suffix,
 * so the collector ignores it. Its fd, or -errno. */
static int open_tmp(int dirfd, const char *base, char *tmp, size_t len)
{
	for (int i = 0; i < 16; i++) {
		int fd;

		if (snprintf(tmp, len, ".%s.%d.%08lx", base, (int)getpid(),
			     (unsigned long)random()) >= (int)len)
			return -ENAMETOOLONG;
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

int fgt_prom_write(const char *path, const struct fgt_prom_metrics *m, char *err, size_t errlen)
{
	char dir[PATH_MAX], tmp[NAME_MAX + 1], *buf = NULL;
	const char *base;
	size_t len = 0;
	int dirfd, fd, ret;

	if (!path || !*path || strlen(path) >= sizeof(dir) - 16)
		return fail(err, errlen, EINVAL, "bad metrics file name");
	split_path(path, dir, sizeof(dir), &base);
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return fail(err, errlen, EISDIR, "%s: names a directory, not a file", path);
	ret = render_to_buf(m, &buf, &len);
	if (ret) {
		free(buf);
		return fail(err, errlen, -ret, "rendering metrics: %s", strerror(-ret));
	}
	dirfd = open_dir(path, dir, base, err, errlen);
	if (dirfd < 0) {
		free(buf);
		return dirfd;
	}
	fd = open_tmp(dirfd, base, tmp, sizeof(tmp));
	if (fd < 0) {
		free(buf);
		close(dirfd);
		if (fd == -ENAMETOOLONG)
			return fail(err, errlen, ENAMETOOLONG, "%s: name too long", path);
		return fail(err, errlen, -fd, "%s/%s: %s", dir, tmp, strerror(-fd));
	}
	ret = fill_tmp(fd, buf, len);
	free(buf);
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(dirfd, tmp, dirfd, base))
		ret = -errno;
	if (ret) {
		unlinkat(dirfd, tmp, 0);
		close(dirfd);
		return fail(err, errlen, -ret, "writing %s: %s", path, strerror(-ret));
	}
	/* durability of the rename; the file itself is already whole */
	fsync(dirfd);
	close(dirfd);
	return 0;
}
