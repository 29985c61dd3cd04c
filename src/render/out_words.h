/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names and figures in words that more than one format writes
 * (src/render/out_words.c): the event vocabulary's names (lines and JSON),
 * counts, durations and clock times, an activation under way's pattern and
 * time left, the holders' notes, the history's rows (lines and the screen).
 */
#ifndef FGT_OUT_WORDS_H
#define FGT_OUT_WORDS_H

#include <stddef.h>
#include <stdint.h>
#include "host/holders.h"
#include "model/progress.h"
#include "model/status.h"
#include "render/out_state.h"

const char *out_ev_name(uint32_t t);
const char *out_site_name(uint32_t s);
const char *out_src_name(uint32_t s);
const char *out_gfp_class(uint32_t gfp);
/* Seconds since the start, of a monotonic instant. */
double out_rel_s(const struct fgt_out *o, uint64_t ns);
/* Now, HH:MM:SS. */
void out_clock_hms(char *buf, size_t len);
const char *out_grp(uint64_t v, char *b, size_t len);
const char *out_dur(uint64_t ns, char *b, size_t len);
const char *out_hms_of(const struct fgt_out *o, uint64_t mono_ns, char *b, size_t len);
const char *out_u_words(const struct fgt_progress *p);
const char *out_pattern_words(const struct fgt_progress *p);
const char *out_left_words(const struct fgt_progress *p, char *b, size_t len);
int out_unnamed(const struct fgt_holders *h, int graph_active);
const char *out_owner_words(const struct fgt_holder *h, char *b, size_t len);
void out_holders_notes(const struct fgt_holders *h, int graph_active,
		       void (*line)(void *ctx, const char *s), void *ctx);
void out_hist_row(const struct fgt_out *o, const struct hist_ent *h, char *b, size_t len);
const struct hist_ent *out_hist_nth(const struct fgt_out *o, unsigned int i);
void out_exposure_words(const struct fgt_status *st, char *b, size_t len);

#endif
