/* SPDX-License-Identifier: GPL-2.0 */
/* Small logging macros (retsnoop style): one place decides where messages go. */
#ifndef FGT_LOG_H
#define FGT_LOG_H

#include <stdio.h>

extern int fgt_verbose;		/* -v count */

#define log_err(fmt, ...)  fprintf(stderr, "fgraphtop: " fmt, ##__VA_ARGS__)
#define log_warn(fmt, ...) fprintf(stderr, "fgraphtop: warning: " fmt, ##__VA_ARGS__)
#define log_info(fmt, ...) do { if (fgt_verbose >= 1) fprintf(stderr, fmt, ##__VA_ARGS__); } while (0)
#define log_dbg(fmt, ...)  do { if (fgt_verbose >= 2) fprintf(stderr, fmt, ##__VA_ARGS__); } while (0)

#endif
