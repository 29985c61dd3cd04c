// SPDX-License-Identifier: GPL-2.0
/*
 * fgraphtop hold's decisions (src/hold/hold.c) without a kernel: which holder
 * each family gets, the bytes of a stack, the refusals, --dry-run, --status,
 * over fake tracefs and kallsyms trees (tests/lib/check_fake.h) and a fake
 * exposure count. Nothing here may create an instance or a pin.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "lib/check_fake.h"
#include "facts/kfacts.h"
#include "hold/hold.h"

struct fake_expo {
	struct fgt_exp_walk w;
	bool fails;
};

static int fe_exposure(void *priv, struct fgt_exp_walk *w, char *msg, size_t len)
{
	struct fake_expo *e = priv;

	if (e->fails) {
		snprintf(msg, len, "no BPF here");
		return -EPERM;
	}
	*w = e->w;
	return 0;
}

static struct fgt_hold_sys sys_of(const struct fake *f, struct fgt_watch_ops *w, char *bpffs)
{
	struct fgt_hold_sys s = {
		.host = { .tracefs = f->tracefs, .kallsyms = f->kallsyms, .loadavg = f->loadavg,
			  .no_bpf_links = true },
		.bpffs = bpffs, .no_bpf = true, .watch = w,
	};
	return s;
}

static void add_sym(const struct fake *f, const char *line)
{
	fake_append(f, "kallsyms", line);
}

static bool instances_empty(const struct fake *f)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/tracing/instances/" FGT_HOLD_INSTANCE, f->root);
	return access(p, F_OK) != 0;
}

static void test_choose(void **state)
{
	char why[512] = "";

	assert_int_equal(fgt_hold_choose(true, true, why, sizeof(why)), FGT_HOLD_M_LINK);
	assert_int_equal(fgt_hold_choose(false, true, why, sizeof(why)), FGT_HOLD_M_INSTANCE);
	assert_string_equal(why, "");
	assert_int_equal(fgt_hold_choose(false, false, why, sizeof(why)), FGT_HOLD_M_NONE);
	assert_non_null(strstr(why, "not offered on this kernel: its fgraph takes one user"));
	assert_non_null(strstr(why, "EBUSY"));
}

static void test_stack_bytes(void **state)
{
	assert_int_equal(fgt_stack_bytes(FGT_STACK_KMALLOC_ARRAY, 1600, 4096), 1600);
	assert_int_equal(fgt_stack_bytes(FGT_STACK_KMALLOC, 0, 4096), 4096);
	assert_int_equal(fgt_stack_bytes(FGT_STACK_KMALLOC, 0, 16384), 16384);	/* arm64 16K */
	assert_int_equal(fgt_stack_bytes(FGT_STACK_KMALLOC, 0, -1), FGT_SHADOW_STACK_SIZE);
	assert_int_equal(fgt_stack_bytes(FGT_STACK_CACHE, 0, 16384), 4096);
}

/* No fgraph: nothing to hold (3); one-user fgraph (6.1): refused (9). */
static void test_refusals(void **state)
{
	struct fake *f = fake_new(0);
	struct fake_expo e = { .fails = true };
	struct fgt_watch_ops w = { .exposure = fe_exposure, .priv = &e };
	char bpffs[1100];
	struct fgt_hold_sys s;
	struct fgt_hold_opts o = { .action = FGT_HOLD_TAKE, .timeout_s = 1 };
	struct fgt_hold_result r;

	snprintf(bpffs, sizeof(bpffs), "%s/bpf", f->root);
	s = sys_of(f, &w, bpffs);
	assert_int_equal(fgt_hold_run(&o, &s, &r), FGT_EXIT_NO_FGRAPH);
	assert_non_null(strstr(r.msg, "there is nothing to hold"));
	fake_free(f);

	f = fake_new(1);
	snprintf(bpffs, sizeof(bpffs), "%s/bpf", f->root);
	s = sys_of(f, &w, bpffs);
	assert_int_equal(fgt_hold_run(&o, &s, &r), FGT_EXIT_REFUSED);
	assert_non_null(strstr(r.msg, "not offered on this kernel"));
	assert_false(r.taken);
	assert_true(instances_empty(f));
	fake_free(f);
}

/* 6.11+: the instance; above the bound refused unless forced; dry-run takes nothing. */
static void test_bound(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_expo e = {};
	struct fgt_watch_ops w = { .exposure = fe_exposure, .priv = &e };
	struct fgt_hold_opts o = { .action = FGT_HOLD_TAKE, .dry_run = true, .timeout_s = 1 };
	char bpffs[1100], *buf = NULL;
	struct fgt_hold_result r;
	struct fgt_hold_sys s;
	size_t len = 0;
	FILE *m;

	snprintf(bpffs, sizeof(bpffs), "%s/bpf", f->root);
	s = sys_of(f, &w, bpffs);
	add_sym(f, "ffffffff81255000 T " FGT_MULTI_USER_SYM "\n");
	fgt_exp_walk_lacking_first(400000, 400000, &e.w);	/* the series' 227 s */
	assert_int_equal(fgt_hold_run(&o, &s, &r), FGT_EXIT_REFUSED);
	assert_non_null(strstr(r.msg, "refusing to hold: 400000 threads, 400000 of them lacking"));
	assert_non_null(strstr(r.msg, "above the 5 s limit"));
	o.force = true;
	assert_int_equal(fgt_hold_run(&o, &s, &r), FGT_EXIT_OK);
	assert_true(r.forced && r.dry_run && !r.taken);
	assert_int_equal(r.method, FGT_HOLD_M_INSTANCE);
	assert_true(instances_empty(f));
	/* a few threads: no force needed; the memory is one stack each */
	o.force = false;
	fgt_exp_walk_lacking_first(60, 60, &e.w);
	assert_int_equal(fgt_hold_run(&o, &s, &r), FGT_EXIT_OK);
	assert_int_equal(r.walk.lacking, 60);
	assert_true(r.stack_bytes > 0);
	m = open_memstream(&buf, &len);
	fgt_hold_print(m, &r, true);
	fclose(m);
	assert_non_null(strstr(buf, "\"type\":\"hold\",\"action\":\"take\",\"status\":0"));
	assert_non_null(strstr(buf, "\"method\":\"instance\""));
	assert_non_null(strstr(buf, "\"dry_run\":true"));
	assert_non_null(strstr(buf, "\"activation\":null"));
	free(buf);
	/* 6.14+: the link */
	add_sym(f, "ffffffff81256000 d fprobe_graph_ops\n");
	assert_int_equal(fgt_hold_run(&o, &s, &r), FGT_EXIT_OK);
	assert_int_equal(r.method, FGT_HOLD_M_LINK);
	/* another fgraph user already there: the step is N -> N+1, no walk, no bound */
	fgt_exp_walk_lacking_first(400000, 400000, &e.w);
	fake_write(f, "tracing/current_tracer", "function_graph\n");
	assert_int_equal(fgt_hold_run(&o, &s, &r), FGT_EXIT_OK);
	assert_int_equal(r.users, 1);
	assert_false(r.forced);
	fake_free(f);
}

/*
 * The take's own activation: the figures named as everywhere (served,
 * duration_ns, lost), schema 1's old names kept beside them, through
 * FGT_JSON_OUT to make test-schema.
 */
static void test_activation_json(void **state)
{
	struct fgt_hold_result r = { .action = FGT_HOLD_TAKE, .watched = true };
	const char *out = getenv("FGT_JSON_OUT");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	r.seen.have = true;
	r.seen.judge.verdict = FGT_VERDICT_FIXED;
	r.seen.fig = (struct fgt_act_figures){ .nr_threads = 1000, .sweeps = 1,
		.batches = 1, .walks = FGT_WALKS_INLINE, .served = 990, .duration_ns = 2500000,
		.walk_ns = 2000000, .lost = 3, .failures = 2 };
	m = open_memstream(&buf, &len);
	fgt_hold_print(m, &r, true);
	fclose(m);
	assert_non_null(strstr(buf, "\"activation\":{\"nr_threads\":1000,\"sweeps\":1,"
			       "\"walks\":\"inline\",\"batches\":1,\"served\":990,\"duration_ns\":2500000,"
			       "\"walk_ns\":2000000,\"lost\":3,\"failures\":2,"));
	assert_non_null(strstr(buf, "\"threads_served\":990,\"duration_s\":0.0025,"
			       "\"lost_events\":3,\"verdict\":\"fixed\"}"));
	if (out) {
		FILE *j = fopen(out, "a");

		assert_non_null(j);
		fputs(buf, j);
		fclose(j);
	}
	free(buf);
}

/* --status and --release of a hold in place, and of none. */
static void test_status(void **state)
{
	struct fake *f = fake_new(1);
	struct fake_expo e = {};
	struct fgt_watch_ops w = { .exposure = fe_exposure, .priv = &e };
	struct fgt_hold_opts o = { .action = FGT_HOLD_STATUS };
	char bpffs[1100], *buf = NULL;
	struct fgt_hold_result r;
	struct fgt_hold_sys s;
	size_t len = 0;
	FILE *m;

	snprintf(bpffs, sizeof(bpffs), "%s/bpf", f->root);
	s = sys_of(f, &w, bpffs);
	add_sym(f, "ffffffff81255000 T " FGT_MULTI_USER_SYM "\n");
	fgt_exp_walk_lacking_first(1000, 10, &e.w);
	assert_int_equal(fgt_hold_run(&o, &s, &r), FGT_EXIT_OK);
	assert_false(r.after.held);
	fake_mkdir(f, "tracing/instances/" FGT_HOLD_INSTANCE);
	fake_write(f, "tracing/instances/" FGT_HOLD_INSTANCE "/current_tracer", "function_graph\n");
	assert_int_equal(fgt_hold_run(&o, &s, &r), FGT_EXIT_OK);
	assert_true(r.after.held);
	m = open_memstream(&buf, &len);
	fgt_hold_print(m, &r, false);
	fclose(m);
	assert_non_null(strstr(buf, "fgraphtop hold: held by instance at "));
	assert_non_null(strstr(buf, "release: fgraphtop hold --release: removes tracefs instance "
			       "fgraphtop-hold"));
	/* the stacks held: every thread but the 10 lacking one */
	assert_non_null(strstr(buf, ": 990 threads, "));
	free(buf);
	/* a take while held: nothing taken */
	o.action = FGT_HOLD_TAKE;
	assert_int_equal(fgt_hold_run(&o, &s, &r), FGT_EXIT_OK);
	assert_non_null(strstr(r.msg, "already held (instance at "));
	assert_false(r.taken);
	fake_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose),
		cmocka_unit_test(test_stack_bytes),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_activation_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
