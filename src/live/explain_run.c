// SPDX-License-Identifier: GPL-2.0
/* The live tool's --explain: see explain_run.h. */
#include <stdio.h>
#include "common/log.h"
#include "common/waitnote.h"
#include "live/explain_run.h"
#include "render/explain.h"
#include "static/kread_bpf.h"
#include "static/static_kernel.h"

/* Who holds fgraph, for --explain: read by the watcher, so that a tracer
 * switch holding tracefs's lock makes it say so instead of hanging. */
static bool explain_holders(const struct fgt_session *s, struct fgt_holders *h)
{
	struct fgt_holders_cfg c = {};
	struct fgt_holders_watch *w;
	struct fgt_wait *note;
	bool ok;

	fgt_fprobe_facts(s->ks, &c.fprobe);
	w = fgt_holders_watch_start(&c, 60000);
	note = fgt_wait_begin_other(FGT_WAIT_TRACE_TYPES_LOCK, "reading who holds fgraph (tracefs)");
	ok = fgt_holders_watch_wait(w, 2000) && fgt_holders_watch_get(w, h, NULL, NULL);
	fgt_wait_end(note);
	fgt_holders_watch_stop(w);
	return ok;
}

/*
 * ftrace_graph_active for --explain, which loads no probes to read it as the
 * live view does: four bytes of the running kernel, by the reader the static
 * verdict reads code with (kcore, else BPF); -1 if neither can.
 */
static int explain_graph_active(const struct fgt_session *s)
{
	const struct fgt_static_opts o = { .bpf_read = fgt_kread_bpf };
	uint64_t addr = s->plan->k.addr[FGT_SYM_GRAPH_ACTIVE];
	char msg[256];
	int v = -1;

	if (!addr) {
		log_info("ftrace_graph_active: no address in the symbol table");
		return -1;
	}
	if (fgt_static_read_running(&o, addr, &v, sizeof(v), msg, sizeof(msg))) {
		log_info("ftrace_graph_active at %#llx: %s", (unsigned long long)addr, msg);
		return -1;
	}
	return v < 0 ? -1 : v;
}

void fgt_live_explain(const struct fgt_session *s, bool json)
{
	struct fgt_holders h;
	bool have = explain_holders(s, &h);

	fgt_explain_print(stdout, s->plan, have ? &h : NULL, explain_graph_active(s),
			  s->joining ? &s->join : NULL, json);
}
