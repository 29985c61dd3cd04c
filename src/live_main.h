/* SPDX-License-Identifier: GPL-2.0 */
/* `fgraphtop`'s live tool: its command line and process set-up (src/live_main.c). */
#ifndef FGT_LIVE_MAIN_H
#define FGT_LIVE_MAIN_H

/* `fgraphtop [OPTION...]`: argv[0] is the program. Parses options (src/env.c),
 * sets the process up, runs src/live/live.c; returns the exit status. */
int fgt_live_main(int argc, char **argv);

#endif
