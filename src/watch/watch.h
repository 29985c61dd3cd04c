/* SPDX-License-Identifier: GPL-2.0 */
/* The narrow interface of a watching session, as check uses it. */
#ifndef FGT_WATCH_H
#define FGT_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "host/ksyms.h"
#include "model/exposure_model.h"
#include "model/record.h"
#include "model/joined.h"

/*
 * What check needs from a BPF session that watches fgraph activations: the
 * live tool's (src/watch/session.c, fgt_session_watch_ops), or a test's fake.
 */
struct fgt_watch_ops {
	/* Plan, load, attach, with kallsyms as check read it (so it is parsed
	 * once; it outlives the session). Finished activation records go to cb
	 * (during poll/stop). 0, or -errno with msg: what is wrong and what to do. */
	int (*start)(void *priv, const struct fgt_ksyms *ks, fgt_record_cb cb, void *cb_ctx,
		     char *msg, size_t len);
	/* fgraph users as the kernel counts them (ftrace_graph_active); -1 unknown. */
	int (*graph_active)(void *priv);
	/* Wait up to ms for events and deliver them. 0 or -errno (-EINTR is fine). */
	int (*poll)(void *priv, int ms);
	/* An activation is under way (begun, not ended): worth waiting for. */
	bool (*busy)(void *priv);
	/* Events lost so far (ring buffer full, runs skipped): read it before
	 * stop, which frees what it counts. */
	uint64_t (*lost)(void *priv);
	/* The threads lacking a shadow stack now and the unfixed walk over them
	 * (src/watch/exposure.c's task iterator; no activation). 0 or -errno, msg. */
	int (*exposure)(void *priv, struct fgt_exp_walk *w, char *msg, size_t len);
	/* The trigger's system call returned: deliver what is queued, and an
	 * activation under way that began without its bracket (a kernel whose
	 * fgraph allocates no ret_stack_list) is over and complete
	 * (fgt_assembler_end()). May be NULL. */
	void (*trigger_done)(void *priv);
	/* Is a 0->1 step under way now? Looks that cannot block on the locks
	 * it holds (src/watch/join.h); true with j filled. NULL: not asked. */
	bool (*under_way)(void *priv, const struct fgt_ksyms *ks, struct fgt_joined *j);
	/* Flush (an unfinished activation is reported incomplete), detach, free. */
	void (*stop)(void *priv);
	void *priv;
};

#endif
