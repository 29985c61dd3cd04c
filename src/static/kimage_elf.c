// SPDX-License-Identifier: GPL-2.0
/*
 * A vmlinux through libelf (src/static/kimage_elf.h): ELF is read through
 * libelf (elfutils, fuzzed upstream), never by hand.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem, fopencookie */
#endif
#include <errno.h>
#include <string.h>
#include "static/kimage.h"
#include "static/kimage_elf.h"

/* ---- ELF, through libelf ----------------------------------------------------- */

bool fgt_libelf_ready(void)
{
	static int ok = -1;

	if (ok < 0)
		ok = elf_version(EV_CURRENT) != EV_NONE;
	return ok;
}

/* A section's header, if its bytes lie inside the file and within the
 * section cap (SHT_NOBITS has no bytes to check); else NULL with errno. */
Elf_Scn *fgt_kimage_scn_checked(const struct fgt_kimage *im, Elf_Scn *scn, GElf_Shdr *sh)
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
	if (!fgt_kimage_scn_checked(im, elf_getscn(im->elf, strndx), sh))
		return NULL;
	while ((scn = elf_nextscn(im->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh) || !(n = elf_strptr(im->elf, strndx, sh->sh_name)) ||
		    strcmp(n, name))
			continue;
		return fgt_kimage_scn_checked(im, scn, sh);
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
bool fgt_arch_of_machine(uint16_t machine, enum fgt_arch *arch)
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
int fgt_kernel_elf(struct fgt_kimage *im, const char *name, char *msg, size_t len)
{
	uint64_t size = im->data ? im->size : im->file_size;
	bool kernel = false;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	size_t phnum;

	if (elf_kind(im->elf) != ELF_K_ELF || !gelf_getehdr(im->elf, &eh) ||
	    gelf_getclass(im->elf) != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    !fgt_arch_of_machine(eh.e_machine, &im->arch)) {
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
		if (ph.p_vaddr >= FGT_KERNEL_HALF && (ph.p_flags & PF_X))
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

/*
 * elf_begin() and elf_memory() allocate for every section the header
 * claims, and the first program header read for every segment, before
 * anything else is asked: with extended numbering (e_shnum 0 and the count
 * in section 0's sh_size, e_phnum PN_XNUM and the count in its sh_info) a
 * sparse file claims tens of millions of each (8 Mi sections: 2.2 GB). A
 * kernel has about 50 sections and 5 segments, far under the 65279 and 65534
 * the header holds itself: extended numbering is refused, with msg.
 */
bool fgt_elf_counts_ok(const uint8_t *d, size_t size, const char *name, char *msg,
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
	if (!fgt_libelf_ready()) {
		snprintf(msg, len, "%s: libelf: %s", name, elf_errmsg(-1));
		return FGT_SW_READ;
	}
	if (!fgt_is_elf_magic(data, size)) {
		snprintf(msg, len, "%s: not an x86-64 or arm64 ELF file", name);
		return FGT_SW_NOT_KERNEL;
	}
	if (!fgt_elf_counts_ok(data, size, name, msg, len))
		return FGT_SW_NOT_KERNEL;
	if (!(im->elf = elf_memory((char *)data, size))) {
		snprintf(msg, len, "%s: not an x86-64 or arm64 ELF file", name);
		return FGT_SW_NOT_KERNEL;
	}
	im->data = data;
	im->size = size;
	return fgt_kernel_elf(im, name, msg, len);
}
