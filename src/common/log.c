// SPDX-License-Identifier: GPL-2.0
/* The message channel: see log.h. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/exit_codes.h"
#include "common/json_writer.h"
#include "common/log.h"

#define FGT_MSG_LEN	4096

int fgt_verbose;

static bool json;
static FILE *json_out;
/* the text lines' prefixes: the program a user typed (fgt_msg_program()) */
static char err_prefix[64] = "fgraphtop: ";
static char warn_prefix[80] = "fgraphtop: warning: ";

void fgt_msg_setup(bool on, FILE *out)
{
	json = on;
	json_out = out;
}

void fgt_msg_program(const char *name)
{
	snprintf(err_prefix, sizeof(err_prefix), "%s: ", name);
	snprintf(warn_prefix, sizeof(warn_prefix), "%s: warning: ", name);
}

/*
 * While the screen owns the terminal, a line on stderr would be drawn over by
 * the next frame. Text messages are held instead: the screen shows the newest
 * warnings and errors (fgt_log_warnings()), and all of them are printed, in
 * order, once the terminal is back (fgt_log_hold(false)).
 */
#define FGT_HELD_MAX	4096

struct held {
	char *line;
	bool warn;		/* a warning or an error: the screen shows it */
};

static bool holding;
static struct held *held;
static unsigned int nheld, held_cap, held_dropped;
/* the holders watcher is a thread of its own: a message from it must not
 * race the frame being drawn */
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;

static void hold_line(const char *line, bool warn)
{
	struct held *h;

	if (nheld == held_cap) {
		unsigned int cap = held_cap ? held_cap * 2 : 16;

		h = cap <= FGT_HELD_MAX ? realloc(held, cap * sizeof(*held)) : NULL;
		if (!h) {
			held_dropped++;
			return;
		}
		held = h;
		held_cap = cap;
	}
	held[nheld].line = strdup(line);
	if (!held[nheld].line) {
		held_dropped++;
		return;
	}
	held[nheld++].warn = warn;
}

char *fgt_text_escape(char *out, size_t len, const char *in)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!len)
		return out;
	for (; *in && o + 1 < len; in++) {
		unsigned char c = (unsigned char)*in;

		if (c >= 0x20 && c != 0x7f && c != '\\') {
			out[o++] = (char)c;
			continue;
		}
		if (o + 4 >= len)
			break;
		out[o++] = '\\';
		out[o++] = 'x';
		out[o++] = hex[c >> 4];
		out[o++] = hex[c & 15];
	}
	out[o] = '\0';
	return out;
}

void fgt_text_line(FILE *f, const char *in)
{
	size_t n = 4 * strlen(in) + 1;
	char small[1024], *buf = n <= sizeof(small) ? small : malloc(n);

	if (!buf) {
		fputs("(out of memory)\n", f);
		return;
	}
	fgt_text_escape(buf, n, in);
	fprintf(f, "%s\n", buf);
	if (buf != small)
		free(buf);
}

static void text_line(const char *prefix, const char *msg, bool warn)
{
	char line[FGT_MSG_LEN + 64], esc[4 * FGT_MSG_LEN + 64];

	snprintf(line, sizeof(line), "%s%s", prefix, msg);
	fgt_text_escape(esc, sizeof(esc), line);
	pthread_mutex_lock(&held_lock);
	if (!holding)
		fprintf(stderr, "%s\n", esc);
	else
		hold_line(esc, warn);
	pthread_mutex_unlock(&held_lock);
}

void fgt_log_hold(bool on)
{
	unsigned int i;

	pthread_mutex_lock(&held_lock);
	if (on == holding)
		goto out;
	holding = on;
	if (on)
		goto out;
	for (i = 0; i < nheld; i++) {
		fprintf(stderr, "%s\n", held[i].line);
		free(held[i].line);
	}
	if (held_dropped)
		fprintf(stderr, "fgraphtop: %u more messages were not kept\n", held_dropped);
	free(held);
	held = NULL;
	nheld = held_cap = held_dropped = 0;
out:
	pthread_mutex_unlock(&held_lock);
}

unsigned int fgt_log_warnings(const char **out, unsigned int max)
{
	unsigned int n = 0, k = 0;

	pthread_mutex_lock(&held_lock);
	for (unsigned int i = nheld; i-- > 0;) {
		if (!held[i].warn)
			continue;
		if (k < max)
			out[k++] = held[i].line;
		n++;
	}
	pthread_mutex_unlock(&held_lock);
	return n;
}

/* The message, without the newline the text form ends with. */
static void format(char *buf, size_t len, const char *fmt, va_list ap)
{
	size_t n;

	vsnprintf(buf, len, fmt, ap);
	n = strlen(buf);
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
}

/* One JSON object: {"schema":1,"type":T,<k1>:<v1>,...,"message":M}. */
static void json_msg(const char *type, const char *k1, const char *v1, int exit_status,
		     const char *msg)
{
	json_writer_t *jw = jsonw_new(json_out ? json_out : stdout);

	if (!jw)
		return;
	jsonw_head(jw, type);
	if (k1)
		jsonw_string_field(jw, k1, v1);
	if (exit_status >= 0)
		jsonw_int_field(jw, "exit", exit_status);
	jsonw_string_field(jw, "message", msg);
	jsonw_end_object(jw);
	jsonw_destroy(&jw);
}

/* An error (status >= 0) or a warning: JSON, or a prefixed line on stderr. */
static void emit(const char *type, const char *code, int status, const char *prefix,
		 const char *fmt, va_list ap)
{
	char msg[FGT_MSG_LEN];

	format(msg, sizeof(msg), fmt, ap);
	if (json)
		json_msg(type, "code", code, status, msg);
	else
		text_line(prefix, msg, true);
}

void p_err(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("error", fgt_exit_name(status), status, err_prefix, fmt, ap);
	va_end(ap);
}

void p_warn(const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("warning", code, -1, warn_prefix, fmt, ap);
	va_end(ap);
}

void fgt_vlog(enum fgt_log_level level, const char *fmt, va_list ap)
{
	static const char *const names[] = { "error", "info", "debug" };
	char msg[FGT_MSG_LEN];

	format(msg, sizeof(msg), fmt, ap);
	if (json)
		json_msg("log", "level", names[level], -1, msg);
	else if (level == FGT_LOG_ERROR)
		text_line(err_prefix, msg, true);
	else
		text_line("", msg, false);
}

void fgt_log(enum fgt_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fgt_vlog(level, fmt, ap);
	va_end(ap);
}
