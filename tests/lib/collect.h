/* SPDX-License-Identifier: GPL-2.0 */
/* Test helper: keeps deep copies of the activation records an assembler reports. */
#ifndef FGT_TEST_COLLECT_H
#define FGT_TEST_COLLECT_H

#include <stdlib.h>
#include <string.h>
#include "model/activation.h"
#include "lib/gen.h"

#define COLLECT_MAX 16

struct collect {
	unsigned int n;
	struct fgt_activation acts[COLLECT_MAX];
	struct fgt_assembler *a;
};

static inline void collect_cb(const struct fgt_activation *act, void *ctx)
{
	struct collect *c = ctx;
	struct fgt_activation *dst;

	if (c->n == COLLECT_MAX)
		return;
	dst = &c->acts[c->n++];
	*dst = *act;
	dst->sweeps = calloc(act->nr_sweeps + 1, sizeof(*act->sweeps));
	memcpy(dst->sweeps, act->sweeps, act->nr_sweeps * sizeof(*act->sweeps));
}

static inline void collect_feed(const struct fgt_event *ev, void *ctx)
{
	struct collect *c = ctx;

	fgt_assembler_feed(c->a, ev);
}

static inline void collect_init(struct collect *c)
{
	memset(c, 0, sizeof(*c));
	c->a = fgt_assembler_new(collect_cb, c);
}

static inline void collect_fini(struct collect *c)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		free(c->acts[i].sweeps);
	fgt_assembler_free(c->a);
	c->a = NULL;
	c->n = 0;
}

/* One generated activation through a fresh assembler. */
static inline void collect_gen(struct collect *c, const struct gen_cfg *cfg)
{
	collect_init(c);
	gen_activation(cfg, collect_feed, c);
	fgt_assembler_flush(c->a);
}

#endif
