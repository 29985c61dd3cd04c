/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by bpf/kread.bpf.c and src/static/kread_bpf.c: how much one run reads. */
#ifndef FGT_KREAD_ABI_H
#define FGT_KREAD_ABI_H

#define FGT_KREAD_CHUNK	512
#define FGT_KREAD_MAX	(16 * 1024)	/* register_ftrace_graph: 2-3 KiB */

#endif
