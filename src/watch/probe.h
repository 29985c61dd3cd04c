/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plan's steps that touch the kernel (src/watch/probe.c): the preflight,
 * the kernel's facts from kallsyms and BTF, and each probe loaded and
 * attached alone. The pure steps are src/watch/plan.h's.
 */
#ifndef FGT_PROBE_H
#define FGT_PROBE_H

#include <stddef.h>
#include "host/ksyms.h"
#include "watch/plan.h"

/* Before any BPF: can this kernel have the problem, and may we look?
 * Returns 0 or an FGT_EXIT_* status, with one line (what is wrong, what to do) in msg. */
int fgt_preflight(const struct fgt_ksyms *ks, char *msg, size_t msglen);

/* All three steps on the running kernel (probing needs root). 0 or FGT_EXIT_* with msg. */
int fgt_plan_build(struct fgt_plan *p, const struct fgt_ksyms *ks,
		   enum fgt_path_pref pref, char *msg, size_t msglen);

#endif
