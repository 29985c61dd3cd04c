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
 * 3 unknown, 64 bad options. Its command line is argp through common/cli
 * (-h, --version, -j anywhere), its messages the one channel (common/log).
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common/cli.h"
#include "env.h"
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
		log_err("%s: %s", rc->path, strerror(errno));
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

/* buf to the file out, as a whole: 0, or 1 with its error's line. */
static int write_out(const char *out, const void *buf, size_t len)
{
	FILE *f = fopen(out, "w");
	int err = !f || fwrite(buf, 1, len, f) != len;

	if (f && fclose(f))
		err = 1;
	if (err)
		log_err("%s: %s", out, strerror(errno));
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
		log_err("%s", kernel ? msg : "--dump-btf needs --kernel");
		return FGT_CHECK_UNKNOWN;
	}
	btf = fgt_kimage_section(&im, ".BTF", &len);
	if (!btf) {
		log_err("%s: no .BTF", kernel);
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
		log_err("%s", kernel ? msg : "--make-kcore needs --kernel");
		return FGT_CHECK_UNKNOWN;
	}
	if (fgt_kallsyms_locate(&im, &vi, msg, sizeof(msg))) {
		log_err("%s: %s", kernel, msg);
		fgt_kimage_close(&im);
		return FGT_CHECK_UNKNOWN;
	}
	f = fopen(out, "w");
	err = !f || fgt_kimage_write_core(&im, &vi, f);
	if (f && fclose(f))
		err = 1;
	if (err)
		log_err("%s: %s", out, strerror(errno));
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
		log_err("%s", kernel ? msg : "--dump-symbols needs --kernel");
		return FGT_CHECK_UNKNOWN;
	}
	err = fgt_kallsyms_extract(&im, &text, &len, &n, msg, sizeof(msg));
	fgt_kimage_close(&im);
	if (err) {
		log_err("%s: %s", kernel, msg);
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

static const char static_doc[] =
"The static verdict from a kernel's machine code, for developers and the\n"
"lab (users run fgraphtop check --static or check --kernel FILE): the\n"
"answer in detail, a recording of the code (tests/data/static/) and its\n"
"replay, and the tables the lab's tests take from a kernel file.\n"
"\n"
"Exit status as fgraphtop check's: 0 fixed or not affected, 2 not fixed,\n"
"3 unknown (or a file that could not be written), 64 bad options.\n";

enum {
	OPT_SYSMAP = 0x200,
	OPT_NO_BPF,
	OPT_RECORD,
	OPT_NAME,
	OPT_KCORE,
	OPT_KALLSYMS,
	OPT_BTF,
	OPT_REPLAY,
	OPT_MAKE_KCORE,
	OPT_DUMP_SYMBOLS,
	OPT_DUMP_BTF,
};

struct static_args {
	struct fgt_cli cli;		/* first: fgt_cli_parse()'s input */
	struct fgt_static_opts o;
	struct rec rc;
	const char *replay, *make_kcore, *dump_symbols, *dump_btf;
};

static const struct argp_option static_opts[] = {
	{ "kernel", 'k', "FILE", 0, "A kernel file (vmlinux, bzImage, Image, .deb) "
	  "instead of the running kernel", 0 },
	{ "system-map", OPT_SYSMAP, "FILE", 0, "With --kernel: its System.map", 0 },
	{ "json", 'j', NULL, 0, "One JSON object", 0 },
	{ "no-bpf", OPT_NO_BPF, NULL, 0, "Never read kernel memory through BPF", 0 },
	{ "record", OPT_RECORD, "FILE", 0, "Also record the code read into FILE", 0 },
	{ "name", OPT_NAME, "NAME", 0, "The recording's name", 0 },
	{ "kcore", OPT_KCORE, "FILE", 0, "FILE instead of /proc/kcore", 0 },
	{ "kallsyms", OPT_KALLSYMS, "FILE", 0, "FILE instead of /proc/kallsyms", 0 },
	{ "btf", OPT_BTF, "FILE", 0, "FILE instead of /sys/kernel/btf/vmlinux", 0 },
	{ "replay", OPT_REPLAY, "FILE", 0, "Decode a recording instead of a kernel", 0 },
	{ "make-kcore", OPT_MAKE_KCORE, "OUT", 0, "Write --kernel's image as /proc/kcore "
	  "shows it, with a VMCOREINFO note", 0 },
	{ "dump-symbols", OPT_DUMP_SYMBOLS, "OUT", 0, "Write --kernel's own kallsyms "
	  "tables, decoded", 0 },
	{ "dump-btf", OPT_DUMP_BTF, "OUT", 0, "Write --kernel's .BTF (for bpftool)", 0 },
	{ "verbose", 'v', NULL, 0, "More messages", 0 },
	FGT_CLI_STD_OPTIONS,
	{},
};

static error_t static_parse(int key, char *arg, struct argp_state *state)
{
	struct static_args *a = state->input;
	error_t e = fgt_cli_key(key, arg, state);

	if (e != ARGP_ERR_UNKNOWN)
		return e;
	switch (key) {
	case 'k': a->o.kernel = arg; return 0;
	case OPT_SYSMAP: a->o.system_map = arg; return 0;
	case OPT_NO_BPF: a->o.no_bpf = true; return 0;
	case OPT_RECORD: a->rc.path = arg; return 0;
	case OPT_NAME: a->rc.name = arg; return 0;
	case OPT_KCORE: a->o.kcore = arg; return 0;
	case OPT_KALLSYMS: a->o.kallsyms = arg; return 0;
	case OPT_BTF: a->o.btf = arg; return 0;
	case OPT_REPLAY: a->replay = arg; return 0;
	case OPT_MAKE_KCORE: a->make_kcore = arg; return 0;
	case OPT_DUMP_SYMBOLS: a->dump_symbols = arg; return 0;
	case OPT_DUMP_BTF: a->dump_btf = arg; return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp static_argp = { static_opts, static_parse, NULL, static_doc,
					 NULL, NULL, NULL };

static void print_json(const struct fgt_static_result *r)
{
	json_writer_t *jw = jsonw_new(stdout);

	jsonw_start_object(jw);
	jsonw_string_field(jw, "type", "static");
	fgt_static_json_fields(r, jw);
	jsonw_end_object(jw);
	jsonw_destroy(&jw);
}

int main(int argc, char **argv)
{
	struct static_args a = {
		.o = { .stop = &stop, .bpf_read = fgt_kread_bpf },
		.rc = { .name = "?" },
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct fgt_static_result r;
	enum fgt_cli_action act;

	act = fgt_cli_parse(&static_argp, argc, argv, &a.cli);
	fgt_msg_program("fgt-static");
	fgt_msg_setup(a.cli.json, stdout);
	fgt_verbose = a.cli.verbose;
	if (fgt_cli_print(&static_argp, act, "fgt-static", fgt_version, stdout))
		return FGT_CHECK_OK;
	if (act == FGT_CLI_ERROR) {
		p_err(FGT_EXIT_USAGE, "%s", a.cli.err);
		return FGT_EXIT_USAGE;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (a.rc.path) {
		a.o.code_cb = record;
		a.o.code_arg = &a.rc;
	}
	if (a.make_kcore)
		return make_kcore(a.o.kernel, a.make_kcore);
	if (a.dump_symbols)
		return dump_symbols(a.o.kernel, a.dump_symbols);
	if (a.dump_btf)
		return dump_btf(a.o.kernel, a.dump_btf);
	if (a.replay)
		replay(a.replay, &r);
	else
		fgt_static_check(&a.o, &r);
	if (a.cli.json)
		print_json(&r);
	else
		print_text(&r);
	if (a.rc.err)
		return FGT_CHECK_UNKNOWN;
	return fgt_verdict_status(r.verdict, false);
}
