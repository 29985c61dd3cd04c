// SPDX-License-Identifier: GPL-2.0
/*
 * catch_cmd STATE_DIR FILE: a stand-in for fgraphtop check under fgt-catch
 * (tests/lab/catch.sh). 64 idle threads, as check parks its own; earlier
 * forks that must run on; then, from a thread of its own as check's trigger
 * thread does, STATE_DIR/check-PID.state records "instance=" and a child is
 * forked that creates FILE, as the mkdir helper makes the instance.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>

static char **args;

static void *idle(void *a)
{
	pause();
	return a;
}

static void *trigger(void *a)
{
	char path[4096];
	FILE *f;
	pid_t k;

	for (int i = 0; i < 2; i++) {	/* before the key: these run on */
		k = fork();
		if (k == 0)
			_exit(0);
		waitpid(k, NULL, 0);
	}
	snprintf(path, sizeof(path), "%s/check-%d.state", args[1], (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return a;
	fprintf(f, "instance=catch\n");
	fclose(f);
	k = fork();
	if (k == 0) {
		int fd = open(args[2], O_CREAT | O_WRONLY | O_CLOEXEC, 0600);

		_exit(fd < 0);
	}
	waitpid(k, NULL, 0);
	return a;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 3) {
		fprintf(stderr, "usage: catch_cmd STATE_DIR FILE\n");
		return 2;
	}
	args = argv;
	for (int i = 0; i < 64; i++)
		pthread_create(&t, NULL, idle, NULL);
	pthread_create(&t, NULL, trigger, NULL);
	pthread_join(t, NULL);
	return 0;
}
