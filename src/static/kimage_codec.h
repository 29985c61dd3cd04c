/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The seven payload codecs of a compressed kernel (src/static/kimage_codec.c).
 */
#ifndef FGT_STATIC_KIMAGE_CODEC_H
#define FGT_STATIC_KIMAGE_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "static/kimage.h"

/*
 * One decompressor for the seven formats the kernel builds with: the
 * stream fed whole, the output taken FGT_KIMAGE_CHUNK at a time so that a
 * stop is seen within a second.
 */
enum codec_id { C_GZIP, C_XZ, C_LZMA, C_ZSTD, C_BZIP2, C_LZ4, C_LZO };

struct codec {
	const char *name;
	enum codec_id id;
	const uint8_t magic[6];
	size_t magic_len;
};

/* The formats by their magic; fgt_codecs[0] is gzip. */
extern const struct codec fgt_codecs[];
/* The format whose magic p begins with, NULL if none. */
const struct codec *fgt_codec_of(const uint8_t *p, size_t len);
/*
 * A payload of out_len bytes (checked by the caller against the caps),
 * decompressed into a fresh buffer: an ELF vmlinux, or with a64 an arm64
 * Image. 0 with *outp the caller's, else FGT_SW_* with msg.
 */
int fgt_inflate_payload(const struct fgt_kimage *im, const struct codec *c, const uint8_t *p,
			uint64_t plen, uint64_t out_len, bool a64, uint8_t **outp,
			const char *path, char *msg, size_t len);

#endif
