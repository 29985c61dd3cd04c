// SPDX-License-Identifier: GPL-2.0
#include <math.h>
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
	};

	return cmocka_run_group_tests_name("json_writer", tests, NULL, NULL);
}
