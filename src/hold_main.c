// SPDX-License-Identifier: GPL-2.0
/*
 * `fgraphtop hold`'s command line and process set-up (as check_main.c):
 * options, signals, then src/hold/hold.c's run and its answer.
 */
#include <argp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/cli.h"
#include "common/exit_codes.h"
#include "common/log.h"
#include "env.h"
#include "hold/hold.h"

static const char hold_doc[] =
"Keep fgraph (the function-graph tracer's machinery) armed, so that no later\n"
"fgraph user pays the unfixed kernel's shadow-stack walk: while fgraph has a\n"
"user, every new thread gets its shadow stack at fork, and a later user\n"
"(bpftrace's kretprobe, perf ftrace, function_graph) walks nothing. The\n"
"holder traces nothing and needs no process: on 6.14 and later a\n"
"kretprobe.multi link on a function nothing calls, pinned at\n"
"/sys/fs/bpf/fgraphtop/hold; on 6.11 to 6.13 function_graph in tracefs\n"
"instance fgraphtop-hold, filtered to such a function. Not offered where\n"
"fgraph takes one user (5.10, 6.1): it would make the others fail with EBUSY.\n"
"\n"
"Taking it is itself a 0->1 step: it states the threads lacking a stack, the\n"
"walk an unfixed kernel makes over them and the memory (one stack per\n"
"thread), and refuses above the 5 s bound of check --trigger unless --force.\n"
"Take it early in boot (fgraphtop-hold.service); release it once a fixed\n"
"kernel runs.\n"
"\n"
"Exit status: 0 done, 1 error, 3 no function graph tracer, 9 refused (the\n"
"walk above the bound, or a kernel where it is not offered), 64 bad options.\n"
"\n"
"EXAMPLES:\n"
"    fgraphtop hold --dry-run        # what it takes, what it costs\n"
"    fgraphtop hold                  # take it\n"
"    fgraphtop hold --status --json\n"
"    fgraphtop hold --release        # leaves nothing behind\n";

enum {
	OPT_RELEASE = 0x200,
	OPT_STATUS,
	OPT_FORCE,
	OPT_DRY_RUN,
};

struct hold_args {
	struct fgt_cli cli;		/* first: fgt_cli_parse's input */
	struct fgt_hold_opts o;
	bool release, status;
};

static const struct argp_option hold_opts[] = {
	{ "release", OPT_RELEASE, NULL, 0, "Release the hold: remove its instance or pin", 0 },
	{ "status", OPT_STATUS, NULL, 0, "Say whether fgraph is held, by what, and what it costs", 0 },
	{ "force", OPT_FORCE, NULL, 0, "Take it even above the walk bound, or unwatched", 0 },
	{ "dry-run", OPT_DRY_RUN, NULL, 0, "Say what would be taken and what it costs; change "
	  "nothing", 0 },
	{ "json", 'j', NULL, 0, "One JSON object (/usr/share/doc/fgraphtop/json.md)", 0 },
	{ "verbose", 'v', NULL, 0, "More messages", 0 },
	FGT_CLI_STD_OPTIONS,
	{},
};

static error_t hold_parse(int key, char *arg, struct argp_state *state)
{
	struct hold_args *a = state->input;
	error_t e = fgt_cli_key(key, arg, state);

	if (e != ARGP_ERR_UNKNOWN)
		return e;
	switch (key) {
	case OPT_RELEASE:
		a->release = true;
		return 0;
	case OPT_STATUS:
		a->status = true;
		return 0;
	case OPT_FORCE:
		a->o.force = true;
		return 0;
	case OPT_DRY_RUN:
		a->o.dry_run = true;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp hold_argp = { hold_opts, hold_parse, NULL, hold_doc, NULL, NULL, NULL };

static enum fgt_cli_action parse(int argc, char **argv, struct hold_args *a)
{
	enum fgt_cli_action act;
	const char *bad = NULL;

	memset(a, 0, sizeof(*a));
	a->o.timeout_s = 30;
	act = fgt_cli_parse(&hold_argp, argc, argv, &a->cli);
	a->o.json = a->cli.json;
	a->o.action = a->release ? FGT_HOLD_RELEASE : a->status ? FGT_HOLD_STATUS : FGT_HOLD_TAKE;
	if (act != FGT_CLI_RUN)
		return act;
	if (a->release && a->status)
		bad = "--release and --status: one at a time";
	else if ((a->release || a->status) && (a->o.force || a->o.dry_run))
		bad = "--force and --dry-run go with taking the hold, not with --release or --status";
	if (bad) {
		snprintf(a->cli.err, sizeof(a->cli.err), "%s", bad);
		act = a->cli.action = FGT_CLI_ERROR;
	}
	return act;
}

static volatile sig_atomic_t hold_stop;

static void on_signal(int sig)
{
	hold_stop = 1;
}

/* SIGINT, SIGTERM, SIGHUP: stop before taking it (once taken, it stays:
 * the take is one system call); no SA_RESTART, they must wake the poll. */
static void signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int fgt_hold_main(int argc, char **argv, const struct fgt_watch_ops *watch)
{
	struct fgt_hold_sys sys = { .watch = watch, .stop = &hold_stop };
	struct fgt_hold_result *r;
	enum fgt_cli_action act;
	struct hold_args a;
	int status;

	act = parse(argc, argv, &a);
	fgt_msg_setup(a.o.json, stdout);
	fgt_verbose = a.cli.verbose;
	if (fgt_cli_print(&hold_argp, act, "fgraphtop hold", fgt_version, stdout))
		return FGT_EXIT_OK;
	if (act == FGT_CLI_ERROR) {
		p_err(FGT_EXIT_USAGE, "%s", a.cli.err);
		if (!a.o.json)
			fprintf(stderr, "Try 'fgraphtop hold --help' for more information.\n");
		return FGT_EXIT_USAGE;
	}
	signals();
	r = calloc(1, sizeof(*r));
	if (!r) {
		p_err(FGT_EXIT_ERROR, "out of memory");
		return FGT_EXIT_ERROR;
	}
	status = fgt_hold_run(&a.o, &sys, r);
	if (status)
		p_err(status, "%s", r->msg);
	else
		fgt_hold_print(stdout, r, a.o.json);
	free(r);
	return status;
}
