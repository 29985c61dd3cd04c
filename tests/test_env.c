// SPDX-License-Identifier: GPL-2.0
/* fgraphtop's command line (src/env.c, src/common/cli.c): values, actions, JSON mode. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <stdio.h>
#include <bpf/libbpf.h>
#include "env.h"

static enum fgt_cli_action parse(struct fgt_env *env, ...)
{
	char *argv[16] = { "fgraphtop" };
	int argc = 1;
	va_list ap;

	va_start(ap, env);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return fgt_env_parse(argc, argv, env);
}

/* Each numeric option: plain decimal digits in range, nothing else. */
static void test_numbers(void **state)
{
	static const char *const bad[] = {
		"-1", "+1", " 1", "1 ", "0x10", "010x", "1e3", "1.5", "",
		"-18446744073709551615", "18446744073709551617", NULL,
	};
	static const char *const opts[] = { "-i", "-d", "--ringbuf-size", NULL };
	struct fgt_env env;

	for (int o = 0; opts[o]; o++)
		for (int i = 0; bad[i]; i++) {
			assert_int_equal(parse(&env, opts[o], bad[i], NULL), FGT_CLI_ERROR);
			assert_non_null(strstr(env.cli.err, "invalid "));
		}
	assert_int_equal(parse(&env, "-i", "0", NULL), FGT_CLI_ERROR);
	assert_string_equal(env.cli.err, "invalid interval: 0 (1..86400 seconds)");
	assert_int_equal(parse(&env, "-i", "86401", NULL), FGT_CLI_ERROR);
	assert_int_equal(parse(&env, "--ringbuf-size", "3", NULL), FGT_CLI_ERROR);
	assert_string_equal(env.cli.err, "invalid ring buffer size: 3 (MiB, a power of 2, 1..1024)");
	assert_int_equal(parse(&env, "-i", "86400", "-d", "4294967295", "--ringbuf-size=1024",
			       NULL), FGT_CLI_RUN);
	assert_int_equal(env.interval_s, 86400);
	assert_int_equal(env.duration_s, 4294967295u);
	assert_int_equal(env.ringbuf_mb, 1024);
	assert_int_equal(parse(&env, "-d", "4294967296", NULL), FGT_CLI_ERROR);
}

/* JSON mode is argp's parse: -dj is -d "j" (an error, in text), -vj is -v -j,
 * and a -j after a bad option still makes the error JSON. */
static void test_json_mode(void **state)
{
	struct fgt_env env;

	assert_int_equal(parse(&env, "-dj", NULL), FGT_CLI_ERROR);
	assert_false(env.cli.json);
	assert_string_equal(env.cli.err, "invalid duration: j (seconds, > 0)");
	assert_int_equal(parse(&env, "-vj", NULL), FGT_CLI_RUN);
	assert_true(env.cli.json);
	assert_int_equal(env.cli.verbose, 1);
	assert_int_equal(parse(&env, "--bogus", "-x", "-j", NULL), FGT_CLI_ERROR);
	assert_true(env.cli.json);
	assert_string_equal(env.cli.err, "unrecognized option or missing value: --bogus "
			    "(fgraphtop --help lists the options)");
	assert_int_equal(parse(&env, "extra", "--json", NULL), FGT_CLI_ERROR);
	assert_true(env.cli.json);
	assert_string_equal(env.cli.err, "unexpected argument: extra");
	assert_int_equal(parse(&env, "-i", NULL), FGT_CLI_ERROR);
	assert_non_null(strstr(env.cli.err, "missing value: -i"));
}

/* --help & co are actions: under -j too, nothing runs. */
static void test_actions(void **state)
{
	struct fgt_env env;

	assert_int_equal(parse(&env, "-j", "--help", NULL), FGT_CLI_HELP);
	assert_int_equal(parse(&env, "-h", NULL), FGT_CLI_HELP);
	assert_int_equal(parse(&env, "--usage", "-j", NULL), FGT_CLI_USAGE);
	assert_int_equal(parse(&env, "-V", NULL), FGT_CLI_VERSION);
	assert_int_equal(parse(&env, "--version", "--explain", NULL), FGT_CLI_VERSION);
	/* an error is still one */
	assert_int_equal(parse(&env, "--help", "-i", "0", NULL), FGT_CLI_ERROR);
	assert_int_equal(parse(&env, "--explain", "--path=direct", "-e", "--no-screen", NULL),
			 FGT_CLI_RUN);
	assert_true(env.explain && env.events && env.no_screen);
	assert_int_equal(env.path, FGT_PATH_DIRECT);
	assert_int_equal(env.interval_s, 1);
	assert_int_equal(parse(&env, "--path", "sideways", NULL), FGT_CLI_ERROR);
	assert_string_equal(env.cli.err, "invalid path: sideways (direct or attributed)");
}

/* -V as bpftool's: the version, the libbpf it was built with, the features. */
static void test_version_text(void **state)
{
	char buf[1024], want[64];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	assert_non_null(f);
	assert_true(fgt_env_print(FGT_CLI_VERSION, f));
	fclose(f);
	snprintf(want, sizeof(want), "fgraphtop 0.1\nusing libbpf v%u.%u\nfeatures: ",
		 libbpf_major_version(), libbpf_minor_version());
	assert_memory_equal(buf, want, strlen(want));
	assert_non_null(strstr(buf, "zstd (libzstd "));
	assert_non_null(strstr(buf, "x86-64 and arm64 code (capstone "));
	assert_int_equal(strchr(buf, '\0')[-1], '\n');
	/* nothing printed for the actions that run */
	assert_false(fgt_env_print(FGT_CLI_RUN, stdout));
	assert_false(fgt_env_print(FGT_CLI_ERROR, stdout));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_json_mode),
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_version_text),
	};

	return cmocka_run_group_tests_name("env", tests, NULL, NULL);
}
