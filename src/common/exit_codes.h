/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every exit status fgraphtop can return, in one place. Documented in
 * docs/json.md ("Exit status") and in the man page's one table; each
 * unsupported case also prints one line saying what is wrong and what to do
 * (a JSON "error" object with -j).
 *
 * One contract across modes: a usage error is 64 (sysexits' EX_USAGE) from
 * fgraphtop, fgraphtop check and fgt-static alike, outside check's
 * monitoring-plugin statuses 0..3 (a runner that knows only those counts
 * it as unknown, and a script can tell a bad command line from an answer).
 */
#ifndef FGT_EXIT_CODES_H
#define FGT_EXIT_CODES_H

/* fgraphtop (the live tool, --explain) */
enum fgt_exit {
	FGT_EXIT_OK		= 0,	/* ran and ended normally (duration, SIGINT, --explain) */
	FGT_EXIT_ERROR		= 1,	/* unexpected failure (load/attach of a planned probe, ...) */
	/* 2: no longer used (bad options until 0.1; now FGT_EXIT_USAGE) */
	FGT_EXIT_USAGE		= 64,	/* bad options, every mode (EX_USAGE) */
	FGT_EXIT_NO_FGRAPH	= 3,	/* kernel has no function graph tracer: cannot have the problem */
	FGT_EXIT_NO_PERM	= 4,	/* not root / missing CAP_BPF+CAP_PERFMON, or kallsyms addresses hidden */
	FGT_EXIT_NO_BTF		= 5,	/* no /sys/kernel/btf/vmlinux */
	FGT_EXIT_NO_TRACING	= 6,	/* the kernel refuses BPF tracing programs (fentry/tp_btf) */
	FGT_EXIT_NO_PATH	= 7,	/* tracing works, but no path observes the 0->1 step */
	FGT_EXIT_LOCKDOWN	= 8,	/* lockdown=confidentiality refuses the BPF programs' reads */
	FGT_EXIT_REFUSED	= 9,	/* fgraphtop hold refused: its walk above the bound, or one-user fgraph */
};

/* Stable names for the JSON "error" object's "code". */
static inline const char *fgt_exit_name(int status)
{
	switch (status) {
	case FGT_EXIT_OK:		return "ok";
	case FGT_EXIT_ERROR:		return "error";
	case FGT_EXIT_USAGE:		return "usage";
	case FGT_EXIT_NO_FGRAPH:	return "no_fgraph";
	case FGT_EXIT_NO_PERM:		return "no_permission";
	case FGT_EXIT_NO_BTF:		return "no_btf";
	case FGT_EXIT_NO_TRACING:	return "no_bpf_tracing";
	case FGT_EXIT_NO_PATH:		return "no_path";
	case FGT_EXIT_LOCKDOWN:		return "lockdown";
	case FGT_EXIT_REFUSED:		return "refused";
	}
	return "unknown";
}

/* fgraphtop check: monitoring-plugin convention. */
enum fgt_check_exit {
	FGT_CHECK_OK		= 0,	/* fixed, or not affected */
	FGT_CHECK_WARNING	= 1,	/* fixed, but something is wrong (failures seen) */
	FGT_CHECK_CRITICAL	= 2,	/* not fixed */
	FGT_CHECK_UNKNOWN	= 3,	/* could not tell */
};

#endif
