// SPDX-License-Identifier: GPL-2.0
/*
 * fgraphtop: watch the function-graph tracer allocate per-thread shadow
 * stacks on its 0 -> 1 step, and tell whether this kernel carries the fix
 * for the quadratic walk ("tracing: fgraph: fix the quadratic shadow stack walk").
 *
 * open -> set rodata -> load -> attach, one exit path.
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fgraphtop.h"
#include "activation.h"
#include "exit_codes.h"
#include "ksyms.h"
#include "log.h"
#include "output.h"
#include "plan.h"
#include "session.h"
#include "check.h"

int fgt_verbose;

static struct env {
	unsigned int interval_s;
	unsigned int duration_s;
	bool events;
	bool json;
	bool explain;
	bool no_screen;
	enum fgt_path_pref path;
	unsigned int ringbuf_mb;
} env = {
	.interval_s = 1,
	.ringbuf_mb = 0,	/* 1 MiB, 4 MiB with --events */
};

const char *argp_program_version = "fgraphtop 0.1";
static const char doc[] =
"Watch the function-graph tracer allocate per-thread shadow stacks on its\n"
"0 -> 1 step, and tell whether this kernel carries the fix for the quadratic\n"
"walk.\n"
"\n"
"EXAMPLES:\n"
"    fgraphtop                 # live view (top-like on a terminal)\n"
"    fgraphtop -i 5 -d 60      # summaries every 5 s, for 60 s\n"
"    fgraphtop --events        # one line per event\n"
"    fgraphtop -j              # JSON lines (docs/json.md)\n"
"    fgraphtop --explain       # how this kernel can be observed, then exit\n";

enum {
	OPT_EXPLAIN = 0x100,
	OPT_PATH,
	OPT_RINGBUF,
	OPT_NO_SCREEN,
};

static const struct argp_option opts[] = {
	{ "interval", 'i', "SEC", 0, "Summary interval in seconds (default 1)", 0 },
	{ "duration", 'd', "SEC", 0, "Stop after SEC seconds (default: until Ctrl-C)", 0 },
	{ "events", 'e', NULL, 0, "One line per event", 0 },
	{ "json", 'j', NULL, 0, "JSON lines (schema: docs/json.md)", 0 },
	{ "explain", OPT_EXPLAIN, NULL, 0, "Print the attach plan and exit", 0 },
	{ "path", OPT_PATH, "direct|attributed", 0, "Force one observation path", 0 },
	{ "ringbuf-size", OPT_RINGBUF, "MB", 0, "Ring buffer size in MiB, a power of 2 (default 1, 4 with --events)", 0 },
	{ "no-screen", OPT_NO_SCREEN, NULL, 0, "No top-like screen even on a terminal", 0 },
	{ "verbose", 'v', NULL, 0, "More messages; -vv debug, -vvv libbpf's log", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

static int parse_uint(const char *arg, unsigned int min, unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

/* A bad option value: argp's usage line, or with -j a JSON error (JSON mode's
 * errors are JSON too); both exit FGT_EXIT_USAGE. */
static void bad_option(struct argp_state *state, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void bad_option(struct argp_state *state, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!env.json)
		argp_error(state, "%s", msg);
	fgt_out_error(stdout, true, FGT_EXIT_USAGE, msg);
	exit(FGT_EXIT_USAGE);
}

static const char *bad_arg;	/* what getopt refused, for the JSON error */

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'i':
		if (parse_uint(arg, 1, 86400, &env.interval_s))
			bad_option(state, "invalid interval: %s (1..86400 seconds)", arg);
		break;
	case 'd':
		if (parse_uint(arg, 1, UINT32_MAX, &env.duration_s))
			bad_option(state, "invalid duration: %s (seconds, > 0)", arg);
		break;
	case 'e':
		env.events = true;
		break;
	case 'j':
		env.json = true;
		break;
	case OPT_EXPLAIN:
		env.explain = true;
		break;
	case OPT_PATH:
		if (!strcmp(arg, "direct"))
			env.path = FGT_PATH_DIRECT;
		else if (!strcmp(arg, "attributed"))
			env.path = FGT_PATH_ATTRIBUTED;
		else
			bad_option(state, "invalid path: %s (direct or attributed)", arg);
		break;
	case OPT_RINGBUF:
		if (parse_uint(arg, 1, 1024, &env.ringbuf_mb) ||
		    (env.ringbuf_mb & (env.ringbuf_mb - 1)))
			bad_option(state, "invalid ring buffer size: %s (MiB, a power of 2, 1..1024)", arg);
		break;
	case OPT_NO_SCREEN:
		env.no_screen = true;
		break;
	case 'v':
		fgt_verbose++;
		break;
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		bad_option(state, "unexpected argument: %s", arg);
		break;
	case ARGP_KEY_ERROR:
		/* getopt refused argv[next - 1] (unknown option, missing value). */
		if (state->next > 0 && state->next <= state->argc)
			bad_arg = state->argv[state->next - 1];
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (fgt_verbose < 3 && !(fgt_verbose >= 1 && level == LIBBPF_WARN))
		return 0;
	return vfprintf(stderr, fmt, args);
}

static volatile sig_atomic_t exiting;

static void sig_handler(int sig)
{
	exiting = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The live view's glue between the session and the output. */
static void on_event(const struct fgt_event *e, void *ctx)
{
	fgt_out_event(ctx, e);
}

static void on_activation(const struct fgt_activation *act, void *ctx)
{
	struct fgt_out **out = ctx;

	fgt_out_activation(act, *out);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { opts, parse_arg, NULL, doc, NULL, NULL, NULL };
	struct fgt_session s = {};
	struct fgt_out *out = NULL;
	struct fgt_out_opts oo = {};
	char msg[512];
	uint64_t start, next_tick, deadline = 0;
	int status = FGT_EXIT_OK, err, active;

	if (argc > 1 && !strcmp(argv[1], "check")) {
		libbpf_set_print(libbpf_print_fn);
		return fgt_check_main(argc - 1, argv + 1, fgt_session_watch_ops(&s));
	}
	argp_err_exit_status = FGT_EXIT_USAGE;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json") ||
		    (argv[i][0] == '-' && argv[i][1] != '-' && strchr(argv[i], 'j')))
			env.json = true;
	/* With -j, argp prints nothing itself (ARGP_NO_ERRS): an unknown option or a
	 * missing value is a JSON error like every other one. */
	err = argp_parse(&argp, argc, argv, env.json ? ARGP_NO_ERRS : 0, NULL, NULL);
	if (err) {
		if (env.json) {
			snprintf(msg, sizeof(msg), "unrecognized option or missing value: %s "
				 "(fgraphtop --help lists the options)", bad_arg ? bad_arg : "?");
			fgt_out_error(stdout, true, FGT_EXIT_USAGE, msg);
		}
		return FGT_EXIT_USAGE;
	}

	libbpf_set_print(libbpf_print_fn);
	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);

	s.pref = env.path;
	/* --events prints every event as it drains them: a slower consumer,
	 * and TASK_EXIT events on top (a fork storm lost some with 1 MiB) */
	s.ringbuf_mb = env.ringbuf_mb ? env.ringbuf_mb : env.events ? 4 : 1;
	status = fgt_session_plan(&s, msg, sizeof(msg));
	if (env.explain && s.plan && (status == 0 || status == FGT_EXIT_NO_PATH)) {
		if (env.json) {
			json_writer_t *jw = jsonw_new(stdout);

			if (jw) {
				jsonw_start_object(jw);
				jsonw_uint_field(jw, "schema", FGT_JSON_SCHEMA);
				jsonw_string_field(jw, "type", "plan");
				fgt_plan_explain_json(s.plan, jw);
				jsonw_end_object(jw);
				jsonw_destroy(&jw);
			}
		} else {
			fgt_plan_explain(s.plan, stdout);
		}
		if (status)
			goto fail;
		goto cleanup;
	}
	if (status)
		goto fail;

	s.on_event = env.events ? on_event : NULL;
	status = fgt_session_start(&s, on_activation, &out, msg, sizeof(msg));
	if (status)
		goto fail;

	start = now_ns();
	oo.json = env.json;
	oo.events = env.events;
	oo.screen = !env.no_screen && !env.json && !env.events && isatty(STDOUT_FILENO);
	oo.ks = s.ks;
	oo.stack_map_fd = fgt_session_stack_fd(&s);
	oo.start_ns = start;
	out = fgt_out_new(stdout, &oo);
	if (!out) {
		snprintf(msg, sizeof(msg), "out of memory");
		status = FGT_EXIT_ERROR;
		goto fail;
	}
	s.event_ctx = out;
	fgt_out_start(out, s.plan);

	active = fgt_session_graph_active(&s);
	if (active > 0) {
		snprintf(msg, sizeof(msg), "fgraph is already active (%d user%s): there is no "
			 "0->1 step to watch until every user stops; watching the fork path",
			 active, active > 1 ? "s" : "");
		fgt_out_warning(out, "fgraph_active", msg);
	}

	next_tick = start + env.interval_s * 1000000000ull;
	if (env.duration_s)
		deadline = start + env.duration_s * 1000000000ull;
	while (!exiting) {
		uint64_t t;

		err = fgt_session_poll(&s, 100);
		if (err < 0 && err != -EINTR) {
			snprintf(msg, sizeof(msg), "reading the ring buffer failed: %s", strerror(-err));
			status = FGT_EXIT_ERROR;
			goto fail;
		}
		t = now_ns();
		if (t >= next_tick) {
			fgt_out_interval(out, s.as, fgt_session_lost(&s));
			next_tick += env.interval_s * 1000000000ull;
		}
		if (deadline && t >= deadline)
			break;
	}
	/* the final report needs the assembler: flush it, report, then close */
	fgt_session_poll(&s, 0);
	fgt_asm_flush(s.as);
	fgt_out_final(out, s.as, fgt_session_lost(&s));
	goto cleanup;

fail:
	fgt_out_error(stdout, env.json, status, msg);
cleanup:
	fgt_session_close(&s);
	fgt_out_free(out);
	return status;
}
