// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-load: allocation-heavy work for the benchmarks (guest side).
 *
 *   fgt-load MODE N
 *	openclose  N x open("/dev/null") + close: a struct file from its slab cache
 *	pipe       N x pipe() + 2 close: two files, a pipe_inode_info, buffers
 *	socket     N x socketpair(AF_UNIX) + 2 close: sockets, inodes
 *	fork       N x fork(), child _exit(0), parent waitpid: a task_struct,
 *	           mm, page tables... (and, while fgraph is on, a shadow stack)
 *	switch     N round trips of a byte with a child through two pipes: two
 *	           context switches each on one CPU (and, while fgraph is on,
 *	           its sched_switch probe at each; ns_per_op is a round trip)
 *
 *   fgt-load exec N CMD [ARG]...
 *	N x run CMD to its end, one after the other (fork, exec, wait): a
 *	realistic load is a script, timed as a whole.
 *
 * Prints one JSON line: {"mode":..,"n":N,"ns":wall time,"ns_per_op":..}.
 * Exit status 0, 1 when an operation failed.
 *
 *   fgt-load run -r READY -p PATTERN -o OUT -- CMD [ARG]...
 *	Start CMD with stdout and stderr into a pipe, copy every line to OUT, and
 *	when a line contains PATTERN write READY: {"pid":P,"startup_ns":T}, T from
 *	just before fork to the line. Meanwhile, every millisecond, it calls
 *	getsid(0) (a system call nothing else in the guest makes) so a tracer can
 *	print PATTERN from a probe on it that fires only once it is attached,
 *	and that costs nothing while the loads run.
 *	Exits with CMD's status once CMD has exited.
 */
#include <poll.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int one(const char *mode)
{
	int fd[2];
	pid_t pid;

	if (!strcmp(mode, "openclose")) {
		fd[0] = open("/dev/null", O_RDONLY);
		if (fd[0] < 0)
			return -1;
		return close(fd[0]);
	}
	if (!strcmp(mode, "pipe")) {
		if (pipe(fd))
			return -1;
		close(fd[0]);
		return close(fd[1]);
	}
	if (!strcmp(mode, "socket")) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fd))
			return -1;
		close(fd[0]);
		return close(fd[1]);
	}
	if (!strcmp(mode, "fork")) {
		pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0)
			_exit(0);
		return waitpid(pid, NULL, 0) == pid ? 0 : -1;
	}
	errno = EINVAL;
	return -1;
}

/* N round trips with a child that echoes each byte: 0, or -1 with errno. */
static int ping_pong(long n)
{
	int to[2], from[2], st, err = 0;
	char c = 0;
	pid_t pid;
	long i;

	if (pipe(to))
		return -1;
	if (pipe(from)) {
		close(to[0]);
		close(to[1]);
		return -1;
	}
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		while (read(to[0], &c, 1) == 1 && write(from[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	for (i = 0; i < n && !err; i++)
		if (write(to[1], &c, 1) != 1 || read(from[0], &c, 1) != 1)
			err = -1;
	close(to[1]);		/* the child's read ends: it exits */
	close(from[0]);
	if (waitpid(pid, &st, 0) != pid)
		err = -1;
	return err;
}

static int run(int argc, char **argv)
{
	const char *ready = NULL, *pattern = NULL, *out = NULL;
	char buf[65536], line[8192];
	size_t ll = 0;
	unsigned long long t0;
	int p[2], ofd, opt, found = 0, st;
	pid_t pid;

	optind = 2;
	while ((opt = getopt(argc, argv, "r:p:o:")) != -1) {
		switch (opt) {
		case 'r': ready = optarg; break;
		case 'p': pattern = optarg; break;
		case 'o': out = optarg; break;
		default: return 2;
		}
	}
	if (!ready || !pattern || !out || optind >= argc)
		return 2;
	ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (ofd < 0 || pipe(p))
		return 1;
	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execvp(argv[optind], argv + optind);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		ssize_t n, i;
		int r = poll(&pfd, 1, found ? -1 : 1);

		if (r == 0) {
			(void)getsid(0);
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		n = read(p[0], buf, sizeof(buf));
		if (n <= 0)
			break;
		if (write(ofd, buf, n) != n)
			return 1;
		for (i = 0; i < n && !found; i++) {
			if (buf[i] != '\n' && ll < sizeof(line) - 1) {
				line[ll++] = buf[i];
				continue;
			}
			line[ll] = 0;
			ll = 0;
			if (strstr(line, pattern)) {
				unsigned long long t = now_ns() - t0;
				char tmp[600];
				FILE *f;

				snprintf(tmp, sizeof(tmp), "%s.tmp", ready);
				f = fopen(tmp, "w");
				if (f) {
					fprintf(f, "{\"pid\":%d,\"startup_ns\":%llu}\n", pid, t);
					fclose(f);
					rename(tmp, ready);
				}
				found = 1;
			}
		}
	}
	close(ofd);
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* CMD once, to its end: 0 when it exited with 0. */
static int exec_once(char **argv)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned long long t0, t1;
	long n, i;

	if (argc >= 2 && !strcmp(argv[1], "run"))
		return run(argc, argv);
	if (argc >= 4 && !strcmp(argv[1], "exec") && (n = atol(argv[2])) > 0) {
		t0 = now_ns();
		for (i = 0; i < n; i++)
			if (exec_once(argv + 3)) {
				fprintf(stderr, "fgt-load: exec #%ld: %s failed\n", i, argv[3]);
				return 1;
			}
		t1 = now_ns();
		printf("{\"mode\":\"exec\",\"n\":%ld,\"ns\":%llu,\"ns_per_op\":%llu}\n",
		       n, t1 - t0, (t1 - t0) / n);
		return 0;
	}
	if (argc != 3 || (n = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: fgt-load openclose|pipe|socket|fork|switch N\n"
				"       fgt-load exec N CMD [ARG]...\n"
				"       fgt-load run -r READY -p PATTERN -o OUT -- CMD [ARG]...\n");
		return 2;
	}
	if (!strcmp(argv[1], "switch")) {
		t0 = now_ns();
		if (ping_pong(n)) {
			fprintf(stderr, "fgt-load: switch: %s\n", strerror(errno));
			return 1;
		}
		t1 = now_ns();
		printf("{\"mode\":\"switch\",\"n\":%ld,\"ns\":%llu,\"ns_per_op\":%llu}\n",
		       n, t1 - t0, (t1 - t0) / n);
		return 0;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (one(argv[1])) {
			fprintf(stderr, "fgt-load: %s #%ld: %s\n", argv[1], i, strerror(errno));
			return 1;
		}
	t1 = now_ns();
	printf("{\"mode\":\"%s\",\"n\":%ld,\"ns\":%llu,\"ns_per_op\":%llu}\n",
	       argv[1], n, t1 - t0, (t1 - t0) / n);
	return 0;
}
