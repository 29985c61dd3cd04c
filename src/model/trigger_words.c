// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include "model/trigger_words.h"

/* Mechanisms in order of precedence: the first one present anywhere in the stack
 * names it (fprobe under a BPF link is the link, so the link comes first). */
static const struct {
	const char *sym, *name;
} mechs[] = {
	{ "bpf_kprobe_multi_link_attach", "kprobe_multi" },
	{ "bpf_uprobe_multi_link_attach", "uprobe_multi" },
	{ "tracing_set_tracer", "tracing_set_tracer" },
	{ "ftrace_profile_write", "function_profile" },
	{ "ftrace_profile_init", "function_profile" },
	{ "register_fprobe_ips", "fprobe" },
	{ "register_fprobe", "fprobe" },
	{ "register_fprobe_syms", "fprobe" },
};

/* The syscall prefixes kernels use, most specific first (x86-64, 6.1-7.x). */
static const char *const sys_prefixes[] = { "__x64_sys_", "__ia32_sys_", "__se_sys_",
					    "__do_sys_", "__sys_", "ksys_" };

static size_t base_len(const char *s)
{
	const char *plus = strchr(s, '+');

	return plus ? (size_t)(plus - s) : strlen(s);
}

static int same(const char *frame, const char *sym)
{
	size_t n = base_len(frame);

	return n == strlen(sym) && !strncmp(frame, sym, n);
}

int fgt_trigger_via(const char *const *syms, int n, char *out, size_t len)
{
	const char *mech = NULL;
	char call[64] = "";
	int i;

	for (size_t k = 0; k < sizeof(mechs) / sizeof(mechs[0]) && !mech; k++)
		for (i = 0; i < n; i++)
			if (syms[i] && same(syms[i], mechs[k].sym)) {
				mech = mechs[k].name;
				break;
			}
	/* The outermost syscall frame: ksys_write sits inside __x64_sys_write. */
	for (i = n - 1; i >= 0 && !call[0]; i--) {
		if (!syms[i])
			continue;
		for (size_t k = 0; k < sizeof(sys_prefixes) / sizeof(sys_prefixes[0]); k++) {
			size_t pl = strlen(sys_prefixes[k]), bl = base_len(syms[i]);

			if (bl > pl && !strncmp(syms[i], sys_prefixes[k], pl)) {
				snprintf(call, sizeof(call), "%.*s()", (int)(bl - pl), syms[i] + pl);
				break;
			}
		}
	}
	if (!len)
		return 0;
	if (call[0] && mech)
		return snprintf(out, len, "%s -> %s", call, mech);
	return snprintf(out, len, "%s", call[0] ? call : mech ? mech : "");
}
