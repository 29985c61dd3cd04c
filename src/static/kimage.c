// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel image reader's core (src/static/kimage.h): every file here is
 * untrusted: what stays hand-written goes through fgt_in_range(), and every
 * size is capped (src/static/kimage.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memmem, fopencookie */
#endif
#include <libelf.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "common/clock.h"
#include "common/log.h"
#include "static/kimage.h"

struct fgt_kio fgt_kio;

/* Every read of a file image on demand (/proc/kcore) goes through here with
 * io = &fgt_kio: counted, and at -vv one line each, for the answer's profile. */
ssize_t fgt_kio_pread(int fd, void *buf, size_t len, uint64_t off, struct fgt_kio *io)
{
	uint64_t t0 = 0;
	ssize_t n;

	if (off > INT64_MAX)
		return -1;
	if (io && fgt_verbose >= 2)
		t0 = fgt_mono_ns();
	n = pread(fd, buf, len, (off_t)off);
	if (!io)
		return n;
	io->reads++;
	io->bytes += n > 0 ? (uint64_t)n : 0;
	if (fgt_verbose >= 2)
		log_dbg("kcore: %zu bytes at offset %#" PRIx64 ": %.3f ms", len, off,
			(fgt_mono_ns() - t0) / 1e6);
	return n;
}

int fgt_pread_all(int fd, void *buf, size_t len, uint64_t off, struct fgt_kio *io)
{
	size_t n = 0;
	ssize_t got;

	while (n < len) {
		got = fgt_kio_pread(fd, (char *)buf + n, len - n, off + n, io);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		n += (size_t)got;
	}
	return 0;
}

void fgt_kimage_init(struct fgt_kimage *im, volatile sig_atomic_t *stop)
{
	memset(im, 0, sizeof(*im));
	im->fd = -1;
	im->stop = stop;
}

bool fgt_kimage_stopped(const struct fgt_kimage *im)
{
	return im->stop && *im->stop;
}

void fgt_kimage_close(struct fgt_kimage *im)
{
	volatile sig_atomic_t *stop = im->stop;

	if (im->elf)
		elf_end(im->elf);
	if (im->fd >= 0)
		close(im->fd);
	free(im->heap);
	free(im->doubt);
	fgt_kimage_init(im, stop);
}

bool fgt_is_elf_magic(const uint8_t *d, size_t size)
{
	return size >= SELFMAG && !memcmp(d, ELFMAG, SELFMAG);
}

int fgt_kimage_read(const struct fgt_kimage *im, uint64_t addr, void *buf, size_t len)
{
	for (unsigned int i = 0; i < im->nr_segs; i++) {
		const struct fgt_kseg *s = &im->seg[i];

		if (addr < s->vaddr || !fgt_in_range(addr - s->vaddr, len, s->filesz))
			continue;
		if (im->data) {
			/* fgt_kernel_elf() checked the segment against the image */
			memcpy(buf, im->data + s->off + (addr - s->vaddr), len);
			return 0;
		}
		if (fgt_kimage_stopped(im))
			return -EINTR;
		return fgt_pread_all(im->fd, buf, len, s->off + (addr - s->vaddr), &fgt_kio) ? -EIO : 0;
	}
	return -EFAULT;
}

const char *fgt_file_kind(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	return "not a regular file";
}

/*
 * Open path for reading as a regular file of at most max bytes: O_NONBLOCK
 * so that a FIFO is refused rather than waited on (open() of a FIFO blocks
 * until a writer comes). The fd, or -1 with msg and *why.
 */
int fgt_open_regular(const char *path, uint64_t max, uint64_t *size, int *why, char *msg,
		     size_t len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		snprintf(msg, len, "%s: %s", path, strerror(errno));
		*why = errno == EACCES || errno == EPERM ? FGT_SW_NO_PERM : FGT_SW_READ;
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(msg, len, "%s: %s, not a file to read", path, fgt_file_kind(st.st_mode));
		*why = FGT_SW_NOT_KERNEL;
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > max) {
		snprintf(msg, len, "%s: %lld bytes, over the %llu MiB read here", path,
			 (long long)st.st_size, (unsigned long long)(max >> 20));
		*why = FGT_SW_NOT_KERNEL;
		close(fd);
		return -1;
	}
	*size = (uint64_t)st.st_size;
	return fd;
}

bool fgt_is_a64_image(const uint8_t *d, size_t size)
{
	const struct fgt_arch_fact *a = &fgt_arch_facts[FGT_ARCH_ARM64];

	return size >= FGT_A64_HDR && !memcmp(d + a->image_magic_off, a->image_magic, 4);
}

#define DOUBT_MAX	65536
void fgt_kimage_doubt_add(struct fgt_kimage *im, const char *name, const char *why)
{
	size_t n = strnlen(name, 256), w = strlen(why);
	char *p;

	if (!n || im->nr_doubt >= DOUBT_MAX)
		return;
	/* the leading newline, the tab, the newline and a NUL */
	p = realloc(im->doubt, im->doubt_len + n + w + 4);
	if (!p)
		return;
	/* a leading newline, so that every name is found as "\nname\t" */
	if (!im->doubt_len)
		p[im->doubt_len++] = '\n';
	memcpy(p + im->doubt_len, name, n);
	p[im->doubt_len + n] = '\t';
	memcpy(p + im->doubt_len + n + 1, why, w);
	p[im->doubt_len + n + 1 + w] = '\n';
	p[im->doubt_len + n + 2 + w] = '\0';
	im->doubt = p;
	im->doubt_len += n + w + 2;
	im->nr_doubt++;
}

size_t fgt_kimage_doubt_next(const struct fgt_kimage *im, size_t at, char *name, size_t nlen,
			     char *why, size_t wlen)
{
	/* every entry is "name\twhy\n" after the leading newline, at most
	 * doubt_len bytes read whatever the entries hold */
	while (im->doubt && at < im->doubt_len) {
		const char *p = im->doubt + at, *end = im->doubt + im->doubt_len;
		const char *e = memchr(p, '\n', (size_t)(end - p));
		const char *tab;

		if (at == 0 && *p == '\n') {
			at = 1;
			continue;
		}
		if (!e)
			return 0;
		at = (size_t)(e - im->doubt) + 1;
		tab = memchr(p, '\t', (size_t)(e - p));
		if (!tab || (size_t)(tab - p) >= nlen)
			continue;
		snprintf(name, nlen, "%.*s", (int)(tab - p), p);
		snprintf(why, wlen, "%.*s", (int)(e - tab - 1), tab + 1);
		return at;
	}
	return 0;
}

const char *fgt_kimage_doubt(const struct fgt_kimage *im, const char *name, char *buf,
			     size_t len)
{
	char key[260];
	const char *at, *why, *end;
	int n;

	if (!im->doubt || !name)
		return NULL;
	n = snprintf(key, sizeof(key), "\n%s\t", name);
	if (n < 0 || (size_t)n >= sizeof(key))
		return NULL;
	at = memmem(im->doubt, im->doubt_len, key, (size_t)n);
	if (!at)
		return NULL;
	why = at + n;
	end = memchr(why, '\n', im->doubt_len - (size_t)(why - im->doubt));
	snprintf(buf, len, "%.*s", end ? (int)(end - why) : 0, why);
	return buf;
}

/*
 * The word at s (blanks before it skipped), cut to len - 1 bytes: sscanf("%64s") without
 * sscanf, whose code run for the first time under TCG made this step 3-17 ms
 * of the first answer after boot (0.3-0.6 ms after).
 */
void fgt_first_word(const char *s, char *out, size_t len)
{
	size_t n = 0;

	while (isspace((unsigned char)*s))
		s++;
	while (s[n] && !isspace((unsigned char)s[n]) && n + 1 < len)
		n++;
	memcpy(out, s, n);
	out[n] = '\0';
}
