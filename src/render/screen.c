// SPDX-License-Identifier: GPL-2.0
/* The top-like screen's terminal and frames: see screen.h. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "common/log.h"
#include "render/screen.h"

/* ---- frames ----------------------------------------------------------------- */

void fgt_lines_init(struct fgt_lines *l, int cols, int rows)
{
	memset(l, 0, sizeof(*l));
	l->cols = cols > 0 ? cols : 80;
	l->rows = rows > 0 ? rows : 24;
}

void fgt_lines_reset(struct fgt_lines *l)
{
	l->len = 0;
	l->n = 0;
	l->dropped = 0;
	l->oom = false;
}

void fgt_lines_free(struct fgt_lines *l)
{
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

int fgt_lines_left(const struct fgt_lines *l)
{
	return l->rows > l->n ? l->rows - l->n : 0;
}

int fgt_cut(char *dst, size_t len, const char *src, int cols)
{
	int n = 0;

	if (!len)
		return 0;
	for (; *src && *src != '\n' && n < cols && (size_t)n + 1 < len; src++) {
		unsigned char c = *src;

		dst[n++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	dst[n] = '\0';
	return n;
}

static bool grow(struct fgt_lines *l, size_t more)
{
	size_t cap;
	char *b;

	if (l->len + more <= l->cap)
		return true;
	cap = l->cap ? l->cap : 4096;
	while (cap < l->len + more)
		cap *= 2;
	b = realloc(l->buf, cap);
	if (!b) {
		l->oom = true;
		return false;
	}
	l->buf = b;
	l->cap = cap;
	return true;
}

void fgt_lines_add(struct fgt_lines *l, const char *fmt, ...)
{
	char raw[2048];
	va_list ap;
	int n;

	if (l->n >= l->rows) {
		l->dropped++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (!grow(l, (size_t)l->cols + 2))
		return;
	n = fgt_cut(l->buf + l->len, (size_t)l->cols + 1, raw, l->cols);
	l->len += n;
	l->buf[l->len++] = '\n';
	l->n++;
}

void fgt_lines_wrap(struct fgt_lines *l, int indent, const char *fmt, ...)
{
	char raw[2048], row[2048];
	const char *p = raw;
	va_list ap;
	int first = 1;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (indent < 0 || indent > l->cols / 2)
		indent = l->cols / 2;
	while (*p) {
		int pad = first ? 0 : indent, room = l->cols - pad, n = (int)strlen(p), cut;

		if (room < 1)
			room = 1;
		cut = n <= room ? n : room;
		if (cut < n) {
			/* between fields (two spaces) when one ends past a third of
			 * the row, else at the last space: never mid-word if it can */
			int sp = 0, fld = 0;

			for (int i = cut; i > 0 && !(sp && fld); i--) {
				if (!sp && p[i] == ' ')
					sp = i;
				if (!fld && p[i] == ' ' && p[i - 1] == ' ' && i - 1 > room / 3)
					fld = i - 1;
			}
			cut = fld ? fld : sp ? sp : cut;
		}
		snprintf(row, sizeof(row), "%*s%.*s", pad, "", cut, p);
		fgt_lines_add(l, "%s", row);
		p += cut;
		while (*p == ' ')
			p++;
		first = 0;
	}
}

bool fgt_screen_fits(const char *term, int cols)
{
	return term && term[0] && strcmp(term, "dumb") && cols >= FGT_SCREEN_MIN_COLS;
}

bool fgt_screen_wanted(int fd, const char *term)
{
	struct winsize ws = {};

	return fgt_screen_fits(term, !ioctl(fd, TIOCGWINSZ, &ws) && ws.ws_col ? ws.ws_col : 80);
}

/*
 * Home, each line over the old one with the rest of the row erased, the rows
 * below erased: the terminal never shows a blank screen between two frames.
 * The last row gets no newline (it would scroll a full screen by one).
 */
void fgt_lines_draw(const struct fgt_lines *l, FILE *f)
{
	const char *p = l->buf, *end = l->buf + l->len;

	fputs(FGT_SYNC_BEGIN "\033[H", f);
	for (int i = 0; p && p < end; i++) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		fwrite(p, 1, n, f);
		/* a full row leaves the cursor on its last cell: erasing would take it */
		if ((int)n < l->cols)
			fputs("\033[K", f);
		if (i + 1 < l->rows && nl && nl + 1 < end)
			fputs("\r\n", f);
		p = nl ? nl + 1 : end;
	}
	fputs("\033[J" FGT_SYNC_END, f);
	fflush(f);
}

/* ---- the terminal ------------------------------------------------------------ */

/* What the signal handlers need to give the terminal back: plain globals. */
static int term_out = -1, term_in = -1;
static bool have_tio;
static struct termios saved_tio;
static volatile sig_atomic_t term_on, winched;

static const char enter_seq[] = "\033[?1049h\033[?25l\033[H\033[2J";
static const char leave_seq[] = "\033[?25h\033[?1049l";

static void restore(void)
{
	ssize_t r;

	if (!term_on)
		return;
	term_on = 0;
	r = write(term_out, leave_seq, sizeof(leave_seq) - 1);
	(void)r;
	if (have_tio)
		tcsetattr(term_in, TCSAFLUSH, &saved_tio);
}

static void on_winch(int sig)
{
	winched = 1;
}

/* A crash must not leave the terminal on the alternate screen without echo. */
static void on_fatal(int sig)
{
	restore();
	raise(sig);	/* SA_RESETHAND: the default action now */
}

static void handlers(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	static bool once;
	struct sigaction sa = {};

	sa.sa_handler = on_winch;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);	/* no SA_RESTART: the poll returns, we redraw */
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	if (!once) {
		atexit(fgt_term_close);
		once = true;
	}
}

int fgt_term_open(int out_fd, int in_fd)
{
	struct termios raw;
	ssize_t r;

	if (!isatty(out_fd))
		return -ENOTTY;
	term_out = out_fd;
	term_in = in_fd >= 0 && isatty(in_fd) ? in_fd : -1;
	have_tio = term_in >= 0 && !tcgetattr(term_in, &saved_tio);
	if (have_tio) {
		raw = saved_tio;
		/* keys one at a time, unechoed; ISIG stays: Ctrl-C is SIGINT */
		raw.c_lflag &= ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		tcsetattr(term_in, TCSANOW, &raw);
	}
	handlers();
	term_on = 1;
	winched = 0;
	r = write(term_out, enter_seq, sizeof(enter_seq) - 1);
	(void)r;
	/* a line on stderr now would be drawn over by the next frame */
	fgt_log_hold(true);
	return 0;
}

/* The terminal back as it was, then every message held meanwhile on it. */
void fgt_term_close(void)
{
	restore();
	fgt_log_hold(false);
}

void fgt_term_size(int *cols, int *rows)
{
	struct winsize ws = {};

	if (term_out >= 0 && !ioctl(term_out, TIOCGWINSZ, &ws) && ws.ws_col && ws.ws_row) {
		*cols = ws.ws_col;
		*rows = ws.ws_row;
		return;
	}
	*cols = 80;
	*rows = 24;
}

bool fgt_term_resized(void)
{
	if (!winched)
		return false;
	winched = 0;
	return true;
}

int fgt_term_key(void)
{
	unsigned char c;

	if (term_in < 0 || !term_on)
		return -1;
	/* VMIN = VTIME = 0: read returns at once, 0 when no key waits */
	return read(term_in, &c, 1) == 1 ? c : -1;
}
