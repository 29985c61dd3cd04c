// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-capbound: run a command the way fgraphtop-check.service runs it, as far
 * as capabilities go, where there is no systemd (the lab guest):
 *
 *   fgt-capbound CAP,CAP,... -- COMMAND [ARGS...]
 *
 * Every capability not named is dropped from the bounding set
 * (CapabilityBoundingSet=) and from the effective, permitted and inheritable
 * sets, no_new_privs is set (NoNewPrivileges=yes), then COMMAND is executed
 * as the same uid (root: User=root). Names as in capabilities(7), with or
 * without "CAP_"; "none" keeps none. Status 2 for bad usage, 127 when COMMAND
 * cannot run, else COMMAND's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

static const char *const names[] = {
	[CAP_CHOWN] = "CHOWN", [CAP_DAC_OVERRIDE] = "DAC_OVERRIDE",
	[CAP_DAC_READ_SEARCH] = "DAC_READ_SEARCH", [CAP_FOWNER] = "FOWNER",
	[CAP_SYS_RAWIO] = "SYS_RAWIO", [CAP_SYS_ADMIN] = "SYS_ADMIN",
	[CAP_SYS_PTRACE] = "SYS_PTRACE", [CAP_SYS_RESOURCE] = "SYS_RESOURCE",
	[CAP_SYSLOG] = "SYSLOG", [CAP_PERFMON] = "PERFMON", [CAP_BPF] = "BPF",
};
#define NCAPS 64

static int cap_by_name(const char *s)
{
	size_t i;

	if (!strncasecmp(s, "CAP_", 4))
		s += 4;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i] && !strcasecmp(s, names[i]))
			return (int)i;
	return -1;
}

/* keep[] from "CAP_BPF,CAP_PERFMON"; 0, or -1 naming the bad one */
static int parse(char *list, unsigned long long *keep)
{
	char *tok, *save = NULL;

	*keep = 0;
	if (!strcmp(list, "none"))
		return 0;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int c = cap_by_name(tok);

		if (c < 0) {
			fprintf(stderr, "fgt-capbound: unknown capability %s\n", tok);
			return -1;
		}
		*keep |= 1ull << c;
	}
	return 0;
}

static int restrict_caps(unsigned long long keep)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};
	int c;

	for (c = 0; c < NCAPS; c++) {
		if (keep & (1ull << c))
			continue;
		/* EINVAL: beyond what this kernel knows, nothing to drop */
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL) {
			perror("fgt-capbound: PR_CAPBSET_DROP");
			return -1;
		}
	}
	if (syscall(SYS_capget, &hdr, data))
		return perror("fgt-capbound: capget"), -1;
	for (c = 0; c < 2; c++) {
		data[c].effective &= (__u32)(keep >> (32 * c));
		data[c].permitted &= (__u32)(keep >> (32 * c));
		data[c].inheritable = 0;
	}
	if (syscall(SYS_capset, &hdr, data))
		return perror("fgt-capbound: capset"), -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return perror("fgt-capbound: PR_SET_NO_NEW_PRIVS"), -1;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long keep;

	if (argc < 4 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: fgt-capbound CAP,CAP,...|none -- COMMAND [ARGS...]\n");
		return 2;
	}
	if (parse(argv[1], &keep))
		return 2;
	if (restrict_caps(keep))
		return 1;
	execvp(argv[3], argv + 3);
	fprintf(stderr, "fgt-capbound: %s: %s\n", argv[3], strerror(errno));
	return 127;
}
