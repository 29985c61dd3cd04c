// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-static: a developer's entry point to the static verdict, beside
 * `fgraphtop check --static` and `check --kernel`, which users run: the
 * recorder and replayer of tests/data/static/, and the tables the lab's
 * tests need from a kernel file (its symbols, its BTF, a kcore of it).
 *
 *   fgt-static [--kernel FILE [--system-map FILE]] [--json] [--no-bpf]
 *              [--record FILE --name NAME] [--kcore F] [--kallsyms F] [--btf F]
 *   fgt-static --replay FILE [--json]     decode a recording (tests/data/static/)
 *   fgt-static --dump-symbols OUT --kernel FILE
 *                                         OUT: FILE's own kallsyms tables, decoded
 *   fgt-static --dump-btf OUT --kernel FILE
 *                                         OUT: FILE's .BTF (an arm64 Image's found by its
 *                                         header), for bpftool (lab/gen-vmlinux-h.sh)
 *   fgt-static --make-kcore OUT --kernel FILE
 *                                         OUT: the image as /proc/kcore shows it, with a
 *                                         VMCOREINFO note (tests of the kcore path)
 *
 * --kcore, --kallsyms and --btf replace the running kernel's files (tests of
 * the bad cases: a masked kcore is --kcore /dev/null).
 *
 * Exit status as fgraphtop check's: 0 fixed or not affected, 2 not fixed,
 * 3 unknown, 64 bad options.
 */
#include <getopt.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/exit_codes.h"
#include "common/json_writer.h"
#include "static/kimage.h"
#include "static/kimage_boot.h"
#include "static/kimage_elf.h"
#include "static/kimage_kallsyms.h"
#include "static/kimage_kcore.h"
#include "common/log.h"
#include "static/static_check.h"
#include "static/kread_bpf.h"
#include "static/static_kernel.h"
#include "static/static_rec.h"
#include "render/static_json.h"

/* SIGINT and SIGTERM end the reading (an "interrupted" answer, status 3). */
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

struct rec {
	const char *path;
	const char *name;
	int err;
};

static void record(const struct fgt_static_code *c, const struct fgt_static_kernel *k, void *arg)
{
	struct rec *rc = arg;
	FILE *f = fopen(rc->path, "w");

	if (!f || fgt_static_rec_write(f, rc->name, c, k) || fclose(f)) {
		perror(rc->path);
		rc->err = 1;
	}
}

/* Decode a recording (tests/data/static/) as the glue would have. */
static void replay(const char *path, struct fgt_static_result *r)
{
	struct fgt_static_rec rec;
	char msg[256];

	memset(r, 0, sizeof(*r));
	if (fgt_static_rec_load(path, &rec, msg, sizeof(msg))) {
		r->why = FGT_SW_READ;
		snprintf(r->evidence, sizeof(r->evidence), "%s", msg);
		return;
	}
	snprintf(r->source, sizeof(r->source), "recording %s", path);
	snprintf(r->func, sizeof(r->func), "%s", rec.func);
	r->func_len = rec.code.part[0].len;
	fgt_static_decode(&rec.code, &rec.k, r);
	fgt_static_rec_free(&rec);
}

/* buf to the file out, as a whole: 0, or 1 with perror's line. */
static int write_out(const char *out, const void *buf, size_t len)
{
	FILE *f = fopen(out, "w");
	int err = !f || fwrite(buf, 1, len, f) != len;

	if (f && fclose(f))
		err = 1;
	if (err)
		perror(out);
	return err;
}

static int dump_btf(const char *kernel, const char *out)
{
	struct fgt_kimage im;
	const void *btf;
	char msg[256];
	size_t len = 0;
	int err;

	if (!kernel || fgt_kimage_open_file(&im, kernel, &stop, msg, sizeof(msg))) {
		fprintf(stderr, "fgt-static: %s\n", kernel ? msg : "--dump-btf needs --kernel");
		return FGT_CHECK_UNKNOWN;
	}
	btf = fgt_kimage_section(&im, ".BTF", &len);
	if (!btf) {
		fprintf(stderr, "fgt-static: %s: no .BTF\n", kernel);
		fgt_kimage_close(&im);
		return FGT_CHECK_UNKNOWN;
	}
	err = write_out(out, btf, len);
	fgt_kimage_close(&im);
	return err ? FGT_CHECK_UNKNOWN : FGT_CHECK_OK;
}

static int make_kcore(const char *kernel, const char *out)
{
	struct fgt_kimage im;
	struct fgt_vmcoreinfo vi;
	char msg[256];
	FILE *f;
	int err;

	if (!kernel || fgt_kimage_open_file(&im, kernel, &stop, msg, sizeof(msg))) {
		fprintf(stderr, "fgt-static: %s\n", kernel ? msg : "--make-kcore needs --kernel");
		return FGT_CHECK_UNKNOWN;
	}
	if (fgt_kallsyms_locate(&im, &vi, msg, sizeof(msg))) {
		fprintf(stderr, "fgt-static: %s: %s\n", kernel, msg);
		fgt_kimage_close(&im);
		return FGT_CHECK_UNKNOWN;
	}
	f = fopen(out, "w");
	err = !f || fgt_kimage_write_core(&im, &vi, f);
	if (f && fclose(f))
		err = 1;
	if (err)
		perror(out);
	fgt_kimage_close(&im);
	return err ? FGT_CHECK_UNKNOWN : FGT_CHECK_OK;
}

/* The kallsyms tables a kernel file carries, decoded (tests compare them with
 * its System.map, where there is one). */
static int dump_symbols(const char *kernel, const char *out)
{
	struct fgt_kimage im;
	char msg[256], *text = NULL;
	size_t len = 0, n = 0;
	int err;

	if (!kernel || fgt_kimage_open_file(&im, kernel, &stop, msg, sizeof(msg))) {
		fprintf(stderr, "fgt-static: %s\n", kernel ? msg : "--dump-symbols needs --kernel");
		return FGT_CHECK_UNKNOWN;
	}
	err = fgt_kallsyms_extract(&im, &text, &len, &n, msg, sizeof(msg));
	fgt_kimage_close(&im);
	if (err) {
		fprintf(stderr, "fgt-static: %s: %s\n", kernel, msg);
		free(text);
		return FGT_CHECK_UNKNOWN;
	}
	err = write_out(out, text, len);
	free(text);
	return err ? FGT_CHECK_UNKNOWN : FGT_CHECK_OK;
}

static void print_text(const struct fgt_static_result *r)
{
	char buf[256];

	printf("static: %s%s%s: %s\n", fgt_verdict_answer(r->verdict),
	       r->why ? " (" : "", r->why ? fgt_static_why_name(r->why) : "", r->evidence);
	printf("  text from %s, symbols from %s\n", r->source[0] ? r->source : "-",
	       r->symbols[0] ? r->symbols : "-");
	if (r->func[0])
		printf("  %s: %zu bytes, %u instructions, %.1f ms\n", r->func, r->func_len, r->insns, r->ms);
	for (unsigned int i = 0; i < r->nr_sites; i++)
		printf("  %s %s rcu_read_lock() [%s]\n", fgt_static_site_str(&r->sites[i], buf, sizeof(buf)),
		       fgt_static_rcu_name(r->sites[i].rcu), fgt_static_kind_name(r->sites[i].kind));
	for (unsigned int i = 0; i < r->nr_rcu_lock; i++)
		printf("  rcu_read_lock() at %s\n", r->rcu_lock[i]);
	for (unsigned int i = 0; i < r->nr_rcu_unlock; i++)
		printf("  rcu_read_unlock() at %s\n", r->rcu_unlock[i]);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "system-map", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "no-bpf", no_argument, NULL, 'B' },
		{ "record", required_argument, NULL, 'r' },
		{ "name", required_argument, NULL, 'n' },
		{ "kcore", required_argument, NULL, 'C' },
		{ "kallsyms", required_argument, NULL, 'S' },
		{ "btf", required_argument, NULL, 'T' },
		{ "replay", required_argument, NULL, 'R' },
		{ "make-kcore", required_argument, NULL, 'K' },
		{ "dump-symbols", required_argument, NULL, 'D' },
		{ "dump-btf", required_argument, NULL, 'b' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct fgt_static_opts o = { .stop = &stop, .bpf_read = fgt_kread_bpf };
	struct sigaction sa = { .sa_handler = on_signal };
	struct fgt_static_result r;
	struct rec rc = { .name = "?" };
	const char *replay_path = NULL, *core_path = NULL, *dump_path = NULL, *btf_path = NULL;
	bool json = false;
	int c;

	while ((c = getopt_long(argc, argv, "k:m:jBr:n:vh", lo, NULL)) != -1) {
		switch (c) {
		case 'k': o.kernel = optarg; break;
		case 'm': o.system_map = optarg; break;
		case 'j': json = true; break;
		case 'B': o.no_bpf = true; break;
		case 'r': rc.path = optarg; break;
		case 'n': rc.name = optarg; break;
		case 'C': o.kcore = optarg; break;
		case 'S': o.kallsyms = optarg; break;
		case 'T': o.btf = optarg; break;
		case 'R': replay_path = optarg; break;
		case 'K': core_path = optarg; break;
		case 'D': dump_path = optarg; break;
		case 'b': btf_path = optarg; break;
		case 'v': fgt_verbose++; break;
		default:
			fprintf(stderr, "usage: fgt-static [--kernel FILE [--system-map FILE]] [--json] "
				"[--no-bpf] [--record FILE --name NAME] [-v]\n");
			return c == 'h' ? 0 : FGT_EXIT_USAGE;
		}
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (rc.path) {
		o.code_cb = record;
		o.code_arg = &rc;
	}
	if (core_path)
		return make_kcore(o.kernel, core_path);
	if (dump_path)
		return dump_symbols(o.kernel, dump_path);
	if (btf_path)
		return dump_btf(o.kernel, btf_path);
	if (replay_path)
		replay(replay_path, &r);
	else
		fgt_static_check(&o, &r);
	if (json) {
		json_writer_t *jw = jsonw_new(stdout);

		jsonw_start_object(jw);
		jsonw_string_field(jw, "type", "static");
		fgt_static_json_fields(&r, jw);
		jsonw_end_object(jw);
		jsonw_destroy(&jw);
	} else {
		print_text(&r);
	}
	if (rc.err)
		return FGT_CHECK_UNKNOWN;
	return fgt_verdict_status(r.verdict, false);
}
