// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel identity: uname's release and the GNU build ID from /sys/kernel/notes.
 * The notes file is the raw .notes section of vmlinux (a few hundred bytes);
 * its size as stat() reports it is exact, but reading to EOF is what is
 * portable, so it is read whole (fgt_read_all(), below 64 KiB).
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "common/readall.h"
#include "host/kernel_id.h"

#define NT_GNU_BUILD_ID_TYPE	3
#define NOTES_MAX		65536	/* far above any real .notes section */

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));	/* host byte order, as the kernel wrote it */
	return v;
}

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

int fgt_build_id_parse(const void *notes, size_t len, char *hex, size_t hexlen)
{
	const unsigned char *p = notes, *end = p + len;

	if (hex && hexlen)
		hex[0] = '\0';
	while ((size_t)(end - p) >= 12) {
		uint32_t namesz = rd32(p), descsz = rd32(p + 4), type = rd32(p + 8);
		const unsigned char *name = p + 12, *desc;
		size_t left = end - name;

		if (align4(namesz) > left || align4(namesz) < namesz)
			return -EBADMSG;
		desc = name + align4(namesz);
		left = end - desc;
		/* the last note's desc padding may be cut off: descsz itself must fit */
		if (descsz > left)
			return -EBADMSG;
		if (type == NT_GNU_BUILD_ID_TYPE && namesz == 4 && !memcmp(name, "GNU", 4)) {
			size_t i;

			if (!descsz || descsz > FGT_BUILD_ID_MAX)
				return -EBADMSG;
			if (!hex || hexlen < 2 * (size_t)descsz + 1)
				return -ENOSPC;
			for (i = 0; i < descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", desc[i]);
			return 0;
		}
		p = desc + (align4(descsz) <= left ? align4(descsz) : left);
	}
	return p == end ? -ENOENT : -EBADMSG;
}

void fgt_kernel_id_read(struct fgt_kernel_id *id, const char *notes_path)
{
	int fd = open(notes_path ? notes_path : FGT_NOTES_PATH, O_RDONLY | O_CLOEXEC);
	struct utsname u;
	char *buf = NULL;
	size_t len;
	int err;

	memset(id, 0, sizeof(*id));
	if (uname(&u) == 0)
		snprintf(id->release, sizeof(id->release), "%s", u.release);
	err = fd < 0 ? -errno : fgt_read_all(fd, NOTES_MAX - 1, &buf, &len);
	if (fd >= 0)
		close(fd);
	if (!err)
		err = fgt_build_id_parse(buf, len, id->build_id, sizeof(id->build_id));
	free(buf);
	id->build_id_err = err;
}

enum fgt_lockdown fgt_lockdown_mode(const char *securityfs, const char *cmdline)
{
	static const char *const names[] = {
		[FGT_LOCKDOWN_NONE] = "none",
		[FGT_LOCKDOWN_INTEGRITY] = "integrity",
		[FGT_LOCKDOWN_CONFIDENTIALITY] = "confidentiality",
	};
	char buf[4096] = "", want[40];
	FILE *f = fopen(securityfs ? securityfs : FGT_LOCKDOWN_PATH, "re");
	bool sfs = f != NULL;

	if (!f)
		f = fopen(cmdline ? cmdline : "/proc/cmdline", "re");
	if (!f)
		return FGT_LOCKDOWN_UNKNOWN;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	for (int m = FGT_LOCKDOWN_NONE; m <= FGT_LOCKDOWN_CONFIDENTIALITY; m++) {
		if (sfs) {
			snprintf(want, sizeof(want), "[%s]", names[m]);
			if (strstr(buf, want))
				return (enum fgt_lockdown)m;
			continue;
		}
		/* the command line: " lockdown=MODE" as a whole word */
		snprintf(want, sizeof(want), "lockdown=%s", names[m]);
		for (const char *p = buf; (p = strstr(p, want)); p++) {
			char end = p[strlen(want)];

			if ((p == buf || p[-1] == ' ') && (!end || end == ' ' || end == '\n'))
				return (enum fgt_lockdown)m;
		}
	}
	/* securityfs without brackets, or a command line without lockdown=
	 * (Secure Boot's integrity, a later write to securityfs: not seen) */
	return FGT_LOCKDOWN_UNKNOWN;
}
