// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF reader of kernel text (bpf/kread.bpf.c) for the static verdict,
 * used when /proc/kcore cannot be read. Only the programs that carry BPF link
 * this file; they hand fgt_kread_bpf in (fgt_static_opts.bpf_read), as check
 * is handed its BPF session: the unit tests, which have neither, pass NULL.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "kread.skel.h"
#include "bpf/kread_abi.h"
#include "static/kread_bpf.h"

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

int fgt_kread_bpf(uint64_t addr, void *buf, size_t len, char *msg, size_t mlen)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	libbpf_print_fn_t old = libbpf_set_print(silent);
	struct kread_bpf *skel;
	int err;

	if (len > FGT_KREAD_MAX) {
		snprintf(msg, mlen, "%zu bytes is more than one BPF read (%u)", len, FGT_KREAD_MAX);
		libbpf_set_print(old);
		return -E2BIG;
	}
	skel = kread_bpf__open_and_load();
	libbpf_set_print(old);
	if (!skel) {
		err = -errno;
		snprintf(msg, mlen, "cannot load the BPF reader: %s%s", strerror(-err),
			 err == -EPERM || err == -EINVAL ? " (needs CAP_BPF and CAP_PERFMON; "
			 "lockdown=confidentiality refuses bpf_probe_read_kernel)" : "");
		return err;
	}
	skel->bss->addr = addr;
	skel->bss->len = (__u32)len;
	skel->bss->err = 0;
	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.kread), &opts)) {
		err = -errno;
		snprintf(msg, mlen, "BPF_PROG_TEST_RUN of the reader: %s", strerror(-err));
	} else if (skel->bss->err) {
		err = skel->bss->err;
		snprintf(msg, mlen, "bpf_probe_read_kernel at %#llx: %s", (unsigned long long)addr,
			 strerror(-err));
	} else {
		memcpy(buf, (const void *)skel->bss->buf, len);
		err = 0;
	}
	kread_bpf__destroy(skel);
	return err;
}
