/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The static verdict's glue (src/static/static_kernel.c): the function's
 * text found and read from the running kernel or a kernel file, then judged.
 */
#ifndef FGT_STATIC_STATIC_KERNEL_H
#define FGT_STATIC_STATIC_KERNEL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "host/ksyms.h"
#include "static/static_types.h"

struct fgt_btf_known;

/* A reader of the running kernel's memory for when /proc/kcore cannot be
 * read: 0 or -errno with msg. */
typedef int (*fgt_kmem_read_fn)(uint64_t addr, void *buf, size_t len, char *msg, size_t mlen);

struct fgt_static_opts {
	const char *kernel;		/* NULL: the running kernel; else a vmlinux or bzImage */
	const char *system_map;		/* with kernel: its System.map (optional) */
	/* the running kernel: where to look (tests point these at fakes) */
	const char *kallsyms;		/* NULL: /proc/kallsyms */
	const char *kcore;		/* NULL: /proc/kcore */
	const char *btf;		/* NULL: /sys/kernel/btf/vmlinux */
	/* under lockdown=confidentiality: the file the kernel booted from */
	const char *boot_image;		/* NULL: /boot/vmlinuz-$(uname -r) */
	const char *notes;		/* NULL: /sys/kernel/notes (its build ID) */
	const struct fgt_ksyms *ks;	/* the running kernel's, if the caller has them */
	/* its BTF's answer, if the caller has it (no BTF is read then) */
	const struct fgt_btf_known *btf_known;
	bool no_bpf;			/* do not fall back to a BPF read when kcore fails */
	fgt_kmem_read_fn bpf_read;	/* that fallback (fgt_kread_bpf); NULL: none */
	volatile sig_atomic_t *stop;	/* set by SIGINT/SIGTERM: the reading stops (may be NULL) */
	/* called with the text as read, before decoding (recording test data) */
	void (*code_cb)(const struct fgt_static_code *c, const struct fgt_static_kernel *k,
			void *arg);
	void *code_arg;
};

/*
 * Answer for the running kernel (opts->kernel NULL) or a kernel file. Never
 * changes anything in the kernel: reads kallsyms, kcore (or, where kcore is
 * refused and BPF is allowed, the bytes through a BPF program run once with
 * BPF_PROG_TEST_RUN, never attached), BTF. Returns r->verdict; every bad case
 * is FGT_VERDICT_UNKNOWN with r->why and one line in r->evidence.
 */
enum fgt_verdict fgt_static_check(const struct fgt_static_opts *opts,
					 struct fgt_static_result *r);

/*
 * r is the running kernel's answer refused by lockdown (FGT_SW_LOCKDOWN):
 * answer from its boot image instead when that file is the running build
 * (the same GNU build ID), saying so in r->source; else r stays, with why
 * the file could not stand in. Called by fgt_static_check; exposed for tests.
 */
void fgt_static_from_boot_image(const struct fgt_static_opts *opts, struct fgt_static_result *r);

/* [addr, addr + len) of the running kernel, read as the verdict reads its
 * code: /proc/kcore (o->kcore), else o->bpf_read unless o->no_bpf. 0, or -1
 * with why in msg. */
int fgt_static_read_running(const struct fgt_static_opts *o, uint64_t addr, void *buf,
			    size_t len, char *msg, size_t mlen);

#endif
