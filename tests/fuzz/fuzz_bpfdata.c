// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: what BPF hands userspace, read as hostile (docs/EVENTS.md): the
 * ring buffer's messages as src/watch/drain.c passes them on (events, the
 * aggregation's sweeps and its ACT_END state) into the assemblers
 * (src/watch/assemble.c), BPF's mapped state as the live view snapshots it,
 * the activation log's records and indices (src/model/act_log_reader.c),
 * and the exposure iterator's records (src/model/exposure_model.c). Every
 * finished activation is judged and worded, every one under way measured
 * (the progress, the walks so far), as the live tool does.
 *
 * The input is a run of chunks: a kind byte, a 16-bit length (little
 * endian), then that many bytes (fewer at the end).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "watch/assemble.h"
#include "model/act_log_reader.h"
#include "model/exposure_model.h"
#include "model/progress.h"
#include "model/verdict.h"

#define MAX_CHUNK	65535

static void judge(const struct fgt_activation *act, void *ctx)
{
	struct fgt_verdict_val v;
	char text[FGT_EVIDENCE_LEN];

	(void)ctx;
	if (fgt_activation_walks_now(act) > act->nr_sweeps)
		abort();
	fgt_verdict_judge(act, &v);
	fgt_verdict_text(&v, text, sizeof(text));
	if (!text[0] || strnlen(text, sizeof(text)) == sizeof(text))
		abort();
}

/* One under way, as the live view reads it. */
static void measure(const struct fgt_activation *cur)
{
	struct fgt_progress p;

	if (!cur)
		return;
	if (fgt_activation_walks_now(cur) > cur->nr_sweeps)
		abort();
	fgt_progress_of(cur, cur->last_ns + 1000000, -1, 0, &p);
	fgt_progress_of(cur, cur->last_ns, (int64_t)(cur->served / 2), cur->served, &p);
	if (p.sweeps > cur->nr_sweeps)
		abort();
}

static void feed(const struct fgt_event *e, void *ctx)
{
	fgt_assemble_msg(ctx, e, sizeof(*e));
}

/* The log's records, then its head and tail, read as the drain reads them. */
static void log_chunk(struct fgt_assemble *m, const uint8_t *d, size_t n)
{
	static const struct fgt_log_who who = { .pid = 1, .tid = 1, .comm = "fuzz" };
	uint64_t idx[2] = { 0, 0 };
	size_t nrec;
	uint32_t entries = 1;

	if (n < sizeof(idx) + 4)
		return;
	memcpy(idx, d, sizeof(idx));
	nrec = (n - sizeof(idx) - 4) / sizeof(struct fgt_rec);
	while (entries * 2 <= nrec)
		entries *= 2;
	if (!nrec) {
		fgt_log_drain(NULL, 0, idx[0], idx[1], 0, &who, feed, m);
		return;
	}
	{
		struct fgt_rec *recs = malloc(nrec * sizeof(*recs));
		uint32_t upto;

		if (!recs)
			return;
		memcpy(&upto, d + sizeof(idx), 4);
		memcpy(recs, d + sizeof(idx) + 4, nrec * sizeof(*recs));
		fgt_log_drain(recs, entries, idx[0], idx[1], upto, &who, feed, m);
		free(recs);
	}
}

/* The iterator's records: a count of them, and the owed set taken from
 * the first half and counted again over the second. */
static void exposure_chunk(const uint8_t *d, size_t n)
{
	size_t nrec = n / sizeof(struct fgt_exp_rec), half = nrec / 2;
	struct fgt_exp_rec *recs;
	struct fgt_exp_owed owed;
	struct fgt_exp_walk w;

	if (!nrec)
		return;
	recs = malloc(nrec * sizeof(*recs));
	if (!recs)
		return;
	memcpy(recs, d, nrec * sizeof(*recs));
	if (!fgt_exp_owed_take(&owed, recs, half)) {
		if (fgt_exp_owed_lacking(&owed, recs + half, nrec - half) > owed.n)
			abort();
		fgt_exp_owed_free(&owed);
	}
	fgt_exp_walk_from_records(recs, nrec, &w);
	if (w.lacking > w.threads)
		abort();
	free(recs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[MAX_CHUNK + sizeof(struct fgt_agg)] __attribute__((aligned(8)));
	struct fgt_assemble m = {};
	size_t at = 0;

	if (fgt_assemble_init(&m, judge, NULL, size & 1))
		goto out;
	while (at + 3 <= size) {
		uint8_t kind = data[at];
		size_t len = data[at + 1] | (size_t)data[at + 2] << 8;

		at += 3;
		if (len > size - at)
			len = size - at;
		memcpy(buf, data + at, len);
		at += len;
		switch (kind % 4) {
		case 0:	/* a ring message: drain.c drops one shorter than an event */
			if (len >= sizeof(struct fgt_event))
				fgt_assemble_msg(&m, buf, len);
			measure(fgt_assemble_current(&m, NULL, 1));
			break;
		case 1:	/* BPF's state, mapped, as the live view copies it */
			memset(buf + len, 0, sizeof(struct fgt_agg) > len ?
			       sizeof(struct fgt_agg) - len : 0);
			measure(fgt_assemble_current(&m, buf, 1));
			break;
		case 2:
			log_chunk(&m, buf, len);
			break;
		case 3:
			exposure_chunk(buf, len);
			break;
		}
	}
	fgt_assemble_flush(&m, NULL);
out:
	fgt_assemble_free(&m);
	return 0;
}
