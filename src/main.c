// SPDX-License-Identifier: GPL-2.0
/*
 * fgraphtop: watch the function-graph tracer allocate per-thread shadow
 * stacks on its 0 -> 1 step, and tell whether this kernel carries the fix
 * for the quadratic walk ("tracing: fgraph: fix the quadratic shadow stack walk").
 *
 * `fgraphtop check` (src/check_main.c), `fgraphtop hold` (src/hold_main.c),
 * else the live tool: its options (src/env.c), then src/live/live.c.
 */
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "check/check.h"
#include "hold/hold.h"
#include "env.h"
#include "common/exit_codes.h"
#include "common/log.h"
#include "live/live.h"
#include "watch/session.h"
#include "static/kread_bpf.h"

/* libbpf's own messages go through the one channel: warnings with -v, all with -vvv. */
static int libbpf_print_fn(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (fgt_verbose < 3 && !(fgt_verbose >= 1 && level == LIBBPF_WARN))
		return 0;
	fgt_vlog(level == LIBBPF_WARN ? FGT_LOG_INFO : FGT_LOG_DEBUG, fmt, args);
	return 0;
}

int main(int argc, char **argv)
{
	struct fgt_session s = {};
	enum fgt_cli_action act;
	struct fgt_env env;

	if (argc > 1 && !strcmp(argv[1], "check")) {
		libbpf_set_print(libbpf_print_fn);
		return fgt_check_main(argc - 1, argv + 1, fgt_session_watch_ops(&s), fgt_kread_bpf);
	}
	if (argc > 1 && !strcmp(argv[1], "hold")) {
		libbpf_set_print(libbpf_print_fn);
		return fgt_hold_main(argc - 1, argv + 1, fgt_session_watch_ops(&s));
	}
	act = fgt_env_parse(argc, argv, &env);
	fgt_msg_setup(env.cli.json, stdout);
	fgt_verbose = env.cli.verbose;
	if (fgt_env_print(act, stdout))
		return FGT_EXIT_OK;
	if (act == FGT_CLI_ERROR) {
		p_err(FGT_EXIT_USAGE, "%s", env.cli.err);
		if (!env.cli.json)
			fprintf(stderr, "Try 'fgraphtop --help' for more information.\n");
		return FGT_EXIT_USAGE;
	}
	/*
	 * Large blocks always mmap()ed, as src/host/ksyms.c counts on: glibc raises
	 * its threshold to the size of each mapped block freed, and the start-up
	 * frees vmlinux BTF's megabytes before /proc/kallsyms is read (after the
	 * start line), whose tables would then grow in the heap and keep the
	 * peak (docs/bench/startup.md).
	 */
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
	libbpf_set_print(libbpf_print_fn);
	return fgt_live_run(&(struct fgt_live_opts){
		.interval_s = env.interval_s, .duration_s = env.duration_s,
		.ringbuf_mb = env.ringbuf_mb, .json = env.cli.json, .events = env.events,
		.explain = env.explain, .no_screen = env.no_screen, .path = env.path,
	});
}
