// SPDX-License-Identifier: GPL-2.0
/*
 * Exposure, the BPF side's userspace: the task iterator of bpf/exposure.h,
 * either in an object of its own (bpf/exposure.bpf.c, fgt_exposure_open()) or
 * loaded by a session with its other programs (fgt_exposure_of()), and its
 * iterator link; each read is one pass over the tasks. Nothing is attached to
 * any kernel function: an iterator runs only while its fd is read. One-shot
 * callers use fgt_exposure_scan(); the live view keeps one open.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common/readall.h"
#include "exposure.skel.h"
#include "watch/exposure.h"

/* The iterator writes one record per task: the kernel's most tasks are
 * PID_MAX_LIMIT's 2^22 (include/linux/threads.h). */
#define EXP_READ_MAX	((size_t)(1u << 22) * sizeof(struct fgt_exp_rec))

struct fgt_exposure {
	struct exposure_bpf *skel;	/* our own object; NULL: a session's program */
	struct bpf_link *link;
	const bool *no_ret_stack;	/* the program's flag, in its object's .bss */
	bool owe_next, owing;		/* fgt_exposure_owe() */
	struct fgt_exp_owed owed;
};

static const char load_hint[] = "it needs kernel BTF, BPF tracing programs, CAP_BPF and "
				"CAP_PERFMON";

/* The iterator link over a loaded program. */
static int attach(struct fgt_exposure *e, struct bpf_program *prog, char *msg, size_t len)
{
	e->link = bpf_program__attach_iter(prog, NULL);
	if (e->link)
		return 0;
	snprintf(msg, len, "cannot create the task iterator: %s", strerror(errno));
	return -errno;
}

struct fgt_exposure *fgt_exposure_of(struct bpf_program *prog, const bool *no_ret_stack,
				     char *msg, size_t len)
{
	struct fgt_exposure *e = calloc(1, sizeof(*e));
	int err;

	if (len)
		msg[0] = '\0';
	if (!e) {
		snprintf(msg, len, "out of memory");
		return NULL;
	}
	e->no_ret_stack = no_ret_stack;
	err = attach(e, prog, msg, len);
	if (err) {
		free(e);
		errno = -err;
		return NULL;
	}
	return e;
}

/* Our own object's iterator: fgt_exposure_of() over its program. */
struct fgt_exposure *fgt_exposure_open(char *msg, size_t len)
{
	struct exposure_bpf *skel = exposure_bpf__open_and_load();
	struct fgt_exposure *e;
	int err;

	if (!skel) {
		err = errno;
		snprintf(msg, len, "cannot load the task iterator (%s): %s", strerror(err), load_hint);
		errno = err;
		return NULL;
	}
	e = fgt_exposure_of(skel->progs.count_lacking, &skel->bss->no_ret_stack, msg, len);
	if (!e) {
		err = errno;
		exposure_bpf__destroy(skel);
		errno = err;
		return NULL;
	}
	e->skel = skel;
	return e;
}

void fgt_exposure_load_failed(int err, char *msg, size_t len)
{
	snprintf(msg, len, "cannot load the task iterator (%s): %s", strerror(err), load_hint);
}

void fgt_exposure_close(struct fgt_exposure *e)
{
	if (!e)
		return;
	bpf_link__destroy(e->link);
	exposure_bpf__destroy(e->skel);
	fgt_exp_owed_free(&e->owed);
	free(e);
}

/* The walk of a pass's records, and the owed threads taken or counted. */
static void walk_of(struct fgt_exposure *e, struct fgt_exp_rec *recs, size_t n,
		    struct fgt_exp_walk *w)
{
	fgt_exp_walk_from_records(recs, n, w);
	if (e->owe_next) {
		e->owe_next = false;
		e->owing = !fgt_exp_owed_take(&e->owed, recs, n);
	}
	if (e->owing) {
		w->owed = true;
		w->owed_lacking = fgt_exp_owed_lacking(&e->owed, recs, n);
	}
}

void fgt_exposure_owe(struct fgt_exposure *e)
{
	fgt_exp_owed_free(&e->owed);
	e->owing = false;
	e->owe_next = true;
}

int fgt_exposure_read(struct fgt_exposure *e, struct fgt_exp_walk *w, char *msg, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	int fd, err;

	if (len)
		msg[0] = '\0';
	/* each iterator fd is one pass over the tasks, from the first */
	fd = bpf_iter_create(bpf_link__fd(e->link));
	if (fd < 0) {
		err = -errno;
		snprintf(msg, len, "cannot open the task iterator: %s", strerror(-err));
		return err;
	}
	err = fgt_read_all(fd, EXP_READ_MAX, &buf, &n);
	close(fd);
	if (err)
		snprintf(msg, len, "reading the task iterator: %s", strerror(-err));
	else if (*e->no_ret_stack) {
		err = -EOPNOTSUPP;
		snprintf(msg, len, "this kernel has no function graph tracer (task_struct has "
			 "no ret_stack): no walk to stall");
	} else if (n % sizeof(struct fgt_exp_rec)) {
		err = -EPROTO;
		snprintf(msg, len, "task iterator: %zu bytes, not whole records", n);
	}
	if (!err)
		walk_of(e, (struct fgt_exp_rec *)buf, n / sizeof(struct fgt_exp_rec), w);
	free(buf);
	return err;
}

int fgt_exposure_scan(struct fgt_exp_walk *w, char *msg, size_t len)
{
	struct fgt_exposure *e = fgt_exposure_open(msg, len);
	int err;

	if (!e)
		return -errno;
	err = fgt_exposure_read(e, w, msg, len);
	fgt_exposure_close(e);
	return err;
}

