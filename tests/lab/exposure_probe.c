// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-exposure: src/exposure.c in the lab guest, until fgraphtop's check and
 * live view print it. One scan, one JSON line on stdout:
 *
 *   fgt-exposure [-c SWEEPS,WALK_NS,VISITS]
 *   {"threads":T,"lacking":U,"sweeps":S,"visits":V,"estimate_s":E,
 *    "ns_per_visit":N,"cost":"default"|"observed","scan_ns":D}
 *
 * -c calibrates with an observed activation (fgt_exp_calib). The scanning
 * process is one of the T threads, and lacks a stack when created after the
 * last activation: it is counted, as the kernel's walk would count it.
 * Errors: {"error":MSG,"errno":E}; status 3 without a function graph tracer,
 * 2 for bad options, else 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "exposure.h"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int usage(void)
{
	printf("{\"error\":\"usage: fgt-exposure [-c SWEEPS,WALK_NS,VISITS]\",\"errno\":%d}\n",
	       EINVAL);
	return 2;
}

int main(int argc, char **argv)
{
	struct fgt_exp_calib calib = {}, *cp = NULL;
	struct fgt_exp_estimate e;
	struct fgt_exp_walk w;
	unsigned long long t0, t1;
	char msg[256];
	int err, opt;

	while ((opt = getopt(argc, argv, "c:")) != -1) {
		if (opt != 'c' || sscanf(optarg, "%lu,%lu,%lu", &calib.sweeps, &calib.walk_ns,
					 &calib.visits) != 3)
			return usage();
		cp = &calib;
	}
	if (optind != argc)
		return usage();
	t0 = now_ns();
	err = fgt_exposure_scan(&w, msg, sizeof(msg));
	t1 = now_ns();
	if (err) {
		printf("{\"error\":\"%s\",\"errno\":%d}\n", msg, -err);
		return err == -EOPNOTSUPP ? 3 : 1;
	}
	fgt_exp_estimate(&w, cp, &e);
	printf("{\"threads\":%lu,\"lacking\":%lu,\"sweeps\":%lu,\"visits\":%lu,"
	       "\"estimate_s\":%.6f,\"ns_per_visit\":%.2f,\"cost\":\"%s\",\"scan_ns\":%llu}\n",
	       w.threads, w.lacking, w.sweeps, w.visits, e.seconds, e.ns_per_visit,
	       fgt_exp_cost_src_name(e.src), t1 - t0);
	return 0;
}
