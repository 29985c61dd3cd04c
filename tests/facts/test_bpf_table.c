// SPDX-License-Identifier: GPL-2.0
/*
 * The probe table (src/facts/kfacts.c) and bpf/fgraphtop.bpf.c agree: every program
 * of the object is enabled by exactly one row or candidate, every program the
 * table names exists, and a program whose section names its target names the
 * candidate's. Opens the object only (no load: no privilege needed).
 * FGT_BPF_OBJ: the object (default build/fgraphtop.bpf.o).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <bpf/libbpf.h>
#include "facts/kfacts.h"

static struct bpf_object *obj;

static int setup(void **state)
{
	const char *path = getenv("FGT_BPF_OBJ");

	obj = bpf_object__open_file(path ? path : "build/fgraphtop.bpf.o", NULL);
	return obj ? 0 : -1;
}

static int teardown(void **state)
{
	bpf_object__close(obj);
	return 0;
}

/* How many times the table names prog, and the candidate target it goes with
 * when the name is candidate-specific or the row has one candidate. */
static int named(const char *prog, const char **target, enum fgt_probe_kind *kind)
{
	int n = 0;

	*target = NULL;
	for (int r = 0; r < FGT_ROLE__NR; r++) {
		const struct fgt_probe_row *row = &fgt_probe_rows[r];

		for (int i = 0; i < FGT_MAX_PROGS && row->progs[i]; i++)
			if (!strcmp(row->progs[i], prog)) {
				n++;
				*kind = row->kind;
				if (row->alloc_shape < 0 && fgt_row_cand(row, 0) &&
				    !fgt_row_cand(row, 1))
					*target = fgt_row_cand(row, 0)->target;
			}
		/* the cache kernels' variants: the same hook as the row's own */
		for (int i = 0; i < FGT_MAX_PROGS && row->cache_progs[i]; i++)
			if (!strcmp(row->cache_progs[i], prog)) {
				n++;
				*kind = row->kind;
				if (fgt_row_cand(row, 0) && !fgt_row_cand(row, 1))
					*target = fgt_row_cand(row, 0)->target;
			}
		for (int c = 0; fgt_row_cand(row, c); c++) {
			const struct fgt_cand *cd = fgt_row_cand(row, c);

			for (int i = 0; i < FGT_MAX_PROGS && cd->progs[i]; i++)
				if (!strcmp(cd->progs[i], prog)) {
					n++;
					*kind = row->kind;
					*target = cd->target;
				}
		}
	}
	return n;
}

static void test_every_program_in_the_table(void **state)
{
	struct bpf_program *prog;
	int progs = 0;

	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog), *sec = bpf_program__section_name(prog);
		const char *target, *slash = strchr(sec, '/');
		enum fgt_probe_kind kind = FGT_PK_TEST_RUN;

		progs++;
		/* an iterator attaches to nothing the plan probes: the session
		 * loads the exposure's itself (src/watch/session.c open_load()) */
		if (!strncmp(sec, "iter/", 5)) {
			assert_string_equal(name, "exp_count_lacking");
			assert_int_equal(named(name, &target, &kind), 0);
			continue;
		}
		if (named(name, &target, &kind) != 1)
			fail_msg("%s: named %d times by src/facts/kfacts.c", name, named(name, &target, &kind));
		/* a fentry program of one row is a fentry, and so on */
		if (kind != FGT_PK_TEST_RUN && strncmp(sec, fgt_probe_kind_name(kind),
						       strlen(fgt_probe_kind_name(kind))) &&
		    !(kind == FGT_PK_FENTRY && !strncmp(sec, "fexit", 5)))
			fail_msg("%s: section %s, but its row is %s", name, sec,
				 fgt_probe_kind_name(kind));
		if (slash && target && strcmp(slash + 1, target))
			fail_msg("%s: section %s, but the table's target is %s", name, sec, target);
	}
	assert_true(progs > 10);
}

static void test_every_table_program_exists(void **state)
{
	for (int r = 0; r < FGT_ROLE__NR; r++) {
		const struct fgt_probe_row *row = &fgt_probe_rows[r];

		for (int i = 0; i < FGT_MAX_PROGS && row->progs[i]; i++)
			if (!bpf_object__find_program_by_name(obj, row->progs[i]))
				fail_msg("row %s: no program %s", row->what, row->progs[i]);
		for (int i = 0; i < FGT_MAX_PROGS && row->cache_progs[i]; i++)
			if (!bpf_object__find_program_by_name(obj, row->cache_progs[i]))
				fail_msg("row %s: no program %s", row->what, row->cache_progs[i]);
		for (int c = 0; fgt_row_cand(row, c); c++)
			for (int i = 0; i < FGT_MAX_PROGS && fgt_row_cand(row, c)->progs[i]; i++)
				if (!bpf_object__find_program_by_name(obj,
								      fgt_row_cand(row, c)->progs[i]))
					fail_msg("row %s: no program %s", row->what,
						 fgt_row_cand(row, c)->progs[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_program_in_the_table),
		cmocka_unit_test(test_every_table_program_exists),
	};

	libbpf_set_print(NULL);
	return cmocka_run_group_tests(tests, setup, teardown);
}
