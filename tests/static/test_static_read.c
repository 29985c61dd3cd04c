// SPDX-License-Identifier: GPL-2.0
/*
 * The static verdict's readers and glue (src/static/kimage*.c, src/static/static_kernel.c):
 * kernel files and a running kernel's files, made here from a recorded
 * function (tests/data/static/), and every bad input with its one line.
 *
 * A made vmlinux is an x86-64 ET_EXEC ELF whose executable segment holds the
 * recorded bytes at their addresses, with a .symtab of the recorded symbols
 * (plus an end marker after each part, so that sizes come out as recorded),
 * and a "Linux version" banner in .rodata.
 */
#include <elf.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "lib/kimage_gen.h"
#include "static/kimage.h"
#include "static/kimage_boot.h"
#include "host/kbtf.h"
#include "static/kimage_kcore.h"
#include "static/static_check.h"
#include "static/static_kernel.h"
#include "static/static_rec.h"
#include "watch/plan.h"
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#define BANNER_ADDR	0xffffffff82000000ull
#define BANNER		"Linux version 7.2.13-made (test) #1"
/* the image's GNU build ID note, as /sys/kernel/notes would show it */
#define BUILD_ID	"0123456789abcdef0123456789abcdef01234567"
#define NOTES		"\x04\0\0\0\x14\0\0\0\x03\0\0\0GNU\0" \
			"\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67"

struct made {
	char vmlinux[64], map[64], kallsyms[64], kcore[64], other[64];
};

static char *data_path(const char *name, char *buf, size_t len)
{
	const char *dir = getenv("FGT_TEST_DATA");

	snprintf(buf, len, "%s/static/%s.txt", dir ? dir : "tests/data", name);
	return buf;
}

static void tmpname(char *buf, const char *what)
{
	int fd;

	snprintf(buf, 64, "/tmp/fgt-static-%s.XXXXXX", what);
	fd = mkstemp(buf);
	assert_true(fd >= 0);
	close(fd);
}

/* The recording's symbols and parts, and the extra ones, as kallsyms lines. */
static void sym_lines(const char *rec, const struct fgt_static_rec *r, FILE *out, bool zero_addrs)
{
	char path[512], line[600];
	FILE *in = fopen(data_path(rec, path, sizeof(path)), "r");

	assert_non_null(in);
	while (fgets(line, sizeof(line), in)) {
		unsigned long long a;
		char t, name[512];

		if (sscanf(line, "sym %llx %c %511s", &a, &t, name) == 3)
			fprintf(out, "%016llx %c %s\n", zero_addrs ? 0ull : a, t, name);
	}
	fclose(in);
	for (unsigned int i = 0; i < r->code.nr_parts; i++)
		fprintf(out, "%016llx t __end_part%u\n", zero_addrs ? 0ull :
			(unsigned long long)(r->code.part[i].addr + r->code.part[i].len), i);
	fprintf(out, "%016llx D linux_banner\n", zero_addrs ? 0ull : BANNER_ADDR);
}

/* A whole kallsyms file: the recording's symbols and enough others to look real. */
static void write_kallsyms(const char *rec, const struct fgt_static_rec *r, const char *path,
			   bool zero_addrs, bool with_register)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	sym_lines(rec, r, f, zero_addrs);
	fprintf(f, "%016llx T _etext\n", zero_addrs ? 0ull : 0xffffffff81f00000ull);
	for (int i = 0; i < 1200; i++)
		fprintf(f, "%016llx t filler_%d\n", zero_addrs ? 0ull : 0xffffffff81e00000ull + 16 * i, i);
	fclose(f);
	if (!with_register) {
		char cmd[256];

		/* a kernel without fgraph: none of its names (fgraph_sign()) */
		snprintf(cmd, sizeof(cmd), "sed -i -E '/(fgraph|ftrace_graph|ret_stack|retstack|"
			 "return_to_handler|function_graph|graph_ops|fgraph_entry)/d' %s", path);
		assert_int_equal(system(cmd), 0);
	}
}

struct elfsym {
	uint64_t addr;
	char type;
	char name[128];
};

/* An x86-64 vmlinux-like ELF: one PT_LOAD per part and one for the banner,
 * sections .text (part 0), .rodata (banner), .symtab, .strtab, .shstrtab. */
static int cmp_elfsym(const void *a, const void *b)
{
	const struct elfsym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The recording's symbols as kallsyms tables (tests/lib/kimage_gen.c), in
 * address order from _text (the lowest text symbol's), 1,100 data symbols
 * after them so that the table is a plausible size. shuffle: the entry of
 * register_ftrace_graph moved after the next one, out of address order
 * (issue 40, class 5). Into tab; *text_addr: _text's address.
 */
static void kallsyms_blob(const struct elfsym *in, size_t n, bool shuffle, struct kgen_buf *tab,
			  uint64_t *text_addr)
{
	static struct elfsym es[1024];
	static char fill[1100][24];
	static struct kgen_ksym ks[1024 + 1101];
	size_t k = 0, rfg = 0;
	uint64_t lo = ~0ull;

	memcpy(es, in, n * sizeof(*es));
	qsort(es, n, sizeof(*es), cmp_elfsym);
	for (size_t i = 0; i < n; i++)
		if ((es[i].type == 't' || es[i].type == 'T') && es[i].addr < lo)
			lo = es[i].addr;
	ks[k++] = (struct kgen_ksym){ lo, 'T', "_text" };
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(es[i].name, "register_ftrace_graph"))
			rfg = k;
		ks[k++] = (struct kgen_ksym){ es[i].addr, es[i].type, es[i].name };
	}
	for (int i = 0; i < 1100; i++) {
		snprintf(fill[i], sizeof(fill[i]), "filler_%d", i);
		ks[k++] = (struct kgen_ksym){ es[n - 1].addr + 0x1000 + 16 * (uint64_t)i, 'd', fill[i] };
	}
	if (shuffle) {
		struct kgen_ksym t = ks[rfg];

		assert_true(rfg && rfg + 1 < k && ks[rfg + 1].addr > t.addr);
		ks[rfg] = ks[rfg + 1];
		ks[rfg + 1] = t;
	}
	kgen_kallsyms(tab, ks, k, lo);
	*text_addr = lo;
}

/* kallsyms: 0, the .symtab as symtab says; 1, no .symtab and kallsyms
 * tables in .rodata; 2, the same with one entry out of order. */
static void write_vmlinux_k(const char *rec, const struct fgt_static_rec *r, const char *path,
			    bool symtab, int kallsyms)
{
	char *syms = NULL;
	size_t syms_len = 0;
	FILE *m = open_memstream(&syms, &syms_len), *f;
	struct elfsym es[1024];
	size_t nes = 0, off, np = r->code.nr_parts + 1;
	char *line, *save = NULL;
	static const char shstr[] = "\0.text\0.rodata\0.symtab\0.strtab\0.shstrtab\0.notes";
	char strtab[64 * 1024];
	size_t strlen_ = 1;
	Elf64_Sym st[1024];
	Elf64_Ehdr eh = { .e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			  .e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr), .e_shentsize = sizeof(Elf64_Shdr) };
	Elf64_Phdr ph[FGT_STATIC_MAX_PARTS + 1];
	Elf64_Shdr sh[7];
	struct kgen_buf tab = { 0 };
	uint64_t text_lo = 0;
	size_t ro_len;

	sym_lines(rec, r, m, false);
	fclose(m);
	for (line = strtok_r(syms, "\n", &save); line && nes < 1024; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a;

		if (sscanf(line, "%llx %c %127s", &a, &es[nes].type, es[nes].name) == 3)
			es[nes++].addr = a;
	}
	free(syms);
	if (kallsyms) {
		kallsyms_blob(es, nes, kallsyms == 2, &tab, &text_lo);
		symtab = false;
	}
	ro_len = kallsyms ? ((sizeof(BANNER) + 7) & ~(size_t)7) + tab.len : sizeof(BANNER);
	memset(strtab, 0, sizeof(strtab));
	memset(st, 0, sizeof(st));
	for (size_t i = 0; i < nes; i++) {
		size_t l = strlen(es[i].name) + 1;
		bool text = es[i].type == 't' || es[i].type == 'T';

		memcpy(strtab + strlen_, es[i].name, l);
		st[i + 1].st_name = (Elf64_Word)strlen_;
		strlen_ += l;
		st[i + 1].st_value = es[i].addr;
		st[i + 1].st_info = ELF64_ST_INFO(es[i].type >= 'a' ? STB_LOCAL : STB_GLOBAL,
						  text ? STT_FUNC : STT_OBJECT);
		st[i + 1].st_shndx = text ? 1 : 2;
	}
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_phnum = (Elf64_Half)np;
	off = sizeof(eh) + np * sizeof(Elf64_Phdr);
	memset(ph, 0, sizeof(ph));
	for (unsigned int i = 0; i < r->code.nr_parts; i++) {
		ph[i] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = off,
				      .p_vaddr = r->code.part[i].addr, .p_filesz = r->code.part[i].len,
				      .p_memsz = r->code.part[i].len };
		off += r->code.part[i].len;
	}
	off = (off + 7) & ~(size_t)7;	/* .rodata 8-aligned, its tables too */
	ph[np - 1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R, .p_offset = off,
				   .p_vaddr = BANNER_ADDR, .p_filesz = ro_len, .p_memsz = ro_len };
	off += ro_len;
	off = (off + 7) & ~(size_t)7;	/* the symbol table and headers 8-aligned, as ld does */
	memset(sh, 0, sizeof(sh));
	/* .text from _text where the kallsyms tables must put it there */
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_addr = kallsyms ? text_lo : r->code.part[0].addr,
			      .sh_offset = ph[0].p_offset, .sh_size = r->code.part[0].len };
	sh[2] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
			      .sh_addr = BANNER_ADDR, .sh_offset = ph[np - 1].p_offset,
			      .sh_size = ro_len };
	sh[3] = (Elf64_Shdr){ .sh_name = 15, .sh_type = SHT_SYMTAB, .sh_offset = off,
			      .sh_size = (nes + 1) * sizeof(Elf64_Sym), .sh_link = 4,
			      .sh_entsize = sizeof(Elf64_Sym) };
	off += sh[3].sh_size;
	sh[4] = (Elf64_Shdr){ .sh_name = 23, .sh_type = SHT_STRTAB, .sh_offset = off, .sh_size = strlen_ };
	off += strlen_;
	sh[5] = (Elf64_Shdr){ .sh_name = 31, .sh_type = SHT_STRTAB, .sh_offset = off, .sh_size = sizeof(shstr) };
	off += sizeof(shstr);
	sh[6] = (Elf64_Shdr){ .sh_name = 41, .sh_type = SHT_NOTE, .sh_offset = off,
			      .sh_size = sizeof(NOTES) - 1 };
	off += sizeof(NOTES) - 1;
	off = (off + 7) & ~(size_t)7;
	if (!symtab)
		sh[3].sh_type = SHT_NULL;	/* stripped */
	eh.e_shoff = off;
	eh.e_shnum = 7;
	eh.e_shstrndx = 5;
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(&eh, sizeof(eh), 1, f);
	fwrite(ph, sizeof(Elf64_Phdr), np, f);
	for (unsigned int i = 0; i < r->code.nr_parts; i++)
		fwrite(r->code.part[i].bytes, 1, r->code.part[i].len, f);
	while (ftell(f) % 8)
		fputc(0, f);
	fwrite(BANNER, 1, sizeof(BANNER), f);
	while (ftell(f) % 8)
		fputc(0, f);
	if (kallsyms)
		fwrite(tab.p, 1, tab.len, f);
	kgen_free(&tab);
	while (ftell(f) % 8)
		fputc(0, f);
	fwrite(st, sizeof(Elf64_Sym), nes + 1, f);
	fwrite(strtab, 1, strlen_, f);
	fwrite(shstr, 1, sizeof(shstr), f);
	fwrite(NOTES, 1, sizeof(NOTES) - 1, f);
	while (ftell(f) % 8)
		fputc(0, f);
	fwrite(sh, sizeof(sh), 1, f);
	/* a kernel image is never this small: pad as a real one would be */
	for (int i = 0; i < 4096; i++)
		fputc(0, f);
	assert_int_equal(fclose(f), 0);
}

static void write_vmlinux(const char *rec, const struct fgt_static_rec *r, const char *path,
			  bool symtab)
{
	write_vmlinux_k(rec, r, path, symtab, 0);
}

static struct fgt_static_rec rec;
static struct made mk;

static int setup(void **state)
{
	char path[512], msg[256];

	if (fgt_static_rec_load(data_path("lab-fixed", path, sizeof(path)), &rec, msg, sizeof(msg)))
		return -1;
	tmpname(mk.vmlinux, "vmlinux");
	tmpname(mk.map, "map");
	tmpname(mk.kallsyms, "kallsyms");
	tmpname(mk.kcore, "kcore");
	tmpname(mk.other, "other");
	write_vmlinux("lab-fixed", &rec, mk.vmlinux, true);
	write_kallsyms("lab-fixed", &rec, mk.map, false, true);
	return 0;
}

static int teardown(void **state)
{
	unlink(mk.vmlinux);
	unlink(mk.map);
	unlink(mk.kallsyms);
	unlink(mk.kcore);
	unlink(mk.other);
	fgt_static_rec_free(&rec);
	return 0;
}

/* The answer from the recording itself, as tests/static/test_static.c checks
 * it. */
static const char *expected(void)
{
	static struct fgt_static_result r;

	fgt_static_decode(&rec.code, &rec.k, &r);
	return r.evidence;
}

static enum fgt_verdict check(const struct fgt_static_opts *o, struct fgt_static_result *r)
{
	return fgt_static_check(o, r);
}

static void expect(const struct fgt_static_opts *o, enum fgt_static_why why, const char *fmt, ...)
{
	struct fgt_static_result r;
	char want[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	assert_int_equal(check(o, &r), FGT_VERDICT_UNKNOWN);
	assert_int_equal(r.why, why);
	assert_string_equal(r.evidence, want);
}

static void test_vmlinux(void **state)
{
	struct fgt_static_opts o = { .kernel = mk.vmlinux };
	struct fgt_static_result r;

	assert_int_equal(check(&o, &r), FGT_VERDICT_FIXED);
	assert_string_equal(r.evidence, expected());
	assert_non_null(strstr(r.symbols, ".symtab"));
	assert_string_equal(r.func, "register_ftrace_graph");
	assert_int_equal(r.func_len, rec.code.part[0].len);
}

static void test_system_map(void **state)
{
	struct fgt_static_opts o = { .kernel = mk.vmlinux, .system_map = mk.map };
	struct fgt_static_result r;

	assert_int_equal(check(&o, &r), FGT_VERDICT_FIXED);
	assert_string_equal(r.evidence, expected());
	assert_non_null(strstr(r.symbols, "System.map"));
}

/* Debian's System.map, word for word: the image's own symbols answer, as
 * they would without it (the warning line says so). */
static void test_placeholder_map(void **state)
{
	struct fgt_static_opts o = { .kernel = mk.vmlinux, .system_map = mk.other };
	struct fgt_static_result r;
	FILE *f = fopen(mk.other, "w");

	fputs("ffffffffffffffff B The real System.map is in the linux-image-<version>-dbg package\n", f);
	fclose(f);
	assert_int_equal(check(&o, &r), FGT_VERDICT_FIXED);
	assert_string_equal(r.evidence, expected());
	assert_null(strstr(r.symbols, "System.map"));
	assert_non_null(strstr(r.symbols, ".symtab"));
}

/* Not a System.map, and no placeholder either (issue 40's audit: an ELF
 * binary was called Debian's placeholder, and the image answered instead):
 * unknown, saying what it is not. */
static void test_not_a_map(void **state)
{
	struct fgt_static_opts o = { .kernel = mk.vmlinux, .system_map = mk.vmlinux };
	struct fgt_static_result r;
	char want[512];

	assert_int_equal(check(&o, &r), FGT_VERDICT_UNKNOWN);
	assert_int_equal(r.why, FGT_SW_BAD_MAP);
	snprintf(want, sizeof(want), "%s is not a System.map: ", mk.vmlinux);
	assert_non_null(strstr(r.evidence, want));
	assert_null(strstr(r.evidence, "placeholder"));
}

/* Another kernel's System.map: its linux_banner is not this image's. */
static void test_other_map(void **state)
{
	struct fgt_static_opts o = { .kernel = mk.vmlinux, .system_map = mk.other };
	char cmd[256];

	write_kallsyms("lab-fixed", &rec, mk.other, false, true);
	snprintf(cmd, sizeof(cmd), "sed -i 's/^ffffffff82000000 D linux_banner/ffffffff82000100 D linux_banner/' %s",
		 mk.other);
	assert_int_equal(system(cmd), 0);
	expect(&o, FGT_SW_BAD_MAP, "%s does not belong to vmlinux %s (linux_banner is not there)",
	       mk.other, mk.vmlinux);
}

static void test_stripped(void **state)
{
	struct fgt_static_opts o = { .kernel = mk.other };

	write_vmlinux("lab-fixed", &rec, mk.other, false);
	expect(&o, FGT_SW_NO_SYMBOLS, "vmlinux %s has no symbols: no .symtab, and no kallsyms token "
	       "table in it (CONFIG_KALLSYMS off?); give its System.map", mk.other);
}

static void test_not_a_kernel(void **state)
{
	struct fgt_static_opts o = { .kernel = mk.other };
	FILE *f = fopen(mk.other, "w");

	for (int i = 0; i < 8192; i++)
		fputc('x', f);
	fclose(f);
	expect(&o, FGT_SW_NOT_KERNEL, "%s: not a kernel image (neither a vmlinux, a bzImage nor an arm64 Image)",
	       mk.other);
	o.kernel = "/nonexistent/vmlinuz";
	expect(&o, FGT_SW_READ, "/nonexistent/vmlinuz: No such file or directory");
}

/* An ELF program is not a kernel either. */
static void test_elf_program(void **state)
{
	struct fgt_static_opts o = { .kernel = "/proc/self/exe" };
	struct fgt_static_result r;

	assert_int_equal(check(&o, &r), FGT_VERDICT_UNKNOWN);
	assert_int_equal(r.why, FGT_SW_NOT_KERNEL);
	assert_non_null(strstr(r.evidence, "an ELF file, but not a kernel (no executable segment at a "
			       "kernel address)"));
}

/* bzImage headers with payloads that are not a kernel's. */
static void write_bzimage(const char *path, const uint8_t *payload, size_t n, uint32_t claimed)
{
	uint8_t img[8192] = { 0 };
	uint32_t off = 0, start = (4 + 1) * 512;

	img[0x1f1] = 4;				/* setup_sects */
	memcpy(img + 0x202, "HdrS", 4);
	img[0x206] = 0x0f;			/* protocol 2.15 */
	img[0x207] = 0x02;
	memcpy(img + 0x248, &off, 4);
	memcpy(img + 0x24c, &claimed, 4);
	memcpy(img + start, payload, n);
	FILE *f = fopen(path, "w");

	fwrite(img, 1, sizeof(img), f);
	fclose(f);
}

/* The made vmlinux in a bzImage of each of the kernel's seven codecs: the
 * same answer, the codec named in the source. */
static void test_bzimage_codecs(void **state)
{
	struct fgt_static_opts o = { .kernel = mk.other };
	struct fgt_static_result r;
	struct kgen_buf elf, bz;
	FILE *f = fopen(mk.vmlinux, "r");
	char want[256];
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	elf.p = malloc((size_t)n);
	elf.len = (size_t)n;
	assert_int_equal(fread(elf.p, 1, elf.len, f), elf.len);
	fclose(f);
	for (int c = 0; c < KGEN__NR; c++) {
		kgen_bzimage(&bz, &elf, c, 0);
		assert_int_equal(kgen_write(&bz, mk.other), 0);
		kgen_free(&bz);
		check(&o, &r);
		print_message("  %s: %s\n", kgen_codec_name(c), r.evidence);
		assert_int_equal(r.verdict, FGT_VERDICT_FIXED);
		assert_string_equal(r.evidence, expected());
		snprintf(want, sizeof(want), "bzImage %s (%s)", mk.other, kgen_codec_name(c));
		assert_string_equal(r.source, want);
	}
	free(elf.p);
}

/*
 * The kallsyms tables alone (no .symtab): the answer of the recording, read
 * from them. Issue 40, class 5: with register_ftrace_graph's entry moved one
 * place, out of address order (1 entry in 1,160: a reading tolerates 1 %),
 * the answer would rest on it: unknown, not "fixed".
 */
static void test_kallsyms_order(void **state)
{
	struct fgt_static_opts o = { .kernel = mk.other };
	struct fgt_static_result r;

	write_vmlinux_k("lab-fixed", &rec, mk.other, false, 1);
	assert_int_equal(check(&o, &r), FGT_VERDICT_FIXED);
	assert_string_equal(r.evidence, expected());
	assert_non_null(strstr(r.symbols, "the image's kallsyms tables"));
	write_vmlinux_k("lab-fixed", &rec, mk.other, false, 2);
	expect(&o, FGT_SW_SHAPE, "the answer would rest on register_ftrace_graph (the function "
	       "read), whose symbol is out of address order in the kallsyms tables: the tables "
	       "contradict each other");
}

/*
 * The names a reader saw and did not take, read back one by one. The list
 * is no C string: the fuzzer found a reader that ran off its end (strchr on
 * an unterminated buffer), so every entry is read within doubt_len.
 */
static void test_doubt_list(void **state)
{
	struct fgt_kimage im = { 0 };
	char name[16], why[32], big[64];
	size_t at = 0;

	assert_int_equal(fgt_kimage_doubt_next(&im, 0, name, sizeof(name), why, sizeof(why)), 0);
	fgt_kimage_doubt_add(&im, "fgraph_ops", "out of order");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	fgt_kimage_doubt_add(&im, big, "too long for name[16]");
	fgt_kimage_doubt_add(&im, "a", "");
	assert_int_equal(im.nr_doubt, 3);
	at = fgt_kimage_doubt_next(&im, at, name, sizeof(name), why, sizeof(why));
	assert_true(at > 0);
	assert_string_equal(name, "fgraph_ops");
	assert_string_equal(why, "out of order");
	/* the 63-byte name does not fit name[16]: passed over, not cut */
	at = fgt_kimage_doubt_next(&im, at, name, sizeof(name), why, sizeof(why));
	assert_string_equal(name, "a");
	assert_string_equal(why, "");
	assert_int_equal(fgt_kimage_doubt_next(&im, at, name, sizeof(name), why, sizeof(why)), 0);
	assert_string_equal(fgt_kimage_doubt(&im, "a", why, sizeof(why)), "");
	assert_null(fgt_kimage_doubt(&im, "b", why, sizeof(why)));
	free(im.doubt);
}

/*
 * check --kernel PKG.deb (issue 40): the vmlinuz read out of the package's
 * data member with libarchive, where 6.1/6.12 (./boot/vmlinuz-R) and 7.x
 * (./usr/lib/modules/R/vmlinuz) put it; a package without one is no kernel.
 */
static void test_deb(void **state)
{
	struct fgt_static_opts o = { .kernel = mk.other };
	struct fgt_static_result r;
	struct kgen_buf elf, bz, deb;
	static const char *const members[] = { "./boot/vmlinuz-7.2.13-made",
						"./usr/lib/modules/7.2.13-made/vmlinuz" };
	FILE *f = fopen(mk.vmlinux, "r");
	char want[400];
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	elf.p = malloc((size_t)n);
	elf.len = (size_t)n;
	assert_int_equal(fread(elf.p, 1, elf.len, f), elf.len);
	fclose(f);
	kgen_bzimage(&bz, &elf, KGEN_ZSTD, 0);
	free(elf.p);
	for (int i = 0; i < 2; i++) {
		kgen_deb(&deb, members[i], &bz);
		assert_int_equal(kgen_write(&deb, mk.other), 0);
		kgen_free(&deb);
		assert_int_equal(check(&o, &r), FGT_VERDICT_FIXED);
		assert_string_equal(r.evidence, expected());
		snprintf(want, sizeof(want), "bzImage %s (zstd) in %s", members[i], mk.other);
		assert_string_equal(r.source, want);
	}
	kgen_free(&bz);
	kgen_deb(&deb, NULL, NULL);
	assert_int_equal(kgen_write(&deb, mk.other), 0);
	kgen_free(&deb);
	expect(&o, FGT_SW_NOT_KERNEL, "%s: a package with no vmlinuz (./boot/vmlinuz-RELEASE or "
	       "./usr/lib/modules/RELEASE/vmlinuz): not a kernel image package", mk.other);
}

static void test_bzimage_bad(void **state)
{
	struct fgt_static_opts o = { .kernel = mk.other };
	static const uint8_t bz2[] = { 'B', 'Z', 'h', '9', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t lz4[] = { 0x02, 0x21, 0x4c, 0x18, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0,
				       0, 0x10, 0, 0 };
	static const uint8_t lzo[] = { 0x89, 'L', 'Z', 'O', 0, 0x0d, 0x0a, 0x1a, 0x0a, 0x10, 0x30,
				       0, 0, 0, 0, 0, 0x10, 0, 0 };
	static const uint8_t junk[] = { 0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	/* gzip magic, junk, and a 4096-byte size trailer: 160 bytes, a plausible ratio */
	uint8_t gz[160] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4 };
	uint8_t big[256] = { 0 };

	/* a stream header and nothing after it, 4096 bytes claimed from 256 */
	memcpy(big, bz2, sizeof(bz2));
	big[sizeof(big) - 3] = 0x10;
	write_bzimage(mk.other, big, sizeof(big), sizeof(big));
	expect(&o, FGT_SW_NOT_KERNEL, "%s: the bzip2 payload does not decompress (0 of 4096 bytes)",
	       mk.other);
	/* lz4: a block longer than any 8 MiB block compresses to */
	memset(big, 0, sizeof(big));
	memcpy(big, lz4, sizeof(lz4));
	big[sizeof(big) - 3] = 0x10;
	write_bzimage(mk.other, big, sizeof(big), sizeof(big));
	expect(&o, FGT_SW_NOT_KERNEL, "%s: the lz4 payload does not decompress (0 of 4096 bytes)",
	       mk.other);
	/* lzo: 4096 bytes claimed from 40 */
	memset(big, 0, sizeof(big));
	memcpy(big, lzo, sizeof(lzo));
	big[sizeof(big) - 3] = 0x10;
	write_bzimage(mk.other, big, 40, 40);
	expect(&o, FGT_SW_NOT_KERNEL, "%s: implausible decompressed size 0 (from 40 compressed "
	       "bytes; init_size 0, cap 256 MiB)", mk.other);
	/* lzo: a header, then the end marker: nothing out, not an ELF file */
	write_bzimage(mk.other, big, sizeof(big), sizeof(big));
	expect(&o, FGT_SW_NOT_KERNEL, "%s: the lzo payload is not an ELF file", mk.other);
	write_bzimage(mk.other, junk, sizeof(junk), sizeof(junk));
	expect(&o, FGT_SW_NOT_KERNEL, "%s: a bzImage whose payload is in no compression format known here",
	       mk.other);
	write_bzimage(mk.other, junk, sizeof(junk), 1u << 20);
	expect(&o, FGT_SW_NOT_KERNEL, "%s: truncated bzImage (payload past the end of the file)", mk.other);
	/* no valid stream behind the magic */
	gz[sizeof(gz) - 3] = 0x10;
	write_bzimage(mk.other, gz, sizeof(gz), sizeof(gz));
	expect(&o, FGT_SW_NOT_KERNEL, "%s: the gzip payload does not decompress (0 of 4096 bytes)", mk.other);
	/* 4096 bytes claimed from 18: over the ratio a kernel compresses by */
	gz[15] = 0x10;
	write_bzimage(mk.other, gz, 18, 18);
	expect(&o, FGT_SW_NOT_KERNEL, "%s: implausible decompressed size 4096 (from 18 compressed "
	       "bytes; init_size 0, cap 256 MiB)", mk.other);
}

/* The running kernel, made of files: kcore as /proc/kcore shows it, kallsyms. */
static void make_kcore(void)
{
	struct fgt_kimage im;
	struct fgt_vmcoreinfo vi = { 0 };
	char msg[256];
	FILE *f;

	assert_int_equal(fgt_kimage_open_file(&im, mk.vmlinux, NULL, msg, sizeof(msg)), 0);
	f = fopen(mk.kcore, "w");
	/* no kallsyms tables in this image: VMCOREINFO without them, kallsyms is read */
	assert_int_equal(fgt_kimage_write_core(&im, &vi, f), 0);
	fclose(f);
	fgt_kimage_close(&im);
}

static void test_running(void **state)
{
	struct fgt_static_opts o = { .kcore = mk.kcore, .kallsyms = mk.kallsyms, .no_bpf = true };
	struct fgt_static_result r;

	make_kcore();
	write_kallsyms("lab-fixed", &rec, mk.kallsyms, false, true);
	assert_int_equal(check(&o, &r), FGT_VERDICT_FIXED);
	assert_string_equal(r.evidence, expected());
	assert_string_equal(r.source, mk.kcore);
	assert_string_equal(r.symbols, mk.kallsyms);
}

static void test_running_bad(void **state)
{
	struct fgt_static_opts o = { .kcore = "/nonexistent/kcore", .kallsyms = mk.kallsyms, .no_bpf = true };

	write_kallsyms("lab-fixed", &rec, mk.kallsyms, false, true);
	expect(&o, FGT_SW_NO_KCORE, "no /nonexistent/kcore (CONFIG_PROC_KCORE off, or a container "
	       "without it)");
	o.kcore = "/dev/null";	/* what a container bind-mounts over /proc/kcore */
	expect(&o, FGT_SW_NO_KCORE, "/dev/null is empty (a container masks it so)");
	o.kcore = mk.kcore;
	write_kallsyms("lab-fixed", &rec, mk.kallsyms, true, true);
	expect(&o, FGT_SW_KSYMS_HIDDEN, "kallsyms addresses are hidden (kernel.kptr_restrict, or not "
	       "root): run as root");
}

/* ---- BTF: task_struct::ret_stack, read as far as needed ---------------------- */

struct blob {
	uint8_t b[64 << 10];
	size_t len;
	size_t read;		/* bytes the reader was asked for */
};

static void put32(struct blob *x, size_t at, uint32_t v)
{
	memcpy(x->b + at, &v, sizeof(v));
}

/* type record: name, info (kind << 24 | vlen), size or type */
static void rec3(struct blob *x, size_t *o, uint32_t name, uint32_t kind, uint32_t vlen, uint32_t st)
{
	put32(x, *o, name);
	put32(x, *o + 4, kind << 24 | vlen);
	put32(x, *o + 8, st);
	*o += 12;
}

/*
 * unsigned long (1), struct ftrace_ret_stack of 32 bytes (2), a pointer to
 * target (3), task_struct { pid; ret_stack; } (4), then pad INTs: the answer
 * is in the first types, as in Debian's BTF.
 */
static void make_btf(struct blob *x, uint32_t target, unsigned int pad)
{
	static const char strs[] = "\0unsigned long\0ftrace_ret_stack\0task_struct\0pid\0ret_stack";
	size_t o = 24, types = 24;
	enum { S_UL = 1, S_FRS = 15, S_TS = 32, S_PID = 44, S_RS = 48 };

	memset(x, 0, sizeof(*x));
	rec3(x, &o, S_UL, 1, 0, 8);
	put32(x, o, 64);
	o += 4;
	rec3(x, &o, S_FRS, 4, 0, 32);
	rec3(x, &o, 0, 2, 0, target);
	rec3(x, &o, S_TS, 4, 2, 9000);
	/* members: name, type, bit offset */
	put32(x, o, S_PID);
	put32(x, o + 4, 1);
	put32(x, o + 8, 0);
	put32(x, o + 12, S_RS);
	put32(x, o + 16, 3);
	put32(x, o + 20, 64);
	o += 24;
	for (unsigned int i = 0; i < pad; i++) {
		rec3(x, &o, S_UL, 1, 0, 8);
		put32(x, o, 64);
		o += 4;
	}
	memcpy(x->b + o, strs, sizeof(strs));
	x->b[0] = 0x9f;
	x->b[1] = 0xeb;
	x->b[2] = 1;
	put32(x, 4, 24);
	put32(x, 8, 0);
	put32(x, 12, (uint32_t)(o - types));
	put32(x, 16, (uint32_t)(o - types));
	put32(x, 20, sizeof(strs));
	x->len = o + sizeof(strs);
}

static int blob_read(void *arg, uint64_t off, void *buf, size_t len)
{
	struct blob *x = arg;

	if (off > x->len || len > x->len - off)
		return -1;
	memcpy(buf, x->b + off, len);
	x->read += len;
	return 0;
}

/* The live view's plan answers from libbpf's parse of the same bytes
 * (src/watch/plan.c): the same, where libbpf takes them at all. */
static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

static void btf_libbpf(const struct blob *x, int want, enum fgt_stack_src src, uint32_t bytes)
{
	libbpf_print_fn_t old = libbpf_set_print(libbpf_quiet);
	struct btf *lb = btf__new(x->b, x->len);
	struct fgt_btf_stack b;
	struct fgt_kernel k = { .cache_size_off = 1 };

	libbpf_set_print(old);

	if (libbpf_get_error(lb))
		return;		/* refused whole: the plan would have no BTF */
	assert_int_equal(fgt_btf_read_task(lb, btf__find_by_name_kind(lb, "task_struct",
								       BTF_KIND_STRUCT),
					   0, &b, &k.task, &k.cache_size_off), want);
	assert_int_equal(k.cache_size_off, 0);	/* these have no kmem_cache */
	if (!want)
		assert_int_equal(k.task.ret_stack, b.off);
	if (!want) {
		assert_int_equal(b.src, src);
		assert_int_equal(b.bytes, bytes);
		assert_int_equal(b.off, 8);
	}
	btf__free(lb);
}

static void btf_both(struct blob *x, int want, enum fgt_stack_src src, uint32_t bytes)
{
	struct fgt_btf_stack b;

	assert_int_equal(fgt_btf_ret_stack(x->b, x->len, &b), want);
	if (!want) {
		assert_int_equal(b.src, src);
		assert_int_equal(b.bytes, bytes);
		assert_int_equal(b.off, 8);	/* make_btf's ret_stack: bit 64 */
	}
	x->read = 0;
	assert_int_equal(fgt_btf_ret_stack_read(blob_read, x, x->len, &b), want);
	if (!want) {
		assert_int_equal(b.src, src);
		assert_int_equal(b.bytes, bytes);
		assert_int_equal(b.off, 8);
	}
	btf_libbpf(x, want, src, bytes);
}

static void test_btf(void **state)
{
	static struct blob x;

	/* a struct: the frame array of up to 6.10 */
	make_btf(&x, 2, 3000);
	btf_both(&x, 0, FGT_STACK_KMALLOC_ARRAY, FGT_RETFUNC_DEPTH * 32);
	/* the types before the answer's, and the strings up to its names: no more */
	assert_true(x.read < 8192 + 4096 + 24);
	assert_true(x.len > 40000);
	/* unsigned long: the 4096-byte stacks */
	make_btf(&x, 1, 10);
	btf_both(&x, 0, FGT_STACK_KMALLOC, FGT_SHADOW_STACK_SIZE);
	/* a pointer to what is not there, or no pointer at all */
	make_btf(&x, 99999, 10);
	btf_both(&x, -1, 0, 0);
	make_btf(&x, 2, 10);
	put32(&x, 24 + 16 + 12 * 3 + 12 + 4, 0);	/* ret_stack's type: void */
	btf_both(&x, -1, 0, 0);
	/* the types end inside task_struct's members */
	make_btf(&x, 2, 0);
	put32(&x, 12, 16 + 12 * 3 + 12);
	btf_both(&x, -1, 0, 0);
	/* not BTF */
	make_btf(&x, 2, 0);
	x.b[0] = 0;
	btf_both(&x, -1, 0, 0);
}

/* A BTF blob as a file (the running kernel's /sys/kernel/btf/vmlinux). */
static void write_blob(const struct blob *x, const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(x->b, 1, x->len, f), x->len);
	assert_int_equal(fclose(f), 0);
}

/* All of a range or -1; counted where asked, and only there. */
static void test_pread_all(void **state)
{
	static struct blob x;
	struct fgt_kio io = {}, before = fgt_kio;
	char buf[64];
	int fd;

	make_btf(&x, 1, 10);
	write_blob(&x, mk.other);
	fd = open(mk.other, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fgt_pread_all(fd, buf, 24, 0, &io), 0);
	assert_memory_equal(buf, x.b, 24);
	assert_int_equal(fgt_pread_all(fd, buf, 8, x.len - 8, &io), 0);
	assert_memory_equal(buf, x.b + x.len - 8, 8);
	assert_int_equal(io.reads, 2);
	assert_int_equal(io.bytes, 32);
	/* past the end: short, -1; counted all the same (the read was made) */
	assert_int_equal(fgt_pread_all(fd, buf, 16, x.len - 8, &io), -1);
	assert_int_equal(io.reads, 4);
	assert_int_equal(io.bytes, 40);
	/* NULL: read, not counted anywhere */
	assert_int_equal(fgt_pread_all(fd, buf, 24, 0, NULL), 0);
	assert_memory_equal(&fgt_kio, &before, sizeof(before));
	close(fd);
}

/*
 * "Not affected" needs positive evidence: the name missing from a whole
 * table, and the kernel's own BTF (where there is one) agreeing.
 */
static void test_not_affected(void **state)
{
	struct fgt_static_opts o = { .kcore = mk.kcore, .kallsyms = mk.kallsyms, .btf = "/nonexistent",
				     .no_bpf = true };
	struct fgt_static_result r;
	static struct blob x;
	char want[512];
	struct fgt_kio io0, without;

	make_kcore();
	write_kallsyms("lab-fixed", &rec, mk.kallsyms, false, false);
	io0 = fgt_kio;
	assert_int_equal(check(&o, &r), FGT_VERDICT_NOT_AFFECTED);
	without = (struct fgt_kio){ fgt_kio.reads - io0.reads, fgt_kio.bytes - io0.bytes };
	snprintf(want, sizeof(want), "no register_ftrace_graph in %s; no BTF or IKCONFIG to confirm "
		 "it: no function graph tracer, so no shadow-stack walk", mk.kallsyms);
	assert_string_equal(r.evidence, want);
	/* issue 40, class 2: any other sign of fgraph, and it is not */
	{
		static const char *const signs[] = { "ftrace_graph_init_task", "return_to_handler",
						     "ftrace_graph_active", "fgraph_stack_cachep" };

		for (size_t i = 0; i < sizeof(signs) / sizeof(signs[0]); i++) {
			FILE *k = fopen(mk.kallsyms, "a");

			fprintf(k, "ffffffff81e80000 t %s\n", signs[i]);
			fclose(k);
			expect(&o, FGT_SW_SHAPE, "no register_ftrace_graph taken from %s, but %s is "
			       "there: fgraph is built in, and the symbols contradict each other",
			       mk.kallsyms, signs[i]);
			write_kallsyms("lab-fixed", &rec, mk.kallsyms, false, false);
		}
	}
	/* a BTF whose task_struct has ret_stack: fgraph is there, the symbols lie */
	make_btf(&x, 1, 10);
	write_blob(&x, mk.other);
	o.btf = mk.other;
	expect(&o, FGT_SW_SHAPE, "no register_ftrace_graph in %s, but its BTF has task_struct::ret_stack "
	       "(fgraph is built in): the symbols and the image disagree", mk.kallsyms);
	/* issue 40, class 2: renamed, but shaped as it (a pointer to unsigned
	 * long): no clearance either */
	x.b[x.len - 2] = 'X';		/* "ret_stack" -> "ret_stacX" */
	write_blob(&x, mk.other);
	expect(&o, FGT_SW_SHAPE, "no register_ftrace_graph in %s, but its BTF's task_struct has a "
	       "member shaped as ret_stack (fgraph is built in): the symbols and the image disagree",
	       mk.kallsyms);
	/* one without it agrees: the member an unsigned long, no pointer (its
	 * type id, at 92: header 24, unsigned long 16, ftrace_ret_stack 12,
	 * the pointer 12, task_struct 12, pid 12, then name and type) */
	assert_int_equal(x.b[92], 3);
	x.b[92] = 1;
	write_blob(&x, mk.other);
	io0 = fgt_kio;
	assert_int_equal(check(&o, &r), FGT_VERDICT_NOT_AFFECTED);
	/* the BTF file's reads are not the image's: -v's profile counts the same */
	assert_int_equal(fgt_kio.reads - io0.reads, without.reads);
	assert_int_equal(fgt_kio.bytes - io0.bytes, without.bytes);
	snprintf(want, sizeof(want), "no register_ftrace_graph in %s; its BTF's task_struct has no "
		 "ret_stack: no function graph tracer, so no shadow-stack walk", mk.kallsyms);
	assert_string_equal(r.evidence, want);
	/* a broken one does not */
	x.len = 30;
	write_blob(&x, mk.other);
	expect(&o, FGT_SW_SHAPE, "no register_ftrace_graph in %s, but its BTF is broken: the symbols "
	       "and the image disagree", mk.kallsyms);
	/* nor does a file that gives no size (procfs: read whole, and it is
	 * text), nor an empty one */
	o.btf = "/proc/self/status";
	expect(&o, FGT_SW_SHAPE, "no register_ftrace_graph in %s, but its BTF is broken: the symbols "
	       "and the image disagree", mk.kallsyms);
	x.len = 0;
	write_blob(&x, mk.other);
	o.btf = mk.other;
	expect(&o, FGT_SW_SHAPE, "no register_ftrace_graph in %s, but its BTF is broken: the symbols "
	       "and the image disagree", mk.kallsyms);
	/* the caller's answer from the same BTF (the live view's plan) stands
	 * for the file, which is then not read: with or without ret_stack */
	o.btf = "/nonexistent";
	o.btf_known = &(struct fgt_btf_known){ .err = 0 };
	expect(&o, FGT_SW_SHAPE, "no register_ftrace_graph in %s, but its BTF has task_struct::ret_stack "
	       "(fgraph is built in): the symbols and the image disagree", mk.kallsyms);
	o.btf_known = &(struct fgt_btf_known){ .err = 1 };
	assert_int_equal(check(&o, &r), FGT_VERDICT_NOT_AFFECTED);
	assert_string_equal(r.evidence, want);
}

/*
 * Lockdown refuses kcore: the boot image answers when it is the running build
 * (the same build ID as /sys/kernel/notes), and only then.
 */
static void test_lockdown_boot_image(void **state)
{
	struct fgt_static_opts o = { .boot_image = mk.vmlinux, .notes = mk.other };
	struct fgt_static_result r = { .why = FGT_SW_LOCKDOWN };
	static const char refused[] = "/proc/kcore: refused by lockdown=confidentiality";
	FILE *f = fopen(mk.other, "w");
	char want[512];

	fwrite(NOTES, 1, sizeof(NOTES) - 1, f);
	fclose(f);
	snprintf(r.evidence, sizeof(r.evidence), "%s", refused);
	fgt_static_from_boot_image(&o, &r);
	assert_int_equal(r.verdict, FGT_VERDICT_FIXED);
	assert_string_equal(r.evidence, expected());
	assert_string_equal(r.build_id, BUILD_ID);
	snprintf(want, sizeof(want), "vmlinux %s, the running kernel's (build ID %s): %s", mk.vmlinux,
		 BUILD_ID, refused);
	assert_string_equal(r.source, want);
	/* another build: the refusal stands, saying why the file could not */
	f = fopen(mk.other, "w");
	fwrite("\x04\0\0\0\x04\0\0\0\x03\0\0\0GNU\0\xde\xad\xbe\xef", 1, 20, f);
	fclose(f);
	memset(&r, 0, sizeof(r));
	r.why = FGT_SW_LOCKDOWN;
	snprintf(r.evidence, sizeof(r.evidence), "%s", refused);
	fgt_static_from_boot_image(&o, &r);
	assert_int_equal(r.verdict, FGT_VERDICT_UNKNOWN);
	assert_int_equal(r.why, FGT_SW_LOCKDOWN);
	snprintf(want, sizeof(want), "%s; %s cannot stand in: its build ID (%s) is not the running "
		 "kernel's (deadbeef)", refused, mk.vmlinux, BUILD_ID);
	assert_string_equal(r.evidence, want);
	/* no file */
	o.boot_image = "/nonexistent/vmlinuz";
	snprintf(r.evidence, sizeof(r.evidence), "%s", refused);
	fgt_static_from_boot_image(&o, &r);
	assert_int_equal(r.why, FGT_SW_LOCKDOWN);
	assert_string_equal(r.evidence, "/proc/kcore: refused by lockdown=confidentiality; and no "
			    "/nonexistent/vmlinuz to read instead");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vmlinux),
		cmocka_unit_test(test_system_map),
		cmocka_unit_test(test_placeholder_map),
		cmocka_unit_test(test_not_a_map),
		cmocka_unit_test(test_other_map),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_not_a_kernel),
		cmocka_unit_test(test_elf_program),
		cmocka_unit_test(test_bzimage_codecs),
		cmocka_unit_test(test_kallsyms_order),
		cmocka_unit_test(test_deb),
		cmocka_unit_test(test_bzimage_bad),
		cmocka_unit_test(test_running),
		cmocka_unit_test(test_running_bad),
		cmocka_unit_test(test_btf),
		cmocka_unit_test(test_pread_all),
		cmocka_unit_test(test_not_affected),
		cmocka_unit_test(test_doubt_list),
		cmocka_unit_test(test_lockdown_boot_image),
	};

	return cmocka_run_group_tests_name("static_read", tests, setup, teardown);
}
