/* SPDX-License-Identifier: GPL-2.0 */
/*
 * node_exporter textfile-collector output for `fgraphtop check --prometheus FILE`.
 * The file is replaced atomically: never half-written, never
 * written through a symlink.
 */
#ifndef FGT_PROM_H
#define FGT_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct fgt_prom_metrics {
	const char *verdict;	/* "fixed", "not_fixed", "not_affected", "unknown" */
	int status;		/* check's exit status (0..3) */
	const char *release;	/* uname -r */
	const char *build_id;	/* from /sys/kernel/notes, hex; NULL or "" if unknown */
	double check_time;	/* when the check ran, seconds since the epoch */
	bool have_activation;	/* the figures below are about one seen activation */
	double activation_seconds;	/* end to end */
	uint64_t sweeps;
	uint64_t threads_served;
	uint64_t failures;	/* failed shadow-stack allocations, all gfp classes */
	uint64_t failed_nonblocking;	/* of which non-blocking (memory pressure) */
	uint64_t extra_sweeps;	/* sweeps after the first (fixed: reserves used up) */
	double extra_seconds;	/* their time */
	uint64_t lost_events;
	const char *method;	/* what answered (check's JSON "method"); NULL: not said */
	bool have_exposure;	/* the figures below were measured */
	uint64_t lacking;	/* threads lacking a shadow stack */
	double walk_estimate_s;	/* the unfixed walk over them */
	double visit_cost_s;	/* at this cost a visit */
	const char *visit_cost_src;	/* "default" or "observed" */
};

/* Every verdict fgraphtop_verdict has a series for (a state set: one is 1). */
extern const char *const fgt_prom_verdicts[];

/* Render the exposition text into f (exposed for tests). 0 or -errno. */
int fgt_prom_render(FILE *f, const struct fgt_prom_metrics *m);

/*
 * Write the metrics to path atomically: temp file (O_EXCL) in path's
 * directory, fsync, chmod 0644, rename over path. Refuses a symlink at path
 * and a directory that is not one. 0, or -errno with a message in err.
 */
int fgt_prom_write(const char *path, const struct fgt_prom_metrics *m, char *err, size_t errlen);

#endif
