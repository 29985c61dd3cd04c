/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session's stream drain (src/watch/drain.c): BPF's ring buffer and
 * activation log into the assemblers (src/watch/assemble.h), the events
 * shown as they come (--events), BPF's stacks read.
 */
#ifndef FGT_WATCH_DRAIN_H
#define FGT_WATCH_DRAIN_H

#include <stddef.h>
#include <stdint.h>

/* While an activation is under way, drain the ring buffer at most this often. */
#define FGT_DRAIN_MS	1000

struct fgt_session;

int fgt_session_poll(struct fgt_session *s, int ms);	/* 0 or -errno */
/* The activation under way reported, incomplete (at exit, before the final status). */
void fgt_session_flush(struct fgt_session *s);

/* The ring buffer's callback: one of BPF's messages (ctx: the session). */
int fgt_drain_event(void *ctx, void *data, size_t size);
/* Everything BPF has put so far: the ring buffer, then the activation log. */
int fgt_drain(struct fgt_session *s, uint64_t now_ms);
/* Feed the activation log's records of activations up to `upto`, then hand
 * their slots back to BPF (src/model/act_log_reader.c). */
void fgt_drain_log(struct fgt_session *s, uint32_t upto);
/* The activation log's mapping of `entries` records, in bytes. */
size_t fgt_drain_log_bytes(uint32_t entries);
/* The trigger's stack `id` from BPF's stack map into ips (ctx: the
 * session, the only reader): its depth, 0 if none. */
int fgt_drain_stack(int32_t id, uint64_t *ips, void *ctx);

#endif
