// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-floor: the floor of fgraphtop's costs, in the guest.
 *
 *   fgt-floor [-t]
 *	Load and attach lab/bench/floor.bpf.c (empty programs on fgraphtop's
 *	always-on hooks), print {"type":"start"} once attached, hold them until
 *	SIGINT/SIGTERM. Built as fgraphtop is (static, libbpf, CO-RE against the
 *	running kernel's BTF), so its start-up and peak RSS are what loading
 *	those hooks costs any such tool, and the load's slowdown with it
 *	attached is what watching those events costs before any work.
 *	-t: the answers' floor (floor.bpf.c stamp_one()): each allocation also
 *	takes a timestamp, puts the gap since the last into a log2 histogram
 *	and counts, in the kernel, which the served count and the latency need.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list args)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, args);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct floor_bpf *skel;
	bool stamp = false;
	int err;

	if (argc == 2 && !strcmp(argv[1], "-t")) {
		stamp = true;
	} else if (argc != 1) {
		fprintf(stderr, "usage: fgt-floor [-t]\n");
		return 2;
	}
	libbpf_set_print(quiet);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "fgt-floor: open: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->stamp = stamp;
	err = floor_bpf__load(skel);
	if (err) {
		fprintf(stderr, "fgt-floor: load: %s\n", strerror(-err));
		floor_bpf__destroy(skel);
		return 1;
	}
	err = floor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "fgt-floor: attach: %s\n", strerror(-err));
		floor_bpf__destroy(skel);
		return 1;
	}
	printf("{\"type\":\"start\",\"pid\":%d}\n", getpid());
	fflush(stdout);
	while (!stop)
		pause();
	floor_bpf__destroy(skel);
	return 0;
}
