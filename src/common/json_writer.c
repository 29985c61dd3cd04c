// SPDX-License-Identifier: GPL-2.0
/*
 * JSON writer in the spirit of bpftool's: the writer tracks nesting so callers
 * never place commas themselves. Compact by default, because the tool's JSON
 * output is JSON lines: one object per line, flushed at the end of each
 * top-level value so a reader on a pipe sees whole records.
 */
#include <math.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "common/json_writer.h"

#define JSONW_MAX_DEPTH 64

struct json_writer {
	FILE *out;
	unsigned int depth;
	bool pretty;
	/* per depth: a value was already written here, the next one needs a comma */
	bool sep[JSONW_MAX_DEPTH + 1];
	/* a name was just written: the next value follows it without separator */
	bool after_name;
};

json_writer_t *jsonw_new(FILE *f)
{
	json_writer_t *self = calloc(1, sizeof(*self));

	if (self)
		self->out = f;
	return self;
}

void jsonw_destroy(json_writer_t **self_p)
{
	if (!self_p || !*self_p)
		return;
	/* a record left open (an error path): its lock goes with it */
	if ((*self_p)->depth > 0)
		funlockfile((*self_p)->out);
	fflush((*self_p)->out);
	free(*self_p);
	*self_p = NULL;
}

void jsonw_pretty(json_writer_t *self, bool on)
{
	self->pretty = on;
}

static unsigned int level(const json_writer_t *self)
{
	/* deeper than we track: share the last slot, output stays valid JSON */
	return self->depth < JSONW_MAX_DEPTH ? self->depth : JSONW_MAX_DEPTH;
}

static void indent(json_writer_t *self)
{
	unsigned int i;

	if (!self->pretty)
		return;
	fputc('\n', self->out);
	for (i = 0; i < self->depth; i++)
		fputs("    ", self->out);
}

/* Everything that starts a value or a name goes through here first. */
static void separate(json_writer_t *self)
{
	if (self->after_name) {
		self->after_name = false;
		return;
	}
	if (self->sep[level(self)])
		fputc(',', self->out);
	if (self->depth > 0)
		indent(self);
	self->sep[level(self)] = true;
}

/* Length of the valid UTF-8 sequence at s, 0 if invalid (overlong, surrogate, > U+10FFFF). */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int c = s[0], n, i, cp;

	if (c < 0xc2 || c > 0xf4)
		return 0;
	n = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	cp = c & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/*
 * Kernel strings (comm, symbol names) are bytes, not text: valid UTF-8 passes
 * through, anything else becomes U+FFFD so the output always parses.
 */
static void write_escaped(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	fputc('"', out);
	while (*s) {
		switch (*s) {
		case '"':  fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*s < 0x20) {
				fprintf(out, "\\u%04x", *s);
			} else if (*s < 0x80) {
				fputc(*s, out);
			} else if ((n = utf8_len(s))) {
				fwrite(s, 1, n, out);
				s += n;
				continue;
			} else {
				fputs("\\ufffd", out);
			}
		}
		s++;
	}
	fputc('"', out);
}

static void open_container(json_writer_t *self, char c)
{
	/*
	 * A record is one line whatever other threads print: a lock-wait
	 * notice (common/waitnote.c) comes from a thread of its own, and its
	 * object once landed inside --explain's plan record under load. The
	 * stream stays locked from a top-level value's first byte to its
	 * newline (stdio's lock, recursive for this thread).
	 */
	if (self->depth == 0)
		flockfile(self->out);
	separate(self);
	fputc(c, self->out);
	self->depth++;
	self->sep[level(self)] = false;
}

static void close_container(json_writer_t *self, char c)
{
	bool had_items = self->sep[level(self)];

	if (self->depth == 0)
		return;		/* unbalanced: ignore rather than write garbage */
	self->depth--;
	if (had_items)
		indent(self);
	fputc(c, self->out);
	if (self->depth == 0) {
		/* one top-level value per line: JSON lines */
		fputc('\n', self->out);
		self->sep[0] = false;
		fflush(self->out);
		funlockfile(self->out);
	}
}

void jsonw_start_object(json_writer_t *self)
{
	open_container(self, '{');
}

void jsonw_end_object(json_writer_t *self)
{
	close_container(self, '}');
}

void jsonw_start_array(json_writer_t *self)
{
	open_container(self, '[');
}

void jsonw_end_array(json_writer_t *self)
{
	close_container(self, ']');
}

void jsonw_name(json_writer_t *self, const char *name)
{
	separate(self);
	write_escaped(self->out, name ? name : "");
	fputs(self->pretty ? ": " : ":", self->out);
	self->after_name = true;
}

void jsonw_string(json_writer_t *self, const char *value)
{
	separate(self);
	if (value)
		write_escaped(self->out, value);
	else
		fputs("null", self->out);
}

void jsonw_printf(json_writer_t *self, const char *fmt, ...)
{
	va_list ap;

	separate(self);
	va_start(ap, fmt);
	vfprintf(self->out, fmt, ap);
	va_end(ap);
}

void jsonw_bool(json_writer_t *self, bool value)
{
	jsonw_printf(self, "%s", value ? "true" : "false");
}

void jsonw_null(json_writer_t *self)
{
	jsonw_printf(self, "null");
}

void jsonw_uint(json_writer_t *self, uint64_t value)
{
	jsonw_printf(self, "%llu", (unsigned long long)value);
}

void jsonw_int(json_writer_t *self, int64_t value)
{
	jsonw_printf(self, "%lld", (long long)value);
}

/* JSON has no NaN or infinity: null says "no value" without breaking parsers. */
void jsonw_float(json_writer_t *self, double value)
{
	if (!isfinite(value))
		jsonw_null(self);
	else
		jsonw_printf(self, "%.15g", value);
}

void jsonw_string_field(json_writer_t *self, const char *prop, const char *val)
{
	jsonw_name(self, prop);
	jsonw_string(self, val);
}

void jsonw_uint_field(json_writer_t *self, const char *prop, uint64_t num)
{
	jsonw_name(self, prop);
	jsonw_uint(self, num);
}

void jsonw_int_field(json_writer_t *self, const char *prop, int64_t num)
{
	jsonw_name(self, prop);
	jsonw_int(self, num);
}

void jsonw_float_field(json_writer_t *self, const char *prop, double num)
{
	jsonw_name(self, prop);
	jsonw_float(self, num);
}

void jsonw_bool_field(json_writer_t *self, const char *prop, bool val)
{
	jsonw_name(self, prop);
	jsonw_bool(self, val);
}

void jsonw_null_field(json_writer_t *self, const char *prop)
{
	jsonw_name(self, prop);
	jsonw_null(self);
}

void jsonw_head(json_writer_t *self, const char *type)
{
	jsonw_start_object(self);
	jsonw_uint_field(self, "schema", FGT_JSON_SCHEMA);
	jsonw_string_field(self, "type", type);
}
