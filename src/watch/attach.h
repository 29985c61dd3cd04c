/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session's BPF object as the plan shapes it (src/watch/attach.c):
 * attach targets handed to the kernel by the plan's BTF ids, rodata and the
 * programs chosen between open and load, the lazy rows (the allocator
 * latency) attached while fgraph is active, the rows deferred by a joined
 * step attached once it is over, and the reads of BPF's counters. Its state
 * is the session's (struct fgt_session's att), none of it file-global.
 */
#ifndef FGT_WATCH_ATTACH_H
#define FGT_WATCH_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include "facts/kfacts.h"
#include "watch/plan.h"

/* Attach the allocator latency probes once fgraph has been active this long. */
#define FGT_LAZY_SETTLE_MS	500
/* Attach targets the plan found, handed to the kernel at load. */
#define FGT_ATTACH_TARGETS	32
/* fentry, fexit, tp_btf, iter: a handler of our own for each. */
#define FGT_ATTACH_HANDLERS	4

struct fgraphtop_bpf;
struct bpf_program;
struct bpf_link;
struct fgt_attach;

/* One of our libbpf section handlers: its cookie points here. */
struct fgt_attach_handler {
	struct fgt_attach *a;
	int type;			/* enum bpf_attach_type of its section */
	int id;				/* libbpf_register_prog_handler()'s */
};

struct fgt_attach {
	struct fgt_attach_handler handlers[FGT_ATTACH_HANDLERS];
	int nr_handlers;		/* registered: 0 or FGT_ATTACH_HANDLERS */
	struct {
		const struct bpf_program *prog;
		int btf_id;
	} targets[FGT_ATTACH_TARGETS];
	int nr_targets;
	struct bpf_link *lazy_links[FGT_ROLE__NR][FGT_MAX_PROGS];	/* the lazy rows' */
	bool lat_attached;		/* allocator latency probes attached (fgraph active) */
	bool lat_failed;		/* they would not attach: not tried again */
	uint64_t active_since_ms;	/* fgraph seen active (no activation) since, 0: not */
	struct bpf_link *deferred_links[FGT_ROLE__NR][FGT_MAX_PROGS];
};

/*
 * Our section handlers in place, for as long as the object lives (its
 * programs point at them): true if they are, else libbpf's find the targets
 * by name. Off after the object is destroyed.
 */
bool fgt_attach_handlers_on(struct fgt_attach *a);
void fgt_attach_handlers_off(struct fgt_attach *a);
/* A program's attach target by BTF id (the handlers hand it to the kernel). */
void fgt_attach_target(struct fgt_attach *a, const struct bpf_program *prog, int btf_id);
/* rodata and program choices from the plan: between open and load. The
 * targets set before are forgotten. 0 or -errno. */
int fgt_attach_configure(struct fgt_attach *a, struct fgraphtop_bpf *skel, const struct fgt_plan *p,
			 unsigned int ringbuf_mb, uint32_t log_entries);

/* ftrace_graph_active now: the test run, else a child's fork; -1 unknown. */
int fgt_attach_graph_active(struct fgraphtop_bpf *skel);
/* The test run only (no fork): -1 unknown. */
int fgt_attach_graph_active_run(struct fgraphtop_bpf *skel);
/* BPF's activation begun at a sweep's allocation, its walker tid gone from
 * register_ftrace_graph(): ended at its latest event (end_at_sweep). 0 or -1. */
int fgt_attach_end_at_sweep(struct fgraphtop_bpf *skel, uint32_t tid);
/* Events lost and runs the kernel skipped, so far. */
uint64_t fgt_attach_lost(struct fgraphtop_bpf *skel);

/* The lazy rows attached while fgraph is active, detached when it goes off;
 * hold: not now (a joined step, or its deferred rows, wait). */
void fgt_attach_lazy_update(struct fgt_attach *a, struct fgraphtop_bpf *skel,
			    const struct fgt_plan *p, bool hold);
/* The deferred rows' programs attached, now that the joined step is over. */
void fgt_attach_deferred(struct fgt_attach *a, struct fgraphtop_bpf *skel,
			 const struct fgt_plan *p);
/* The deferred rows' links destroyed. */
void fgt_attach_unlink(struct fgt_attach *a);

#endif
