// SPDX-License-Identifier: GPL-2.0
/*
 * What kernel a file image is (src/static/kimage_ident.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem, fopencookie */
#endif
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "host/kernel_id.h"
#include "static/kimage.h"
#include "static/kimage_elf.h"
#include "static/kimage_ident.h"

/* ---- what kernel a file is ----------------------------------------------------- */

/*
 * The release a banner names, from the bytes after its FGT_BANNER: the
 * first word, if it is one (UTS_RELEASE begins with the version's digit:
 * "6.12.0-..."). true when it names one. What is parsed is a bounded,
 * NUL-ended copy: fgt_first_word() reads to a NUL.
 */
static bool banner_release(const uint8_t *p, size_t n, char *release, size_t rlen)
{
	char buf[80], rel[65];

	n = n < sizeof(buf) - 1 ? n : sizeof(buf) - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	fgt_first_word(buf, rel, sizeof(rel));
	if (!isdigit((unsigned char)rel[0]))
		return false;
	/* a release is made of these (scripts/setlocalversion, LOCALVERSION):
	 * anything else, a control byte above all, is no release to print */
	for (const char *q = rel; *q; q++)
		if (!isalnum((unsigned char)*q) && !strchr(".-_+~", *q))
			return false;
	snprintf(release, rlen, "%s", rel);
	return true;
}

/*
 * The banner by its words, where no symbol names it (kallsyms tables of
 * text only: no linux_banner): the first FGT_BANNER in p that names a
 * release. Each match moves the search past it: linear in n.
 */
static bool banner_search(const uint8_t *p, size_t n, char *release, size_t rlen)
{
	const uint8_t *b;

	while (p && n >= FGT_BANNER_LEN && (b = memmem(p, n, FGT_BANNER, FGT_BANNER_LEN))) {
		n -= (size_t)(b - p) + FGT_BANNER_LEN;
		p = b + FGT_BANNER_LEN;
		if (banner_release(p, n, release, rlen))
			return true;
	}
	return false;
}

/* The release of linux_banner: by its symbol, else by its words in a raw
 * image, or in an ELF file's .rodata (where init/version.c puts it). */
static void ident_release(const struct fgt_kimage *im, const struct fgt_ksyms *ks,
			  char *release, size_t rlen)
{
	const struct fgt_ksym *banner = ks ? fgt_ksyms_by_name(ks, FGT_BANNER_SYM) : NULL;
	uint8_t buf[FGT_BANNER_LEN + 64];
	const void *ro;
	size_t len = 0;

	if (banner && !fgt_kimage_read(im, banner->addr, buf, sizeof(buf)) &&
	    !memcmp(buf, FGT_BANNER, FGT_BANNER_LEN) &&
	    banner_release(buf + FGT_BANNER_LEN, sizeof(buf) - FGT_BANNER_LEN, release, rlen))
		return;
	if (!im->elf && im->data) {
		banner_search(im->data, im->size, release, rlen);
		return;
	}
	ro = im->elf ? fgt_kimage_section(im, ".rodata", &len) : NULL;
	banner_search(ro, len, release, rlen);
}

void fgt_kimage_ident(const struct fgt_kimage *im, const struct fgt_ksyms *ks,
		      char *release, size_t rlen, char *build_id, size_t blen)
{
	const void *n;
	size_t len = 0;

	release[0] = build_id[0] = '\0';
	ident_release(im, ks, release, rlen);
	n = fgt_kimage_section(im, ".notes", &len);
	if (!n)
		n = fgt_kimage_section(im, ".note.gnu.build-id", &len);
	/* the same parser as /sys/kernel/notes' (src/host/kernel_id.c) */
	if (n && fgt_build_id_parse(n, len, build_id, blen))
		build_id[0] = '\0';
}

/* ---- IKCONFIG ------------------------------------------------------------------ */

#define IKCONFIG_MAX	(4u << 20)	/* a .config (Debian's: 250-300 KiB) */

/* Is "OPTION=y" or "=m" a line of cfg? */
static bool config_has(const char *cfg, size_t len, const char *option)
{
	size_t ol = strlen(option);

	for (const char *l = cfg, *end = cfg + len; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t ll = nl ? (size_t)(nl - l) : (size_t)(end - l);

		if (ll == ol + 2 && !memcmp(l, option, ol) && l[ol] == '=' &&
		    (l[ol + 1] == 'y' || l[ol + 1] == 'm'))
			return true;
		l += ll + 1;
	}
	return false;
}

int fgt_kimage_ikconfig(const struct fgt_kimage *im, const char *option)
{
	static const char start[] = "IKCFG_ST";
	const uint8_t *d, *at;
	size_t len = 0, got = 0;
	uint64_t va;
	z_stream z = {};
	uint8_t *out;
	int ret = -1, zr;

	d = fgt_kimage_section_va(im, ".rodata", &len, &va);
	if (!d && im->data) {
		d = im->data;
		len = im->size;
	}
	/* kernel/configs.c: "IKCFG_ST", the gzip'd .config, "IKCFG_ED" */
	at = d ? memmem(d, len, start, sizeof(start) - 1) : NULL;
	if (!at)
		return -2;
	at += sizeof(start) - 1;
	out = malloc(IKCONFIG_MAX);
	if (!out || inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		free(out);
		return -1;
	}
	z.next_in = (Bytef *)at;
	z.avail_in = (uInt)((size_t)(d + len - at) < UINT32_MAX ? (size_t)(d + len - at) : UINT32_MAX);
	z.next_out = out;
	z.avail_out = IKCONFIG_MAX;
	/* one call: the output is capped, so is the time */
	zr = inflate(&z, Z_FINISH);
	got = z.total_out;
	inflateEnd(&z);
	if (zr == Z_STREAM_END && got && memmem(out, got, "CONFIG_", 7))
		ret = config_has((const char *)out, got, option);
	free(out);
	return ret;
}
