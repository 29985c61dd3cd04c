// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel text for the static verdict where /proc/kcore cannot be read (a
 * container that masks it, no CONFIG_PROC_KCORE): userspace sets addr and
 * len, runs this program once with BPF_PROG_TEST_RUN (never attached: no
 * link, no trampoline, nothing changes in the kernel) and reads buf.
 * Refused under lockdown=confidentiality (LOCKDOWN_BPF_READ_KERNEL), as kcore.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "kread_abi.h"

char LICENSE[] SEC("license") = "GPL";

__u64 addr;
__u32 len;
__s32 err;
__u8 buf[FGT_KREAD_MAX];

SEC("raw_tp")
int kread(void *ctx)
{
	for (__u32 i = 0; i < FGT_KREAD_MAX / FGT_KREAD_CHUNK; i++) {
		__u32 off = i * FGT_KREAD_CHUNK;

		if (off >= len)
			break;
		err = bpf_probe_read_kernel(&buf[off], FGT_KREAD_CHUNK, (void *)(addr + off));
		if (err)
			break;
	}
	return 0;
}
