// SPDX-License-Identifier: GPL-2.0
/*
 * A file image's symbols (src/static/kimage_syms.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem, fopencookie */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "static/kimage.h"
#include "static/kimage_elf.h"
#include "static/kimage_kallsyms.h"
#include "static/kimage_syms.h"

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
		if (!fgt_kimage_scn_checked(im, scn, &sh))
			return errno == EFBIG ? -EFBIG : -EINVAL;
		/* its names' table is read whole by elf_strptr(): checked first */
		if (sh.sh_entsize != sizeof(Elf64_Sym) ||
		    !fgt_kimage_scn_checked(im, elf_getscn(im->elf, sh.sh_link), &strsh) ||
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

/* Is ks this image's? Positively: its linux_banner reads "Linux version " in
 * the image, or its _text is the image's .text. Nothing to tie it is a no. */
static bool map_belongs(const struct fgt_kimage *im, const struct fgt_ksyms *ks)
{
	const struct fgt_ksym *banner = fgt_ksyms_by_name(ks, FGT_BANNER_SYM);
	const struct fgt_ksym *text = fgt_ksyms_by_name(ks, "_text");
	char buf[FGT_BANNER_LEN];

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
	struct stat st;
	char insane[160];

	if (!f) {
		if (*why == FGT_SW_NOT_KERNEL)
			*why = FGT_SW_BAD_MAP;
		return NULL;
	}
	/* its size, for the words only (a placeholder or not): f is a capped
	 * stream, without a descriptor of its own */
	if (stat(path, &st))
		st.st_size = 0;
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
		/* Debian's: one line of text (83 to 92 bytes) pointing at the
		 * -dbg package; anything else is no System.map, not that */
		im->map_placeholder = st.st_size > 0 && st.st_size <= FGT_MAP_PLACEHOLDER_MAX &&
				      fgt_ksyms_count(ks) <= 1;
		if (im->map_placeholder)
			snprintf(msg, len, "%s is a placeholder, not a System.map (%zu symbol%s; "
				 "Debian ships the real one in linux-image-<version>-dbg)", path,
				 fgt_ksyms_count(ks), fgt_ksyms_count(ks) == 1 ? "" : "s");
		else
			snprintf(msg, len, "%s is not a System.map: %s", path, insane);
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
