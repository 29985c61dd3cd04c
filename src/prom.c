// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus textfile for node_exporter. The collector may read FILE at any
 * moment, so the content goes to a temp file in the same directory (rename is
 * atomic only within one file system) whose name node_exporter ignores (it
 * reads *.prom only), and is renamed over FILE once complete and synced.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* mkostemp */
#endif
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
#include "prom.h"

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
	     "Verdict of the last fgraphtop check on this kernel build: 1 for the verdict reached.");
	for (v = fgt_prom_verdicts; *v; v++) {
		fputs("fgraphtop_verdict{verdict=", f);
		label_value(f, *v);
		fputc(',', f);
		kernel_labels(f, m);
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
	}
	gauge_u64(f, "fgraphtop_lost_events", "Events the kernel could not deliver during the check.",
		  m->lost_events);
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

/* FILE's directory must be a real directory; FILE, if present, not a symlink. */
static int check_paths(const char *path, const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(dir, &st))
		return fail(err, errlen, errno, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail(err, errlen, ENOTDIR, "%s: not a directory (symlinks refused)", dir);
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return fail(err, errlen, ELOOP, "%s: is a symlink, refusing to replace it", path);
	return 0;
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

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	/* durability of the rename; the file itself is already whole */
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
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

int fgt_prom_write(const char *path, const struct fgt_prom_metrics *m, char *err, size_t errlen)
{
	char dir[PATH_MAX], tmp[PATH_MAX], *buf = NULL;
	const char *base;
	size_t len = 0;
	int fd, ret;

	if (!path || !*path || strlen(path) >= sizeof(dir) - 16)
		return fail(err, errlen, EINVAL, "bad metrics file name");
	split_path(path, dir, sizeof(dir), &base);
	if (!*base)
		return fail(err, errlen, EISDIR, "%s: names a directory, not a file", path);
	ret = check_paths(path, dir, err, errlen);
	if (ret)
		return ret;
	ret = render_to_buf(m, &buf, &len);
	if (ret) {
		free(buf);
		return fail(err, errlen, -ret, "rendering metrics: %s", strerror(-ret));
	}
	/* leading dot and no .prom suffix: the collector ignores it */
	if (snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, base) >= (int)sizeof(tmp))
		return free(buf), fail(err, errlen, ENAMETOOLONG, "%s: name too long", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(buf);
		return fail(err, errlen, -ret, "%s: %s", tmp, strerror(-ret));
	}
	ret = fill_tmp(fd, buf, len);
	free(buf);
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return fail(err, errlen, -ret, "writing %s: %s", path, strerror(-ret));
	}
	sync_dir(dir);
	return 0;
}
