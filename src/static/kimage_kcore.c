// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kcore and its VMCOREINFO note (src/static/kimage_kcore.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem, fopencookie */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "host/kernel_id.h"
#include "static/kimage.h"
#include "static/kimage_elf.h"
#include "static/kimage_kcore.h"

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

	fgt_kimage_init(im, NULL);
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
				 fgt_file_kind(st.st_mode));
		fgt_kimage_close(im);
		return FGT_SW_NO_KCORE;
	}
	n = fgt_kio_pread(im->fd, &eh, sizeof(eh), 0, &fgt_kio);
	if (n != (ssize_t)sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type != ET_CORE ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > 4096 ||
	    !fgt_in_range(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr), INT64_MAX)) {
		snprintf(msg, len, "%s is %s (a container masks it so)", path,
			 n <= 0 ? "empty" : "not an ELF core file");
		fgt_kimage_close(im);
		return FGT_SW_NO_KCORE;
	}
	if (!fgt_arch_of_machine(eh.e_machine, &im->arch)) {
		snprintf(msg, len, "%s is the core of a machine (ELF e_machine %u) not read here",
			 path, eh.e_machine);
		fgt_kimage_close(im);
		return FGT_SW_NO_KCORE;
	}
	for (unsigned int i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (fgt_kio_pread(im->fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph), &fgt_kio) != sizeof(ph))
			break;
		if (ph.p_type == PT_NOTE) {
			im->note_off = ph.p_offset;
			im->note_len = ph.p_filesz;
			continue;
		}
		/* the kernel text mapping (KCORE_TEXT) is what we read */
		if (ph.p_type != PT_LOAD || ph.p_vaddr < FGT_KERNEL_HALF || !ph.p_filesz ||
		    ph.p_vaddr + ph.p_filesz < ph.p_vaddr || ph.p_offset > INT64_MAX)
			continue;
		if (im->nr_segs == FGT_KIMAGE_MAX_SEGS)
			break;
		im->seg[im->nr_segs++] = (struct fgt_kseg){ ph.p_vaddr, ph.p_offset, ph.p_filesz };
	}
	snprintf(im->desc, sizeof(im->desc), "%s", path);
	return 0;
}

/* ---- VMCOREINFO ------------------------------------------------------------- */

#define NOTE_MAX	(256u << 10)

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
		fgt_first_word(l + 10, vi->osrelease, sizeof(vi->osrelease));
	else if (!strncmp(l, "BUILD-ID=", 9))
		fgt_first_word(l + 9, vi->build_id, sizeof(vi->build_id));
}

int fgt_kimage_vmcoreinfo(const struct fgt_kimage *im, struct fgt_vmcoreinfo *vi)
{
	size_t len = im->note_len < NOTE_MAX ? im->note_len : NOTE_MAX, p = 0;
	uint8_t *buf;
	int ret = -1;

	memset(vi, 0, sizeof(*vi));
	if (im->fd < 0 || !len || !(buf = malloc(len + 1)))
		return -1;
	if (fgt_kio_pread(im->fd, buf, len, im->note_off, &fgt_kio) != (ssize_t)len)
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
