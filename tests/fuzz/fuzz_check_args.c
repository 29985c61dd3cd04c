// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: fgraphtop check's option parser (src/check_main.c). */
#include <stdio.h>
#include <stdlib.h>
#include "check_main.h"
#include "fuzz_args.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[FUZZ_MAX_ARGS + 1], *buf, name[] = "check";
	struct fgt_check_args a;
	int argc = fuzz_argv(data, size, name, argv, &buf);
	enum fgt_cli_action act;

	if (!argc)
		return 0;
	act = fgt_check_parse_args(argc, argv, &a);
	if (act > FGT_CLI_ERROR || (act == FGT_CLI_ERROR && !a.cli.err[0]))
		abort();
	if (act == FGT_CLI_RUN && (!(a.o.timeout_s >= 0 && a.o.timeout_s <= 86400) ||
				   a.o.park > 100000 || (a.o.force && !a.o.trigger)))
		abort();
	free(buf);
	return 0;
}
