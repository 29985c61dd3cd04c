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

/* Label values: the exposition format escapes backslash, quote and newline. */
void fgt_prom_label(FILE *f, const char *s)
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

void fgt_prom_help(FILE *f, const char *name, const char *type, const char *text)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

void fgt_prom_gauge_u64(FILE *f, const char *name, const char *text, uint64_t v)
{
	fgt_prom_help(f, name, "gauge", text);
	fprintf(f, "%s %" PRIu64 "\n", name, v);
}

void fgt_prom_gauge_dbl(FILE *f, const char *name, const char *text, double v)
{
	fgt_prom_help(f, name, "gauge", text);
	fprintf(f, "%s %.15g\n", name, v);	/* epoch seconds need 13+ digits */
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
 * What FILE is, when it exists and is not a regular file: a device (root's
 * rename would replace /dev/full's node with a file), a FIFO, a socket, a
 * directory. NULL when it is absent or a regular file (or a symlink: refused
 * on its own).
 */
static const char *target_kind(int dirfd, const char *base)
{
	struct stat st;

	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) || S_ISREG(st.st_mode) ||
	    S_ISLNK(st.st_mode))
		return NULL;
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		return "a device";
	if (S_ISFIFO(st.st_mode))
		return "a FIFO";
	if (S_ISSOCK(st.st_mode))
		return "a socket";
	if (S_ISDIR(st.st_mode))
		return "a directory";
	return "not a regular file";
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
	const char *kind;
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
	kind = target_kind(fd, base);
	if (kind) {
		close(fd);
		return fail(err, errlen, EEXIST, "%s: %s, not a regular file: refusing to replace "
			    "it", path, kind);
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

static int render_to_buf(fgt_prom_render_fn render, const void *ctx, char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	int ret;

	if (!f)
		return -errno;
	ret = render(f, ctx);
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

int fgt_prom_write(const char *path, fgt_prom_render_fn render, const void *ctx, char *err,
		   size_t errlen)
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
	ret = render_to_buf(render, ctx, &buf, &len);
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
	/* again, just before: a node made in FILE's place meanwhile is not replaced */
	if (!ret && target_kind(dirfd, base))
		ret = -EEXIST;
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
