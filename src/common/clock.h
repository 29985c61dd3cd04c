/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The clocks, read one way everywhere: CLOCK_MONOTONIC for durations and
 * event times (the BPF side's bpf_ktime_get_ns() is the same clock), and
 * CLOCK_REALTIME only for the wall-clock times the outputs print.
 */
#ifndef FGT_CLOCK_H
#define FGT_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t fgt_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * base + d ns, for d a double worked out from figures that may be absurd
 * (a pace times a count read from BPF, hostile): saturated at the end of
 * time, never a double past 2^64 converted (undefined behaviour).
 * 18446744073709549568 is the largest double below 2^64.
 */
static inline uint64_t fgt_ns_after(uint64_t base, double d)
{
	uint64_t u;

	if (!(d > 0))		/* NaN, or nothing to add */
		return base;
	if (d >= 18446744073709549568.0)
		return UINT64_MAX;
	u = (uint64_t)d;
	return u > UINT64_MAX - base ? UINT64_MAX : base + u;
}

static inline uint64_t fgt_mono_ms(void)
{
	return fgt_mono_ns() / 1000000;
}

static inline int64_t fgt_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static inline double fgt_mono_s(void)
{
	return (double)fgt_mono_ns() / 1e9;
}

/* Seconds since the epoch, as check's answer and textfile give them. */
static inline double fgt_epoch_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
