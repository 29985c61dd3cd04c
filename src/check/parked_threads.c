// SPDX-License-Identifier: GPL-2.0
/*
 * Parked threads: each blocks in read() on one shared pipe; closing the write
 * end wakes them all with EOF. Signals are blocked in them, so SIGINT/SIGTERM
 * reach the main thread, which restores the tracing state.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* pipe2 */
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include "check/parked_threads.h"

struct fgt_park {
	int pipe[2];
	unsigned int n;
	pthread_t *tids;
};

static void *parked(void *arg)
{
	struct fgt_park *p = arg;
	char c;

	while (read(p->pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

unsigned int fgt_park_count(const struct fgt_park *p)
{
	return p ? p->n : 0;
}

struct fgt_park *fgt_park_start(unsigned int n)
{
	struct fgt_park *p = calloc(1, sizeof(*p));
	sigset_t all, old;
	pthread_attr_t attr;
	int err = 0;

	if (!p)
		return NULL;
	p->tids = calloc(n ? n : 1, sizeof(*p->tids));
	if (!p->tids || pipe2(p->pipe, O_CLOEXEC)) {
		err = errno;
		free(p->tids);
		free(p);
		errno = err;
		return NULL;
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN > 65536 ? PTHREAD_STACK_MIN : 65536);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);	/* inherited by the threads */
	for (; p->n < n; p->n++) {
		err = pthread_create(&p->tids[p->n], &attr, parked, p);
		if (err)
			break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		fgt_park_stop(p);
		errno = err;
		return NULL;
	}
	return p;
}

void fgt_park_stop(struct fgt_park *p)
{
	unsigned int i;

	if (!p)
		return;
	close(p->pipe[1]);
	for (i = 0; i < p->n; i++)
		pthread_join(p->tids[i], NULL);
	close(p->pipe[0]);
	free(p->tids);
	free(p);
}
