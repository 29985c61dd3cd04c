/* SPDX-License-Identifier: GPL-2.0 */
/* fgraphtop's command line (retsnoop's env.c): options in, struct fgt_env out. */
#ifndef FGT_ENV_H
#define FGT_ENV_H

#include <stdbool.h>
#include <stdio.h>
#include "common/cli.h"
#include "watch/plan.h"

struct fgt_env {
	struct fgt_cli cli;		/* first: the shared parser's state */
	unsigned int interval_s;
	unsigned int duration_s;	/* 0: until stopped */
	unsigned int ringbuf_mb;	/* 0: the default */
	bool events;
	bool explain;
	bool no_screen;
	enum fgt_path_pref path;
};

extern const char fgt_version[];

/* Parse argv into env (defaults first); returns what to do. Prints nothing. */
enum fgt_cli_action fgt_env_parse(int argc, char **argv, struct fgt_env *env);
/* --help, --usage, --version: printed, true; other actions: false. */
bool fgt_env_print(enum fgt_cli_action a, FILE *f);

#endif
