// SPDX-License-Identifier: GPL-2.0
/* The trigger's name from its kernel stack (src/model/trigger_words.c), over stacks seen in the lab. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "model/trigger_words.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void check(const char *const *s, int n, const char *want)
{
	char out[128];

	assert_int_equal(fgt_trigger_via(s, n, out, sizeof(out)), (int)strlen(want));
	assert_string_equal(out, want);
}

/* tracefs current_tracer and trace-cmd (Debian 7.2: ksys_write, no __x64_sys_write). */
static void test_tracefs(void **state)
{
	static const char *const s[] = { "register_ftrace_graph+0x454", "graph_trace_init+0x87",
		"tracing_set_tracer+0x142", "tracing_set_trace_write+0x7f", "vfs_write+0xc3",
		"ksys_write+0x5e", "do_syscall_64+0x46", "entry_SYSCALL_64_after_hwframe+0x4b" };

	check(s, N(s), "write() -> tracing_set_tracer");
}

/* A kretprobe.multi link on 7.2: fprobe under the BPF link names the link. */
static void test_kretmulti(void **state)
{
	static const char *const s[] = { "register_ftrace_graph+0x454", "register_fprobe_ips+0x5a0",
		"bpf_kprobe_multi_link_attach+0x2e3", "__sys_bpf+0x1d5", "__x64_sys_bpf+0x1a",
		"do_syscall_64+0x46", "entry_SYSCALL_64_after_hwframe+0x4b" };

	check(s, N(s), "bpf() -> kprobe_multi");
}

/* The stack as the attributed path sees it under a BPF trampoline (another tool's
 * fentry on start_graph_tracing), 6.1's __x64_sys_write outside ksys_write. */
static void test_outermost_syscall(void **state)
{
	static const char *const s[] = { "start_graph_tracing+0x1f", "bpf_trampoline_6442494674+0x2eb",
		"register_ftrace_graph+0x284", "graph_trace_init+0x84", "tracing_set_tracer+0x140",
		"tracing_set_trace_write+0x7f", "vfs_write+0xc3", "ksys_write+0x5e",
		"__x64_sys_write+0x19", "do_syscall_64+0x46" };

	check(s, N(s), "write() -> tracing_set_tracer");
}

static void test_partial(void **state)
{
	static const char *const prof[] = { "register_ftrace_graph", "ftrace_profile_write+0x10" };
	static const char *const fprobe[] = { "register_ftrace_graph", "register_fprobe_ips",
		"init_module+0x10" };
	static const char *const sys_only[] = { "register_ftrace_graph", "something", "__x64_sys_ioctl" };
	static const char *const none[] = { "register_ftrace_graph", "0xffffffffc0001234", NULL };
	static const char *const near[] = { "tracing_set_tracer_x", "ksys_" };

	check(prof, N(prof), "function_profile");
	check(fprobe, N(fprobe), "fprobe");
	check(sys_only, N(sys_only), "ioctl()");
	check(none, N(none), "");
	check(near, N(near), "");
	check(none, 0, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracefs),
		cmocka_unit_test(test_kretmulti),
		cmocka_unit_test(test_outermost_syscall),
		cmocka_unit_test(test_partial),
	};

	return cmocka_run_group_tests_name("via", tests, NULL, NULL);
}
