/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the host's tracing state is, read without changing anything:
 *  - can this kernel have the problem at all (a function graph tracer)?
 *  - is fgraph in use right now (then there is no 0->1 step to cause or see)?
 *  - how many threads would an activation walk, and how long would an
 *    unfixed kernel take over it?
 * Paths are parameters so the tests can point them at fake trees.
 */
#ifndef FGT_HOST_STATE_H
#define FGT_HOST_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "host/ksyms.h"
#include "host/tracefs.h"

struct fgt_host {
	const char *tracefs;	/* NULL: found by fgt_tracefs_find() */
	const char *kallsyms;	/* NULL: /proc/kallsyms */
	const char *loadavg;	/* NULL: /proc/loadavg */
	const char *proc;	/* NULL: /proc (the BPF links' owners) */
	bool no_bpf_links;	/* tests: do not enumerate the real BPF links */
};

/* The tracefs the host struct names, or the found one. */
const char *fgt_host_tracefs(const struct fgt_host *h);

/*
 * Does the kernel have a function graph tracer? 1 yes, 0 no (it cannot have
 * the quadratic walk), -1 cannot tell (neither kallsyms nor tracefs readable).
 * The evidence goes to why. ks may be NULL (then it is loaded from h).
 */
int fgt_host_has_fgraph(const struct fgt_host *h, const struct fgt_ksyms *ks,
			char *why, size_t len);

/*
 * Known fgraph users right now, without BPF programs (src/host/holders.c, the
 * live view's reader): function_graph as the top-level or an instance's
 * tracer, a latency tracer drawing the call graph, the function profiler,
 * fprobe dynamic events and BPF kprobe_multi links where fprobe goes through
 * fgraph on this kernel (>= 6.14: kallsyms has fprobe_graph_ops), counting
 * those that may hold it. Returns how many were found (their description,
 * "; "-separated, in why), or -errno. skip_instance: an instance name to
 * ignore (ours).
 */
int fgt_host_fgraph_users(const struct fgt_host *h, const struct fgt_ksyms *ks,
			  const char *skip_instance, char *why, size_t len);


/* Threads in the system (the kernel's nr_threads, from /proc/loadavg); -errno on error. */
long fgt_host_threads(const struct fgt_host *h);

#endif
