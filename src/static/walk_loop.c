// SPDX-License-Identifier: GPL-2.0
/*
 * The static decoder's walk finder (src/static/walk_loop.h): where no
 * __rcu_read_lock call marks the walk over the threads, the walk is found by
 * its own shape, the loop over the thread list, on the data flow
 * (flow.c) already followed.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "static/flow.h"
#include "static/walk_loop.h"

/* ---- the walk without __rcu_read_lock calls: the loop over the thread list -- */

/*
 * Without PREEMPT_RCU, rcu_read_lock() is preempt_disable(), inline: nothing
 * marks the walk. It is then found by its own shape. for_each_process()
 * steps from init_task through tasks.next until it is back at
 * &init_task.tasks: its back edge is a conditional jump right after a cmp of
 * the cursor with an address inside init_task. The walk is that loop (the
 * natural loop of each such back edge: what reaches the latch without going
 * through the header, which dominates it), the thread loop nested in it
 * included. start_graph_tracing()'s retry loop around the batch is not in it:
 * the batch reaches the latch only through the header.
 */
static bool cmp_init_task(const struct dec *d, const struct insn *c, const struct state *st)
{
	if (!d->init_lo)
		return false;
	if (c->has_cimm)
		return c->cimm >= d->init_lo && c->cimm < d->init_hi;
	for (int k = 0; k < 2; k++) {
		uint8_t g = c->creg[k];

		if (g != R_NONE && st->r[g].kind == FGT_VAL_CONST && st->r[g].v >= d->init_lo &&
		    st->r[g].v < d->init_hi)
			return true;
	}
	return false;
}

/*
 * Without an init_task symbol (kallsyms of text only: Debian's arm64 6.1,
 * without KALLSYMS_ALL) the list's head is a constant the cursor is
 * compared with, and what makes the loop for_each_process() is how its
 * cursor steps: next_task() loads task_struct::tasks.next (+tasks_off,
 * from BTF) and list_entry() takes tasks_off off it. Both must be in the
 * loop (loop_steps_tasks()).
 */
static bool cmp_const_head(const struct dec *d, const struct insn *c, const struct state *st)
{
	if (d->init_lo || !d->k->tasks_off)
		return false;
	if (c->has_cimm)
		return c->cimm >= d->arch->kernel_lo;
	for (int k = 0; k < 2; k++) {
		uint8_t g = c->creg[k];

		if (g != R_NONE && st->r[g].kind == FGT_VAL_CONST && st->r[g].v >= d->arch->kernel_lo)
			return true;
	}
	return false;
}

static bool loop_steps_tasks(const struct dec *d, uint8_t bit)
{
	uint64_t t = d->k->tasks_off;
	bool load = false, back = false;

	for (size_t i = 0; i < d->n; i++) {
		const struct insn *in = &d->in[i];

		if (!(d->walk[i] & bit))
			continue;
		load |= in->op == OP_LOAD && !in->midx && (uint64_t)(int64_t)in->mdisp == t;
		back |= in->op == OP_LEA && in->imm == (uint64_t)-(int64_t)t;
	}
	return load && back;
}

/* Is `to` reachable from the entry without passing through `avoid`? */
static bool reaches_avoiding(const struct dec *d, long to, long avoid, bool *seen, long *wl)
{
	size_t nwl = 0;

	memset(seen, 0, d->n * sizeof(*seen));
	if (d->entry == avoid)
		return false;
	seen[d->entry] = true;
	wl[nwl++] = d->entry;
	while (nwl) {
		const struct insn *in = &d->in[wl[--nwl]];

		for (int k = 0; k < in->nsucc; k++) {
			long s = in->succ[k];

			if (s == to)
				return true;
			if (s != avoid && !seen[s]) {
				seen[s] = true;
				wl[nwl++] = s;
			}
		}
	}
	return false;
}

/* Marks d->walk; returns how many back edges of the thread loop were found, -1 on ENOMEM. */
int fgt_walk_loop_find(struct dec *d)
{
	size_t n = d->n, np = 0;
	long *wl = malloc((n + 1) * sizeof(*wl)), *pstart, *pred;
	bool *seen = calloc(n + 1, sizeof(*seen));
	int found = -1;

	d->walk = calloc(n + 1, sizeof(*d->walk));
	d->nloops = 0;
	if (!wl || !seen || !d->walk || fgt_flow_preds(d))
		goto out;
	pstart = d->pstart;
	pred = d->pred;
	found = 0;
	/* each candidate costs a pass over the code: a bounded number of them
	 * (the kernels seen have one or two), so that any input stays linear */
	for (size_t i = 1, tried = 0; i < n && tried < 16 && found < 8; i++) {
		const struct insn *in = &d->in[i], *c = &d->in[i - 1];
		bool by_tasks = false;
		long h;

		if (!d->st[i].reached || (in->kind != I_JCC && in->kind != I_JMP) ||
		    !fgt_flow_in_code(d->c, in->target) || c->addr + c->size != in->addr ||
		    !(cmp_init_task(d, c, &d->st[i - 1]) ||
		      (by_tasks = cmp_const_head(d, c, &d->st[i - 1]))))
			continue;
		tried++;
		h = fgt_flow_find_insn(d, in->target);
		if (h < 0 || reaches_avoiding(d, (long)i, h, seen, wl))
			continue;	/* not a back edge: h does not dominate it */
		/* the natural loop: backwards from the latch, stopping at the header */
		uint8_t bit = (uint8_t)(1u << (d->nloops < 8 ? d->nloops : 7));

		if (d->nloops < 8)
			d->latch[d->nloops++] = in->addr;
		memset(seen, 0, n * sizeof(*seen));
		seen[h] = seen[i] = true;
		d->walk[h] |= bit;
		d->walk[i] |= bit;
		np = 0;
		wl[np++] = (long)i;
		while (np) {
			long x = wl[--np];

			if (x == h)
				continue;
			for (long p = pstart[x]; p < pstart[x + 1]; p++)
				if (!seen[pred[p]]) {
					seen[pred[p]] = true;
					d->walk[pred[p]] |= bit;
					wl[np++] = pred[p];
				}
		}
		if (by_tasks && !loop_steps_tasks(d, bit)) {
			for (size_t k = 0; k < n; k++)
				d->walk[k] &= (uint8_t)~bit;
			if (d->nloops && d->latch[d->nloops - 1] == in->addr)
				d->nloops--;
			continue;
		}
		d->head_by_tasks |= by_tasks;
		found++;
	}
out:
	free(wl);
	free(seen);
	return found;
}

/* Inside the walk: its RCU read-side section, or its loop. */
bool fgt_walk_loop_in(const struct dec *d, size_t i)
{
	return d->by_loop ? d->walk[i] != 0 : d->st[i].rcu != 0;
}
