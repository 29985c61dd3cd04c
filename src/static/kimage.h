/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel text and symbols for the static verdict (src/static/static_kernel.c),
 * read by the kimage units (this header's core, kimage.c, and the units
 * beside it: kimage_elf, _codec, _boot, _deb, _kcore, _syms, _kallsyms,
 * _btf, _ident), from:
 *  - the running kernel: /proc/kcore (an ELF core file whose PT_LOAD segments
 *    are kernel virtual addresses, KASLR included) and /proc/kallsyms;
 *  - a kernel file: an x86-64 or arm64 vmlinux (ELF), an arm64 Image (raw,
 *    gzip'd, or in an EFI zboot image), or a bzImage, whose payload is
 *    that ELF compressed (gzip, xz, lzma, zstd, bzip2, lz4, lzo: Debian's
 *    are xz up to 6.1, zstd since, lz4 for 5.10's and 6.1's cloud flavour;
 *    the lab's gzip); or a kernel package (.deb) holding one. Its symbols come from, in this order: a
 *    System.map given with it, the ELF's .symtab, or the kallsyms tables the
 *    kernel carries in its .rodata (CONFIG_KALLSYMS: every distribution
 *    kernel), which is what makes a distribution's vmlinuz usable alone
 *    where its System.map is a placeholder (Debian's says "The real
 *    System.map is in the linux-image-<version>-dbg package").
 *
 * Every bad input is one line in msg and an enum fgt_static_why.
 */
#ifndef FGT_STATIC_KIMAGE_H
#define FGT_STATIC_KIMAGE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "common/bytes.h"
#include "host/ksyms.h"
#include "static/static_types.h"

#define FGT_KIMAGE_MAX_SEGS	64

/*
 * The caps on what one kernel file may cost (docs/static.md, "Limits"). A
 * file is untrusted input: each is far above any real kernel's figure and
 * keeps a hostile one to bounded memory and time.
 */
#define FGT_KIMAGE_MAX_BZIMAGE	(256ull << 20)	/* a bzImage read whole (Debian's: 8-12 MiB) */

#define FGT_KIMAGE_MAX_PAYLOAD	(256ull << 20)	/* its decompressed vmlinux (Debian's: 40-70 MiB) */

#define FGT_KIMAGE_MAX_RATIO	32		/* decompressed / compressed (Debian 6.1-7.2: 4.4-8.1) */

#define FGT_KIMAGE_MAX_SECTION	(256ull << 20)	/* one ELF section read (.rodata, .symtab) */

#define FGT_KIMAGE_MAX_SYMS	(4u << 20)	/* symbols in .symtab (Debian 7.2: 199k in kallsyms) */

#define FGT_KIMAGE_MAX_MAP	(128ull << 20)	/* a System.map (Debian's real one: 5-9 MiB) */
#define FGT_MAP_PLACEHOLDER_MAX	4096	/* Debian's placeholder System.map: 83-92 bytes */

/* the kallsyms search: steps per byte of .rodata, beyond a floor (Debian
 * 6.1-7.2's own tables: 173k-244k steps in 4.6-8.1 MB, 16x under the floor) */
#define FGT_KALLSYMS_WORK_PER_BYTE	2

#define FGT_KALLSYMS_WORK_FLOOR		(4ull << 20)

struct fgt_kseg {
	uint64_t vaddr, off, filesz;
};

struct Elf;

/* A raw image's section found by its own shape (an arm64 Image has no ELF
 * headers): ".BTF" by its header, ".notes" by the GNU build-ID note. */
#define FGT_KIMAGE_MAX_RAW	2

struct fgt_kraw_sec {
	const char *name;
	uint64_t off, len;		/* in data */
};

struct fgt_kimage {
	char desc[200];			/* "/proc/kcore", "vmlinux FILE", "bzImage FILE (zstd)" */
	int fd;				/* read on demand with pread (/proc/kcore, a vmlinux); or -1 */
	uint64_t file_size;		/* a vmlinux file's size (kcore's is not a real one) */
	struct Elf *elf;		/* libelf's view of a vmlinux file or of data; NULL for kcore */
	/* a bzImage's payload: the ELF decompressed into memory (heap), else NULL */
	const uint8_t *data;
	size_t size;
	void *heap;			/* free(heap) */
	volatile sig_atomic_t *stop;	/* set by SIGINT/SIGTERM: every long step polls it */
	struct fgt_kseg seg[FGT_KIMAGE_MAX_SEGS];
	unsigned int nr_segs;
	uint64_t text_addr;		/* _text: the address of the section that starts at it
					 * (files; fgt_arch_fact.text_section), 0 if unknown */
	uint64_t note_off, note_len;	/* /proc/kcore: its PT_NOTE (VMCOREINFO is there) */
	enum fgt_arch arch;		/* whose code it holds (ELF e_machine, Image magic) */
	/* a raw image (arm64 Image): data holds it from _text on, placed at a
	 * provisional address until its symbols say where _text is (va_free) */
	bool va_free;
	uint64_t stext_off;		/* _stext - _text, where its PE header says; 0: unknown */
	struct fgt_kraw_sec raw[FGT_KIMAGE_MAX_RAW];
	unsigned int nr_raw;
	/* the System.map given was a placeholder (Debian's: one line pointing
	 * at the -dbg package): the caller falls back to the image's own tables */
	bool map_placeholder;
	/*
	 * Symbols the reader saw and did not take: a .symtab entry undefined,
	 * at an address outside the kernel's half, in a reserved section; a
	 * kallsyms entry out of address order (and the one before it). Lines
	 * "name<TAB>why\n", malloc()ed, NULL when none: an answer must not
	 * rest on them, nor on their absence (fgt_kimage_doubt).
	 */
	char *doubt;
	size_t doubt_len;
	size_t nr_doubt;
};

/* Record name as not taken, for why (a short phrase). */
void fgt_kimage_doubt_add(struct fgt_kimage *im, const char *name, const char *why);

/* Why name was seen and not taken, or NULL when it was not. */
const char *fgt_kimage_doubt(const struct fgt_kimage *im, const char *name, char *buf,
			     size_t len);

/* The names in doubt one by one: start at 0, go on from what it returns; 0
 * when there are no more. A name longer than nlen is passed over. */
size_t fgt_kimage_doubt_next(const struct fgt_kimage *im, size_t at, char *name, size_t nlen,
			     char *why, size_t wlen);

/* Open path as a regular file of at most max bytes, without blocking on a
 * FIFO; its size in *size. The fd, or -1 with an FGT_SW_* in *why and msg. */
int fgt_open_regular(const char *path, uint64_t max, uint64_t *size, int *why, char *msg,
		     size_t len);

void fgt_kimage_close(struct fgt_kimage *im);

/* What this process read from files read on demand (/proc/kcore): reads and
 * bytes, for the answer's profile (-v). */
struct fgt_kio {
	unsigned long reads;
	uint64_t bytes;
};

extern struct fgt_kio fgt_kio;

/*
 * All of [off, off + len) of fd, or -1 (pread may return less: a file
 * truncated under us reads short), retried on EINTR. Each read counted in
 * *io and, at -vv, logged, when io is given: the kernel image's reads pass
 * &fgt_kio, another file's (the BTF) NULL, so that the profile's "N reads of
 * SOURCE" stays the image's own.
 */
int fgt_pread_all(int fd, void *buf, size_t len, uint64_t off, struct fgt_kio *io);

/* Has a stop been asked for (SIGINT, SIGTERM)? */
bool fgt_kimage_stopped(const struct fgt_kimage *im);

/* Read len bytes at a kernel virtual address: 0 or -errno (-EFAULT: not mapped). */
int fgt_kimage_read(const struct fgt_kimage *im, uint64_t addr, void *buf, size_t len);

/* Kernel virtual addresses are in the upper half on x86-64. */
#define FGT_KERNEL_HALF		0xffff800000000000ull
/* Decompression and long loops poll for a stop this often. */
#define FGT_KIMAGE_CHUNK	(1u << 20)
/*
 * arch/arm64/kernel/head.S: code0, code1, text_offset, image_size, flags
 * (bit 0: big-endian), three reserved, the magic (fgt_arch_facts), the PE
 * header's offset: 64 bytes, the size of an ELF header too.
 */
#define FGT_A64_HDR		64
/* "Linux version ": linux_banner's start, without its NUL */
#define FGT_BANNER_LEN		(sizeof(FGT_BANNER) - 1)

/* An image, empty (fd -1), with where a stop is asked (may be NULL). */
void fgt_kimage_init(struct fgt_kimage *im, volatile sig_atomic_t *stop);
/* One pread of a file image, counted in io (and logged at -vv) when given. */
ssize_t fgt_kio_pread(int fd, void *buf, size_t len, uint64_t off, struct fgt_kio *io);
/* What a file that is not a regular one is, for the message ("a directory"). */
const char *fgt_file_kind(mode_t m);
/* Does it begin as an ELF file? */
bool fgt_is_elf_magic(const uint8_t *d, size_t size);
/* Does it begin as an arm64 Image (its header's magic)? */
bool fgt_is_a64_image(const uint8_t *d, size_t size);
/* The first word of s (after blanks) into out, cut to len - 1 bytes. */
void fgt_first_word(const char *s, char *out, size_t len);

#endif
