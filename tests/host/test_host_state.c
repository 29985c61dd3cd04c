// SPDX-License-Identifier: GPL-2.0
/* Host state: is there a function graph tracer, who uses fgraph, threads, the walk estimate. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "lib/check_fake.h"
#include "host/host_state.h"

static struct fgt_host host_of(const struct fake *f)
{
	struct fgt_host h = { .tracefs = f->tracefs, .kallsyms = f->kallsyms,
			      .loadavg = f->loadavg, .no_bpf_links = true };
	return h;
}

static void test_has_fgraph(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_host h = host_of(f);
	char why[256];

	assert_int_equal(fgt_host_has_fgraph(&h, NULL, why, sizeof(why)), 1);
	assert_string_equal(why, "register_ftrace_graph is in kallsyms");
	/* this machine's case: neither the symbol nor the tracer */
	fake_kallsyms(f, 0);
	fake_write(f, "tracing/available_tracers", "blk nop\n");
	assert_int_equal(fgt_host_has_fgraph(&h, NULL, why, sizeof(why)), 0);
	assert_string_equal(why, "no function graph tracer in this kernel: no register_ftrace_graph "
			    "in kallsyms");
	/* a whole kallsyms decides alone: the words do not depend on tracefs
	 * (a fresh machine has it unmounted) */
	h.tracefs = "/nonexistent";
	assert_int_equal(fgt_host_has_fgraph(&h, NULL, why, sizeof(why)), 0);
	assert_string_equal(why, "no function graph tracer in this kernel: no register_ftrace_graph "
			    "in kallsyms");
	h.tracefs = f->tracefs;
	/* a masked (empty) or truncated kallsyms proves nothing: tracefs decides */
	fake_write(f, "kallsyms", "");
	assert_int_equal(fgt_host_has_fgraph(&h, NULL, why, sizeof(why)), 0);
	assert_string_equal(why, "no function graph tracer in this kernel: no function_graph in "
			    "available_tracers (/proc/kallsyms looks masked or truncated "
			    "(0 symbols, no _stext, no _etext))");
	/* "function" is a word of its own, not function_graph */
	fake_write(f, "tracing/available_tracers", "function nop\n");
	assert_int_equal(fgt_host_has_fgraph(&h, NULL, why, sizeof(why)), 0);
	/* the tracer listed wins over a kallsyms that cannot tell */
	fake_write(f, "kallsyms", "ffffffff81000000 T _stext\nffffffff81000100 T foo\n");
	fake_write(f, "tracing/available_tracers", "function_graph nop\n");
	assert_int_equal(fgt_host_has_fgraph(&h, NULL, why, sizeof(why)), 1);
	assert_string_equal(why, "function_graph is in available_tracers");
	/* truncated, and no tracefs: cannot tell, and says why */
	h.tracefs = "/nonexistent";
	assert_int_equal(fgt_host_has_fgraph(&h, NULL, why, sizeof(why)), -1);
	assert_string_equal(why, "cannot tell whether this kernel has a function graph tracer: "
			    "/proc/kallsyms looks masked or truncated (2 symbols, no _etext), "
			    "and tracefs is not readable (mount tracefs, run as root)");
	/* nothing readable: cannot tell */
	h.kallsyms = "/nonexistent";
	assert_int_equal(fgt_host_has_fgraph(&h, NULL, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "cannot tell"));
	fake_free(f);
}

static void test_users(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_host h = host_of(f);
	char why[512];

	assert_int_equal(fgt_host_fgraph_users(&h, NULL, NULL, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	fake_write(f, "tracing/current_tracer", "function_graph\n");
	fake_mkdir(f, "tracing/instances/foo");
	fake_write(f, "tracing/instances/foo/current_tracer", "function_graph\n");
	fake_mkdir(f, "tracing/instances/bar");
	fake_write(f, "tracing/instances/bar/current_tracer", "nop\n");
	fake_write(f, "tracing/function_profile_enabled", "1\n");
	fake_write(f, "tracing/dynamic_events", "p:kprobes/x vfs_read\nf:fprobes/y vfs_write\n");
	/* before 6.14 an fprobe is no fgraph user (rethook): three */
	assert_int_equal(fgt_host_fgraph_users(&h, NULL, NULL, why, sizeof(why)), 3);
	assert_null(strstr(why, "fprobe"));
	/* 6.14 .. 6.18: fprobe on fgraph, entry-only ones included */
	fake_append(f, "kallsyms", "ffffffff82a1b300 d fprobe_graph_ops\n");
	assert_int_equal(fgt_host_fgraph_users(&h, NULL, NULL, why, sizeof(why)), 4);
	assert_non_null(strstr(why, "top-level tracer is function_graph"));
	assert_non_null(strstr(why, "instance foo has function_graph"));
	assert_null(strstr(why, "bar"));
	assert_non_null(strstr(why, "function profiler is on"));
	assert_non_null(strstr(why, "fprobe event 'f:fprobes/y vfs_write'"));
	/* our own instance is not somebody else's use */
	assert_int_equal(fgt_host_fgraph_users(&h, NULL, "foo", why, sizeof(why)), 3);
	/* a short buffer truncates, the count stays right */
	assert_int_equal(fgt_host_fgraph_users(&h, NULL, NULL, why, 20), 4);
	assert_int_equal(strlen(why), 19);
	/* 7.x: entry-only fprobes have their own ftrace_ops; a return probe still counts */
	fake_append(f, "kallsyms", "ffffffff81254f90 t fprobe_ftrace_entry\n");
	assert_int_equal(fgt_host_fgraph_users(&h, NULL, NULL, why, sizeof(why)), 3);
	fake_write(f, "tracing/dynamic_events", "f:fprobes/z vfs_write%return\n");
	assert_int_equal(fgt_host_fgraph_users(&h, NULL, NULL, why, sizeof(why)), 4);
	assert_non_null(strstr(why, "fprobe event 'f:fprobes/z vfs_write%return' in dynamic_events"));
	/* a latency tracer drawing the call graph */
	fake_write(f, "tracing/current_tracer", "wakeup\n");
	fake_mkdir(f, "tracing/options");
	fake_write(f, "tracing/options/display-graph", "1\n");
	fake_write(f, "tracing/options/function-trace", "1\n");
	assert_int_equal(fgt_host_fgraph_users(&h, NULL, NULL, why, sizeof(why)), 4);
	assert_non_null(strstr(why, "the wakeup tracer draws the call graph ("));
	fake_free(f);
}

static void test_threads(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_host h = host_of(f);

	assert_int_equal(fgt_host_threads(&h), 345);
	fake_write(f, "loadavg", "garbage\n");
	assert_true(fgt_host_threads(&h) < 0);
	fake_free(f);
}

/* What the mountinfo lines give; "" for none. */
static void mountinfo_gives(const char *text, const char *want)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	char dir[64] = "untouched";

	assert_non_null(f);
	if (!*want) {
		assert_int_equal(fgt_tracefs_from_mountinfo(f, dir, sizeof(dir)), -ENOENT);
		assert_string_equal(dir, "untouched");
	} else {
		assert_int_equal(fgt_tracefs_from_mountinfo(f, dir, sizeof(dir)), 0);
		assert_string_equal(dir, want);
	}
	fclose(f);
}

/* tracefs found from mountinfo alone: a lookup of /sys/kernel/debug/tracing
 * would automount it there, a mount left behind. */
static void test_tracefs_mountinfo(void **state)
{
	const char *sys = "22 25 0:6 / /sys rw,nosuid - sysfs sysfs rw\n";
	const char *dbg = "30 22 0:7 / /sys/kernel/debug rw shared:12 - debugfs debugfs rw\n";
	const char *auto_ = "64 30 0:13 / /sys/kernel/debug/tracing rw,relatime - tracefs tracefs rw\n";
	const char *top = "31 22 0:13 / /sys/kernel/tracing rw shared:13 master:2 - tracefs nodev rw\n";
	const char *odd = "70 1 0:13 / /mnt/my\\040trace rw - tracefs tracefs rw\n";
	const char *fake = "71 1 0:14 / /mnt/x rw - debugfs tracefs rw\n";
	char buf[512];

	mountinfo_gives("", "");
	snprintf(buf, sizeof(buf), "%s%s%s", sys, dbg, fake);
	mountinfo_gives(buf, "");		/* debugfs only: none, and no lookup */
	snprintf(buf, sizeof(buf), "%s%s%s", sys, dbg, auto_);
	mountinfo_gives(buf, "/sys/kernel/debug/tracing");
	snprintf(buf, sizeof(buf), "%s%s%s%s", odd, sys, auto_, top);
	mountinfo_gives(buf, "/sys/kernel/tracing");	/* the standard place first */
	snprintf(buf, sizeof(buf), "%s%s", top, auto_);
	mountinfo_gives(buf, "/sys/kernel/tracing");	/* whatever the order */
	snprintf(buf, sizeof(buf), "%s%s", sys, odd);
	mountinfo_gives(buf, "/mnt/my trace");		/* mountinfo's escapes undone */
	mountinfo_gives("garbage\n - tracefs\n", "");	/* no mount point */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_has_fgraph),
		cmocka_unit_test(test_users),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_tracefs_mountinfo),
	};

	return cmocka_run_group_tests_name("host_state", tests, NULL, NULL);
}
