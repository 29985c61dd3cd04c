/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's facts read from its BTF, in one unit (src/host/kbtf.c), for
 * every reader of BTF: the plan, through libbpf's parse of the running
 * kernel's /sys/kernel/btf/vmlinux (type ids by name and kind, the offsets
 * of the task_struct and kmem_cache members the programs read,
 * task_struct::ret_stack); the static verdict and hold, from raw BTF (a
 * kernel file's .BTF the image reader found, or /sys/kernel/btf/vmlinux
 * read only as far as needed): task_struct::ret_stack. Which kernel has
 * which stacks is facts/kfacts.h's; this unit reads what the BTF says.
 */
#ifndef FGT_HOST_KBTF_H
#define FGT_HOST_KBTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bpf/events_abi.h"
#include "facts/kfacts.h"

/* What the BTF says of task_struct::ret_stack. */
struct fgt_btf_stack {
	enum fgt_stack_src src;		/* a frame array (up to 6.10) or 4096-byte stacks */
	uint32_t bytes;			/* a kmalloc()ed stack's size */
	uint32_t off;			/* offsetof(struct task_struct, ret_stack) */
	uint32_t tasks_off;		/* offsetof(struct task_struct, tasks), 0 if not seen */
	bool shaped;			/* no ret_stack, but a member of its shape (a
					 * pointer to ftrace_ret_stack or unsigned long,
					 * or a name holding "ret_stack") */
};

/*
 * task_struct::ret_stack from raw BTF (a .BTF section, /sys/kernel/btf/vmlinux):
 * a pointer to a struct (the old frame array, up to 6.10: bytes is
 * FGT_RETFUNC_DEPTH times that struct's size) or to unsigned long (4096-byte
 * stacks), and its offset. One pass over the types up to task_struct and what
 * ret_stack points to, no libbpf: parsing all of Debian 6.12's BTF with
 * libbpf took 0.1 s of the answer's 0.13 s under qemu TCG.
 * 0; 1 when task_struct has no ret_stack (a kernel without fgraph); -1
 * when the BTF is broken or has no task_struct.
 */
int fgt_btf_ret_stack(const void *btf, size_t len, struct fgt_btf_stack *out);

/* What ret_stack's pointee (past typedefs and qualifiers) says, for every
 * reader of BTF: a struct, the old frame array of that struct; anything
 * else, 4096-byte stacks. */
static inline void fgt_btf_stack_of(struct fgt_btf_stack *out, bool pointee_struct,
				    uint32_t struct_size)
{
	out->src = pointee_struct ? FGT_STACK_KMALLOC_ARRAY : FGT_STACK_KMALLOC;
	out->bytes = pointee_struct ? FGT_RETFUNC_DEPTH * struct_size : FGT_SHADOW_STACK_SIZE;
}

/* Its answer for the running kernel, taken by a caller that had that BTF in
 * memory already (the live view's plan): the static verdict then reads no
 * BTF (struct fgt_static_opts btf_known). */
struct fgt_btf_known {
	int err;			/* fgt_btf_ret_stack()'s return */
	struct fgt_btf_stack stack;
};

/* Reads len bytes at off of the BTF into buf: 0, or -1. */
typedef int (*fgt_btf_read_fn)(void *arg, uint64_t off, void *buf, size_t len);

/*
 * The same from a BTF of len bytes read through rd, only as far as the answer
 * needs (the types up to the ones it resolves, the strings up to their names):
 * /sys/kernel/btf/vmlinux gives a page per read, and all of it took most of
 * the answer's time under TCG.
 */
int fgt_btf_ret_stack_read(fgt_btf_read_fn rd, void *arg, uint64_t len, struct fgt_btf_stack *out);

/* ---- through libbpf's parse (the plan's) ----------------------------------- */

/* A type looked up in vmlinux BTF by name and kind; id: the first match, or 0. */
struct fgt_btf_want {
	char name[96];
	int kind;		/* BTF_KIND_*; 0: nothing wanted */
	int id;
};

/* What a probe's target is looked up as, the way libbpf finds it: the FUNC
 * for fentry/fexit, the btf_trace_<name> TYPEDEF for tp_btf; nothing (kind
 * 0) for raw_tp. An iterator's, "iter/<name>": the bpf_iter_<name> FUNC. */
void fgt_btf_want_target(enum fgt_probe_kind kind, const char *target, struct fgt_btf_want *w);
void fgt_btf_want_iter(const char *target, struct fgt_btf_want *w);

/*
 * All of them in one pass over the types, each the first of its name and
 * kind, as btf__find_by_name_kind() would take it (which walks the types
 * anew for each name).
 */
struct btf;
void fgt_btf_find(const struct btf *btf, struct fgt_btf_want *w, int n);

/* One of them in the running kernel's BTF, parsed for it alone: its id, or
 * -ESRCH (no such type, or no BTF). */
int fgt_btf_vmlinux_id(const struct fgt_btf_want *w);

/*
 * What the plan reads of vmlinux BTF itself, through libbpf's index of its
 * parse, given the ids of struct task_struct and struct kmem_cache (0: none):
 * task_struct::ret_stack as fgt_btf_ret_stack() answers it (the same
 * return; the raw walk of the types up to task_struct, type 62,110 of
 * 67,460 in lab-stock's BTF, took 9 million instructions of the start-up);
 * the offsets of the task_struct fields the programs read into task, and of
 * kmem_cache::object_size into *cache_size_off (0: not there). The BPF side
 * takes offsets rather than CO-RE types, each of which costs libbpf a pass
 * of its own over the types at load.
 */
int fgt_btf_read_task(const struct btf *btf, int task_id, int cache_id, struct fgt_btf_stack *out,
		      struct fgt_task_offs *task, uint32_t *cache_size_off);

#endif
