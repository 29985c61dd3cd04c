// SPDX-License-Identifier: GPL-2.0
/*
 * Who holds fgraph (src/host/holders.c) over fake tracefs and /proc trees
 * (tests/lib/check_fake.h) and a fake list of BPF links: what counts as a
 * holder on which kernel, the registrations ftrace_graph_active should show, the
 * links' owners, the words and the undo commands.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <cmocka.h>
#include "lib/check_fake.h"
#include "host/holders.h"

/* 7.2: fprobe on fgraph, entry-only fprobes on their own ftrace_ops. */
static const struct fgt_fprobe_facts k72 = { .on_fgraph = 1, .entry_on_ftrace = 1 };

static struct fgt_holders_cfg cfg_of(const struct fake *f)
{
	struct fgt_holders_cfg c = { .tracefs = f->tracefs, .fprobe = k72, .no_bpf_links = true };
	return c;
}

static void fake_link(const struct fake *f, const char *rel, const char *target)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	if (symlink(target, p))
		abort();
}

static char buf[512];

static const char *text(const struct fgt_holder *h)
{
	return fgt_holder_text(h, buf, sizeof(buf));
}

static const char *undo(const struct fgt_holders *hs, int i)
{
	return fgt_holder_undo(&hs->h[i], hs->tracefs, buf, sizeof(buf));
}

static void test_none(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_holders_cfg c = cfg_of(f);
	struct fgt_holders hs;

	assert_int_equal(fgt_holders_read(&c, &hs), 0);
	assert_string_equal(hs.tracefs, f->tracefs);
	assert_int_equal(hs.regs, 0);
	assert_int_equal(hs.regs_maybe, 0);
	assert_false(hs.links_listed);
	/* no tracefs: nothing read, and it says so */
	c.tracefs = "/nonexistent";
	assert_int_equal(fgt_holders_read(&c, &hs), 0);
	assert_string_equal(hs.tracefs, "");
	fake_free(f);
}

/* function_graph at the top level and in instances; each is one registration. */
static void test_tracers(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_holders_cfg c = cfg_of(f);
	struct fgt_holders hs;
	char w[64];

	fake_write(f, "tracing/current_tracer", "function_graph\n");
	fake_mkdir(f, "tracing/instances/live");
	fake_write(f, "tracing/instances/live/current_tracer", "function_graph\n");
	fake_mkdir(f, "tracing/instances/quiet");
	fake_write(f, "tracing/instances/quiet/current_tracer", "nop\n");
	fake_mkdir(f, "tracing/instances/fgraphtop-check-77-1-2");
	fake_write(f, "tracing/instances/fgraphtop-check-77-1-2/current_tracer", "function_graph\n");
	fake_write(f, "tracing/function_profile_enabled", "1\n");
	assert_int_equal(fgt_holders_read(&c, &hs), 4);
	assert_int_equal(hs.kept, 4);
	assert_int_equal(hs.regs, 4);
	/* the top level first, then the profiler, then the instances */
	assert_int_equal(hs.h[0].kind, FGT_HOLDER_TRACER);
	assert_string_equal(text(&hs.h[0]), "function_graph, the top-level tracer");
	assert_string_equal(fgt_holder_where(&hs.h[0], w, sizeof(w)), "top level");
	assert_false(hs.h[0].maybe);
	snprintf(w, sizeof(w), "%s", "echo nop > ");
	assert_memory_equal(undo(&hs, 0), w, strlen(w));
	assert_non_null(strstr(buf, "/tracing/current_tracer"));
	assert_int_equal(hs.h[1].kind, FGT_HOLDER_PROFILER);
	assert_non_null(strstr(undo(&hs, 1), "echo 0 > "));
	assert_non_null(strstr(buf, "/tracing/function_profile_enabled"));
	for (int i = 2; i < 4; i++) {
		assert_int_equal(hs.h[i].kind, FGT_HOLDER_TRACER);
		if (!strcmp(hs.h[i].instance, "live")) {
			assert_string_equal(text(&hs.h[i]), "function_graph in tracefs instance live");
			assert_non_null(strstr(undo(&hs, i), "/tracing/instances/live/current_tracer"));
		} else {
			assert_string_equal(hs.h[i].instance, "fgraphtop-check-77-1-2");
			assert_non_null(strstr(text(&hs.h[i]), "(fgraphtop check --trigger's)"));
		}
	}
	/* ours is skipped when asked */
	c.skip_instance = "live";
	assert_int_equal(fgt_holders_read(&c, &hs), 3);
	fake_free(f);
}

/* perf ftrace (perf 7.2) traces in an instance of its own: named as perf's. */
static void test_perf_instance(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_holders_cfg c = cfg_of(f);
	struct fgt_holders hs;

	fake_write(f, "tracing/current_tracer", "nop\n");
	fake_mkdir(f, "tracing/instances/perf-ftrace-wKRaYF");
	fake_write(f, "tracing/instances/perf-ftrace-wKRaYF/current_tracer", "function_graph\n");
	fake_mkdir(f, "tracing/instances/perf-ftrace-quiet");
	fake_write(f, "tracing/instances/perf-ftrace-quiet/current_tracer", "function\n");
	assert_int_equal(fgt_holders_read(&c, &hs), 1);
	assert_int_equal(hs.h[0].kind, FGT_HOLDER_TRACER);
	assert_string_equal(text(&hs.h[0]),
			    "function_graph in tracefs instance perf-ftrace-wKRaYF (perf ftrace's)");
	assert_non_null(strstr(undo(&hs, 0), "/tracing/instances/perf-ftrace-wKRaYF/current_tracer"));
	fake_free(f);
}

/* A latency tracer holds fgraph only while it draws the graph of traced functions. */
static void test_latency(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_holders_cfg c = cfg_of(f);
	struct fgt_holders hs;

	fake_mkdir(f, "tracing/options");
	fake_write(f, "tracing/current_tracer", "irqsoff\n");
	fake_write(f, "tracing/options/function-trace", "1\n");
	fake_write(f, "tracing/options/display-graph", "0\n");
	assert_int_equal(fgt_holders_read(&c, &hs), 0);
	fake_write(f, "tracing/options/display-graph", "1\n");
	assert_int_equal(fgt_holders_read(&c, &hs), 1);
	assert_int_equal(hs.h[0].kind, FGT_HOLDER_LATENCY);
	assert_string_equal(text(&hs.h[0]), "irqsoff tracer drawing the call graph (display-graph), "
			    "top level");
	assert_non_null(strstr(undo(&hs, 0), "/tracing/options/display-graph"));
	fake_write(f, "tracing/options/function-trace", "0\n");
	assert_int_equal(fgt_holders_read(&c, &hs), 0);
	/* function, wakeup without the option: not fgraph */
	fake_write(f, "tracing/current_tracer", "function\n");
	fake_write(f, "tracing/options/function-trace", "1\n");
	assert_int_equal(fgt_holders_read(&c, &hs), 0);
	fake_free(f);
}

/* fprobe events: only from 6.14, entry-only ones only while they were on
 * fgraph; all of them together are one registration (fprobe's fgraph_ops). */
static void test_fprobes(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_holders_cfg c = cfg_of(f);
	struct fgt_holders hs;

	fake_write(f, "tracing/dynamic_events",
		   "p:kprobes/k vfs_read\n"
		   "r:kprobes/kr vfs_read\n"
		   "f:fprobes/a vfs_read%return ret=$retval\n"
		   "f:fprobes/b vfs_write\n"
		   "f:fprobes/c vfs_open%return\n"
		   "t:tprobes/d sched_switch\n");
	/* 7.2: the two return probes, one registration between them */
	assert_int_equal(fgt_holders_read(&c, &hs), 2);
	assert_int_equal(hs.regs, 1);
	assert_string_equal(hs.h[0].name, "fprobes/a");
	assert_string_equal(hs.h[0].detail, "vfs_read%return ret=$retval");
	assert_true(hs.h[0].ret);
	assert_false(hs.h[0].maybe);
	assert_string_equal(text(&hs.h[0]), "fprobe event fprobes/a on vfs_read%return ret=$retval");
	assert_non_null(strstr(undo(&hs, 0), "/events/fprobes/a/enable; echo '-:fprobes/a' >> "));
	/* defined but not enabled: may hold it (kernels differ on when they register) */
	fake_mkdir(f, "tracing/events");
	fake_mkdir(f, "tracing/events/fprobes");
	fake_mkdir(f, "tracing/events/fprobes/c");
	fake_write(f, "tracing/events/fprobes/c/enable", "0\n");
	assert_int_equal(fgt_holders_read(&c, &hs), 2);
	assert_true(hs.h[1].maybe);
	assert_int_equal(hs.regs, 1);	/* a is sure */
	/* 6.14 .. 6.18: the entry-only one too */
	c.fprobe.entry_on_ftrace = 0;
	assert_int_equal(fgt_holders_read(&c, &hs), 3);
	assert_string_equal(hs.h[1].name, "fprobes/b");
	assert_false(hs.h[1].ret);
	/* before 6.14 fprobe used rethook: no fgraph user at all */
	c.fprobe.on_fgraph = 0;
	assert_int_equal(fgt_holders_read(&c, &hs), 0);
	assert_int_equal(hs.regs, 0);
	/* a kallsyms that cannot tell: every one may */
	c.fprobe.on_fgraph = -1;
	c.fprobe.entry_on_ftrace = -1;
	assert_int_equal(fgt_holders_read(&c, &hs), 3);
	assert_int_equal(hs.regs, 0);
	assert_int_equal(hs.regs_maybe, 1);
	for (int i = 0; i < 3; i++)
		assert_true(hs.h[i].maybe);
	fake_free(f);
}

struct links {
	int n, err;
	struct fgt_link_ent l[4];
};

static int fake_links(struct fgt_link_ent *out, int max, void *ctx)
{
	struct links *ls = ctx;

	if (ls->err)
		return ls->err;
	for (int i = 0; i < ls->n && i < max; i++)
		out[i] = ls->l[i];
	return ls->n < max ? ls->n : max;
}

/* BPF links as bpftool lists them; owners from /proc/PID/fd + fdinfo. */
static void test_links(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_holders_cfg c = cfg_of(f);
	struct links ls = { .n = 4, .l = {
		{ .id = 12, .prog_id = 34, .type = BPF_LINK_TYPE_KPROBE_MULTI, .count = 1,
		  .flags = BPF_F_KPROBE_MULTI_RETURN },
		{ .id = 13, .prog_id = 35, .type = BPF_LINK_TYPE_KPROBE_MULTI, .count = 3 },
		{ .id = 14, .prog_id = 36, .type = BPF_LINK_TYPE_TRACING },
		{ .id = 15, .prog_id = 37, .type = BPF_LINK_TYPE_KPROBE_MULTI, .count = 2,
		  .flags = BPF_F_KPROBE_MULTI_RETURN },
	} };
	struct fgt_holders hs;
	char proc[160];

	snprintf(proc, sizeof(proc), "%s/proc", f->root);
	fake_mkdir(f, "proc");
	/* pid 345 holds link 12 (fd 7) and something else (fd 1) */
	fake_mkdir(f, "proc/345");
	fake_mkdir(f, "proc/345/fd");
	fake_mkdir(f, "proc/345/fdinfo");
	fake_write(f, "proc/345/comm", "fgt-trigger\n");
	fake_link(f, "proc/345/fd/1", "/dev/null");
	fake_link(f, "proc/345/fd/7", "anon_inode:bpf_link");
	fake_write(f, "proc/345/fdinfo/7", "pos:\t0\nflags:\t02000002\nlink_type:\tkretprobe_multi\n"
		   "link_id:\t12\nprog_tag:\t0123456789abcdef\nprog_id:\t34\n");
	/* pid 400 (its child after fork) too */
	fake_mkdir(f, "proc/400");
	fake_mkdir(f, "proc/400/fd");
	fake_mkdir(f, "proc/400/fdinfo");
	fake_write(f, "proc/400/comm", "fgt-trigger\n");
	fake_link(f, "proc/400/fd/3", "anon_inode:bpf_link");
	fake_write(f, "proc/400/fdinfo/3", "link_type:\tkretprobe_multi\nlink_id:\t12\n");
	/* a program's fd is no link */
	fake_link(f, "proc/400/fd/4", "anon_inode:bpf-prog");
	fake_write(f, "proc/400/fdinfo/4", "prog_id:\t15\n");
	/* not a process */
	fake_mkdir(f, "proc/sys");

	c.no_bpf_links = false;
	c.links = fake_links;
	c.links_ctx = &ls;
	c.proc = proc;
	assert_int_equal(fgt_holders_read(&c, &hs), 3);
	assert_true(hs.links_listed);
	assert_int_equal(hs.regs, 1);		/* fprobe's one fgraph_ops */
	assert_int_equal(hs.h[0].kind, FGT_HOLDER_BPF_LINK);
	assert_int_equal(hs.h[0].link_id, 12);
	assert_false(hs.h[0].maybe);
	assert_int_equal(hs.h[0].nr_owners, 2);
	assert_true(hs.h[0].pid == 345 || hs.h[0].pid == 400);
	assert_string_equal(hs.h[0].comm, "fgt-trigger");
	assert_string_equal(text(&hs.h[0]), "BPF kretprobe.multi link 12 (prog 34, 1 function)");
	snprintf(proc, sizeof(proc), "stop pid %d (fgt-trigger) and the other processes holding "
		 "it: the link goes with its last fd", hs.h[0].pid);
	assert_string_equal(undo(&hs, 0), proc);
	/* entry-only on 7.2: a kprobe.session link looks the same, so maybe */
	assert_int_equal(hs.h[1].link_id, 13);
	assert_true(hs.h[1].maybe);
	assert_non_null(strstr(text(&hs.h[1]), "entry only: holds fgraph only if it is a "
				   "kprobe.session link"));
	/* nobody holds 15: pinned */
	assert_int_equal(hs.h[2].link_id, 15);
	assert_int_equal(hs.h[2].nr_owners, 0);
	assert_string_equal(undo(&hs, 2), "no process holds it: remove its pin in bpffs");
	/* before 6.14 no link is an fgraph user: not even listed */
	c.fprobe.on_fgraph = 0;
	assert_int_equal(fgt_holders_read(&c, &hs), 0);
	assert_false(hs.links_listed);
	/* the listing refused (no CAP_SYS_ADMIN): said, nothing guessed */
	c.fprobe = k72;
	ls.err = -EPERM;
	assert_int_equal(fgt_holders_read(&c, &hs), 0);
	assert_false(hs.links_listed);
	assert_int_equal(hs.links_err, -EPERM);
	fake_free(f);
}

static uint32_t hold_15(void *ctx)
{
	return 15;
}

/* fgraphtop hold's holders are named as its own, with its own undo; the
 * read of the hold in place (check's) tells held from a killed take's
 * leftover. */
static void test_hold(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_holders_cfg c = cfg_of(f);
	struct links ls = { .n = 2, .l = {
		{ .id = 12, .prog_id = 34, .type = BPF_LINK_TYPE_KPROBE_MULTI, .count = 1,
		  .flags = BPF_F_KPROBE_MULTI_RETURN },
		{ .id = 15, .prog_id = 37, .type = BPF_LINK_TYPE_KPROBE_MULTI, .count = 1,
		  .flags = BPF_F_KPROBE_MULTI_RETURN },
	} };
	struct fgt_hold_seen seen;
	struct fgt_holders hs;
	char pin[256];

	snprintf(pin, sizeof(pin), "%s/no-bpffs/hold", f->root);
	fake_write(f, "tracing/current_tracer", "nop\n");
	fake_mkdir(f, "tracing/instances/" FGT_HOLD_INSTANCE);
	fake_write(f, "tracing/instances/" FGT_HOLD_INSTANCE "/current_tracer", "function_graph\n");
	assert_int_equal(fgt_holders_read(&c, &hs), 1);
	assert_true(hs.h[0].hold);
	assert_string_equal(text(&hs.h[0]), "function_graph in tracefs instance fgraphtop-hold "
			    "(fgraphtop hold's: holds fgraph on one function nothing calls)");
	assert_string_equal(undo(&hs, 0), "fgraphtop hold --release (removes the instance)");
	assert_true(fgt_hold_seen_read(f->tracefs, pin, &seen));
	assert_true(seen.held);
	assert_false(seen.stale);
	assert_string_equal(seen.method, "instance");
	assert_non_null(strstr(seen.where, "/instances/fgraphtop-hold"));
	/* a take killed before its tracer was set: there, not holding */
	fake_write(f, "tracing/instances/" FGT_HOLD_INSTANCE "/current_tracer", "nop\n");
	assert_false(fgt_hold_seen_read(f->tracefs, pin, &seen));
	assert_true(seen.stale);
	assert_int_equal(fgt_holders_read(&c, &hs), 0);
	/* the pinned link: by its id, among others */
	c.no_bpf_links = false;
	c.links = fake_links;
	c.links_ctx = &ls;
	c.hold_link = hold_15;
	assert_int_equal(fgt_holders_read(&c, &hs), 2);
	assert_false(hs.h[0].hold);
	assert_true(hs.h[1].hold);
	assert_string_equal(text(&hs.h[1]), "BPF kretprobe.multi link 15 (prog 37, 1 function; "
			    "fgraphtop hold's, pinned at /sys/fs/bpf/fgraphtop/hold)");
	assert_string_equal(undo(&hs, 1), "fgraphtop hold --release (unpins "
			    "/sys/fs/bpf/fgraphtop/hold)");
	/* gone: nothing held, nothing stale */
	snprintf(pin, sizeof(pin), "%s/tracing/instances/" FGT_HOLD_INSTANCE "/current_tracer",
		 f->root);
	assert_int_equal(unlink(pin), 0);
	snprintf(pin, sizeof(pin), "%s/tracing/instances/" FGT_HOLD_INSTANCE, f->root);
	assert_int_equal(rmdir(pin), 0);
	snprintf(pin, sizeof(pin), "%s/no-bpffs/hold", f->root);
	assert_false(fgt_hold_seen_read(f->tracefs, pin, &seen));
	assert_false(seen.stale);
	fake_free(f);
}

/* More holders than kept: all counted, the rest dropped, no overrun. */
static void test_many(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_holders_cfg c = cfg_of(f);
	struct fgt_holders hs, again;
	char rel[128];

	for (int i = 0; i < FGT_HOLDERS_MAX + 5; i++) {
		snprintf(rel, sizeof(rel), "tracing/instances/i%02d", i);
		fake_mkdir(f, rel);
		snprintf(rel, sizeof(rel), "tracing/instances/i%02d/current_tracer", i);
		fake_write(f, rel, "function_graph\n");
	}
	assert_int_equal(fgt_holders_read(&c, &hs), FGT_HOLDERS_MAX + 5);
	assert_int_equal(hs.kept, FGT_HOLDERS_MAX);
	assert_int_equal(hs.regs, FGT_HOLDERS_MAX + 5);
	fgt_holders_read(&c, &again);
	assert_true(fgt_holders_same(&hs, &again));
	fake_write(f, "tracing/instances/i00/current_tracer", "nop\n");
	fgt_holders_read(&c, &again);
	assert_false(fgt_holders_same(&hs, &again));
	fake_free(f);
}

/* The watcher: reads on its own thread, again when kicked, never while busy;
 * a read is stamped with its start. */
static void test_watch(void **state)
{
	struct fake *f = fake_new(1);
	struct fgt_holders_cfg c = cfg_of(f);
	struct fgt_holders_watch *w;
	struct fgt_holders hs;
	unsigned int gen0, gen;
	uint64_t ns, before;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	before = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	w = fgt_holders_watch_start(&c, 60000);	/* no second read unless kicked */
	assert_non_null(w);
	assert_true(fgt_holders_watch_wait(w, 5000));
	assert_true(fgt_holders_watch_get(w, &hs, &ns, &gen0));
	assert_int_equal(hs.n, 0);
	assert_true(ns >= before);
	/* it sleeps between reads: no second read without a kick */
	usleep(300000);
	fgt_holders_watch_get(w, NULL, &before, NULL);
	assert_int_equal(before, ns);
	/* busy (an activation under way): a kick reads nothing */
	fgt_holders_watch_busy(w, true);
	fake_write(f, "tracing/current_tracer", "function_graph\n");
	fgt_holders_watch_kick(w);
	usleep(200000);
	fgt_holders_watch_get(w, &hs, NULL, &gen);
	assert_int_equal(gen, gen0);
	assert_int_equal(hs.n, 0);
	/* its end reads at once */
	fgt_holders_watch_busy(w, false);
	for (int i = 0; i < 50 && gen == gen0; i++) {
		usleep(100000);
		fgt_holders_watch_get(w, &hs, NULL, &gen);
	}
	assert_int_equal(gen, gen0 + 1);
	assert_int_equal(hs.n, 1);
	/* a kick reads again (a later stamp); the same holders: the generation stays */
	fgt_holders_watch_get(w, NULL, &before, NULL);
	fgt_holders_watch_kick(w);
	usleep(200000);
	fgt_holders_watch_get(w, &hs, &ns, &gen);
	assert_int_equal(gen, gen0 + 1);
	assert_true(ns > before);
	fgt_holders_watch_stop(w);
	fake_free(f);
}

/* A link between prime and settle answers EAGAIN: waited for, not skipped;
 * other errors and a link that never settles are not waited on forever. */
static int settle_calls, settle_after, settle_errno;

static int fake_get(uint32_t id)
{
	if (++settle_calls > settle_after)
		return (int)id + 100;
	errno = settle_errno;
	return -1;
}

static void test_link_settle(void **state)
{
	settle_calls = 0, settle_after = 3, settle_errno = EAGAIN;
	assert_int_equal(fgt_link_fd_settled(7, fake_get), 107);
	assert_int_equal(settle_calls, 4);
	settle_calls = 0, settle_after = 3, settle_errno = ENOENT;	/* gone */
	assert_int_equal(fgt_link_fd_settled(7, fake_get), -1);
	assert_int_equal(settle_calls, 1);
	settle_calls = 0, settle_after = 1000, settle_errno = EAGAIN;	/* never */
	assert_int_equal(fgt_link_fd_settled(7, fake_get), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(settle_calls, 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_settle),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_tracers),
		cmocka_unit_test(test_perf_instance),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_fprobes),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_hold),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_watch),
	};

	return cmocka_run_group_tests_name("holders", tests, NULL, NULL);
}
