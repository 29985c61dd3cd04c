// SPDX-License-Identifier: GPL-2.0
/*
 * A part of the running kernel's symbol table (src/host/ksyms.h): the named
 * symbols only, read from the kernel's own kallsyms tables through
 * /proc/kcore (VMCOREINFO points at them from 6.0; src/static/kimage_kallsyms.c
 * decodes only the names asked for), as fgraphtop check --static does.
 *
 * What the live tool needs before its probes are up is a dozen names; the
 * whole of /proc/kallsyms is for symbolizing stacks, later, and reading it
 * costs many times what the tables from kcore do (docs/bench/startup.md).
 */
#include <stdlib.h>
#include "static/kimage.h"
#include "static/kimage_kallsyms.h"
#include "static/kimage_kcore.h"
#include "static/ksyms_kcore.h"
#include "host/ksyms.h"

struct fgt_ksyms *fgt_ksyms_kcore(const char *kcore, const char *const *names, size_t n)
{
	struct fgt_ksyms *ks = NULL;
	struct fgt_vmcoreinfo vi;
	struct fgt_kmem *km = NULL;
	struct fgt_kimage im;
	long *idx = calloc(n ? n : 1, sizeof(*idx));
	char msg[200];

	if (!idx || fgt_kimage_open_kcore(&im, kcore, msg, sizeof(msg))) {
		free(idx);
		return NULL;
	}
	if (!fgt_kimage_vmcoreinfo(&im, &vi))
		km = fgt_kmem_open(&im, &vi, names, n, idx, msg, sizeof(msg));
	if (km)
		ks = fgt_kmem_table(km, idx, n);
	if (ks)
		fgt_ksyms_set_whole(ks, fgt_kmem_count(km));
	fgt_kmem_free(km);
	fgt_kimage_close(&im);
	free(idx);
	return ks;
}
