/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by bpf/exposure.bpf.c and src/watch/exposure.c: the record the task
 * iterator writes, one per task. The model over them is src/model/exposure.h.
 */
#ifndef FGT_EXPOSURE_ABI_H
#define FGT_EXPOSURE_ABI_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* One task, as bpf/exposure.bpf.c writes it to the iterator's seq file. */
struct fgt_exp_rec {
	__u64 leader_start_ns;	/* group leader's start_time: the process's place in the task list */
	__u64 start_ns;		/* the thread's start_time: its place within the process */
	__u32 tgid;
	__u32 tid;
	__u32 lacking;		/* 1: ret_stack is NULL */
	__u32 pad;
};

#endif
