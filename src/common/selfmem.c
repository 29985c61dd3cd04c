// SPDX-License-Identifier: GPL-2.0
/*
 * The live tool's peak memory came from pages of its own executable: its
 * start-up reads code and read-only data once (libbpf's parse of the BPF
 * object the skeleton embeds, the plan, the loader), and the static verdict
 * then touches Capstone's decoder tables, 1.46 MB on lab-fixed, on top of
 * the whole /proc/kallsyms (docs/bench/results.md, peak RSS). They are clean
 * pages of a private file mapping: MADV_DONTNEED drops them from our page
 * tables and a later access reads them again from the page cache, unchanged.
 * A mapping with a page ever written (relocated data, RELRO: Anonymous is not
 * 0 kB) is never dropped: that would lose the writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "common/readall.h"
#include "common/selfmem.h"

/* /proc/self/smaps of a static binary is a few dozen mappings: 64 KiB of
 * text; more than this is not ours to read whole. */
#define SMAPS_MAX	(4u << 20)

/* One mapping as smaps describes it. */
struct smap {
	uintptr_t lo, hi;
	bool valid, writable, ours;
	bool have_anon;
	size_t rss_kib, anon_kib;
};

/* A hex number at *p, up to end: false if none or too long. */
static bool hex_at(const char **p, const char *end, uintptr_t *v)
{
	const char *s = *p;
	uintptr_t x = 0;
	int n = 0;

	for (; s < end; s++, n++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' :
			*s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;

		if (d < 0)
			break;
		if (n >= (int)(2 * sizeof(x)))
			return false;
		x = x << 4 | (uintptr_t)d;
	}
	if (!n)
		return false;
	*p = s;
	*v = x;
	return true;
}

/* The line [s, e) as a mapping's header: "lo-hi perms off dev inode path". */
static bool header(const char *s, const char *e, const char *exe, struct smap *m)
{
	const char *p = s;
	size_t elen = strlen(exe);
	int field;

	memset(m, 0, sizeof(*m));
	if (!hex_at(&p, e, &m->lo) || p >= e || *p++ != '-' || !hex_at(&p, e, &m->hi))
		return false;
	if (e - p < 5 || *p++ != ' ')
		return false;
	m->writable = p[1] != '-';
	/* past perms, offset, device and inode to the path */
	for (field = 0; field < 4 && p < e; field++) {
		while (p < e && *p != ' ')
			p++;
		while (p < e && *p == ' ')
			p++;
	}
	m->valid = field == 4 && m->hi > m->lo;
	m->ours = elen && (size_t)(e - p) == elen && !memcmp(p, exe, elen);
	return true;
}

/* "Name:   N kB" at [s, e): N if the name is it. */
static bool field_kib(const char *s, const char *e, const char *name, size_t *kib)
{
	size_t nlen = strlen(name), v = 0;
	const char *p;

	if ((size_t)(e - s) <= nlen || memcmp(s, name, nlen) || s[nlen] != ':')
		return false;
	for (p = s + nlen + 1; p < e && *p == ' '; p++)
		;
	if (p >= e || *p < '0' || *p > '9')
		return false;
	for (; p < e && *p >= '0' && *p <= '9'; p++) {
		if (v > (SIZE_MAX - 9) / 10)
			return false;
		v = v * 10 + (size_t)(*p - '0');
	}
	*kib = v;
	return true;
}

static void done(const struct smap *m, struct fgt_mem_range *out, size_t max, size_t *n)
{
	if (!m->valid || !m->ours || m->writable || !m->have_anon || m->anon_kib)
		return;
	if (*n < max)
		out[*n] = (struct fgt_mem_range){ .lo = m->lo, .hi = m->hi, .rss_kib = m->rss_kib };
	(*n)++;
}

size_t fgt_selfmem_clean(const char *smaps, size_t len, const char *exe,
			 struct fgt_mem_range *out, size_t max)
{
	const char *s = smaps, *end = smaps + len;
	struct smap m = {};
	size_t n = 0;

	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s));
		struct smap h;

		if (!e)
			e = end;
		if (header(s, e, exe, &h)) {
			done(&m, out, max, &n);
			m = h;
		} else if (field_kib(s, e, "Anonymous", &m.anon_kib)) {
			m.have_anon = true;
		} else {
			field_kib(s, e, "Rss", &m.rss_kib);
		}
		s = e + 1;
	}
	done(&m, out, max, &n);
	return n;
}

/* The whole of /proc/self/smaps, NUL-terminated; NULL with errno. */
static char *read_smaps(size_t *len)
{
	int fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC), err;
	char *b;

	if (fd < 0)
		return NULL;
	err = fgt_read_all(fd, SMAPS_MAX, &b, len);
	close(fd);
	if (err) {
		errno = -err;
		return NULL;
	}
	return b;
}

long fgt_selfmem_drop_exe(void)
{
	struct fgt_mem_range r[16];
	char exe[4096];
	size_t len, n, kib = 0;
	ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *smaps;

	if (el <= 0)
		return -errno;
	exe[el] = '\0';
	smaps = read_smaps(&len);
	if (!smaps)
		return -errno;
	n = fgt_selfmem_clean(smaps, len, exe, r, sizeof(r) / sizeof(r[0]));
	free(smaps);
	if (n > sizeof(r) / sizeof(r[0]))
		n = sizeof(r) / sizeof(r[0]);
	for (size_t i = 0; i < n; i++)
		if (!madvise((void *)r[i].lo, r[i].hi - r[i].lo, MADV_DONTNEED))
			kib += r[i].rss_kib;
	return (long)kib;
}
