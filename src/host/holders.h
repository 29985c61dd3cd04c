/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who holds fgraph now: every registration of an fgraph_ops this kernel lets
 * us name, read without side effects (tracefs files read, BPF links listed,
 * /proc scanned; nothing written, nothing attached). What each one is, where
 * it lives, who owns it where the kernel says, and what turning it off takes.
 *
 *   function_graph        current_tracer, the top level or an instance (6.12+)
 *   a latency tracer      irqsoff, wakeup & co with options/display-graph on
 *   the function profiler function_profile_enabled
 *   fprobe events         dynamic_events "f:" lines (6.14+: fprobe on fgraph)
 *   BPF kprobe_multi      links listed as bpftool does (bpf link info), their
 *                         owners from /proc/PID/fdinfo (6.14+)
 *
 * One reader for the live view, --explain, -j and `fgraphtop check
 * --trigger`'s refusal (src/host/host_state.c words it for the check).
 *
 * Never call it while an activation triggered through tracefs is under way:
 * every tracefs file open and current_tracer read takes trace_types_lock,
 * which the tracer switch holds for the whole walk (kernel/trace/trace.c).
 * src/watch/session.c reads it from a thread of its own for that reason.
 */
#ifndef FGT_HOLDERS_H
#define FGT_HOLDERS_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include "host/ksyms.h"

#define FGT_HOLDERS_MAX		32	/* kept; more are counted */

enum fgt_holder_kind {
	FGT_HOLDER_TRACER,	/* function_graph as current_tracer */
	FGT_HOLDER_LATENCY,	/* a latency tracer drawing the call graph */
	FGT_HOLDER_PROFILER,	/* the function profiler */
	FGT_HOLDER_FPROBE,	/* an fprobe dynamic event */
	FGT_HOLDER_BPF_LINK,	/* a BPF kprobe_multi link */
};

struct fgt_holder {
	enum fgt_holder_kind kind;
	/* may hold fgraph: the kernel does not tell (an entry-only kprobe_multi
	 * link may be a kprobe.session one; an fprobe event's state unreadable) */
	bool maybe;
	char name[64];		/* tracer name; event GROUP/EVENT; "" */
	char instance[64];	/* tracefs instance, "" for the top level */
	char detail[160];	/* the event's probe point; the link's program and functions */
	uint32_t link_id, prog_id, nr_funcs;	/* BPF links */
	bool ret;		/* link or event with a return handler */
	int32_t pid;		/* owner (a process holding the link's fd), 0: none found */
	char comm[16];
	uint32_t nr_owners;	/* processes holding it */
	bool hold;		/* `fgraphtop hold`'s: its instance, or its pinned link */
};

struct fgt_holders {
	unsigned int n;		/* found, all of them */
	unsigned int kept;	/* in h[] (at most FGT_HOLDERS_MAX) */
	struct fgt_holder h[FGT_HOLDERS_MAX];
	char tracefs[128];	/* where tracefs was read, "" when not mounted */
	bool links_listed;	/* BPF links were enumerated */
	int links_err;		/* else why not (-errno; 0: not needed here) */
	/*
	 * ftrace_graph_active counts fgraph_ops registrations: one per tracer
	 * (top level, each instance), the profiler, a latency tracer, and one
	 * for every fprobe together (fprobe shares a single fgraph_ops). So
	 * the holders found explain `regs` of it, `regs_maybe` more perhaps.
	 */
	unsigned int regs, regs_maybe;
};

/* What the kernel's fprobe does, from kallsyms (1 yes, 0 no, -1 cannot tell). */
struct fgt_fprobe_facts {
	int on_fgraph;		/* 6.14+: fprobe is an fgraph user */
	int entry_on_ftrace;	/* entry-only fprobes on an ftrace_ops instead (7.x) */
};
void fgt_fprobe_facts(const struct fgt_ksyms *ks, struct fgt_fprobe_facts *f);
/* Is fprobe an fgraph user on this kernel (6.14+)? Then BPF kprobe_multi
 * links with a return handler turn fgraph on. */
bool fgt_fprobe_on_fgraph(const struct fgt_ksyms *ks);

/* One BPF link as bpf link info gives it (the tests fake these). */
struct fgt_link_ent {
	uint32_t id, prog_id, type, count, flags;
};
/* Up to max links into out; returns how many, or -errno. */
typedef int (*fgt_links_fn)(struct fgt_link_ent *out, int max, void *ctx);

/*
 * An fd for BPF link id by get (bpf_link_get_fd_by_id), waiting out a link
 * not settled yet: between bpf_link_prime() and bpf_link_settle() the kernel
 * answers EAGAIN for it, and a kprobe.multi link registers its fprobe, i.e.
 * counts in ftrace_graph_active, in that window (bpf_kprobe_multi_link_attach
 * in kernel/trace/bpf_trace.c; bpf_link_by_id in kernel/bpf/syscall.c).
 * An fd, or -1 with errno set.
 */
int fgt_link_fd_settled(uint32_t id, int (*get)(uint32_t id));

struct fgt_holders_cfg {
	const char *tracefs;		/* NULL: the mounted one (fgt_tracefs_find) */
	const char *proc;		/* NULL: /proc */
	struct fgt_fprobe_facts fprobe;
	bool no_bpf_links;		/* do not list BPF links (tests, no privilege) */
	const char *skip_instance;	/* an instance to ignore (ours) */
	fgt_links_fn links;		/* NULL: the bpf() syscalls */
	void *links_ctx;
	/* the link id pinned at FGT_HOLD_PIN under bpffs (fgraphtop hold's), 0
	 * none; NULL: read it (fgt_hold_pinned_link) */
	uint32_t (*hold_link)(void *ctx);
};

/*
 * `fgraphtop hold` (src/hold/): what it leaves in place, named here so that
 * every reader of holders knows it. Its tracefs instance (6.11 .. 6.13, and
 * wherever a link cannot be had), or its kretprobe.multi link pinned in bpffs
 * (6.14+, where fprobe is an fgraph user). Never "fgraphtop-check-": check
 * --trigger removes dead checks' instances by that prefix.
 */
#define FGT_HOLD_INSTANCE	"fgraphtop-hold"
#define FGT_BPFFS		"/sys/fs/bpf"
#define FGT_HOLD_PIN_DIR	"fgraphtop"		/* under bpffs */
#define FGT_HOLD_PIN_NAME	"hold"
#define FGT_HOLD_PIN		FGT_BPFFS "/" FGT_HOLD_PIN_DIR "/" FGT_HOLD_PIN_NAME
#define FGT_HOLD_PROG_NAME	"fgt_hold"

/* The id of the BPF link pinned at path (FGT_HOLD_PIN when NULL) if it is a
 * kprobe_multi link, else 0 (no pin, not a link, or no privilege). */
uint32_t fgt_hold_pinned_link(const char *path);

/* `fgraphtop hold` in place, read without changing anything. */
struct fgt_hold_seen {
	bool held;			/* its holder is there and holds fgraph */
	bool stale;			/* its instance is there without function_graph
					 * (a hold killed while it was being taken) */
	enum fgt_holder_kind kind;	/* FGT_HOLDER_TRACER (its instance) or _BPF_LINK */
	uint32_t link_id;
	char method[24];		/* "instance", "kretprobe.multi", "" */
	char where[PATH_MAX];		/* the instance's directory, or the pin */
};
/* tracefs: NULL for the mounted one; pin: NULL for FGT_HOLD_PIN. Returns held. */
bool fgt_hold_seen_read(const char *tracefs, const char *pin, struct fgt_hold_seen *out);

/* Read the holders into out. Returns out->n (never fails: what could not be
 * read is said by out->tracefs, links_listed and links_err). */
int fgt_holders_read(const struct fgt_holders_cfg *c, struct fgt_holders *out);

/* "kind" for JSON: "tracer", "latency_tracer", "profiler", "fprobe", "bpf_link". */
const char *fgt_holder_kind_name(enum fgt_holder_kind k);
/* The holder in a few words: "function_graph, the top-level tracer". */
const char *fgt_holder_text(const struct fgt_holder *h, char *buf, size_t len);
/* Where it lives, for a column: "top level", "instance foo", "link 12". */
const char *fgt_holder_where(const struct fgt_holder *h, char *buf, size_t len);
/* What turning it off takes, as a command where there is one. */
const char *fgt_holder_undo(const struct fgt_holder *h, const char *tracefs,
			    char *buf, size_t len);
/* Do a and b name the same holders (for "changed" records)? */
bool fgt_holders_same(const struct fgt_holders *a, const struct fgt_holders *b);

/*
 * The reader on a thread of its own, every interval_ms, so that a tracefs
 * read stuck behind a tracer switch (trace_types_lock, for a whole walk)
 * never stops the live view: it shows the last holders read, and when.
 * While told busy (an activation under way) it does not start a read.
 */
struct fgt_holders_watch;
struct fgt_holders_watch *fgt_holders_watch_start(const struct fgt_holders_cfg *c,
						  unsigned int interval_ms);
void fgt_holders_watch_busy(struct fgt_holders_watch *w, bool busy);
/* Read again now (ftrace_graph_active changed: someone came or went). */
void fgt_holders_watch_kick(struct fgt_holders_watch *w);
/* The latest read into out (and when it began, CLOCK_MONOTONIC); false: none yet.
 * *gen counts the reads that changed them. */
bool fgt_holders_watch_get(struct fgt_holders_watch *w, struct fgt_holders *out,
			   uint64_t *ns, unsigned int *gen);
/* Wait up to ms for a first read; false: none came. */
bool fgt_holders_watch_wait(struct fgt_holders_watch *w, unsigned int ms);
/* Stop it; a thread stuck in a read is left to the process's exit. */
void fgt_holders_watch_stop(struct fgt_holders_watch *w);

#endif
