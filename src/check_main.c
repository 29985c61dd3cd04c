// SPDX-License-Identifier: GPL-2.0
/*
 * `fgraphtop check`'s command line and process set-up (retsnoop's env.c):
 * options, signals, then src/check/check.c's run, the metrics file, the answer.
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "check/check.h"
#include "common/exit_codes.h"
#include "common/clock.h"
#include "check_main.h"
#include "env.h"
#include "common/log.h"
#include "common/parse.h"
#include "check/parked_threads.h"
#include "static/static_kernel.h"

#define CHECK_TIMEOUT_S		30.0	/* default --timeout */

static const char check_doc[] =
"Tell whether the running kernel carries the fix for fgraph's quadratic\n"
"shadow-stack walk, and exit with a monitoring-plugin status:\n"
"  0 fixed, or not affected (no function graph tracer in this kernel)\n"
"  1 fixed, but allocations failed or events were lost during the activation\n"
"  2 not fixed\n"
"  3 unknown: the line says why and what would let it tell (also: a\n"
"    --prometheus file or an answer that could not be written)\n"
" 64 bad options (as for fgraphtop): the line says what is wrong\n"
"\n"
"By default it answers at once from the kernel's own code: the machine code\n"
"of the function holding the shadow-stack walk, read from /proc/kcore (or a\n"
"kernel file with --kernel), changing nothing. --timeout S also waits for an\n"
"activation (fgraph's 0->1 step) someone else causes; --trigger causes one: a\n"
"private tracefs instance (or a kretprobe.multi link, or the idle top-level\n"
"tracer) on one cold function, after parking threads that need shadow stacks;\n"
"the tracing state is restored afterwards, and after a killed run by the next\n"
"one. The code and the activation must agree; when they do not, unknown.\n"
"\n"
"EXAMPLES:\n"
"    fgraphtop check                       # from the code, at once\n"
"    fgraphtop check --kernel /boot/vmlinuz-$(uname -r)\n"
"    fgraphtop check --timeout 30          # and wait for an activation\n"
"    fgraphtop check --trigger             # cause one, answer in about a second\n"
"    fgraphtop check --trigger --json\n"
"    fgraphtop check --trigger --prometheus /var/lib/prometheus/node-exporter/fgraphtop.prom\n";

enum {
	OPT_TIMEOUT = 0x200,
	OPT_TRIGGER,
	OPT_FORCE,
	OPT_PROM,
	OPT_PARK,
	OPT_STATIC,
	OPT_KERNEL,
	OPT_SYSMAP,
};

static const struct argp_option check_opts[] = {
	{ "static", OPT_STATIC, NULL, 0, "Answer from the kernel's code only (the default "
	  "without --trigger or --timeout)", 0 },
	{ "kernel", OPT_KERNEL, "FILE", 0, "Answer for a kernel file (vmlinux, bzImage, "
	  "arm64 Image, or a kernel .deb) instead of the running kernel", 0 },
	{ "system-map", OPT_SYSMAP, "FILE", 0, "With --kernel: its System.map (else its "
	  ".symtab or its own kallsyms tables)", 0 },
	{ "timeout", OPT_TIMEOUT, "S", 0, "Also wait up to S seconds for an activation "
	  "(default with --trigger: 30)", 0 },
	{ "trigger", OPT_TRIGGER, NULL, 0, "Also cause an activation (least disturbing way)", 0 },
	{ "force", OPT_FORCE, NULL, 0, "Trigger even when the unfixed walk is estimated "
	  "to take long on this host", 0 },
	{ "json", 'j', NULL, 0, "One JSON object", 0 },
	{ "prometheus", OPT_PROM, "FILE", 0, "Also write node_exporter textfile metrics to FILE", 0 },
	{ "park", OPT_PARK, "N", OPTION_HIDDEN, "Threads to park before triggering", 0 },
	{ "verbose", 'v', NULL, 0, "More messages", 0 },
	FGT_CLI_STD_OPTIONS,
	{},
};

static error_t check_parse(int key, char *arg, struct argp_state *state)
{
	struct fgt_check_args *a = state->input;
	error_t e = fgt_cli_key(key, arg, state);
	uint64_t n;

	if (e != ARGP_ERR_UNKNOWN)
		return e;
	switch (key) {
	case OPT_TIMEOUT:
		if (fgt_parse_seconds(arg, 86400, &a->o.timeout_s))
			return fgt_cli_error(state, "invalid --timeout: %s (0..86400 seconds)", arg);
		a->o.watch = true;
		return 0;
	case OPT_STATIC:
		a->o.static_only = true;
		return 0;
	case OPT_KERNEL:
		a->o.kernel = arg;
		return 0;
	case OPT_SYSMAP:
		a->o.system_map = arg;
		return 0;
	case OPT_TRIGGER:
		a->o.trigger = true;
		return 0;
	case OPT_FORCE:
		a->o.force = true;
		return 0;
	case OPT_PROM:
		a->o.prom_file = arg;
		return 0;
	case OPT_PARK:
		if (fgt_parse_uint(arg, 0, 100000, &n))
			return fgt_cli_error(state, "invalid --park: %s (0..100000)", arg);
		a->o.park = (unsigned int)n;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp check_argp = { check_opts, check_parse, NULL, check_doc,
					NULL, NULL, NULL };

enum fgt_cli_action fgt_check_parse_args(int argc, char **argv, struct fgt_check_args *a)
{
	char *av[argc + 1];
	enum fgt_cli_action act;

	/* its messages name the command a user typed: "fgraphtop check --help" */
	memcpy(av, argv, sizeof(*av) * argc);
	av[0] = "fgraphtop check";
	av[argc] = NULL;
	memset(a, 0, sizeof(*a));
	a->o.timeout_s = CHECK_TIMEOUT_S;
	a->o.park = FGT_PARK_THREADS;
	act = fgt_cli_parse(&check_argp, argc, av, &a->cli);
	a->o.json = a->cli.json;
	if (act == FGT_CLI_RUN && a->o.force && !a->o.trigger) {
		snprintf(a->cli.err, sizeof(a->cli.err), "--force only makes sense with --trigger");
		act = a->cli.action = FGT_CLI_ERROR;
	}
	if (act == FGT_CLI_RUN && (a->o.static_only || a->o.kernel) && (a->o.trigger || a->o.watch)) {
		snprintf(a->cli.err, sizeof(a->cli.err), "%s answers from the code alone: no "
			 "--trigger or --timeout with it", a->o.kernel ? "--kernel" : "--static");
		act = a->cli.action = FGT_CLI_ERROR;
	}
	if (act == FGT_CLI_RUN && a->o.kernel && a->o.prom_file) {
		/* node_exporter's textfile describes the host it runs on: a
		 * file's answer there would read as this host's (docs/fleet.md) */
		snprintf(a->cli.err, sizeof(a->cli.err), "--prometheus describes the running "
			 "kernel; with --kernel FILE use --json");
		act = a->cli.action = FGT_CLI_ERROR;
	}
	if (act == FGT_CLI_RUN && a->o.system_map && !a->o.kernel) {
		snprintf(a->cli.err, sizeof(a->cli.err), "--system-map goes with --kernel FILE "
			 "(the running kernel's symbols come from kcore or kallsyms)");
		act = a->cli.action = FGT_CLI_ERROR;
	}
	return act;
}

static volatile sig_atomic_t check_stop;

static void on_signal(int sig)
{
	check_stop = 1;
}

/* SIGINT, SIGTERM, SIGHUP stop the check (the tracing state is restored);
 * no SA_RESTART: they must wake the poll. A closed pipe is a write error. */
static void signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * Usage errors are answers too, with fgraphtop's usage status (64): one
 * "FGRAPH UNKNOWN - usage: ..." line on stdout (a monitoring runner never
 * sees an empty one) and the message on stderr, or the check object under
 * --json.
 */
static int usage_error(const struct fgt_check_args *a, FILE *out)
{
	struct fgt_check_result r = { .threads = -1 };

	if (!a->o.json) {
		/* the option is echoed: escaped, it drives no terminal */
		char esc[4 * sizeof(a->cli.err)];

		fprintf(stderr, "fgraphtop check: %s\nTry 'fgraphtop check --help'.\n",
			fgt_text_escape(esc, sizeof(esc), a->cli.err));
	}
	fgt_check_seen_init(&r.seen);
	fgt_kernel_id_read(&r.kid, NULL);
	r.check_time = fgt_epoch_s();
	r.verdict = FGT_VERDICT_UNKNOWN;
	r.status = FGT_EXIT_USAGE;
	snprintf(r.note, sizeof(r.note), "usage: %s", a->cli.err);
	return fgt_check_answer(&r, a->o.json, NULL, out);
}

int fgt_check_main(int argc, char **argv, const struct fgt_watch_ops *watch,
		   fgt_kmem_read_fn bpf_read)
{
	struct fgt_check_sys sys = { .watch = watch, .statik = fgt_static_check,
				     .bpf_read = bpf_read, .out = stdout,
				     .stop = &check_stop };
	struct fgt_check_args a;
	struct fgt_check_result *r;
	enum fgt_cli_action act;
	int status;

	act = fgt_check_parse_args(argc, argv, &a);
	/* stdout holds the answer alone: check's messages go to stderr (JSON too) */
	fgt_msg_setup(a.o.json, stderr);
	fgt_verbose = a.cli.verbose;
	if (fgt_cli_print(&check_argp, act, "fgraphtop check", fgt_version, stdout))
		return FGT_CHECK_OK;
	if (act == FGT_CLI_ERROR)
		return usage_error(&a, stdout);
	signals();
	r = calloc(1, sizeof(*r));
	if (!r) {
		log_err("out of memory");
		return FGT_CHECK_UNKNOWN;
	}
	fgt_check_run(&a.o, &sys, r);
	status = fgt_check_answer(r, a.o.json, a.o.prom_file, stdout);
	free(r);
	return status;
}
