// SPDX-License-Identifier: GPL-2.0
/*
 * The trigger against a fake tracefs tree: the method fallbacks, the state file
 * written before each change and removed after the undo, the lock, and the
 * clean-up of what a SIGKILLed run left (simulated by a child that _exits
 * between fgt_trig_on and fgt_trig_off, and by a real SIGKILL).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "check_fake.h"
#include "park.h"
#include "trigger.h"

static struct fgt_trig_cfg cfg_of(const struct fake *f)
{
	struct fgt_trig_cfg c = { .tracefs = f->tracefs, .state_dir = f->state, .no_bpf = true };
	return c;
}

static unsigned int state_files(const struct fake *f)
{
	char cmd[256];
	FILE *p;
	unsigned int n = 0;

	snprintf(cmd, sizeof(cmd), "ls '%s' 2>/dev/null | grep -c '^check-.*\\.state$'", f->state);
	p = popen(cmd, "r");
	if (fscanf(p, "%u", &n) != 1)
		n = 0;
	pclose(p);
	return n;
}

/* A plain directory cannot be a tracefs instance (no available_tracers in it):
 * the instance method backs out, kretprobe.multi is off, the idle top level is used. */
static void test_toplevel_fallback_and_restore(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_trig_cfg c = cfg_of(f);
	struct fgt_trigger t;
	char cleaned[256], msg[512];
	char statefile[128];

	assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)), 0);
	assert_string_equal(cleaned, "");
	assert_int_equal(state_files(f), 1);	/* before anything changes */
	assert_int_equal(fgt_trig_on(&t, msg, sizeof(msg)), 0);
	assert_int_equal(t.method, FGT_TRIG_TOPLEVEL);
	assert_non_null(strstr(msg, "does not allow function_graph in tracefs instances"));
	assert_non_null(strstr(msg, "fprobe does not go through fgraph"));
	assert_string_equal(fake_read(f, "tracing/current_tracer"), "function_graph");
	assert_string_equal(fake_read(f, "tracing/set_ftrace_filter"), "__x64_sys_reboot");
	snprintf(statefile, sizeof(statefile), "run/check-%d.state", (int)getpid());
	assert_non_null(strstr(fake_read(f, statefile), "toplevel=__x64_sys_reboot"));
	assert_null(strstr(fake_read(f, statefile), "instance="));
	/* the instance it tried is gone */
	assert_false(fake_exists(f, "tracing/instances/" FGT_INSTANCE_PREFIX "1"));
	msg[0] = '\0';
	assert_int_equal(fgt_trig_off(&t, msg, sizeof(msg)), 0);
	assert_string_equal(fake_read(f, "tracing/current_tracer"), "nop");
	assert_string_equal(fake_read(f, "tracing/set_ftrace_filter"), "");
	fgt_trig_release(&t);
	assert_int_equal(state_files(f), 0);
	fake_free(f);
}

/* Busy top level: every method refuses, nothing is changed. */
static void test_refusals(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_trig_cfg c = cfg_of(f);
	struct fgt_trigger t;
	char cleaned[256], msg[512];

	fake_write(f, "tracing/current_tracer", "function\n");
	assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)), 0);
	assert_int_equal(fgt_trig_on(&t, msg, sizeof(msg)), -EBUSY);
	assert_non_null(strstr(msg, "top-level tracer is in use (function)"));
	assert_string_equal(fake_read(f, "tracing/current_tracer"), "function");
	fgt_trig_off(&t, msg, sizeof(msg));
	fgt_trig_release(&t);

	fake_write(f, "tracing/current_tracer", "nop\n");
	fake_write(f, "tracing/set_event", "sched:sched_switch\n");
	assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)), 0);
	assert_int_equal(fgt_trig_on(&t, msg, sizeof(msg)), -EBUSY);
	assert_non_null(strstr(msg, "trace events are enabled"));
	fgt_trig_off(&t, msg, sizeof(msg));
	fgt_trig_release(&t);

	fake_write(f, "tracing/set_event", "");
	fake_write(f, "tracing/set_ftrace_filter", "vfs_read\n");
	assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)), 0);
	assert_int_equal(fgt_trig_on(&t, msg, sizeof(msg)), -EBUSY);
	assert_non_null(strstr(msg, "set_ftrace_filter is in use"));
	assert_string_equal(fake_read(f, "tracing/set_ftrace_filter"), "vfs_read");
	fgt_trig_off(&t, msg, sizeof(msg));
	fgt_trig_release(&t);
	assert_int_equal(state_files(f), 0);
	fake_free(f);
}

/* A run that dies between on and off (SIGKILL): the next run undoes it. */
static void test_killed_run_cleaned(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_trig_cfg c = cfg_of(f);
	struct fgt_trigger t;
	char cleaned[512], msg[512];
	int status, p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		struct fgt_trigger ct;
		char m[512], cl[64];

		close(p[0]);
		if (fgt_trig_prepare(&ct, &c, cl, sizeof(cl), m, sizeof(m)) ||
		    fgt_trig_on(&ct, m, sizeof(m)))
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();	/* SIGKILLed here, lock held */
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], msg, 1), 1);
	/* while it lives, the lock says so */
	assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)), -EBUSY);
	assert_non_null(strstr(msg, "another fgraphtop check --trigger is running"));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	assert_true(WIFSIGNALED(status));
	close(p[0]);
	assert_string_equal(fake_read(f, "tracing/current_tracer"), "function_graph");
	assert_int_equal(state_files(f), 1);

	assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)), 0);
	assert_non_null(strstr(cleaned, "reset the top-level tracer left by killed check pid"));
	assert_string_equal(fake_read(f, "tracing/current_tracer"), "nop");
	assert_string_equal(fake_read(f, "tracing/set_ftrace_filter"), "");
	assert_int_equal(state_files(f), 1);	/* ours only */
	fgt_trig_release(&t);
	assert_int_equal(state_files(f), 0);
	fake_free(f);
}

/* A dead run's instance (recorded, and a stray one not recorded) is removed;
 * a top level someone else changed since is left alone. */
static void test_stale_instances(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_trig_cfg c = cfg_of(f);
	struct fgt_trigger t;
	char cleaned[512], msg[512];

	fake_mkdir(f, "run");
	fake_mkdir(f, "tracing/instances/" FGT_INSTANCE_PREFIX "99998");
	fake_mkdir(f, "tracing/instances/" FGT_INSTANCE_PREFIX "99997");
	fake_mkdir(f, "tracing/instances/someone-else");
	fake_write(f, "run/check-99998.state", "pid=99998\ninstance=" FGT_INSTANCE_PREFIX
		   "99998\ntoplevel=__x64_sys_reboot\n");
	fake_write(f, "tracing/current_tracer", "function\n");	/* changed since */
	fake_write(f, "tracing/set_ftrace_filter", "vfs_read\n");
	assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)), 0);
	assert_non_null(strstr(cleaned, "removed tracefs instance " FGT_INSTANCE_PREFIX
			       "99998 left by killed check pid 99998"));
	assert_non_null(strstr(cleaned, "removed stray tracefs instance " FGT_INSTANCE_PREFIX "99997"));
	assert_non_null(strstr(cleaned, "changed since killed check pid 99998: left alone"));
	assert_false(fake_exists(f, "tracing/instances/" FGT_INSTANCE_PREFIX "99998"));
	assert_false(fake_exists(f, "tracing/instances/" FGT_INSTANCE_PREFIX "99997"));
	assert_true(fake_exists(f, "tracing/instances/someone-else"));
	assert_string_equal(fake_read(f, "tracing/current_tracer"), "function");
	assert_false(fake_exists(f, "run/check-99998.state"));
	fgt_trig_release(&t);
	fake_free(f);
}

/* Unknown cold functions are skipped (the kernel's EINVAL is not testable
 * here); a missing tracefs leaves no method but says why. */
static void test_no_tracefs(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_trig_cfg c = cfg_of(f);
	struct fgt_trigger t;
	char cleaned[256], msg[512];

	c.tracefs = NULL;
	/* fgt_tracefs_find() may find the real one: force "none" by a bad path */
	c.tracefs = "/nonexistent-tracefs";
	assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)), 0);
	assert_true(fgt_trig_on(&t, msg, sizeof(msg)) < 0);
	fgt_trig_off(&t, msg, sizeof(msg));
	fgt_trig_release(&t);
	assert_int_equal(state_files(f), 0);
	fake_free(f);
}

static void test_park(void **state)
{
	struct fgt_park *p = fgt_park_start(FGT_PARK_THREADS);
	char path[64], line[256];
	unsigned int threads = 0;
	FILE *fp;

	assert_non_null(p);
	assert_int_equal(fgt_park_count(p), FGT_PARK_THREADS);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)getpid());
	fp = fopen(path, "r");
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "Threads: %u", &threads) == 1)
			break;
	fclose(fp);
	assert_true(threads >= FGT_PARK_THREADS + 1);
	fgt_park_stop(p);
	fgt_park_stop(NULL);
	assert_true(FGT_PARK_THREADS > 64);	/* an unfixed kernel needs >= 3 sweeps */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toplevel_fallback_and_restore),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_killed_run_cleaned),
		cmocka_unit_test(test_stale_instances),
		cmocka_unit_test(test_no_tracefs),
		cmocka_unit_test(test_park),
	};

	return cmocka_run_group_tests_name("check_trigger", tests, NULL, NULL);
}
