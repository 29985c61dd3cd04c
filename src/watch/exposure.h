/* SPDX-License-Identifier: GPL-2.0 */
/* The exposure count's BPF side (bpf/exposure.bpf.c): the task iterator's
 * records, into the model's walk (src/model/exposure.h). */
#ifndef FGT_WATCH_EXPOSURE_H
#define FGT_WATCH_EXPOSURE_H

#include <stdbool.h>
#include "model/exposure_model.h"

/*
 * src/watch/exposure.c, BPF: one pass of the task iterator. 0; or -errno and one
 * line in msg: -EOPNOTSUPP when task_struct has no ret_stack (no function
 * graph tracer: nothing can stall), else why the iterator did not run
 * (needs kernel BTF, BPF tracing programs, CAP_BPF and CAP_PERFMON).
 */
int fgt_exposure_scan(struct fgt_exp_walk *w, char *msg, size_t len);

/* For repeated scans (the live view's interval line): load once, read a pass
 * per interval (errors as fgt_exposure_scan), close. open: NULL with errno
 * and msg set. */
struct fgt_exposure;
struct fgt_exposure *fgt_exposure_open(char *msg, size_t len);
/* The same over a program a session loaded (bpf/fgraphtop.bpf.c's
 * exp_count_lacking) and its no_ret_stack flag; the program stays the
 * session's. fgt_exposure_load_failed(): msg when that load failed. */
struct bpf_program;
struct fgt_exposure *fgt_exposure_of(struct bpf_program *prog, const bool *no_ret_stack,
				     char *msg, size_t len);
void fgt_exposure_load_failed(int err, char *msg, size_t len);
int fgt_exposure_read(struct fgt_exposure *e, struct fgt_exp_walk *w, char *msg, size_t len);
/* The next read's lacking threads become the ones owed (struct fgt_exp_owed):
 * that read and every later one count them (w->owed). */
void fgt_exposure_owe(struct fgt_exposure *e);
void fgt_exposure_close(struct fgt_exposure *e);

#endif
