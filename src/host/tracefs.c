// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs, read and never changed here: where it is mounted, and its small
 * control files. The one reader of them for the host state, the holders and
 * the trigger.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "host/tracefs.h"

static void unescape_mount(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

/* How much we want tracefs mounted at dir: the standard places first. */
static int mount_rank(const char *dir)
{
	if (!strcmp(dir, "/sys/kernel/tracing"))
		return 3;
	if (!strcmp(dir, "/sys/kernel/debug/tracing"))
		return 2;
	return 1;
}

_Static_assert(PATH_MAX == 4096, "the %4095s below");

int fgt_tracefs_from_mountinfo(FILE *f, char *buf, size_t len)
{
	char line[PATH_MAX * 2], dir[PATH_MAX];
	int best = 0;

	while (fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");
		char fstype[32];
		int rank;

		/* id parent major:minor root mount-point ... - fstype source opts */
		if (!sep || sscanf(sep, " - %31s", fstype) != 1 || strcmp(fstype, "tracefs") ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", dir) != 1)
			continue;
		unescape_mount(dir);
		rank = mount_rank(dir);
		if (rank > best && strlen(dir) < len) {
			best = rank;
			snprintf(buf, len, "%s", dir);
		}
	}
	return best ? 0 : -ENOENT;
}

/*
 * From mountinfo, never by looking paths up: a lookup of
 * /sys/kernel/debug/tracing mounts tracefs there (tracer_init_tracefs()'s
 * debugfs_create_automount("tracing"), since 6.15 only with
 * CONFIG_TRACEFS_AUTOMOUNT_DEPRECATED), and that mount would stay behind.
 */
const char *fgt_tracefs_find(void)
{
	/* per thread: the holders watcher looks it up beside the main thread */
	static __thread char dir[PATH_MAX];
	char p[PATH_MAX + 32];
	FILE *f;
	int ret;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return NULL;
	ret = fgt_tracefs_from_mountinfo(f, dir, sizeof(dir));
	fclose(f);
	if (ret)
		return NULL;
	snprintf(p, sizeof(p), "%s/available_tracers", dir);
	return access(p, R_OK) == 0 ? dir : NULL;
}

static FILE *open_at(const char *dir, const char *name)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return fopen(p, "re");
}

int fgt_tracefs_line(const char *dir, const char *name, char *buf, size_t len)
{
	FILE *f = open_at(dir, name);

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return 0;
}

int fgt_tracefs_read(const char *dir, const char *name, char *buf, size_t len)
{
	FILE *f = open_at(dir, name);
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}
