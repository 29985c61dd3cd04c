// SPDX-License-Identifier: GPL-2.0
/*
 * Exposure, the BPF side's userspace: load bpf/exposure.bpf.c (its own small
 * object, nothing shared with the watching session), create one task
 * iterator, read its records, close everything. Nothing is attached to any
 * kernel function and nothing stays loaded once this returns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "exposure.skel.h"
#include "exposure.h"

/* Append everything the iterator yields to a growing buffer. */
static int read_all(int fd, char **buf, size_t *len)
{
	size_t cap = 1 << 16;
	char *b = malloc(cap), *nb;
	ssize_t n;

	*len = 0;
	if (!b)
		return -ENOMEM;
	for (;;) {
		if (cap - *len < 4096) {
			nb = realloc(b, cap * 2);
			if (!nb)
				return free(b), -ENOMEM;
			b = nb;
			cap *= 2;
		}
		n = read(fd, b + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return free(b), -errno;
		if (n == 0)
			break;
		*len += n;
	}
	*buf = b;
	return 0;
}

static int run_iter(struct exposure_bpf *skel, char **buf, size_t *len, char *msg, size_t mlen)
{
	struct bpf_link *link;
	int fd, err;

	link = bpf_program__attach_iter(skel->progs.count_lacking, NULL);
	if (!link) {
		err = -errno;
		snprintf(msg, mlen, "cannot create the task iterator: %s", strerror(-err));
		return err;
	}
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		err = -errno;
		snprintf(msg, mlen, "cannot open the task iterator: %s", strerror(-err));
	} else {
		err = read_all(fd, buf, len);
		if (err)
			snprintf(msg, mlen, "reading the task iterator: %s", strerror(-err));
		close(fd);
	}
	bpf_link__destroy(link);
	return err;
}

int fgt_exposure_scan(struct fgt_exp_walk *w, char *msg, size_t len)
{
	struct exposure_bpf *skel;
	char *buf = NULL;
	size_t n = 0;
	int err;

	if (len)
		msg[0] = '\0';
	skel = exposure_bpf__open_and_load();
	if (!skel) {
		err = -errno;
		snprintf(msg, len, "cannot load the task iterator (%s): it needs kernel BTF, "
			 "BPF tracing programs, CAP_BPF and CAP_PERFMON", strerror(-err));
		return err ? err : -EINVAL;
	}
	err = run_iter(skel, &buf, &n, msg, len);
	if (!err && skel->bss->no_ret_stack) {
		err = -EOPNOTSUPP;
		snprintf(msg, len, "this kernel has no function graph tracer (task_struct has "
			 "no ret_stack): no walk to stall");
	} else if (!err && n % sizeof(struct fgt_exp_rec)) {
		err = -EPROTO;
		snprintf(msg, len, "task iterator: %zu bytes, not whole records", n);
	}
	if (!err)
		fgt_exp_walk_from_records((struct fgt_exp_rec *)buf, n / sizeof(struct fgt_exp_rec), w);
	free(buf);
	exposure_bpf__destroy(skel);
	return err;
}

int fgt_exposure_count(uint64_t *lacking, uint64_t *threads, char *msg, size_t len)
{
	struct fgt_exp_walk w;
	int err = fgt_exposure_scan(&w, msg, len);

	if (err)
		return err;
	if (lacking)
		*lacking = w.lacking;
	if (threads)
		*threads = w.threads;
	return 0;
}
