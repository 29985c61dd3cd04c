// SPDX-License-Identifier: GPL-2.0
/* The trigger's state: see trigger_state.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "common/parse.h"
#include "check/trigger_state.h"

/* Field 22 of /proc/PID/stat: after the ")" that ends comm (which may hold
 * spaces and parentheses), the 20th field. */
static int start_time(const char *proc, long pid, unsigned long long *start)
{
	char path[128], buf[1024], *p;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "%s/%ld/stat", proc, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", start) != 1)
		return -EIO;
	return 0;
}

/* A kernel without PID namespaces (CONFIG_PID_NS=n, the lab's minimal ones)
 * has no ns/pid: every process is in the one namespace there is. nsfs
 * inodes are never this small, so it cannot be mistaken for a real one. */
#define FGT_NO_PIDNS	1ull

static int pid_ns(const char *proc, const char *who, unsigned long long *ino)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s/ns/pid", proc, who);
	if (stat(path, &st)) {
		if (errno != ENOENT)
			return -errno;
		snprintf(path, sizeof(path), "%s/%s", proc, who);
		if (access(path, F_OK))
			return -ENOENT;		/* no such process, or no /proc */
		*ino = FGT_NO_PIDNS;
		return 0;
	}
	*ino = st.st_ino;
	return 0;
}

int fgt_owner_self(struct fgt_owner *o, const char *proc)
{
	int err;

	proc = proc ? proc : "/proc";
	memset(o, 0, sizeof(*o));
	o->pid = getpid();
	err = pid_ns(proc, "self", &o->pidns);
	if (!err)
		err = start_time(proc, o->pid, &o->start);
	return err;
}

int fgt_owner_alive(const struct fgt_owner *o, const char *proc)
{
	unsigned long long ns = 0, start = 0;
	char dir[160];

	proc = proc ? proc : "/proc";
	snprintf(dir, sizeof(dir), "%s/%ld", proc, o->pid);
	/* the old instance names carry the pid alone: gone is dead, else unknown */
	if (!o->pidns)
		return access(dir, F_OK) ? 0 : -1;
	/* a pid of another PID namespace says nothing about ours */
	if (pid_ns(proc, "self", &ns) || ns != o->pidns)
		return -1;
	if (start_time(proc, o->pid, &start))
		return access(dir, F_OK) ? 0 : -1;	/* gone: dead */
	/* the same pid, started later: a new process, the owner is dead */
	return start == o->start;
}

void fgt_instance_name(const struct fgt_owner *o, char *buf, size_t len)
{
	snprintf(buf, len, FGT_INSTANCE_PREFIX "%ld-%llu-%llu", o->pid, o->pidns, o->start);
}

/* The next "-"-separated number of *p (digits only). */
static int number(const char **p, unsigned long long *v, bool last)
{
	char part[24];
	size_t n = strcspn(*p, "-");
	uint64_t x;

	if (!n || n >= sizeof(part) || (last != !(*p)[n]))
		return -1;
	memcpy(part, *p, n);
	part[n] = '\0';
	if (fgt_parse_uint(part, 0, UINT64_MAX, &x))
		return -1;
	*v = x;
	*p += n + (last ? 0 : 1);
	return 0;
}

int fgt_instance_owner(const char *name, struct fgt_owner *o)
{
	const char *p = name;
	unsigned long long pid;

	memset(o, 0, sizeof(*o));
	if (strncmp(p, FGT_INSTANCE_PREFIX, strlen(FGT_INSTANCE_PREFIX)))
		return -1;
	p += strlen(FGT_INSTANCE_PREFIX);
	if (!strchr(p, '-')) {		/* the old form: pid only */
		if (number(&p, &pid, true) || !pid || pid > 4194304)
			return -1;
		o->pid = (long)pid;
		return 0;
	}
	if (number(&p, &pid, false) || number(&p, &o->pidns, false) ||
	    number(&p, &o->start, true) || !pid || pid > 4194304)
		return -1;
	o->pid = (long)pid;
	return 0;
}

static bool is_cold(const char *fn, const char *const *funcs)
{
	for (; funcs && *funcs; funcs++)
		if (!strcmp(fn, *funcs))
			return true;
	return false;
}

/* "key=value" lines; returns the value of key in line, or NULL. */
static const char *value_of(const char *line, const char *key)
{
	size_t n = strlen(key);

	return !strncmp(line, key, n) && line[n] == '=' ? line + n + 1 : NULL;
}

/* Mark key bit seen; true when it was already. */
static bool once(unsigned int *seen, unsigned int bit)
{
	bool again = *seen & bit;

	*seen |= bit;
	return again;
}

int fgt_state_parse(const char *text, struct fgt_state *st, const char *const *funcs)
{
	char line[256];
	const char *p = text, *v;
	unsigned int seen = 0;	/* each key once: we never write one twice */
	uint64_t x;

	memset(st, 0, sizeof(*st));
	while (*p) {
		size_t n = strcspn(p, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), p);
		p += n + (p[n] == '\n');
		if (n >= sizeof(line) || line[0] == '#')
			continue;	/* too long for anything we write */
		if ((v = value_of(line, "pid"))) {
			if (once(&seen, 1) || fgt_parse_uint(v, 1, 4194304, &x))
				return -1;
			st->owner.pid = (long)x;
		} else if ((v = value_of(line, "pidns"))) {
			if (once(&seen, 2) || fgt_parse_uint(v, 0, UINT64_MAX, &x))
				return -1;
			st->owner.pidns = x;
		} else if ((v = value_of(line, "start"))) {
			if (once(&seen, 4) || fgt_parse_uint(v, 0, UINT64_MAX, &x))
				return -1;
			st->owner.start = x;
		} else if ((v = value_of(line, "instance"))) {
			struct fgt_owner o;

			if (once(&seen, 8) || strlen(v) >= sizeof(st->instance) ||
			    fgt_instance_owner(v, &o))
				return -1;
			memcpy(st->instance, v, strlen(v) + 1);
		} else if ((v = value_of(line, "toplevel"))) {
			if (once(&seen, 16) || !is_cold(v, funcs) || strlen(v) >= sizeof(st->toplevel))
				return -1;
			memcpy(st->toplevel, v, strlen(v) + 1);
		} else if ((v = value_of(line, "link"))) {
			if (once(&seen, 32))
				return -1;
			st->link = true;
		}
	}
	return seen & 1 ? 0 : -1;
}

void fgt_state_render(const struct fgt_state *st, char *buf, size_t len)
{
	size_t off;

	off = snprintf(buf, len, "# fgraphtop check --trigger: tracing state changed by pid %ld;\n"
		       "# a later check undoes it once this process is gone\n"
		       "pid=%ld\npidns=%llu\nstart=%llu\n", st->owner.pid, st->owner.pid,
		       st->owner.pidns, st->owner.start);
	if (off < len && st->instance[0])
		off += snprintf(buf + off, len - off, "instance=%s\n", st->instance);
	if (off < len && st->toplevel[0])
		off += snprintf(buf + off, len - off, "toplevel=%s\n", st->toplevel);
	if (off < len && st->link)
		snprintf(buf + off, len - off, "link=kretprobe.multi (not pinned: gone with the process)\n");
}

int fgt_state_dir_open(const char *path, char *msg, size_t len)
{
	struct stat st;
	int fd;

	if (mkdir(path, 0700) && errno != EEXIST) {
		snprintf(msg, len, "cannot create %s: %s", path, strerror(errno));
		return -errno;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		snprintf(msg, len, "%s: %s", path, e == ELOOP || e == ENOTDIR ?
			 "not a directory (a symlink or a file): refusing it" : strerror(e));
		return -e;
	}
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		snprintf(msg, len, "%s: not a directory of uid %u that only it can write "
			 "(owner %u, mode %04o): refusing it", path, (unsigned)geteuid(),
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		close(fd);
		return -EPERM;
	}
	return fd;
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int fgt_state_write(int dirfd, const char *name, const char *text)
{
	char tmp[256];
	int fd, ret;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST) {
		/* ours, from a write this process never finished (the name
		 * carries our pid): O_EXCL still refuses anything planted */
		unlinkat(dirfd, tmp, 0);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	}
	if (fd < 0)
		return -errno;
	ret = write_all(fd, text, strlen(text));
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(dirfd, tmp, dirfd, name))
		ret = -errno;
	if (ret)
		unlinkat(dirfd, tmp, 0);
	else if (fsync(dirfd))
		ret = -errno;
	return ret;
}

int fgt_state_read(int dirfd, const char *name, char *buf, size_t len)
{
	struct stat st;
	ssize_t n;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}
