// SPDX-License-Identifier: GPL-2.0
/*
 * The exposure's task iterator as an object of its own (bpf/exposure.h says
 * what it counts): for `check` when no session is loaded, the one-shot count
 * (src/watch/exposure.c fgt_exposure_open()).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "exposure.h"

char LICENSE[] SEC("license") = "GPL";

/* set when task_struct has no ret_stack: no function graph tracer */
bool no_ret_stack = false;

SEC("iter/task")
int count_lacking(struct fgt_iter_task *ctx)
{
	return fgt_exp_task(ctx, &no_ret_stack);
}
