/* SPDX-License-Identifier: GPL-2.0 */
/* `fgraphtop check`'s command line (src/check_main.c). */
#ifndef FGT_CHECK_ENV_H
#define FGT_CHECK_ENV_H

#include "check/check.h"
#include "common/cli.h"

struct fgt_check_args {
	struct fgt_cli cli;		/* first: the shared parser's state */
	struct fgt_check_opts o;
};

/* Parse argv (argv[0] is "check") into a, defaults first. Prints nothing. */
enum fgt_cli_action fgt_check_parse_args(int argc, char **argv, struct fgt_check_args *a);

#endif
