/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bytes of untrusted input: the one bounds check and the little- and
 * big-endian words, for the image reader (src/static/kimage*.c) and the
 * BTF reader (src/host/kbtf.c) alike.
 */
#ifndef FGT_COMMON_BYTES_H
#define FGT_COMMON_BYTES_H

#include <stdbool.h>
#include <stdint.h>

/* Is [off, off + len) inside [0, size)? The one bounds check of the readers:
 * written so that it cannot overflow, whatever the three values are. */
static inline bool fgt_in_range(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static inline uint32_t fgt_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t fgt_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

#endif
