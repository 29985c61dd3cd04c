// SPDX-License-Identifier: GPL-2.0
/*
 * The payload codecs (src/static/kimage_codec.h): gzip, xz, lzma, zstd,
 * bzip2, lz4 and lzo, each capped and polled for a stop.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem, fopencookie */
#endif
#include <libelf.h>
#include <errno.h>
#include <inttypes.h>
#include <bzlib.h>
#include <lz4.h>
#include <lzma.h>
#include <lzo/lzo1x.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include "static/kimage.h"
#include "static/kimage_codec.h"

/*
 * One decompressor for the seven formats the kernel builds with: the
 * stream fed whole, the output taken FGT_KIMAGE_CHUNK at a time so that a stop is
 * seen within a second, and checked to begin as an ELF file as soon as the
 * first chunk is out (a payload that is not one costs a chunk, not its
 * claimed size).
 */

/*
 * lz4 and lzo have no streaming API for the kernel's framing, which is
 * blocks: lz4's legacy format (lz4 -l, lib/decompress_unlz4.c: magic, then
 * a little-endian compressed length and an 8 MiB block, again) and lzop's
 * (lib/decompress_unlzo.c: a header, then per block its big-endian
 * decompressed and compressed lengths, checksums, the bytes). A block is
 * decoded whole into blk and handed out from there.
 */
#define LZ4_LEGACY_MAGIC	0x184c2102u
#define LZ4_LEGACY_BLOCK	(8u << 20)
#define LZO_BLOCK_MAX		(256u << 10)	/* lzop's, and the kernel's LZO_BLOCK_SIZE */
/* lzop's header flags: which checksums follow each block's lengths */
#define LZOP_ADLER32_D		0x001u
#define LZOP_ADLER32_C		0x002u
#define LZOP_EXTRA_FIELD	0x040u
#define LZOP_CRC32_D		0x100u
#define LZOP_CRC32_C		0x200u
#define LZOP_FILTER		0x800u

struct blocks {
	const uint8_t *in;
	size_t in_len, in_pos;
	uint8_t *blk;
	size_t blk_len, blk_pos;
	uint32_t flags;			/* lzop's */
};

struct inflater {
	enum codec_id id;
	z_stream z;
	lzma_stream x;
	ZSTD_DCtx *zd;
	ZSTD_inBuffer zin;
	bz_stream bz;
	struct blocks b;
};

/* lzop's header as lib/decompress_unlzo.c parse_header() reads it: the
 * offset of the first block, 0 when it is not one. */
static size_t lzop_header(const uint8_t *in, size_t in_len, uint32_t *flags)
{
	static const uint8_t magic[] = { 0x89, 'L', 'Z', 'O', 0, 0x0d, 0x0a, 0x1a, 0x0a };
	size_t pos = sizeof(magic);
	uint16_t version;

	/* magic, version(2) lib version(2) needed version(2) method(1) level(1)
	 * flags(4) filter(4)? mode(4) mtime(4) mtime_high(4)? name_len(1) */
	if (in_len < pos + 7 + 1 + 4 + 4 + 8 + 1 || memcmp(in, magic, sizeof(magic)))
		return 0;
	version = (uint16_t)(in[pos] << 8 | in[pos + 1]);
	pos += 7;
	if (version >= 0x0940)
		pos++;
	*flags = fgt_be32(in + pos);
	pos += *flags & LZOP_FILTER ? 8 : 4;
	pos += 8;
	if (version >= 0x0940)
		pos += 4;
	if (*flags & LZOP_EXTRA_FIELD || !fgt_in_range(pos, 1, in_len))
		return 0;
	pos += 1 + in[pos];		/* the file name, not looked at */
	pos += 4;			/* the header's checksum */
	return fgt_in_range(pos, 0, in_len) ? pos : 0;
}

static int inflater_init(struct inflater *f, enum codec_id id, const uint8_t *in, size_t in_len)
{
	lzma_stream init = LZMA_STREAM_INIT;

	memset(f, 0, sizeof(*f));
	f->id = id;
	f->x = init;
	switch (id) {
	case C_GZIP:
		if (in_len > UINT32_MAX || inflateInit2(&f->z, 16 + MAX_WBITS) != Z_OK)
			return -1;
		f->z.next_in = (Bytef *)in;
		f->z.avail_in = (uInt)in_len;
		return 0;
	case C_XZ:
	case C_LZMA:
		/* liblzma's memory limit: the dictionary a kernel's is made with
		 * (xz --lzma2=dict=32MiB at most, scripts/xz_wrap.sh) with room */
		if ((id == C_LZMA ? lzma_alone_decoder(&f->x, 256u << 20) :
				    lzma_stream_decoder(&f->x, 256u << 20, 0)) != LZMA_OK)
			return -1;
		f->x.next_in = in;
		f->x.avail_in = in_len;
		return 0;
	case C_ZSTD:
		f->zd = ZSTD_createDCtx();
		if (!f->zd)
			return -1;
		/* the kernel compresses with --ultra -22 (a 128 MiB window at most,
		 * 2^27): beyond the default limit, and no further */
		ZSTD_DCtx_setParameter(f->zd, ZSTD_d_windowLogMax, 27);
		f->zin = (ZSTD_inBuffer){ in, in_len, 0 };
		return 0;
	case C_BZIP2:
		/* bzip2 -9: 900 kB blocks, about 3.7 MB of decoder state */
		if (in_len > UINT32_MAX || BZ2_bzDecompressInit(&f->bz, 0, 0) != BZ_OK)
			return -1;
		f->bz.next_in = (char *)in;
		f->bz.avail_in = (unsigned int)in_len;
		return 0;
	case C_LZ4:
		f->b = (struct blocks){ .in = in, .in_len = in_len, .in_pos = 4 };
		f->b.blk = malloc(LZ4_LEGACY_BLOCK);
		return f->b.blk && in_len >= 4 && fgt_le32(in) == LZ4_LEGACY_MAGIC ? 0 : -1;
	case C_LZO:
		if (lzo_init() != LZO_E_OK)
			return -1;
		f->b = (struct blocks){ .in = in, .in_len = in_len };
		f->b.in_pos = lzop_header(in, in_len, &f->b.flags);
		f->b.blk = malloc(LZO_BLOCK_MAX);
		return f->b.blk && f->b.in_pos ? 0 : -1;
	default:
		return -1;
	}
}

/*
 * The next lz4 legacy block into blk: 1; 0 at the stream's end (the input
 * used up, or only the 4-byte size the build appends left); -1 when broken.
 */
static int lz4_block(struct blocks *b)
{
	uint32_t clen;
	int n;

	for (;;) {
		if (b->in_len - b->in_pos <= 4)
			return 0;
		clen = fgt_le32(b->in + b->in_pos);
		b->in_pos += 4;
		/* concatenated streams repeat the magic */
		if (clen != LZ4_LEGACY_MAGIC)
			break;
	}
	if (clen == 0 || clen > (uint32_t)LZ4_compressBound(LZ4_LEGACY_BLOCK) ||
	    !fgt_in_range(b->in_pos, clen, b->in_len))
		return -1;
	n = LZ4_decompress_safe((const char *)b->in + b->in_pos, (char *)b->blk, (int)clen,
				LZ4_LEGACY_BLOCK);
	if (n <= 0)
		return -1;
	b->in_pos += clen;
	b->blk_len = (size_t)n;
	b->blk_pos = 0;
	return 1;
}

/* The next lzop block into blk: 1; 0 at its end marker; -1 when broken. */
static int lzo_block(struct blocks *b)
{
	uint32_t dlen, clen, sums = 0;
	lzo_uint n;

	if (!fgt_in_range(b->in_pos, 4, b->in_len))
		return -1;
	dlen = fgt_be32(b->in + b->in_pos);
	b->in_pos += 4;
	if (dlen == 0)
		return 0;
	if (dlen > LZO_BLOCK_MAX || !fgt_in_range(b->in_pos, 4, b->in_len))
		return -1;
	clen = fgt_be32(b->in + b->in_pos);
	b->in_pos += 4;
	if (clen == 0 || clen > dlen)
		return -1;
	sums += b->flags & LZOP_ADLER32_D ? 4 : 0;
	sums += b->flags & LZOP_CRC32_D ? 4 : 0;
	if (clen < dlen) {
		sums += b->flags & LZOP_ADLER32_C ? 4 : 0;
		sums += b->flags & LZOP_CRC32_C ? 4 : 0;
	}
	if (!fgt_in_range(b->in_pos, (uint64_t)sums + clen, b->in_len))
		return -1;
	b->in_pos += sums;
	if (clen == dlen) {
		/* stored: lzop keeps a block that does not shrink as it is */
		memcpy(b->blk, b->in + b->in_pos, dlen);
	} else {
		n = dlen;
		if (lzo1x_decompress_safe(b->in + b->in_pos, clen, b->blk, &n, NULL) != LZO_E_OK ||
		    n != dlen)
			return -1;
	}
	b->in_pos += clen;
	b->blk_len = dlen;
	b->blk_pos = 0;
	return 1;
}

/* Up to room bytes of a block format: how many; *end at the stream's end. */
static ssize_t blocks_step(struct inflater *f, uint8_t *out, size_t room, bool *end)
{
	struct blocks *b = &f->b;
	size_t n;
	int r;

	if (b->blk_pos == b->blk_len) {
		r = f->id == C_LZ4 ? lz4_block(b) : lzo_block(b);
		if (r < 0)
			return -1;
		if (r == 0) {
			*end = true;
			return 0;
		}
	}
	n = b->blk_len - b->blk_pos < room ? b->blk_len - b->blk_pos : room;
	memcpy(out, b->blk + b->blk_pos, n);
	b->blk_pos += n;
	/* lz4's legacy format has no end marker: the end is where the input
	 * runs out (or only the build's appended size is left) */
	if (f->id == C_LZ4 && b->blk_pos == b->blk_len && b->in_len - b->in_pos <= 4)
		*end = true;
	/* lzop's end marker (a zero length) right after the last block */
	if (f->id == C_LZO && b->blk_pos == b->blk_len && fgt_in_range(b->in_pos, 4, b->in_len) &&
	    !fgt_be32(b->in + b->in_pos))
		*end = true;
	return (ssize_t)n;
}

/* Up to room bytes more into out: how many, and *end at the stream's end; -1 on error. */
static ssize_t inflater_step(struct inflater *f, uint8_t *out, size_t room, bool *end)
{
	size_t before;
	int zr;

	switch (f->id) {
	case C_GZIP:
		f->z.next_out = out;
		f->z.avail_out = (uInt)room;
		before = f->z.avail_out;
		zr = inflate(&f->z, Z_NO_FLUSH);
		*end = zr == Z_STREAM_END;
		if (zr != Z_OK && zr != Z_STREAM_END)
			return -1;
		return (ssize_t)(before - f->z.avail_out);
	case C_XZ:
	case C_LZMA: {
		lzma_ret xr;

		f->x.next_out = out;
		f->x.avail_out = room;
		xr = lzma_code(&f->x, LZMA_FINISH);
		*end = xr == LZMA_STREAM_END;
		if (xr != LZMA_OK && xr != LZMA_STREAM_END)
			return -1;
		return (ssize_t)(room - f->x.avail_out);
	}
	case C_ZSTD: {
		ZSTD_outBuffer ob = { out, room, 0 };
		size_t r;

		r = ZSTD_decompressStream(f->zd, &ob, &f->zin);
		if (ZSTD_isError(r))
			return -1;
		/* the frame ended (the kernel's payload is one frame, then the
		 * 4-byte size the build appends) */
		*end = r == 0;
		return (ssize_t)ob.pos;
	}
	case C_BZIP2:
		f->bz.next_out = (char *)out;
		f->bz.avail_out = (unsigned int)room;
		zr = BZ2_bzDecompress(&f->bz);
		*end = zr == BZ_STREAM_END;
		if (zr != BZ_OK && zr != BZ_STREAM_END)
			return -1;
		return (ssize_t)(room - f->bz.avail_out);
	case C_LZ4:
	case C_LZO:
		return blocks_step(f, out, room, end);
	default:
		return -1;
	}
}

static void inflater_end(struct inflater *f)
{
	if (f->id == C_GZIP)
		inflateEnd(&f->z);
	else if (f->id == C_XZ || f->id == C_LZMA)
		lzma_end(&f->x);
	else if (f->id == C_ZSTD)
		ZSTD_freeDCtx(f->zd);
	else if (f->id == C_BZIP2)
		BZ2_bzDecompressEnd(&f->bz);
	free(f->b.blk);
}

/*
 * Decompress exactly out_len bytes (the size the build appended) into out.
 * 0; -1 with *got when the stream is bad or short; -2 when what came out
 * first is not an ELF file (a64: not an arm64 Image); -EINTR when stopped.
 */
static int inflate_all(const struct fgt_kimage *im, enum codec_id id, const uint8_t *in,
		       size_t in_len, uint8_t *out, size_t out_len, size_t *got, bool a64)
{
	struct inflater f;
	bool end = false, checked = false;
	int ret = -1;
	unsigned int idle = 0;

	*got = 0;
	if (inflater_init(&f, id, in, in_len)) {
		inflater_end(&f);
		return -1;
	}
	while (!end && *got < out_len) {
		size_t room = out_len - *got < FGT_KIMAGE_CHUNK ? out_len - *got : FGT_KIMAGE_CHUNK;
		ssize_t n;

		if (fgt_kimage_stopped(im)) {
			ret = -EINTR;
			goto out;
		}
		n = inflater_step(&f, out + *got, room, &end);
		if (n < 0)
			goto out;
		/* no progress twice running: the input is used up */
		idle = n ? 0 : idle + 1;
		if (idle > 1)
			goto out;
		*got += (size_t)n;
		if (!checked && (*got >= sizeof(Elf64_Ehdr) || end)) {
			if (a64 ? !fgt_is_a64_image(out, *got) : !fgt_is_elf_magic(out, *got)) {
				ret = -2;
				goto out;
			}
			checked = true;
		}
	}
	ret = end && *got == out_len ? 0 : -1;
out:
	inflater_end(&f);
	return ret;
}

const struct codec fgt_codecs[] = {
	{ "gzip", C_GZIP, { 0x1f, 0x8b }, 2 },
	{ "xz", C_XZ, { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6 },
	{ "zstd", C_ZSTD, { 0x28, 0xb5, 0x2f, 0xfd }, 4 },
	{ "lzma", C_LZMA, { 0x5d, 0, 0 }, 3 },
	{ "bzip2", C_BZIP2, { 'B', 'Z', 'h' }, 3 },
	{ "lzo", C_LZO, { 0x89, 'L', 'Z', 'O' }, 4 },
	{ "lz4", C_LZ4, { 0x02, 0x21, 0x4c, 0x18 }, 4 },
};

const struct codec *fgt_codec_of(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < sizeof(fgt_codecs) / sizeof(fgt_codecs[0]); i++)
		if (len >= fgt_codecs[i].magic_len && !memcmp(p, fgt_codecs[i].magic, fgt_codecs[i].magic_len))
			return &fgt_codecs[i];
	return NULL;
}

/*
 * A payload of out_len bytes (checked by the caller against the caps),
 * decompressed into a fresh buffer: an ELF vmlinux, or with a64 an arm64
 * Image. 0 with *outp the caller's, else FGT_SW_* with msg.
 */
int fgt_inflate_payload(const struct fgt_kimage *im, const struct codec *c, const uint8_t *p,
			   uint64_t plen, uint64_t out_len, bool a64, uint8_t **outp,
			   const char *path, char *msg, size_t len)
{
	const char *what = a64 ? "an arm64 Image" : "an ELF file";
	uint8_t *out = malloc(out_len);
	size_t got = 0;
	int ret;

	if (!out) {
		snprintf(msg, len, "%s: out of memory for the %" PRIu64 "-byte %s", path, out_len,
			 a64 ? "Image" : "vmlinux");
		return FGT_SW_READ;
	}
	ret = inflate_all(im, c->id, p, plen, out, out_len, &got, a64);
	if (!ret) {
		*outp = out;
		return 0;
	}
	free(out);
	if (ret == -EINTR) {
		snprintf(msg, len, "%s: interrupted while decompressing", path);
		return FGT_SW_STOPPED;
	}
	if (ret == -2)
		snprintf(msg, len, "%s: the %s payload is not %s", path, c->name, what);
	else
		snprintf(msg, len, "%s: the %s payload does not decompress (%zu of %" PRIu64
			 " bytes)", path, c->name, got, out_len);
	return FGT_SW_NOT_KERNEL;
}
