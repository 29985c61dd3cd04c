// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-trigger: make the function-graph tracer go 0 -> 1 (on) or back (off).
 *
 *   fgt-trigger [-u SNAP] [-f FUNC] [-i INSTANCE] tracefs|kretmulti|trace-cmd on|off
 *
 * tracefs    writes function_graph (then nop) to current_tracer, top level or
 *            in tracefs instance INSTANCE; -f FUNC limits it to one function
 *            (set_ftrace_filter), which keeps the 0 -> 1 walk but not the cost
 *            of patching every call site.
 * kretmulti  a BPF kretprobe.multi link on FUNC (default bpf_fentry_test1, which
 *            nothing calls), held by a background copy of this program until
 *            "off"; an fgraph user only from 6.14.
 * trace-cmd  runs Debian's `trace-cmd start -p function_graph [-l FUNC]` /
 *            `trace-cmd reset`.
 *
 * Prints one JSON line: the trigger's own wall time (ns), and for "on" the
 * oracle's U counted just before it (see fgt-u.h). "off" first records the
 * snapshot the next activation's U is counted against.
 * Exit status 0 when the trigger worked, 1 when it failed, 3 when unsupported.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "fgt-u.h"
#include "kretmulti.skel.h"

#define RUN_DIR "/run/fgt"
#define KRET_PID RUN_DIR "/kretmulti.pid"
#define KRET_OFF RUN_DIR "/kretmulti.off"

static const char *snap_path = FGT_SNAP_DEFAULT;
static const char *func;
static const char *instance;
static char errmsg[256];

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static const char *tracefs_dir(void)
{
	static char dir[256];
	struct stat st;
	const char *base = "/sys/kernel/tracing";

	if (stat("/sys/kernel/tracing/current_tracer", &st))
		base = "/sys/kernel/debug/tracing";
	if (instance)
		snprintf(dir, sizeof(dir), "%s/instances/%s", base, instance);
	else
		snprintf(dir, sizeof(dir), "%s", base);
	return dir;
}

/*
 * $FGT_TRIGGER_MARK, when set: a file made just before the call that walks
 * (after the count of U), for a scenario that must start its tools that
 * far into the walk (lab/scenarios/join.sh). Counting 30,000 threads takes
 * seconds on a loaded host: timed from the launch, the tools looked before
 * the walk began. A tracefs instance of kmem events found the walk's start
 * too, but it traced every allocation and made the guest 3x slower.
 */
static void mark_walk(void)
{
	const char *p = getenv("FGT_TRIGGER_MARK");
	int fd;

	if (!p || !*p)
		return;
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

static int write_file(const char *dir, const char *name, const char *val,
		      unsigned long long *ns)
{
	unsigned long long t0;
	char path[512];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0) {
		err = -errno;
		snprintf(errmsg, sizeof(errmsg), "open %s: %s", path, strerror(errno));
		return err;
	}
	t0 = now_ns();
	if (write(fd, val, strlen(val)) < 0) {
		err = -errno;
		snprintf(errmsg, sizeof(errmsg), "write %s to %s: %s", val, path,
			 strerror(errno));
	}
	if (ns)
		*ns = now_ns() - t0;
	close(fd);
	return err;
}

static int has_word(const char *path, const char *word)
{
	char buf[4096];
	size_t n;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (char *tok = strtok(buf, " \n"); tok; tok = strtok(NULL, " \n"))
		if (!strcmp(tok, word))
			return 1;
	return 0;
}

static int tracefs(int on, unsigned long long *ns, struct ucount *uc)
{
	const char *dir = tracefs_dir();
	char path[512];
	int err;

	if (instance && on) {
		mkdir(dir, 0755);	/* creating an instance is a mkdir */
	}
	snprintf(path, sizeof(path), "%s/available_tracers", dir);
	if (!has_word(path, "function_graph")) {
		snprintf(errmsg, sizeof(errmsg), "no function_graph in %s", path);
		return -EOPNOTSUPP;
	}
	if (!on) {
		err = write_file(dir, "current_tracer", "nop", ns);
		if (!err && func)
			err = write_file(dir, "set_ftrace_filter", "", NULL);
		/* The instance was made by "on": leave tracefs as found. */
		if (!err && instance)
			rmdir(dir);
		return err;
	}
	if (func && (err = write_file(dir, "set_ftrace_filter", func, NULL)))
		return err;
	if ((err = fgt_count_u(snap_path, uc)))
		return err;
	mark_walk();
	return write_file(dir, "current_tracer", "function_graph", ns);
}

static int run_cmd(char *const argv[], unsigned long long *ns)
{
	unsigned long long t0 = now_ns();
	int status, err = 0;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		/* trace-cmd talks a lot; the console is slow under TCG. */
		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		err = -errno;
	*ns = now_ns() - t0;
	if (!err && (!WIFEXITED(status) || WEXITSTATUS(status))) {
		snprintf(errmsg, sizeof(errmsg), "%s %s: status 0x%x", argv[0], argv[1], status);
		err = WIFEXITED(status) && WEXITSTATUS(status) == 127 ? -ENOENT : -EIO;
	}
	return err;
}

static int trace_cmd(int on, unsigned long long *ns, struct ucount *uc)
{
	char *start[] = { "trace-cmd", "start", "-p", "function_graph", NULL, NULL, NULL };
	char *reset[] = { "trace-cmd", "reset", NULL };
	int err;

	if (!on)
		return run_cmd(reset, ns);
	if (func) {
		start[4] = "-l";
		start[5] = (char *)func;
	}
	if ((err = fgt_count_u(snap_path, uc)))
		return err;
	/* trace-cmd itself is one more thread without a stack at the walk. */
	uc->threads++;
	uc->u++;
	return run_cmd(start, ns);
}

struct kret_msg {
	int err;
	unsigned long long ns;
	struct ucount uc;
	char errmsg[256];
};

static volatile sig_atomic_t kret_stop;

static void on_term(int sig)
{
	kret_stop = 1;
}

/* The background holder: attach, report through the pipe, hold until SIGTERM. */
static void kret_holder(int wfd)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .retprobe = true);
	struct kretmulti_bpf *skel = NULL;
	struct bpf_link *link = NULL;
	struct sigaction sa = { .sa_handler = on_term };
	struct kret_msg msg = {};
	const char *syms[1] = { func ? func : "bpf_fentry_test1" };
	unsigned long long t0, t1;
	FILE *f;
	int fd;

	setsid();
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	skel = kretmulti_bpf__open_and_load();
	if (!skel) {
		msg.err = -errno;
		snprintf(msg.errmsg, sizeof(msg.errmsg), "load kretprobe.multi: %s",
			 strerror(errno));
		goto cleanup;
	}
	opts.syms = syms;
	opts.cnt = 1;
	if ((msg.err = fgt_count_u(snap_path, &msg.uc)))
		goto cleanup;
	mark_walk();
	t0 = now_ns();
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.on_return, NULL, &opts);
	msg.ns = now_ns() - t0;
	if (!link) {
		msg.err = -errno;
		snprintf(msg.errmsg, sizeof(msg.errmsg), "attach kretprobe.multi %s: %s",
			 syms[0], strerror(errno));
		goto cleanup;
	}
	f = fopen(KRET_PID, "w");
	if (f) {
		fprintf(f, "%d\n", getpid());
		fclose(f);
	}
	unlink(KRET_OFF);
	if (write(wfd, &msg, sizeof(msg)) != sizeof(msg))
		goto cleanup;
	close(wfd);
	wfd = -1;
	while (!kret_stop)
		pause();
	t0 = now_ns();
	bpf_link__destroy(link);
	link = NULL;
	t1 = now_ns();
	f = fopen(KRET_OFF ".tmp", "w");
	if (f) {
		fprintf(f, "%llu\n", t1 - t0);
		fclose(f);
		rename(KRET_OFF ".tmp", KRET_OFF);
	}
	unlink(KRET_PID);
cleanup:
	if (wfd >= 0)
		(void)!write(wfd, &msg, sizeof(msg));
	bpf_link__destroy(link);
	kretmulti_bpf__destroy(skel);
	_exit(msg.err ? 1 : 0);
}

static int kretmulti(int on, unsigned long long *ns, struct ucount *uc)
{
	struct kret_msg msg = {};
	int fds[2], pid = 0, err = 0, i;
	FILE *f;

	if (!on) {
		f = fopen(KRET_PID, "r");
		if (!f || fscanf(f, "%d", &pid) != 1 || pid <= 0) {
			if (f)
				fclose(f);
			snprintf(errmsg, sizeof(errmsg), "no kretprobe.multi holder (%s)", KRET_PID);
			return -ENOENT;
		}
		fclose(f);
		if (kill(pid, SIGTERM))
			return -errno;
		/* The holder times its own detach and leaves it in KRET_OFF. */
		for (i = 0; i < 6000; i++) {
			f = fopen(KRET_OFF, "r");
			if (f) {
				err = fscanf(f, "%llu", ns) == 1 ? 0 : -EIO;
				fclose(f);
				unlink(KRET_OFF);
				return err;
			}
			usleep(10000);
		}
		snprintf(errmsg, sizeof(errmsg), "holder %d did not detach in 60 s", pid);
		return -ETIMEDOUT;
	}
	if (pipe(fds))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto cleanup;
	}
	if (pid == 0) {
		close(fds[0]);
		kret_holder(fds[1]);
	}
	close(fds[1]);
	fds[1] = -1;
	if (read(fds[0], &msg, sizeof(msg)) != sizeof(msg)) {
		snprintf(errmsg, sizeof(errmsg), "kretprobe.multi holder died");
		err = -EIO;
		goto cleanup;
	}
	*ns = msg.ns;
	*uc = msg.uc;
	err = msg.err;
	if (err) {
		memcpy(errmsg, msg.errmsg, sizeof(errmsg));
		waitpid(pid, NULL, 0);
	}
cleanup:
	close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	return err;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void usage(void)
{
	fprintf(stderr, "usage: fgt-trigger [-u SNAP] [-f FUNC] [-i INSTANCE] "
			"tracefs|kretmulti|trace-cmd on|off\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct ucount uc = {};
	unsigned long long ns = 0;
	const char *trig, *action;
	long snap_threads = -1;
	int opt, on, err;

	while ((opt = getopt(argc, argv, "u:f:i:")) != -1) {
		switch (opt) {
		case 'u': snap_path = optarg; break;
		case 'f': func = optarg; break;
		case 'i': instance = optarg; break;
		default: usage();
		}
	}
	if (argc - optind != 2)
		usage();
	trig = argv[optind];
	action = argv[optind + 1];
	if (!strcmp(action, "on"))
		on = 1;
	else if (!strcmp(action, "off"))
		on = 0;
	else
		usage();
	mkdir(RUN_DIR, 0755);
	libbpf_set_print(libbpf_quiet);

	/* Before off: every thread alive now holds a stack (barring failures). */
	if (!on && (err = fgt_snapshot(snap_path, &snap_threads))) {
		snprintf(errmsg, sizeof(errmsg), "snapshot %s: %s", snap_path, strerror(-err));
		goto out;
	}
	if (!strcmp(trig, "tracefs"))
		err = tracefs(on, &ns, &uc);
	else if (!strcmp(trig, "trace-cmd"))
		err = trace_cmd(on, &ns, &uc);
	else if (!strcmp(trig, "kretmulti"))
		err = kretmulti(on, &ns, &uc);
	else
		usage();
out:
	printf("{\"type\":\"trigger\",\"trigger\":\"%s\",\"action\":\"%s\",\"ok\":%s,\"ns\":%llu",
	       trig, action, err ? "false" : "true", ns);
	if (on)
		printf(",\"u\":%ld,\"threads\":%ld,\"first\":%s", uc.u, uc.threads,
		       uc.first ? "true" : "false");
	else
		printf(",\"snapshot_threads\":%ld", snap_threads);
	if (err) {
		for (char *p = errmsg; *p; p++)
			if (*p == '"' || *p == '\\')
				*p = '\'';
		printf(",\"error\":\"%s\"", errmsg[0] ? errmsg : strerror(-err));
	}
	printf("}\n");
	if (!err)
		return 0;
	return err == -EOPNOTSUPP ? 3 : 1;
}
