/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hostile kernel files for check --kernel, made at test time: one builder per
 * class of bad input (issue 20), used by tests/static/test_kimage_bad.c, by
 * fgt-kimage-gen (the files for tests/kimage-bad.py) and as seeds of the
 * kimage fuzzer. Nothing here is a committed binary.
 */
#ifndef FGT_KIMAGE_GEN_H
#define FGT_KIMAGE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kgen_buf {
	uint8_t *p;
	size_t len;
};

/* the kernel's seven (scripts/Makefile.lib): lz4 as lz4 -l writes it (the
 * legacy format, 8 MiB blocks), lzo as lzop does (64 KiB blocks here, so
 * that a test payload has several; lzop's own are 256 KiB) */
enum kgen_codec { KGEN_GZIP, KGEN_XZ, KGEN_LZMA, KGEN_ZSTD, KGEN_BZIP2, KGEN_LZ4, KGEN_LZO,
		  KGEN__NR };

const char *kgen_codec_name(enum kgen_codec c);

/* A minimal x86-64 kernel-like ELF: an executable PT_LOAD at a kernel address
 * (.text), a .rodata of rodata_len bytes (rodata, or zeros), and a .symtab
 * of the nsyms names given (all at .text), padded to at least min_len. */
void kgen_elf(struct kgen_buf *b, const char *const *syms, size_t nsyms, const uint8_t *rodata,
	      size_t rodata_len, size_t min_len);
/* The ELF whose PT_LOAD's p_offset + p_filesz wraps past 2^64. */
void kgen_elf_wrap_phdr(struct kgen_buf *b);
/* The ELF whose e_phoff + e_phnum * 56 wraps past 2^64. */
void kgen_elf_wrap_phoff(struct kgen_buf *b);
/* payload compressed with c inside a bzImage header (boot protocol 2.15),
 * claiming claimed decompressed bytes (0: the payload's real size). */
void kgen_bzimage(struct kgen_buf *b, const struct kgen_buf *payload, enum kgen_codec c,
		  uint32_t claimed);
/* zstd of n zero bytes, in a bzImage claiming n: a decompression bomb. */
void kgen_zstd_bomb(struct kgen_buf *b, size_t n);
/*
 * A .rodata the kallsyms search pays the most for: an increasing u32 run of
 * n entries (every one a markers[] candidate, each walking back to the
 * start) before a token table and index that are real in form.
 */
void kgen_kallsyms_worst(struct kgen_buf *rodata, size_t n);

/* The same ELF as an arm64 vmlinux (EM_AARCH64). */
void kgen_elf_arm64(struct kgen_buf *b, const char *const *syms, size_t nsyms, size_t min_len);
/*
 * An arm64 Image (arch/arm64/kernel/head.S's 64-byte header, the magic
 * "ARM\x64" at 56, big-endian when be) followed by body (NULL: zeros), at
 * least min_len bytes.
 */
void kgen_a64_image(struct kgen_buf *b, const uint8_t *body, size_t body_len, size_t min_len,
		    int be);
/* payload gzip'd, as an Image.gz. */
void kgen_gzip(struct kgen_buf *b, const struct kgen_buf *payload);
/*
 * An EFI zboot image (drivers/firmware/efi/libstub/zboot-header.S) of
 * payload compressed with c (gzip or zstd, the latter with its size after
 * the payload), naming comp as its compression; truncated: the payload
 * offset points past the end of the file.
 */
void kgen_zboot(struct kgen_buf *b, const struct kgen_buf *payload, enum kgen_codec c,
		const char *comp, int truncated);

/*
 * Issue 40's crafted files, each once an all-clear (status 0): a kernel-like
 * ELF that is plainly a kernel (its banner at linux_banner, start_kernel,
 * schedule, do_exit and panic in its text between _stext and _etext, 1,000
 * more names) and has no fgraph (KG40_PLAIN: "not affected", the control),
 * then one change each.
 */
enum kgen40 {
	KG40_PLAIN,
	/* 1. register_ftrace_graph present in .symtab, and not usable */
	KG40_REG_ZERO, KG40_REG_LOW, KG40_REG_UNDEF, KG40_REG_RESERVED,
	/* 2. another sign of fgraph */
	KG40_INIT_TASK, KG40_RETURN_TO_HANDLER, KG40_GRAPH_ACTIVE, KG40_RET_STACK_NAME,
	/* 3. not a kernel: the names, _stext/_etext and a banner only */
	KG40_NOT_KERNEL,
	/* 6. two PT_LOAD segments over the same addresses */
	KG40_OVERLAP,
	/* 7. a banner whose release holds an escape sequence and a newline */
	KG40_BANNER_ESC,
	/* 5. no .symtab; kallsyms tables whose register_ftrace_graph entry is
	 * one place out of address order */
	KG40_KALLSYMS_ORDER,
	KG40__NR
};

const char *kgen40_name(enum kgen40 k);
/*
 * Issue 40, class 4: the plain kernel with register_ftrace_graph (a few
 * instructions of its own) and an alloc_retstack_tasklist beside it that
 * register_ftrace_graph calls when reached, else never: a function planted
 * under the sweep's name is not the sweep unless the register reaches it.
 */
void kgen40_planted(struct kgen_buf *b, bool reached);
/* What check --kernel must say of it: a part of its one line. */
const char *kgen40_line(enum kgen40 k);
void kgen40(struct kgen_buf *b, enum kgen40 k);

/*
 * kallsyms tables as scripts/kallsyms.c writes them for 6.12 (num_syms,
 * names, markers, token_table, token_index, offsets, relative_base), for
 * n symbols in the order given (their addresses base + a 32-bit offset):
 * the tokens are single characters, so names are spelled out. At least 769
 * symbols (4 markers). For a .rodata at an 8-aligned place.
 */
struct kgen_ksym {
	uint64_t addr;
	char type;
	const char *name;
};
void kgen_kallsyms(struct kgen_buf *b, const struct kgen_ksym *s, size_t n, uint64_t base);

/* A Debian package (ar: debian-binary, control.tar.xz, data.tar.xz, as
 * dpkg-deb builds one) whose data holds content as member ("./boot/vmlinuz-R";
 * NULL: a ./usr/share/doc file only), through libarchive's writer. */
void kgen_deb(struct kgen_buf *b, const char *member, const struct kgen_buf *content);

/* Write b to path: 0 or -1. */
int kgen_write(const struct kgen_buf *b, const char *path);
void kgen_free(struct kgen_buf *b);

#endif
