// SPDX-License-Identifier: GPL-2.0
/*
 * Boot images (src/static/kimage_boot.h): the bzImage header and the arm64
 * Image header read by hand within fgt_in_range(), their payloads through
 * kimage_codec.c, the ELF inside through kimage_elf.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem, fopencookie */
#endif
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "static/kimage.h"
#include "static/kimage_codec.h"
#include "static/kimage_deb.h"
#include "static/kimage_elf.h"
#include "static/kimage_boot.h"

/* ---- bzImage ---------------------------------------------------------------- */

/* Documentation/arch/x86/boot.rst: the real-mode header. */
#define BZ_SETUP_SECTS	0x1f1
#define BZ_MAGIC	0x202		/* "HdrS" */
#define BZ_VERSION	0x206
#define BZ_PAYLOAD_OFF	0x248		/* protocol 2.08+ */
#define BZ_PAYLOAD_LEN	0x24c
#define BZ_HEADER_END	0x268		/* what is read of it, with init_size (2.10+) */

/*
 * The decompressed size the build appends (arch/x86/boot/compressed/Makefile,
 * size_append), bounded three ways: by the global cap, by the ratio to the
 * compressed size, and by the header's own init_size (boot protocol 2.10+:
 * the memory the kernel needs to boot, which holds the decompressed image).
 */
static int payload_size(const uint8_t *d, uint16_t version, const uint8_t *p, uint64_t plen,
			const char *path, uint64_t *out_len, char *msg, size_t len)
{
	uint64_t init_size = version >= 0x20a ? fgt_le32(d + 0x260) : 0;

	*out_len = fgt_le32(p + plen - 4);
	if (*out_len < 4096 || *out_len > FGT_KIMAGE_MAX_PAYLOAD ||
	    *out_len / FGT_KIMAGE_MAX_RATIO > plen || (init_size && *out_len > init_size)) {
		snprintf(msg, len, "%s: implausible decompressed size %" PRIu64 " (from %" PRIu64
			 " compressed bytes; init_size %" PRIu64 ", cap %llu MiB)", path, *out_len,
			 plen, init_size, FGT_KIMAGE_MAX_PAYLOAD >> 20);
		return FGT_SW_NOT_KERNEL;
	}
	return 0;
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
	off = (uint64_t)(setup + 1) * 512 + fgt_le32(d + BZ_PAYLOAD_OFF);
	plen = fgt_le32(d + BZ_PAYLOAD_LEN);
	if (plen < 16 || !fgt_in_range(off, plen, size)) {
		snprintf(msg, len, "%s: truncated bzImage (payload past the end of the file)", path);
		return FGT_SW_NOT_KERNEL;
	}
	p = d + off;
	c = fgt_codec_of(p, plen);
	if (!c) {
		snprintf(msg, len, "%s: a bzImage whose payload is in no compression format known here",
			 path);
		return FGT_SW_NOT_KERNEL;
	}
	ret = payload_size(d, version, p, plen, path, &out_len, msg, len);
	if (ret)
		return ret;
	ret = fgt_inflate_payload(im, c, p, plen, out_len, false, &out, path, msg, len);
	if (ret)
		return ret;
	im->heap = out;
	ret = fgt_kimage_open_elf(im, out, out_len, path, msg, len);
	if (!ret)
		snprintf(im->desc, sizeof(im->desc), "bzImage %s (%s)", path, c->name);
	return ret;
}

/* ---- arm64 Image ------------------------------------------------------------- */

/*
 * arch/arm64/kernel/head.S: code0, code1, text_offset, image_size, flags
 * (bit 0: big-endian), three reserved, the magic (fgt_arch_facts), the PE
 * header's offset: 64 bytes, the size of an ELF header too.
 */
#define A64_FLAGS	24
#define A64_FLAG_BE	1u

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
 * (src/host/kbtf.c) checks what is inside as it does a file's.
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
		toff = fgt_le32(d + o + 8);
		tlen = fgt_le32(d + o + 12);
		soff = fgt_le32(d + o + 16);
		slen = fgt_le32(d + o + 20);
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
	uint64_t pe = fgt_le32(d + 60), base;

	/* "PE\0\0", the COFF header (20 bytes), the optional header's first 24 */
	if (memcmp(d, "MZ", 2) || !fgt_in_range(pe, 4 + 20 + 24, size) || memcmp(d + pe, "PE\0\0", 4))
		return 0;
	base = fgt_le32(d + pe + 4 + 20 + 20);	/* BaseOfCode */
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
	if (!fgt_is_a64_image(buf, size)) {
		snprintf(msg, len, "%s: %s, but what it holds is not an arm64 Image", path, kind);
		return FGT_SW_NOT_KERNEL;
	}
	if (fgt_le32(buf + A64_FLAGS) & A64_FLAG_BE) {
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
	ret = fgt_inflate_payload(im, c, p, plen, out_len, true, &out, path, msg, len);
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
	uint64_t off = fgt_le32(d + ZB_OFF), plen = fgt_le32(d + ZB_SIZE), out_len;
	char comp[ZB_COMP_LEN + 1];
	const struct codec *c;

	memcpy(comp, d + ZB_COMP, ZB_COMP_LEN);
	comp[ZB_COMP_LEN] = '\0';
	if (plen < 16 || !fgt_in_range(off, plen, size)) {
		snprintf(msg, len, "%s: truncated EFI zboot image (payload past the end of the file)",
			 path);
		return FGT_SW_NOT_KERNEL;
	}
	c = fgt_codec_of(d + off, plen);
	if (!c || strncmp(comp, c->id == C_XZ ? "xzkern" : c->name, ZB_COMP_LEN)) {
		snprintf(msg, len, "%s: an EFI zboot image whose payload is not the %.8s it says",
			 path, comp);
		return FGT_SW_NOT_KERNEL;
	}
	if (c->id == C_GZIP) {
		out_len = fgt_le32(d + off + plen - 4);
	} else if (fgt_in_range(off + plen, 4, size)) {
		out_len = fgt_le32(d + off + plen);
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
	return open_a64_packed(im, &fgt_codecs[0], d, size, fgt_le32(d + size - 4), path,
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
	       fgt_is_a64_image(head, n) ? FK_A64 :
	       !memcmp(head, "MZ", 2) && !memcmp(head + 4, "zimg", 4) ? FK_ZBOOT :
	       head[0] == 0x1f && head[1] == 0x8b ? FK_GZIP : -1;
}

/*
 * A kernel package (.deb): its vmlinuz, read out of the data member by
 * libarchive (src/static/kimage_deb.c), opened as the boot image it is.
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

	fgt_kimage_init(im, stop);
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
	if (!fgt_is_elf_magic(head, sizeof(head))) {
		snprintf(msg, len, "%s: not a kernel image (neither a vmlinux, a bzImage nor an "
			 "arm64 Image)", path);
		close(fd);
		return FGT_SW_NOT_KERNEL;
	}
	if (!fgt_elf_counts_ok(head, sizeof(head), path, msg, len)) {
		close(fd);
		return FGT_SW_NOT_KERNEL;
	}
	/* a vmlinux: libelf reads what is asked for, when asked (ELF_C_READ
	 * neither maps nor reads the file whole: a debug vmlinux is 0.5-1 GiB) */
	im->fd = fd;
	im->file_size = size;
	if (!fgt_libelf_ready() || !(im->elf = elf_begin(fd, ELF_C_READ, NULL))) {
		snprintf(msg, len, "%s: not an x86-64 or arm64 ELF file", path);
		fgt_kimage_close(im);
		return FGT_SW_NOT_KERNEL;
	}
	err = fgt_kernel_elf(im, path, msg, len);
	if (err) {
		fgt_kimage_close(im);
		return err;
	}
	snprintf(im->desc, sizeof(im->desc), "vmlinux %s", path);
	return 0;
}
