// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: fgraphtop's option parser (src/env.c, src/common/cli.c): never exits,
 * never prints, always answers one action. */
#include <stdio.h>
#include <stdlib.h>
#include "env.h"
#include "fuzz_args.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[FUZZ_MAX_ARGS + 1], *buf, name[] = "fgraphtop";
	struct fgt_env env;
	int argc = fuzz_argv(data, size, name, argv, &buf);
	enum fgt_cli_action a;

	if (!argc)
		return 0;
	a = fgt_env_parse(argc, argv, &env);
	if (a > FGT_CLI_ERROR || (a == FGT_CLI_ERROR && !env.cli.err[0]))
		abort();
	if (a == FGT_CLI_RUN && (!env.interval_s || env.interval_s > 86400 ||
				 (env.ringbuf_mb & (env.ringbuf_mb - 1))))
		abort();
	free(buf);
	return 0;
}
