// SPDX-License-Identifier: GPL-2.0
/*
 * `fgraphtop`'s live tool: its command line (src/env.c) and process set-up,
 * then src/live/live.c's run (as check_main.c is check's).
 */
#include <malloc.h>
#include <stdio.h>
#include "common/exit_codes.h"
#include "common/log.h"
#include "env.h"
#include "live/live.h"
#include "live_main.h"

int fgt_live_main(int argc, char **argv)
{
	enum fgt_cli_action act;
	struct fgt_env env;

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
	return fgt_live_run(&(struct fgt_live_opts){
		.interval_s = env.interval_s, .duration_s = env.duration_s,
		.ringbuf_mb = env.ringbuf_mb, .json = env.cli.json, .events = env.events,
		.explain = env.explain, .no_screen = env.no_screen, .path = env.path,
	});
}
