// SPDX-License-Identifier: GPL-2.0
/*
 * The notice of a step that waits on a kernel lock (src/common/waitnote.c):
 * given once the step's thread has slept uninterruptibly (state D) past a
 * second, never for a step that is only slow or sleeps by choice. A vfork()
 * parent sleeps in D (TASK_KILLABLE) until its child execs or exits: the
 * kernel wait here, without a lock of anyone's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "common/waitnote.h"

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/* asleep by choice (state S) past the second: no notice */
static void sleep_is_no_wait(void **state)
{
	unsigned int before = fgt_wait_notices();
	struct fgt_wait *w = fgt_wait_begin(FGT_WAIT_FTRACE_LOCK, "a nap");

	assert_non_null(w);
	nap_ms(1400);
	assert_false(fgt_wait_end(w));
	assert_int_equal(fgt_wait_notices(), before);
}

/* a quick step: no notice */
static void quick_is_no_wait(void **state)
{
	unsigned int before = fgt_wait_notices();

	assert_false(fgt_wait_end(fgt_wait_begin(FGT_WAIT_FTRACE_LOCK, "quick")));
	assert_int_equal(fgt_wait_notices(), before);
}

/* in the kernel, uninterruptibly, for 1.6 s: one notice */
static void kernel_wait_is_said(void **state)
{
	unsigned int before = fgt_wait_notices();
	struct fgt_wait *w = fgt_wait_begin(FGT_WAIT_FTRACE_LOCK, "a vfork");
	pid_t pid;

	assert_non_null(w);
	pid = vfork();
	if (pid == 0) {
		/* the parent sleeps until the child execs or exits: a raw
		 * nanosleep, which touches none of the parent's memory */
		struct timespec ts = { 1, 600000000L };

		syscall(SYS_nanosleep, &ts, NULL);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_true(fgt_wait_end(w));
	assert_int_equal(fgt_wait_notices(), before + 1);
	waitpid(pid, NULL, 0);
}

/* another thread's step (--explain's holders): the time alone tells */
static void other_by_time(void **state)
{
	unsigned int before = fgt_wait_notices();
	struct fgt_wait *w = fgt_wait_begin_other(FGT_WAIT_TRACE_TYPES_LOCK, "holders");

	nap_ms(1300);
	assert_true(fgt_wait_end(w));
	assert_int_equal(fgt_wait_notices(), before + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sleep_is_no_wait),
		cmocka_unit_test(quick_is_no_wait),
		cmocka_unit_test(kernel_wait_is_said),
		cmocka_unit_test(other_by_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
