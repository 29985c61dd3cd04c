/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which kernel build is this: the release (uname -r) and the GNU build ID the
 * linker put in vmlinux's .notes, which the kernel exports verbatim as
 * /sys/kernel/notes. Two hosts with the same build ID run the same kernel
 * binary, so one checked host vouches for all of them.
 */
#ifndef FGT_KERNEL_ID_H
#define FGT_KERNEL_ID_H

#include <stddef.h>
#include <stdint.h>

#define FGT_NOTES_PATH		"/sys/kernel/notes"
#define FGT_BUILD_ID_MAX	64	/* bytes; ld's are 20 (sha1), but any length is legal */

struct fgt_kernel_id {
	char release[65];			/* struct utsname's size */
	char build_id[2 * FGT_BUILD_ID_MAX + 1];	/* lower-case hex, "" when unknown */
	int build_id_err;			/* 0, or -errno: why build_id is empty */
};

/*
 * The kernel's lockdown mode (security/lockdown/lockdown.c): securityfs's
 * lockdown file lists the modes with the current one in brackets ("none
 * integrity [confidentiality]"); where securityfs is not mounted, the
 * command line's lockdown= (Secure Boot alone gives integrity, never
 * confidentiality). NULL paths: /sys/kernel/security/lockdown, /proc/cmdline.
 */
enum fgt_lockdown {
	FGT_LOCKDOWN_UNKNOWN = 0,	/* neither file says */
	FGT_LOCKDOWN_NONE,
	FGT_LOCKDOWN_INTEGRITY,
	FGT_LOCKDOWN_CONFIDENTIALITY,
};

#define FGT_LOCKDOWN_PATH	"/sys/kernel/security/lockdown"

enum fgt_lockdown fgt_lockdown_mode(const char *securityfs, const char *cmdline);

/*
 * Find the NT_GNU_BUILD_ID note (name "GNU", type 3) in an ELF note stream
 * (namesz, descsz, type, name, desc; name and desc padded to 4 bytes) and
 * write it as hex into hex. Other owners' notes of type 3 (Xen's, in every
 * x86 vmlinux) are skipped. 0, -ENOENT (no such note), -EBADMSG (truncated or
 * malformed stream), -ENOSPC (hex too small).
 */
int fgt_build_id_parse(const void *notes, size_t len, char *hex, size_t hexlen);

/* Release from uname(2), build ID from notes_path (NULL: /sys/kernel/notes).
 * Never fails as a whole: what is unknown is left empty, with the reason. */
void fgt_kernel_id_read(struct fgt_kernel_id *id, const char *notes_path);

#endif
