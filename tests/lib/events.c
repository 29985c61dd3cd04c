// SPDX-License-Identifier: GPL-2.0
/* Reading and writing the recorded event format (tests/data/README). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "lib/events.h"

static const char *const types[] = {
	[FGT_EV_ACT_BEGIN] = "ACT_BEGIN", [FGT_EV_ACT_END] = "ACT_END",
	[FGT_EV_SWEEP_BEGIN] = "SWEEP_BEGIN", [FGT_EV_SWEEP_END] = "SWEEP_END",
	[FGT_EV_ALLOC] = "ALLOC", [FGT_EV_FREE] = "FREE",
	[FGT_EV_TASK_NEW] = "TASK_NEW", [FGT_EV_TASK_EXIT] = "TASK_EXIT",
};
static const char *const sites[] = { "unknown", "sweep", "fork", "idle" };
static const char *const srcs[] = { "?", "direct", "attributed" };

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int lookup(const char *const *tab, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tab[i] && !strcasecmp(tab[i], s))
			return (int)i;
	return -1;
}

static int set_field(struct fgt_event *ev, const char *k, const char *v)
{
	unsigned long long u = strtoull(v, NULL, 0);
	int i;

	if (!strcmp(k, "src")) {
		if ((i = lookup(srcs, ARRAY_SIZE(srcs), v)) < 1)
			return -1;
		ev->src = i;
	} else if (!strcmp(k, "site")) {
		if ((i = lookup(sites, ARRAY_SIZE(sites), v)) < 0)
			return -1;
		ev->site = i;
	} else if (!strcmp(k, "gfp")) ev->gfp = u;
	else if (!strcmp(k, "ok")) ev->ok = u;
	else if (!strcmp(k, "size")) ev->size = u;
	else if (!strcmp(k, "ret")) ev->ret = strtol(v, NULL, 0);
	else if (!strcmp(k, "dur")) ev->dur_ns = u;
	else if (!strcmp(k, "ptr")) ev->ptr = u;
	else if (!strcmp(k, "nr_threads")) ev->nr_threads = u;
	else if (!strcmp(k, "pid")) ev->pid = u;
	else if (!strcmp(k, "tid")) ev->tid = u;
	else if (!strcmp(k, "cpu")) ev->cpu = u;
	else if (!strcmp(k, "stack_id")) ev->stack_id = strtol(v, NULL, 0);
	else if (!strcmp(k, "target_tid")) ev->target_tid = u;
	else if (!strcmp(k, "comm")) snprintf(ev->comm, sizeof(ev->comm), "%s", v);
	else if (!strcmp(k, "lost")) ev->lost = u;
	else
		return -1;
	return 0;
}

enum ev_line ev_parse(const char *line, struct fgt_event *ev, unsigned long long *lost)
{
	char buf[512], *tok, *save, *end;
	int t;

	snprintf(buf, sizeof(buf), "%s", line);
	buf[strcspn(buf, "#\r\n")] = '\0';
	tok = strtok_r(buf, " \t", &save);
	if (!tok)
		return EV_LINE_NONE;
	if (!strcmp(tok, "EXPECT"))
		return EV_LINE_EXPECT;
	if (!strcmp(tok, "LOST")) {
		tok = strtok_r(NULL, " \t", &save);
		*lost = tok ? strtoull(tok, NULL, 0) : 0;
		return tok ? EV_LINE_LOST : EV_LINE_ERROR;
	}
	memset(ev, 0, sizeof(*ev));
	ev->stack_id = -1;
	ev->src = FGT_SRC_ATTRIBUTED;
	ev->ok = 1;
	ev->ts_ns = strtoull(tok, &end, 0);
	if (*end)
		return EV_LINE_ERROR;
	tok = strtok_r(NULL, " \t", &save);
	if (!tok || (t = lookup(types, ARRAY_SIZE(types), tok)) < 1)
		return EV_LINE_ERROR;
	ev->type = t;
	if (t == FGT_EV_ALLOC || t == FGT_EV_FREE)
		ev->site = FGT_SITE_SWEEP;
	while ((tok = strtok_r(NULL, " \t", &save))) {
		char *eq = strchr(tok, '=');

		if (!eq)
			return EV_LINE_ERROR;
		*eq = '\0';
		if (set_field(ev, tok, eq + 1))
			return EV_LINE_ERROR;
	}
	return EV_LINE_EVENT;
}

void ev_write(FILE *f, const struct fgt_event *ev)
{
	fprintf(f, "%llu %s src=%s", (unsigned long long)ev->ts_ns,
		ev->type < ARRAY_SIZE(types) && types[ev->type] ? types[ev->type] : "?",
		ev->src < ARRAY_SIZE(srcs) ? srcs[ev->src] : "?");
	switch (ev->type) {
	case FGT_EV_ALLOC:
		fprintf(f, " site=%s gfp=%#x ok=%u size=%u dur=%llu",
			ev->site < ARRAY_SIZE(sites) ? sites[ev->site] : "unknown",
			ev->gfp, ev->ok, ev->size, (unsigned long long)ev->dur_ns);
		break;
	case FGT_EV_FREE:
		fprintf(f, " site=%s", ev->site < ARRAY_SIZE(sites) ? sites[ev->site] : "unknown");
		break;
	case FGT_EV_ACT_BEGIN:
		fprintf(f, " pid=%u tid=%u comm=%s nr_threads=%llu stack_id=%d", ev->pid,
			ev->tid, ev->comm[0] ? ev->comm : "-",
			(unsigned long long)ev->nr_threads, ev->stack_id);
		break;
	case FGT_EV_ACT_END:
		fprintf(f, " ret=%d lost=%u", ev->ret, ev->lost);
		break;
	case FGT_EV_SWEEP_END:
		fprintf(f, " ret=%d", ev->ret);
		break;
	case FGT_EV_TASK_NEW:
	case FGT_EV_TASK_EXIT:
		fprintf(f, " ok=%u target_tid=%u", ev->ok, ev->target_tid);
		break;
	}
	fputc('\n', f);
}

int ev_expect_get(const char *line, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ' || p[-1] == '\t') && p[kl] == '=') {
			p += kl + 1;
			snprintf(buf, len, "%.*s", (int)strcspn(p, " \t\r\n#"), p);
			return 0;
		}
		p += kl;
	}
	return -1;
}

enum fgt_verdict verdict_of(const struct fgt_activation *act, char *buf, size_t len)
{
	struct fgt_verdict_val v;

	fgt_verdict_judge(act, &v);
	if (buf)
		fgt_verdict_text(&v, buf, len);
	return v.verdict;
}
