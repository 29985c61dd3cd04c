// SPDX-License-Identifier: GPL-2.0
/* fgraphtop's options: see env.h. `fgraphtop check`'s are in check_main.c. */
#include <argp.h>
#include <string.h>
#include "env.h"
#include "common/parse.h"

const char fgt_version[] = "fgraphtop " FGT_VERSION;

static const char doc[] =
"Watch the function-graph tracer allocate per-thread shadow stacks on its\n"
"0 -> 1 step, and tell whether this kernel carries the fix for the quadratic\n"
"walk.\n"
"\n"
"EXAMPLES:\n"
"    fgraphtop                 # live view (top-like on a terminal)\n"
"    fgraphtop -i 5 -d 60      # summaries every 5 s, for 60 s\n"
"    fgraphtop --events        # one line per event\n"
"    fgraphtop -j              # JSON lines (/usr/share/doc/fgraphtop/json.md)\n"
"    fgraphtop --explain       # how this kernel can be observed, then exit\n"
"    fgraphtop check           # is this kernel fixed? (fgraphtop check --help)\n";

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
	{ "json", 'j', NULL, 0, "JSON lines (fields: /usr/share/doc/fgraphtop/json.md)", 0 },
	{ "explain", OPT_EXPLAIN, NULL, 0, "Print the attach plan and exit", 0 },
	{ "path", OPT_PATH, "direct|attributed", 0, "Force one observation path", 0 },
	{ "ringbuf-size", OPT_RINGBUF, "MB", 0, "Ring buffer size in MiB, a power of 2 (default 1, 4 with --events)", 0 },
	{ "no-screen", OPT_NO_SCREEN, NULL, 0, "No top-like screen even on a terminal", 0 },
	{ "verbose", 'v', NULL, 0, "More messages; -vv debug, -vvv libbpf's log", 0 },
	FGT_CLI_STD_OPTIONS,
	{},
};

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct fgt_env *env = state->input;
	uint64_t v;
	error_t e = fgt_cli_key(key, arg, state);

	if (e != ARGP_ERR_UNKNOWN)
		return e;
	switch (key) {
	case 'i':
		if (fgt_parse_uint(arg, 1, 86400, &v))
			return fgt_cli_error(state, "invalid interval: %s (1..86400 seconds)", arg);
		env->interval_s = (unsigned int)v;
		return 0;
	case 'd':
		if (fgt_parse_uint(arg, 1, UINT32_MAX, &v))
			return fgt_cli_error(state, "invalid duration: %s (seconds, > 0)", arg);
		env->duration_s = (unsigned int)v;
		return 0;
	case 'e':
		env->events = true;
		return 0;
	case OPT_EXPLAIN:
		env->explain = true;
		return 0;
	case OPT_PATH:
		if (!strcmp(arg, "direct"))
			env->path = FGT_PATH_DIRECT;
		else if (!strcmp(arg, "attributed"))
			env->path = FGT_PATH_ATTRIBUTED;
		else
			return fgt_cli_error(state, "invalid path: %s (direct or attributed)", arg);
		return 0;
	case OPT_RINGBUF:
		if (fgt_parse_uint(arg, 1, 1024, &v) || (v & (v - 1)))
			return fgt_cli_error(state, "invalid ring buffer size: %s (MiB, a power "
					     "of 2, 1..1024)", arg);
		env->ringbuf_mb = (unsigned int)v;
		return 0;
	case OPT_NO_SCREEN:
		env->no_screen = true;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp argp = { opts, parse_arg, NULL, doc, NULL, NULL, NULL };

enum fgt_cli_action fgt_env_parse(int argc, char **argv, struct fgt_env *env)
{
	memset(env, 0, sizeof(*env));
	env->interval_s = 1;
	return fgt_cli_parse(&argp, argc, argv, &env->cli);
}

bool fgt_env_print(enum fgt_cli_action a, FILE *f)
{
	return fgt_cli_print(&argp, a, "fgraphtop", fgt_version, f);
}
