// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-consumer-bench: fgraphtop's consumer, natively, at full speed.
 *
 *   fgt-consumer-bench [-u U] [-r REPS] [-s SHAPE]...
 *
 * Everything userspace does from the activation log to the finished record:
 * src/model/act_log_reader.c fgt_log_drain() -> src/model/activation.c
 * fgt_assembler_feed() (sweep inference, the latency histogram) ->
 * src/model/record.c fgt_recorder_activation() (verdict, the judge). The glue
 * in between is src/watch/drain.c's, reproduced
 * here line for line (fgt_drain_log(), feed_cb(), fgt_drain_event()'s ACT_BEGIN and
 * ACT_END cases): the session itself needs a kernel, this does not.
 *
 * The activation is tests/lib/gen.c's model of alloc_retstack_tasklist() with U
 * threads lacking a stack, unfixed (U/32 sweeps of 32 blocking allocations)
 * or fixed (32 reserve allocations, then U non-blocking ones in one walk),
 * turned into the 48-byte records BPF writes (bpf/fgraphtop.bpf.c log_rec()).
 * They reach the consumer as they would: FGT_LOG_WAKE records at a time (BPF
 * wakes userspace each time so many are written), into a ring of
 * FGT_LOG_ENTRIES slots, the least log, by an untimed producer. Only the consumer is timed,
 * wall clock and this thread's CPU time.
 *
 * Shapes: unfixed, fixed (warm: the producer's writes are in this core's
 * cache), fixed-cold (each quarter is flushed from the caches before it is
 * read: records written by another core, the worst case), and the direct
 * path's unfixed-direct, fixed-direct (SWEEP_BEGIN/END records as well).
 *
 * Prints one JSON line per shape with every repetition's figures; the run
 * fails (status 1) if any record is wrong: sweeps, served and verdict are
 * checked against the model.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "model/act_log_reader.h"
#include "model/activation.h"
#include "lib/gen.h"
#include "model/record.h"

struct stream {
	struct fgt_event begin, end;	/* ring-buffer events */
	struct fgt_rec *recs;		/* the log's records, in order */
	size_t n, cap;
};

/* What the session keeps for draining (src/watch/session_state.h struct fgt_session). */
struct consumer {
	struct fgt_assembler *as;
	struct fgt_recorder rec;
	struct fgt_log_who who;
	const struct fgt_rec *log;
	uint64_t head, tail;
	uint32_t begin_seq;
	/* the finished record, checked after the run */
	uint64_t served, sweeps, lost;
	enum fgt_verdict verdict;
	bool complete;
	unsigned int records;
};

static struct fgt_rec ring[FGT_LOG_ENTRIES] __attribute__((aligned(64)));

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ---- the activation, as BPF writes it ---- */

/* bpf/fgraphtop.bpf.c log_rec() and its callers fill these fields. */
static void to_rec(const struct fgt_event *e, struct fgt_rec *r)
{
	*r = (struct fgt_rec){
		.ts_ns = e->ts_ns, .ptr = e->ptr, .dur_ns = e->dur_ns, .gfp = e->gfp,
		.size = e->size, .ret = e->ret, .act_seq = 1, .type = e->type,
		.src = e->src, .site = e->site, .ok = e->ok, .cpu = 1,
	};
}

static void collect(const struct fgt_event *e, void *ctx)
{
	struct stream *s = ctx;

	switch (e->type) {
	case FGT_EV_ACT_BEGIN:
		s->begin = *e;
		s->begin.act_seq = 1;
		return;
	case FGT_EV_ACT_END:
		s->end = *e;
		s->end.act_seq = 1;
		return;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1 << 16;
		s->recs = realloc(s->recs, s->cap * sizeof(*s->recs));
		if (!s->recs) {
			perror("fgt-consumer-bench");
			exit(1);
		}
	}
	to_rec(e, &s->recs[s->n++]);
}

/* ---- the consumer: src/watch/drain.c's glue around the library ---- */

static void feed(struct consumer *c, const struct fgt_event *e)
{
	fgt_assembler_feed(c->as, e);
}

static void feed_cb(const struct fgt_event *e, void *ctx)
{
	feed(ctx, e);
}

static void log_drain(struct consumer *c, uint32_t upto)
{
	c->tail = fgt_log_drain(c->log, FGT_LOG_ENTRIES, c->tail, c->head, upto, &c->who, feed_cb, c);
}

static void handle_event(struct consumer *c, const struct fgt_event *e)
{
	switch (e->type) {
	case FGT_EV_LOG:
		log_drain(c, c->begin_seq);
		return;
	case FGT_EV_ACT_BEGIN:
		log_drain(c, e->act_seq - 1);
		c->begin_seq = e->act_seq;
		c->who.pid = e->pid;
		c->who.tid = e->tid;
		memcpy(c->who.comm, e->comm, sizeof(c->who.comm));
		break;
	case FGT_EV_ACT_END:
		log_drain(c, e->act_seq);
		break;
	}
	feed(c, e);
}

static void on_record(const struct fgt_record *rec, void *ctx)
{
	struct consumer *c = ctx;

	c->records++;
	c->served = rec->act->served;
	c->sweeps = rec->act->nr_sweeps;
	c->lost = rec->act->lost;
	c->complete = rec->act->complete;
	c->verdict = rec->verdict.verdict;
}

/* The cache lines of recs[0..n) out of every cache: as if another core wrote them. */
static void flush(const struct fgt_rec *recs, size_t n)
{
	const char *p = (const char *)recs, *end = (const char *)(recs + n);

	for (; p < end; p += 64)
		__builtin_ia32_clflush(p);
	__builtin_ia32_mfence();
}

struct sample {
	uint64_t wall_ns, cpu_ns;
};

/* One activation through a fresh consumer; returns false if its record is wrong. */
static bool run_once(const struct stream *s, bool cold, struct sample *out, struct consumer *c)
{
	const size_t quarter = FGT_LOG_WAKE;
	const struct fgt_event wake = { .type = FGT_EV_LOG };
	uint64_t w0, c0;
	size_t i = 0;

	memset(c, 0, sizeof(*c));
	c->log = ring;
	fgt_recorder_init(&c->rec, on_record, c, NULL, NULL, NULL);
	c->as = fgt_assembler_new(fgt_recorder_activation, &c->rec);
	if (!c->as)
		return false;
	out->wall_ns = out->cpu_ns = 0;
	w0 = clock_ns(CLOCK_MONOTONIC);
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	handle_event(c, &s->begin);
	out->wall_ns += clock_ns(CLOCK_MONOTONIC) - w0;
	out->cpu_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	while (i < s->n) {
		size_t n = s->n - i < quarter ? s->n - i : quarter;
		size_t slot = c->head & (FGT_LOG_ENTRIES - 1);

		/* the producer (untimed): a quarter, never across the ring's end */
		memcpy(&ring[slot], &s->recs[i], n * sizeof(*ring));
		if (cold)
			flush(&ring[slot], n);
		c->head += n;
		i += n;
		/* the consumer: woken for it, or by ACT_END for the rest */
		w0 = clock_ns(CLOCK_MONOTONIC);
		c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		handle_event(c, n == quarter ? &wake : &s->end);
		if (n == quarter && i == s->n)
			handle_event(c, &s->end);
		out->wall_ns += clock_ns(CLOCK_MONOTONIC) - w0;
		out->cpu_ns += clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	}
	fgt_assembler_free(c->as);
	return c->records == 1 && c->tail == s->n && c->complete;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void print_samples(const char *key, const uint64_t *v, int n)
{
	printf(",\"%s\":[", key);
	for (int i = 0; i < n; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)v[i]);
	printf("]");
}

struct shape {
	const char *name;
	bool fixed, direct, cold;
};

static const struct shape shapes[] = {
	{ "unfixed", false, false, false },
	{ "fixed", true, false, false },
	{ "fixed-cold", true, false, true },
	{ "unfixed-direct", false, true, false },
	{ "fixed-direct", true, true, false },
};

static bool bench(const struct shape *sh, unsigned int u, int reps)
{
	struct gen_cfg cfg = { .fixed = sh->fixed, .direct = sh->direct, .lacking = u,
			       .ts0 = 1000000 };
	uint64_t *wall = calloc(reps, sizeof(*wall)), *cpu = calloc(reps, sizeof(*cpu));
	uint64_t g0 = clock_ns(CLOCK_MONOTONIC), want_sweeps = sh->fixed ? 1 : (u + 31) / 32;
	enum fgt_verdict want = sh->fixed ? FGT_VERDICT_FIXED : FGT_VERDICT_NOT_FIXED;
	struct stream s = {};
	struct consumer c;
	bool ok = true;

	if (!wall || !cpu)
		return false;
	gen_activation(&cfg, collect, &s);
	g0 = clock_ns(CLOCK_MONOTONIC) - g0;
	for (int r = 0; r < reps; r++) {
		struct sample x;

		if (!run_once(&s, sh->cold, &x, &c) || c.served != u || c.sweeps != want_sweeps ||
		    c.verdict != want || c.lost) {
			fprintf(stderr, "fgt-consumer-bench: %s: wrong record: served %llu (want %u), "
				"sweeps %llu (want %llu), verdict %d (want %d), lost %llu\n",
				sh->name, (unsigned long long)c.served, u,
				(unsigned long long)c.sweeps, (unsigned long long)want_sweeps,
				c.verdict, want, (unsigned long long)c.lost);
			ok = false;
			break;
		}
		wall[r] = x.wall_ns;
		cpu[r] = x.cpu_ns;
	}
	if (ok) {
		uint64_t sw[reps], sc[reps];

		memcpy(sw, wall, sizeof(sw));
		memcpy(sc, cpu, sizeof(sc));
		qsort(sw, reps, sizeof(*sw), cmp_u64);
		qsort(sc, reps, sizeof(*sc), cmp_u64);
		printf("{\"type\":\"bench_consumer\",\"shape\":\"%s\",\"u\":%u,\"records\":%zu,"
		       "\"sweeps\":%llu,\"served\":%llu,\"log_entries\":%u,\"wake_every\":%u,"
		       "\"rec_bytes\":%zu,\"gen_ns\":%llu,\"reps\":%d,"
		       "\"wall_ns_median\":%llu,\"cpu_ns_median\":%llu",
		       sh->name, u, s.n, (unsigned long long)c.sweeps,
		       (unsigned long long)c.served, FGT_LOG_ENTRIES, FGT_LOG_WAKE,
		       sizeof(struct fgt_rec), (unsigned long long)g0, reps,
		       (unsigned long long)sw[reps / 2], (unsigned long long)sc[reps / 2]);
		print_samples("wall_ns", wall, reps);
		print_samples("cpu_ns", cpu, reps);
		printf("}\n");
		fflush(stdout);
	}
	free(s.recs);
	free(wall);
	free(cpu);
	return ok;
}

static void usage(void)
{
	fprintf(stderr, "usage: fgt-consumer-bench [-u U] [-r REPS] [-s SHAPE]...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *only[8];
	unsigned int u = 400000, nonly = 0;
	int reps = 11, opt;
	bool ok = true;

	while ((opt = getopt(argc, argv, "u:r:s:")) != -1) {
		switch (opt) {
		case 'u': u = strtoul(optarg, NULL, 0); break;
		case 'r': reps = atoi(optarg); break;
		case 's':
			if (nonly < 8)
				only[nonly++] = optarg;
			break;
		default: usage();
		}
	}
	if (!u || reps < 1)
		usage();
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		bool want = !nonly;

		for (unsigned int j = 0; j < nonly; j++)
			want |= !strcmp(only[j], shapes[i].name);
		if (want)
			ok &= bench(&shapes[i], u, reps);
	}
	return ok ? 0 : 1;
}
