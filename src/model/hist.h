/* SPDX-License-Identifier: GPL-2.0 */
/* log2 histograms, as in libbpf-tools, kept in userspace. */
#ifndef FGT_HIST_H
#define FGT_HIST_H

#include <stdint.h>
#include <stdio.h>

#define FGT_HIST_SLOTS 40

struct fgt_hist {
	uint64_t slots[FGT_HIST_SLOTS];	/* slot i counts values v with 2^(i-1) <= v < 2^i; slot 0: v == 0 */
	uint64_t count, sum, min, max;
};

void fgt_hist_add(struct fgt_hist *h, uint64_t v);
unsigned int fgt_hist_slot(uint64_t v);
/* Approximate percentile (0..100) from the slots: the upper bound of its slot. */
uint64_t fgt_hist_percentile(const struct fgt_hist *h, double pct);
/* libbpf-tools style: "     usecs : count  distribution" with stars. */
void fgt_hist_print(FILE *f, const struct fgt_hist *h, const char *unit, uint64_t divisor);

#endif
