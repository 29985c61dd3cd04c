/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel text and symbols for the static verdict (src/static/static_kernel.c), from:
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
#ifndef FGT_KREAD_H
#define FGT_KREAD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "host/ksyms.h"
#include "static/static_check.h"

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
/* the kallsyms search: steps per byte of .rodata, beyond a floor (Debian
 * 6.1-7.2's own tables: 173k-244k steps in 4.6-8.1 MB, 16x under the floor) */
#define FGT_KALLSYMS_WORK_PER_BYTE	2
#define FGT_KALLSYMS_WORK_FLOOR		(4ull << 20)

/* Is [off, off + len) inside [0, size)? The one bounds check of the readers:
 * written so that it cannot overflow, whatever the three values are. */
static inline bool fgt_in_range(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

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

/*
 * What /proc/kcore's VMCOREINFO note says (kernel/vmcore_info.c; the
 * kallsyms tables' addresses are there from 6.0: "vmcoreinfo: include
 * kallsyms symbols"): the running kernel's symbols without reading
 * /proc/kallsyms, which under qemu TCG takes 0.3 s for Debian 7.2's 199k
 * lines, three times the whole answer's budget.
 */
struct fgt_vmcoreinfo {
	uint64_t names, num_syms, token_table, token_index, offsets, relative_base, stext;
	char osrelease[65];
	char build_id[41];
};

/* Where a file image's kallsyms tables are, as VMCOREINFO would say (tests
 * make a fake /proc/kcore of a vmlinux with it). 0, or -1 with msg. */
int fgt_kallsyms_locate(const struct fgt_kimage *im, struct fgt_vmcoreinfo *vi, char *msg,
			size_t len);
/* Write a file image as /proc/kcore would show it (ELF core: VMCOREINFO note,
 * one PT_LOAD per segment). 0 or -errno. */
int fgt_kimage_write_core(const struct fgt_kimage *im, const struct fgt_vmcoreinfo *vi, FILE *f);

/* Parse it; 0, or -1 when there is none or it has no kallsyms tables. */
int fgt_kimage_vmcoreinfo(const struct fgt_kimage *im, struct fgt_vmcoreinfo *vi);

/* The kernel's own kallsyms tables, read from its memory (kcore). */
struct fgt_kmem;

/*
 * Read the tables VMCOREINFO points at and, in one pass over the names,
 * idx[i]: the symbol named names[i] (a text one if several), -1 if none.
 * NULL with msg when they are not tables we know.
 */
struct fgt_kmem *fgt_kmem_open(const struct fgt_kimage *im, const struct fgt_vmcoreinfo *vi,
			       const char *const *names, size_t n, long *idx, char *msg, size_t len);
void fgt_kmem_free(struct fgt_kmem *km);
uint32_t fgt_kmem_count(const struct fgt_kmem *km);
/* The symbol whose range holds addr (a text one among aliases), -1 if none. */
long fgt_kmem_at(struct fgt_kmem *km, uint64_t addr);
/* Symbol i, and the next symbol at a higher address (its end), into out:
 * how many (0-2), their names malloc()ed. */
int fgt_kmem_syms(struct fgt_kmem *km, long i, struct fgt_ksym out[2]);
/* Symbols idx[0..n) (negative ones skipped), each with the next one for its
 * size, as a table (src/host/ksyms.h); NULL when out of memory. */
struct fgt_ksyms *fgt_kmem_table(struct fgt_kmem *km, const long *idx, size_t n);

/* Open /proc/kcore (path NULL) or a fake for tests. 0, or an FGT_SW_* with msg. */
int fgt_kimage_open_kcore(struct fgt_kimage *im, const char *path, char *msg, size_t len);
/*
 * Open a vmlinux or bzImage: a regular file only (checked without blocking:
 * a FIFO is refused, not waited on), never mapped (a file truncated under us
 * is a short read, not SIGBUS). A vmlinux is read on demand through libelf;
 * a bzImage is read whole and its payload decompressed, within the caps
 * above. stop (may be NULL) ends any step within a second. 0, or an FGT_SW_*
 * with msg.
 */
int fgt_kimage_open_file(struct fgt_kimage *im, const char *path, volatile sig_atomic_t *stop,
			 char *msg, size_t len);
/* Open path as a regular file of at most max bytes, without blocking on a
 * FIFO; its size in *size. The fd, or -1 with an FGT_SW_* in *why and msg. */
int fgt_open_regular(const char *path, uint64_t max, uint64_t *size, int *why, char *msg,
		     size_t len);
/*
 * A kernel package (.deb: linux-image-*, or linux-binary-* from 7.x): its
 * vmlinuz (./boot/vmlinuz-*, or ./usr/lib/modules/REL/vmlinuz), read out of
 * the data member with libarchive, never by running dpkg. Capped: at most
 * FGT_DEB_MAX_MEMBERS entries and FGT_DEB_MAX_DATA bytes of the data member
 * read through, the vmlinuz at most FGT_KIMAGE_MAX_BZIMAGE; stop polled
 * between entries and blocks. 0 with *buf (malloc()ed, *size bytes) and its
 * path in member; else an FGT_SW_* with msg. src/static/kread_deb.c
 */
#define FGT_DEB_MAX_MEMBERS	200000		/* Debian 6.1 linux-image: 4,939 files */
#define FGT_DEB_MAX_DATA	(4ull << 30)	/* its data, uncompressed: 391 MiB */
int fgt_deb_vmlinuz(int fd, const char *path, volatile sig_atomic_t *stop, uint8_t **buf,
		    size_t *size, char *member, size_t mlen, char *msg, size_t len);
/* An ELF image already in memory (tests, and the bzImage path); name for msgs. */
int fgt_kimage_open_elf(struct fgt_kimage *im, const uint8_t *data, size_t size,
			const char *name, char *msg, size_t len);
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

/* A file image's symbols: .symtab, else the embedded kallsyms tables. NULL and
 * an FGT_SW_* in *why with msg when it has neither; what was used in desc. */
struct fgt_ksyms *fgt_kimage_symbols(struct fgt_kimage *im, char *desc, size_t dlen,
				     int *why, char *msg, size_t len);
/* A raw image (va_free) moved to where its symbols put _text: 0, or -1
 * when they have no _text at a plausible address. */
int fgt_kimage_place(struct fgt_kimage *im, const struct fgt_ksyms *ks);
/* A System.map for a file image: a regular file of at most
 * FGT_KIMAGE_MAX_MAP bytes, checked to be a real one (not Debian's
 * placeholder: then im->map_placeholder is set too) and this image's
 * (linux_banner reads "Linux version" there). */
struct fgt_ksyms *fgt_kimage_system_map(struct fgt_kimage *im, const char *path,
					int *why, char *msg, size_t len);
/* What the BTF says of task_struct::ret_stack. */
struct fgt_btf_stack {
	enum fgt_stack_src src;		/* a frame array (up to 6.10) or 4096-byte stacks */
	uint32_t bytes;			/* a kmalloc()ed stack's size */
	uint32_t off;			/* offsetof(struct task_struct, ret_stack) */
	uint32_t tasks_off;		/* offsetof(struct task_struct, tasks), 0 if not seen */
	bool shaped;			/* no ret_stack, but a member of its shape (a
					 * pointer to ftrace_ret_stack or unsigned long,
					 * or a name holding "ret_stack") */
};

/*
 * task_struct::ret_stack from raw BTF (a .BTF section, /sys/kernel/btf/vmlinux):
 * a pointer to a struct (the old frame array, up to 6.10: bytes is
 * FGT_RETFUNC_DEPTH times that struct's size) or to unsigned long (4096-byte
 * stacks), and its offset. One pass over the types up to task_struct and what
 * ret_stack points to, no libbpf: parsing all of Debian 6.12's BTF with
 * libbpf took 0.1 s of the answer's 0.13 s under qemu TCG.
 * 0; 1 when task_struct has no ret_stack (a kernel without fgraph); -1
 * when the BTF is broken or has no task_struct.
 */
int fgt_btf_ret_stack(const void *btf, size_t len, struct fgt_btf_stack *out);
/* What ret_stack's pointee (past typedefs and qualifiers) says, for every
 * reader of BTF: a struct, the old frame array of that struct; anything
 * else, 4096-byte stacks. */
static inline void fgt_btf_stack_of(struct fgt_btf_stack *out, bool pointee_struct,
				    uint32_t struct_size)
{
	out->src = pointee_struct ? FGT_STACK_KMALLOC_ARRAY : FGT_STACK_KMALLOC;
	out->bytes = pointee_struct ? FGT_RETFUNC_DEPTH * struct_size : FGT_SHADOW_STACK_SIZE;
}
/* Its answer for the running kernel, taken by a caller that had that BTF in
 * memory already (the live view's plan): the static verdict then reads no
 * BTF (struct fgt_static_opts btf_known). */
struct fgt_btf_known {
	int err;			/* fgt_btf_ret_stack()'s return */
	struct fgt_btf_stack stack;
};
/* Reads len bytes at off of the BTF into buf: 0, or -1. */
typedef int (*fgt_btf_read_fn)(void *arg, uint64_t off, void *buf, size_t len);
/*
 * The same from a BTF of len bytes read through rd, only as far as the answer
 * needs (the types up to the ones it resolves, the strings up to their names):
 * /sys/kernel/btf/vmlinux gives a page per read, and all of it took most of
 * the answer's time under TCG.
 */
int fgt_btf_ret_stack_read(fgt_btf_read_fn rd, void *arg, uint64_t len, struct fgt_btf_stack *out);

/* A file image's GNU build ID (hex, from its notes) and release (from
 * linux_banner, "Linux version R ..."), "" where absent. */
void fgt_kimage_ident(const struct fgt_kimage *im, const struct fgt_ksyms *ks,
		      char *release, size_t rlen, char *build_id, size_t blen);

/* The image's built-in .config (CONFIG_IKCONFIG): 1 when option is =y or
 * =m in it, 0 when not; -1 when it is broken; -2 when there is none. */
int fgt_kimage_ikconfig(const struct fgt_kimage *im, const char *option);

/* A section's bytes by name (".BTF"), valid until fgt_kimage_close(); NULL
 * with errno ENOENT (absent or empty), EFBIG (over FGT_KIMAGE_MAX_SECTION),
 * EIO (outside the file, or a short read) or EINTR (stopped). */
const void *fgt_kimage_section(const struct fgt_kimage *im, const char *name, size_t *len);
/* The same, with the section's address. */
const void *fgt_kimage_section_va(const struct fgt_kimage *im, const char *name, size_t *len,
				  uint64_t *va);

/*
 * The kallsyms tables embedded in a kernel image (scripts/kallsyms.c's
 * output), decoded into kallsyms-format text ("addr type name\n" lines),
 * malloc()ed into *text. Exposed for tests. 0; -1 with msg; -EINTR when
 * stopped. The search is capped at FGT_KALLSYMS_WORK_PER_BYTE steps per
 * byte of .rodata (plus a floor). Entries out of address order (up to 1 %
 * is tolerated in a reading) are recorded in im's doubt, both sides of each.
 */
int fgt_kallsyms_extract(struct fgt_kimage *im, char **text, size_t *text_len,
			 size_t *nr_syms, char *msg, size_t len);

/* The part of the running kernel's table holding names[0..n), read from its
 * kallsyms tables through kcore (NULL: /proc/kcore); NULL where kcore cannot
 * say (absent, masked, not root, before 6.0). src/static/ksyms_kcore.c */
struct fgt_ksyms *fgt_ksyms_kcore(const char *kcore, const char *const *names, size_t n);

#endif
