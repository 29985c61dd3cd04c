// SPDX-License-Identifier: GPL-2.0
/* Shared command-line parsing: see cli.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <archive.h>
#include <bpf/libbpf.h>
#include <bzlib.h>
#include <capstone/capstone.h>
#include <lz4.h>
#include <lzma.h>
#include <lzo/lzoconf.h>
#include <zlib.h>
#include <zstd.h>
#include "common/cli.h"

error_t fgt_cli_error(struct argp_state *state, const char *fmt, ...)
{
	struct fgt_cli *cli = state->input;
	va_list ap;

	if (cli->action != FGT_CLI_ERROR && !cli->scanning) {
		va_start(ap, fmt);
		vsnprintf(cli->err, sizeof(cli->err), fmt, ap);
		va_end(ap);
		cli->action = FGT_CLI_ERROR;
	}
	return EINVAL;
}

error_t fgt_cli_key(int key, char *arg, struct argp_state *state)
{
	struct fgt_cli *cli = state->input;

	switch (key) {
	case 'j':
		cli->json = true;
		return 0;
	case 'v':
		cli->verbose++;
		return 0;
	case 'h':
		key = FGT_CLI_KEY_HELP;
		/* fallthrough */
	case FGT_CLI_KEY_HELP:
	case FGT_CLI_KEY_USAGE:
	case FGT_CLI_KEY_VERSION:
		/* the first action asked for wins; an error later still counts */
		if (cli->action == FGT_CLI_RUN && !cli->scanning)
			cli->action = key == FGT_CLI_KEY_HELP ? FGT_CLI_HELP :
				      key == FGT_CLI_KEY_USAGE ? FGT_CLI_USAGE : FGT_CLI_VERSION;
		return 0;
	case ARGP_KEY_ARG:
		return fgt_cli_error(state, "unexpected argument: %s", arg);
	case ARGP_KEY_ERROR:
		/* getopt refused argv[next - 1] (unknown option, missing value);
		 * a bad value already said what was wrong with it */
		if (cli->action != FGT_CLI_ERROR && !cli->scanning) {
			const char *bad = state->next > 0 && state->next <= state->argc ?
					  state->argv[state->next - 1] : "?";

			snprintf(cli->err, sizeof(cli->err), "unrecognized option or missing "
				 "value: %s (%s --help lists the options)", bad, state->name);
			cli->action = FGT_CLI_ERROR;
		}
		cli->scanning = true;
		/* where to go on looking for -j */
		cli->err_next = state->next;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

enum fgt_cli_action fgt_cli_parse(const struct argp *argp, int argc, char **argv,
				  struct fgt_cli *cli)
{
	const unsigned int flags = ARGP_NO_ERRS | ARGP_NO_EXIT | ARGP_NO_HELP | ARGP_IN_ORDER;
	char *rest[argc + 1];
	int from = 1;

	cli->action = FGT_CLI_RUN;
	cli->err[0] = '\0';
	/*
	 * argp stops at the first error. Past it, parse the rest again, and
	 * again, only to learn whether -j is there: a JSON consumer gets its
	 * usage error as JSON wherever it put the -j.
	 */
	while (from < argc + 1) {
		int n = 1;

		rest[0] = argv[0];
		for (int i = from; i < argc; i++)
			rest[n++] = argv[i];
		rest[n] = NULL;
		cli->err_next = 0;
		if (!argp_parse(argp, n, rest, flags, NULL, cli) || !cli->scanning ||
		    cli->err_next <= 0)
			break;
		from += cli->err_next - 1;
		if (cli->err_next <= 1)
			from++;
	}
	cli->scanning = false;
	return cli->action;
}

/* What this build can do beyond the BPF side, with the libraries linked in
 * (check --kernel's image formats, the static verdict's decoder). */
static void features(FILE *f)
{
	int major, minor;

	cs_version(&major, &minor);
	fprintf(f, "features: %s, kernel images: ELF (libelf), gzip (zlib %s), xz and lzma "
		"(liblzma %s), zstd (libzstd %s), bzip2 (libbz2 %.*s), lz4 (liblz4 %s), "
		"lzo (liblzo2 %s), Debian packages (%s), x86-64 and arm64 code "
		"(capstone %d.%d)\n",
#if defined(__x86_64__)
		"x86_64",
#elif defined(__aarch64__)
		"arm64",
#else
		"other",
#endif
		zlibVersion(), lzma_version_string(), ZSTD_versionString(),
		/* "1.0.8, 13-Jul-2019": the version only */
		(int)strcspn(BZ2_bzlibVersion(), ","), BZ2_bzlibVersion(), LZ4_versionString(),
		lzo_version_string(), archive_version_string(), major, minor);
}

bool fgt_cli_print(const struct argp *argp, enum fgt_cli_action a, const char *name,
		   const char *version, FILE *f)
{
	switch (a) {
	case FGT_CLI_HELP:
		argp_help(argp, f, ARGP_HELP_STD_HELP, (char *)name);
		return true;
	case FGT_CLI_USAGE:
		argp_help(argp, f, ARGP_HELP_USAGE, (char *)name);
		return true;
	case FGT_CLI_VERSION:
		fprintf(f, "%s\nusing libbpf v%u.%u\n", version, libbpf_major_version(),
			libbpf_minor_version());
		features(f);
		return true;
	default:
		return false;
	}
}
