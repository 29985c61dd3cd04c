// SPDX-License-Identifier: GPL-2.0
/*
 * fgraphtop: watch the function-graph tracer allocate per-thread shadow
 * stacks on its 0 -> 1 step, and tell whether this kernel carries the fix
 * for the quadratic walk ("tracing: fgraph: fix the quadratic shadow stack walk").
 *
 * open -> set rodata -> load -> attach, one exit path.
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fgraphtop.h"
#include "fgraphtop.skel.h"
#include "activation.h"
#include "exit_codes.h"
#include "ksyms.h"
#include "log.h"
#include "output.h"
#include "plan.h"

int fgt_verbose;

static struct env {
	unsigned int interval_s;
	unsigned int duration_s;
	bool events;
	bool json;
	bool explain;
	bool no_screen;
	enum fgt_path_pref path;
	unsigned int ringbuf_mb;
} env = {
	.interval_s = 1,
	.ringbuf_mb = 4,
};

const char *argp_program_version = "fgraphtop 0.1";
static const char doc[] =
"Watch the function-graph tracer allocate per-thread shadow stacks on its\n"
"0 -> 1 step, and tell whether this kernel carries the fix for the quadratic\n"
"walk.\n"
"\n"
"EXAMPLES:\n"
"    fgraphtop                 # live view (top-like on a terminal)\n"
"    fgraphtop -i 5 -d 60      # summaries every 5 s, for 60 s\n"
"    fgraphtop --events        # one line per event\n"
"    fgraphtop -j              # JSON lines (docs/json.md)\n"
"    fgraphtop --explain       # how this kernel can be observed, then exit\n";

enum {
	OPT_EXPLAIN = 0x100,
	OPT_PATH,
	OPT_RINGBUF,
	OPT_NO_SCREEN,
};

static const struct argp_option opts[] = {
	{ "interval", 'i', "SEC", 0, "Summary interval in seconds (default 1)", 0 },
	{ "duration", 'd', "SEC", 0, "Stop after SEC seconds (default: until Ctrl-C)", 0 },
	{ "events", 'e', NULL, 0, "One line per event", 0 },
	{ "json", 'j', NULL, 0, "JSON lines (schema: docs/json.md)", 0 },
	{ "explain", OPT_EXPLAIN, NULL, 0, "Print the attach plan and exit", 0 },
	{ "path", OPT_PATH, "direct|attributed", 0, "Force one observation path", 0 },
	{ "ringbuf-size", OPT_RINGBUF, "MB", 0, "Ring buffer size in MiB, a power of 2 (default 4)", 0 },
	{ "no-screen", OPT_NO_SCREEN, NULL, 0, "No top-like screen even on a terminal", 0 },
	{ "verbose", 'v', NULL, 0, "More messages; -vv debug, -vvv libbpf's log", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

static int parse_uint(const char *arg, unsigned int min, unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

/* A bad option value: argp's usage line, or with -j a JSON error (JSON mode's
 * errors are JSON too); both exit FGT_EXIT_USAGE. */
static void bad_option(struct argp_state *state, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void bad_option(struct argp_state *state, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!env.json)
		argp_error(state, "%s", msg);
	fgt_out_error(stdout, true, FGT_EXIT_USAGE, msg);
	exit(FGT_EXIT_USAGE);
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'i':
		if (parse_uint(arg, 1, 86400, &env.interval_s))
			bad_option(state, "invalid interval: %s (1..86400 seconds)", arg);
		break;
	case 'd':
		if (parse_uint(arg, 1, UINT32_MAX, &env.duration_s))
			bad_option(state, "invalid duration: %s (seconds, > 0)", arg);
		break;
	case 'e':
		env.events = true;
		break;
	case 'j':
		env.json = true;
		break;
	case OPT_EXPLAIN:
		env.explain = true;
		break;
	case OPT_PATH:
		if (!strcmp(arg, "direct"))
			env.path = FGT_PATH_DIRECT;
		else if (!strcmp(arg, "attributed"))
			env.path = FGT_PATH_ATTRIBUTED;
		else
			bad_option(state, "invalid path: %s (direct or attributed)", arg);
		break;
	case OPT_RINGBUF:
		if (parse_uint(arg, 1, 1024, &env.ringbuf_mb) ||
		    (env.ringbuf_mb & (env.ringbuf_mb - 1)))
			bad_option(state, "invalid ring buffer size: %s (MiB, a power of 2, 1..1024)", arg);
		break;
	case OPT_NO_SCREEN:
		env.no_screen = true;
		break;
	case 'v':
		fgt_verbose++;
		break;
	case 'h':
		argp_state_help(state, stderr, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		bad_option(state, "unexpected argument: %s", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int libbpf_print_fn(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (fgt_verbose < 3 && !(fgt_verbose >= 1 && level == LIBBPF_WARN))
		return 0;
	return vfprintf(stderr, fmt, args);
}

static volatile sig_atomic_t exiting;

static void sig_handler(int sig)
{
	exiting = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

struct run {
	struct fgt_assembler *as;
	struct fgt_out *out;
};

static int handle_event(void *ctx, void *data, size_t size)
{
	struct run *r = ctx;
	const struct fgt_event *e = data;

	if (size < sizeof(*e))
		return 0;
	fgt_out_event(r->out, e);
	fgt_asm_feed(r->as, e);
	return 0;
}

static uint64_t lost_events(struct fgraphtop_bpf *skel)
{
	int ncpus = libbpf_num_possible_cpus();
	uint64_t total = 0, *vals;
	uint32_t zero = 0;

	if (ncpus <= 0)
		return 0;
	vals = calloc(ncpus, sizeof(*vals));
	if (!vals)
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.lost), &zero, vals))
		for (int i = 0; i < ncpus; i++)
			total += vals[i];
	free(vals);
	return total;
}

/* rodata and program choices from the plan: between open and load. */
static int configure(struct fgraphtop_bpf *skel, const struct fgt_plan *p)
{
	struct fgraphtop_bpf__rodata *ro = skel->rodata;
	struct {
		struct bpf_program *enter, *exit;
		const char *target;
	} lat[] = {
		{ skel->progs.lat_cache_enter, skel->progs.lat_cache_exit, p->lat_cache },
		{ skel->progs.lat_csize_enter, skel->progs.lat_csize_exit, p->lat_csize },
		{ skel->progs.lat_size_enter, skel->progs.lat_size_exit, p->lat_size },
	};
	bool any_lat = false;
	int err;

	ro->sweep_lo = p->sweep.lo;
	ro->sweep_hi = p->sweep.hi;
	ro->start_lo = p->start.lo;
	ro->start_hi = p->start.hi;
	ro->fork_lo = p->fork.lo;
	ro->fork_hi = p->fork.hi;
	ro->idle_lo = p->idle.lo;
	ro->idle_hi = p->idle.hi;
	ro->exit_lo = p->exit.lo;
	ro->exit_hi = p->exit.hi;
	ro->rth_addr = p->rth_addr;
	ro->graph_active_addr = p->graph_active_addr;
	ro->nr_threads_addr = p->nr_threads_addr;
	ro->cachep_addr = p->cachep_addr;
	ro->shadow_depth = p->shadow_depth;
	ro->shadow_bytes = p->shadow_bytes;
	ro->direct_act = p->direct_act;
	ro->direct_fork = p->direct_fork;

	for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++) {
		bool on = lat[i].target != NULL;

		bpf_program__set_autoload(lat[i].enter, on);
		bpf_program__set_autoload(lat[i].exit, on);
		if (!on)
			continue;
		any_lat = true;
		err = bpf_program__set_attach_target(lat[i].enter, 0, lat[i].target);
		if (!err)
			err = bpf_program__set_attach_target(lat[i].exit, 0, lat[i].target);
		if (err)
			return err;
	}
	ro->use_lat = any_lat;

	bpf_program__set_autoload(skel->progs.tp_kmem_cache_alloc, p->tp_kca);
	bpf_program__set_autoload(skel->progs.tp_kmem_cache_free, p->tp_kcf);
	bpf_program__set_autoload(skel->progs.tp_task_newtask, p->tp_newtask);
	bpf_program__set_autoload(skel->progs.fork_enter, p->ctx_fork);
	bpf_program__set_autoload(skel->progs.fork_exit, p->ctx_fork);
	bpf_program__set_autoload(skel->progs.d_start_enter, p->direct_act &&
				  !strcmp(p->direct_act_fn, "start_graph_tracing"));
	bpf_program__set_autoload(skel->progs.d_start_exit, p->direct_act &&
				  !strcmp(p->direct_act_fn, "start_graph_tracing"));
	bpf_program__set_autoload(skel->progs.d_reg_enter, p->direct_act &&
				  !strcmp(p->direct_act_fn, "register_ftrace_graph"));
	bpf_program__set_autoload(skel->progs.d_reg_exit, p->direct_act &&
				  !strcmp(p->direct_act_fn, "register_ftrace_graph"));
	bpf_program__set_autoload(skel->progs.d_sweep_enter, p->direct_sweep);
	bpf_program__set_autoload(skel->progs.d_sweep_exit, p->direct_sweep);
	bpf_program__set_autoload(skel->progs.d_fork_exit, p->direct_fork);
	return bpf_map__set_max_entries(skel->maps.events, env.ringbuf_mb << 20);
}

/* Is fgraph already active? Make one short-lived child: tp_btf/task_newtask
 * records ftrace_graph_active as it sees it. */
static int graph_active_now(struct fgraphtop_bpf *skel)
{
	uint64_t before = skel->bss->newtask_seen;
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return -1;
	waitpid(pid, NULL, 0);
	if (skel->bss->newtask_seen == before)
		return -1;
	return (int)skel->bss->last_graph_active;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { opts, parse_arg, NULL, doc, NULL, NULL, NULL };
	struct fgraphtop_bpf *skel = NULL;
	struct ring_buffer *rb = NULL;
	struct fgt_ksyms *ks = NULL;
	struct fgt_out *out = NULL;
	struct fgt_out_opts oo = {};
	struct run run = {};
	struct fgt_plan *plan = NULL;
	char msg[512];
	uint64_t start, next_tick, deadline = 0;
	int status = FGT_EXIT_OK, err, active;

	/* `fgraphtop check` (issue 4) will dispatch here, before argp. */
	argp_err_exit_status = FGT_EXIT_USAGE;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json") ||
		    (argv[i][0] == '-' && argv[i][1] != '-' && strchr(argv[i], 'j')))
			env.json = true;
	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return FGT_EXIT_USAGE;

	libbpf_set_print(libbpf_print_fn);
	signal(SIGINT, sig_handler);
	signal(SIGTERM, sig_handler);

	ks = fgt_ksyms_load(NULL);
	status = fgt_preflight(ks, msg, sizeof(msg));
	if (status)
		goto fail;

	plan = calloc(1, sizeof(*plan));
	if (!plan) {
		snprintf(msg, sizeof(msg), "out of memory");
		status = FGT_EXIT_ERROR;
		goto fail;
	}
	status = fgt_plan_build(plan, ks, env.path, msg, sizeof(msg));
	if (env.explain && (status == 0 || status == FGT_EXIT_NO_PATH)) {
		if (env.json) {
			json_writer_t *jw = jsonw_new(stdout);

			if (jw) {
				jsonw_start_object(jw);
				jsonw_uint_field(jw, "schema", FGT_JSON_SCHEMA);
				jsonw_string_field(jw, "type", "plan");
				fgt_plan_explain_json(plan, jw);
				jsonw_end_object(jw);
				jsonw_destroy(&jw);
			}
		} else {
			fgt_plan_explain(plan, stdout);
		}
		if (status)
			goto fail;
		goto cleanup;
	}
	if (status)
		goto fail;

	skel = fgraphtop_bpf__open();
	if (!skel) {
		snprintf(msg, sizeof(msg), "cannot open the BPF object: %s", strerror(errno));
		status = FGT_EXIT_ERROR;
		goto fail;
	}
	err = configure(skel, plan);
	if (err) {
		snprintf(msg, sizeof(msg), "cannot configure the BPF programs: %s", strerror(-err));
		status = FGT_EXIT_ERROR;
		goto fail;
	}
	err = fgraphtop_bpf__load(skel);
	if (err) {
		snprintf(msg, sizeof(msg), "loading the planned BPF programs failed (%s); "
			 "rerun with -vvv for libbpf's log, and report it", strerror(-err));
		status = FGT_EXIT_ERROR;
		goto fail;
	}
	err = fgraphtop_bpf__attach(skel);
	if (err) {
		snprintf(msg, sizeof(msg), "attaching the planned BPF programs failed (%s); "
			 "see fgraphtop --explain", strerror(-err));
		status = FGT_EXIT_ERROR;
		goto fail;
	}

	start = now_ns();
	oo.json = env.json;
	oo.events = env.events;
	oo.screen = !env.no_screen && !env.json && !env.events && isatty(STDOUT_FILENO);
	oo.ks = ks;
	oo.stack_map_fd = bpf_map__fd(skel->maps.stacks);
	oo.start_ns = start;
	out = fgt_out_new(stdout, &oo);
	run.out = out;
	run.as = out ? fgt_asm_new(fgt_out_activation, out) : NULL;
	if (!run.as) {
		snprintf(msg, sizeof(msg), "out of memory");
		status = FGT_EXIT_ERROR;
		goto fail;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), handle_event, &run, NULL);
	if (!rb) {
		snprintf(msg, sizeof(msg), "cannot set up the ring buffer: %s", strerror(errno));
		status = FGT_EXIT_ERROR;
		goto fail;
	}
	fgt_out_start(out, plan);

	active = graph_active_now(skel);
	if (active > 0) {
		snprintf(msg, sizeof(msg), "fgraph is already active (%d user%s): there is no "
			 "0->1 step to watch until every user stops; watching the fork path",
			 active, active > 1 ? "s" : "");
		fgt_out_warning(out, "fgraph_active", msg);
	}

	next_tick = start + env.interval_s * 1000000000ull;
	if (env.duration_s)
		deadline = start + env.duration_s * 1000000000ull;
	while (!exiting) {
		uint64_t t;

		err = ring_buffer__poll(rb, 100);
		if (err < 0 && err != -EINTR) {
			snprintf(msg, sizeof(msg), "reading the ring buffer failed: %s", strerror(-err));
			status = FGT_EXIT_ERROR;
			goto fail;
		}
		t = now_ns();
		if (t >= next_tick) {
			fgt_out_interval(out, run.as, lost_events(skel));
			next_tick += env.interval_s * 1000000000ull;
		}
		if (deadline && t >= deadline)
			break;
	}
	ring_buffer__consume(rb);
	fgt_asm_flush(run.as);
	fgt_out_final(out, run.as, lost_events(skel));
	goto cleanup;

fail:
	fgt_out_error(stdout, env.json, status, msg);
cleanup:
	ring_buffer__free(rb);
	fgt_asm_free(run.as);
	fgt_out_free(out);
	fgraphtop_bpf__destroy(skel);
	free(plan);
	fgt_ksyms_free(ks);
	return status;
}
