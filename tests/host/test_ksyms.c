// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "host/ksyms.h"

/* Realistic lines, out of order as /proc/kallsyms can be with modules. */
static const char kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffffc0a01000 t nft_do_chain\t[nf_tables]\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81254c40 t __pfx_register_ftrace_graph\n"
	"ffffffff81254c50 T register_ftrace_graph\n"
	"ffffffff81254f20 t __pfx_unregister_ftrace_graph\n"
	"ffffffff81254f30 T unregister_ftrace_graph\n"
	"ffffffff82a1b2c0 D ftrace_graph_active\n"
	"ffffffff82a1b2c4 d dup_name\n"
	"ffffffff81300000 t dup_name\n"
	"ffffffff82a1b2c8 D nr_threads\n"
	"garbage line\n"
	"ffffffffc0a02000 T nft_register_chain_type\t[nf_tables]\n";

static struct fgt_ksyms *load(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct fgt_ksyms *ks = fgt_ksyms_load_file(f);

	fclose(f);
	return ks;
}

static void test_by_name(void **state)
{
	struct fgt_ksyms *ks = load(kallsyms);
	const struct fgt_ksym *s;

	assert_non_null(ks);
	assert_true(fgt_ksyms_have_addrs(ks));
	s = fgt_ksyms_by_name(ks, "register_ftrace_graph");
	assert_non_null(s);
	assert_int_equal(s->addr, 0xffffffff81254c50ull);
	/* up to the next symbol: the __pfx_ padding of the next function */
	assert_int_equal(s->size, 0x2d0);
	assert_int_equal(s->type, 'T');
	s = fgt_ksyms_by_name(ks, "nft_do_chain");	/* module suffix dropped */
	assert_non_null(s);
	assert_int_equal(s->addr, 0xffffffffc0a01000ull);
	assert_int_equal(s->size, 0x1000);
	assert_null(fgt_ksyms_by_name(ks, "nft_do_chain\t[nf_tables]"));
	assert_null(fgt_ksyms_by_name(ks, "alloc_retstack_tasklist"));	/* inlined */
	assert_null(fgt_ksyms_by_name(ks, "garbage"));
	fgt_ksyms_free(ks);
}

static void test_text_preferred(void **state)
{
	struct fgt_ksyms *ks = load(kallsyms);
	const struct fgt_ksym *s = fgt_ksyms_by_name(ks, "dup_name");

	assert_non_null(s);
	assert_int_equal(s->type, 't');
	assert_int_equal(s->addr, 0xffffffff81300000ull);
	s = fgt_ksyms_by_name(ks, "ftrace_graph_active");
	assert_non_null(s);
	assert_int_equal(s->type, 'D');
	fgt_ksyms_free(ks);
}

static void test_by_addr(void **state)
{
	struct fgt_ksyms *ks = load(kallsyms);
	char buf[128];

	assert_string_equal(fgt_ksyms_by_addr(ks, 0xffffffff81254c50ull)->name,
			    "register_ftrace_graph");
	assert_string_equal(fgt_ksyms_by_addr(ks, 0xffffffff81254f1full)->name,
			    "register_ftrace_graph");
	assert_string_equal(fgt_ksyms_by_addr(ks, 0xffffffff81254f20ull)->name,
			    "__pfx_unregister_ftrace_graph");
	/* aliases: the first in file order */
	assert_string_equal(fgt_ksyms_by_addr(ks, 0xffffffff81000010ull)->name, "_stext");
	/* the absolute per-cpu symbol at 0 covers up to the kernel text */
	assert_string_equal(fgt_ksyms_by_addr(ks, 0x1000)->name, "fixed_percpu_data");
	assert_string_equal(fgt_ksyms_format(ks, 0xffffffff81254c9aull, buf, sizeof(buf)),
			    "register_ftrace_graph+0x4a");
	assert_string_equal(fgt_ksyms_format(ks, 0xffffffffc0a01010ull, buf, sizeof(buf)),
			    "nft_do_chain+0x10");
	fgt_ksyms_free(ks);
}

static void test_below_first_and_last(void **state)
{
	struct fgt_ksyms *ks = load("ffffffff81000000 T a\nffffffff81000100 T b\n");
	char buf[64];

	assert_null(fgt_ksyms_by_addr(ks, 0xffffffff80ffffffull));
	assert_string_equal(fgt_ksyms_format(ks, 0xffffffff80ffffffull, buf, sizeof(buf)),
			    "0xffffffff80ffffff");
	/* the last symbol has no known end: only its own address matches */
	assert_string_equal(fgt_ksyms_by_addr(ks, 0xffffffff81000100ull)->name, "b");
	assert_null(fgt_ksyms_by_addr(ks, 0xffffffff81000101ull));
	fgt_ksyms_free(ks);
}

static void test_kptr_restrict(void **state)
{
	struct fgt_ksyms *ks = load("0000000000000000 T _stext\n0000000000000000 T register_ftrace_graph\n");

	assert_non_null(ks);
	assert_false(fgt_ksyms_have_addrs(ks));
	assert_null(fgt_ksyms_by_addr(ks, 0));
	assert_non_null(fgt_ksyms_by_name(ks, "register_ftrace_graph"));
	fgt_ksyms_free(ks);
}

/* The struct a lookup returns is made once per symbol: both ways give the same pointer. */
static void test_same_pointer(void **state)
{
	struct fgt_ksyms *ks = load(kallsyms);
	const struct fgt_ksym *s = fgt_ksyms_by_name(ks, "register_ftrace_graph");

	assert_non_null(s);
	assert_ptr_equal(fgt_ksyms_by_name(ks, "register_ftrace_graph"), s);
	assert_ptr_equal(fgt_ksyms_by_addr(ks, 0xffffffff81254c60ull), s);
	/* aliases: one struct each */
	assert_ptr_not_equal(fgt_ksyms_by_name(ks, "_stext"), fgt_ksyms_by_name(ks, "startup_64"));
	assert_ptr_equal(fgt_ksyms_by_addr(ks, 0xffffffff81000000ull),
			 fgt_ksyms_by_name(ks, "_stext"));
	fgt_ksyms_free(ks);
}

/* What the line parser accepts: kallsyms as the kernel writes it, and little else. */
static void test_line_shapes(void **state)
{
	static const char text[] =
		"FFFFFFFF81000000 T upper_hex\n"		/* mixed case digits */
		"ffffffff81000010\tt\ttabs\n"
		"ffffffff81000020   t   spaces   \n"
		"ffffffff81000030 t crlf\r\n"
		"1000 d short_addr\n"				/* fewer than 16 digits */
		"10000000000000000 T too_long_addr\n"		/* more than 16 */
		"ffffffff8100004g T bad_digit\n"
		"ffffffff81000050 Tx no_blank_after_type\n"
		"ffffffff81000060 T\n"				/* no name */
		"ffffffff81000070\n"
		"\n"
		"ffffffff81000080 t a\n"			/* one-letter name */
		"ffffffff81000090 t a_name_longer_than_two_words_of_eight_bytes\t[mod]\n"
		"ffffffff810000a0 t last_line_without_newline";
	struct fgt_ksyms *ks = load(text);
	const struct fgt_ksym *s;

	assert_non_null(ks);
	assert_non_null((s = fgt_ksyms_by_name(ks, "upper_hex")));
	assert_int_equal(s->addr, 0xffffffff81000000ull);
	assert_int_equal(s->size, 0x10);
	assert_non_null((s = fgt_ksyms_by_name(ks, "tabs")));
	assert_int_equal(s->addr, 0xffffffff81000010ull);
	assert_int_equal(s->type, 't');
	assert_non_null(fgt_ksyms_by_name(ks, "spaces"));
	assert_non_null(fgt_ksyms_by_name(ks, "crlf"));
	assert_null(fgt_ksyms_by_name(ks, "crlf\r"));
	assert_non_null((s = fgt_ksyms_by_name(ks, "short_addr")));
	assert_int_equal(s->addr, 0x1000);
	assert_null(fgt_ksyms_by_name(ks, "too_long_addr"));
	assert_null(fgt_ksyms_by_name(ks, "bad_digit"));
	assert_null(fgt_ksyms_by_name(ks, "no_blank_after_type"));
	assert_null(fgt_ksyms_by_name(ks, "x"));
	assert_non_null(fgt_ksyms_by_name(ks, "a"));
	assert_non_null(fgt_ksyms_by_name(ks, "a_name_longer_than_two_words_of_eight_bytes"));
	assert_null(fgt_ksyms_by_name(ks, "a_name_longer_than_two_words_of_eight_bytes\t[mod]"));
	assert_null(fgt_ksyms_by_name(ks, "a_name_longer_than_two_words_of_eight_byte"));
	assert_non_null((s = fgt_ksyms_by_name(ks, "last_line_without_newline")));
	assert_int_equal(s->addr, 0xffffffff810000a0ull);
	assert_int_equal(s->size, 0);
	assert_string_equal(fgt_ksyms_by_addr(ks, 0xffffffff81000095ull)->name,
			    "a_name_longer_than_two_words_of_eight_bytes");
	fgt_ksyms_free(ks);
}

/* Every 16-digit address, whatever its digits and case. */
static void test_hex_digits(void **state)
{
	static const uint64_t addrs[] = {
		0, 0x0123456789abcdefull, 0xfedcba9876543210ull, 0xffffffffffffffffull,
		0xa0a0a0a0a0a0a0a0ull, 0x9f9f9f9f9f9f9f9full,
	};
	char text[512], name[16];
	size_t len = 0;
	struct fgt_ksyms *ks;

	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++)
		len += snprintf(text + len, sizeof(text) - len, i % 2 ? "%016llX T s%zu\n" :
				"%016llx T s%zu\n", (unsigned long long)addrs[i], i);
	ks = load(text);
	assert_non_null(ks);
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		snprintf(name, sizeof(name), "s%zu", i);
		assert_non_null(fgt_ksyms_by_name(ks, name));
		assert_int_equal(fgt_ksyms_by_name(ks, name)->addr, addrs[i]);
	}
	fgt_ksyms_free(ks);
}

/* Modules after vmlinux, out of order, one at an address vmlinux also has. */
static void test_modules_merged(void **state)
{
	static const char text[] =
		"ffffffff81000000 T a\n"
		"ffffffff81000100 T b\n"
		"ffffffff81000200 t c\n"
		"ffffffffc0002000 t m2\t[m]\n"
		"ffffffff81000100 T b_alias_from_module\t[m]\n"
		"ffffffffc0001000 t m1\t[m]\n"
		"ffffffff80000000 t below_all\t[m]\n";
	struct fgt_ksyms *ks = load(text);

	assert_non_null(ks);
	assert_string_equal(fgt_ksyms_by_addr(ks, 0xffffffff80000010ull)->name, "below_all");
	assert_int_equal(fgt_ksyms_by_name(ks, "below_all")->size, 0x1000000);
	/* equal addresses: file order, vmlinux's first */
	assert_string_equal(fgt_ksyms_by_addr(ks, 0xffffffff81000180ull)->name, "b");
	assert_int_equal(fgt_ksyms_by_name(ks, "b_alias_from_module")->size, 0x100);
	assert_int_equal(fgt_ksyms_by_name(ks, "c")->size, 0xffffffffc0001000ull - 0xffffffff81000200ull);
	assert_string_equal(fgt_ksyms_by_addr(ks, 0xffffffffc0001fffull)->name, "m1");
	assert_string_equal(fgt_ksyms_by_addr(ks, 0xffffffffc0002000ull)->name, "m2");
	assert_null(fgt_ksyms_by_addr(ks, 0xffffffffc0002001ull));
	fgt_ksyms_free(ks);
}

/* Lines across read blocks, and one longer than a block: dropped, not the next. */
static void test_long_lines(void **state)
{
	const size_t junk = 600 << 10;	/* more than two blocks */
	size_t cap = junk + (1 << 20), len = 0;
	char *text = malloc(cap);
	struct fgt_ksyms *ks;
	unsigned int i;

	assert_non_null(text);
	len += snprintf(text + len, cap - len, "ffffffff81000000 T first\n"
			"ffffffff81000010 T ");
	memset(text + len, 'x', junk);	/* a name far longer than any kernel's */
	len += junk;
	len += snprintf(text + len, cap - len, "\nffffffff81000020 T junk_end\n");
	for (i = 0; len < cap - 64; i++)
		len += snprintf(text + len, cap - len, "%016llx t after_%u\n",
				0xffffffff82000000ull + i * 16ull, i);
	text[len] = '\0';
	ks = load(text);
	assert_non_null(ks);
	assert_non_null(fgt_ksyms_by_name(ks, "first"));
	/* the long line is gone, and the symbol after it up to the next one */
	assert_int_equal(fgt_ksyms_by_name(ks, "first")->size, 0x20);
	assert_non_null(fgt_ksyms_by_name(ks, "junk_end"));
	assert_non_null(fgt_ksyms_by_name(ks, "after_0"));
	assert_non_null(fgt_ksyms_by_name(ks, "after_1000"));
	assert_int_equal(fgt_ksyms_by_name(ks, "after_1000")->addr, 0xffffffff82000000ull + 16000);
	fgt_ksyms_free(ks);
	free(text);
}

static void test_empty(void **state)
{
	struct fgt_ksyms *ks = load("");

	assert_non_null(ks);
	assert_false(fgt_ksyms_have_addrs(ks));
	assert_null(fgt_ksyms_by_name(ks, "a"));
	assert_null(fgt_ksyms_by_addr(ks, 0x1000));
	fgt_ksyms_free(ks);
}

/* Call padding: "__pfx_foo" right before "foo" shares foo's stored name. */
static void test_pfx_names(void **state)
{
	char text[2048], longname[300];
	size_t len = 0;
	struct fgt_ksyms *ks;
	const struct fgt_ksym *s, *p;

	memset(longname, 'l', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	len += snprintf(text + len, sizeof(text) - len,
			"ffffffff81000000 t __pfx_foo\n"
			"ffffffff81000010 T foo\n"
			"ffffffff81000100 t __pfx___pfx_x\n"	/* a chain: only the first pair shares */
			"ffffffff81000110 t __pfx_x\n"
			"ffffffff81000120 t x\n"
			"ffffffff81000200 t __pfx_bar\n"		/* not followed by bar */
			"ffffffff81000210 t baz\n"
			"ffffffff81000300 t __pfx_\n"
			"ffffffff81000310 t y\n"
			"ffffffff81000400 t __pfx_%s\n"
			"ffffffff81000410 t %s\n"
			"ffffffff81000500 t __pfx_mod_fn\t[m]\n"
			"ffffffff81000510 t mod_fn\t[m]\n"
			"ffffffff81000600 T end\n", longname, longname);
	ks = load(text);
	assert_non_null(ks);
	p = fgt_ksyms_by_name(ks, "__pfx_foo");
	s = fgt_ksyms_by_name(ks, "foo");
	assert_non_null(p);
	assert_non_null(s);
	assert_string_equal(p->name, "__pfx_foo");
	assert_string_equal(s->name, "foo");
	assert_int_equal(p->addr, 0xffffffff81000000ull);
	assert_int_equal(p->size, 0x10);
	assert_int_equal(p->type, 't');
	assert_ptr_equal(fgt_ksyms_by_addr(ks, 0xffffffff8100000full), p);
	assert_ptr_equal(fgt_ksyms_by_addr(ks, 0xffffffff81000010ull), s);
	assert_null(fgt_ksyms_by_name(ks, "__pfx_fo"));
	assert_null(fgt_ksyms_by_name(ks, "__pfx_fooo"));
	assert_null(fgt_ksyms_by_name(ks, "_pfx_foo"));
	assert_string_equal(fgt_ksyms_by_name(ks, "__pfx___pfx_x")->name, "__pfx___pfx_x");
	assert_string_equal(fgt_ksyms_by_name(ks, "__pfx_x")->name, "__pfx_x");
	assert_string_equal(fgt_ksyms_by_name(ks, "x")->name, "x");
	assert_int_equal(fgt_ksyms_by_name(ks, "__pfx_x")->addr, 0xffffffff81000110ull);
	assert_string_equal(fgt_ksyms_by_name(ks, "__pfx_bar")->name, "__pfx_bar");
	assert_string_equal(fgt_ksyms_by_name(ks, "baz")->name, "baz");
	assert_null(fgt_ksyms_by_name(ks, "bar"));
	assert_string_equal(fgt_ksyms_by_name(ks, "__pfx_")->name, "__pfx_");
	assert_string_equal(fgt_ksyms_by_name(ks, "y")->name, "y");
	assert_string_equal(fgt_ksyms_by_addr(ks, 0xffffffff81000400ull)->name + 6, longname);
	assert_non_null(fgt_ksyms_by_name(ks, longname));
	assert_string_equal(fgt_ksyms_by_addr(ks, 0xffffffff81000508ull)->name, "__pfx_mod_fn");
	assert_string_equal(fgt_ksyms_by_name(ks, "mod_fn")->name, "mod_fn");
	fgt_ksyms_free(ks);
}

static void test_missing_file(void **state)
{
	assert_null(fgt_ksyms_load("/nonexistent/kallsyms"));
}

/*
 * 200k lines, shuffled: every symbol found both ways. How long that takes,
 * and how it grows with the count, is `make bench`'s (part ksyms,
 * tests/bench/ksyms.c), not a unit test's.
 */
static void test_large(void **state)
{
	const unsigned int n = 200000;
	size_t cap = (size_t)n * 48, len = 0;
	char *text = malloc(cap), name[32];
	struct fgt_ksyms *ks;
	unsigned int i, j;

	assert_non_null(text);
	for (i = 0; i < n; i++) {
		j = (i * 7919u) % n;	/* a permutation: addresses out of order */
		len += snprintf(text + len, cap - len, "%016llx %c fn_%u\n",
				0xffffffff81000000ull + j * 0x40ull, j % 3 ? 't' : 'T', j);
	}
	ks = load(text);
	assert_non_null(ks);
	for (i = 0; i < n; i++) {
		const struct fgt_ksym *s;

		snprintf(name, sizeof(name), "fn_%u", i);
		s = fgt_ksyms_by_name(ks, name);
		assert_non_null(s);
		assert_int_equal(s->addr, 0xffffffff81000000ull + i * 0x40ull);
		/* the highest symbol has no known end */
		assert_ptr_equal(fgt_ksyms_by_addr(ks, s->addr + (i < n - 1 ? 0x3f : 0)), s);
	}
	assert_int_equal(fgt_ksyms_count(ks), n);
	fgt_ksyms_free(ks);
	free(text);
}

/* As Debian 7.2 lists them: every function after its padding, 100k times. */
static void test_large_pfx(void **state)
{
	const unsigned int n = 100000;
	size_t cap = (size_t)n * 80, len = 0;
	char *text = malloc(cap), name[40];
	struct fgt_ksyms *ks;
	unsigned int i;

	assert_non_null(text);
	for (i = 0; i < n; i++)
		len += snprintf(text + len, cap - len, "%016llx t __pfx_fn_%u\n%016llx T fn_%u\n",
				0xffffffff81000000ull + i * 0x40ull, i,
				0xffffffff81000010ull + i * 0x40ull, i);
	ks = load(text);
	assert_non_null(ks);
	for (i = 0; i < n; i++) {
		const struct fgt_ksym *s, *p;

		snprintf(name, sizeof(name), "__pfx_fn_%u", i);
		p = fgt_ksyms_by_name(ks, name);
		assert_non_null(p);
		assert_string_equal(p->name, name);
		assert_int_equal(p->addr, 0xffffffff81000000ull + i * 0x40ull);
		assert_int_equal(p->size, 0x10);
		s = fgt_ksyms_by_name(ks, name + 6);
		assert_non_null(s);
		assert_int_equal(s->addr, p->addr + 0x10);
		assert_ptr_equal(fgt_ksyms_by_addr(ks, p->addr + 0xf), p);
	}
	fgt_ksyms_free(ks);
	free(text);
}

/* From symbols in memory: the same table as from their lines. */
static void test_from_syms(void **state)
{
	struct fgt_ksyms *ks, *want = load(kallsyms);
	struct fgt_ksym in[32];
	char line[256], name[128];
	const char *p = kallsyms;
	size_t n = 0;

	assert_non_null(want);
	while (*p && n < sizeof(in) / sizeof(in[0])) {
		unsigned long long a;
		char t;
		size_t l = strcspn(p, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)l, p);
		p += l + (p[l] == '\n');
		if (sscanf(line, "%llx %c %127s", &a, &t, name) != 3)
			continue;
		in[n++] = (struct fgt_ksym){ .name = strdup(name), .addr = a, .type = t };
	}
	ks = fgt_ksyms_from(in, n);
	assert_non_null(ks);
	assert_int_equal(fgt_ksyms_count(ks), fgt_ksyms_count(want));
	for (size_t i = 0; i < n; i++) {
		const struct fgt_ksym *a = fgt_ksyms_by_name(ks, in[i].name);
		const struct fgt_ksym *b = fgt_ksyms_by_name(want, in[i].name);

		assert_non_null(a);
		assert_non_null(b);
		assert_int_equal(a->addr, b->addr);
		assert_int_equal(a->size, b->size);
		assert_int_equal(a->type, b->type);
		assert_int_equal(fgt_ksyms_by_addr(ks, in[i].addr + 1) != NULL,
				 fgt_ksyms_by_addr(want, in[i].addr + 1) != NULL);
	}
	/* a name stops where a line's would; nothing of a blank one */
	free((char *)in[0].name);
	free((char *)in[1].name);
	in[0].name = "with space";
	in[1].name = "";
	fgt_ksyms_free(ks);
	ks = fgt_ksyms_from(in, 2);
	assert_non_null(ks);
	assert_int_equal(fgt_ksyms_count(ks), 1);
	assert_non_null(fgt_ksyms_by_name(ks, "with"));
	fgt_ksyms_free(ks);
	fgt_ksyms_free(want);
	for (size_t i = 2; i < n; i++)
		free((char *)in[i].name);
}

/* A part of a whole kernel's table: count and sane go by the whole's. */
static void test_part(void **state)
{
	const struct fgt_ksym in[] = {
		{ .name = "_stext", .addr = 0xffffffff81000000ull, .type = 'T' },
		{ .name = "register_ftrace_graph", .addr = 0xffffffff81254c50ull, .type = 'T' },
		{ .name = "__pfx_unregister_ftrace_graph", .addr = 0xffffffff81254f20ull, .type = 't' },
		{ .name = "_etext", .addr = 0xffffffff82000000ull, .type = 'T' },
	};
	struct fgt_ksyms *ks = fgt_ksyms_from(in, 4);
	char why[160];

	assert_non_null(ks);
	assert_false(fgt_ksyms_is_part(ks));
	assert_false(fgt_ksyms_sane(ks, why, sizeof(why)));
	assert_string_equal(why, "/proc/kallsyms looks masked or truncated (4 symbols)");
	fgt_ksyms_set_whole(ks, 59111);
	assert_true(fgt_ksyms_is_part(ks));
	assert_int_equal(fgt_ksyms_count(ks), 59111);
	assert_true(fgt_ksyms_sane(ks, why, sizeof(why)));
	assert_true(fgt_ksyms_have_addrs(ks));
	/* the size is up to the next symbol given, as in the whole table */
	assert_int_equal(fgt_ksyms_by_name(ks, "register_ftrace_graph")->size, 0x2d0);
	fgt_ksyms_free(ks);
	assert_false(fgt_ksyms_is_part(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_name),
		cmocka_unit_test(test_part),
		cmocka_unit_test(test_text_preferred),
		cmocka_unit_test(test_by_addr),
		cmocka_unit_test(test_below_first_and_last),
		cmocka_unit_test(test_kptr_restrict),
		cmocka_unit_test(test_same_pointer),
		cmocka_unit_test(test_line_shapes),
		cmocka_unit_test(test_hex_digits),
		cmocka_unit_test(test_modules_merged),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_pfx_names),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_large_pfx),
		cmocka_unit_test(test_from_syms),
	};

	return cmocka_run_group_tests_name("ksyms", tests, NULL, NULL);
}
