/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How this kernel can be observed, worked out from real load-and-attach
 * attempts (bpf/calib_feat.bpf.c), never from BTF presence or version numbers,
 * and which path serves which figure. `fgraphtop --explain` prints it.
 */
#ifndef FGT_PLAN_H
#define FGT_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "ksyms.h"
#include "json_writer.h"

enum fgt_path_pref {
	FGT_PATH_AUTO = 0,
	FGT_PATH_DIRECT,
	FGT_PATH_ATTRIBUTED,
};

#define FGT_PLAN_MAX_PROBES 32

struct fgt_probe {
	char prog[64];		/* calib_feat program name: <role>__<what> */
	char kind[8];		/* fentry, fexit, tp_btf */
	char target[64];	/* function or tracepoint */
	int load_err;		/* 0 or -errno */
	int attach_err;		/* 0 or -errno (only when loaded) */
	bool ok;		/* loaded and attached */
	const char *skipped;	/* not tried, and why */
};

struct fgt_range {
	const char *name;	/* kallsyms name, NULL when absent */
	uint64_t lo, hi;
};

struct fgt_plan {
	enum fgt_path_pref pref;
	struct fgt_probe probes[FGT_PLAN_MAX_PROBES];
	int nr_probes;

	/* kernel facts, from kallsyms and BTF */
	struct fgt_range sweep;		/* alloc_retstack_tasklist or its holder */
	struct fgt_range start;		/* start_graph_tracing or its holder */
	struct fgt_range fork, idle, exit;
	uint64_t rth_addr, graph_active_addr, nr_threads_addr, cachep_addr;
	uint64_t text_lo, text_hi;	/* _stext, _etext: the kernel's own text */
	uint32_t shadow_depth;		/* 50 where ret_stack is struct ftrace_ret_stack * */
	uint32_t shadow_bytes;		/* SHADOW_STACK_SIZE otherwise */

	/* choices */
	bool direct_act;		/* ACT_BEGIN/END from fentry/fexit */
	const char *direct_act_fn;	/* start_graph_tracing or register_ftrace_graph */
	bool direct_sweep;		/* SWEEP_BEGIN/END from alloc_retstack_tasklist */
	bool direct_fork;		/* TASK_NEW from fexit ftrace_graph_init_task */
	bool attributed_ok;		/* the kmem tracepoints the attributed path needs attach */
	bool tp_kmalloc, tp_kfree, tp_kca, tp_kcf, tp_newtask, ctx_fork;
	const char *lat_cache, *lat_csize, *lat_size;	/* allocator functions for latency */
	bool tracing_refused;		/* no tracing program could even be loaded */
	int tracing_err;
};

/* An allocator function accepted fentry/fexit: the fork path's latency can be measured. */
static inline bool fgt_plan_has_lat(const struct fgt_plan *p)
{
	return p->lat_cache || p->lat_csize || p->lat_size;
}

/* Before any BPF: can this kernel have the problem, and may we look?
 * Returns 0 or an FGT_EXIT_* status, with one line (what is wrong, what to do) in msg. */
int fgt_preflight(const struct fgt_ksyms *ks, char *msg, size_t msglen);
/* Run the probes; fills p. Returns 0, or an FGT_EXIT_* status with msg set. */
int fgt_plan_build(struct fgt_plan *p, const struct fgt_ksyms *ks,
		   enum fgt_path_pref pref, char *msg, size_t msglen);
void fgt_plan_explain(const struct fgt_plan *p, FILE *f);
void fgt_plan_explain_json(const struct fgt_plan *p, json_writer_t *jw);
/* Why a probe failed, in words (libbpf/kernel errno interpreted). */
const char *fgt_probe_why(const struct fgt_probe *pr, char *buf, size_t len);

#endif
