// SPDX-License-Identifier: GPL-2.0
/* Hostile kernel files, made at test time (tests/lib/kimage_gen.h). */
#include <archive.h>
#include <archive_entry.h>
#include <bzlib.h>
#include <elf.h>
#include <lz4.h>
#include <lzma.h>
#include <lzo/lzo1x.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include "lib/kimage_gen.h"

#define TEXT_VA		0xffffffff81000000ull
#define RODATA_VA	0xffffffff82000000ull
#define TEXT_OFF	0x1000u
#define TEXT_LEN	0x1000u

const char *kgen_codec_name(enum kgen_codec c)
{
	static const char *const n[KGEN__NR] = { "gzip", "xz", "lzma", "zstd", "bzip2", "lz4",
						 "lzo" };

	return c < KGEN__NR ? n[c] : "?";
}

static void *xcalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		abort();
	return p;
}

static void ident(Elf64_Ehdr *eh)
{
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_shentsize = sizeof(Elf64_Shdr);
}

static size_t up8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

void kgen_elf(struct kgen_buf *b, const char *const *syms, size_t nsyms, const uint8_t *rodata,
	      size_t rodata_len, size_t min_len)
{
	static const char shstr[] = "\0.text\0.rodata\0.symtab\0.strtab\0.shstrtab";
	size_t strtab_len = 1, ro_off = TEXT_OFF + TEXT_LEN, sym_off, str_off, shs_off, sh_off, len;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	Elf64_Shdr *sh;
	Elf64_Sym *st;
	char *strtab;

	for (size_t i = 0; i < nsyms; i++)
		strtab_len += strlen(syms[i]) + 1;
	sym_off = up8(ro_off + rodata_len);
	str_off = sym_off + (nsyms + 1) * sizeof(Elf64_Sym);
	shs_off = str_off + strtab_len;
	sh_off = up8(shs_off + sizeof(shstr));
	len = sh_off + 6 * sizeof(Elf64_Shdr);
	if (len < min_len)
		len = min_len;
	b->p = xcalloc(len);
	b->len = len;
	eh = (Elf64_Ehdr *)b->p;
	ident(eh);
	eh->e_entry = TEXT_VA;
	eh->e_phoff = sizeof(*eh);
	eh->e_phnum = 2;
	eh->e_shoff = sh_off;
	eh->e_shnum = 6;
	eh->e_shstrndx = 5;
	ph = (Elf64_Phdr *)(b->p + eh->e_phoff);
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = TEXT_OFF,
			      .p_vaddr = TEXT_VA, .p_filesz = TEXT_LEN, .p_memsz = TEXT_LEN };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = ro_off,
			      .p_vaddr = RODATA_VA, .p_filesz = rodata_len, .p_memsz = rodata_len };
	memset(b->p + TEXT_OFF, 0xcc, TEXT_LEN);	/* int3 */
	/* what follows the headers, noise: a real kernel compresses 3-5x, and
	 * zeros would read as a bomb */
	for (size_t i = sh_off + 6 * sizeof(Elf64_Shdr), x = 12345; i < len; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		b->p[i] = (uint8_t)(x >> 56);
	}
	if (rodata)
		memcpy(b->p + ro_off, rodata, rodata_len);
	st = (Elf64_Sym *)(b->p + sym_off);
	strtab = (char *)b->p + str_off;
	for (size_t i = 0, o = 1; i < nsyms; i++) {
		st[i + 1] = (Elf64_Sym){ .st_name = (Elf64_Word)o,
					 .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
					 .st_shndx = 1, .st_value = TEXT_VA + 16 * i };
		strcpy(strtab + o, syms[i]);
		o += strlen(syms[i]) + 1;
	}
	memcpy(b->p + shs_off, shstr, sizeof(shstr));
	sh = (Elf64_Shdr *)(b->p + sh_off);
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_addr = TEXT_VA, .sh_offset = TEXT_OFF, .sh_size = TEXT_LEN };
	sh[2] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
			      .sh_addr = RODATA_VA, .sh_offset = ro_off, .sh_size = rodata_len };
	sh[3] = (Elf64_Shdr){ .sh_name = 15, .sh_type = SHT_SYMTAB, .sh_offset = sym_off,
			      .sh_size = (nsyms + 1) * sizeof(Elf64_Sym), .sh_link = 4, .sh_info = 1,
			      .sh_entsize = sizeof(Elf64_Sym), .sh_addralign = 8 };
	sh[4] = (Elf64_Shdr){ .sh_name = 23, .sh_type = SHT_STRTAB, .sh_offset = str_off,
			      .sh_size = strtab_len };
	sh[5] = (Elf64_Shdr){ .sh_name = 31, .sh_type = SHT_STRTAB, .sh_offset = shs_off,
			      .sh_size = sizeof(shstr) };
}

static void elf_headers_only(struct kgen_buf *b)
{
	Elf64_Ehdr *eh;

	b->len = 8192;
	b->p = xcalloc(b->len);
	eh = (Elf64_Ehdr *)b->p;
	ident(eh);
	eh->e_phoff = sizeof(*eh);
	eh->e_phnum = 1;
}

void kgen_elf_wrap_phdr(struct kgen_buf *b)
{
	Elf64_Phdr *ph;

	elf_headers_only(b);
	ph = (Elf64_Phdr *)(b->p + sizeof(Elf64_Ehdr));
	*ph = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = ~0ull - 15,
			    .p_vaddr = TEXT_VA, .p_filesz = 4096, .p_memsz = 4096 };
}

void kgen_elf_wrap_phoff(struct kgen_buf *b)
{
	Elf64_Ehdr *eh;

	elf_headers_only(b);
	eh = (Elf64_Ehdr *)b->p;
	eh->e_phoff = ~0ull - 7;
	eh->e_phnum = 2;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_be32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

/* lz4 -l: the legacy magic, then per 8 MiB block its compressed length and bytes */
static size_t kgen_lz4(const struct kgen_buf *in, uint8_t *out, size_t cap)
{
	const size_t blk = 8u << 20;
	size_t o = 4;

	put_le32(out, 0x184c2102u);
	for (size_t i = 0; i < in->len; i += blk) {
		size_t n = in->len - i < blk ? in->len - i : blk;
		int c = LZ4_compress_default((const char *)in->p + i, (char *)out + o + 4, (int)n,
					     (int)(cap - o - 4));

		if (c <= 0)
			abort();
		put_le32(out + o, (uint32_t)c);
		o += 4 + (size_t)c;
	}
	return o;
}

/* lzop: its header (version 0x1030, flags: an adler32 of each block's data),
 * then per block its lengths, the checksum and the bytes (stored as they are
 * where they do not shrink), and a zero length to end */
static size_t kgen_lzo(const struct kgen_buf *in, uint8_t *out, size_t cap)
{
	static const uint8_t head[] = {
		0x89, 'L', 'Z', 'O', 0, 0x0d, 0x0a, 0x1a, 0x0a,
		0x10, 0x30, 0x20, 0xa0, 0x09, 0x40,	/* version, lib version, needed */
		1, 5,					/* method LZO1X_1, level */
		0, 0, 0, 1,				/* flags: F_ADLER32_D */
		0, 0, 0x81, 0xa4,			/* mode */
		0, 0, 0, 0, 0, 0, 0, 0,			/* mtime, mtime_high */
		0,					/* no name */
		0, 0, 0, 0,				/* the header's checksum */
	};
	const size_t blk = 64u << 10;
	uint8_t *wrk = xcalloc(LZO1X_1_MEM_COMPRESS);
	size_t o = sizeof(head);

	if (lzo_init() != LZO_E_OK)
		abort();
	memcpy(out, head, sizeof(head));
	for (size_t i = 0; i < in->len; i += blk) {
		size_t n = in->len - i < blk ? in->len - i : blk;
		lzo_uint c = cap - o - 12;

		if (lzo1x_1_compress(in->p + i, n, out + o + 12, &c, wrk) != LZO_E_OK)
			abort();
		if (c >= n) {
			memcpy(out + o + 12, in->p + i, n);
			c = n;
		}
		put_be32(out + o, (uint32_t)n);
		put_be32(out + o + 4, (uint32_t)c);
		put_be32(out + o + 8, (uint32_t)adler32(1, in->p + i, (uInt)n));
		o += 12 + c;
	}
	put_be32(out + o, 0);
	free(wrk);
	return o + 4;
}

static void kgen_compress(const struct kgen_buf *in, enum kgen_codec c, struct kgen_buf *out)
{
	size_t cap = in->len + in->len / 2 + (1u << 16);

	out->p = xcalloc(cap + 4);
	switch (c) {
	case KGEN_GZIP: {
		z_stream z = {};

		if (deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			abort();
		z.next_in = in->p;
		z.avail_in = (uInt)in->len;
		z.next_out = out->p;
		z.avail_out = (uInt)cap;
		if (deflate(&z, Z_FINISH) != Z_STREAM_END)
			abort();
		out->len = z.total_out;
		deflateEnd(&z);
		return;		/* gzip's own trailer is the size (scripts/Makefile.lib) */
	}
	case KGEN_XZ:
		out->len = 0;
		if (lzma_easy_buffer_encode(6, LZMA_CHECK_CRC32, NULL, in->p, in->len, out->p,
					    &out->len, cap) != LZMA_OK)
			abort();
		break;
	case KGEN_LZMA: {
		lzma_stream z = LZMA_STREAM_INIT;
		lzma_options_lzma opt;

		lzma_lzma_preset(&opt, 6);
		if (lzma_alone_encoder(&z, &opt) != LZMA_OK)
			abort();
		z.next_in = in->p;
		z.avail_in = in->len;
		z.next_out = out->p;
		z.avail_out = cap;
		if (lzma_code(&z, LZMA_FINISH) != LZMA_STREAM_END)
			abort();
		out->len = cap - z.avail_out;
		lzma_end(&z);
		break;
	}
	case KGEN_BZIP2: {
		unsigned int n = (unsigned int)cap;

		if (BZ2_bzBuffToBuffCompress((char *)out->p, &n, (char *)in->p,
					     (unsigned int)in->len, 9, 0, 0) != BZ_OK)
			abort();
		out->len = n;
		break;
	}
	case KGEN_LZ4:
		out->len = kgen_lz4(in, out->p, cap);
		break;
	case KGEN_LZO:
		out->len = kgen_lzo(in, out->p, cap);
		break;
	default:
		out->len = ZSTD_compress(out->p, cap, in->p, in->len, 19);
		if (ZSTD_isError(out->len))
			abort();
		break;
	}
	/* size_append: the decompressed size, 4 bytes little-endian */
	for (int i = 0; i < 4; i++)
		out->p[out->len + i] = (uint8_t)(in->len >> (8 * i));
	out->len += 4;
}

static void bz_header(struct kgen_buf *b, const struct kgen_buf *z, uint32_t claimed)
{
	const size_t start = (4 + 1) * 512;
	uint32_t plen = (uint32_t)z->len;

	b->len = start + z->len < 4096 ? 4096 : start + z->len;
	b->p = xcalloc(b->len);
	b->p[0x1f1] = 4;			/* setup_sects */
	memcpy(b->p + 0x202, "HdrS", 4);
	b->p[0x206] = 0x0f;			/* protocol 2.15 */
	b->p[0x207] = 0x02;
	memcpy(b->p + 0x24c, &plen, 4);		/* payload_offset 0, payload_length */
	memcpy(b->p + start, z->p, z->len);
	if (claimed)
		memcpy(b->p + start + z->len - 4, &claimed, 4);
}

void kgen_bzimage(struct kgen_buf *b, const struct kgen_buf *payload, enum kgen_codec c,
		  uint32_t claimed)
{
	struct kgen_buf z;

	kgen_compress(payload, c, &z);
	bz_header(b, &z, claimed);
	kgen_free(&z);
}

void kgen_zstd_bomb(struct kgen_buf *b, size_t n)
{
	struct kgen_buf zeros = { xcalloc(n), n }, z;

	kgen_compress(&zeros, KGEN_ZSTD, &z);
	kgen_free(&zeros);
	bz_header(b, &z, (uint32_t)n);
	kgen_free(&z);
}

void kgen_kallsyms_worst(struct kgen_buf *ro, size_t n)
{
	size_t o = 0, tok = 4 * n, idx;
	uint16_t off = 0;

	ro->len = 4 * n + 256 * 3 + 2 * 256 + 16;
	ro->p = xcalloc(ro->len);
	/* markers-like: 0, 1000, 2000, ... (each step in [512, 65536]) */
	for (size_t i = 0; i < n; i++) {
		uint32_t v = (uint32_t)(1000 * i);

		memcpy(ro->p + 4 * i, &v, 4);
	}
	/* 256 tokens, "0".."9" at 0x30..0x39 as the kernel's always are */
	for (int i = 0; i < 256; i++) {
		ro->p[tok + o] = (uint8_t)(i >= 0x30 && i <= 0x39 ? i : 'a' + i % 26);
		o += 2;
	}
	idx = (tok + o + 1) & ~(size_t)1;
	for (int i = 0; i < 256; i++, off += 2)
		memcpy(ro->p + idx + 2 * i, &off, 2);
}

void kgen_elf_arm64(struct kgen_buf *b, const char *const *syms, size_t nsyms, size_t min_len)
{
	kgen_elf(b, syms, nsyms, NULL, 64, min_len);
	((Elf64_Ehdr *)b->p)->e_machine = EM_AARCH64;
}

void kgen_a64_image(struct kgen_buf *b, const uint8_t *body, size_t body_len, size_t min_len,
		    int be)
{
	const size_t hdr = 64;

	b->len = hdr + body_len < min_len ? min_len : hdr + body_len;
	b->p = xcalloc(b->len);
	memcpy(b->p, "MZ", 2);			/* code0: efi_signature_nop */
	b->p[16] = (uint8_t)(b->len >> 0);	/* image_size (low bytes) */
	b->p[17] = (uint8_t)(b->len >> 8);
	b->p[18] = (uint8_t)(b->len >> 16);
	b->p[24] = (uint8_t)(be ? 1 : 0) | 2;	/* flags: endianness, 4K pages */
	memcpy(b->p + 56, "ARM\x64", 4);
	if (body)
		memcpy(b->p + hdr, body, body_len);
}

void kgen_gzip(struct kgen_buf *b, const struct kgen_buf *payload)
{
	kgen_compress(payload, KGEN_GZIP, b);
}

void kgen_zboot(struct kgen_buf *b, const struct kgen_buf *payload, enum kgen_codec c,
		const char *comp, int truncated)
{
	const size_t start = 4096;
	struct kgen_buf z;
	uint32_t off = truncated ? 1u << 30 : (uint32_t)start, plen;

	kgen_compress(payload, c, &z);
	/* zstd: the 4-byte size follows the payload, outside its counted bytes */
	plen = (uint32_t)(c == KGEN_GZIP ? z.len : z.len - 4);
	b->len = start + z.len;
	b->p = xcalloc(b->len);
	memcpy(b->p, "MZ", 2);
	memcpy(b->p + 4, "zimg", 4);
	memcpy(b->p + 8, &off, 4);
	memcpy(b->p + 12, &plen, 4);
	snprintf((char *)b->p + 24, 8, "%s", comp);
	memcpy(b->p + start, z.p, z.len);
	kgen_free(&z);
}

/* ---- issue 40 ---------------------------------------------------------------- */

const char *kgen40_name(enum kgen40 k)
{
	static const char *const n[KG40__NR] = {
		"plain", "reg-at-zero", "reg-below-half", "reg-undefined", "reg-reserved",
		"ftrace_graph_init_task", "return_to_handler", "ftrace_graph_active",
		"curr_ret_stack", "not-a-kernel", "overlapping-segments", "banner-escape",
		"kallsyms-order",
	};

	return k < KG40__NR ? n[k] : "?";
}

const char *kgen40_line(enum kgen40 k)
{
	switch (k) {
	case KG40_PLAIN:
		return "no function graph tracer";
	case KG40_REG_ZERO:
		return "register_ftrace_graph is in it, not taken (at address 0)";
	case KG40_REG_LOW:
		return "register_ftrace_graph is in it, not taken (below the kernel's half)";
	case KG40_REG_UNDEF:
		return "register_ftrace_graph is in it, not taken (undefined)";
	case KG40_REG_RESERVED:
		return "register_ftrace_graph is in it, not taken (in a reserved section)";
	case KG40_INIT_TASK:
		return "ftrace_graph_init_task is there: fgraph is built in";
	case KG40_RETURN_TO_HANDLER:
		return "return_to_handler is there: fgraph is built in";
	case KG40_GRAPH_ACTIVE:
		return "ftrace_graph_active is there: fgraph is built in";
	case KG40_RET_STACK_NAME:
		return "curr_ret_stack_probe is there: fgraph is built in";
	case KG40_NOT_KERNEL:
		return "is not plainly a kernel: start_kernel is not among its text symbols";
	case KG40_OVERLAP:
		return "two of its PT_LOAD segments overlap";
	case KG40_BANNER_ESC:
		return "shows no Linux banner";
	case KG40_KALLSYMS_ORDER:
		return "the answer would rest on register_ftrace_graph (the function read), whose "
		       "symbol is out of address order in the kallsyms tables";
	default:
		return "?";
	}
}

#define JUNK40	1000

/* The plain kernel's names after its own: 1,000 more, _etext and
 * linux_banner (np[n]: returns linux_banner's index). */
static size_t kg40_tail(const char **np, size_t *n)
{
	static char names[JUNK40][12];
	size_t banner;

	for (size_t i = 0; i < JUNK40; i++) {
		snprintf(names[i], sizeof(names[i]), "j%zu", i);
		np[(*n)++] = names[i];
	}
	np[(*n)++] = "_etext";
	banner = (*n)++;
	np[banner] = "linux_banner";
	return banner;
}

/* ... placed: linux_banner an object at .rodata's start, where its text
 * is, and _etext past the last text symbol. st: the ELF's .symtab. */
static void kg40_place(Elf64_Sym *st, size_t banner)
{
	st[banner + 1].st_value = RODATA_VA;
	st[banner + 1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
	st[banner + 1].st_shndx = 2;
	st[banner].st_value = TEXT_VA + TEXT_LEN;
}

/* The .symtab of an ELF kgen_elf() made. */
static Elf64_Sym *kg40_symtab(struct kgen_buf *b)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b->p;
	Elf64_Shdr *sh = (Elf64_Shdr *)(b->p + eh->e_shoff);

	return (Elf64_Sym *)(b->p + sh[3].sh_offset);
}

void kgen40_planted(struct kgen_buf *b, bool reached)
{
	const char *np[JUNK40 + 16];
	char ro[256] = "Linux version 6.1.0-99-amd64 (debian-kernel@lists.debian.org) #1 SMP\n";
	size_t n = 0, reg, sweep, banner, cachep;
	Elf64_Sym *st;
	uint8_t *code;
	int32_t rel;

	np[n++] = "_stext";
	np[n++] = "start_kernel";
	np[n++] = "schedule";
	np[n++] = "do_exit";
	np[n++] = "panic";
	/* inside .text (16 bytes a symbol): their code is read */
	reg = n;
	np[n++] = "register_ftrace_graph";
	sweep = n;
	np[n++] = "alloc_retstack_tasklist";
	banner = kg40_tail(np, &n);
	/* the stacks' own cache (6.13 and later): their size needs no BTF, so
	 * the function taken is decoded */
	cachep = n;
	np[n++] = "fgraph_stack_cachep";
	kgen_elf(b, np, n, (const uint8_t *)ro, sizeof(ro), 64 << 10);
	st = kg40_symtab(b);
	for (size_t i = 1; i <= n; i++)
		st[i].st_size = 16;
	kg40_place(st, banner);
	st[cachep + 1].st_value = RODATA_VA + 0x80;
	st[cachep + 1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
	st[cachep + 1].st_shndx = 2;
	st[cachep + 1].st_size = 8;
	/* register_ftrace_graph: push %rbp; xor %eax,%eax; pop %rbp; ret, or a
	 * call of the planted function and ret */
	code = b->p + TEXT_OFF + 16 * reg;
	if (reached) {
		rel = (int32_t)(16 * (sweep - reg) - 5);
		code[0] = 0xe8;
		memcpy(code + 1, &rel, 4);
		code[5] = 0xc3;
	} else {
		memcpy(code, "\x55\x31\xc0\x5d\xc3", 5);
	}
	/* the planted one: xor %eax,%eax; ret */
	memcpy(b->p + TEXT_OFF + 16 * sweep, "\x31\xc0\xc3", 3);
}

static size_t up(size_t n, size_t a);

/* KG40_KALLSYMS_ORDER: the plain kernel's symbols as kallsyms tables after
 * its banner in .rodata, register_ftrace_graph's entry after panic's. */
static void kgen40_kallsyms(struct kgen_buf *b, const char *banner, size_t blen)
{
	static char names[JUNK40][12];
	static struct kgen_ksym s[JUNK40 + 16];
	static const char *const core[] = { "start_kernel", "schedule", "do_exit" };
	struct kgen_buf tab, ro;
	size_t n = 0;

	s[n++] = (struct kgen_ksym){ TEXT_VA, 'T', "_text" };
	s[n++] = (struct kgen_ksym){ TEXT_VA, 'T', "_stext" };
	for (size_t i = 0; i < 3; i++)
		s[n++] = (struct kgen_ksym){ TEXT_VA + 0x10 * (i + 1), 'T', core[i] };
	s[n++] = (struct kgen_ksym){ TEXT_VA + 0x50, 'T', "panic" };
	s[n++] = (struct kgen_ksym){ TEXT_VA + 0x40, 'T', "register_ftrace_graph" };
	for (size_t i = 0; i < JUNK40; i++) {
		snprintf(names[i], sizeof(names[i]), "j%zu", i);
		s[n++] = (struct kgen_ksym){ TEXT_VA + 0x100 + 16 * i, 't', names[i] };
	}
	s[n++] = (struct kgen_ksym){ TEXT_VA + 0x100 + 16 * JUNK40, 'T', "_etext" };
	s[n++] = (struct kgen_ksym){ RODATA_VA, 'D', "linux_banner" };
	kgen_kallsyms(&tab, s, n, TEXT_VA);
	ro.len = up(blen, 8) + tab.len;
	ro.p = xcalloc(ro.len);
	memcpy(ro.p, banner, blen);
	memcpy(ro.p + up(blen, 8), tab.p, tab.len);
	kgen_free(&tab);
	kgen_elf(b, NULL, 0, ro.p, ro.len, 64 << 10);
	kgen_free(&ro);
}

void kgen40(struct kgen_buf *b, enum kgen40 k)
{
	const char *np[JUNK40 + 16];
	char ro[256] = "Linux version 6.1.0-99-amd64 (debian-kernel@lists.debian.org) #1 SMP\n";
	size_t n = 0, banner, extra = 0;
	Elf64_Sym *st;

	if (k == KG40_KALLSYMS_ORDER) {
		kgen40_kallsyms(b, ro, sizeof(ro));
		return;
	}
	np[n++] = "_stext";
	if (k != KG40_NOT_KERNEL) {
		np[n++] = "start_kernel";
		np[n++] = "schedule";
		np[n++] = "do_exit";
		np[n++] = "panic";
	}
	banner = kg40_tail(np, &n);
	switch (k) {
	case KG40_REG_ZERO:
	case KG40_REG_LOW:
	case KG40_REG_UNDEF:
	case KG40_REG_RESERVED:
		extra = n;
		np[n++] = "register_ftrace_graph";
		break;
	case KG40_INIT_TASK:
		np[n++] = "ftrace_graph_init_task";
		break;
	case KG40_RETURN_TO_HANDLER:
		np[n++] = "return_to_handler";
		break;
	case KG40_GRAPH_ACTIVE:
		np[n++] = "ftrace_graph_active";
		break;
	case KG40_RET_STACK_NAME:
		np[n++] = "curr_ret_stack_probe";
		break;
	case KG40_BANNER_ESC:
		snprintf(ro, sizeof(ro), "Linux version 6.1.0\x1b[32m-FGRAPH-OK\x1b[0m\n #1\n");
		break;
	default:
		break;
	}
	kgen_elf(b, np, n, (const uint8_t *)ro, sizeof(ro), 64 << 10);
	st = kg40_symtab(b);
	kg40_place(st, banner);
	if (extra) {
		Elf64_Sym *r = &st[extra + 1];

		if (k == KG40_REG_ZERO)
			r->st_value = 0;
		else if (k == KG40_REG_LOW)
			r->st_value = 0x1000;
		else if (k == KG40_REG_UNDEF)
			r->st_shndx = SHN_UNDEF;
		else
			r->st_shndx = SHN_LORESERVE + 1;
	}
	if (k == KG40_OVERLAP) {
		/* the second segment moved over the first's text */
		Elf64_Ehdr *eh = (Elf64_Ehdr *)b->p;
		Elf64_Phdr *ph = (Elf64_Phdr *)(b->p + eh->e_phoff);

		ph[1].p_vaddr = TEXT_VA + 0x800;
	}
}

static size_t up(size_t n, size_t a)
{
	return (n + a - 1) & ~(a - 1);
}

void kgen_kallsyms(struct kgen_buf *b, const struct kgen_ksym *s, size_t n, uint64_t base)
{
	size_t names = 8, o, markers, tt, ti, offs, rb, m = (n + 255) / 256;
	uint16_t toff[256];

	/* sizes first: each name is its type and its characters, one token each */
	o = names;
	for (size_t i = 0; i < n; i++)
		o += 2 + strlen(s[i].name);
	markers = up(o, 4);
	tt = up(markers + 4 * m, 8);
	o = tt;
	for (int c = 0; c < 256; c++) {
		toff[c] = (uint16_t)(o - tt);
		o += 2;			/* one character and its NUL */
	}
	ti = up(o, 2);
	offs = up(ti + 2 * 256, 8);
	rb = up(offs + 4 * n, 8);
	b->len = rb + 8;
	b->p = xcalloc(b->len);
	put_le32(b->p, (uint32_t)n);
	o = names;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(s[i].name);

		if (!(i & 0xff))
			put_le32(b->p + markers + 4 * (i >> 8), (uint32_t)(o - names));
		b->p[o++] = (uint8_t)(l + 1);
		b->p[o++] = (uint8_t)s[i].type;
		memcpy(b->p + o, s[i].name, l);
		o += l;
		put_le32(b->p + offs + 4 * i, (uint32_t)(s[i].addr - base));
	}
	/* token c is the character c where that is printable, else "x" */
	for (int c = 0; c < 256; c++) {
		b->p[tt + toff[c]] = (uint8_t)(c > 0x20 && c < 0x7f ? c : 'x');
		b->p[ti + 2 * c] = (uint8_t)toff[c];
		b->p[ti + 2 * c + 1] = (uint8_t)(toff[c] >> 8);
	}
	for (int i = 0; i < 8; i++)
		b->p[rb + i] = (uint8_t)(base >> (8 * i));
}

/* One tar.xz of a single file, or an ar of the three members: into b. */
static void kgen_archive(struct kgen_buf *b, int ar, const char *const *names,
			 const struct kgen_buf *const *data, size_t n)
{
	struct archive *a = archive_write_new();
	size_t cap = 4096, used = 0;

	for (size_t i = 0; i < n; i++)
		cap += data[i]->len + 1024;
	b->p = xcalloc(cap);
	if (!a || (ar ? archive_write_set_format_ar_svr4(a) :
		   archive_write_set_format_pax_restricted(a)) != ARCHIVE_OK ||
	    (!ar && archive_write_add_filter_xz(a) != ARCHIVE_OK) ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open_memory(a, b->p, cap, &used) != ARCHIVE_OK)
		abort();
	for (size_t i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();

		archive_entry_set_pathname(e, names[i]);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, (la_int64_t)data[i]->len);
		if (archive_write_header(a, e) != ARCHIVE_OK ||
		    (data[i]->len &&
		     archive_write_data(a, data[i]->p, data[i]->len) != (la_ssize_t)data[i]->len))
			abort();
		archive_entry_free(e);
	}
	if (archive_write_close(a) != ARCHIVE_OK)
		abort();
	archive_write_free(a);
	b->len = used;
}

void kgen_deb(struct kgen_buf *b, const char *member, const struct kgen_buf *content)
{
	static const char ctl[] = "Package: linux-image-made\nVersion: 1\nArchitecture: amd64\n";
	struct kgen_buf ver = { (uint8_t *)"2.0\n", 4 }, cf = { (uint8_t *)ctl, sizeof(ctl) - 1 };
	struct kgen_buf doc = { (uint8_t *)"made\n", 5 }, control, data;
	const char *cn[] = { "./control" }, *dn[] = { member ? member : "./usr/share/doc/x" };
	const struct kgen_buf *cd[] = { &cf }, *dd[] = { member ? content : &doc };
	const char *an[] = { "debian-binary", "control.tar.xz", "data.tar.xz" };
	const struct kgen_buf *ad[] = { &ver, &control, &data };

	kgen_archive(&control, 0, cn, cd, 1);
	kgen_archive(&data, 0, dn, dd, 1);
	kgen_archive(b, 1, an, ad, 3);
	kgen_free(&control);
	kgen_free(&data);
}

int kgen_write(const struct kgen_buf *b, const char *path)
{
	FILE *f = fopen(path, "w");
	int err = !f || fwrite(b->p, 1, b->len, f) != b->len;

	if (f && fclose(f))
		err = 1;
	return err ? -1 : 0;
}

void kgen_free(struct kgen_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = 0;
}
