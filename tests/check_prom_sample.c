// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-prom-sample FILE VERDICT RELEASE BUILD_ID: a textfile as `fgraphtop check
 * --prometheus` writes it (same writer), for lab/fleet-e2e.sh --synthetic,
 * which develops the Prometheus side before guests can run the check.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "check/prom.h"

int main(int argc, char **argv)
{
	struct fgt_prom_metrics m = { 0 };
	char err[256];

	if (argc != 5) {
		fprintf(stderr, "usage: %s FILE VERDICT RELEASE BUILD_ID\n", argv[0]);
		return 2;
	}
	m.verdict = argv[2];
	m.release = argv[3];
	m.build_id = argv[4];
	m.check_time = (double)time(NULL);
	m.status = !strcmp(m.verdict, "not_fixed") ? 2 : !strcmp(m.verdict, "unknown") ? 3 : 0;
	m.have_activation = !strcmp(m.verdict, "fixed") || !strcmp(m.verdict, "not_fixed");
	m.sweeps = !strcmp(m.verdict, "not_fixed") ? 4 : 1;
	m.threads_served = 112;
	m.activation_seconds = 0.003;
	if (fgt_prom_write(argv[1], &m, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	return 0;
}
