/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One JSON writer used for every JSON the tool prints (events, intervals, check,
 * errors), in the spirit of bpftool's json_writer: nesting tracked, commas and
 * escaping handled, compact (one line per object) or pretty.
 */
#ifndef FGT_JSON_WRITER_H
#define FGT_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The schema of every JSON object fgraphtop prints (docs/json.md, "schema"):
 * bump only when a name or meaning changes. */
#define FGT_JSON_SCHEMA 1

typedef struct json_writer json_writer_t;

json_writer_t *jsonw_new(FILE *f);
void jsonw_destroy(json_writer_t **self_p);
void jsonw_pretty(json_writer_t *self, bool on);

void jsonw_start_object(json_writer_t *self);
void jsonw_end_object(json_writer_t *self);	/* at depth 0 also writes '\n' and flushes */
void jsonw_start_array(json_writer_t *self);
void jsonw_end_array(json_writer_t *self);
void jsonw_name(json_writer_t *self, const char *name);

void jsonw_string(json_writer_t *self, const char *value);
void jsonw_printf(json_writer_t *self, const char *fmt, ...)	/* a raw value */
	__attribute__((format(printf, 2, 3)));
void jsonw_bool(json_writer_t *self, bool value);
void jsonw_null(json_writer_t *self);
void jsonw_uint(json_writer_t *self, uint64_t value);
void jsonw_int(json_writer_t *self, int64_t value);
void jsonw_float(json_writer_t *self, double value);

/* name: value shorthands */
void jsonw_string_field(json_writer_t *self, const char *prop, const char *val);
void jsonw_uint_field(json_writer_t *self, const char *prop, uint64_t num);
void jsonw_int_field(json_writer_t *self, const char *prop, int64_t num);
void jsonw_float_field(json_writer_t *self, const char *prop, double num);
void jsonw_bool_field(json_writer_t *self, const char *prop, bool val);
void jsonw_null_field(json_writer_t *self, const char *prop);

/* The head of every record fgraphtop prints: '{"schema":N,"type":TYPE', the
 * object left open for its fields. */
void jsonw_head(json_writer_t *self, const char *type);

#endif
