// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-oracle: what the lab knows about an activation without fgraphtop.
 *
 *   fgt-oracle count [-u SNAP]       {"threads":T,"u":U,"first":bool} now
 *                                    (this process excluded: it is about to exit)
 *   fgt-oracle snapshot [-u SNAP]    record the threads alive now (they hold a
 *                                    stack while fgraph is on; see fgt-u.h)
 *   fgt-oracle events start|stop [-i NAME]
 *                                    threads created (task:task_newtask) and
 *                                    exited (sched:sched_process_exit) between
 *                                    start and stop, from a private tracefs
 *                                    instance: trace events never start fgraph
 *   fgt-oracle bpf [-r READY] [-F FUNC]
 *                                    fentry/fexit counter on alloc_retstack_tasklist
 *                                    (or FUNC, to check the counter itself)
 *                                    until SIGTERM/SIGINT, then one JSON line;
 *                                    {"attachable":false,...} and status 3 where
 *                                    the function is inlined or not traceable.
 *   fgt-oracle allocs start|stop [-i NAME] [-F FUNC]
 *                                    slab allocations made from inside FUNC
 *                                    (default register_ftrace_graph, which holds
 *                                    the inlined sweep on stock builds; its
 *                                    range from /proc/kallsyms), from the
 *                                    kmem:kmalloc and kmem:kmem_cache_alloc
 *                                    events of a private tracefs instance, their
 *                                    call_site filtered to the range: on stop
 *                                    {"allocs":N,"by_size":{"BYTES":N,...},"kfree":F,
 *                                    "kmem_cache_free":C,"lost":L}, the frees from
 *                                    there counted by kmem:kfree and kmem_cache_free
 *                                    (the list's, and the last batch's unused stacks:
 *                                    served = the stacks allocated less those freed).
 *                                    The unfixed sweep allocates its batch of 32
 *                                    stacks there, so no stack-sized allocation
 *                                    means no sweep, on every kernel (trace
 *                                    events never start fgraph)
 *   fgt-oracle links                 {"links":N,"kprobe_multi":M,"pinned":P}: the
 *                                    BPF links alive, of which kprobe_multi, and
 *                                    the files under /sys/fs/bpf (what a killed
 *                                    check must not leave behind)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fgt-u.h"
#include "oracle.skel.h"

#define EV_INSTANCE "fgt-oracle"

static const char *snap_path = FGT_SNAP_DEFAULT;
static const char *ev_instance = EV_INSTANCE;
static const char *target;

static const char *tracefs_base(void)
{
	struct stat st;

	if (!stat("/sys/kernel/tracing/instances", &st))
		return "/sys/kernel/tracing";
	return "/sys/kernel/debug/tracing";
}

static int put(const char *dir, const char *name, const char *val)
{
	char path[512];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0) {
		fprintf(stderr, "fgt-oracle: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	if (write(fd, val, strlen(val)) < 0) {
		err = -errno;
		fprintf(stderr, "fgt-oracle: write %s: %s\n", path, strerror(errno));
	}
	close(fd);
	return err;
}

static int events_start(void)
{
	char dir[512];
	int err;

	snprintf(dir, sizeof(dir), "%s/instances/%s", tracefs_base(), ev_instance);
	rmdir(dir);
	if (mkdir(dir, 0755)) {
		fprintf(stderr, "fgt-oracle: mkdir %s: %s\n", dir, strerror(errno));
		return 1;
	}
	/* Room for tens of thousands of events per CPU. */
	err = put(dir, "buffer_size_kb", "8192");
	err = err ?: put(dir, "events/task/task_newtask/enable", "1");
	err = err ?: put(dir, "events/sched/sched_process_exit/enable", "1");
	err = err ?: put(dir, "tracing_on", "1");
	return err ? 1 : 0;
}

/* Entries lost to overruns, summed over the per-CPU stats. */
static long events_overrun(const char *dir)
{
	char path[600], line[256];
	long total = 0, v;
	int cpu;

	for (cpu = 0; cpu < 4096; cpu++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", dir, cpu);
		f = fopen(path, "r");
		if (!f)
			break;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "overrun: %ld", &v) == 1)
				total += v;
		fclose(f);
	}
	return total;
}

static int events_stop(void)
{
	long created = 0, exited = 0, overrun;
	char dir[512], path[600], line[1024];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/instances/%s", tracefs_base(), ev_instance);
	if (put(dir, "tracing_on", "0"))
		return 1;
	snprintf(path, sizeof(path), "%s/trace", dir);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "fgt-oracle: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (strstr(line, " task_newtask:"))
			created++;
		else if (strstr(line, " sched_process_exit:"))
			exited++;
	}
	fclose(f);
	overrun = events_overrun(dir);
	put(dir, "events/task/task_newtask/enable", "0");
	put(dir, "events/sched/sched_process_exit/enable", "0");
	rmdir(dir);
	printf("{\"type\":\"oracle_events\",\"created\":%ld,\"exited\":%ld,\"lost\":%ld}\n",
	       created, exited, overrun);
	return 0;
}

/* [lo, hi) of func: its address and the next text symbol's, from kallsyms. */
static int func_range(const char *func, unsigned long long *lo, unsigned long long *hi)
{
	unsigned long long a, best = ~0ULL;
	char line[512], name[256], t;
	FILE *f = fopen("/proc/kallsyms", "r");

	*lo = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &t, name) == 3 && !strcmp(name, func))
			*lo = a;
	rewind(f);
	while (*lo && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &t, name) == 3 && a > *lo && a < best)
			best = a;
	fclose(f);
	if (!*lo || best == ~0ULL)
		return -ENOENT;
	*hi = best;
	return 0;
}

static const char *const alloc_events[] = {
	"events/kmem/kmalloc", "events/kmem/kmem_cache_alloc",
	"events/kmem/kfree", "events/kmem/kmem_cache_free",
};

static int allocs_start(void)
{
	unsigned long long lo, hi = 0;
	char dir[512], path[700], filt[128];
	const char *func = target ? target : "register_ftrace_graph";
	int err;

	err = func_range(func, &lo, &hi);
	if (err) {
		fprintf(stderr, "fgt-oracle: %s: no range in /proc/kallsyms\n", func);
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/instances/%s", tracefs_base(), ev_instance);
	rmdir(dir);
	if (mkdir(dir, 0755)) {
		fprintf(stderr, "fgt-oracle: mkdir %s: %s\n", dir, strerror(errno));
		return 1;
	}
	/* an unheld walk of 30,000 threads: about 30,000 events */
	err = put(dir, "buffer_size_kb", "8192");
	snprintf(filt, sizeof(filt), "call_site >= 0x%llx && call_site < 0x%llx", lo, hi);
	for (size_t i = 0; !err && i < sizeof(alloc_events) / sizeof(alloc_events[0]); i++) {
		snprintf(path, sizeof(path), "%s/filter", alloc_events[i]);
		err = put(dir, path, filt);
		snprintf(path, sizeof(path), "%s/enable", alloc_events[i]);
		err = err ?: put(dir, path, "1");
	}
	err = err ?: put(dir, "tracing_on", "1");
	return err ? 1 : 0;
}

static int allocs_stop(void)
{
	char dir[512], path[700], line[1024];
	unsigned long sizes[16], counts[16];
	long allocs = 0, kfrees = 0, cache_frees = 0, overrun;
	int n = 0;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/instances/%s", tracefs_base(), ev_instance);
	if (put(dir, "tracing_on", "0"))
		return 1;
	snprintf(path, sizeof(path), "%s/trace", dir);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "fgt-oracle: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *b = strstr(line, "bytes_req=");
		unsigned long sz = 0;
		int i;

		if (line[0] == '#')
			continue;
		/* the frees: the list's, and the last batch's unused stacks */
		if (strstr(line, " kfree:")) {
			kfrees++;
			continue;
		}
		if (strstr(line, " kmem_cache_free:")) {
			cache_frees++;
			continue;
		}
		if (!strstr(line, " kmalloc:") && !strstr(line, " kmem_cache_alloc:"))
			continue;
		allocs++;
		if (b)
			sz = strtoul(b + 10, NULL, 10);
		for (i = 0; i < n && sizes[i] != sz; i++)
			;
		if (i == n && n < 16) {
			sizes[n] = sz;
			counts[n++] = 0;
		}
		if (i < n)
			counts[i]++;
	}
	fclose(f);
	overrun = events_overrun(dir);
	for (size_t i = 0; i < sizeof(alloc_events) / sizeof(alloc_events[0]); i++) {
		snprintf(path, sizeof(path), "%s/enable", alloc_events[i]);
		put(dir, path, "0");
	}
	rmdir(dir);
	printf("{\"type\":\"oracle_allocs\",\"allocs\":%ld,\"by_size\":{", allocs);
	for (int i = 0; i < n; i++)
		printf("%s\"%lu\":%lu", i ? "," : "", sizes[i], counts[i]);
	printf("},\"kfree\":%ld,\"kmem_cache_free\":%ld,\"lost\":%ld}\n", kfrees, cache_frees,
	       overrun);
	return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static int bpf_counter(const char *ready)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct oracle_bpf *skel = NULL;
	const char *why = NULL;
	unsigned long long n, i;
	int err = 0, fd;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	libbpf_set_print(libbpf_quiet);
	skel = oracle_bpf__open();
	if (!skel) {
		why = "open";
		err = -errno;
		goto cleanup;
	}
	if (target) {
		bpf_program__set_attach_target(skel->progs.ars_enter, 0, target);
		bpf_program__set_attach_target(skel->progs.ars_exit, 0, target);
	}
	err = oracle_bpf__load(skel);
	if (err) {
		why = "load (alloc_retstack_tasklist not in BTF?)";
		goto cleanup;
	}
	err = oracle_bpf__attach(skel);
	if (err) {
		why = "attach (inlined or notrace?)";
		goto cleanup;
	}
	if (ready) {
		fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0)
			close(fd);
	}
	while (!stop)
		pause();
	n = skel->bss->calls;
	printf("{\"type\":\"oracle_bpf\",\"attachable\":true,\"calls\":%llu,\"eagain\":%llu,"
	       "\"zero\":%llu,\"other\":%llu,\"total_ns\":%llu,\"max_ns\":%llu,\"min_ns\":%llu,"
	       "\"span_ns\":%llu,\"last_ret\":%d,\"calls_ns\":[",
	       n, skel->bss->eagain, skel->bss->zero, skel->bss->other,
	       skel->bss->total_ns, skel->bss->max_ns, n ? skel->data->min_ns : 0,
	       n ? skel->bss->last_ns - skel->bss->first_ns : 0,
	       n && n <= 8192 ? skel->bss->rec_ret[n - 1] : 0);
	for (i = 0; i < n && i < 8192; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)skel->bss->rec_ns[i]);
	printf("]}\n");
cleanup:
	if (why)
		printf("{\"type\":\"oracle_bpf\",\"attachable\":false,\"error\":\"%s: %s\"}\n",
		       why, strerror(err < 0 ? -err : err));
	fflush(stdout);
	oracle_bpf__destroy(skel);
	return why ? 3 : 0;
}

/* Every BPF link the kernel has, as bpftool link list sees them. */
static int links(void)
{
	unsigned int n = 0, kmulti = 0, pinned = 0;
	__u32 id = 0;
	FILE *p;

	while (bpf_link_get_next_id(id, &id) == 0) {
		struct bpf_link_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue;
		n++;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    info.type == BPF_LINK_TYPE_KPROBE_MULTI)
			kmulti++;
		close(fd);
	}
	p = popen("find /sys/fs/bpf -mindepth 1 2>/dev/null | wc -l", "r");
	if (!p || fscanf(p, "%u", &pinned) != 1)
		pinned = 0;
	if (p)
		pclose(p);
	printf("{\"type\":\"oracle_links\",\"links\":%u,\"kprobe_multi\":%u,\"pinned\":%u}\n",
	       n, kmulti, pinned);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: fgt-oracle count|snapshot [-u SNAP]\n"
			"       fgt-oracle events start|stop [-i NAME]\n"
			"       fgt-oracle allocs start|stop [-i NAME] [-F FUNC]\n"
			"       fgt-oracle bpf [-r READY] [-F FUNC]\n"
			"       fgt-oracle links\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *cmd, *sub = NULL, *ready = NULL;
	struct ucount uc;
	long threads;
	int opt, err;

	if (argc < 2)
		usage();
	cmd = argv[1];
	optind = 2;
	if (!strcmp(cmd, "events") || !strcmp(cmd, "allocs")) {
		if (argc < 3)
			usage();
		sub = argv[2];
		optind = 3;
	}
	while ((opt = getopt(argc, argv, "u:i:r:F:")) != -1) {
		switch (opt) {
		case 'u': snap_path = optarg; break;
		case 'i': ev_instance = optarg; break;
		case 'r': ready = optarg; break;
		case 'F': target = optarg; break;
		default: usage();
		}
	}
	mkdir("/run/fgt", 0755);
	if (!strcmp(cmd, "count")) {
		err = fgt_count_u(snap_path, &uc);
		if (err) {
			fprintf(stderr, "fgt-oracle: count: %s\n", strerror(-err));
			return 1;
		}
		printf("{\"type\":\"oracle_count\",\"threads\":%ld,\"u\":%ld,\"first\":%s}\n",
		       uc.threads - 1, uc.u - 1, uc.first ? "true" : "false");
		return 0;
	}
	if (!strcmp(cmd, "snapshot")) {
		err = fgt_snapshot(snap_path, &threads);
		if (err) {
			fprintf(stderr, "fgt-oracle: snapshot: %s\n", strerror(-err));
			return 1;
		}
		printf("{\"type\":\"oracle_snapshot\",\"threads\":%ld}\n", threads);
		return 0;
	}
	if (!strcmp(cmd, "events") && !strcmp(sub, "start"))
		return events_start();
	if (!strcmp(cmd, "events") && !strcmp(sub, "stop"))
		return events_stop();
	if (!strcmp(cmd, "allocs") && !strcmp(sub, "start"))
		return allocs_start();
	if (!strcmp(cmd, "allocs") && !strcmp(sub, "stop"))
		return allocs_stop();
	if (!strcmp(cmd, "bpf"))
		return bpf_counter(ready);
	if (!strcmp(cmd, "links"))
		return links();
	usage();
	return 2;
}
