/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fgraphtop's top-like screen (src/render/out_screen.c): one frame of what
 * it saw, composed into the frame src/render/screen.c draws on the terminal.
 */
#ifndef FGT_OUT_SCREEN_H
#define FGT_OUT_SCREEN_H

#include "model/status.h"

struct fgt_out;
/* Compose and draw a frame now (src/render/output.c: on the screen only). */
void out_screen_draw(struct fgt_out *o, const struct fgt_status *st);

#endif
