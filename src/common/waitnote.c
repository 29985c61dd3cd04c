// SPDX-License-Identifier: GPL-2.0
/* A notice when a step waits on a kernel lock (waitnote.h). */
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/clock.h"
#include "common/log.h"
#include "common/waitnote.h"

struct fgt_wait {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done, noticed;
	enum fgt_wait_lock which;
	uint64_t begin_ns;
	char what[96];
};

static unsigned int notices;

const char *fgt_wait_lock_text(enum fgt_wait_lock lock)
{
	return lock == FGT_WAIT_FTRACE_LOCK ?
	       "waiting for the kernel's ftrace lock: a function-graph activation holds it" :
	       "waiting for tracefs's trace_types_lock: a tracer switch holds it";
}

static void *watch(void *arg)
{
	struct fgt_wait *w = arg;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += FGT_WAIT_NOTICE_MS / 1000;
	ts.tv_nsec += (FGT_WAIT_NOTICE_MS % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&w->lock);
	while (!w->done)
		if (pthread_cond_timedwait(&w->cond, &w->lock, &ts) == ETIMEDOUT)
			break;
	if (!w->done) {
		w->noticed = true;
		__atomic_add_fetch(&notices, 1, __ATOMIC_RELAXED);
		p_warn("lock_wait", "%s (%s)", fgt_wait_lock_text(w->which), w->what);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct fgt_wait *fgt_wait_begin(enum fgt_wait_lock lock, const char *what)
{
	struct fgt_wait *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;

	if (!w)
		return NULL;
	w->which = lock;
	w->begin_ns = fgt_mono_ns();
	snprintf(w->what, sizeof(w->what), "%s", what);
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&w->thread, NULL, watch, w)) {
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return NULL;
	}
	return w;
}

bool fgt_wait_end(struct fgt_wait *w)
{
	bool noticed;

	if (!w)
		return false;
	pthread_mutex_lock(&w->lock);
	w->done = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	noticed = w->noticed;
	/* the notice's end: the step's own output follows it */
	if (noticed)
		log_info("fgraphtop: %s: the wait is over after %.1f s", w->what,
			 (fgt_mono_ns() - w->begin_ns) / 1e9);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
	return noticed;
}

unsigned int fgt_wait_notices(void)
{
	return __atomic_load_n(&notices, __ATOMIC_RELAXED);
}
