/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF reader of kernel memory (src/static/kread_bpf.c).
 */
#ifndef FGT_STATIC_KREAD_BPF_H
#define FGT_STATIC_KREAD_BPF_H

#include <stddef.h>
#include <stdint.h>

/* The BPF reader of kernel memory (src/static/kread_bpf.c), linked only into
 * the programs that carry BPF; they hand it in as fgt_static_opts.bpf_read. */
int fgt_kread_bpf(uint64_t addr, void *buf, size_t len, char *msg, size_t mlen);

#endif
