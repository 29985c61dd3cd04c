// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-prom-sample FILE VERDICT RELEASE BUILD_ID: a textfile as `fgraphtop check
 * --prometheus` writes it (same writer), for lab/fleet-e2e.sh --synthetic,
 * which develops the Prometheus side before guests can run the check.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "check/check.h"

int main(int argc, char **argv)
{
	struct fgt_check_result r = { .threads = -1 };
	char err[256];

	if (argc != 5) {
		fprintf(stderr, "usage: %s FILE VERDICT RELEASE BUILD_ID\n", argv[0]);
		return 2;
	}
	for (r.verdict = 0; r.verdict < FGT_VERDICT__NR; r.verdict++)
		if (!strcmp(argv[2], fgt_verdict_answer(r.verdict)))
			break;
	if (r.verdict == FGT_VERDICT__NR) {
		fprintf(stderr, "%s: not a verdict\n", argv[2]);
		return 2;
	}
	snprintf(r.kid.release, sizeof(r.kid.release), "%s", argv[3]);
	snprintf(r.kid.build_id, sizeof(r.kid.build_id), "%s", argv[4]);
	r.check_time = (double)time(NULL);
	r.status = r.verdict == FGT_VERDICT_NOT_FIXED ? 2 : r.verdict == FGT_VERDICT_UNKNOWN ? 3 : 0;
	r.seen.have = r.verdict == FGT_VERDICT_FIXED || r.verdict == FGT_VERDICT_NOT_FIXED;
	r.seen.fig.sweeps = r.verdict == FGT_VERDICT_NOT_FIXED ? 4 : 1;
	r.seen.fig.served = 112;
	r.seen.fig.duration_ns = 3000000;
	if (fgt_check_write_prom(argv[1], &r, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	return 0;
}
