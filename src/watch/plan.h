/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How this kernel can be observed, in three steps:
 *  1. the kernel's facts, from kallsyms (src/watch/plan.c: fgt_kernel_read) and
 *     BTF (src/host/kbtf.c, read in src/watch/probe.c);
 *  2. every candidate of the probe table (src/facts/kfacts.c) loaded and attached
 *     alone, the outcome recorded (src/watch/probe.c: fgt_probe_all), never decided
 *     from BTF presence or version numbers;
 *  3. the plan: a pure function of the two (fgt_plan_choose, here), which
 *     candidate serves each row, which row each figure, and the BPF side's
 *     configuration. `fgraphtop --explain` prints it.
 */
#ifndef FGT_PLAN_H
#define FGT_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include "bpf/events_abi.h"
#include "facts/kfacts.h"
#include "host/kbtf.h"
#include "host/ksyms.h"

enum fgt_path_pref {
	FGT_PATH_AUTO = 0,
	FGT_PATH_DIRECT,
	FGT_PATH_ATTRIBUTED,
};

struct fgt_range {
	const char *name;	/* kallsyms name, NULL when absent */
	uint64_t lo, hi;
};

/* The kernel, as kallsyms and BTF describe it. */
struct fgt_kernel {
	uint64_t addr[FGT_SYM__NR];	/* 0: not in kallsyms */
	struct fgt_range sweep;		/* alloc_retstack_tasklist, else its holder */
	struct fgt_range start;		/* start_graph_tracing, else its holder */
	struct fgt_range fork, idle, exit;
	enum fgt_stack_src stack_src;
	uint32_t shadow_depth;		/* FGT_RETFUNC_DEPTH where ret_stack is a struct pointer */
	uint32_t shadow_bytes;		/* a stack's size: that many frames, else FGT_SHADOW_STACK_SIZE */
	uint32_t cache_size_off;	/* offsetof(struct kmem_cache, object_size), 0: unknown */
	struct fgt_task_offs task;	/* task_struct's fields the programs read */
};

/* One candidate of one row, as tried. */
struct fgt_probe {
	enum fgt_role role;
	int cand;		/* index in the row */
	int load_err;		/* 0 or -errno */
	int attach_err;		/* 0 or -errno (only when loaded) */
	bool ok;		/* loaded and attached */
	const char *skipped;	/* not tried, and why */
	int btf_id;		/* its target in vmlinux BTF (0: raw_tp, or none) */
	/* loaded, its attach deferred: a 0->1 step under way holds ftrace_lock,
	 * which an fentry/fexit attach waits for (src/model/joined.h) */
	bool deferred;
};

#define FGT_PLAN_MAX_PROBES	(FGT_ROLE__NR * FGT_MAX_CANDS)
#define FGT_NO_CAND		(-1)

struct fgt_plan {
	enum fgt_path_pref pref;
	struct fgt_kernel k;
	struct fgt_probe probes[FGT_PLAN_MAX_PROBES];
	int nr_probes;
	bool tracing_refused;		/* no tracing program could even be loaded */
	int tracing_err;

	/* fgt_plan_choose(): */
	int chosen[FGT_ROLE__NR];	/* candidate serving each row, FGT_NO_CAND: none */
	enum fgt_role fig_row[FGT_FIG__NR];	/* row serving each figure, FGT_ROLE__NR: none */
	bool attributed_ok;		/* every row the attributed path needs attached */
	struct fgt_kconf kconf;		/* the BPF side's rodata (want_exits: the session's) */
	/* task_struct::ret_stack by /sys/kernel/btf/vmlinux, read while the
	 * plan had it parsed, for the static verdict (have_btf: it could) */
	struct fgt_btf_known btf;
	bool have_btf;
	int iter_btf_id;		/* the task iterator's target, bpf_iter_task (0: none) */
	/* set before fgt_plan_build(): a step under way holds ftrace_lock, so
	 * fentry/fexit probes are loaded, not attached (deferred) */
	bool defer_ftrace;
};

static inline bool fgt_plan_has(const struct fgt_plan *p, enum fgt_role r)
{
	return p->chosen[r] != FGT_NO_CAND;
}

/* The chosen candidate's target, NULL when the row is not used. */
const char *fgt_plan_target(const struct fgt_plan *p, enum fgt_role r);
/* A figure's path: "direct" or "attributed" (NULL when nothing serves it). */
const char *fgt_plan_fig_path(const struct fgt_plan *p, enum fgt_figure f);
/* The chosen candidate's target id in vmlinux BTF, as its probe was loaded
 * with (0 for raw_tp rows, or when the row is not served). */
int fgt_plan_target_btf_id(const struct fgt_plan *p, enum fgt_role r);
/* An allocator function attached: the fork path's latency can be measured. */
bool fgt_plan_has_lat(const struct fgt_plan *p);

/* Step 1, the kernel's facts: from kallsyms, where stacks come from (their
 * cache, else kmalloc of 4096 bytes) ... */
struct fgt_ksyms;
void fgt_kernel_read(struct fgt_kernel *k, const struct fgt_ksyms *ks);
/* ... and from the plan's BTF answer, kmalloc'd frame arrays (up to 6.10)
 * and their bytes. */
void fgt_kernel_stacks(struct fgt_kernel *k, const struct fgt_btf_known *btf);

/* Should this row be tried on this kernel? NULL yes, else why not. */
const char *fgt_row_skip(const struct fgt_kernel *k, const struct fgt_probe_row *r);

/* Step 2's list (pure): every candidate of every row, in table order (--explain
 * lists them so), with the reason a row is not tried on this kernel. */
void fgt_plan_enumerate(struct fgt_plan *p);

/*
 * Step 3, pure: from p->k, p->probes and pref, fill p->chosen, p->fig_row,
 * p->attributed_ok and p->kconf. Returns 0, or an FGT_EXIT_* status with msg.
 */
int fgt_plan_choose(struct fgt_plan *p, enum fgt_path_pref pref, char *msg, size_t len);

/* Why a probe failed, in words (libbpf/kernel errno interpreted). */
const char *fgt_probe_why(const struct fgt_probe *pr, char *buf, size_t len);

#endif
