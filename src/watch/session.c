// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF watching session shared by the live tool and `fgraphtop check`:
 * its lifecycle (plan, start, close), the start-up's symbols and phases, a
 * step joined under way followed to its record, and the ops check drives.
 * The attach machinery is attach.c's, the stream drain drain.c's, the
 * status snapshot snapshot.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/libbpf.h>
#include "watch/session.h"
#include "common/clock.h"
#include "fgraphtop.skel.h"
#include "common/exit_codes.h"
#include "host/kernel_id.h"
#include "model/act_log_reader.h"
#include "host/host_state.h"
#include "static/ksyms_kcore.h"
#include "watch/probe.h"
#include "common/log.h"
#include "watch/exposure.h"
#include "watch/join.h"
#include "common/waitnote.h"
#include "watch/attach.h"
#include "watch/assemble.h"
#include "watch/follow.h"

static void holders_start(struct fgt_session *s)
{
	struct fgt_holders_cfg c = {};

	s->graph_active = -2;	/* not seen yet */
	fgt_fprobe_facts(s->ks, &c.fprobe);
	s->hw = fgt_holders_watch_start(&c, FGT_HOLDERS_MS);
	if (!s->hw)
		log_info("fgraphtop: cannot start the holders' reader: %s\n", strerror(errno));
}

/* A "VmRSS:"-style line's KiB from /proc/self/status; -1 if none. */
static long status_kib(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/*
 * -vv: how long each start-up phase took and the memory resident after it
 * (VmRSS) and at the most so far (VmHWM), to see where start-up time and
 * the peak go (docs/bench/startup.md).
 */
void fgt_session_phase(const char *what)
{
	static uint64_t last;
	char buf[4096];
	uint64_t t;
	ssize_t n;
	int fd;

	if (fgt_verbose < 2)
		return;
	t = fgt_mono_ns();
	if (what) {
		buf[0] = '\0';
		fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			buf[n > 0 ? n : 0] = '\0';
			close(fd);
		}
		log_dbg("fgraphtop: start-up: %s: %.1f ms, VmRSS %ld KiB, VmHWM %ld KiB\n",
			what, (t - last) / 1e6, status_kib(buf, "VmRSS:"), status_kib(buf, "VmHWM:"));
	}
	last = fgt_mono_ns();
}

/*
 * Would /proc/kallsyms show this process addresses? kptr_restrict hides them
 * from some readers, and then the whole table must be read for its words
 * (fgt_preflight()). Its first lines tell: x86-64's start with per-CPU
 * symbols, the first at 0, the next ones not; a masked table is all zeros.
 */
static bool kallsyms_shows_addrs(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[600];
	bool shown = false;

	for (int i = 0; f && !shown && i < 64 && fgets(line, sizeof(line), f); i++)
		shown = strtoull(line, NULL, 16) != 0;
	if (f)
		fclose(f);
	return shown;
}

/*
 * Until the probes are up, only src/facts/kfacts.c's symbols: from the
 * kernel's own kallsyms tables (kcore) when it has them, because the whole
 * /proc/kallsyms is most of the start-up's time (docs/bench/startup.md);
 * fgt_session_started() reads it once they are up.
 */
static struct fgt_ksyms *start_ksyms(void)
{
	const char *names[FGT_SYM__NR];
	struct fgt_ksyms *ks = NULL;

	for (int i = 0; i < FGT_SYM__NR; i++)
		names[i] = fgt_sym_name(i);
	if (kallsyms_shows_addrs())
		ks = fgt_ksyms_kcore(NULL, names, FGT_SYM__NR);
	log_dbg("fgraphtop: start-up symbols: %s\n", ks ? "the kallsyms tables in kcore" :
		"/proc/kallsyms");
	return ks ? ks : fgt_ksyms_load(NULL);
}

/* The whole /proc/kallsyms, where the plan was made from a part of it. */
static void ksyms_whole(struct fgt_session *s)
{
	struct fgt_ksyms *ks;
	char why[160];

	if (!s->own_ks || !fgt_ksyms_is_part(s->own_ks))
		return;
	ks = fgt_ksyms_load(NULL);
	if (!ks || !fgt_ksyms_have_addrs(ks) || !fgt_ksyms_sane(ks, why, sizeof(why))) {
		log_info("fgraphtop: cannot read /proc/kallsyms: stacks go unnamed\n");
		fgt_ksyms_free(ks);
		return;
	}
	/* the plan's names are the part's: it stays */
	s->part_ks = s->own_ks;
	s->ks = s->own_ks = ks;
	s->rec.ks = ks;
}

void fgt_session_started(struct fgt_session *s)
{
	fgt_session_phase(NULL);
	ksyms_whole(s);
	fgt_session_phase("after the start line: /proc/kallsyms");
}

/*
 * Before anything that can block on ftrace_lock (the plan's fentry probes,
 * the attach): is a 0->1 step under way? If so it is joined: the plan
 * defers its fentry/fexit rows, the tracepoints alone go on.
 */
static void join_detect(struct fgt_session *s)
{
	char why[256];

	if (!s->want_join)
		return;
	s->jr = fgt_joiner_open(s->ks, why, sizeof(why));
	if (!s->jr) {
		log_info("fgraphtop: join: %s", why);
		return;
	}
	s->joining = fgt_joiner_detect(s->jr, FGT_VERDICT_UNKNOWN, &s->join);
	s->deferred_pending = s->joining;
	/* every allocation of the walk comes through the ring buffer, with a
	 * stack: 150 of them were lost with 1 MiB under a loaded lab host */
	if (s->joining && s->ringbuf_mb < 4)
		s->ringbuf_mb = 4;
	fgt_session_phase("join: a step under way?");
}

int fgt_session_plan(struct fgt_session *s, char *msg, size_t len)
{
	int status;

	fgt_session_phase(NULL);
	if (!s->ks)
		s->ks = s->own_ks = start_ksyms();
	fgt_session_phase("symbols");
	status = fgt_preflight(s->ks, msg, len);
	if (status)
		return status;
	s->plan = calloc(1, sizeof(*s->plan));
	if (!s->plan) {
		snprintf(msg, len, "out of memory");
		return FGT_EXIT_ERROR;
	}
	s->join_stack_id = -1;
	join_detect(s);
	s->plan->defer_ftrace = s->joining;
	status = fgt_plan_build(s->plan, s->ks, s->pref, msg, len);
	fgt_session_phase("plan (vmlinux BTF, probes)");
	return status;
}

/*
 * Open, configure and load: the plan's programs and, when asked, the
 * exposure's task iterator with them. FGT_EXIT_* with msg; -1 when the load
 * itself failed, which the caller words.
 */
static int open_load(struct fgt_session *s, bool exp, int *err, char *msg, size_t len)
{
	struct bpf_program *it;

	fgt_attach_handlers_on(&s->att);
	s->skel = fgraphtop_bpf__open();
	if (!s->skel) {
		snprintf(msg, len, "cannot open the BPF object: %s", strerror(errno));
		return FGT_EXIT_ERROR;
	}
	*err = fgt_attach_configure(&s->att, s->skel, s->plan, s->ringbuf_mb, s->log_entries);
	if (*err) {
		snprintf(msg, len, "cannot configure the BPF programs: %s", strerror(-*err));
		return FGT_EXIT_ERROR;
	}
	it = s->skel->progs.exp_count_lacking;
	bpf_program__set_autoload(it, exp);
	fgt_attach_target(&s->att, it, s->plan->iter_btf_id);
	bpf_program__set_autoattach(it, false);	/* fgt_exposure_of(): an iterator link */
	fgt_session_phase("open and configure");
	*err = fgraphtop_bpf__load(s->skel);
	fgt_session_phase("load (the verifier)");
	return *err ? -1 : 0;
}

/*
 * The load, with the exposure's iterator when wanted. Should the kernel
 * refuse the load with it, once more without it: the live view watches on
 * without the count, as it did when the iterator was an object of its own.
 */
static int load(struct fgt_session *s, int *err, char *msg, size_t len)
{
	int status = open_load(s, s->want_exposure, err, msg, len);

	/* lockdown refuses them all alike (fgt_session_start() says so) */
	if (status != -1 || !s->want_exposure ||
	    fgt_lockdown_mode(NULL, NULL) == FGT_LOCKDOWN_CONFIDENTIALITY)
		return status;
	fgt_exposure_load_failed(-*err, s->exp_why, sizeof(s->exp_why));
	log_dbg("fgraphtop: the load failed with the task iterator (%s): once more without it\n",
		strerror(-*err));
	fgraphtop_bpf__destroy(s->skel);
	s->skel = NULL;
	return open_load(s, false, err, msg, len);
}

/* The exposure over the iterator loaded with the programs, if it was. */
static void exposure_attach(struct fgt_session *s)
{
	if (!s->want_exposure || s->exp_why[0])
		return;
	s->exp_it = fgt_exposure_of(s->skel->progs.exp_count_lacking,
				    (const bool *)&s->skel->bss->exp_no_ret_stack,
				    s->exp_why, sizeof(s->exp_why));
}

struct fgt_exposure *fgt_session_exposure(struct fgt_session *s, char *msg, size_t len)
{
	if (!s->exp_it)
		snprintf(msg, len, "%s", s->exp_why);
	return s->exp_it;
}

int fgt_session_start(struct fgt_session *s, fgt_record_cb cb, void *cb_ctx,
		      char *msg, size_t len)
{
	struct fgt_wait *w;
	int err, status;

	/* --events: a log that holds an activation of the threads there are */
	s->log_entries = s->on_event ? fgt_log_entries(fgt_host_threads(NULL)) : 0;
	if (s->log_entries)
		log_info("activation log: %u records (%zu KiB)", s->log_entries,
			 fgt_drain_log_bytes(s->log_entries) >> 10);
	status = load(s, &err, msg, len);
	if (status == -1 && fgt_lockdown_mode(NULL, NULL) == FGT_LOCKDOWN_CONFIDENTIALITY) {
		/* security_locked_down(LOCKDOWN_BPF_READ_KERNEL): the verifier has
		 * no bpf_probe_read_kernel to give the programs (EINVAL), no bug */
		snprintf(msg, len, "the kernel is locked down (lockdown=confidentiality), which "
			 "refuses bpf_probe_read_kernel to the BPF programs fgraphtop needs; "
			 "lockdown=integrity (Secure Boot's default) allows them");
		return FGT_EXIT_LOCKDOWN;
	}
	if (status == -1) {
		snprintf(msg, len, "loading the planned BPF programs failed (%s); "
			 "rerun with -vvv for libbpf's log, and report it", strerror(-err));
		return FGT_EXIT_ERROR;
	}
	if (status)
		return status;
	if (s->on_event) {
		s->log = mmap(NULL, fgt_drain_log_bytes(s->log_entries), PROT_READ, MAP_SHARED,
			      bpf_map__fd(s->skel->maps.actlog), 0);
		if (s->log == MAP_FAILED) {
			s->log = NULL;
			snprintf(msg, len, "cannot map the activation log: %s", strerror(errno));
			return FGT_EXIT_ERROR;
		}
	}
	/* fgraph_stack_cachep, if fgraph created it before we started: the kmem
	 * programs reject every allocation until it is known (cache_is_fgraph()) */
	fgt_attach_graph_active_run(s->skel);
	/* before attaching: our own thread is no new task the fork path counts */
	if (s->want_holders)
		holders_start(s);
	w = fgt_wait_begin(FGT_WAIT_FTRACE_LOCK, "attaching the probes");
	err = fgraphtop_bpf__attach(s->skel);
	fgt_wait_end(w);
	fgt_session_phase("attach");
	if (err) {
		snprintf(msg, len, "attaching the planned BPF programs failed (%s); "
			 "see fgraphtop --explain", strerror(-err));
		return FGT_EXIT_ERROR;
	}
	exposure_attach(s);
	fgt_recorder_init(&s->rec, cb, cb_ctx, s->ks, fgt_drain_stack, s);
	if (fgt_assemble_init(&s->assemble, fgt_follow_activation, s,
			      s->plan && s->plan->kconf.cachep_addr)) {
		snprintf(msg, len, "out of memory");
		return FGT_EXIT_ERROR;
	}
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), fgt_drain_event, s, NULL);
	if (!s->rb) {
		snprintf(msg, len, "cannot set up the ring buffer: %s", strerror(errno));
		return FGT_EXIT_ERROR;
	}
	fgt_follow_rebase(s);
	/* fgraph idle now: every step from here is seen from its start */
	fgt_session_unbracketed_tick(s);
	fgt_attach_lazy_update(&s->att, s->skel, s->plan, s->joining || s->deferred_pending);
	return 0;
}

void fgt_session_close(struct fgt_session *s)
{
	fgt_attach_unlink(&s->att);
	fgt_joiner_close(s->jr);
	s->jr = NULL;
	fgt_holders_watch_stop(s->hw);
	s->hw = NULL;
	if (s->rb)
		ring_buffer__consume(s->rb);
	if (s->skel)	/* whatever is left, even without its ACT_BEGIN */
		fgt_drain_log(s, s->skel->bss->act_seq);
	if (s->log)
		munmap((void *)s->log, fgt_drain_log_bytes(s->log_entries));
	s->log = NULL;
	fgt_session_flush(s);
	ring_buffer__free(s->rb);
	s->rb = NULL;
	fgt_exposure_close(s->exp_it);
	s->exp_it = NULL;
	fgraphtop_bpf__destroy(s->skel);
	s->skel = NULL;
	fgt_attach_handlers_off(&s->att);	/* after the object: its programs point at them */
	fgt_assemble_free(&s->assemble);
	free(s->plan);
	s->plan = NULL;
	fgt_ksyms_free(s->own_ks);
	s->own_ks = NULL;
	fgt_ksyms_free(s->part_ks);
	s->part_ks = NULL;
	s->ks = NULL;
}

/* ---- struct fgt_watch_ops for `fgraphtop check` ---- */

static int w_start(void *priv, const struct fgt_ksyms *ks, fgt_record_cb cb, void *cb_ctx,
		   char *msg, size_t len)
{
	struct fgt_session *s = priv;
	int status;

	s->ks = ks;
	s->want_exposure = true;
	/* a step under way: its fentry/fexit rows wait, as the live view's */
	s->want_join = true;
	status = fgt_session_plan(s, msg, len);

	if (!status)
		status = fgt_session_start(s, cb, cb_ctx, msg, len);
	if (!status)
		fgt_session_started(s);
	return status ? -EOPNOTSUPP : 0;
}

static int w_graph_active(void *priv)
{
	return fgt_session_graph_active(priv);
}

static int w_poll(void *priv, int ms)
{
	int err = fgt_session_poll(priv, ms);

	/* one begun without its ACT_BEGIN: over once its walker has left */
	fgt_session_unbracketed_tick(priv);
	return err;
}

static bool w_busy(void *priv)
{
	return fgt_session_busy(priv);
}

static uint64_t w_lost(void *priv)
{
	return fgt_session_lost(priv);
}

/* The session's iterator once it is loaded; before, or without it, one of
 * its own (check's count before anything changes, a kernel that refused it
 * with the programs). */
static int w_exposure(void *priv, struct fgt_exp_walk *w, char *msg, size_t len)
{
	struct fgt_session *s = priv;

	if (s->exp_it)
		return fgt_exposure_read(s->exp_it, w, msg, len);
	return fgt_exposure_scan(w, msg, len);
}

static void w_trigger_done(void *priv)
{
	fgt_session_unbracketed_end(priv);
}

static bool w_under_way(void *priv, const struct fgt_ksyms *ks, struct fgt_joined *j)
{
	char why[256];
	struct fgt_joiner *jr = fgt_joiner_open(ks, why, sizeof(why));
	bool yes;

	if (!jr)
		return false;
	yes = fgt_joiner_detect(jr, FGT_VERDICT_UNKNOWN, j);
	fgt_joiner_close(jr);
	return yes;
}

static void w_stop(void *priv)
{
	fgt_session_close(priv);
}

const struct fgt_watch_ops *fgt_session_watch_ops(struct fgt_session *s)
{
	s->ops = (struct fgt_watch_ops){
		.start = w_start, .graph_active = w_graph_active, .poll = w_poll,
		.busy = w_busy, .lost = w_lost, .stop = w_stop, .exposure = w_exposure,
		.trigger_done = w_trigger_done,
		.under_way = w_under_way,
		.priv = s,
	};
	return &s->ops;
}
