// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "common/json_writer.h"

struct cap {
	FILE *f;
	char *buf;
	size_t len;
	json_writer_t *w;
};

static int setup(void **state)
{
	struct cap *c = calloc(1, sizeof(*c));

	c->f = open_memstream(&c->buf, &c->len);
	c->w = jsonw_new(c->f);
	*state = c;
	return c->w ? 0 : -1;
}

static int teardown(void **state)
{
	struct cap *c = *state;

	jsonw_destroy(&c->w);
	fclose(c->f);
	free(c->buf);
	free(c);
	return 0;
}

static const char *out(struct cap *c)
{
	fflush(c->f);
	return c->buf;
}

static void test_nesting_and_commas(void **state)
{
	struct cap *c = *state;

	jsonw_start_object(c->w);
	jsonw_string_field(c->w, "type", "activation");
	jsonw_uint_field(c->w, "sweeps", 313);
	jsonw_int_field(c->w, "ret", -11);
	jsonw_name(c->w, "served");
	jsonw_start_array(c->w);
	jsonw_uint(c->w, 32);
	jsonw_uint(c->w, 16);
	jsonw_end_array(c->w);
	jsonw_name(c->w, "empty");
	jsonw_start_object(c->w);
	jsonw_end_object(c->w);
	jsonw_bool_field(c->w, "complete", true);
	jsonw_null_field(c->w, "stack");
	jsonw_end_object(c->w);
	assert_string_equal(out(c), "{\"type\":\"activation\",\"sweeps\":313,\"ret\":-11,"
			    "\"served\":[32,16],\"empty\":{},\"complete\":true,\"stack\":null}\n");
}

static void test_one_object_per_line(void **state)
{
	struct cap *c = *state;

	jsonw_start_object(c->w);
	jsonw_uint_field(c->w, "a", 1);
	jsonw_end_object(c->w);
	jsonw_start_object(c->w);
	jsonw_uint_field(c->w, "b", 2);
	jsonw_end_object(c->w);
	/* no comma between top-level objects: JSON lines */
	assert_string_equal(out(c), "{\"a\":1}\n{\"b\":2}\n");
}

static void test_escaping(void **state)
{
	struct cap *c = *state;

	jsonw_start_object(c->w);
	jsonw_string_field(c->w, "q\"k", "a\"b\\c/\n\t\r\b\f\x01\x1f");
	jsonw_end_object(c->w);
	assert_string_equal(out(c),
		"{\"q\\\"k\":\"a\\\"b\\\\c/\\n\\t\\r\\b\\f\\u0001\\u001f\"}\n");
}

static void test_utf8(void **state)
{
	struct cap *c = *state;

	jsonw_start_array(c->w);
	jsonw_string(c->w, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7");	/* valid: as is */
	jsonw_string(c->w, "bad\xff\xc3");		/* invalid byte, truncated sequence */
	jsonw_string(c->w, "\xc0\xaf\xed\xa0\x80");	/* overlong '/', surrogate */
	jsonw_end_array(c->w);
	assert_string_equal(out(c), "[\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7\","
			    "\"bad\\ufffd\\ufffd\",\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"]\n");
}

static void test_numbers(void **state)
{
	struct cap *c = *state;

	jsonw_start_array(c->w);
	jsonw_float(c->w, 0.249);
	jsonw_float(c->w, NAN);
	jsonw_float(c->w, INFINITY);
	jsonw_float(c->w, -INFINITY);
	jsonw_uint(c->w, UINT64_MAX);
	jsonw_int(c->w, INT64_MIN);
	jsonw_string(c->w, NULL);
	jsonw_printf(c->w, "\"%s\"", "raw");
	jsonw_end_array(c->w);
	assert_string_equal(out(c), "[0.249,null,null,null,18446744073709551615,"
			    "-9223372036854775808,null,\"raw\"]\n");
}

static void test_pretty(void **state)
{
	struct cap *c = *state;

	jsonw_pretty(c->w, true);
	jsonw_start_object(c->w);
	jsonw_uint_field(c->w, "a", 1);
	jsonw_name(c->w, "b");
	jsonw_start_array(c->w);
	jsonw_uint(c->w, 2);
	jsonw_end_array(c->w);
	jsonw_end_object(c->w);
	assert_string_equal(out(c), "{\n    \"a\": 1,\n    \"b\": [\n        2\n    ]\n}\n");
}

static void test_unbalanced_end_ignored(void **state)
{
	struct cap *c = *state;

	jsonw_end_object(c->w);
	jsonw_start_object(c->w);
	jsonw_end_object(c->w);
	assert_string_equal(out(c), "{}\n");
}

/* Two threads writing records to one stream (a lock-wait notice beside
 * --explain's plan): every line is one whole record of one thread. */
#define RACE_RECORDS	2000
#define RACE_FIELDS	16

static void *race_writer(void *arg)
{
	FILE *f = ((void **)arg)[0];
	unsigned int id = *(unsigned int *)((void **)arg)[1];
	json_writer_t *w = jsonw_new(f);
	char name[16];

	for (int i = 0; i < RACE_RECORDS; i++) {
		jsonw_start_object(w);
		for (int k = 0; k < RACE_FIELDS; k++) {
			snprintf(name, sizeof(name), "f%d", k);
			jsonw_uint_field(w, name, id);
		}
		jsonw_end_object(w);
	}
	jsonw_destroy(&w);
	return NULL;
}

static void test_threads_whole_lines(void **state)
{
	FILE *f = tmpfile();
	unsigned int ids[2] = { 1, 2 };
	void *args[2][2] = { { NULL, &ids[0] }, { NULL, &ids[1] } };
	pthread_t t[2];
	char line[1024], want[2][1024];
	int n = 0;

	assert_non_null(f);
	for (int i = 0; i < 2; i++) {
		size_t o = 0;

		o += snprintf(want[i] + o, sizeof(want[i]) - o, "{");
		for (int k = 0; k < RACE_FIELDS; k++)
			o += snprintf(want[i] + o, sizeof(want[i]) - o, "%s\"f%d\":%u",
				      k ? "," : "", k, ids[i]);
		snprintf(want[i] + o, sizeof(want[i]) - o, "}\n");
		args[i][0] = f;
	}
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, race_writer, args[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (strcmp(line, want[0]) && strcmp(line, want[1]))
			fail_msg("line %d is no whole record: %.200s", n + 1, line);
		n++;
	}
	assert_int_equal(n, 2 * RACE_RECORDS);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_nesting_and_commas, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_object_per_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escaping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_utf8, setup, teardown),
		cmocka_unit_test_setup_teardown(test_numbers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pretty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unbalanced_end_ignored, setup, teardown),
		cmocka_unit_test(test_threads_whole_lines),
	};

	return cmocka_run_group_tests_name("json_writer", tests, NULL, NULL);
}
