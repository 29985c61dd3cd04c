/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exposure: which threads lack a shadow stack right now, i.e. how much work
 * the next fgraph activation (0 -> 1 step) would have. One BPF task iterator
 * pass reads task->ret_stack (NULL until fgraph gives the thread a stack; freed
 * only in free_task(), so it stays set once given). Nothing is attached:
 * reading the iterator's seq file runs the program once per task, under the
 * iterator's own RCU read lock; fgraph is never turned on.
 *
 * One record per task (struct fgt_exp_rec, src/model/exposure.h) rather than a count,
 * because what an unfixed kernel pays depends on where the lacking threads sit
 * in the task list: each of its batch-of-32 sweeps restarts the walk at the
 * head (src/model/exposure_model.c). The iterator visits tasks in TID order; the
 * kernel walks processes in creation order and each process's threads in
 * creation order, so the records carry the start times that order is rebuilt
 * from.
 *
 * ret_stack exists only with CONFIG_FUNCTION_GRAPH_TRACER, and its type
 * changed in 6.8 (struct ftrace_ret_stack * to unsigned long *); only the
 * pointer value matters, read with the field's own size.
 *
 * The includer says how task_struct's fields are read, before including:
 *   FGT_EXP_HAS_RET_STACK(task)	does task_struct have ret_stack?
 *   FGT_EXP_READ(dst, task, field)	*dst = task->field (sizeof(*dst) bytes)
 * bpf/exposure.bpf.c by CO-RE; bpf/fgraphtop.bpf.c at the offsets its plan
 * read from BTF (struct fgt_task_offs), with no CO-RE type at all.
 *
 * Two objects carry this body: bpf/exposure.bpf.c, a small one of its own for
 * `check` without a session, and bpf/fgraphtop.bpf.c, whose session loads it
 * with its other programs. There libbpf parses vmlinux BTF once for both,
 * where a second object's load parsed it again after the first: that second
 * parse was the live view's peak RSS (docs/bench/results.md).
 */
#ifndef FGT_EXPOSURE_H
#define FGT_EXPOSURE_H

#include "exposure_abi.h"

/*
 * The iterator's context as the kernel lays it out (kernel/bpf/task_iter.c
 * struct bpf_iter__task, include/linux/bpf.h struct bpf_iter_meta: the same
 * from 5.8 to 7.2), read without CO-RE. vmlinux.h's types would make libbpf
 * search vmlinux BTF for two more names at every load, a pass over all its
 * types each: about 1.7 M instructions each on lab-stock's 67,460 types,
 * under qemu instruction counting, before the start line. The verifier
 * checks these offsets against the kernel's own types in any case.
 */
struct fgt_iter_meta {
	struct seq_file *seq;
};

struct fgt_iter_task {
	struct fgt_iter_meta *meta;
	struct task_struct *task;
};

/* One task's record into the iterator's seq file; *no_ret_stack set when
 * task_struct has no ret_stack (a non-zero return would fail the read). */
static __always_inline int fgt_exp_task(struct fgt_iter_task *ctx, bool *no_ret_stack)
{
	struct task_struct *task = ctx->task, *leader = NULL;
	struct fgt_exp_rec rec = {};
	void *ret_stack = NULL;

	if (!task)
		return 0;	/* the iterator's final call */
	if (!FGT_EXP_HAS_RET_STACK(task)) {
		*no_ret_stack = true;
		return 0;
	}
	FGT_EXP_READ(&ret_stack, task, ret_stack);
	FGT_EXP_READ(&rec.start_ns, task, start_time);
	FGT_EXP_READ(&leader, task, group_leader);
	if (leader)
		FGT_EXP_READ(&rec.leader_start_ns, leader, start_time);
	FGT_EXP_READ(&rec.tgid, task, tgid);
	FGT_EXP_READ(&rec.tid, task, pid);
	rec.lacking = ret_stack == NULL;
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}

#endif
