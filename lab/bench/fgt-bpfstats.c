// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-bpfstats: what each BPF program cost while a command ran (guest side).
 *
 *   fgt-bpfstats [-a] [-o OUT] -- CMD [ARG]...
 *	Enable the kernel's BPF run-time statistics through an fd
 *	(BPF_ENABLE_STATS: counted while the fd is open, whatever
 *	kernel.bpf_stats_enabled says, and only for as long as we hold it),
 *	read every loaded program's run_cnt, run_time_ns and recursion_misses,
 *	run CMD (its stdout is ours), read them again and print one line:
 *	{"type":"bpf_stats","progs":[{"id":..,"name":..,"type":..,"run_cnt":..,
 *	 "run_time_ns":..,"recursion_misses":..,"verified_insns":..},...]} with
 *	the differences, for the programs that ran (-a: for all of them), to OUT
 *	if given. verified_insns: what the verifier went through to load it
 *	(its share of the tool's start-up); load_time: when it was loaded (ns
 *	since boot). Exit status: CMD's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>

#define MAX_PROGS 256

struct prog {
	__u32 id, type;
	char name[BPF_OBJ_NAME_LEN];
	__u64 run_cnt, run_time_ns, misses;
	__u32 verified_insns;
	__u64 load_time;
};

static int snapshot(struct prog *p, int max)
{
	__u32 id = 0;
	int n = 0;

	while (n < max && !bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;	/* unloaded meanwhile */
		if (!bpf_obj_get_info_by_fd(fd, &info, &len)) {
			p[n] = (struct prog){ .id = id, .type = info.type,
					      .run_cnt = info.run_cnt,
					      .run_time_ns = info.run_time_ns,
					      .misses = info.recursion_misses,
					      .verified_insns = info.verified_insns,
					      .load_time = info.load_time };
			memcpy(p[n].name, info.name, sizeof(p[n].name));
			n++;
		}
		close(fd);
	}
	return n;
}

int main(int argc, char **argv)
{
	static struct prog before[MAX_PROGS], after[MAX_PROGS];
	const char *out = NULL;
	int opt, nb, na, status, fd, first = 1, all = 0;
	FILE *f = stdout;
	pid_t pid;

	while ((opt = getopt(argc, argv, "ao:")) != -1) {
		if (opt == 'a')
			all = 1;
		else if (opt == 'o')
			out = optarg;
		else
			return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: fgt-bpfstats [-a] [-o OUT] -- CMD [ARG]...\n");
		return 2;
	}
	fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (fd < 0) {
		fprintf(stderr, "fgt-bpfstats: BPF_ENABLE_STATS: %s\n", strerror(errno));
		return 1;
	}
	nb = snapshot(before, MAX_PROGS);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(fd);
		execvp(argv[optind], argv + optind);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	na = snapshot(after, MAX_PROGS);
	close(fd);
	if (out && !(f = fopen(out, "w")))
		return 1;
	fprintf(f, "{\"type\":\"bpf_stats\",\"progs\":[");
	for (int i = 0; i < na; i++) {
		struct prog d = after[i];

		for (int j = 0; j < nb; j++)
			if (before[j].id == d.id) {
				d.run_cnt -= before[j].run_cnt;
				d.run_time_ns -= before[j].run_time_ns;
				d.misses -= before[j].misses;
			}
		if (!all && !d.run_cnt && !d.misses)
			continue;
		fprintf(f, "%s{\"id\":%u,\"name\":\"%s\",\"type\":%u,\"run_cnt\":%llu,"
			"\"run_time_ns\":%llu,\"recursion_misses\":%llu,\"verified_insns\":%u,"
			"\"load_time\":%llu}",
			first ? "" : ",", d.id, d.name, d.type, (unsigned long long)d.run_cnt,
			(unsigned long long)d.run_time_ns, (unsigned long long)d.misses,
			d.verified_insns, (unsigned long long)d.load_time);
		first = 0;
	}
	fprintf(f, "]}\n");
	if (out)
		fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
