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
/* by CO-RE: this object has no plan to say where the fields are */
#define FGT_EXP_HAS_RET_STACK(t)	bpf_core_field_exists((t)->ret_stack)
#define FGT_EXP_READ(dst, t, f)		bpf_core_read(dst, sizeof(*(dst)), &(t)->f)
#include "exposure.h"

char LICENSE[] SEC("license") = "GPL";

/* set when task_struct has no ret_stack: no function graph tracer */
bool no_ret_stack = false;

SEC("iter/task")
int count_lacking(struct fgt_iter_task *ctx)
{
	return fgt_exp_task(ctx, &no_ret_stack);
}
