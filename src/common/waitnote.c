// SPDX-License-Identifier: GPL-2.0
/* A notice when a step waits on a kernel lock (waitnote.h). */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/types.h>
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
	pid_t tid;			/* the step's thread, 0: the time alone tells */
	unsigned int blocked;		/* looks that found it blocked, in a row */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done, noticed;
	enum fgt_wait_lock which;
	uint64_t begin_ns;
	char what[96];
};

static unsigned int notices;

/* no claim of a walk: a grace period on a loaded host takes seconds with
 * none under way (the lab's --explain before any activation, 2026-12-07) */
static const char rcu_text[] =
	"waiting for an RCU grace period: a function-graph activation's walk, under "
	"rcu_read_lock(), delays them, as does a busy host";

const char *fgt_wait_lock_text(enum fgt_wait_lock lock)
{
	return lock == FGT_WAIT_FTRACE_LOCK ?
	       "waiting for the kernel's ftrace lock: a function-graph activation holds it" :
	       "waiting for tracefs's trace_types_lock: a tracer switch holds it";
}

/*
 * What the step's thread waits for, from its kernel stack (readable: it
 * sleeps): a grace period (a tracepoint's first attach waits for one, and
 * the walk's rcu_read_lock() sections delay them), a mutex of tracefs's,
 * else the lock the step was said to risk (ftrace_lock: a mutex under the
 * trampoline's or ftrace's code). Unreadable: that lock.
 */
static const char *blocked_on(pid_t tid, enum fgt_wait_lock lock)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fgt_wait_lock_text(lock);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return fgt_wait_lock_text(lock);
	buf[n] = '\0';
	if (strstr(buf, "synchronize_rcu") || strstr(buf, "synchronize_srcu") ||
	    strstr(buf, "wait_rcu_gp") || strstr(buf, "rcu_barrier"))
		return rcu_text;
	if (strstr(buf, "mutex_lock") && strstr(buf, " tracing_"))
		return fgt_wait_lock_text(FGT_WAIT_TRACE_TYPES_LOCK);
	if (strstr(buf, "mutex_lock") && (strstr(buf, "ftrace") || strstr(buf, "bpf_trampoline")))
		return fgt_wait_lock_text(FGT_WAIT_FTRACE_LOCK);
	return fgt_wait_lock_text(lock);
}

/* The step's thread asleep in the kernel, uninterruptibly (a mutex sleeps
 * so): its state in /proc/self/task/TID/stat is D. */
static bool thread_blocked(pid_t tid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'D';
}

static void after_ms(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* Wait until ms pass or the step ends (lock held); true when it ended. */
static bool wait_ms(struct fgt_wait *w, long ms)
{
	struct timespec ts;

	after_ms(&ts, ms);
	while (!w->done)
		if (pthread_cond_timedwait(&w->cond, &w->lock, &ts) == ETIMEDOUT)
			break;
	return w->done;
}

static void *watch(void *arg)
{
	struct fgt_wait *w = arg;

	pthread_mutex_lock(&w->lock);
	wait_ms(w, FGT_WAIT_NOTICE_MS);
	/* a step slow on the CPU (the verifier on a loaded host) is no wait:
	 * the notice waits for its thread to be seen asleep twice in a row */
	while (!w->done && w->tid) {
		w->blocked = thread_blocked(w->tid) ? w->blocked + 1 : 0;
		if (w->blocked >= 2 || wait_ms(w, FGT_WAIT_LOOK_MS))
			break;
	}
	if (!w->done) {
		w->noticed = true;
		__atomic_add_fetch(&notices, 1, __ATOMIC_RELAXED);
		p_warn("lock_wait", "%s (%s)", w->tid ? blocked_on(w->tid, w->which) :
		       fgt_wait_lock_text(w->which), w->what);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static struct fgt_wait *begin(enum fgt_wait_lock lock, const char *what, pid_t tid)
{
	struct fgt_wait *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;

	if (!w)
		return NULL;
	w->tid = tid;
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

struct fgt_wait *fgt_wait_begin(enum fgt_wait_lock lock, const char *what)
{
	return begin(lock, what, (pid_t)syscall(SYS_gettid));
}

struct fgt_wait *fgt_wait_begin_other(enum fgt_wait_lock lock, const char *what)
{
	return begin(lock, what, 0);
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
