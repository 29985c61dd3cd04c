/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one message channel (bpftool's p_err/p_info, retsnoop's small macros):
 * every message fgraphtop prints goes through here. In text mode they are
 * lines on stderr; in JSON mode every one is a JSON object (docs/json.md:
 * "error", "warning", "log") on the stream set up, so that a consumer of -j
 * never meets a stray line of text.
 */
#ifndef FGT_LOG_H
#define FGT_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

extern int fgt_verbose;		/* -v count */

/* JSON mode on or off, and where its objects go (text always goes to stderr). */
void fgt_msg_setup(bool json, FILE *json_out);
/* The program the text lines name (default "fgraphtop"). */
void fgt_msg_program(const char *name);

/* The one line before exiting with status (an FGT_EXIT_* code). */
void p_err(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Something is wrong, but fgraphtop goes on; code names it for JSON consumers. */
void p_warn(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Hold text messages while a full-screen view owns the terminal (on), then
 * print every held one, in order (off). JSON objects are never held.
 */
void fgt_log_hold(bool on);
/* The held warnings and errors, newest first, at most max into out; returns
 * how many are held in all. Valid until fgt_log_hold(false). */
unsigned int fgt_log_warnings(const char **out, unsigned int max);

/*
 * in as one line of text a terminal shows as it is: every control byte
 * (below 0x20, and 0x7f: escape sequences, newlines, carriage returns) and
 * backslash written as \xNN, so that a path, an option or a kernel's own
 * string can neither forge a line nor drive the terminal. Into out (len
 * bytes, cut short and NUL-ended); returns out. JSON escapes on its own.
 */
char *fgt_text_escape(char *out, size_t len, const char *in);
/* Print in to f as one escaped line (text mode's outputs). */
void fgt_text_line(FILE *f, const char *in);

enum fgt_log_level { FGT_LOG_ERROR, FGT_LOG_INFO, FGT_LOG_DEBUG };
void fgt_log(enum fgt_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fgt_vlog(enum fgt_log_level level, const char *fmt, va_list ap);

/* An internal error worth a line (not the exit's), -v, -vv. */
#define log_err(fmt, ...)  fgt_log(FGT_LOG_ERROR, fmt, ##__VA_ARGS__)
#define log_info(fmt, ...) do { if (fgt_verbose >= 1) fgt_log(FGT_LOG_INFO, fmt, ##__VA_ARGS__); } while (0)
#define log_dbg(fmt, ...)  do { if (fgt_verbose >= 2) fgt_log(FGT_LOG_DEBUG, fmt, ##__VA_ARGS__); } while (0)

#endif
