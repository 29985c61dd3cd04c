// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-pty: run a command on a pseudo-terminal of a given size and record
 * what it draws, as a terminal would receive it (the live view's lab test,
 * tests/lab/live.sh; the guest's busybox has no script(1)).
 *
 *   fgt-pty -c COLS -r ROWS -o RAW -t LOG [-C CTL] -- CMD [ARGS...]
 *
 * RAW gets the bytes the command wrote, LOG one line per event:
 *   start COLS ROWS TERMIOS      the terminal before (lflag, hex)
 *   chunk NS LEN                 LEN more bytes of RAW arrived at NS (CLOCK_MONOTONIC)
 *   size NS COLS ROWS            the terminal was resized (SIGWINCH to its job)
 *   key NS HEX                   a key was typed
 *   signal NS SIG                the command was sent SIG
 *   mark NS TEXT                 a step of the scenario (its "mark TEXT" line)
 *   exit NS STATUS TERMIOS       the command ended (status as a shell says it) and
 *                                the terminal's lflag then: the same as at start
 *                                when the command gave the terminal back
 * CTL, a FIFO, takes "size COLS ROWS", "key TEXT" ("\003" escapes: octal),
 * "signal SIG" and "mark TEXT" lines. Exit status: the command's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

static FILE *logf;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static unsigned long lflag(int fd)
{
	struct termios t;

	return tcgetattr(fd, &t) ? 0 : (unsigned long)t.c_lflag;
}

static void set_size(int master, int cols, int rows)
{
	struct winsize ws = { .ws_row = rows, .ws_col = cols };

	/* the kernel sends SIGWINCH to the terminal's foreground job */
	ioctl(master, TIOCSWINSZ, &ws);
}

/* "key \003q" -> bytes: octal escapes, the rest as it is */
static size_t unescape(const char *s, char *out, size_t len)
{
	size_t n = 0;

	while (*s && n < len) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7') {
			out[n++] = (char)strtol(s + 1, (char **)&s, 8);
			continue;
		}
		out[n++] = *s++;
	}
	return n;
}

static void control(char *line, int master, pid_t child)
{
	char keys[64];
	int a, b;
	size_t n;

	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "size %d %d", &a, &b) == 2) {
		set_size(master, a, b);
		fprintf(logf, "size %llu %d %d\n", now_ns(), a, b);
	} else if (!strncmp(line, "key ", 4)) {
		n = unescape(line + 4, keys, sizeof(keys));
		if (write(master, keys, n) < 0)
			perror("fgt-pty: key");
		fprintf(logf, "key %llu ", now_ns());
		for (size_t i = 0; i < n; i++)
			fprintf(logf, "%02x", (unsigned char)keys[i]);
		fputc('\n', logf);
	} else if (!strncmp(line, "mark ", 5)) {
		fprintf(logf, "mark %llu %s\n", now_ns(), line + 5);
	} else if (sscanf(line, "signal %d", &a) == 1) {
		kill(child, a);
		fprintf(logf, "signal %llu %d\n", now_ns(), a);
	}
	fflush(logf);
}

int main(int argc, char **argv)
{
	const char *raw_path = NULL, *log_path = NULL, *ctl_path = NULL;
	int cols = 80, rows = 24, opt, master, slave, ctl = -1, status = 0;
	char buf[65536], cbuf[512];
	size_t clen = 0;
	bool done = false;
	FILE *raw;
	pid_t pid;

	while ((opt = getopt(argc, argv, "c:r:o:t:C:")) != -1) {
		switch (opt) {
		case 'c': cols = atoi(optarg); break;
		case 'r': rows = atoi(optarg); break;
		case 'o': raw_path = optarg; break;
		case 't': log_path = optarg; break;
		case 'C': ctl_path = optarg; break;
		default: return 2;
		}
	}
	if (optind >= argc || !raw_path || !log_path) {
		fprintf(stderr, "usage: fgt-pty -c COLS -r ROWS -o RAW -t LOG [-C CTL] -- CMD...\n");
		return 2;
	}
	raw = fopen(raw_path, "w");
	logf = fopen(log_path, "w");
	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (!raw || !logf || master < 0 || grantpt(master) || unlockpt(master)) {
		perror("fgt-pty");
		return 1;
	}
	set_size(master, cols, rows);
	/* ours too: the terminal's state is read again after the command ends */
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	if (slave < 0) {
		perror("fgt-pty: slave");
		return 1;
	}
	if (ctl_path)
		ctl = open(ctl_path, O_RDWR | O_NONBLOCK);	/* RDWR: no EOF between writers */
	fprintf(logf, "start %d %d %lx\n", cols, rows, lflag(slave));
	fflush(logf);
	pid = fork();
	if (pid == 0) {
		setsid();
		ioctl(slave, TIOCSCTTY, 0);
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		close(master);
		/* what a terminal emulator says it is (pyte's, an xterm's subset):
		 * the guest's console may have none, and TERM=dumb gets the lines */
		setenv("TERM", "xterm", 1);
		execvp(argv[optind], argv + optind);
		_exit(127);
	}
	while (!done) {
		struct pollfd p[2] = { { .fd = master, .events = POLLIN }, { .fd = ctl, .events = POLLIN } };
		ssize_t n;

		if (poll(p, ctl >= 0 ? 2 : 1, 100) < 0 && errno != EINTR)
			break;
		if (p[0].revents & POLLIN) {
			n = read(master, buf, sizeof(buf));
			if (n > 0) {
				fwrite(buf, 1, n, raw);
				fflush(raw);
				fprintf(logf, "chunk %llu %zd\n", now_ns(), n);
				fflush(logf);
				continue;
			}
		}
		if (ctl >= 0 && (p[1].revents & POLLIN)) {
			n = read(ctl, cbuf + clen, sizeof(cbuf) - 1 - clen);
			if (n > 0) {
				char *nl;

				clen += n;
				cbuf[clen] = '\0';
				while ((nl = strchr(cbuf, '\n'))) {
					*nl = '\0';
					control(cbuf, master, pid);
					memmove(cbuf, nl + 1, clen - (nl + 1 - cbuf) + 1);
					clen -= nl + 1 - cbuf;
				}
			}
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			done = true;
	}
	/* what it wrote before it went */
	fcntl(master, F_SETFL, O_NONBLOCK);
	for (ssize_t n; (n = read(master, buf, sizeof(buf))) > 0;) {
		fwrite(buf, 1, n, raw);
		fprintf(logf, "chunk %llu %zd\n", now_ns(), n);
	}
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	fprintf(logf, "exit %llu %d %lx\n", now_ns(), status, lflag(slave));
	fclose(raw);
	fclose(logf);
	return status;
}
