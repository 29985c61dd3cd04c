// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel images for the static verdict (src/static/kread.h): /proc/kcore, a vmlinux,
 * a bzImage; their symbols from .symtab or a System.map. The embedded kallsyms
 * tables are src/static/kread_kallsyms.c.
 *
 * Every file here is untrusted: ELF is read through libelf (elfutils, fuzzed
 * upstream), what stays hand-written (the bzImage header, kcore's headers,
 * notes, BTF) goes through fgt_in_range(), and every size is capped
 * (src/static/kread.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem, fopencookie */
#endif
#include <elf.h>
#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <bzlib.h>
#include <lz4.h>
#include <lzma.h>
#include <lzo/lzo1x.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "host/kernel_id.h"
#include "common/clock.h"
#include "static/kread.h"
#include "common/log.h"

/* Kernel virtual addresses are in the upper half on x86-64. */
#define KERNEL_HALF	0xffff800000000000ull
/* Decompression and long loops poll for a stop this often. */
#define CHUNK		(1u << 20)

struct fgt_kio fgt_kio;

/* Every read of a file image on demand (/proc/kcore) goes through here with
 * io = &fgt_kio: counted, and at -vv one line each, for the answer's profile. */
static ssize_t kio_pread(int fd, void *buf, size_t len, uint64_t off, struct fgt_kio *io)
{
	uint64_t t0 = 0;
	ssize_t n;

	if (off > INT64_MAX)
		return -1;
	if (io && fgt_verbose >= 2)
		t0 = fgt_mono_ns();
	n = pread(fd, buf, len, (off_t)off);
	if (!io)
		return n;
	io->reads++;
	io->bytes += n > 0 ? (uint64_t)n : 0;
	if (fgt_verbose >= 2)
		log_dbg("kcore: %zu bytes at offset %#" PRIx64 ": %.3f ms", len, off,
			(fgt_mono_ns() - t0) / 1e6);
	return n;
}

int fgt_pread_all(int fd, void *buf, size_t len, uint64_t off, struct fgt_kio *io)
{
	size_t n = 0;
	ssize_t got;

	while (n < len) {
		got = kio_pread(fd, (char *)buf + n, len - n, off + n, io);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		n += (size_t)got;
	}
	return 0;
}

static void kimage_init(struct fgt_kimage *im, volatile sig_atomic_t *stop)
{
	memset(im, 0, sizeof(*im));
	im->fd = -1;
	im->stop = stop;
}

bool fgt_kimage_stopped(const struct fgt_kimage *im)
{
	return im->stop && *im->stop;
}

void fgt_kimage_close(struct fgt_kimage *im)
{
	volatile sig_atomic_t *stop = im->stop;

	if (im->elf)
		elf_end(im->elf);
	if (im->fd >= 0)
		close(im->fd);
	free(im->heap);
	free(im->doubt);
	kimage_init(im, stop);
}

/* ---- ELF, through libelf ----------------------------------------------------- */

static bool libelf_ready(void)
{
	static int ok = -1;

	if (ok < 0)
		ok = elf_version(EV_CURRENT) != EV_NONE;
	return ok;
}

/* A section's header, if its bytes lie inside the file and within the
 * section cap (SHT_NOBITS has no bytes to check); else NULL with errno. */
static Elf_Scn *scn_checked(const struct fgt_kimage *im, Elf_Scn *scn, GElf_Shdr *sh)
{
	uint64_t size = im->data ? im->size : im->file_size;

	if (!scn || !gelf_getshdr(scn, sh)) {
		errno = EIO;
		return NULL;
	}
	if (sh->sh_type == SHT_NOBITS)
		return scn;
	if (sh->sh_size > FGT_KIMAGE_MAX_SECTION) {
		errno = EFBIG;
		return NULL;
	}
	if (!fgt_in_range(sh->sh_offset, sh->sh_size, size)) {
		errno = EIO;
		return NULL;
	}
	return scn;
}

static Elf_Scn *scn_by_name(const struct fgt_kimage *im, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t strndx;

	errno = ENOENT;
	if (!im->elf || elf_getshdrstrndx(im->elf, &strndx))
		return NULL;
	/* elf_strptr() reads the whole table: its size is checked first */
	if (!scn_checked(im, elf_getscn(im->elf, strndx), sh))
		return NULL;
	while ((scn = elf_nextscn(im->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh) || !(n = elf_strptr(im->elf, strndx, sh->sh_name)) ||
		    strcmp(n, name))
			continue;
		return scn_checked(im, scn, sh);
	}
	errno = ENOENT;
	return NULL;
}

/* A section's raw bytes, read by libelf (from the file on demand, or in place). */
static const void *scn_bytes(const struct fgt_kimage *im, Elf_Scn *scn, const GElf_Shdr *sh,
			     size_t *len)
{
	Elf_Data *d;

	if (fgt_kimage_stopped(im)) {
		errno = EINTR;
		return NULL;
	}
	if (sh->sh_type == SHT_NOBITS || !sh->sh_size) {
		errno = ENOENT;
		return NULL;
	}
	d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size != sh->sh_size) {
		errno = EIO;
		return NULL;
	}
	*len = d->d_size;
	return d->d_buf;
}

/* A raw image's section, found by its shape (open_a64_raw). */
static const void *raw_section(const struct fgt_kimage *im, const char *name, size_t *len,
			       uint64_t *va)
{
	for (unsigned int i = 0; i < im->nr_raw; i++)
		if (!strcmp(im->raw[i].name, name)) {
			*len = im->raw[i].len;
			*va = im->seg[0].vaddr + im->raw[i].off;
			return im->data + im->raw[i].off;
		}
	errno = ENOENT;
	return NULL;
}

const void *fgt_kimage_section_va(const struct fgt_kimage *im, const char *name, size_t *len,
				  uint64_t *va)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (!im->elf && im->data)
		return raw_section(im, name, len, va);
	scn = scn_by_name(im, name, &sh);
	if (!scn)
		return NULL;
	*va = sh.sh_addr;
	return scn_bytes(im, scn, &sh, len);
}

const void *fgt_kimage_section(const struct fgt_kimage *im, const char *name, size_t *len)
{
	uint64_t va;

	return fgt_kimage_section_va(im, name, len, &va);
}

/* The architecture of an ELF machine (fgt_arch_facts): false if none of ours. */
static bool arch_of_machine(uint16_t machine, enum fgt_arch *arch)
{
	for (int a = 0; a < FGT_ARCH__NR; a++)
		if (fgt_arch_facts[a].elf_machine == machine) {
			*arch = (enum fgt_arch)a;
			return true;
		}
	return false;
}

/*
 * im->elf opened (over a file or memory): check it is an x86-64 or arm64 kernel and
 * take its PT_LOAD segments (the text reads go through them).
 */
static int kernel_elf(struct fgt_kimage *im, const char *name, char *msg, size_t len)
{
	uint64_t size = im->data ? im->size : im->file_size;
	bool kernel = false;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t phnum;

	if (elf_kind(im->elf) != ELF_K_ELF || !gelf_getehdr(im->elf, &eh) ||
	    gelf_getclass(im->elf) != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    !arch_of_machine(eh.e_machine, &im->arch)) {
		snprintf(msg, len, "%s: not an x86-64 or arm64 ELF file", name);
		return FGT_SW_NOT_KERNEL;
	}
	if (elf_getphdrnum(im->elf, &phnum)) {
		snprintf(msg, len, "%s: truncated or misaligned ELF program headers", name);
		return FGT_SW_NOT_KERNEL;
	}
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(im->elf, (int)i, &ph)) {
			snprintf(msg, len, "%s: truncated or misaligned ELF program headers", name);
			return FGT_SW_NOT_KERNEL;
		}
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		if (!fgt_in_range(ph.p_offset, ph.p_filesz, size) ||
		    ph.p_vaddr + ph.p_filesz < ph.p_vaddr) {
			snprintf(msg, len, "%s: truncated (a segment runs past the end of the file)", name);
			return FGT_SW_NOT_KERNEL;
		}
		/* overlapping segments: the boot loader copies them in order, so
		 * a later one's bytes are what runs; reading the earlier one
		 * would judge code the kernel never runs. Not resolved here:
		 * refused (a linker never makes them) */
		for (unsigned int k = 0; k < im->nr_segs; k++) {
			const struct fgt_kseg *o = &im->seg[k];

			if (ph.p_vaddr < o->vaddr + o->filesz && o->vaddr < ph.p_vaddr + ph.p_filesz) {
				snprintf(msg, len, "%s: two of its PT_LOAD segments overlap at "
					 "%#llx: which bytes the kernel runs there is the boot "
					 "loader's choice, not read here", name,
					 (unsigned long long)(ph.p_vaddr > o->vaddr ? ph.p_vaddr :
							      o->vaddr));
				return FGT_SW_NOT_KERNEL;
			}
		}
		if (im->nr_segs < FGT_KIMAGE_MAX_SEGS)
			im->seg[im->nr_segs++] = (struct fgt_kseg){ ph.p_vaddr, ph.p_offset, ph.p_filesz };
		if (ph.p_vaddr >= KERNEL_HALF && (ph.p_flags & PF_X))
			kernel = true;
	}
	if (!kernel || eh.e_type != ET_EXEC) {
		snprintf(msg, len, "%s: an ELF file, but not a kernel (no executable segment "
			 "at a kernel address)", name);
		return FGT_SW_NOT_KERNEL;
	}
	if (scn_by_name(im, fgt_arch_facts[im->arch].text_section, &sh))
		im->text_addr = sh.sh_addr;
	return 0;
}

static bool is_elf_magic(const uint8_t *d, size_t size)
{
	return size >= SELFMAG && !memcmp(d, ELFMAG, SELFMAG);
}

/*
 * elf_begin() and elf_memory() allocate for every section the header
 * claims, and the first program header read for every segment, before
 * anything else is asked: with extended numbering (e_shnum 0 and the count
 * in section 0's sh_size, e_phnum PN_XNUM and the count in its sh_info) a
 * sparse file claims tens of millions of each (8 Mi sections: 2.2 GB). A
 * kernel has about 50 sections and 5 segments, far under the 65279 and 65534
 * the header holds itself: extended numbering is refused, with msg.
 */
static bool elf_counts_ok(const uint8_t *d, size_t size, const char *name, char *msg,
			  size_t len)
{
	Elf64_Ehdr eh;

	if (size < sizeof(eh))
		return true;	/* libelf refuses it */
	memcpy(&eh, d, sizeof(eh));
	if ((eh.e_shnum || !eh.e_shoff) && eh.e_phnum != PN_XNUM)
		return true;
	snprintf(msg, len, "%s: ELF extended %s numbering (more than the header holds): not a "
		 "kernel's", name, eh.e_phnum == PN_XNUM ? "program header" : "section");
	return false;
}

int fgt_kimage_open_elf(struct fgt_kimage *im, const uint8_t *data, size_t size,
			const char *name, char *msg, size_t len)
{
	if (!libelf_ready()) {
		snprintf(msg, len, "%s: libelf: %s", name, elf_errmsg(-1));
		return FGT_SW_READ;
	}
	if (!is_elf_magic(data, size)) {
		snprintf(msg, len, "%s: not an x86-64 or arm64 ELF file", name);
		return FGT_SW_NOT_KERNEL;
	}
	if (!elf_counts_ok(data, size, name, msg, len))
		return FGT_SW_NOT_KERNEL;
	if (!(im->elf = elf_memory((char *)data, size))) {
		snprintf(msg, len, "%s: not an x86-64 or arm64 ELF file", name);
		return FGT_SW_NOT_KERNEL;
	}
	im->data = data;
	im->size = size;
	return kernel_elf(im, name, msg, len);
}

int fgt_kimage_read(const struct fgt_kimage *im, uint64_t addr, void *buf, size_t len)
{
	for (unsigned int i = 0; i < im->nr_segs; i++) {
		const struct fgt_kseg *s = &im->seg[i];

		if (addr < s->vaddr || !fgt_in_range(addr - s->vaddr, len, s->filesz))
			continue;
		if (im->data) {
			/* kernel_elf() checked the segment against the image */
			memcpy(buf, im->data + s->off + (addr - s->vaddr), len);
			return 0;
		}
		if (fgt_kimage_stopped(im))
			return -EINTR;
		return fgt_pread_all(im->fd, buf, len, s->off + (addr - s->vaddr), &fgt_kio) ? -EIO : 0;
	}
	return -EFAULT;
}

/* ---- bzImage ---------------------------------------------------------------- */

/* Documentation/arch/x86/boot.rst: the real-mode header. */
#define BZ_SETUP_SECTS	0x1f1
#define BZ_MAGIC	0x202		/* "HdrS" */
#define BZ_VERSION	0x206
#define BZ_PAYLOAD_OFF	0x248		/* protocol 2.08+ */
#define BZ_PAYLOAD_LEN	0x24c
#define BZ_HEADER_END	0x268		/* what is read of it, with init_size (2.10+) */

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * One decompressor for the seven formats the kernel builds with: the
 * stream fed whole, the output taken CHUNK at a time so that a stop is
 * seen within a second, and checked to begin as an ELF file as soon as the
 * first chunk is out (a payload that is not one costs a chunk, not its
 * claimed size).
 */
enum codec_id { C_GZIP, C_XZ, C_LZMA, C_ZSTD, C_BZIP2, C_LZ4, C_LZO };

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

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

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
	*flags = be32(in + pos);
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
		return f->b.blk && in_len >= 4 && le32(in) == LZ4_LEGACY_MAGIC ? 0 : -1;
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
		clen = le32(b->in + b->in_pos);
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
	dlen = be32(b->in + b->in_pos);
	b->in_pos += 4;
	if (dlen == 0)
		return 0;
	if (dlen > LZO_BLOCK_MAX || !fgt_in_range(b->in_pos, 4, b->in_len))
		return -1;
	clen = be32(b->in + b->in_pos);
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
	    !be32(b->in + b->in_pos))
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

static bool is_a64_image(const uint8_t *d, size_t size);

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
		size_t room = out_len - *got < CHUNK ? out_len - *got : CHUNK;
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
			if (a64 ? !is_a64_image(out, *got) : !is_elf_magic(out, *got)) {
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

struct codec {
	const char *name;
	enum codec_id id;
	const uint8_t magic[6];
	size_t magic_len;
};

static const struct codec codecs[] = {
	{ "gzip", C_GZIP, { 0x1f, 0x8b }, 2 },
	{ "xz", C_XZ, { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6 },
	{ "zstd", C_ZSTD, { 0x28, 0xb5, 0x2f, 0xfd }, 4 },
	{ "lzma", C_LZMA, { 0x5d, 0, 0 }, 3 },
	{ "bzip2", C_BZIP2, { 'B', 'Z', 'h' }, 3 },
	{ "lzo", C_LZO, { 0x89, 'L', 'Z', 'O' }, 4 },
	{ "lz4", C_LZ4, { 0x02, 0x21, 0x4c, 0x18 }, 4 },
};

static const struct codec *codec_of(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++)
		if (len >= codecs[i].magic_len && !memcmp(p, codecs[i].magic, codecs[i].magic_len))
			return &codecs[i];
	return NULL;
}

/*
 * The decompressed size the build appends (arch/x86/boot/compressed/Makefile,
 * size_append), bounded three ways: by the global cap, by the ratio to the
 * compressed size, and by the header's own init_size (boot protocol 2.10+:
 * the memory the kernel needs to boot, which holds the decompressed image).
 */
static int payload_size(const uint8_t *d, uint16_t version, const uint8_t *p, uint64_t plen,
			const char *path, uint64_t *out_len, char *msg, size_t len)
{
	uint64_t init_size = version >= 0x20a ? le32(d + 0x260) : 0;

	*out_len = le32(p + plen - 4);
	if (*out_len < 4096 || *out_len > FGT_KIMAGE_MAX_PAYLOAD ||
	    *out_len / FGT_KIMAGE_MAX_RATIO > plen || (init_size && *out_len > init_size)) {
		snprintf(msg, len, "%s: implausible decompressed size %" PRIu64 " (from %" PRIu64
			 " compressed bytes; init_size %" PRIu64 ", cap %llu MiB)", path, *out_len,
			 plen, init_size, FGT_KIMAGE_MAX_PAYLOAD >> 20);
		return FGT_SW_NOT_KERNEL;
	}
	return 0;
}

/*
 * A payload of out_len bytes (checked by the caller against the caps),
 * decompressed into a fresh buffer: an ELF vmlinux, or with a64 an arm64
 * Image. 0 with *outp the caller's, else FGT_SW_* with msg.
 */
static int inflate_payload(const struct fgt_kimage *im, const struct codec *c, const uint8_t *p,
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

/* d: the whole bzImage (read into memory), size bytes, at least the header. */
static int open_bzimage(struct fgt_kimage *im, const uint8_t *d, size_t size, const char *path,
			char *msg, size_t len)
{
	unsigned int setup = d[BZ_SETUP_SECTS] ? d[BZ_SETUP_SECTS] : 4;
	uint16_t version = (uint16_t)(d[BZ_VERSION] | d[BZ_VERSION + 1] << 8);
	uint64_t off, plen, out_len;
	const struct codec *c;
	const uint8_t *p;
	uint8_t *out;
	int ret;

	if (version < 0x208) {
		snprintf(msg, len, "%s: boot protocol %u.%02u has no payload fields (2.08+ needed)",
			 path, version >> 8, version & 0xff);
		return FGT_SW_NOT_KERNEL;
	}
	/* (setup + 1) * 512 is at most 128 KiB, the offset a u32: no overflow in 64 bits */
	off = (uint64_t)(setup + 1) * 512 + le32(d + BZ_PAYLOAD_OFF);
	plen = le32(d + BZ_PAYLOAD_LEN);
	if (plen < 16 || !fgt_in_range(off, plen, size)) {
		snprintf(msg, len, "%s: truncated bzImage (payload past the end of the file)", path);
		return FGT_SW_NOT_KERNEL;
	}
	p = d + off;
	c = codec_of(p, plen);
	if (!c) {
		snprintf(msg, len, "%s: a bzImage whose payload is in no compression format known here",
			 path);
		return FGT_SW_NOT_KERNEL;
	}
	ret = payload_size(d, version, p, plen, path, &out_len, msg, len);
	if (ret)
		return ret;
	ret = inflate_payload(im, c, p, plen, out_len, false, &out, path, msg, len);
	if (ret)
		return ret;
	im->heap = out;
	ret = fgt_kimage_open_elf(im, out, out_len, path, msg, len);
	if (!ret)
		snprintf(im->desc, sizeof(im->desc), "bzImage %s (%s)", path, c->name);
	return ret;
}

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	return "not a regular file";
}

/*
 * Open path for reading as a regular file of at most max bytes: O_NONBLOCK
 * so that a FIFO is refused rather than waited on (open() of a FIFO blocks
 * until a writer comes). The fd, or -1 with msg and *why.
 */
int fgt_open_regular(const char *path, uint64_t max, uint64_t *size, int *why, char *msg,
		     size_t len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		snprintf(msg, len, "%s: %s", path, strerror(errno));
		*why = errno == EACCES || errno == EPERM ? FGT_SW_NO_PERM : FGT_SW_READ;
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(msg, len, "%s: %s, not a file to read", path, file_kind(st.st_mode));
		*why = FGT_SW_NOT_KERNEL;
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > max) {
		snprintf(msg, len, "%s: %lld bytes, over the %llu MiB read here", path,
			 (long long)st.st_size, (unsigned long long)(max >> 20));
		*why = FGT_SW_NOT_KERNEL;
		close(fd);
		return -1;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}

/* ---- arm64 Image ------------------------------------------------------------- */

/*
 * arch/arm64/kernel/head.S: code0, code1, text_offset, image_size, flags
 * (bit 0: big-endian), three reserved, the magic (fgt_arch_facts), the PE
 * header's offset: 64 bytes, the size of an ELF header too.
 */
#define A64_HDR		64
#define A64_FLAGS	24
#define A64_FLAG_BE	1u

static bool is_a64_image(const uint8_t *d, size_t size)
{
	const struct fgt_arch_fact *a = &fgt_arch_facts[FGT_ARCH_ARM64];

	return size >= A64_HDR && !memcmp(d + a->image_magic_off, a->image_magic, 4);
}

/* The first of 4-byte aligned pattern (plen bytes) at or after from, or size. */
static size_t find_aligned(const uint8_t *d, size_t size, size_t from, const uint8_t *pat,
			   size_t plen)
{
	for (size_t o = (from + 3) & ~(size_t)3; o < size && size - o >= plen; o += 4)
		if (d[o] == pat[0] && !memcmp(d + o, pat, plen))
			return o;
	return size;
}

/*
 * The .BTF an Image carries (CONFIG_DEBUG_INFO_BTF), found by its header
 * (include/uapi/linux/btf.h: magic 0xeb9f, version 1, flags 0, hdr_len 24,
 * then type_off, type_len, str_off, str_len, the strings right after the
 * types): the first header whose sizes fit the image. fgt_btf_ret_stack()
 * checks what is inside as it does a file's.
 */
static void a64_find_btf(struct fgt_kimage *im)
{
	static const uint8_t hdr[8] = { 0x9f, 0xeb, 1, 0, 24, 0, 0, 0 };
	const uint8_t *d = im->data;
	size_t o = 0;

	while ((o = find_aligned(d, im->size, o, hdr, sizeof(hdr))) < im->size) {
		uint64_t toff, tlen, soff, slen, total;

		if (im->size - o < 24)
			return;
		toff = le32(d + o + 8);
		tlen = le32(d + o + 12);
		soff = le32(d + o + 16);
		slen = le32(d + o + 20);
		total = 24 + tlen + slen;	/* each a u32: no overflow in 64 bits */
		if (toff == 0 && soff == tlen && tlen && slen &&
		    total <= FGT_KIMAGE_MAX_SECTION && fgt_in_range(o, total, im->size)) {
			im->raw[im->nr_raw++] = (struct fgt_kraw_sec){ ".BTF", o, total };
			return;
		}
		o += 4;
	}
}

/*
 * The GNU build-ID note (namesz 4, descsz 20, NT_GNU_BUILD_ID, "GNU") of
 * the kernel's own .notes. The vDSO and the EFI stub carry theirs in
 * .rodata, before it (Debian's arm64 Images have three): RO_DATA puts NOTES
 * after .rodata and right before .BTF (include/asm-generic/vmlinux.lds.h),
 * so it is the last one before .BTF, or the last one where there is none.
 * The running 7.2's /proc/kcore VMCOREINFO says the same ID.
 */
static void a64_find_build_id(struct fgt_kimage *im, uint64_t btf_off)
{
	static const uint8_t note[16] = { 4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0 };
	size_t end = btf_off < im->size ? (size_t)btf_off : im->size, last = end;

	for (size_t o = find_aligned(im->data, end, 0, note, sizeof(note)); o < end;
	     o = find_aligned(im->data, end, o + 4, note, sizeof(note)))
		last = o;
	if (last < end && fgt_in_range(last, sizeof(note) + 20, im->size))
		im->raw[im->nr_raw++] = (struct fgt_kraw_sec){ ".notes", last, sizeof(note) + 20 };
}

/*
 * Where _stext is in the Image: its PE header's BaseOfCode (arch/arm64/kernel/
 * efi-header.S: .Lefi_header_end - _head, the header ending at SEGMENT_ALIGN
 * where vmlinux.lds.S starts .text with _stext). kallsyms without
 * KALLSYMS_ALL holds text symbols only, and up to 6.x not _text, which lies
 * before .text (Debian's 6.1). 0 when there is no PE header (CONFIG_EFI off).
 */
static uint64_t a64_stext_off(const uint8_t *d, size_t size)
{
	uint64_t pe = le32(d + 60), base;

	/* "PE\0\0", the COFF header (20 bytes), the optional header's first 24 */
	if (memcmp(d, "MZ", 2) || !fgt_in_range(pe, 4 + 20 + 24, size) || memcmp(d + pe, "PE\0\0", 4))
		return 0;
	base = le32(d + pe + 4 + 20 + 20);	/* BaseOfCode */
	return base && base < size && !(base & 0xfff) ? base : 0;
}

/*
 * buf (size bytes, malloc()ed) holds an arm64 Image: it becomes the image,
 * one segment from _text on (the Image is vmlinux from _text, objcopy -O
 * binary), at a provisional address until its symbols place it
 * (fgt_kimage_place). Owns buf from here on.
 */
static int open_a64_raw(struct fgt_kimage *im, uint8_t *buf, size_t size, const char *path,
			const char *kind, char *msg, size_t len)
{
	const struct fgt_arch_fact *a = &fgt_arch_facts[FGT_ARCH_ARM64];

	im->heap = buf;
	if (!is_a64_image(buf, size)) {
		snprintf(msg, len, "%s: %s, but what it holds is not an arm64 Image", path, kind);
		return FGT_SW_NOT_KERNEL;
	}
	if (le32(buf + A64_FLAGS) & A64_FLAG_BE) {
		snprintf(msg, len, "%s: a big-endian arm64 Image, not read here", path);
		return FGT_SW_NOT_KERNEL;
	}
	im->data = buf;
	im->size = size;
	im->arch = FGT_ARCH_ARM64;
	im->va_free = true;
	im->seg[0] = (struct fgt_kseg){ a->image_va, 0, size };
	im->nr_segs = 1;
	im->text_addr = a->image_va;
	im->stext_off = a64_stext_off(buf, size);
	a64_find_btf(im);
	a64_find_build_id(im, im->nr_raw ? im->raw[0].off : UINT64_MAX);
	snprintf(im->desc, sizeof(im->desc), "%s %s", kind, path);
	return 0;
}

/* A compressed Image (Image.gz, a zboot payload): out_len checked as a
 * bzImage's payload is, by the caps and the ratio. */
static int open_a64_packed(struct fgt_kimage *im, const struct codec *c, const uint8_t *p,
			   uint64_t plen, uint64_t out_len, const char *path, const char *kind,
			   char *msg, size_t len)
{
	uint8_t *out;
	int ret;

	if (out_len < 4096 || out_len > FGT_KIMAGE_MAX_PAYLOAD ||
	    out_len / FGT_KIMAGE_MAX_RATIO > plen) {
		snprintf(msg, len, "%s: implausible decompressed size %" PRIu64 " (from %" PRIu64
			 " compressed bytes; cap %llu MiB)", path, out_len, plen,
			 FGT_KIMAGE_MAX_PAYLOAD >> 20);
		return FGT_SW_NOT_KERNEL;
	}
	ret = inflate_payload(im, c, p, plen, out_len, true, &out, path, msg, len);
	if (ret)
		return ret;
	return open_a64_raw(im, out, out_len, path, kind, msg, len);
}

/*
 * drivers/firmware/efi/libstub/zboot-header.S: "MZ", "zimg", the payload's
 * offset and size (u32), two reserved, the compression's name (NUL-ended,
 * at 24). Makefile.zboot: gzip appends nothing (its trailer has the size),
 * zstd22_with_size appends the size, outside the payload's counted bytes.
 */
#define ZB_OFF		8
#define ZB_SIZE		12
#define ZB_COMP		24
#define ZB_COMP_LEN	8

static int open_zboot(struct fgt_kimage *im, const uint8_t *d, size_t size, const char *path,
		      char *msg, size_t len)
{
	uint64_t off = le32(d + ZB_OFF), plen = le32(d + ZB_SIZE), out_len;
	char comp[ZB_COMP_LEN + 1];
	const struct codec *c;

	memcpy(comp, d + ZB_COMP, ZB_COMP_LEN);
	comp[ZB_COMP_LEN] = '\0';
	if (plen < 16 || !fgt_in_range(off, plen, size)) {
		snprintf(msg, len, "%s: truncated EFI zboot image (payload past the end of the file)",
			 path);
		return FGT_SW_NOT_KERNEL;
	}
	c = codec_of(d + off, plen);
	if (!c || strncmp(comp, c->id == C_XZ ? "xzkern" : c->name, ZB_COMP_LEN)) {
		snprintf(msg, len, "%s: an EFI zboot image whose payload is not the %.8s it says",
			 path, comp);
		return FGT_SW_NOT_KERNEL;
	}
	if (c->id == C_GZIP) {
		out_len = le32(d + off + plen - 4);
	} else if (fgt_in_range(off + plen, 4, size)) {
		out_len = le32(d + off + plen);
	} else {
		snprintf(msg, len, "%s: truncated EFI zboot image (no size after its payload)", path);
		return FGT_SW_NOT_KERNEL;
	}
	return open_a64_packed(im, c, d + off, plen, out_len, path, "arm64 EFI zboot image",
			       msg, len);
}

/* Image.gz: gzip's trailer holds the size (mod 2^32; the cap is far below). */
static int open_a64_gz(struct fgt_kimage *im, const uint8_t *d, size_t size, const char *path,
		       char *msg, size_t len)
{
	return open_a64_packed(im, &codecs[0], d, size, le32(d + size - 4), path,
			       "arm64 Image.gz", msg, len);
}

enum file_kind { FK_BZIMAGE, FK_A64, FK_ZBOOT, FK_GZIP };

/* A boot image whole in memory, buf (malloc()ed, taken over: freed here or
 * kept as the image's), of kind. */
static int open_boot_buf(struct fgt_kimage *im, uint8_t *buf, uint64_t size, const char *path,
			 enum file_kind kind, char *msg, size_t len)
{
	int err;

	if (kind == FK_A64)
		return open_a64_raw(im, buf, size, path, "arm64 Image", msg, len);
	if (kind == FK_BZIMAGE)
		err = open_bzimage(im, buf, size, path, msg, len);
	else if (kind == FK_ZBOOT)
		err = open_zboot(im, buf, size, path, msg, len);
	else
		err = open_a64_gz(im, buf, size, path, msg, len);
	free(buf);
	return err;
}

/* A boot image read whole into memory (no mapping: see fgt_kimage_open_file). */
static int open_boot_file(struct fgt_kimage *im, int fd, uint64_t size, const char *path,
			  enum file_kind kind, char *msg, size_t len)
{
	uint8_t *buf;

	if (size > FGT_KIMAGE_MAX_BZIMAGE) {
		snprintf(msg, len, "%s: a%s of %" PRIu64 " bytes, over the %llu MiB read here",
			 path, kind == FK_BZIMAGE ? " bzImage" : "n arm64 boot image", size,
			 FGT_KIMAGE_MAX_BZIMAGE >> 20);
		return FGT_SW_NOT_KERNEL;
	}
	buf = malloc(size);
	if (!buf) {
		snprintf(msg, len, "%s: out of memory", path);
		return FGT_SW_READ;
	}
	if (fgt_pread_all(fd, buf, size, 0, &fgt_kio)) {
		free(buf);
		snprintf(msg, len, "%s: short read (truncated while read?)", path);
		return FGT_SW_READ;
	}
	return open_boot_buf(im, buf, size, path, kind, msg, len);
}

/* What a boot image's first bytes say it is, or -1. */
static int boot_kind(const uint8_t *head, size_t n)
{
	if (n < BZ_HEADER_END)
		return -1;
	return !memcmp(head + BZ_MAGIC, "HdrS", 4) ? FK_BZIMAGE :
	       is_a64_image(head, n) ? FK_A64 :
	       !memcmp(head, "MZ", 2) && !memcmp(head + 4, "zimg", 4) ? FK_ZBOOT :
	       head[0] == 0x1f && head[1] == 0x8b ? FK_GZIP : -1;
}

/*
 * A kernel package (.deb): its vmlinuz, read out of the data member by
 * libarchive (src/static/kread_deb.c), opened as the boot image it is.
 */
static int open_deb(struct fgt_kimage *im, int fd, const char *path, char *msg, size_t len)
{
	char member[256], name[sizeof(im->desc) + 256];
	uint8_t *buf;
	size_t size;
	int kind, err;

	err = fgt_deb_vmlinuz(fd, path, im->stop, &buf, &size, member, sizeof(member), msg, len);
	if (err)
		return err;
	kind = boot_kind(buf, size);
	if (kind < 0) {
		free(buf);
		snprintf(msg, len, "%s: its %s is not a boot image (neither a bzImage nor an arm64 "
			 "Image)", path, member);
		return FGT_SW_NOT_KERNEL;
	}
	err = open_boot_buf(im, buf, size, member, kind, msg, len);
	if (err) {
		/* the member's own line, said of the package */
		snprintf(name, sizeof(name), "%s", msg);
		snprintf(msg, len, "%s: %s", path, name);
	} else {
		snprintf(name, sizeof(name), "%s", im->desc);
		snprintf(im->desc, sizeof(im->desc), "%.90s in %.105s", name, path);
	}
	return err;
}

int fgt_kimage_open_file(struct fgt_kimage *im, const char *path, volatile sig_atomic_t *stop,
			 char *msg, size_t len)
{
	uint8_t head[BZ_HEADER_END];
	int kind;
	uint64_t size;
	int fd, err;

	kimage_init(im, stop);
	fd = fgt_open_regular(path, UINT64_MAX, &size, &err, msg, len);
	if (fd < 0)
		return err;
	if (size >= 8 && !fgt_pread_all(fd, head, 8, 0, &fgt_kio) && !memcmp(head, "!<arch>\n", 8)) {
		/* an ar archive: a Debian package, linux-image-* or linux-binary-* */
		err = open_deb(im, fd, path, msg, len);
		close(fd);
		if (err)
			fgt_kimage_close(im);
		return err;
	}
	if (size < 4096 || fgt_pread_all(fd, head, sizeof(head), 0, &fgt_kio)) {
		snprintf(msg, len, "%s: not a kernel image (too small)", path);
		close(fd);
		return FGT_SW_NOT_KERNEL;
	}
	kind = boot_kind(head, sizeof(head));
	if ((int)kind >= 0) {
		err = open_boot_file(im, fd, size, path, kind, msg, len);
		close(fd);
		if (err)
			fgt_kimage_close(im);
		return err;
	}
	if (!is_elf_magic(head, sizeof(head))) {
		snprintf(msg, len, "%s: not a kernel image (neither a vmlinux, a bzImage nor an "
			 "arm64 Image)", path);
		close(fd);
		return FGT_SW_NOT_KERNEL;
	}
	if (!elf_counts_ok(head, sizeof(head), path, msg, len)) {
		close(fd);
		return FGT_SW_NOT_KERNEL;
	}
	/* a vmlinux: libelf reads what is asked for, when asked (ELF_C_READ
	 * neither maps nor reads the file whole: a debug vmlinux is 0.5-1 GiB) */
	im->fd = fd;
	im->file_size = size;
	if (!libelf_ready() || !(im->elf = elf_begin(fd, ELF_C_READ, NULL))) {
		snprintf(msg, len, "%s: not an x86-64 or arm64 ELF file", path);
		fgt_kimage_close(im);
		return FGT_SW_NOT_KERNEL;
	}
	err = kernel_elf(im, path, msg, len);
	if (err) {
		fgt_kimage_close(im);
		return err;
	}
	snprintf(im->desc, sizeof(im->desc), "vmlinux %s", path);
	return 0;
}

/* ---- /proc/kcore -------------------------------------------------------------- */

/* Does this process hold CAP_SYS_RAWIO (17), which kcore asks for? */
static bool have_rawio(void)
{
	char line[256];
	unsigned long long caps = 0;
	bool found = false;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			found = true;
			break;
		}
	fclose(f);
	return found && (caps >> 17 & 1);
}

/*
 * Is kcore refused by lockdown=confidentiality? The mode as securityfs or
 * the command line says (src/host/kernel_id.c); where neither says, EPERM with
 * CAP_SYS_RAWIO held can only be lockdown (fs/proc/kcore.c: open_kcore()
 * checks the capability, then security_locked_down(LOCKDOWN_KCORE)).
 */
static bool locked_down(void)
{
	enum fgt_lockdown m = fgt_lockdown_mode(NULL, NULL);

	return m == FGT_LOCKDOWN_CONFIDENTIALITY || (m == FGT_LOCKDOWN_UNKNOWN && have_rawio());
}

int fgt_kimage_open_kcore(struct fgt_kimage *im, const char *path, char *msg, size_t len)
{
	Elf64_Ehdr eh;
	ssize_t n;

	struct stat st;

	kimage_init(im, NULL);
	path = path ? path : "/proc/kcore";
	im->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (im->fd < 0) {
		int e = errno;

		if (e == ENOENT) {
			snprintf(msg, len, "no %s (CONFIG_PROC_KCORE off, or a container without it)",
				 path);
			return FGT_SW_NO_KCORE;
		}
		if (e == EPERM && locked_down()) {
			snprintf(msg, len, "%s: refused by lockdown=confidentiality", path);
			return FGT_SW_LOCKDOWN;
		}
		if (e == EPERM || e == EACCES) {
			snprintf(msg, len, "%s: %s (needs root with CAP_SYS_RAWIO%s)", path, strerror(e),
				 e == EPERM ? "; lockdown=confidentiality refuses it too" : "");
			return FGT_SW_NO_PERM;
		}
		snprintf(msg, len, "%s: %s", path, strerror(e));
		return FGT_SW_NO_KCORE;
	}
	/* the real one is a regular file; containers mask it with /dev/null
	 * (a device); anything else (a FIFO) is refused, not waited on */
	if (fstat(im->fd, &st) || !S_ISREG(st.st_mode)) {
		if (S_ISCHR(st.st_mode))
			snprintf(msg, len, "%s is empty (a container masks it so)", path);
		else
			snprintf(msg, len, "%s is %s, not the kernel's core file", path,
				 file_kind(st.st_mode));
		fgt_kimage_close(im);
		return FGT_SW_NO_KCORE;
	}
	n = kio_pread(im->fd, &eh, sizeof(eh), 0, &fgt_kio);
	if (n != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_CORE ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 4096 ||
	    !fgt_in_range(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr), INT64_MAX)) {
		snprintf(msg, len, "%s is %s (a container masks it so)", path,
			 n <= 0 ? "empty" : "not an ELF core file");
		fgt_kimage_close(im);
		return FGT_SW_NO_KCORE;
	}
	if (!arch_of_machine(eh.e_machine, &im->arch)) {
		snprintf(msg, len, "%s is the core of a machine (ELF e_machine %u) not read here",
			 path, eh.e_machine);
		fgt_kimage_close(im);
		return FGT_SW_NO_KCORE;
	}
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (kio_pread(im->fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph), &fgt_kio) != sizeof(ph))
			break;
		if (ph.p_type == PT_NOTE) {
			im->note_off = ph.p_offset;
			im->note_len = ph.p_filesz;
			continue;
		}
		/* the kernel text mapping (KCORE_TEXT) is what we read */
		if (ph.p_type != PT_LOAD || ph.p_vaddr < KERNEL_HALF || !ph.p_filesz ||
		    ph.p_vaddr + ph.p_filesz < ph.p_vaddr || ph.p_offset > INT64_MAX)
			continue;
		if (im->nr_segs == FGT_KIMAGE_MAX_SEGS)
			break;
		im->seg[im->nr_segs++] = (struct fgt_kseg){ ph.p_vaddr, ph.p_offset, ph.p_filesz };
	}
	snprintf(im->desc, sizeof(im->desc), "%s", path);
	return 0;
}

/* ---- symbols ------------------------------------------------------------------- */

static struct fgt_ksyms *ksyms_from_text(const struct fgt_kimage *im, char *text, size_t n);

/* The kallsyms type letter of a symbol, from its section's flags. */
static char sym_letter(const struct fgt_kimage *im, const GElf_Sym *s)
{
	bool global = GELF_ST_BIND(s->st_info) != STB_LOCAL;
	GElf_Shdr sh;
	char c = 'd';

	if (gelf_getshdr(elf_getscn(im->elf, s->st_shndx), &sh)) {
		if (sh.sh_flags & SHF_EXECINSTR)
			c = 't';
		else if (sh.sh_type == SHT_NOBITS)
			c = 'b';
		else if (!(sh.sh_flags & SHF_WRITE))
			c = 'r';
	}
	return global ? (char)(c - 'a' + 'A') : c;
}

/* No more than this many names in doubt are kept: the first are enough to
 * refuse an answer, and a table with more is refused whole elsewhere. */
#define DOUBT_MAX	65536

void fgt_kimage_doubt_add(struct fgt_kimage *im, const char *name, const char *why)
{
	size_t n = strnlen(name, 256), w = strlen(why);
	char *p;

	if (!n || im->nr_doubt >= DOUBT_MAX)
		return;
	/* the leading newline, the tab, the newline and a NUL */
	p = realloc(im->doubt, im->doubt_len + n + w + 4);
	if (!p)
		return;
	/* a leading newline, so that every name is found as "\nname\t" */
	if (!im->doubt_len)
		p[im->doubt_len++] = '\n';
	memcpy(p + im->doubt_len, name, n);
	p[im->doubt_len + n] = '\t';
	memcpy(p + im->doubt_len + n + 1, why, w);
	p[im->doubt_len + n + 1 + w] = '\n';
	p[im->doubt_len + n + 2 + w] = '\0';
	im->doubt = p;
	im->doubt_len += n + w + 2;
	im->nr_doubt++;
}

size_t fgt_kimage_doubt_next(const struct fgt_kimage *im, size_t at, char *name, size_t nlen,
			     char *why, size_t wlen)
{
	/* every entry is "name\twhy\n" after the leading newline, at most
	 * doubt_len bytes read whatever the entries hold */
	while (im->doubt && at < im->doubt_len) {
		const char *p = im->doubt + at, *end = im->doubt + im->doubt_len;
		const char *e = memchr(p, '\n', (size_t)(end - p));
		const char *tab;

		if (at == 0 && *p == '\n') {
			at = 1;
			continue;
		}
		if (!e)
			return 0;
		at = (size_t)(e - im->doubt) + 1;
		tab = memchr(p, '\t', (size_t)(e - p));
		if (!tab || (size_t)(tab - p) >= nlen)
			continue;
		snprintf(name, nlen, "%.*s", (int)(tab - p), p);
		snprintf(why, wlen, "%.*s", (int)(e - tab - 1), tab + 1);
		return at;
	}
	return 0;
}

const char *fgt_kimage_doubt(const struct fgt_kimage *im, const char *name, char *buf,
			     size_t len)
{
	char key[260];
	const char *at, *why, *end;
	int n;

	if (!im->doubt || !name)
		return NULL;
	n = snprintf(key, sizeof(key), "\n%s\t", name);
	if (n < 0 || (size_t)n >= sizeof(key))
		return NULL;
	at = memmem(im->doubt, im->doubt_len, key, (size_t)n);
	if (!at)
		return NULL;
	why = at + n;
	end = memchr(why, '\n', im->doubt_len - (size_t)(why - im->doubt));
	snprintf(buf, len, "%.*s", end ? (int)(end - why) : 0, why);
	return buf;
}

/* One symbol as a kallsyms line, if it is a kernel one kallsyms would list. */
static void symtab_line(struct fgt_kimage *im, size_t strndx, const GElf_Sym *sym,
			FILE *f, size_t *count)
{
	unsigned int t = GELF_ST_TYPE(sym->st_info);
	const char *name, *why = NULL;

	/* elf_strptr() checks the offset and that a NUL ends the name in the table */
	name = elf_strptr(im->elf, strndx, sym->st_name);
	if (!name || !name[0] || strnlen(name, 512) == 512 || strpbrk(name, " \t\n"))
		return;
	if (t != STT_FUNC && t != STT_OBJECT && t != STT_NOTYPE)
		return;
	if (sym->st_shndx == SHN_UNDEF)
		why = "undefined";
	else if (sym->st_shndx >= SHN_LORESERVE && sym->st_shndx != SHN_ABS)
		why = "in a reserved section";
	else if (sym->st_value < fgt_arch_facts[im->arch].kernel_lo)
		why = sym->st_value ? "below the kernel's half" : "at address 0";
	else if (sym->st_shndx >= SHN_LORESERVE)
		why = "absolute";
	if (why) {
		/* not taken, and not forgotten: an answer must not rest on its
		 * absence (x86-64's per-CPU symbols are the real ones here) */
		fgt_kimage_doubt_add(im, name, why);
		return;
	}
	fprintf(f, "%016" PRIx64 " %c %s\n", (uint64_t)sym->st_value, sym_letter(im, sym), name);
	(*count)++;
}

/* .symtab as kallsyms text: 0; -1 if there is none; -EINTR when stopped. */
static int symtab_text(struct fgt_kimage *im, char **text, size_t *n, size_t *count)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, strsh;
	int ret = -1;

	*count = 0;
	while (im->elf && (scn = elf_nextscn(im->elf, scn))) {
		Elf_Data *d;
		size_t nsym;
		FILE *f;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		/* a .symtab there is, refused: say which, not "no .symtab" */
		if (!scn_checked(im, scn, &sh))
			return errno == EFBIG ? -EFBIG : -EINVAL;
		/* its names' table is read whole by elf_strptr(): checked first */
		if (sh.sh_entsize != sizeof(Elf64_Sym) ||
		    !scn_checked(im, elf_getscn(im->elf, sh.sh_link), &strsh) ||
		    strsh.sh_type != SHT_STRTAB || !(d = elf_getdata(scn, NULL)))
			return errno == EFBIG ? -E2BIG : -EINVAL;
		nsym = sh.sh_size / sizeof(Elf64_Sym);
		if (nsym > FGT_KIMAGE_MAX_SYMS)
			return -EINVAL;
		f = open_memstream(text, n);
		if (!f)
			return -1;
		ret = 0;
		for (size_t k = 1; k < nsym; k++) {
			GElf_Sym sym;

			if (!(k & 0xffff) && fgt_kimage_stopped(im)) {
				ret = -EINTR;
				break;
			}
			if (gelf_getsym(d, (int)k, &sym))
				symtab_line(im, sh.sh_link, &sym, f, count);
		}
		fclose(f);
		return ret;
	}
	return -1;
}

int fgt_kimage_place(struct fgt_kimage *im, const struct fgt_ksyms *ks)
{
	const struct fgt_ksym *t = fgt_ksyms_by_name(ks, "_text");
	uint64_t a;

	if (!im->va_free)
		return 0;
	if (!t && im->stext_off)
		t = fgt_ksyms_by_name(ks, "_stext");
	if (!t)
		return -1;
	a = t->addr - (strcmp(t->name, "_text") ? im->stext_off : 0);
	if (a < fgt_arch_facts[im->arch].kernel_lo || (a & 0xfff) || a + im->seg[0].filesz < a)
		return -1;
	im->seg[0].vaddr = im->text_addr = a;
	im->va_free = false;
	return 0;
}

struct fgt_ksyms *fgt_kimage_symbols(struct fgt_kimage *im, char *desc, size_t dlen,
				     int *why, char *msg, size_t len)
{
	struct fgt_ksyms *ks = NULL;
	char *text = NULL, kmsg[200] = "", smsg[64];
	size_t n = 0, count = 0;
	int err;

	err = symtab_text(im, &text, &n, &count);
	if (err == -EFBIG || err == -E2BIG)
		snprintf(smsg, sizeof(smsg), "its .symtab%s over the %llu MiB section cap",
			 err == -E2BIG ? "'s string table" : "", FGT_KIMAGE_MAX_SECTION >> 20);
	else
		snprintf(smsg, sizeof(smsg), "%s", err == -EINVAL ? "a .symtab not usable" :
			 "no .symtab");
	if (err == -EINTR) {
		free(text);
		goto stopped;
	}
	if (!err && count) {
		ks = ksyms_from_text(im, text, n);
		snprintf(desc, dlen, ".symtab (%zu symbols)", count);
	} else {
		free(text);
		text = NULL;
		err = fgt_kallsyms_extract(im, &text, &n, &count, kmsg, sizeof(kmsg));
		if (err == -EINTR) {
			free(text);
			goto stopped;
		}
		if (!err) {
			ks = ksyms_from_text(im, text, n);
			snprintf(desc, dlen, "the image's kallsyms tables (%zu symbols)", count);
			if (ks && fgt_kimage_place(im, ks)) {
				fgt_ksyms_free(ks);
				free(text);
				*why = FGT_SW_NO_SYMBOLS;
				snprintf(msg, len, "%s: its kallsyms tables put _text at no page of "
					 "the kernel's half", im->desc);
				return NULL;
			}
		} else {
			free(text);
			*why = FGT_SW_NO_SYMBOLS;
			snprintf(msg, len, "%s has no symbols: %s, and %s; give its System.map",
				 im->desc, smsg, kmsg);
			return NULL;
		}
	}
	free(text);
	if (!ks && errno == EINTR)
		goto stopped;
	if (!ks) {
		*why = FGT_SW_READ;
		snprintf(msg, len, "%s: cannot build the symbol table: %s", im->desc, strerror(errno));
	}
	return ks;
stopped:
	*why = FGT_SW_STOPPED;
	snprintf(msg, len, "%s: interrupted while reading its symbols", im->desc);
	return NULL;
}

/* A FILE whose reads end at a stop (SIGTERM while a System.map or a
 * symbol table's text is parsed) as at its end: the caller checks which.
 * Over a checked regular file's fd, or over memory. */
struct capped {
	int fd;				/* or -1: mem */
	const char *mem;
	size_t len, pos;
	/* an fd's cap on what is read (0: none), and where going over it is
	 * told: its size is what fstat said when it was opened, and a file of
	 * /proc says 0 and may hold far more (/proc/self/pagemap: 256 GiB) */
	uint64_t max, got;
	bool *over;
	volatile sig_atomic_t *stop;
};

static ssize_t capped_read(void *cookie, char *buf, size_t size)
{
	struct capped *c = cookie;
	ssize_t n;

	if (c->stop && *c->stop)
		return 0;
	if (c->fd < 0) {
		/* a block at a time, so that a stop is seen between blocks */
		n = (ssize_t)(c->len - c->pos < size ? c->len - c->pos : size);
		if (n > 1 << 16)
			n = 1 << 16;
		memcpy(buf, c->mem + c->pos, (size_t)n);
		c->pos += (size_t)n;
		return n;
	}
	do
		n = read(c->fd, buf, size);
	while (n < 0 && errno == EINTR && !(c->stop && *c->stop));
	if (n > 0)
		c->got += (uint64_t)n;
	/* past the cap by at most one read (what the FILE asked for) */
	if (c->max && c->got > c->max) {
		*c->over = true;
		errno = EFBIG;
		return -1;
	}
	return n;
}

static int capped_close(void *cookie)
{
	struct capped *c = cookie;

	if (c->fd >= 0)
		close(c->fd);
	free(c);
	return 0;
}

static FILE *capped_file(struct capped *c)
{
	cookie_io_functions_t io = { .read = capped_read, .close = capped_close };

	return fopencookie(c, "r", io);
}

/* kallsyms-format text to a symbol table (one parser for every source);
 * NULL with errno EINTR when stopped. */
static struct fgt_ksyms *ksyms_from_text(const struct fgt_kimage *im, char *text, size_t n)
{
	struct capped *c = malloc(sizeof(*c));
	struct fgt_ksyms *ks;
	FILE *f;

	if (!c)
		return NULL;
	*c = (struct capped){ .fd = -1, .mem = text, .len = n, .stop = im->stop };
	f = capped_file(c);
	if (!f) {
		free(c);
		return NULL;
	}
	ks = fgt_ksyms_load_file(f);
	fclose(f);
	if (fgt_kimage_stopped(im)) {
		fgt_ksyms_free(ks);
		errno = EINTR;
		return NULL;
	}
	return ks;
}

/* path as a FILE of at most max bytes, by its size and by what is read of
 * it (*over set when a read goes past max). */
static FILE *open_capped(const char *path, uint64_t max, volatile sig_atomic_t *stop, bool *over,
			 int *why, char *msg, size_t len)
{
	struct capped *c = malloc(sizeof(*c));
	uint64_t size;
	FILE *f;

	if (!c) {
		*why = FGT_SW_READ;
		snprintf(msg, len, "%s: out of memory", path);
		return NULL;
	}
	*over = false;
	*c = (struct capped){ .stop = stop, .max = max, .over = over };
	c->fd = fgt_open_regular(path, max, &size, why, msg, len);
	if (c->fd < 0) {
		free(c);
		return NULL;
	}
	f = capped_file(c);
	if (!f) {
		close(c->fd);
		free(c);
		*why = FGT_SW_READ;
		snprintf(msg, len, "%s: %s", path, strerror(errno));
	}
	return f;
}

#define BANNER_LEN	(sizeof(FGT_BANNER) - 1)

/* Is ks this image's? Positively: its linux_banner reads "Linux version " in
 * the image, or its _text is the image's .text. Nothing to tie it is a no. */
static bool map_belongs(const struct fgt_kimage *im, const struct fgt_ksyms *ks)
{
	const struct fgt_ksym *banner = fgt_ksyms_by_name(ks, FGT_BANNER_SYM);
	const struct fgt_ksym *text = fgt_ksyms_by_name(ks, "_text");
	char buf[BANNER_LEN];

	if (banner)
		return !fgt_kimage_read(im, banner->addr, buf, sizeof(buf)) &&
		       !memcmp(buf, FGT_BANNER, sizeof(buf));
	return text && im->text_addr && text->addr == im->text_addr;
}

struct fgt_ksyms *fgt_kimage_system_map(struct fgt_kimage *im, const char *path,
					int *why, char *msg, size_t len)
{
	bool over;
	FILE *f = open_capped(path, FGT_KIMAGE_MAX_MAP, im->stop, &over, why, msg, len);
	struct fgt_ksyms *ks;
	char insane[160];

	if (!f) {
		if (*why == FGT_SW_NOT_KERNEL)
			*why = FGT_SW_BAD_MAP;
		return NULL;
	}
	ks = fgt_ksyms_load_file(f);
	fclose(f);
	if (fgt_kimage_stopped(im)) {
		fgt_ksyms_free(ks);
		*why = FGT_SW_STOPPED;
		snprintf(msg, len, "%s: interrupted while reading it", path);
		return NULL;
	}
	if (over) {
		fgt_ksyms_free(ks);
		*why = FGT_SW_BAD_MAP;
		snprintf(msg, len, "%s: more than %llu MiB read (its size said less), over the %llu "
			 "MiB read here", path, FGT_KIMAGE_MAX_MAP >> 20, FGT_KIMAGE_MAX_MAP >> 20);
		return NULL;
	}
	if (!ks) {
		*why = FGT_SW_READ;
		snprintf(msg, len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (!fgt_ksyms_sane(ks, insane, sizeof(insane))) {
		*why = FGT_SW_BAD_MAP;
		im->map_placeholder = true;
		snprintf(msg, len, "%s is a placeholder, not a System.map (%zu symbol%s; Debian "
			 "ships the real one in linux-image-<version>-dbg)", path, fgt_ksyms_count(ks),
			 fgt_ksyms_count(ks) == 1 ? "" : "s");
		fgt_ksyms_free(ks);
		return NULL;
	}
	if (fgt_kimage_place(im, ks) || !map_belongs(im, ks)) {
		*why = FGT_SW_BAD_MAP;
		snprintf(msg, len, "%s does not belong to %s (linux_banner is not there)", path, im->desc);
		fgt_ksyms_free(ks);
		return NULL;
	}
	return ks;
}

/* ---- VMCOREINFO ------------------------------------------------------------- */

#define NOTE_MAX	(256u << 10)

/*
 * The word at s (blanks before it skipped), cut to len - 1 bytes: sscanf("%64s") without
 * sscanf, whose code run for the first time under TCG made this step 3-17 ms
 * of the first answer after boot (0.3-0.6 ms after).
 */
static void word(const char *s, char *out, size_t len)
{
	size_t n = 0;

	while (isspace((unsigned char)*s))
		s++;
	while (s[n] && !isspace((unsigned char)s[n]) && n + 1 < len)
		n++;
	memcpy(out, s, n);
	out[n] = '\0';
}

static void vmcoreinfo_line(const char *l, struct fgt_vmcoreinfo *vi)
{
	static const struct { const char *key; size_t off; } syms[] = {
		{ "SYMBOL(kallsyms_names)=", offsetof(struct fgt_vmcoreinfo, names) },
		{ "SYMBOL(kallsyms_num_syms)=", offsetof(struct fgt_vmcoreinfo, num_syms) },
		{ "SYMBOL(kallsyms_token_table)=", offsetof(struct fgt_vmcoreinfo, token_table) },
		{ "SYMBOL(kallsyms_token_index)=", offsetof(struct fgt_vmcoreinfo, token_index) },
		{ "SYMBOL(kallsyms_offsets)=", offsetof(struct fgt_vmcoreinfo, offsets) },
		{ "SYMBOL(kallsyms_relative_base)=", offsetof(struct fgt_vmcoreinfo, relative_base) },
		{ "SYMBOL(_stext)=", offsetof(struct fgt_vmcoreinfo, stext) },
	};

	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (!strncmp(l, syms[i].key, strlen(syms[i].key))) {
			*(uint64_t *)((char *)vi + syms[i].off) =
				strtoull(l + strlen(syms[i].key), NULL, 16);
			return;
		}
	if (!strncmp(l, "OSRELEASE=", 10))
		word(l + 10, vi->osrelease, sizeof(vi->osrelease));
	else if (!strncmp(l, "BUILD-ID=", 9))
		word(l + 9, vi->build_id, sizeof(vi->build_id));
}

int fgt_kimage_vmcoreinfo(const struct fgt_kimage *im, struct fgt_vmcoreinfo *vi)
{
	size_t len = im->note_len < NOTE_MAX ? im->note_len : NOTE_MAX, p = 0;
	uint8_t *buf;
	int ret = -1;

	memset(vi, 0, sizeof(*vi));
	if (im->fd < 0 || !len || !(buf = malloc(len + 1)))
		return -1;
	if (kio_pread(im->fd, buf, len, im->note_off, &fgt_kio) != (ssize_t)len)
		goto out;
	buf[len] = '\0';
	while (p + sizeof(Elf64_Nhdr) <= len) {
		const Elf64_Nhdr *nh = (const Elf64_Nhdr *)(buf + p);
		uint64_t name = p + sizeof(*nh), desc = name + (((uint64_t)nh->n_namesz + 3) & ~3ull);
		uint64_t end = desc + (((uint64_t)nh->n_descsz + 3) & ~3ull);

		/* 64-bit sums of 32-bit fields and a 256 KiB buffer: no wrap */
		if (end > len || end <= p)
			break;
		if (nh->n_namesz == sizeof("VMCOREINFO") && !memcmp(buf + name, "VMCOREINFO", 10)) {
			char *text = (char *)buf + desc, *l, *save = NULL;

			text[nh->n_descsz] = '\0';	/* the padding, or buf[len] */
			for (l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
				vmcoreinfo_line(l, vi);
			ret = vi->names && vi->num_syms && vi->token_table && vi->token_index &&
			      vi->offsets && vi->stext ? 0 : -1;
			break;
		}
		p = end;
	}
out:
	free(buf);
	return ret;
}

int fgt_kimage_write_core(const struct fgt_kimage *im, const struct fgt_vmcoreinfo *vi, FILE *f)
{
	char info[1024];
	int n = snprintf(info, sizeof(info),
			 "OSRELEASE=fake\nSYMBOL(_stext)=%" PRIx64 "\n"
			 "SYMBOL(kallsyms_names)=%" PRIx64 "\nSYMBOL(kallsyms_num_syms)=%" PRIx64 "\n"
			 "SYMBOL(kallsyms_token_table)=%" PRIx64 "\nSYMBOL(kallsyms_token_index)=%" PRIx64 "\n"
			 "SYMBOL(kallsyms_offsets)=%" PRIx64 "\n",
			 vi->stext, vi->names, vi->num_syms, vi->token_table, vi->token_index, vi->offsets);
	Elf64_Ehdr eh = { .e_type = ET_CORE, .e_machine = fgt_arch_facts[im->arch].elf_machine,
			  .e_version = EV_CURRENT, .e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr) };
	Elf64_Nhdr nh = { .n_namesz = sizeof("VMCOREINFO"), .n_type = 0 };
	uint64_t off, note_len;
	static const char zero[8];

	if (vi->relative_base)
		n += snprintf(info + n, sizeof(info) - (size_t)n, "SYMBOL(kallsyms_relative_base)=%" PRIx64 "\n",
			      vi->relative_base);
	nh.n_descsz = (Elf64_Word)n;
	note_len = sizeof(nh) + 12 + (((size_t)n + 3) & ~3u);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_phnum = (Elf64_Half)(im->nr_segs + 1);
	fwrite(&eh, sizeof(eh), 1, f);
	off = sizeof(eh) + eh.e_phnum * sizeof(Elf64_Phdr);
	{
		Elf64_Phdr ph = { .p_type = PT_NOTE, .p_offset = off, .p_filesz = note_len };

		fwrite(&ph, sizeof(ph), 1, f);
	}
	off += note_len;
	for (unsigned int i = 0; i < im->nr_segs; i++) {
		Elf64_Phdr ph = { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = off,
				  .p_vaddr = im->seg[i].vaddr, .p_filesz = im->seg[i].filesz,
				  .p_memsz = im->seg[i].filesz };

		fwrite(&ph, sizeof(ph), 1, f);
		off += im->seg[i].filesz;
	}
	fwrite(&nh, sizeof(nh), 1, f);
	fwrite("VMCOREINFO\0\0", 12, 1, f);
	fwrite(info, 1, (size_t)n, f);
	fwrite(zero, 1, (((size_t)n + 3) & ~3u) - (size_t)n, f);
	for (unsigned int i = 0; i < im->nr_segs; i++) {
		static uint8_t chunk[64 << 10];

		for (uint64_t o = 0; o < im->seg[i].filesz; o += sizeof(chunk)) {
			size_t n = im->seg[i].filesz - o < sizeof(chunk) ? im->seg[i].filesz - o :
									   sizeof(chunk);

			if (fgt_kimage_read(im, im->seg[i].vaddr + o, chunk, n))
				return -EIO;
			fwrite(chunk, 1, n, f);
		}
	}
	return ferror(f) ? -EIO : 0;
}

/* ---- BTF: just task_struct::ret_stack ----------------------------------------- */

enum {
	BTF_INT = 1, BTF_PTR, BTF_ARRAY, BTF_STRUCT, BTF_UNION, BTF_ENUM, BTF_FWD, BTF_TYPEDEF,
	BTF_VOLATILE, BTF_CONST, BTF_RESTRICT, BTF_FUNC, BTF_FUNC_PROTO, BTF_VAR, BTF_DATASEC,
	BTF_FLOAT, BTF_DECL_TAG, BTF_TYPE_TAG, BTF_ENUM64,
};

/*
 * A section of the BTF (types, strings), read as far as the walk needs it: a
 * growing prefix. In memory (a .BTF section) it is all there at once.
 */
struct btf_win {
	const uint8_t *p;		/* the prefix read so far */
	uint8_t *buf;			/* owned, when read through rd */
	uint32_t have, len;		/* bytes in p, bytes in the section */
	uint64_t at;			/* the section's offset in the BTF */
};

struct btf_view {
	struct btf_win types, strs;
	fgt_btf_read_fn rd;		/* NULL: all in memory */
	void *arg;
	uint32_t *off;			/* of type id i (1-based) in types */
	uint32_t n, cap;		/* ids walked so far; room in off */
	uint32_t next;			/* where the record after id n starts */
	bool broken;			/* a record overran its section, or a read failed */
};

/*
 * At least the first end bytes of w (clamped to its length), doubling what is
 * read: Debian's task_struct is type 112-192 and its ret_stack resolves within
 * the first 34 KiB of 2.5-2.9 MiB of types, so the walk reads 64 KiB and the
 * first 8 KiB of the strings, where reading all of /sys/kernel/btf/vmlinux
 * (4.3 MiB, a page per read) took 45-59 ms under TCG (debian-6.1).
 */
static bool btf_need(struct btf_view *v, struct btf_win *w, uint64_t end)
{
	uint32_t want;
	uint8_t *nb;

	if (end > w->len)
		end = w->len;
	if (end <= w->have)
		return true;
	if (!v->rd)
		return false;
	want = w->have ? w->have : 4096;
	while (want < end)
		want = want > w->len / 2 ? w->len : want * 2;
	if (want > w->len)
		want = w->len;
	nb = realloc(w->buf, want);
	if (!nb)
		return false;
	w->buf = nb;
	w->p = nb;
	if (v->rd(v->arg, w->at + w->have, nb + w->have, want - w->have))
		return false;
	w->have = want;
	return true;
}

/* A type record's length: 12 bytes and what its kind appends (include/uapi/linux/btf.h). */
static int64_t btf_rec_len(const uint8_t *t)
{
	uint32_t info = le32(t + 4), vlen = info & 0xffff;

	switch ((info >> 24) & 0x1f) {
	case BTF_INT: case BTF_VAR: case BTF_DECL_TAG:
		return 16;
	case BTF_ARRAY:
		return 24;
	case BTF_STRUCT: case BTF_UNION: case BTF_DATASEC: case BTF_ENUM64:
		return 12 + 12 * (int64_t)vlen;
	case BTF_ENUM: case BTF_FUNC_PROTO:
		return 12 + 8 * (int64_t)vlen;
	case BTF_PTR: case BTF_FWD: case BTF_TYPEDEF: case BTF_VOLATILE: case BTF_CONST:
	case BTF_RESTRICT: case BTF_FUNC: case BTF_FLOAT: case BTF_TYPE_TAG:
		return 12;
	}
	return -1;
}

/* One more type walked (its record read whole): false at the end or when broken. */
static bool btf_walk(struct btf_view *v)
{
	uint32_t o = v->next, *no;
	int64_t l;

	if (v->broken || !fgt_in_range(o, 12, v->types.len))
		return false;
	if (v->n + 1 >= v->cap) {
		no = realloc(v->off, (v->cap * 2 + 2) * sizeof(*no));
		if (!no)
			goto broken;
		v->off = no;
		v->cap = v->cap * 2 + 2;
	}
	if (!btf_need(v, &v->types, (uint64_t)o + 12))
		goto broken;
	l = btf_rec_len(v->types.p + o);
	if (l < 0 || !fgt_in_range(o, (uint64_t)l, v->types.len) ||
	    !btf_need(v, &v->types, (uint64_t)o + l))
		goto broken;
	v->off[++v->n] = o;
	v->next = o + (uint32_t)l;
	return true;
broken:
	v->broken = true;
	return false;
}

static bool btf_name_is(struct btf_view *v, uint32_t off, const char *name)
{
	size_t n = strlen(name);

	return off < v->strs.len && v->strs.len - off > n &&
	       btf_need(v, &v->strs, (uint64_t)off + n + 1) && !memcmp(v->strs.p + off, name, n + 1);
}

/* Type id's record, valid until the next call (the prefix may move). */
static const uint8_t *btf_type(struct btf_view *v, uint32_t id)
{
	while (id > v->n && btf_walk(v))
		;
	return id && id <= v->n ? v->types.p + v->off[id] : NULL;
}

/* Past typedefs and qualifiers. */
static const uint8_t *btf_skip(struct btf_view *v, const uint8_t *t)
{
	for (int i = 0; t && i < 16; i++) {
		uint32_t kind = (le32(t + 4) >> 24) & 0x1f;

		if (kind != BTF_TYPEDEF && kind != BTF_VOLATILE && kind != BTF_CONST &&
		    kind != BTF_RESTRICT && kind != BTF_TYPE_TAG)
			return t;
		t = btf_type(v, le32(t + 8));
	}
	return NULL;
}

/* What ret_stack (of type id) points to. */
static int btf_ret_stack_type(struct btf_view *v, uint32_t id, struct fgt_btf_stack *out)
{
	const uint8_t *mt = btf_skip(v, btf_type(v, id));

	if (!mt || ((le32(mt + 4) >> 24) & 0x1f) != BTF_PTR)
		return -1;
	mt = btf_skip(v, btf_type(v, le32(mt + 8)));
	if (!mt)
		return -1;
	fgt_btf_stack_of(out, ((le32(mt + 4) >> 24) & 0x1f) == BTF_STRUCT, le32(mt + 8));
	return 0;
}

/* Does a name hold word (the name read within the strings section)? */
static bool btf_name_has(struct btf_view *v, uint32_t off, const char *word)
{
	size_t n;

	if (off >= v->strs.len || !btf_need(v, &v->strs, off + 1))
		return false;
	/* at most 128 bytes of the name: a member's is far shorter */
	n = v->strs.len - off < 128 ? v->strs.len - off : 128;
	if (!btf_need(v, &v->strs, (uint64_t)off + n))
		return false;
	return memmem(v->strs.p + off, strnlen((const char *)v->strs.p + off, n), word,
		      strlen(word)) != NULL;
}

/*
 * A task_struct member shaped as fgraph's shadow stack, whatever its name:
 * one whose name holds "ret_stack" (curr_ret_stack), or a pointer to the
 * old frame array's struct ftrace_ret_stack or to unsigned long (6.11 on:
 * no other task_struct member is an unsigned long pointer).
 */
static bool btf_shaped(struct btf_view *v, uint32_t name, uint32_t type)
{
	const uint8_t *mt = btf_skip(v, btf_type(v, type));

	if (btf_name_has(v, name, "ret_stack"))
		return true;
	if (!mt || ((le32(mt + 4) >> 24) & 0x1f) != BTF_PTR)
		return false;
	mt = btf_skip(v, btf_type(v, le32(mt + 8)));
	if (!mt)
		return false;
	return (((le32(mt + 4) >> 24) & 0x1f) == BTF_STRUCT &&
		btf_name_is(v, le32(mt), "ftrace_ret_stack")) ||
	       (((le32(mt + 4) >> 24) & 0x1f) == BTF_INT &&
		btf_name_is(v, le32(mt), "unsigned long"));
}

/* The first struct task_struct, its ret_stack member. */
static int btf_find(struct btf_view *v, struct fgt_btf_stack *out)
{
	for (uint32_t id = 1; btf_type(v, id); id++) {
		uint32_t o = v->off[id], info = le32(v->types.p + o + 4);

		if (((info >> 24) & 0x1f) != BTF_STRUCT ||
		    !btf_name_is(v, le32(v->types.p + o), "task_struct"))
			continue;
		/* members by offset: resolving a type may move the prefix */
		for (uint32_t k = 0, m = o + 12; k < (info & 0xffff); k++, m += 12) {
			/* the member's offset in bits (the low 24 with kind_flag) */
			uint32_t bits = le32(v->types.p + m + 8);

			bits = info >> 31 ? bits & 0xffffff : bits;
			if (btf_name_is(v, le32(v->types.p + m), "tasks"))
				out->tasks_off = bits / 8;
			if (btf_name_is(v, le32(v->types.p + m), "ret_stack")) {
				out->off = bits / 8;
				return btf_ret_stack_type(v, le32(v->types.p + m + 4), out);
			}
		}
		/* task_struct without ret_stack: no fgraph, unless a member has
		 * its shape (issue 40: a renamed one must not clear a kernel) */
		for (uint32_t k = 0, m = o + 12; k < (info & 0xffff); k++, m += 12)
			if (btf_shaped(v, le32(v->types.p + m), le32(v->types.p + m + 4)))
				out->shaped = true;
		return 1;
	}
	return -1;
}

static int btf_ret_stack(struct btf_view *v, const uint8_t *b, uint64_t len,
			 struct fgt_btf_stack *out)
{
	uint32_t hdr;
	int ret;

	if (len < 24 || b[0] != 0x9f || b[1] != 0xeb || b[2] != 1)
		return -1;
	hdr = le32(b + 4);
	if ((uint64_t)hdr + le32(b + 8) + le32(b + 12) > len || (uint64_t)hdr + le32(b + 16) + le32(b + 20) > len)
		return -1;
	v->types.at = (uint64_t)hdr + le32(b + 8);
	v->types.len = le32(b + 12);
	v->strs.at = (uint64_t)hdr + le32(b + 16);
	v->strs.len = le32(b + 20);
	if (!v->rd) {
		v->types.p = b + v->types.at;
		v->strs.p = b + v->strs.at;
		v->types.have = v->types.len;
		v->strs.have = v->strs.len;
	}
	memset(out, 0, sizeof(*out));
	ret = btf_find(v, out);
	free(v->off);
	free(v->types.buf);
	free(v->strs.buf);
	return ret;
}

int fgt_btf_ret_stack(const void *btf, size_t len, struct fgt_btf_stack *out)
{
	struct btf_view v = {};

	return btf_ret_stack(&v, btf, len, out);
}

int fgt_btf_ret_stack_read(fgt_btf_read_fn rd, void *arg, uint64_t len, struct fgt_btf_stack *out)
{
	struct btf_view v = { .rd = rd, .arg = arg };
	uint8_t hdr[24];

	if (len < sizeof(hdr) || rd(arg, 0, hdr, sizeof(hdr)))
		return -1;
	return btf_ret_stack(&v, hdr, len, out);
}

/* ---- what kernel a file is ----------------------------------------------------- */

/*
 * The release a banner names, from the bytes after its FGT_BANNER: the
 * first word, if it is one (UTS_RELEASE begins with the version's digit:
 * "6.12.0-..."). true when it names one. What is parsed is a bounded,
 * NUL-ended copy: word() reads to a NUL.
 */
static bool banner_release(const uint8_t *p, size_t n, char *release, size_t rlen)
{
	char buf[80], rel[65];

	n = n < sizeof(buf) - 1 ? n : sizeof(buf) - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	word(buf, rel, sizeof(rel));
	if (!isdigit((unsigned char)rel[0]))
		return false;
	/* a release is made of these (scripts/setlocalversion, LOCALVERSION):
	 * anything else, a control byte above all, is no release to print */
	for (const char *q = rel; *q; q++)
		if (!isalnum((unsigned char)*q) && !strchr(".-_+~", *q))
			return false;
	snprintf(release, rlen, "%s", rel);
	return true;
}

/*
 * The banner by its words, where no symbol names it (kallsyms tables of
 * text only: no linux_banner): the first FGT_BANNER in p that names a
 * release. Each match moves the search past it: linear in n.
 */
static bool banner_search(const uint8_t *p, size_t n, char *release, size_t rlen)
{
	const uint8_t *b;

	while (p && n >= BANNER_LEN && (b = memmem(p, n, FGT_BANNER, BANNER_LEN))) {
		n -= (size_t)(b - p) + BANNER_LEN;
		p = b + BANNER_LEN;
		if (banner_release(p, n, release, rlen))
			return true;
	}
	return false;
}

/* The release of linux_banner: by its symbol, else by its words in a raw
 * image, or in an ELF file's .rodata (where init/version.c puts it). */
static void ident_release(const struct fgt_kimage *im, const struct fgt_ksyms *ks,
			  char *release, size_t rlen)
{
	const struct fgt_ksym *banner = ks ? fgt_ksyms_by_name(ks, FGT_BANNER_SYM) : NULL;
	uint8_t buf[BANNER_LEN + 64];
	const void *ro;
	size_t len = 0;

	if (banner && !fgt_kimage_read(im, banner->addr, buf, sizeof(buf)) &&
	    !memcmp(buf, FGT_BANNER, BANNER_LEN) &&
	    banner_release(buf + BANNER_LEN, sizeof(buf) - BANNER_LEN, release, rlen))
		return;
	if (!im->elf && im->data) {
		banner_search(im->data, im->size, release, rlen);
		return;
	}
	ro = im->elf ? fgt_kimage_section(im, ".rodata", &len) : NULL;
	banner_search(ro, len, release, rlen);
}

void fgt_kimage_ident(const struct fgt_kimage *im, const struct fgt_ksyms *ks,
		      char *release, size_t rlen, char *build_id, size_t blen)
{
	const void *n;
	size_t len = 0;

	release[0] = build_id[0] = '\0';
	ident_release(im, ks, release, rlen);
	n = fgt_kimage_section(im, ".notes", &len);
	if (!n)
		n = fgt_kimage_section(im, ".note.gnu.build-id", &len);
	/* the same parser as /sys/kernel/notes' (src/host/kernel_id.c) */
	if (n && fgt_build_id_parse(n, len, build_id, blen))
		build_id[0] = '\0';
}

/* ---- IKCONFIG ------------------------------------------------------------------ */

#define IKCONFIG_MAX	(4u << 20)	/* a .config (Debian's: 250-300 KiB) */

/* Is "OPTION=y" or "=m" a line of cfg? */
static bool config_has(const char *cfg, size_t len, const char *option)
{
	size_t ol = strlen(option);

	for (const char *l = cfg, *end = cfg + len; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t ll = nl ? (size_t)(nl - l) : (size_t)(end - l);

		if (ll == ol + 2 && !memcmp(l, option, ol) && l[ol] == '=' &&
		    (l[ol + 1] == 'y' || l[ol + 1] == 'm'))
			return true;
		l += ll + 1;
	}
	return false;
}

int fgt_kimage_ikconfig(const struct fgt_kimage *im, const char *option)
{
	static const char start[] = "IKCFG_ST";
	const uint8_t *d, *at;
	size_t len = 0, got = 0;
	uint64_t va;
	z_stream z = {};
	uint8_t *out;
	int ret = -1, zr;

	d = fgt_kimage_section_va(im, ".rodata", &len, &va);
	if (!d && im->data) {
		d = im->data;
		len = im->size;
	}
	/* kernel/configs.c: "IKCFG_ST", the gzip'd .config, "IKCFG_ED" */
	at = d ? memmem(d, len, start, sizeof(start) - 1) : NULL;
	if (!at)
		return -2;
	at += sizeof(start) - 1;
	out = malloc(IKCONFIG_MAX);
	if (!out || inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		free(out);
		return -1;
	}
	z.next_in = (Bytef *)at;
	z.avail_in = (uInt)((size_t)(d + len - at) < UINT32_MAX ? (size_t)(d + len - at) : UINT32_MAX);
	z.next_out = out;
	z.avail_out = IKCONFIG_MAX;
	/* one call: the output is capped, so is the time */
	zr = inflate(&z, Z_FINISH);
	got = z.total_out;
	inflateEnd(&z);
	if (zr == Z_STREAM_END && got && memmem(out, got, "CONFIG_", 7))
		ret = config_has((const char *)out, got, option);
	free(out);
	return ret;
}
