/* SPDX-License-Identifier: GPL-2.0 */
/*
 * U, the threads lacking a shadow stack, as the lab's oracle sees it without
 * asking the kernel: before the first fgraph activation after boot no thread has
 * one (idle tasks are not in /proc, nor in the kernel's thread walk); stacks are
 * freed only at exit, so later, U = the threads whose TID was not alive while
 * fgraph was last active. That set is a snapshot of /proc/<pid>/task/<tid> taken
 * just before fgraph is turned off (fgt-trigger ... off does it).
 * Shared by fgt-trigger and fgt-oracle (header-only, static functions).
 */
#ifndef FGT_U_H
#define FGT_U_H

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FGT_SNAP_DEFAULT "/run/fgt/oracle.snap"

struct tids {
	int *v;
	long n, cap;
};

static int tids_add(struct tids *t, int tid)
{
	if (t->n == t->cap) {
		long cap = t->cap ? t->cap * 2 : 4096;
		int *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = tid;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int is_num(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* Every thread in /proc, sorted. Threads that vanish meanwhile are skipped. */
static int tids_read_proc(struct tids *t)
{
	struct dirent *p, *q;
	DIR *proc, *task;
	char path[64];
	int err = 0;

	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while (!err && (p = readdir(proc))) {
		if (!is_num(p->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", p->d_name);
		task = opendir(path);
		if (!task)
			continue;
		while ((q = readdir(task)))
			if (is_num(q->d_name) && (err = tids_add(t, atoi(q->d_name))))
				break;
		closedir(task);
	}
	closedir(proc);
	qsort(t->v, t->n, sizeof(*t->v), cmp_int);
	return err;
}

/* Returns -ENOENT when there is no snapshot (no activation yet). */
static int tids_read_file(struct tids *t, const char *path)
{
	FILE *f = fopen(path, "r");
	int tid, err = 0;

	if (!f)
		return -errno;
	while (fscanf(f, "%d", &tid) == 1)
		if ((err = tids_add(t, tid)))
			break;
	fclose(f);
	qsort(t->v, t->n, sizeof(*t->v), cmp_int);
	return err;
}

static int tids_write_file(const struct tids *t, const char *path)
{
	char tmp[4096];
	FILE *f;
	long i;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	for (i = 0; i < t->n; i++)
		fprintf(f, "%d\n", t->v[i]);
	if (fclose(f))
		return -errno;
	return rename(tmp, path) ? -errno : 0;
}

struct ucount {
	long threads;	/* threads alive now */
	long u;		/* of which lacking a shadow stack */
	int first;	/* no snapshot: first activation since boot */
};

/* Count now, against the snapshot at snap_path (if any). */
static int fgt_count_u(const char *snap_path, struct ucount *c)
{
	struct tids now = {}, snap = {};
	long i;
	int err;

	memset(c, 0, sizeof(*c));
	err = tids_read_proc(&now);
	if (err)
		goto cleanup;
	err = tids_read_file(&snap, snap_path);
	if (err == -ENOENT) {
		c->first = 1;
		err = 0;
	} else if (err) {
		goto cleanup;
	}
	c->threads = now.n;
	for (i = 0; i < now.n; i++)
		if (c->first || !bsearch(&now.v[i], snap.v, snap.n, sizeof(int), cmp_int))
			c->u++;
cleanup:
	free(now.v);
	free(snap.v);
	return err;
}

static int fgt_snapshot(const char *snap_path, long *threads)
{
	struct tids now = {};
	int err;

	err = tids_read_proc(&now);
	if (!err)
		err = tids_write_file(&now, snap_path);
	if (threads)
		*threads = now.n;
	free(now.v);
	return err;
}

#endif /* FGT_U_H */
