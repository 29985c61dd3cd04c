/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The static decoder's data flow (src/static/flow.c): the state the decoder
 * keeps while it reads one function, and the steps that fill it. Shared by
 * the decoder's own units only (flow.c, walk_loop.c, static_check.c): the
 * rest of fgraphtop sees the verdict through static_check.h.
 */
#ifndef FGT_STATIC_FLOW_H
#define FGT_STATIC_FLOW_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "static/decode.h"
#include "static/static_types.h"

#define RCU_MIXED	(-1)
#define RCU_MAX		4	/* deeper than this is not code we understand */

/*
 * Besides its constant, a register may hold pointers of known origin, a "may"
 * set per kind (bit j: allocator call j, in address order; ARG0: the
 * function's first argument at its entry, the ret_stack_list an out-of-line
 * alloc_retstack_tasklist() is given):
 *  ret   the pointer an allocator call returned, or the first argument;
 *  addr  a pointer into such an object (ret + offset, &list[i]);
 *  elem  8 bytes loaded from such an object (an entry of the list).
 * Where a shadow stack's pointer goes is read off the stores of these.
 */
#define ARG0		(1ull << 63)
/* OTHER: returned by a call of another function (a kvcalloc()'d array of
 * stacks sized at run time, issue 39's lab-shape-blocking: its entries,
 * loaded back, go into t->ret_stack as ret_stack_list[]'s do) */
#define OTHER		(1ull << 62)
#define NSITE_BITS	62

struct val {
	uint8_t kind;		/* enum fgt_static_val */
	uint64_t v;
	uint64_t ret, addr, elem;
};

/*
 * A register spilled to the stack frame and loaded back keeps what it held
 * (the debug build's walk reloads ret_stack_list from 0x10(%rsp), KASAN's
 * checks having taken every register): the 8 bytes at sp + off, while the
 * stack pointer moves by what is known (push, pop, add and sub of a
 * constant, arm64's writeback), each slot moving with it; a call leaves the
 * caller's frame alone; sp moved by anything else forgets them all.
 */
#define NSLOT		16

struct slot {
	bool used;
	int32_t off;
	struct val v;
};

struct state {
	bool reached;
	int8_t rcu;		/* depth, or RCU_MIXED */
	struct val r[NGPR];
	struct slot slot[NSLOT];
};


/* A function bigger than this is not the one we know (register_ftrace_graph: 2-3 KiB). */
#define MAX_TEXT	(64u << 10)

struct dec {
	const struct fgt_static_code *c;
	const struct fgt_static_kernel *k;
	struct fgt_static_result *r;
	struct insn *in;
	size_t n, cap;
	struct state *st;	/* entry state per instruction */
	uint64_t cachep;	/* &fgraph_stack_cachep, 0 if absent */
	uint64_t rcu_lock, rcu_unlock;
	bool lock_read;		/* rcu_lock is an object whose read opens the walk */
	uint64_t alloc_addr[16];
	/* the first anomaly met on a reached path (the answer is then unknown) */
	char anomaly[200];
	enum fgt_static_why anomaly_why;
	uint64_t undecoded;	/* the first address Capstone could not decode */
	long entry;		/* the entry's instruction */
	bool by_loop;		/* no __rcu_read_lock call: the walk is the thread loop */
	uint8_t *walk;		/* per instruction, by_loop: in which thread loops (bits) */
	uint64_t latch[8];	/* each loop's back edge */
	int nloops;
	uint64_t init_lo, init_hi;	/* init_task's symbol */
	bool head_by_tasks;	/* a thread loop's head told by its step (no init_task) */
	const struct fgt_arch_fact *arch;	/* calling convention */
	long *pstart, *pred;	/* predecessors (preds()), for the shapes */
	/* t->ret_stack as the walk reaches it from the thread list's node inside
	 * task_struct (clang keeps the cursor at &t->thread_node: +0x370 for
	 * +0x890 on the lab's 7.x), 0 if the walk uses the task's own address */
	uint32_t node_off;
	int dropped_loops;	/* thread loops that never store into t->ret_stack */
};

/* The first anomaly on a reached path is what the answer will say. */
void fgt_flow_note(struct dec *d, enum fgt_static_why why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* An address as "symbol+off" (fgt_ksyms_format), into buf. */
const char *fgt_flow_where(const struct dec *d, uint64_t a, char *buf, size_t len);
/* Is a inside one of the code's parts? */
bool fgt_flow_in_code(const struct fgt_static_code *c, uint64_t a);
/* The instruction at a (d->in is in address order), -1 if none starts there. */
long fgt_flow_find_insn(const struct dec *d, uint64_t a);
/* One part decoded through its architecture's front end, appended to d->in;
 * -1: out of memory. */
int fgt_flow_decode_part(struct dec *d, csh h, cs_insn *ci, const struct fgt_static_part *p);
/* Every direct call's and outgoing jump's callee, and the symbols the
 * judge compares with (the cache, init_task, the walk's bounds). */
void fgt_flow_resolve(struct dec *d);
/* The origins a pointer into an object keeps: the object's. */
uint64_t fgt_flow_into(const struct val *v);
/* The state after in, from the state before it. */
void fgt_flow_transfer(const struct dec *d, const struct insn *in, struct state *s);
/* The control flow from the entry to a fixed point: d->st; -1: out of memory. */
int fgt_flow_follow(struct dec *d);
/* Predecessors, CSR (d->pstart, d->pred), once per flow followed: 0, -1
 * on ENOMEM. */
int fgt_flow_preds(struct dec *d);
/* The reads opening the walk, marked once the first pass gives their
 * address (arm64 adrp + ldr); true if any was: then follow again. */
bool fgt_flow_reads_open(struct dec *d);

#endif
