// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel images for the static verdict (src/kread.h): /proc/kcore, a vmlinux,
 * a bzImage; their symbols from .symtab or a System.map. The embedded kallsyms
 * tables are src/kread_kallsyms.c.
 */
#include <elf.h>
#include <stddef.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "kread.h"
#include "log.h"

/* Kernel virtual addresses are in the upper half on x86-64. */
#define KERNEL_HALF	0xffff800000000000ull
/* A decompressed vmlinux bigger than this is not one (Debian's: 40-70 MiB). */
#define MAX_VMLINUX	(1ull << 30)

struct fgt_kio fgt_kio;

/* Every read of a file image on demand (/proc/kcore) goes through here: counted,
 * and at -vv one line each, for the answer's profile. */
static ssize_t kio_pread(int fd, void *buf, size_t len, uint64_t off)
{
	struct timespec t0, t1;
	ssize_t n;

	if (fgt_verbose >= 2)
		clock_gettime(CLOCK_MONOTONIC, &t0);
	n = pread(fd, buf, len, (off_t)off);
	fgt_kio.reads++;
	fgt_kio.bytes += n > 0 ? (uint64_t)n : 0;
	if (fgt_verbose >= 2) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		log_dbg("kcore: %zu bytes at offset %#" PRIx64 ": %.3f ms", len, off,
			(t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	}
	return n;
}

static void kimage_init(struct fgt_kimage *im)
{
	memset(im, 0, sizeof(*im));
	im->fd = -1;
}

void fgt_kimage_close(struct fgt_kimage *im)
{
	if (im->fd >= 0)
		close(im->fd);
	if (im->map)
		munmap(im->map, im->size);
	free(im->heap);
	kimage_init(im);
}

/* ---- ELF ------------------------------------------------------------------- */

static const Elf64_Shdr *elf_shdr(const struct fgt_kimage *im, unsigned int i)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)im->data;

	if (!eh->e_shoff || eh->e_shoff % 8 || eh->e_shentsize != sizeof(Elf64_Shdr) || i >= eh->e_shnum ||
	    eh->e_shoff + (uint64_t)(i + 1) * sizeof(Elf64_Shdr) > im->size)
		return NULL;
	return (const Elf64_Shdr *)(im->data + eh->e_shoff) + i;
}

static const char *elf_shname(const struct fgt_kimage *im, const Elf64_Shdr *sh)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)im->data;
	const Elf64_Shdr *strs = elf_shdr(im, eh->e_shstrndx);

	if (!strs || strs->sh_offset + strs->sh_size > im->size || sh->sh_name >= strs->sh_size)
		return "";
	return (const char *)im->data + strs->sh_offset + sh->sh_name;
}

const void *fgt_kimage_section(const struct fgt_kimage *im, const char *name, size_t *len)
{
	const Elf64_Shdr *sh;

	if (!im->data)
		return NULL;
	for (unsigned int i = 1; (sh = elf_shdr(im, i)); i++) {
		if (sh->sh_type == SHT_NOBITS || strcmp(elf_shname(im, sh), name))
			continue;
		if (sh->sh_offset + sh->sh_size > im->size)
			return NULL;
		*len = sh->sh_size;
		return im->data + sh->sh_offset;
	}
	return NULL;
}

static bool is_elf64_x86(const uint8_t *d, size_t size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)d;

	return size >= sizeof(*eh) && !memcmp(eh->e_ident, ELFMAG, SELFMAG) &&
	       eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_ident[EI_DATA] == ELFDATA2LSB &&
	       eh->e_machine == EM_X86_64;
}

int fgt_kimage_open_elf(struct fgt_kimage *im, const uint8_t *data, size_t size,
			const char *name, char *msg, size_t len)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
	const Elf64_Phdr *ph;
	bool kernel = false;
	const Elf64_Shdr *sh;

	if (!is_elf64_x86(data, size)) {
		snprintf(msg, len, "%s: not an x86-64 ELF file", name);
		return FGT_SW_NOT_KERNEL;
	}
	if (eh->e_phentsize != sizeof(*ph) || eh->e_phoff % 8 ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(*ph) > size) {
		snprintf(msg, len, "%s: truncated or misaligned ELF program headers", name);
		return FGT_SW_NOT_KERNEL;
	}
	im->data = data;
	im->size = size;
	ph = (const Elf64_Phdr *)(data + eh->e_phoff);
	for (unsigned int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || !ph[i].p_filesz)
			continue;
		if (ph[i].p_offset + ph[i].p_filesz > size) {
			snprintf(msg, len, "%s: truncated (a segment runs past the end of the file)", name);
			return FGT_SW_NOT_KERNEL;
		}
		if (im->nr_segs < FGT_KIMAGE_MAX_SEGS)
			im->seg[im->nr_segs++] = (struct fgt_kseg){ ph[i].p_vaddr, ph[i].p_offset,
								    ph[i].p_filesz };
		if (ph[i].p_vaddr >= KERNEL_HALF && (ph[i].p_flags & PF_X))
			kernel = true;
	}
	if (!kernel || eh->e_type != ET_EXEC) {
		snprintf(msg, len, "%s: an ELF file, but not a kernel (no executable segment "
			 "at a kernel address)", name);
		return FGT_SW_NOT_KERNEL;
	}
	for (unsigned int i = 1; (sh = elf_shdr(im, i)); i++)
		if (!strcmp(elf_shname(im, sh), ".text")) {
			im->text_addr = sh->sh_addr;
			break;
		}
	return 0;
}

int fgt_kimage_read(const struct fgt_kimage *im, uint64_t addr, void *buf, size_t len)
{
	for (unsigned int i = 0; i < im->nr_segs; i++) {
		const struct fgt_kseg *s = &im->seg[i];
		ssize_t n;

		if (addr < s->vaddr || addr - s->vaddr >= s->filesz || len > s->filesz - (addr - s->vaddr))
			continue;
		if (im->data) {
			memcpy(buf, im->data + s->off + (addr - s->vaddr), len);
			return 0;
		}
		n = kio_pread(im->fd, buf, len, s->off + (addr - s->vaddr));
		if (n < 0)
			return -errno;
		return (size_t)n == len ? 0 : -EIO;
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

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int inflate_gzip(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len, size_t *got)
{
	z_stream z = { .next_in = (Bytef *)in, .avail_in = (uInt)in_len,
		       .next_out = out, .avail_out = (uInt)out_len };
	int ret;

	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -1;
	ret = inflate(&z, Z_FINISH);
	*got = z.total_out;
	inflateEnd(&z);
	return ret == Z_STREAM_END ? 0 : -1;
}

static int inflate_xz(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len, size_t *got,
		      bool alone)
{
	lzma_stream z = LZMA_STREAM_INIT;
	lzma_ret ret;

	ret = alone ? lzma_alone_decoder(&z, UINT64_MAX) : lzma_stream_decoder(&z, UINT64_MAX, 0);
	if (ret != LZMA_OK)
		return -1;
	z.next_in = in;
	z.avail_in = in_len;
	z.next_out = out;
	z.avail_out = out_len;
	ret = lzma_code(&z, LZMA_FINISH);
	*got = z.total_out;
	lzma_end(&z);
	return ret == LZMA_STREAM_END ? 0 : -1;
}

static int inflate_zstd(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len, size_t *got)
{
	ZSTD_DCtx *z = ZSTD_createDCtx();
	ZSTD_inBuffer ib = { in, in_len, 0 };
	ZSTD_outBuffer ob = { out, out_len, 0 };
	size_t ret = 1;

	if (!z)
		return -1;
	/* the kernel compresses with --ultra -22: a window beyond the default limit */
	ZSTD_DCtx_setParameter(z, ZSTD_d_windowLogMax, 31);
	while (ret && ib.pos < ib.size && ob.pos < ob.size) {
		ret = ZSTD_decompressStream(z, &ob, &ib);
		if (ZSTD_isError(ret))
			break;
	}
	*got = ob.pos;
	ZSTD_freeDCtx(z);
	return ret == 0 ? 0 : -1;
}

struct codec {
	const char *name;
	const uint8_t magic[6];
	size_t magic_len;
};

static const struct codec codecs[] = {
	{ "gzip", { 0x1f, 0x8b }, 2 },
	{ "xz", { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6 },
	{ "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4 },
	{ "lzma", { 0x5d, 0, 0 }, 3 },
	{ "bzip2", { 'B', 'Z', 'h' }, 3 },
	{ "lzo", { 0x89, 'L', 'Z', 'O' }, 4 },
	{ "lz4", { 0x02, 0x21, 0x4c, 0x18 }, 4 },
};

/*
 * The payload is the vmlinux ELF compressed; the kernel's build appends its
 * decompressed size as 4 little-endian bytes (arch/x86/boot/compressed/Makefile,
 * size_append), which sizes the buffer.
 */
static int open_bzimage(struct fgt_kimage *im, const uint8_t *d, size_t size, const char *path,
			char *msg, size_t len)
{
	unsigned int setup = d[BZ_SETUP_SECTS] ? d[BZ_SETUP_SECTS] : 4;
	uint16_t version = (uint16_t)(d[BZ_VERSION] | d[BZ_VERSION + 1] << 8);
	uint64_t start = (uint64_t)(setup + 1) * 512, off, plen, out_len;
	const struct codec *c = NULL;
	const uint8_t *p;
	size_t got = 0;
	uint8_t *out;
	int ret = -1, err;

	if (version < 0x208) {
		snprintf(msg, len, "%s: boot protocol %u.%02u has no payload fields (2.08+ needed)",
			 path, version >> 8, version & 0xff);
		return FGT_SW_NOT_KERNEL;
	}
	off = start + le32(d + BZ_PAYLOAD_OFF);
	plen = le32(d + BZ_PAYLOAD_LEN);
	if (plen < 16 || off + plen > size) {
		snprintf(msg, len, "%s: truncated bzImage (payload past the end of the file)", path);
		return FGT_SW_NOT_KERNEL;
	}
	p = d + off;
	for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++)
		if (!memcmp(p, codecs[i].magic, codecs[i].magic_len)) {
			c = &codecs[i];
			break;
		}
	if (!c) {
		snprintf(msg, len, "%s: a bzImage whose payload is in no compression format known here",
			 path);
		return FGT_SW_NOT_KERNEL;
	}
	if (strcmp(c->name, "gzip") && strcmp(c->name, "xz") && strcmp(c->name, "lzma") &&
	    strcmp(c->name, "zstd")) {
		snprintf(msg, len, "%s: payload compressed with %s, not read here: decompress it "
			 "first (the kernel's scripts/extract-vmlinux) and pass the vmlinux", path, c->name);
		return FGT_SW_NOT_KERNEL;
	}
	out_len = le32(p + plen - 4);
	if (out_len < 4096 || out_len > MAX_VMLINUX) {
		snprintf(msg, len, "%s: implausible decompressed size %llu", path,
			 (unsigned long long)out_len);
		return FGT_SW_NOT_KERNEL;
	}
	out = malloc(out_len);
	if (!out) {
		snprintf(msg, len, "%s: out of memory for the %" PRIu64 "-byte vmlinux", path, out_len);
		return FGT_SW_READ;
	}
	if (!strcmp(c->name, "gzip"))
		ret = inflate_gzip(p, plen, out, out_len, &got);
	else if (!strcmp(c->name, "xz") || !strcmp(c->name, "lzma"))
		ret = inflate_xz(p, plen, out, out_len, &got, c->name[0] == 'l');
	else
		ret = inflate_zstd(p, plen, out, out_len, &got);
	if (ret || got != out_len) {
		free(out);
		snprintf(msg, len, "%s: the %s payload does not decompress (%zu of %" PRIu64 " bytes)",
			 path, c->name, got, out_len);
		return FGT_SW_NOT_KERNEL;
	}
	im->heap = out;
	err = fgt_kimage_open_elf(im, out, out_len, path, msg, len);
	if (!err)
		snprintf(im->desc, sizeof(im->desc), "bzImage %s (%s)", path, c->name);
	return err;
}

int fgt_kimage_open_file(struct fgt_kimage *im, const char *path, char *msg, size_t len)
{
	struct stat st;
	void *map;
	int fd, err;

	kimage_init(im);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(msg, len, "%s: %s", path, strerror(errno));
		return FGT_SW_READ;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 4096) {
		snprintf(msg, len, "%s: not a kernel image (%s)", path,
			 S_ISREG(st.st_mode) ? "too small" : "not a regular file");
		close(fd);
		return FGT_SW_NOT_KERNEL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		snprintf(msg, len, "%s: %s", path, strerror(errno));
		return FGT_SW_READ;
	}
	im->map = map;
	im->size = (size_t)st.st_size;
	if (!memcmp((const uint8_t *)map + BZ_MAGIC, "HdrS", 4)) {
		err = open_bzimage(im, map, im->size, path, msg, len);
		/* the ELF lives in the heap now: the mapping can go */
		munmap(im->map, (size_t)st.st_size);
		im->map = NULL;
		if (err)
			fgt_kimage_close(im);
		return err;
	}
	if (!is_elf64_x86(map, im->size)) {
		snprintf(msg, len, "%s: not a kernel image (neither an x86-64 vmlinux nor a bzImage)",
			 path);
		fgt_kimage_close(im);
		return FGT_SW_NOT_KERNEL;
	}
	err = fgt_kimage_open_elf(im, map, im->size, path, msg, len);
	if (err) {
		fgt_kimage_close(im);
		return err;
	}
	im->map = map;
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
 * Is kcore refused by lockdown=confidentiality? securityfs says so where it
 * is mounted ("[confidentiality]"); where it is not, EPERM with
 * CAP_SYS_RAWIO held can only be lockdown (fs/proc/kcore.c: open_kcore()
 * checks the capability, then security_locked_down(LOCKDOWN_KCORE)).
 */
static bool locked_down(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/security/lockdown", "re");

	if (!f)
		return have_rawio();
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strstr(buf, "[confidentiality]") != NULL;
}

int fgt_kimage_open_kcore(struct fgt_kimage *im, const char *path, char *msg, size_t len)
{
	Elf64_Ehdr eh;
	ssize_t n;

	kimage_init(im);
	path = path ? path : "/proc/kcore";
	im->fd = open(path, O_RDONLY | O_CLOEXEC);
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
	n = kio_pread(im->fd, &eh, sizeof(eh), 0);
	if (n != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_CORE ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 4096) {
		snprintf(msg, len, "%s is %s (a container masks it so)", path,
			 n <= 0 ? "empty" : "not an ELF core file");
		fgt_kimage_close(im);
		return FGT_SW_NO_KCORE;
	}
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (kio_pread(im->fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) != sizeof(ph))
			break;
		if (ph.p_type == PT_NOTE) {
			im->note_off = ph.p_offset;
			im->note_len = ph.p_filesz;
			continue;
		}
		/* the kernel text mapping (KCORE_TEXT) is what we read */
		if (ph.p_type != PT_LOAD || ph.p_vaddr < KERNEL_HALF || !ph.p_filesz)
			continue;
		if (im->nr_segs == FGT_KIMAGE_MAX_SEGS)
			break;
		im->seg[im->nr_segs++] = (struct fgt_kseg){ ph.p_vaddr, ph.p_offset, ph.p_filesz };
	}
	snprintf(im->desc, sizeof(im->desc), "%s", path);
	return 0;
}

/* ---- symbols ------------------------------------------------------------------- */

/* kallsyms-format text to a symbol table (one parser for every source). */
static struct fgt_ksyms *ksyms_from_text(char *text, size_t n)
{
	FILE *f = fmemopen(text, n ? n : 1, "r");
	struct fgt_ksyms *ks;

	if (!f)
		return NULL;
	ks = fgt_ksyms_load_file(f);
	fclose(f);
	return ks;
}

static char sym_letter(const struct fgt_kimage *im, const Elf64_Sym *s)
{
	const Elf64_Shdr *sh = elf_shdr(im, s->st_shndx);
	bool global = ELF64_ST_BIND(s->st_info) != STB_LOCAL;
	char c = 'd';

	if (sh && (sh->sh_flags & SHF_EXECINSTR))
		c = 't';
	else if (sh && sh->sh_type == SHT_NOBITS)
		c = 'b';
	else if (sh && !(sh->sh_flags & SHF_WRITE))
		c = 'r';
	return global ? (char)(c - 'a' + 'A') : c;
}

/* .symtab as kallsyms text; -1 if there is none. */
static int symtab_text(const struct fgt_kimage *im, char **text, size_t *n, size_t *count)
{
	const Elf64_Shdr *sh, *strs;
	FILE *f;

	for (unsigned int i = 1; (sh = elf_shdr(im, i)); i++) {
		const Elf64_Sym *sym;
		size_t nsym;

		if (sh->sh_type != SHT_SYMTAB)
			continue;
		strs = elf_shdr(im, sh->sh_link);
		if (!strs || sh->sh_offset % 8 || sh->sh_offset + sh->sh_size > im->size ||
		    strs->sh_offset + strs->sh_size > im->size || sh->sh_entsize != sizeof(*sym))
			return -1;
		sym = (const Elf64_Sym *)(im->data + sh->sh_offset);
		nsym = sh->sh_size / sizeof(*sym);
		f = open_memstream(text, n);
		if (!f)
			return -1;
		*count = 0;
		for (size_t k = 1; k < nsym; k++) {
			unsigned int t = ELF64_ST_TYPE(sym[k].st_info);
			const char *name;

			if (sym[k].st_shndx == SHN_UNDEF || sym[k].st_shndx >= SHN_LORESERVE ||
			    (t != STT_FUNC && t != STT_OBJECT && t != STT_NOTYPE) ||
			    sym[k].st_name >= strs->sh_size || sym[k].st_value < KERNEL_HALF)
				continue;
			name = (const char *)im->data + strs->sh_offset + sym[k].st_name;
			if (!name[0] || memchr(name, '\n', strnlen(name, 512)))
				continue;
			fprintf(f, "%016" PRIx64 " %c %s\n", sym[k].st_value, sym_letter(im, &sym[k]), name);
			(*count)++;
		}
		fclose(f);
		return 0;
	}
	return -1;
}

struct fgt_ksyms *fgt_kimage_symbols(const struct fgt_kimage *im, char *desc, size_t dlen,
				     int *why, char *msg, size_t len)
{
	struct fgt_ksyms *ks = NULL;
	char *text = NULL, kmsg[200] = "";
	size_t n = 0, count = 0;

	if (!symtab_text(im, &text, &n, &count) && count) {
		ks = ksyms_from_text(text, n);
		snprintf(desc, dlen, ".symtab (%zu symbols)", count);
	} else {
		free(text);
		text = NULL;
		if (!fgt_kallsyms_extract(im, &text, &n, &count, kmsg, sizeof(kmsg))) {
			ks = ksyms_from_text(text, n);
			snprintf(desc, dlen, "the image's kallsyms tables (%zu symbols)", count);
		} else {
			free(text);
			*why = FGT_SW_NO_SYMBOLS;
			snprintf(msg, len, "%s has no symbols: no .symtab, and %s; give its System.map",
				 im->desc, kmsg);
			return NULL;
		}
	}
	free(text);
	if (!ks) {
		*why = FGT_SW_READ;
		snprintf(msg, len, "%s: cannot build the symbol table: %s", im->desc, strerror(errno));
	}
	return ks;
}

struct fgt_ksyms *fgt_kimage_system_map(const struct fgt_kimage *im, const char *path,
					int *why, char *msg, size_t len)
{
	struct fgt_ksyms *ks = fgt_ksyms_load(path);
	const struct fgt_ksym *banner, *text;
	char buf[16], insane[160];

	if (!ks) {
		*why = FGT_SW_READ;
		snprintf(msg, len, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (!fgt_ksyms_sane(ks, insane, sizeof(insane))) {
		*why = FGT_SW_BAD_MAP;
		snprintf(msg, len, "%s is a placeholder, not a System.map (%zu symbol%s; Debian "
			 "ships the real one in linux-image-<version>-dbg), or pass the vmlinuz alone: "
			 "its own kallsyms tables are read", path, fgt_ksyms_count(ks),
			 fgt_ksyms_count(ks) == 1 ? "" : "s");
		fgt_ksyms_free(ks);
		return NULL;
	}
	/* this image's? linux_banner is "Linux version ..." in it */
	banner = fgt_ksyms_by_name(ks, "linux_banner");
	text = fgt_ksyms_by_name(ks, "_text");
	if ((banner && (fgt_kimage_read(im, banner->addr, buf, 14) || memcmp(buf, "Linux version ", 14))) ||
	    (!banner && text && im->text_addr && text->addr != im->text_addr)) {
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
	if (kio_pread(im->fd, buf, len, im->note_off) != (ssize_t)len)
		goto out;
	buf[len] = '\0';
	while (p + sizeof(Elf64_Nhdr) <= len) {
		const Elf64_Nhdr *nh = (const Elf64_Nhdr *)(buf + p);
		size_t name = p + sizeof(*nh), desc = name + ((nh->n_namesz + 3) & ~3u);
		size_t end = desc + ((nh->n_descsz + 3) & ~3u);

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
	Elf64_Ehdr eh = { .e_type = ET_CORE, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			  .e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
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
	for (unsigned int i = 0; i < im->nr_segs; i++)
		fwrite(im->data + im->seg[i].off, 1, im->seg[i].filesz, f);
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

	if (v->broken || o + 12 > v->types.len)
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
	if (l < 0 || o + l > v->types.len || !btf_need(v, &v->types, (uint64_t)o + l))
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
static int btf_ret_stack_type(struct btf_view *v, uint32_t id, enum fgt_stack_src *src,
			      uint32_t *bytes)
{
	const uint8_t *mt = btf_skip(v, btf_type(v, id));

	if (!mt || ((le32(mt + 4) >> 24) & 0x1f) != BTF_PTR)
		return -1;
	mt = btf_skip(v, btf_type(v, le32(mt + 8)));
	if (!mt)
		return -1;
	if (((le32(mt + 4) >> 24) & 0x1f) == BTF_STRUCT) {
		*src = FGT_STACK_KMALLOC_ARRAY;
		*bytes = FGT_RETFUNC_DEPTH * le32(mt + 8);
	} else {
		*src = FGT_STACK_KMALLOC;
		*bytes = FGT_SHADOW_STACK_SIZE;
	}
	return 0;
}

/* The first struct task_struct, its ret_stack member. */
static int btf_find(struct btf_view *v, enum fgt_stack_src *src, uint32_t *bytes)
{
	for (uint32_t id = 1; btf_type(v, id); id++) {
		uint32_t o = v->off[id], info = le32(v->types.p + o + 4);

		if (((info >> 24) & 0x1f) != BTF_STRUCT ||
		    !btf_name_is(v, le32(v->types.p + o), "task_struct"))
			continue;
		/* members by offset: resolving a type may move the prefix */
		for (uint32_t k = 0, m = o + 12; k < (info & 0xffff); k++, m += 12)
			if (btf_name_is(v, le32(v->types.p + m), "ret_stack"))
				return btf_ret_stack_type(v, le32(v->types.p + m + 4), src, bytes);
		return -1;	/* task_struct without ret_stack: no fgraph */
	}
	return -1;
}

static int btf_ret_stack(struct btf_view *v, const uint8_t *b, uint64_t len,
			 enum fgt_stack_src *src, uint32_t *bytes)
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
	ret = btf_find(v, src, bytes);
	free(v->off);
	free(v->types.buf);
	free(v->strs.buf);
	return ret;
}

int fgt_btf_ret_stack(const void *btf, size_t len, enum fgt_stack_src *src, uint32_t *bytes)
{
	struct btf_view v = {};

	return btf_ret_stack(&v, btf, len, src, bytes);
}

int fgt_btf_ret_stack_read(fgt_btf_read_fn rd, void *arg, uint64_t len, enum fgt_stack_src *src,
			   uint32_t *bytes)
{
	struct btf_view v = { .rd = rd, .arg = arg };
	uint8_t hdr[24];

	if (len < sizeof(hdr) || rd(arg, 0, hdr, sizeof(hdr)))
		return -1;
	return btf_ret_stack(&v, hdr, len, src, bytes);
}

/* ---- what kernel a file is ----------------------------------------------------- */

void fgt_kimage_ident(const struct fgt_kimage *im, const struct fgt_ksyms *ks,
		      char *release, size_t rlen, char *build_id, size_t blen)
{
	const struct fgt_ksym *banner = ks ? fgt_ksyms_by_name(ks, "linux_banner") : NULL;
	const uint8_t *n;
	size_t len = 0, p = 0;
	char buf[128];

	release[0] = build_id[0] = '\0';
	if (banner && !fgt_kimage_read(im, banner->addr, buf, sizeof(buf) - 1)) {
		buf[sizeof(buf) - 1] = '\0';
		if (!strncmp(buf, "Linux version ", 14))
			sscanf(buf + 14, "%64s", release);
		if (rlen < 65)
			release[rlen - 1] = '\0';
	}
	n = fgt_kimage_section(im, ".notes", &len);
	if (!n)
		n = fgt_kimage_section(im, ".note.gnu.build-id", &len);
	while (n && p + 12 <= len) {
		uint32_t nsz = le32(n + p), dsz = le32(n + p + 4), type = le32(n + p + 8);
		size_t name = p + 12, desc = name + ((nsz + 3) & ~3u);

		if (desc + dsz > len)
			break;
		if (type == NT_GNU_BUILD_ID && nsz == 4 && !memcmp(n + name, "GNU", 4)) {
			for (uint32_t i = 0; i < dsz && 2 * i + 2 < blen; i++)
				snprintf(build_id + 2 * i, 3, "%02x", n[desc + i]);
			break;
		}
		p = desc + ((dsz + 3) & ~3u);
	}
}
