/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line parsing shared by fgraphtop and fgraphtop check (src/env.c,
 * src/check_main.c): argp, but never printing or exiting itself, so that
 *  - JSON mode comes from argp's own parse (-vj is -v -j; -dj is -d "j"),
 *    even when the -j follows a bad option;
 *  - --help, --usage and --version are actions the caller performs (and
 *    under -j too: they never start a run);
 *  - every error is one message the caller prints through the one channel;
 *  - a fuzzer can drive it (tests/fuzz).
 */
#ifndef FGT_CLI_H
#define FGT_CLI_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>

/* fgraphtop's version (debian/changelog's), in --version and the metrics */
#define FGT_VERSION "0.1"

enum fgt_cli_action {
	FGT_CLI_RUN = 0,
	FGT_CLI_HELP,
	FGT_CLI_USAGE,
	FGT_CLI_VERSION,
	FGT_CLI_ERROR,
};

/* Every tool's parser input starts with this. */
struct fgt_cli {
	enum fgt_cli_action action;
	bool json;			/* -j, --json seen anywhere */
	bool scanning;			/* past an error: only -j matters */
	int verbose;			/* -v count */
	char err[256];			/* the first error, in words */
	int err_next;			/* argv index after the refused one */
};

/* Keys the shared options use. */
enum {
	FGT_CLI_KEY_HELP = '?',
	FGT_CLI_KEY_VERSION = 'V',
	FGT_CLI_KEY_USAGE = 0x300,
};

/* The --help, --usage, --version entries every tool lists (argp_child-less);
 * -h is --help everywhere (hidden: argp's own is -?). */
#define FGT_CLI_STD_OPTIONS \
	{ "help", FGT_CLI_KEY_HELP, NULL, 0, "Give this help list", -1 }, \
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Give this help list", -1 }, \
	{ "usage", FGT_CLI_KEY_USAGE, NULL, 0, "Give a short usage message", -1 }, \
	{ "version", FGT_CLI_KEY_VERSION, NULL, 0, "Print program version", -1 }

/*
 * Parse argv with argp (which must use a parser that calls fgt_cli_key()
 * first, and whose input begins with struct fgt_cli). Returns the action;
 * cli->err says why on FGT_CLI_ERROR.
 */
enum fgt_cli_action fgt_cli_parse(const struct argp *argp, int argc, char **argv,
				  struct fgt_cli *cli);

/* The shared keys (help, usage, version, -j, -v, getopt's errors): 0 when
 * handled, ARGP_ERR_UNKNOWN when the key is the tool's. */
error_t fgt_cli_key(int key, char *arg, struct argp_state *state);

/* Record a bad option value (the first one counts); returns EINVAL for the parser. */
error_t fgt_cli_error(struct argp_state *state, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print what a help, usage or version action asks for; false for the
 * other actions (nothing printed): the caller runs, or reports the error.
 * The version is followed by the libbpf it was built with and the build's
 * features, as bpftool -V prints them. */
bool fgt_cli_print(const struct argp *argp, enum fgt_cli_action a, const char *name,
		   const char *version, FILE *f);

#endif
