// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-gen: write a simulated kernel run in the recorded format, for new
 * tests/data files. Expectations (EXPECT lines) are added by hand from the
 * kernel model, never from the assembler's output.
 *
 *   fgt-gen [-f] [-d] [-u U] [-b BEFORE] [-a AFTER] [-k K] [-i INTERVAL]
 *           [-n NTH_BLOCKING_FAIL] [-c IDLE_CPUS] [-F FORKS] [-x FAILED_FORKS] [-r RUNS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "lib/events.h"
#include "lib/gen.h"

static void out(const struct fgt_event *ev, void *ctx)
{
	ev_write(ctx, ev);
}

int main(int argc, char **argv)
{
	struct gen_cfg c = { .ts0 = 1000000 };
	unsigned int forks = 0, failed_forks = 0, runs = 1, i;
	int opt;

	while ((opt = getopt(argc, argv, "fdu:b:a:k:i:n:c:F:x:r:")) != -1) {
		switch (opt) {
		case 'f': c.fixed = true; break;
		case 'd': c.direct = true; break;
		case 'u': c.lacking = atoi(optarg); break;
		case 'b': c.before = atoi(optarg); break;
		case 'a': c.after = atoi(optarg); break;
		case 'k': c.fail_nb = atoi(optarg); break;
		case 'i': c.fail_interval = atoi(optarg); break;
		case 'n': c.fail_blocking_nth = atoi(optarg); break;
		case 'c': c.idle_cpus = atoi(optarg); break;
		case 'F': forks = atoi(optarg); break;
		case 'x': failed_forks = atoi(optarg); break;
		case 'r': runs = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: see tests/lib/gen_main.c\n");
			return 2;
		}
	}
	for (i = 0; i < runs; i++) {
		c.ts0 = gen_activation(&c, out, stdout);
		c.ts0 = gen_forks(c.ts0, forks, failed_forks, c.direct, out, stdout) + 1000;
	}
	return 0;
}
