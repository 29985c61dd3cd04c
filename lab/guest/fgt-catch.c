// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-catch: kill a command at the fork of a helper, the helper held stopped.
 *
 *   fgt-catch [-v] [-o OUT] -s STATE_DIR -k KEY -- CMD ARGS...
 *	Run CMD traced (ptrace: every thread, for check forks from its trigger
 *	thread). At each fork CMD makes, read STATE_DIR/check-PID.state (PID:
 *	CMD's): once it records KEY=,
 *	the new child is the helper: it is left stopped (SIGSTOP, before it
 *	ran one instruction of its own), CMD is SIGKILLed in its fork stop,
 *	and one JSON line says so:
 *	  {"pid":P,"helper":H,"status":137}
 *	Earlier forks run on. If CMD ends without such a fork:
 *	  {"pid":P,"helper":null,"status":S}
 *	The line is written once the helper is stopped (state T); it stays
 *	so for the caller to resume (kill -CONT H).
 *	-o OUT: that line into OUT, not stdout. The helper holds CMD's stdout
 *	open while stopped: a caller reading it through a pipe, as $(...)
 *	does, would wait for it for ever; give CMD a file or /dev/null.
 *
 * Why: fgraphtop check forks a helper to mkdir its tracefs instance (so that
 * a SIGKILL cannot land inside the kernel's ring buffer allocation). A test
 * that the next check waits for such a helper must hold one alive across the
 * kill. Polling /proc for it is a race the helper wins whenever the mkdir is
 * quick (Debian's 6.1.176: gone before the first poll); a fork stop is not.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *state_dir, *key;
static int verbose;
static FILE *out;

static void usage(void)
{
	fprintf(stderr, "usage: fgt-catch [-v] [-o OUT] -s STATE_DIR -k KEY -- CMD ARGS...\n");
	exit(2);
}

/* Does PID's state file record KEY= at the start of a line? */
static int state_has_key(pid_t pid)
{
	char path[4096], line[512];
	size_t kl = strlen(key);
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/check-%d.state", state_dir, (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, key, kl) && line[kl] == '=';
	fclose(f);
	return found;
}

/*
 * A forked child's first stop may be reported before its parent's fork
 * event: such a child is held here, not continued, until the event says
 * whether it is the helper (continued, it ran the mkdir before it could be
 * caught: a lab round on Debian's 6.1, 2026-12-06, whose next run found the
 * instance made and the lock free).
 */
#define EARLY_MAX	64
static pid_t early[EARLY_MAX];
static int nr_early;

/* Is t a new process (not one of the command's threads)? */
static int new_process(pid_t t, pid_t cmd)
{
	char path[64], line[128];
	long tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)t);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	fclose(f);
	return tgid == (long)t && t != cmd;
}

static int hold_early(pid_t t)
{
	if (nr_early == EARLY_MAX)
		return 0;
	early[nr_early++] = t;
	return 1;
}

static int take_early(pid_t c)
{
	for (int i = 0; i < nr_early; i++)
		if (early[i] == c) {
			early[i] = early[--nr_early];
			return 1;
		}
	return 0;
}

/* The child of a fork event: wait for its first stop (unless it came
 * first), then let it go (sig 0) or leave it stopped (SIGSTOP, delivered as
 * it is detached). */
static int release_child(pid_t c, int sig)
{
	int st;

	if (!take_early(c))
		while (waitpid(c, &st, __WALL) < 0)
			if (errno != EINTR)
				return -1;
	return ptrace(PTRACE_DETACH, c, NULL, (void *)(long)sig) ? -1 : 0;
}

/*
 * Detached with SIGSTOP pending, the helper stops only once it is scheduled
 * to take the signal; a caller that looks at once can find it still
 * runnable (tests/lab/catch.sh on a busy host: 2 rounds of 200, "not
 * stopped"). It runs no instruction of its own before the stop, so wait for
 * it here: the line is written once the helper is stopped. 0 once its state
 * is T, -1 if it is gone or still not stopped after STOP_WAIT_MS.
 */
#define STOP_WAIT_MS	10000

static int wait_stopped(pid_t h)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)h);
	for (int ms = 0; ms < STOP_WAIT_MS; ms++) {
		f = fopen(path, "r");
		if (!f)
			return -1;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = 0;
		/* the state follows the last ')': comm may hold one */
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'T')
			return 0;
		usleep(1000);
	}
	return -1;
}

static pid_t start(char **argv)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		execvp(argv[0], argv);
		fprintf(stderr, "fgt-catch: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st))
		return -1;
	/* EXITKILL: a catcher that dies takes the command with it */
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)(PTRACE_O_TRACEFORK |
		   PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)) ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL))
		return -1;
	return pid;
}

int main(int argc, char **argv)
{
	long helper = -1;
	pid_t pid;
	int opt, st;

	while ((opt = getopt(argc, argv, "+s:k:o:v")) != -1) {
		switch (opt) {
		case 's': state_dir = optarg; break;
		case 'k': key = optarg; break;
		case 'v': verbose = 1; break;
		case 'o':
			out = fopen(optarg, "w");
			if (!out) {
				fprintf(stderr, "fgt-catch: %s: %s\n", optarg, strerror(errno));
				return 1;
			}
			break;
		default: usage();
		}
	}
	if (!state_dir || !key || optind >= argc)
		usage();
	pid = start(argv + optind);
	if (pid < 0) {
		fprintf(stderr, "fgt-catch: cannot trace %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	for (;;) {
		unsigned long c;
		int sig = 0;
		pid_t t = waitpid(-1, &st, __WALL);

		if (t < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (verbose)
			fprintf(stderr, "fgt-catch: %d: status %#x\n", (int)t, st);
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (t == pid)
				break;
			continue;	/* one of its threads */
		}
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_FORK << 8)) &&
		    !ptrace(PTRACE_GETEVENTMSG, t, NULL, &c)) {
			if (helper < 0 && state_has_key(pid)) {
				helper = (long)c;
				release_child((pid_t)c, SIGSTOP);
				kill(pid, SIGKILL);
			} else {
				release_child((pid_t)c, 0);
			}
		} else if (st >> 16 == 0 && WSTOPSIG(st) == SIGSTOP && new_process(t, pid) &&
			   hold_early(t)) {
			continue;	/* a child before its fork event: held */
		} else if (st >> 16 == 0 && WSTOPSIG(st) != SIGTRAP && WSTOPSIG(st) != SIGSTOP) {
			/* a signal for the command: pass it on (SIGSTOP is
			 * a new thread's first stop, ptrace's own) */
			sig = WSTOPSIG(st);
		}
		ptrace(PTRACE_CONT, t, NULL, (void *)(long)sig);
	}
	st = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (helper >= 0 && wait_stopped((pid_t)helper)) {
		fprintf(stderr, "fgt-catch: helper %ld did not stop\n", helper);
		return 1;
	}
	if (!out)
		out = stdout;
	if (helper < 0)
		fprintf(out, "{\"pid\":%d,\"helper\":null,\"status\":%d}\n", (int)pid, st);
	else
		fprintf(out, "{\"pid\":%d,\"helper\":%ld,\"status\":%d}\n", (int)pid, helper, st);
	return fclose(out) ? 1 : 0;
}
