/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trigger of a 0 -> 1 step in a few words, from its symbolized kernel stack:
 * the system call it came in by and the mechanism that registered the fgraph
 * user, e.g. "write() -> tracing_set_tracer" (tracefs current_tracer, trace-cmd,
 * perf ftrace), "bpf() -> kprobe_multi" (a kretprobe.multi link, 6.14+),
 * "write() -> function_profile" (the function profiler).
 */
#ifndef FGT_TRIGGER_WORDS_H
#define FGT_TRIGGER_WORDS_H

#include <stddef.h>

/* syms: function names, innermost first (offsets may be left on: "f+0x1f").
 * Writes "call() -> mechanism", "call()" or "mechanism", or "" when neither is
 * known; returns the length written. */
int fgt_trigger_via(const char *const *syms, int n, char *out, size_t len);

#endif
