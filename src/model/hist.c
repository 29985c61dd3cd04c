// SPDX-License-Identifier: GPL-2.0
/*
 * log2 histograms kept in userspace: the BPF side sends each allocation's
 * latency in the event, so the assembler can split sweep path and fork path
 * and per activation without extra maps.
 */
#include <string.h>
#include "model/hist.h"

unsigned int fgt_hist_slot(uint64_t v)
{
	unsigned int s;

	if (!v)
		return 0;
	s = 64 - __builtin_clzll(v);	/* floor(log2(v)) + 1 */
	return s < FGT_HIST_SLOTS ? s : FGT_HIST_SLOTS - 1;
}

/* Smallest value slot i holds. */
static uint64_t slot_low(unsigned int i)
{
	return i ? 1ULL << (i - 1) : 0;
}

/* Largest value slot i holds; the last slot also takes everything above it. */
static uint64_t slot_high(unsigned int i)
{
	if (i == FGT_HIST_SLOTS - 1)
		return UINT64_MAX;
	return i ? (1ULL << i) - 1 : 0;
}

void fgt_hist_add(struct fgt_hist *h, uint64_t v)
{
	h->slots[fgt_hist_slot(v)]++;
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
}

/*
 * The slot's upper bound over-states by up to 2x; clamping to the observed
 * min and max makes p0 and p100 exact and keeps the others honest.
 */
uint64_t fgt_hist_percentile(const struct fgt_hist *h, double pct)
{
	uint64_t rank, seen = 0, v;
	unsigned int i;

	if (!h->count)
		return 0;
	if (!(pct > 0))
		return h->min;
	if (pct >= 100)
		return h->max;
	rank = (uint64_t)(pct / 100.0 * h->count);
	if ((double)rank < pct / 100.0 * h->count)
		rank++;		/* ceil: the smallest rank covering pct of the values */
	for (i = 0; i < FGT_HIST_SLOTS; i++) {
		seen += h->slots[i];
		if (seen >= rank)
			break;
	}
	if (i == FGT_HIST_SLOTS)
		return h->max;	/* slots and count disagree: stay in range */
	v = slot_high(i);
	if (v > h->max)
		v = h->max;
	if (v < h->min)
		v = h->min;
	return v;
}

static void print_stars(FILE *f, uint64_t val, uint64_t val_max, int width)
{
	int n = val_max ? (int)(val * width / val_max) : 0;
	int i;

	for (i = 0; i < width; i++)
		fputc(i < n ? '*' : ' ', f);
}

/*
 * Rebin for display in unit = value / divisor (ns -> usecs). Each slot moves
 * as a whole by its lower bound: exact for power-of-two divisors, otherwise a
 * slot straddling a boundary lands in the lower one.
 */
static void rebin(const struct fgt_hist *h, uint64_t divisor, uint64_t *out)
{
	unsigned int i;

	memset(out, 0, FGT_HIST_SLOTS * sizeof(*out));
	for (i = 0; i < FGT_HIST_SLOTS; i++)
		out[fgt_hist_slot(slot_low(i) / divisor)] += h->slots[i];
}

void fgt_hist_print(FILE *f, const struct fgt_hist *h, const char *unit, uint64_t divisor)
{
	uint64_t slots[FGT_HIST_SLOTS], val_max = 0;
	int idx_max = -1, i, w1, w2;

	rebin(h, divisor ? divisor : 1, slots);
	for (i = 0; i < FGT_HIST_SLOTS; i++) {
		if (slots[i])
			idx_max = i;
		if (slots[i] > val_max)
			val_max = slots[i];
	}
	if (idx_max < 0)
		return;
	/* libbpf-tools' layout: wider columns once values need more digits */
	w1 = idx_max <= 32 ? 5 : 15;
	w2 = idx_max <= 32 ? 19 : 29;
	fprintf(f, "%*s%-*s : count    distribution\n", w1, "", w2, unit);
	for (i = 0; i <= idx_max; i++) {
		fprintf(f, "%*llu -> %-*llu : %-8llu |", idx_max <= 32 ? 10 : 20,
			(unsigned long long)slot_low(i), idx_max <= 32 ? 10 : 20,
			(unsigned long long)(i == FGT_HIST_SLOTS - 1 ? slot_low(i) * 2 - 1 : slot_high(i)),
			(unsigned long long)slots[i]);
		print_stars(f, slots[i], val_max, 40);
		fputs("|\n", f);
	}
}
