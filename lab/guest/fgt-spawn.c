// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-spawn: threads for the lab.
 *
 *   fgt-spawn park -n N [-r READY] [-s STACK_KB]
 *	Park N idle threads (blocked forever in sigsuspend with every signal
 *	masked), print {"mode":"park",...} and touch READY once all exist, then
 *	wait for SIGTERM/SIGINT and exit (which ends the threads).
 *	All stacks come from one mapping, so 30,000 threads cost one VMA and
 *	N * STACK_KB of address space (default 16 KiB; pages are touched lazily).
 *
 *   fgt-spawn churn [-d SECONDS] [-j PARALLEL] [-r READY]
 *	Create and reap short-lived threads, PARALLEL in flight, until SECONDS
 *	have passed or SIGTERM; then print {"mode":"churn","created":N,...}.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int touch_ready(const char *path)
{
	int fd;

	if (!path)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "fgt-spawn: %s: %s\n", path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static void *parked(void *arg)
{
	sigset_t all;

	sigfillset(&all);
	for (;;)
		sigsuspend(&all);
	return NULL;
}

static int park(long n, const char *ready, long stack_kb)
{
	size_t stack = stack_kb * 1024;
	unsigned long long t0, t1;
	pthread_attr_t attr;
	sigset_t set, old;
	char *stacks = MAP_FAILED;
	long i, made = 0;
	int err = 1, sig;

	/* Threads inherit this mask: SIGTERM reaches only sigwait() below. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, &old);

	stacks = mmap(NULL, stack * n, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (stacks == MAP_FAILED) {
		fprintf(stderr, "fgt-spawn: mmap %ld stacks: %s\n", n, strerror(errno));
		goto cleanup;
	}
	pthread_attr_init(&attr);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		pthread_t t;
		int ret;

		pthread_attr_setstack(&attr, stacks + i * stack, stack);
		ret = pthread_create(&t, &attr, parked, NULL);
		if (ret) {
			fprintf(stderr, "fgt-spawn: thread %ld of %ld: %s\n", i, n, strerror(ret));
			break;
		}
		pthread_detach(t);
		made++;
	}
	t1 = now_ns();
	pthread_attr_destroy(&attr);
	printf("{\"mode\":\"park\",\"requested\":%ld,\"threads\":%ld,\"ns\":%llu,\"pid\":%d}\n",
	       n, made, t1 - t0, getpid());
	fflush(stdout);
	if (made != n)
		goto cleanup;
	if (touch_ready(ready))
		goto cleanup;
	sigwait(&set, &sig);
	err = 0;
cleanup:
	/* exit() ends the parked threads; their stacks go with the process. */
	return err;
}

static void *short_lived(void *arg)
{
	return NULL;
}

static int churn(double seconds, int parallel, const char *ready)
{
	unsigned long long t0, end, created = 0, failed = 0;
	pthread_t *ts = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	int i, err = 1;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	ts = calloc(parallel, sizeof(*ts));
	if (!ts)
		goto cleanup;
	if (touch_ready(ready))
		goto cleanup;
	t0 = now_ns();
	end = t0 + (unsigned long long)(seconds * 1e9);
	while (!stop && now_ns() < end) {
		int made = 0;

		for (i = 0; i < parallel; i++) {
			if (pthread_create(&ts[i], NULL, short_lived, NULL)) {
				failed++;
				break;
			}
			made++;
		}
		for (i = 0; i < made; i++)
			pthread_join(ts[i], NULL);
		created += made;
	}
	printf("{\"mode\":\"churn\",\"created\":%llu,\"failed\":%llu,\"ns\":%llu}\n",
	       created, failed, now_ns() - t0);
	fflush(stdout);
	err = 0;
cleanup:
	free(ts);
	return err;
}

static void usage(void)
{
	fprintf(stderr, "usage: fgt-spawn park -n N [-r READY] [-s STACK_KB]\n"
			"       fgt-spawn churn [-d SECONDS] [-j PARALLEL] [-r READY]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *ready = NULL;
	double seconds = 3600;
	long n = 0, stack_kb = 16;
	int parallel = 4, opt;

	if (argc < 2)
		usage();
	optind = 2;
	while ((opt = getopt(argc, argv, "n:r:s:d:j:")) != -1) {
		switch (opt) {
		case 'n': n = atol(optarg); break;
		case 'r': ready = optarg; break;
		case 's': stack_kb = atol(optarg); break;
		case 'd': seconds = atof(optarg); break;
		case 'j': parallel = atoi(optarg); break;
		default: usage();
		}
	}
	if (!strcmp(argv[1], "park")) {
		if (n < 0 || stack_kb < 16)
			usage();
		if (n == 0)
			return touch_ready(ready) ? 1 : 0;
		return park(n, ready, stack_kb);
	}
	if (!strcmp(argv[1], "churn")) {
		if (parallel < 1)
			usage();
		return churn(seconds, parallel, ready);
	}
	usage();
	return 2;
}
