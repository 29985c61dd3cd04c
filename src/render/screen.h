/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The terminal of the top-like screen, as top and htop handle it:
 *
 *  - a frame is a list of lines, each cut to the terminal's width (never
 *    wrapped), at most its height, made printable (a thread's comm can hold
 *    any byte, escape sequences included): fgt_lines, pure and unit-tested;
 *  - drawn in place: cursor home, each line then erase-to-end-of-line, erase
 *    below, inside a synchronized update (DEC mode 2026, ignored where
 *    unknown): no clear-screen, no flicker;
 *  - the terminal: the alternate screen, the cursor hidden, keys unbuffered
 *    and unechoed (Ctrl-C still signals), the size re-read on SIGWINCH; all of
 *    it restored on every way out: fgt_term_close() from the normal exit and
 *    from an error's, an atexit() handler, and the fatal signals' handlers
 *    (async-signal-safe: write() and tcsetattr() only) before they re-raise.
 */
#ifndef FGT_SCREEN_H
#define FGT_SCREEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ---- frames (pure) ---------------------------------------------------------- */

struct fgt_lines {
	char *buf;		/* the lines, each '\n'-terminated */
	size_t len, cap;
	int cols, rows;		/* the terminal's size */
	int n;			/* lines kept */
	int dropped;		/* lines past the last row */
	bool oom;
};

void fgt_lines_init(struct fgt_lines *l, int cols, int rows);
void fgt_lines_reset(struct fgt_lines *l);	/* empty, same size */
void fgt_lines_free(struct fgt_lines *l);
/* One screen line (a '\n' in it ends it): printable, cut to cols. */
void fgt_lines_add(struct fgt_lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same, wrapped instead of cut: at spaces (else anywhere) to cols, the
 * rows after the first indented by indent columns. For the facts a narrow
 * terminal must not lose: the activation under way, a holder's remedy. */
void fgt_lines_wrap(struct fgt_lines *l, int indent, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Rows still free. */
int fgt_lines_left(const struct fgt_lines *l);

/* src, made printable (other bytes become '?') and cut to cols columns, into
 * dst (NUL-terminated; dst must hold cols + 1). Returns the columns used. */
int fgt_cut(char *dst, size_t len, const char *src, int cols);

/* The frame as the terminal gets it (one write). */
void fgt_lines_draw(const struct fgt_lines *l, FILE *f);

/* Markers the lab's terminal test splits frames on. */
#define FGT_SYNC_BEGIN	"\033[?2026h"
#define FGT_SYNC_END	"\033[?2026l"

/* ---- the terminal ------------------------------------------------------------ */

/* Whether a terminal of this TERM and width gets the screen: not "dumb" (or
 * unset), and at least FGT_SCREEN_MIN_COLS wide; else the lines (pure). */
#define FGT_SCREEN_MIN_COLS	40
bool fgt_screen_fits(const char *term, int cols);
/* The same for the terminal on fd, at its size now (80 columns if it does not say). */
bool fgt_screen_wanted(int fd, const char *term);

/* Take the terminal (out: the screen's fd, in: the keys', -1 for none).
 * 0, or -errno (not a terminal: stay in line mode). */
int fgt_term_open(int out_fd, int in_fd);
/* Give it back as it was; idempotent, safe from any exit path. */
void fgt_term_close(void);
/* The size now (80x24 when the terminal does not say). */
void fgt_term_size(int *cols, int *rows);
/* Was the terminal resized since the last call? */
bool fgt_term_resized(void);
/* A key waiting, or -1 (never blocks). */
int fgt_term_key(void);

#endif
