// SPDX-License-Identifier: GPL-2.0
/*
 * The textfile writer: content, atomic replacement, refusals, and no temp file
 * left behind on any error. `promtool check metrics` validates the format when
 * Debian's prometheus package is installed (skipped otherwise).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "check/check.h"
#include "check/prom.h"
#include "common/cli.h"
#include <bpf/libbpf.h>

/* check's answer as rendered into the textfile (src/check/answer.c) */
static const struct fgt_check_result metrics = {
	.verdict = FGT_VERDICT_NOT_FIXED, .status = 2,
	.kid = { .release = "6.1.0-27-amd64", .build_id = "5ac3282452ac8ed3f00d" },
	.check_time = 1795000000.25,
	.seen = { .have = true,
		  .fig = { .duration_ns = 249000000, .sweeps = 313, .served = 10002 } },
};

struct dir {
	char path[64];
	char file[128];
};

static int setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	snprintf(d->path, sizeof(d->path), "/tmp/fgt-prom-XXXXXX");
	if (!mkdtemp(d->path))
		return -1;
	snprintf(d->file, sizeof(d->file), "%s/fgraphtop.prom", d->path);
	*state = d;
	return 0;
}

static int teardown(void **state)
{
	struct dir *d = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
	if (system(cmd))
		return -1;
	free(d);
	return 0;
}

/* Entries in the directory other than the ones named. */
static unsigned int stray_files(const char *dir, const char *keep1, const char *keep2)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned int n = 0;

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((keep1 && !strcmp(de->d_name, keep1)) || (keep2 && !strcmp(de->d_name, keep2)))
			continue;
		n++;
	}
	closedir(d);
	return n;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[8192];
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_render(void **state)
{
	struct fgt_check_result m = metrics;
	char *buf = NULL, *s, want[128];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	snprintf(m.kid.release, sizeof(m.kid.release), "weird\"rel\\ease\n");
	assert_int_equal(fgt_check_render_prom(f, &m), 0);
	fclose(f);
	s = buf;
	assert_non_null(strstr(s, "# TYPE fgraphtop_verdict gauge\n"));
	assert_non_null(strstr(s, "fgraphtop_verdict{verdict=\"not_fixed\",release=\"weird\\\"rel\\\\ease\\n\","
			       "build_id=\"5ac3282452ac8ed3f00d\"} 1\n"));
	assert_non_null(strstr(s, "fgraphtop_verdict{verdict=\"fixed\","));
	assert_non_null(strstr(s, "\"} 0\n"));
	assert_non_null(strstr(s, "fgraphtop_activation_sweeps 313\n"));
	assert_non_null(strstr(s, "fgraphtop_activation_threads_served 10002\n"));
	assert_non_null(strstr(s, "fgraphtop_activation_duration_seconds 0.249\n"));
	assert_non_null(strstr(s, "fgraphtop_check_timestamp_seconds 1795000000.25\n"));
	assert_non_null(strstr(s, "fgraphtop_check_status 2\n"));
	/* which fgraphtop wrote it, first */
	snprintf(want, sizeof(want), "# HELP fgraphtop_build_info ");
	assert_memory_equal(s, want, strlen(want));
	snprintf(want, sizeof(want), "fgraphtop_build_info{version=\"%s\",libbpf=\"v%u.%u\"} 1\n",
		 FGT_VERSION, libbpf_major_version(), libbpf_minor_version());
	assert_non_null(strstr(s, want));
	free(buf);

	/* no activation: its figures are absent rather than a misleading 0 */
	m.seen.have = false;
	buf = NULL;
	f = open_memstream(&buf, &len);
	fgt_check_render_prom(f, &m);
	fclose(f);
	assert_null(strstr(buf, "fgraphtop_activation_sweeps"));
	assert_non_null(strstr(buf, "fgraphtop_kernel_info{"));
	free(buf);
}

static void test_write_and_replace(void **state)
{
	struct dir *d = *state;
	struct fgt_check_result m = metrics;
	char err[256] = "";
	struct stat st;

	assert_int_equal(fgt_check_write_prom(d->file, &m, err, sizeof(err)), 0);
	assert_non_null(strstr(slurp(d->file), "verdict=\"not_fixed\",release=\"6.1.0-27-amd64\""));
	assert_int_equal(stat(d->file, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	m.verdict = FGT_VERDICT_FIXED;
	assert_int_equal(fgt_check_write_prom(d->file, &m, err, sizeof(err)), 0);
	assert_non_null(strstr(slurp(d->file), "fgraphtop_verdict{verdict=\"fixed\",release=\"6.1.0-27-amd64\","
			       "build_id=\"5ac3282452ac8ed3f00d\"} 1"));
	assert_int_equal(stray_files(d->path, "fgraphtop.prom", NULL), 0);
}

static void test_symlink_refused(void **state)
{
	struct dir *d = *state;
	char target[160], err[256] = "";

	snprintf(target, sizeof(target), "%s/target", d->path);
	close(open(target, O_CREAT | O_WRONLY, 0600));
	assert_int_equal(symlink(target, d->file), 0);
	assert_int_equal(fgt_check_write_prom(d->file, &metrics, err, sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "symlink"));
	assert_string_equal(slurp(target), "");		/* not written through */
	assert_int_equal(stray_files(d->path, "fgraphtop.prom", "target"), 0);
}

static void test_bad_directory(void **state)
{
	struct dir *d = *state;
	char path[200], link[160], err[256] = "";

	/* the "directory" is a regular file */
	snprintf(link, sizeof(link), "%s/plain", d->path);
	close(open(link, O_CREAT | O_WRONLY, 0600));
	snprintf(path, sizeof(path), "%s/x.prom", link);
	assert_int_equal(fgt_check_write_prom(path, &metrics, err, sizeof(err)), -ENOTDIR);
	/* the directory is a symlink to a directory */
	snprintf(link, sizeof(link), "%s/dirlink", d->path);
	assert_int_equal(symlink(d->path, link), 0);
	snprintf(path, sizeof(path), "%s/x.prom", link);
	assert_int_equal(fgt_check_write_prom(path, &metrics, err, sizeof(err)), -ENOTDIR);
	snprintf(path, sizeof(path), "%s/missing/x.prom", d->path);
	assert_int_equal(fgt_check_write_prom(path, &metrics, err, sizeof(err)), -ENOENT);
	assert_int_equal(fgt_check_write_prom("", &metrics, err, sizeof(err)), -EINVAL);
	assert_int_equal(stray_files(d->path, "plain", "dirlink"), 0);
}

/* FILE is a non-empty directory: refused before anything is written, and
 * nothing is left behind. */
static void test_rename_error_cleans_up(void **state)
{
	struct dir *d = *state;
	char inner[200], err[256] = "", want[300];

	assert_int_equal(mkdir(d->file, 0755), 0);
	snprintf(inner, sizeof(inner), "%s/keep", d->file);
	close(open(inner, O_CREAT | O_WRONLY, 0600));
	assert_int_equal(fgt_check_write_prom(d->file, &metrics, err, sizeof(err)), -EEXIST);
	snprintf(want, sizeof(want), "%s: a directory, not a regular file: refusing to replace it",
		 d->file);
	assert_string_equal(err, want);
	assert_int_equal(stray_files(d->path, "fgraphtop.prom", NULL), 0);
}

/*
 * Issue 40, class 8: --prometheus=/dev/full as root replaced the device node
 * with a regular file. Any existing FILE that is not a regular file (a
 * device, a FIFO, a socket) is refused, untouched, nothing left behind.
 */
static void test_not_regular_refused(void **state)
{
	struct dir *d = *state;
	char err[256] = "", want[300];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int s;

	assert_int_equal(fgt_check_write_prom("/dev/null", &metrics, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, "/dev/null: a device, not a regular file: refusing to replace it");
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(mkfifo(d->file, 0600), 0);
	assert_int_equal(fgt_check_write_prom(d->file, &metrics, err, sizeof(err)), -EEXIST);
	snprintf(want, sizeof(want), "%s: a FIFO, not a regular file: refusing to replace it", d->file);
	assert_string_equal(err, want);
	assert_int_equal(stat(d->file, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(stray_files(d->path, "fgraphtop.prom", NULL), 0);
	assert_int_equal(unlink(d->file), 0);
	assert_true(strlen(d->file) < sizeof(sa.sun_path));
	memcpy(sa.sun_path, d->file, strlen(d->file) + 1);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(s >= 0);
	assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(fgt_check_write_prom(d->file, &metrics, err, sizeof(err)), -EEXIST);
	snprintf(want, sizeof(want), "%s: a socket, not a regular file: refusing to replace it",
		 d->file);
	assert_string_equal(err, want);
	close(s);
	assert_int_equal(stray_files(d->path, "fgraphtop.prom", NULL), 0);
}

/* write fails half way (RLIMIT_FSIZE): the old file stays whole, no temp file. */
static void test_write_error_cleans_up(void **state)
{
	struct dir *d = *state;
	char err[256];
	int status;
	pid_t pid;

	assert_int_equal(fgt_check_write_prom(d->file, &metrics, err, sizeof(err)), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 100, 100 };
		struct fgt_check_result m = metrics;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		m.verdict = FGT_VERDICT_FIXED;
		_exit(fgt_check_write_prom(d->file, &m, err, sizeof(err)) == -EFBIG ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_non_null(strstr(slurp(d->file), "verdict=\"not_fixed\",release=\"6.1.0-27-amd64\","
			       "build_id=\"5ac3282452ac8ed3f00d\"} 1"));
	assert_int_equal(stray_files(d->path, "fgraphtop.prom", NULL), 0);
}

static void test_promtool(void **state)
{
	struct dir *d = *state;
	struct fgt_check_result m = metrics;
	char cmd[256], err[256];

	if (system("command -v promtool >/dev/null 2>&1")) {
		print_message("promtool not installed (Debian: prometheus): skipped\n");
		skip();
	}
	snprintf(m.kid.release, sizeof(m.kid.release), "7.2.13+deb14-amd64 \"odd\" \\");
	assert_int_equal(fgt_check_write_prom(d->file, &m, err, sizeof(err)), 0);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < '%s'", d->file);
	assert_int_equal(system(cmd), 0);
	m.seen.have = false;
	assert_int_equal(fgt_check_write_prom(d->file, &m, err, sizeof(err)), 0);
	assert_int_equal(system(cmd), 0);
}

/* Fixed, degraded under memory pressure: the figures of the degradation. */
static void test_render_degraded(void **state)
{
	struct fgt_check_result m = metrics;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	m.verdict = FGT_VERDICT_FIXED, m.status = 1, m.seen.fig.sweeps = 8;
	m.seen.fig.served = 30048;
	m.seen.fig.failures = 231, m.seen.fig.failed_nonblocking = 231;
	m.seen.fig.extra_sweeps = 7, m.seen.fig.extra_sweeps_ns = 500000000;
	assert_int_equal(fgt_check_render_prom(f, &m), 0);
	fclose(f);
	assert_non_null(strstr(buf, "fgraphtop_check_status 1\n"));
	assert_non_null(strstr(buf, "fgraphtop_activation_failures 231\n"));
	assert_non_null(strstr(buf, "# TYPE fgraphtop_activation_nonblocking_failures gauge\n"
			       "fgraphtop_activation_nonblocking_failures 231\n"));
	assert_non_null(strstr(buf, "fgraphtop_activation_extra_sweeps 7\n"));
	assert_non_null(strstr(buf, "fgraphtop_activation_extra_sweeps_seconds 0.5\n"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_render_degraded),
		cmocka_unit_test_setup_teardown(test_write_and_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rename_error_cleans_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_regular_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_error_cleans_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_promtool, setup, teardown),
	};

	return cmocka_run_group_tests_name("prom", tests, NULL, NULL);
}
