// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-ksyms-bench: the symbol table (src/host/ksyms.c) at kallsyms' sizes,
 * natively: how its cost grows with the number of symbols.
 *
 *   fgt-ksyms-bench [-n N]... [-r REPS]
 *
 * For each N (default 50,000, 100,000, 200,000 and 400,000; Debian 7.2's
 * /proc/kallsyms has about 200,000 lines) the text of N kallsyms lines, as
 * tests/host/test_ksyms.c's test_large writes them (addresses out of order, a
 * permutation; 't' and 'T'), is built once, untimed. Each repetition then
 * times, on this thread's CPU clock and the wall clock:
 *   load     fgt_ksyms_load_file() over the text (parse, sort, index);
 *   lookup   every symbol by name, then by an address inside it.
 * Every answer is checked (the repetition fails otherwise, status 1): the
 * timed code is the code that is right.
 *
 * One JSON line per N with every repetition's figures. What is judged is not
 * a time but how it grows: each N doubles the last, so a table that sorts
 * and searches (N log N) takes a little over 2x as long at the next N, one
 * that scans per symbol (N^2) 4x (lab/bench/report.py: the ratios, the
 * fitted exponent, and the spread of the repetitions beside them).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "host/ksyms.h"

#define BASE	0xffffffff81000000ull
#define STRIDE	0x40ull

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* N lines as test_large writes them; the length in *len. */
static char *text_of(unsigned int n, size_t *len)
{
	size_t cap = (size_t)n * 48, l = 0;
	char *text = malloc(cap);

	if (!text)
		return NULL;
	for (unsigned int i = 0; i < n; i++) {
		/* a permutation (7919 is prime, and no N here is its multiple) */
		unsigned int j = (unsigned int)(((uint64_t)i * 7919u) % n);

		l += snprintf(text + l, cap - l, "%016llx %c fn_%u\n",
			      BASE + j * STRIDE, j % 3 ? 't' : 'T', j);
	}
	*len = l;
	return text;
}

struct sample {
	uint64_t load_cpu, load_wall, lookup_cpu, lookup_wall;
};

static bool run_once(const char *text, size_t len, unsigned int n, struct sample *x)
{
	uint64_t c0, w0;
	struct fgt_ksyms *ks;
	FILE *f = fmemopen((void *)text, len, "r");
	char name[32];
	bool ok = true;

	if (!f)
		return false;
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	w0 = clock_ns(CLOCK_MONOTONIC);
	ks = fgt_ksyms_load_file(f);
	x->load_wall = clock_ns(CLOCK_MONOTONIC) - w0;
	x->load_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	fclose(f);
	if (!ks || fgt_ksyms_count(ks) != n) {
		fprintf(stderr, "fgt-ksyms-bench: %u: loaded %zu symbols\n", n,
			ks ? fgt_ksyms_count(ks) : 0);
		fgt_ksyms_free(ks);
		return false;
	}
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	w0 = clock_ns(CLOCK_MONOTONIC);
	for (unsigned int i = 0; i < n && ok; i++) {
		const struct fgt_ksym *s;
		uint64_t a = BASE + i * STRIDE;

		snprintf(name, sizeof(name), "fn_%u", i);
		s = fgt_ksyms_by_name(ks, name);
		/* the highest symbol has no known end */
		ok = s && s->addr == a &&
		     fgt_ksyms_by_addr(ks, a + (i < n - 1 ? STRIDE - 1 : 0)) == s;
		if (!ok)
			fprintf(stderr, "fgt-ksyms-bench: %u: %s: wrong answer\n", n, name);
	}
	x->lookup_wall = clock_ns(CLOCK_MONOTONIC) - w0;
	x->lookup_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	fgt_ksyms_free(ks);
	return ok;
}

static void print_samples(const char *key, const struct sample *x, int reps, size_t off)
{
	printf(",\"%s\":[", key);
	for (int i = 0; i < reps; i++)
		printf("%s%llu", i ? "," : "",
		       (unsigned long long)*(const uint64_t *)((const char *)&x[i] + off));
	printf("]");
}

static bool bench(unsigned int n, int reps)
{
	struct sample *x = calloc(reps, sizeof(*x));
	size_t len = 0;
	char *text = text_of(n, &len);
	bool ok = x && text;

	for (int r = 0; ok && r < reps; r++)
		ok = run_once(text, len, n, &x[r]);
	if (ok) {
		printf("{\"type\":\"bench_ksyms\",\"n\":%u,\"bytes\":%zu,\"reps\":%d", n, len, reps);
		print_samples("load_cpu_ns", x, reps, offsetof(struct sample, load_cpu));
		print_samples("load_wall_ns", x, reps, offsetof(struct sample, load_wall));
		print_samples("lookup_cpu_ns", x, reps, offsetof(struct sample, lookup_cpu));
		print_samples("lookup_wall_ns", x, reps, offsetof(struct sample, lookup_wall));
		printf("}\n");
		fflush(stdout);
	}
	free(text);
	free(x);
	return ok;
}

static void usage(const char *why)
{
	fprintf(stderr, "fgt-ksyms-bench: %s (usage: fgt-ksyms-bench [-n N]... [-r REPS])\n", why);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int ns[16], nn = 0;
	int reps = 7, opt;
	bool ok = true;
	char *end;

	opterr = 0;	/* one line, ours */
	while ((opt = getopt(argc, argv, "n:r:")) != -1) {
		switch (opt) {
		case 'n': {
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || v < 2 || v > 10000000 || v % 7919 == 0)
				usage("-n takes a symbol count, 2 to 10000000, not a multiple of 7919");
			if (nn == sizeof(ns) / sizeof(ns[0]))
				usage("at most 16 -n");
			ns[nn++] = (unsigned int)v;
			break;
		}
		case 'r':
			reps = (int)strtol(optarg, &end, 10);
			if (*end || reps < 1 || reps > 1000)
				usage("-r takes a repetition count, 1 to 1000");
			break;
		default:
			usage(optopt == 'n' || optopt == 'r' ? "an option lacks its value" : "unknown option");
		}
	}
	if (optind < argc)
		usage("no arguments are taken");
	if (!nn) {
		static const unsigned int def[] = { 50000, 100000, 200000, 400000 };

		memcpy(ns, def, sizeof(def));
		nn = sizeof(def) / sizeof(def[0]);
	}
	for (unsigned int i = 0; i < nn; i++)
		ok &= bench(ns[i], reps);
	return ok ? 0 : 1;
}
