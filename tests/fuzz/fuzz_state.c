// SPDX-License-Identifier: GPL-2.0
/* libFuzzer: what check --trigger reads back from a state file and from
 * instance names (src/check/trigger_state.c): whatever it accepts must be safe to
 * act on, and render back to itself. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check/trigger_state.h"

static const char *const funcs[] = { "__x64_sys_reboot", "__x64_sys_swapoff", NULL };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), out[1024];
	struct fgt_state st, back;
	struct fgt_owner o;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (fgt_state_parse(text, &st, funcs) == 0) {
		/* an accepted instance name is one of ours: no '/', no "." or ".." */
		if (st.instance[0] && (strchr(st.instance, '/') ||
				       strncmp(st.instance, FGT_INSTANCE_PREFIX,
					       strlen(FGT_INSTANCE_PREFIX))))
			abort();
		fgt_state_render(&st, out, sizeof(out));
		if (fgt_state_parse(out, &back, funcs) || memcmp(&st, &back, sizeof(st)))
			abort();
	}
	if (fgt_instance_owner(text, &o) == 0) {
		char name[96];

		if (strchr(text, '/') || o.pid <= 0)
			abort();
		fgt_instance_name(&o, name, sizeof(name));
	}
	free(text);
	return 0;
}
