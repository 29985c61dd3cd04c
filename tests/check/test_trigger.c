// SPDX-License-Identifier: GPL-2.0
/*
 * The trigger against a fake tracefs tree: the method fallbacks, the state file
 * written before each change and removed after the undo, the lock, and the
 * clean-up of what a SIGKILLed run left (simulated by a child that _exits
 * between fgt_trig_on and fgt_trig_off, and by a real SIGKILL).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "lib/check_fake.h"
#include "bpf/events_abi.h"
#include "check/parked_threads.h"
#include "check/trigger.h"

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

/* A symlink planted in a control file's place is never written through:
 * the trigger fails, and the file it points at is left as it was. */
static void test_no_write_through_symlink(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_trig_cfg c = cfg_of(f);
	struct fgt_trigger t;
	char cleaned[256], msg[512], link[192], victim[128];
	const char *empty = "#### all functions enabled ####\n";

	snprintf(victim, sizeof(victim), "%s/victim", f->root);
	snprintf(link, sizeof(link), "%s/set_ftrace_filter", f->tracefs);
	fake_write(f, "victim", empty);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)), 0);
	assert_int_not_equal(fgt_trig_on(&t, msg, sizeof(msg)), 0);
	assert_string_equal(fake_read(f, "victim"), "#### all functions enabled ####");
	assert_string_equal(fake_read(f, "tracing/current_tracer"), "nop");
	fgt_trig_off(&t, msg, sizeof(msg));
	fgt_trig_release(&t);
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

/* The real /proc: this process is alive, its owner record round-trips
 * through an instance name, a pid that does not exist is dead. */
static void test_owner(void **state)
{
	struct fgt_owner me, o, dead;
	char name[96];

	assert_int_equal(fgt_owner_self(&me, NULL), 0);
	assert_int_equal(me.pid, getpid());
	assert_true(me.pidns > 0 && me.start > 0);
	assert_int_equal(fgt_owner_alive(&me, NULL), 1);
	fgt_instance_name(&me, name, sizeof(name));
	assert_int_equal(fgt_instance_owner(name, &o), 0);
	assert_true(o.pid == me.pid && o.pidns == me.pidns && o.start == me.start);
	/* the same pid started at another time: a new process, the owner is dead */
	o.start++;
	assert_int_equal(fgt_owner_alive(&o, NULL), 0);
	/* another PID namespace: cannot tell, never taken for dead */
	o = me;
	o.pidns++;
	assert_int_equal(fgt_owner_alive(&o, NULL), -1);
	dead = me;
	dead.pid = 4194303;	/* above pid_max on these machines */
	assert_int_equal(fgt_owner_alive(&dead, NULL), 0);
	/* names that are not ours */
	assert_int_equal(fgt_instance_owner("fgraphtop-check-", &o), -1);
	assert_int_equal(fgt_instance_owner("fgraphtop-check-12-x-3", &o), -1);
	assert_int_equal(fgt_instance_owner("fgraphtop-check-12-3", &o), -1);
	assert_int_equal(fgt_instance_owner("fgraphtop-check-1-2-3-4", &o), -1);
	assert_int_equal(fgt_instance_owner("fgraphtop-check-+1", &o), -1);
	assert_int_equal(fgt_instance_owner("fgraphtop-check-..", &o), -1);
	assert_int_equal(fgt_instance_owner("someone-else", &o), -1);
	/* the old form: pid only, namespace unknown */
	assert_int_equal(fgt_instance_owner("fgraphtop-check-77", &o), 0);
	assert_true(o.pid == 77 && o.pidns == 0);
}

/* A kernel without PID namespaces (no /proc/PID/ns/pid: the lab's minimal
 * kernels): one namespace for all, owners still told apart by pid and start. */
static void test_owner_no_pidns(void **state)
{
	struct fake *f = fake_new(1);
	char proc[256], rel[128], stat[512];
	struct fgt_owner me, o;

	snprintf(proc, sizeof(proc), "%s/proc", f->root);
	fake_mkdir(f, "proc");
	fake_mkdir(f, "proc/self");
	snprintf(rel, sizeof(rel), "proc/%d", (int)getpid());
	fake_mkdir(f, rel);
	/* comm with spaces and a parenthesis: the start time is field 22 */
	snprintf(stat, sizeof(stat), "%d (a b) c) S 1 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 "
		 "4242 1000 100\n", (int)getpid());
	snprintf(rel, sizeof(rel), "proc/%d/stat", (int)getpid());
	fake_write(f, rel, stat);
	assert_int_equal(fgt_owner_self(&me, proc), 0);
	assert_int_equal(me.start, 4242);
	assert_int_equal(me.pidns, 1);
	assert_int_equal(fgt_owner_alive(&me, proc), 1);
	o = me;
	o.start = 4243;
	assert_int_equal(fgt_owner_alive(&o, proc), 0);
	o = me;
	o.pid = 99993;		/* no such process in the fake /proc */
	assert_int_equal(fgt_owner_alive(&o, proc), 0);
	fake_free(f);
}

/* A state file names only what it may: our instance names, the cold
 * functions; never a path. */
static void test_state_parse(void **state)
{
	static const char *const funcs[] = { "__x64_sys_reboot", NULL };
	struct fgt_state st, back;
	char text[1024];

	assert_int_equal(fgt_state_parse("pid=12\npidns=4026531836\nstart=999\n"
					 "instance=fgraphtop-check-12-4026531836-999\n"
					 "toplevel=__x64_sys_reboot\ntracefs=/etc\nbogus\n",
					 &st, funcs), 0);
	assert_int_equal(st.owner.pid, 12);
	assert_string_equal(st.instance, "fgraphtop-check-12-4026531836-999");
	assert_string_equal(st.toplevel, "__x64_sys_reboot");
	fgt_state_render(&st, text, sizeof(text));
	assert_int_equal(fgt_state_parse(text, &back, funcs), 0);
	assert_memory_equal(&st, &back, sizeof(st));
	assert_null(strstr(text, "tracefs="));
	assert_int_equal(fgt_state_parse("pid=12\ninstance=..\n", &st, funcs), -1);
	assert_int_equal(fgt_state_parse("pid=12\ninstance=fgraphtop-check-1/..\n", &st, funcs), -1);
	assert_int_equal(fgt_state_parse("pid=12\ntoplevel=vfs_read\n", &st, funcs), -1);
	assert_int_equal(fgt_state_parse("pid=-12\n", &st, funcs), -1);
	assert_int_equal(fgt_state_parse("instance=fgraphtop-check-5\n", &st, funcs), -1);
	assert_int_equal(fgt_state_parse("", &st, funcs), -1);
	/* a key twice: not a file we wrote (found by tests/fuzz/fuzz_state.c) */
	assert_int_equal(fgt_state_parse("pid=12\npid=13\n", &st, funcs), -1);
	assert_int_equal(fgt_state_parse("pid=12\ninstance=fgraphtop-check-1992\n"
					 "instance=fgraphtop-check-12\n", &st, funcs), -1);
}

/* The state directory must be ours alone; a symlink, a group- or world-
 * writable directory, a planted symlink lock are refused; a planted temp
 * file symlink is never followed. */
static void test_state_dir(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_trig_cfg c = cfg_of(f);
	struct fgt_trigger t;
	char cleaned[256], msg[512], path[256], victim[256], tmp[320];

	/* a symlink to somewhere else */
	fake_mkdir(f, "elsewhere");
	snprintf(path, sizeof(path), "%s/elsewhere", f->root);
	assert_int_equal(symlink(path, f->state), 0);
	assert_true(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "not a directory (a symlink or a file): refusing it"));
	fgt_trig_release(&t);
	assert_int_equal(unlink(f->state), 0);
	/* world-writable */
	assert_int_equal(mkdir(f->state, 0777), 0);
	assert_int_equal(chmod(f->state, 0777), 0);
	assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)),
			 -EPERM);
	assert_non_null(strstr(msg, "that only it can write (owner"));
	assert_non_null(strstr(msg, "mode 0777): refusing it"));
	fgt_trig_release(&t);
	assert_int_equal(chmod(f->state, 0770), 0);
	assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)),
			 -EPERM);
	fgt_trig_release(&t);
	/* owned by someone else (needs root to arrange) */
	assert_int_equal(chmod(f->state, 0700), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(f->state, 65534, 65534), 0);
		assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg,
						  sizeof(msg)), -EPERM);
		fgt_trig_release(&t);
		assert_int_equal(chown(f->state, 0, 0), 0);
	}
	/* a planted lock symlink */
	snprintf(victim, sizeof(victim), "%s/victim", f->root);
	fake_write(f, "victim", "precious\n");
	snprintf(path, sizeof(path), "%s/check.lock", f->state);
	assert_int_equal(symlink(victim, path), 0);
	assert_true(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "cannot open "));
	fgt_trig_release(&t);
	assert_int_equal(unlink(path), 0);
	/* a planted temp file symlink: not followed, the victim untouched */
	snprintf(tmp, sizeof(tmp), "%s/check-%d.state.tmp", f->state, (int)getpid());
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)), 0);
	assert_string_equal(fake_read(f, "victim"), "precious");
	assert_int_equal(state_files(f), 1);
	fgt_trig_release(&t);
	assert_int_equal(state_files(f), 0);
	fake_free(f);
}

/*
 * A run killed inside its instance mkdir leaves the mkdir helper holding the
 * lock: the next run waits for the helper (it does not answer "another check
 * is running" for a dead one), then cleans up. Modelled with a run that forks
 * a lock-holding child and dies; the child marks its exit.
 */
static void test_dead_holder_waited(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_trig_cfg c = cfg_of(f);
	struct fgt_trigger t;
	char cleaned[512], msg[512], mark[600];
	int status;
	pid_t pid;

	snprintf(mark, sizeof(mark), "%s/helper-done", f->root);
	pid = fork();
	if (pid == 0) {
		struct fgt_trigger ct;
		char m[512], cl[64];

		if (fgt_trig_prepare(&ct, &c, cl, sizeof(cl), m, sizeof(m)))
			_exit(1);
		if (fork() == 0) {	/* the helper: shares the lock's open file */
			struct timespec ts = { 0, 300 * 1000 * 1000 };
			int fd;

			nanosleep(&ts, NULL);
			fd = open(mark, O_WRONLY | O_CREAT, 0600);
			_exit(fd < 0);
		}
		_exit(0);	/* killed: no release */
	}
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(access(mark, F_OK), -1);
	assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)), 0);
	/* taken only once the helper let go, and said so */
	assert_int_equal(access(mark, F_OK), 0);
	snprintf(msg, sizeof(msg), "ms for the instance helper of killed check pid %d", (int)pid);
	assert_non_null(strstr(cleaned, msg));
	/* the dead run's state file is gone, ours is there */
	snprintf(mark, sizeof(mark), "%s/check-%d.state", f->state, (int)pid);
	assert_int_equal(access(mark, F_OK), -1);
	assert_int_equal(state_files(f), 1);
	fgt_trig_release(&t);
	assert_int_equal(state_files(f), 0);
	fake_free(f);
}

/* A state file is not trusted: a bad instance name, a path of its own, a
 * live owner: nothing is undone for it. */
static void test_state_untrusted(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_trig_cfg c = cfg_of(f);
	struct fgt_trigger t;
	struct fgt_owner me, parent;
	char cleaned[1024], msg[512], text[512], name[96];

	fake_mkdir(f, "run");
	chmod(f->state, 0700);
	/* instance=.. would have made the clean-up write nop to the top level */
	fake_write(f, "tracing/current_tracer", "function\n");
	fake_write(f, "run/check-99996.state", "pid=99996\ninstance=..\n");
	/* tracefs= from the file: its set_ftrace_filter must not be truncated */
	fake_mkdir(f, "other");
	fake_write(f, "other/set_ftrace_filter", "keep me\n");
	snprintf(text, sizeof(text), "pid=99995\ntracefs=%s/other\ntoplevel=__x64_sys_reboot\n",
		 f->root);
	fake_write(f, "run/check-99995.state", text);
	/* a live owner: this test's parent, in our PID namespace */
	assert_int_equal(fgt_owner_self(&me, NULL), 0);
	parent = me;
	parent.pid = getppid();
	{
		char stat[64], buf[1024], *p;
		FILE *fp;
		int field;

		snprintf(stat, sizeof(stat), "/proc/%ld/stat", parent.pid);
		fp = fopen(stat, "r");
		assert_non_null(fp);
		assert_non_null(fgets(buf, sizeof(buf), fp));
		fclose(fp);
		p = strrchr(buf, ')');
		for (field = 2; p && field < 22; field++)
			p = strchr(p + 1, ' ');
		assert_non_null(p);
		parent.start = strtoull(p + 1, NULL, 10);
	}
	fgt_instance_name(&parent, name, sizeof(name));
	snprintf(text, sizeof(text), "pid=%ld\npidns=%llu\nstart=%llu\ninstance=%s\n",
		 parent.pid, parent.pidns, parent.start, name);
	fake_write(f, "run/check-1.state", text);
	snprintf(text, sizeof(text), "tracing/instances/%s", name);
	fake_mkdir(f, text);
	assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)), 0);
	assert_non_null(strstr(cleaned, "ignored check-99996.state: not a state file of fgraphtop's"));
	assert_non_null(strstr(cleaned, "left check-1.state alone: check pid"));
	assert_non_null(strstr(cleaned, "is still running"));
	assert_string_equal(fake_read(f, "tracing/current_tracer"), "function");
	assert_string_equal(fake_read(f, "other/set_ftrace_filter"), "keep me");
	assert_true(fake_exists(f, text));	/* the live run's instance */
	assert_true(fake_exists(f, "run/check-1.state"));
	fgt_trig_release(&t);
	fake_free(f);
}

/* Instances of other PID namespaces are never removed; stale temporary
 * files are. */
static void test_other_namespace(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_trig_cfg c = cfg_of(f);
	struct fgt_trigger t;
	struct fgt_owner o;
	char cleaned[512], msg[512], name[96], rel[160];

	assert_int_equal(fgt_owner_self(&o, NULL), 0);
	o.pidns++;		/* a container's */
	o.pid = 4194303;	/* no such pid here: would look dead if the namespace were ignored */
	fgt_instance_name(&o, name, sizeof(name));
	snprintf(rel, sizeof(rel), "tracing/instances/%s", name);
	fake_mkdir(f, rel);
	fake_mkdir(f, "run");
	chmod(f->state, 0700);
	fake_write(f, "run/check-99994.state.tmp", "pid=99994\n");
	assert_int_equal(fgt_trig_prepare(&t, &c, cleaned, sizeof(cleaned), msg, sizeof(msg)), 0);
	assert_true(fake_exists(f, rel));
	assert_false(fake_exists(f, "run/check-99994.state.tmp"));
	fgt_trig_release(&t);
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
	/* an unfixed kernel makes 32 sweeps or more: its walks show in the gaps */
	assert_true(FGT_PARK_THREADS >= 32 * FGT_RETSTACK_BATCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toplevel_fallback_and_restore),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_no_write_through_symlink),
		cmocka_unit_test(test_killed_run_cleaned),
		cmocka_unit_test(test_dead_holder_waited),
		cmocka_unit_test(test_stale_instances),
		cmocka_unit_test(test_no_tracefs),
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_owner_no_pidns),
		cmocka_unit_test(test_state_parse),
		cmocka_unit_test(test_state_dir),
		cmocka_unit_test(test_state_untrusted),
		cmocka_unit_test(test_other_namespace),
		cmocka_unit_test(test_park),
	};

	return cmocka_run_group_tests_name("trigger", tests, NULL, NULL);
}
