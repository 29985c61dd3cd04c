/* SPDX-License-Identifier: GPL-2.0 */
/* The text format of recorded event sequences: see tests/data/README. */
#ifndef FGT_TEST_EVENTS_H
#define FGT_TEST_EVENTS_H

#include <stdio.h>
#include <linux/types.h>
#include "bpf/events_abi.h"
#include "model/activation.h"
#include "model/verdict.h"

enum ev_line {
	EV_LINE_NONE,		/* blank or comment */
	EV_LINE_EVENT,
	EV_LINE_LOST,		/* "LOST n": fgt_assembler_lost() */
	EV_LINE_EXPECT,		/* "EXPECT key=value...": checked by the test */
	EV_LINE_ERROR,
};

/* Parses one line; for LOST, *lost is set; for EXPECT, the line is left to the caller. */
enum ev_line ev_parse(const char *line, struct fgt_event *ev, unsigned long long *lost);
void ev_write(FILE *f, const struct fgt_event *ev);

/* Value of key=... in an EXPECT line into buf; 0 if present. */
int ev_expect_get(const char *line, const char *key, char *buf, size_t len);

/* The judge's verdict on act, its evidence in words into buf (which may be
 * NULL): fgt_verdict_judge() and fgt_verdict_text() together. */
enum fgt_verdict verdict_of(const struct fgt_activation *act, char *buf, size_t len);

#endif
