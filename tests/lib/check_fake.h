/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helper for the check suites: a fake host in a temp directory, with a
 * tracefs tree (plain files standing in for tracefs's), kallsyms, loadavg and
 * a state directory.
 */
#ifndef FGT_TEST_CHECK_FAKE_H
#define FGT_TEST_CHECK_FAKE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct fake {
	char root[64];
	char tracefs[128];
	char kallsyms[128];
	char loadavg[128];
	char state[128];
};

static inline void fake_write(const struct fake *f, const char *rel, const char *content)
{
	char p[1024];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	fp = fopen(p, "w");
	if (!fp)
		abort();
	fputs(content, fp);
	fclose(fp);
}

static inline void fake_append(const struct fake *f, const char *rel, const char *content)
{
	char p[1024];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	fp = fopen(p, "a");
	if (!fp)
		abort();
	fputs(content, fp);
	fclose(fp);
}

/* whole file, trailing newline stripped, into a static buffer */
static inline const char *fake_read(const struct fake *f, const char *rel)
{
	static char buf[16384];
	char p[1024];
	size_t n;
	FILE *fp;

	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	fp = fopen(p, "r");
	if (!fp)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return buf;
}

static inline int fake_exists(const struct fake *f, const char *rel)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	return access(p, F_OK) == 0;
}

static inline void fake_mkdir(const struct fake *f, const char *rel)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", f->root, rel);
	if (mkdir(p, 0755))
		abort();
}

/*
 * A kallsyms that passes fgt_ksyms_sane(): _stext, FGT_KSYMS_MIN-odd text
 * symbols, _etext, some data; register_ftrace_graph among them or not.
 */
static inline void fake_kallsyms(const struct fake *f, int with_fgraph)
{
	char p[1024];
	FILE *fp;

	snprintf(p, sizeof(p), "%s/kallsyms", f->root);
	fp = fopen(p, "w");
	if (!fp)
		abort();
	fprintf(fp, "ffffffff81000000 T _stext\n");
	for (int i = 0; i < 1200; i++)
		fprintf(fp, "%016llx t filler_%d\n", 0xffffffff81001000ull + i * 0x100ull, i);
	if (with_fgraph)
		fprintf(fp, "ffffffff81254c50 T register_ftrace_graph\n"
			"ffffffff81254f30 T unregister_ftrace_graph\n");
	fprintf(fp, "ffffffff81e00000 T _etext\nffffffff82a1b2c8 D nr_threads\n");
	fclose(fp);
}

/* A kernel with function_graph, idle: top-level nop, no filter, no events. */
static inline struct fake *fake_new(int with_fgraph)
{
	struct fake *f = calloc(1, sizeof(*f));

	snprintf(f->root, sizeof(f->root), "/tmp/fgt-check-XXXXXX");
	if (!mkdtemp(f->root))
		abort();
	snprintf(f->tracefs, sizeof(f->tracefs), "%s/tracing", f->root);
	snprintf(f->kallsyms, sizeof(f->kallsyms), "%s/kallsyms", f->root);
	snprintf(f->loadavg, sizeof(f->loadavg), "%s/loadavg", f->root);
	snprintf(f->state, sizeof(f->state), "%s/run", f->root);
	fake_mkdir(f, "tracing");
	fake_mkdir(f, "tracing/instances");
	fake_write(f, "tracing/available_tracers", with_fgraph ?
		   "blk function_graph wakeup function nop\n" : "blk nop\n");
	fake_write(f, "tracing/current_tracer", "nop\n");
	fake_write(f, "tracing/set_ftrace_filter", "#### all functions enabled ####\n");
	fake_write(f, "tracing/set_event", "");
	fake_write(f, "tracing/dynamic_events", "");
	fake_kallsyms(f, with_fgraph);
	fake_write(f, "loadavg", "0.10 0.20 0.30 2/345 6789\n");
	return f;
}

static inline void fake_free(struct fake *f)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	if (system(cmd))
		abort();
	free(f);
}

#endif
