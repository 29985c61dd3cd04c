// SPDX-License-Identifier: GPL-2.0
/*
 * fgraphtop: watch the function-graph tracer allocate per-thread shadow
 * stacks on its 0 -> 1 step, and tell whether this kernel carries the fix
 * for the quadratic walk ("tracing: fgraph: fix the quadratic shadow stack walk").
 *
 * The command table: `fgraphtop check` (src/check_main.c), `fgraphtop hold`
 * (src/hold_main.c), else the live tool (src/live_main.c). check and hold
 * are handed the BPF session and the BPF memory reader here, so that their
 * rooms build without BPF skeletons (the unit tests' library).
 */
#include <stdarg.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "check/check.h"
#include "common/log.h"
#include "hold/hold.h"
#include "live_main.h"
#include "static/kread_bpf.h"
#include "watch/session.h"

/* libbpf's own messages go through the one channel: warnings with -v, all with -vvv. */
static int libbpf_print_fn(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (fgt_verbose < 3 && !(fgt_verbose >= 1 && level == LIBBPF_WARN))
		return 0;
	fgt_vlog(level == LIBBPF_WARN ? FGT_LOG_INFO : FGT_LOG_DEBUG, fmt, args);
	return 0;
}

static int check_cmd(int argc, char **argv)
{
	struct fgt_session s = {};

	return fgt_check_main(argc, argv, fgt_session_watch_ops(&s), fgt_kread_bpf);
}

static int hold_cmd(int argc, char **argv)
{
	struct fgt_session s = {};

	return fgt_hold_main(argc, argv, fgt_session_watch_ops(&s));
}

/* argv[1] names the command; the live tool takes every other argv whole. */
static const struct {
	const char *name;
	int (*run)(int argc, char **argv);	/* argv[0]: the command's name */
} commands[] = {
	{ "check", check_cmd },
	{ "hold", hold_cmd },
};

int main(int argc, char **argv)
{
	/* no message is printed before the options set the verbosity */
	libbpf_set_print(libbpf_print_fn);
	for (size_t i = 0; argc > 1 && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	return fgt_live_main(argc, argv);
}
