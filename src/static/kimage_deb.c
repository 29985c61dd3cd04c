// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel package's vmlinuz (src/static/kimage_deb.h, fgt_deb_vmlinuz): a .deb
 * is an ar archive (debian-binary, control.tar.*, data.tar.*); the data
 * member is a tar, compressed (xz up to bookworm's, zstd since). Both
 * layers are read with libarchive, the inner one as a stream pulled from
 * the outer: nothing is unpacked to disk, and dpkg is never run.
 *
 * The package is untrusted input like any kernel file: the members read
 * through, the bytes decompressed and the vmlinuz's size are capped, and a
 * stop is polled between entries and blocks.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "static/kimage.h"
#include "static/kimage_deb.h"

#define BLOCK	(64u << 10)

/* The outer archive, read by the inner one: its data member as a stream. */
struct pull {
	struct archive *outer;
	volatile sig_atomic_t *stop;
	uint8_t buf[BLOCK];
};

static la_ssize_t pull_read(struct archive *a, void *arg, const void **out)
{
	struct pull *p = arg;
	la_ssize_t n;

	if (p->stop && *p->stop) {
		archive_set_error(a, EINTR, "interrupted");
		return -1;
	}
	n = archive_read_data(p->outer, p->buf, sizeof(p->buf));
	*out = p->buf;
	return n;
}

/* Debian's two places for it: 6.1/6.12 ship ./boot/vmlinuz-REL, 7.x
 * ./usr/lib/modules/REL/vmlinuz (lab/kdeb.sh says the same). */
static bool is_vmlinuz(const char *name)
{
	if (!strncmp(name, "./", 2))
		name += 2;
	return !fnmatch("boot/vmlinuz-*", name, FNM_PATHNAME) ||
	       /* split so that no slash-star opens a comment to tests/docs */
	       !fnmatch("usr/lib/modules/" "*" "/vmlinuz", name, FNM_PATHNAME);
}

static bool stopped(volatile sig_atomic_t *stop)
{
	return stop && *stop;
}

/* The entry's data whole into a fresh buffer: 0, or an FGT_SW_* with msg. */
static int read_entry(struct archive *in, struct archive_entry *e, const char *path,
		      const char *member, volatile sig_atomic_t *stop, uint8_t **buf, size_t *size,
		      char *msg, size_t len)
{
	int64_t want = archive_entry_size(e);
	size_t got = 0;
	uint8_t *b;

	if (!archive_entry_size_is_set(e) || want < 4096 ||
	    (uint64_t)want > FGT_KIMAGE_MAX_BZIMAGE) {
		snprintf(msg, len, "%s: its %s has %lld bytes, not a kernel's (at most %llu MiB read "
			 "here)", path, member, (long long)want, FGT_KIMAGE_MAX_BZIMAGE >> 20);
		return FGT_SW_NOT_KERNEL;
	}
	b = malloc((size_t)want);
	if (!b) {
		snprintf(msg, len, "%s: out of memory for its %s", path, member);
		return FGT_SW_READ;
	}
	while (got < (size_t)want) {
		size_t room = (size_t)want - got < BLOCK ? (size_t)want - got : BLOCK;
		la_ssize_t n;

		if (stopped(stop)) {
			free(b);
			snprintf(msg, len, "%s: interrupted while reading its %s", path, member);
			return FGT_SW_STOPPED;
		}
		n = archive_read_data(in, b + got, room);
		if (n <= 0) {
			free(b);
			snprintf(msg, len, "%s: its %s is cut short (%zu of %lld bytes): %s", path,
				 member, got, (long long)want,
				 n < 0 ? archive_error_string(in) : "end of data");
			return FGT_SW_NOT_KERNEL;
		}
		got += (size_t)n;
	}
	*buf = b;
	*size = got;
	return 0;
}

/* The vmlinuz in the data member the outer archive is positioned at. */
static int find_in_data(struct archive *outer, const char *path, volatile sig_atomic_t *stop,
			uint8_t **buf, size_t *size, char *member, size_t mlen, char *msg,
			size_t len)
{
	struct pull *p = malloc(sizeof(*p));
	struct archive *in = archive_read_new();
	struct archive_entry *e;
	unsigned long entries = 0;
	int r, err = -1;

	if (!p || !in) {
		snprintf(msg, len, "%s: out of memory", path);
		err = FGT_SW_READ;
		goto out;
	}
	p->outer = outer;
	p->stop = stop;
	archive_read_support_format_tar(in);
	archive_read_support_filter_xz(in);
	archive_read_support_filter_zstd(in);
	archive_read_support_filter_gzip(in);
	archive_read_support_filter_bzip2(in);
	if (archive_read_open(in, p, NULL, pull_read, NULL) != ARCHIVE_OK) {
		snprintf(msg, len, "%s: its data member is no tar archive we read: %s", path,
			 archive_error_string(in));
		err = FGT_SW_NOT_KERNEL;
		goto out;
	}
	while ((r = archive_read_next_header(in, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);

		if (stopped(stop)) {
			snprintf(msg, len, "%s: interrupted while reading it", path);
			err = FGT_SW_STOPPED;
			goto out;
		}
		/* skipping an entry decompresses it: the caps bound what that costs */
		if (++entries > FGT_DEB_MAX_MEMBERS ||
		    (uint64_t)archive_filter_bytes(in, 0) > FGT_DEB_MAX_DATA) {
			snprintf(msg, len, "%s: no vmlinuz in the first %lu files (%lld bytes) of its "
				 "data, over the caps (%u files, %llu GiB)", path, entries,
				 (long long)archive_filter_bytes(in, 0), FGT_DEB_MAX_MEMBERS,
				 FGT_DEB_MAX_DATA >> 30);
			err = FGT_SW_NOT_KERNEL;
			goto out;
		}
		if (!name || archive_entry_filetype(e) != AE_IFREG || !is_vmlinuz(name))
			continue;
		snprintf(member, mlen, "%s", name);
		err = read_entry(in, e, path, member, stop, buf, size, msg, len);
		goto out;
	}
	if (r == ARCHIVE_EOF) {
		snprintf(msg, len, "%s: a package with no vmlinuz (./boot/vmlinuz-RELEASE or "
			 "./usr/lib/modules/RELEASE/vmlinuz): not a kernel image package", path);
	} else if (stopped(stop)) {
		snprintf(msg, len, "%s: interrupted while reading it", path);
		err = FGT_SW_STOPPED;
		goto out;
	} else {
		snprintf(msg, len, "%s: its data member is broken: %s", path,
			 archive_error_string(in));
	}
	err = FGT_SW_NOT_KERNEL;
out:
	if (in)
		archive_read_free(in);
	free(p);
	return err;
}

int fgt_deb_vmlinuz(int fd, const char *path, volatile sig_atomic_t *stop, uint8_t **buf,
		    size_t *size, char *member, size_t mlen, char *msg, size_t len)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	int r, err = FGT_SW_NOT_KERNEL;

	*buf = NULL;
	*size = 0;
	if (!a) {
		snprintf(msg, len, "%s: out of memory", path);
		return FGT_SW_READ;
	}
	archive_read_support_format_ar(a);
	if (lseek(fd, 0, SEEK_SET) || archive_read_open_fd(a, fd, BLOCK) != ARCHIVE_OK) {
		snprintf(msg, len, "%s: an ar archive we cannot read: %s", path,
			 archive_error_string(a));
		goto out;
	}
	/* debian-binary, control.tar.*, data.tar.*: a handful of members */
	for (int i = 0; i < 16 && (r = archive_read_next_header(a, &e)) == ARCHIVE_OK; i++) {
		const char *name = archive_entry_pathname(e);

		if (name && !strncmp(name, "data.tar", 8)) {
			err = find_in_data(a, path, stop, buf, size, member, mlen, msg, len);
			goto out;
		}
	}
	snprintf(msg, len, "%s: an ar archive with no data.tar member: not a Debian package", path);
out:
	archive_read_free(a);
	return err;
}
