// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-exposure: src/watch/exposure.c in the lab guest, until fgraphtop's check and
 * live view print it. One scan, one JSON line on stdout:
 *
 *   fgt-exposure [-c SWEEPS,WALK_NS,VISITS] [-n PASSES]
 *   {"threads":T,"lacking":U,"sweeps":S,"visits":V,"estimate_s":E,
 *    "ns_per_visit":N,"cost":"default"|"observed","scan_ns":D}
 *
 * -c calibrates with an observed activation (fgt_exp_calib). -n reads PASSES
 * passes through one open iterator (the live view's way), printing the last,
 * and "passes_equal" says whether U and T were the same in every one. The scanning
 * process is one of the T threads, and lacks a stack when created after the
 * last activation: it is counted, as the kernel's walk would count it.
 * Errors: {"error":MSG,"errno":E}; status 3 without a function graph tracer,
 * 2 for bad options, else 1.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "watch/exposure.h"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int usage(void)
{
	printf("{\"error\":\"usage: fgt-exposure [-c SWEEPS,WALK_NS,VISITS] [-n PASSES]\",\"errno\":%d}\n",
	       EINVAL);
	return 2;
}

/* PASSES reads through one open iterator; *same: U and T equal in all */
static int scan(int passes, struct fgt_exp_walk *w, bool *same, char *msg, size_t len)
{
	struct fgt_exposure *e;
	struct fgt_exp_walk first;
	int i, err = 0;

	*same = true;
	if (passes == 1)
		return fgt_exposure_scan(w, msg, len);
	e = fgt_exposure_open(msg, len);
	if (!e)
		return -errno;
	for (i = 0; i < passes && !err; i++) {
		err = fgt_exposure_read(e, w, msg, len);
		if (i == 0)
			first = *w;
		else if (w->lacking != first.lacking || w->threads != first.threads)
			*same = false;
	}
	fgt_exposure_close(e);
	return err;
}

int main(int argc, char **argv)
{
	struct fgt_exp_calib calib = {}, *cp = NULL;
	struct fgt_exp_estimate e;
	struct fgt_exp_walk w;
	unsigned long long t0, t1;
	int err, opt, passes = 1;
	char msg[256];
	bool same;

	while ((opt = getopt(argc, argv, "c:n:")) != -1) {
		if (opt == 'c' && sscanf(optarg, "%lu,%lu,%lu", &calib.sweeps, &calib.walk_ns,
					 &calib.visits) == 3)
			cp = &calib;
		else if (opt == 'n' && (passes = atoi(optarg)) >= 1)
			;
		else
			return usage();
	}
	if (optind != argc)
		return usage();
	t0 = now_ns();
	err = scan(passes, &w, &same, msg, sizeof(msg));
	t1 = now_ns();
	if (err) {
		printf("{\"error\":\"%s\",\"errno\":%d}\n", msg, -err);
		return err == -EOPNOTSUPP ? 3 : 1;
	}
	fgt_exp_estimate(&w, cp, &e);
	printf("{\"threads\":%lu,\"lacking\":%lu,\"sweeps\":%lu,\"visits\":%lu,"
	       "\"estimate_s\":%.6f,\"ns_per_visit\":%.2f,\"cost\":\"%s\",\"scan_ns\":%llu,"
	       "\"passes\":%d,\"passes_equal\":%s}\n",
	       w.threads, w.lacking, w.sweeps, w.visits, e.seconds, e.ns_per_visit,
	       fgt_exp_cost_src_name(e.src), t1 - t0, passes, same ? "true" : "false");
	return 0;
}
