// SPDX-License-Identifier: GPL-2.0
/*
 * fgraphtop: watch the function-graph tracer hand out per-thread shadow
 * stacks on its 0 -> 1 step. See docs/EVENTS.md for the vocabulary.
 *
 * Two observation paths, chosen per figure by src/watch/plan.c from real
 * load-and-attach attempts of the probe table (src/facts/kfacts.c):
 *  - direct: fentry/fexit on the fgraph functions themselves (only kernels
 *    built with ftrace instrumentation in kernel/trace/fgraph.c);
 *  - attributed: the slab allocator's tracepoints (call_site inside the
 *    kallsyms range of the function holding the inlined sweep, plus the
 *    shadow-stack size or cache) and the new task itself.
 *
 * Only fentry/fexit/tp_btf: fgraphtop must never cause the 0 -> 1 step it
 * watches (kprobe_multi with a return handler would, via fprobe).
 *
 * Overhead: what must be on all the time to catch an activation is the kmem
 * raw tracepoints (kmalloc and kfree; kmem_cache_alloc and kmem_cache_free
 * too where stacks come from the fgraph_stack cache), task_newtask and
 * copy_process's fentry/fexit; each rejects what is not fgraph's by comparing
 * size/cache/call_site (or ftrace_graph_active) with read-only data before
 * touching any map. The allocator's fentry/fexit, for the fork path's
 * latency, are attached by userspace only while
 * fgraph is active (src/watch/attach.c), never during an activation: attaching a
 * trampoline needs ftrace_lock, which the activation holds. The sweep path's
 * per-allocation latency therefore comes from the tracepoints' own timestamps
 * (src/model/activation.c). Inside an activation, the thread making the 0->1 step
 * aggregates what it sees itself (bpf/agg.h: the assembler's logic, in struct
 * fgt_agg): one ring-buffer message per finished sweep and one at the end,
 * none per thread served. Only with --events does it also write a record per
 * allocation, to the activation log (log_rec()).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "events_abi.h"
#include "agg_abi.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * This kernel's facts (bpf/events_abi.h), set by userspace between open and
 * load (src/watch/plan.c fills them). Frozen rodata: the verifier prunes what a
 * kernel's configuration makes dead.
 */
const volatile struct fgt_kconf kconf = {};

/*
 * task_struct's fields at the offsets the plan read from BTF (kconf.task),
 * where CO-RE would make libbpf search vmlinux BTF's types for the type at
 * every load, before the start line. The same reads (bpf_core_read() is
 * bpf_probe_read_kernel() at a relocated offset).
 */
#define task_read(dst, t, f) \
	bpf_probe_read_kernel(dst, sizeof(*(dst)), (const char *)(t) + kconf.task.f)
#define FGT_EXP_HAS_RET_STACK(t)	(kconf.task.ret_stack != 0)
#define FGT_EXP_READ(dst, t, f)		task_read(dst, t, f)
#include "exposure.h"

/* A task's tid, and whether it has a shadow stack. */
static __always_inline void task_stack(const struct task_struct *t, __u32 *tid, __u32 *ok)
{
	void *ret_stack = NULL;
	__u32 pid = 0;

	task_read(&pid, t, pid);
	task_read(&ret_stack, t, ret_stack);
	*tid = pid;
	*ok = ret_stack != NULL;
}
/* The union of kconf's sweep, start and exit ranges (src/watch/attach.c sets it):
 * a free from anywhere else, nearly every free of the system, is rejected by
 * two comparisons instead of three range tests. */
const volatile __u64 frees_lo = 0, frees_hi = 0;
/* ... and of the sweep, start, fork and idle ranges: the first frame of the
 * stack in fgraph's code is an allocation's caller (stack_call_site()). One
 * comparison a frame: with known_site()'s four the verifier went through
 * about 1,500 instructions of its loop, 16 frames of 4 tests. */
const volatile __u64 sites_lo = 0, sites_hi = 0;
/* --events: every allocation of an activation as a record, in the activation
 * log (the aggregation runs either way and makes the activation's figures). */
const volatile __u8 log_on = 0;
/* the activation log's slots less one, a power of two less one
 * (src/watch/attach.c fgt_attach_configure()) */
const volatile __u32 log_mask = FGT_LOG_ENTRIES - 1;

/* ---- maps ---- */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);		/* resized by --ringbuf-size */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* The activation log (bpf/events_abi.h): written by the thread inside the
 * 0->1 step only, so one producer; userspace maps it and moves log_tail. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FGT_LOG_ENTRIES);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct fgt_rec);
} actlog SEC(".maps");

/* The latest sweep's reserve, by pointer (bpf/agg_abi.h): kernel memory,
 * never mapped by userspace. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FGT_AGG_SLOTS);
	__type(key, __u32);
	__type(value, struct fgt_agg_slot);
} agg_res SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 256);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, FGT_MAX_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* An allocation in flight, between the allocator's fentry and fexit. */
struct inflight {
	__u64 start_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct inflight);
} inflight SEC(".maps");

/* Threads inside copy_process() while fgraph is active (fork-path context for
 * allocations whose call_site reads return_to_handler). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} in_fork SEC(".maps");

/* ---- state read by userspace through the skeleton ---- */

__u32 act_tid;		/* thread inside the 0 -> 1 step, 0 if none */
__u64 act_list;		/* attributed: the ret_stack_list pointer */
__u64 act_begin_ns;
__u64 sweep_begin_ns;
__u32 last_graph_active;	/* ftrace_graph_active seen by the last new task */
__u64 newtask_seen;
/* Set by userspace while the allocator fentry/fexit (lat_*) may be attached:
 * before attaching, cleared after detaching (src/watch/attach.c). Only says whether
 * an in-flight start time may be there to look up. */
__u32 lat_on;
__u32 graph_active_probe;	/* written by probe_graph_active, test-run by userspace */
/* Set by userspace once ftrace_graph_active was read 0 after the attach (no
 * step under way then, src/watch/follow.c idle_look()): from then on a
 * sweep's allocation with none under way begins an activation (alloc_seen()). */
__u32 begin_at_sweep;
__u32 act_seq;			/* activations begun */
/* Records of the activation under way that the log had no room for: its own
 * losses, which ACT_END reports. Runs the kernel skipped in other contexts
 * (an interrupt's kfree inside ours) never were the activation's events. */
__u32 act_lost;
__u64 log_head;			/* records written to actlog (here) */
__u64 log_tail;			/* records consumed (by userspace) */
/* The allocation path's state, one object (bpf/agg_abi.h struct fgt_hot):
 * the activation's figures as they grow (bpf/agg.h), written by the thread
 * inside the 0->1 step only, which the live view reads (src/watch/snapshot.c);
 * before them, what the kmem programs test first. */
struct fgt_hot hot;

/*
 * &hot in a register clang cannot rebuild: otherwise it loads the address
 * anew (an ld_imm64) at nearly every use, eight times on a walk's fast path,
 * which runs once per thread served.
 */
static __always_inline struct fgt_hot *hot_reg(void)
{
	struct fgt_hot *h = &hot;

	asm volatile("" : "+r"(h));
	return h;
}

static __always_inline __u32 shadow_size(void)
{
	return kconf.shadow_bytes;
}

static __always_inline bool in_range(__u64 a, __u64 lo, __u64 hi)
{
	return lo && a >= lo && a < hi;
}

static __always_inline int graph_active(void)
{
	int v = 0;

	if (kconf.graph_active_addr)
		bpf_probe_read_kernel(&v, sizeof(v), (void *)kconf.graph_active_addr);
	return v;
}

static __always_inline __u32 cur_tid(void)
{
	return (__u32)bpf_get_current_pid_tgid();
}

static __always_inline void count_lost_n(__u64 k)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&lost, &zero);

	if (n)
		*n += k;
}

static __always_inline void count_lost(void)
{
	count_lost_n(1);
}

static struct fgt_event *reserve(__u32 type, __u32 src)
{
	struct fgt_event *e;
	__u64 id;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_lost();
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e));
	id = bpf_get_current_pid_tgid();
	e->ts_ns = bpf_ktime_get_ns();
	e->type = type;
	e->src = src;
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->cpu = bpf_get_smp_processor_id();
	e->stack_id = -1;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
}

/* ---- bpf/agg.h's hooks: where the aggregation's results go ---- */

static __always_inline struct fgt_agg_slot *fgt_agg_slot(void *out, __u32 i)
{
	return bpf_map_lookup_elem(&agg_res, &i);
}

/*
 * FGT_AGG_PEND finished sweeps, st->pend behind their message header
 * (bpf/agg_abi.h): one ring-buffer output for them all. It wakes nobody: a
 * sweep is no reason to run the consumer on the CPU of the walk being timed,
 * and its drain once a second (src/watch/drain.c) keeps up with any walk:
 * a sweep visits every thread, so a walk that made the 13,264 sweeps the
 * smallest ring holds (1 MiB of 1,264-byte messages, 424,000 threads: 2.8
 * billion visits) would take far longer than that second (the 12,501
 * sweeps of 400,000 threads took 227 s).
 */
static __always_inline void fgt_agg_put_sweeps(void *out, const struct fgt_agg *st)
{
	hot.agg.pend_ev.type = FGT_EV_SWEEP_DONE;
	hot.agg.pend_ev.size = FGT_AGG_PEND;
	hot.agg.pend_ev.ts_ns = hot.agg.sweep.end_ns;
	hot.agg.pend_ev.act_seq = hot.agg.sweep.seq;
	if (bpf_ringbuf_output(&events, &hot.agg.pend_ev, sizeof(struct fgt_sweeps_msg),
			       BPF_RB_NO_WAKEUP))
		count_lost_n(FGT_AGG_PEND);	/* the consumer counts them as the activation's */
}

static __always_inline void agg_send_end(__u64 end_ns, int complete, __s32 ret);

/*
 * bpf/agg.h's cold code runs only inside the global functions below (agg_*):
 * the verifier goes through a global function once, where it goes through a
 * static one again at every call with the caller's state (tp_kmem_cache_alloc
 * took 25,749 verified instructions so, 2,324 before the aggregation). They
 * take scalars only; the state is the global hot.agg.
 */
/* stacks of their own cache: free_seen() passes on only theirs */
#define FGT_AGG_RES_TRUST(st) (kconf.cachep_addr != 0)
/* --events: every allocation through the cold path, which logs it */
#define FGT_AGG_NO_FAST log_on
/* fed only inside an activation act_begin() began */
#define FGT_AGG_IMPLICIT 0
/* the consumer finishes the activation from the state sent whole */
#define FGT_AGG_FINISH(st, out, end_ns, complete, ret) agg_send_end(end_ns, complete, ret)
#define FGT_AGG_NO_FINISH
__noinline int agg_sweep_open(__u64 begin_ns, int expl, __u64 gap_from);
#define FGT_AGG_SWEEP_OPEN(st, out, begin_ns, expl, gap_from) \
	agg_sweep_open(begin_ns, expl, gap_from)
/* only the walk's own allocations come to the aggregation: attributed, with
 * no latency of their own; ok is ptr != 0 */
__noinline int agg_alloc_cold(__u64 ts, __u64 ptr, __u32 gfp);
#define FGT_AGG_ALLOC_COLD(st, out, ts, src, who, ptr, gfp, ok, dur) \
	agg_alloc_cold(ts, ptr, gfp)
#include "agg.h"

/*
 * An activation makes one record per thread lacking a stack: with --events
 * they go to the activation log, not the ring buffer (bpf/events_abi.h). Only the thread
 * inside the 0->1 step writes here, so the slot at log_head is ours.
 */
static __always_inline struct fgt_rec *log_rec(__u32 type, __u32 src)
{
	__u64 head = log_head;
	struct fgt_rec *r;
	__u32 idx;

	if (head - log_tail > log_mask) {
		count_lost();
		act_lost++;
		return NULL;
	}
	idx = head & log_mask;
	r = bpf_map_lookup_elem(&actlog, &idx);
	if (!r)
		return NULL;
	r->ts_ns = 0;		/* the caller's: the same clock read as the aggregation's */
	r->ptr = 0;
	r->dur_ns = 0;
	r->gfp = 0;
	r->size = 0;
	r->ret = 0;
	r->act_seq = act_seq;
	r->type = type;
	r->src = src;
	r->site = 0;
	r->ok = 0;
	r->cpu = bpf_get_smp_processor_id();
	return r;
}

/* Publish the record (a locked add, fully ordered on x86: the record is
 * visible first); wake the consumer every FGT_LOG_WAKE records.
 * The add's result is not used: an atomic with fetch (BPF_FETCH) needs 5.12,
 * and 5.10's verifier refuses it ("BPF_STX uses reserved fields"). The new
 * head is known anyway, only this thread writes log_head (log_rec()). */
static __always_inline void log_commit(void)
{
	__u64 head = log_head + 1;
	struct fgt_event *e;

	__sync_fetch_and_add(&log_head, 1);

	if (head & (FGT_LOG_WAKE - 1))
		return;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return;		/* the next quarter, or ACT_END, wakes it */
	__builtin_memset(e, 0, sizeof(*e));
	e->type = FGT_EV_LOG;
	e->ts_ns = bpf_ktime_get_ns();
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
}

static __always_inline bool in_act(void)
{
	return act_tid && act_tid == cur_tid();
}

/*
 * fgraph_stack_cachep, once fgraph created it: register_ftrace_graph() makes
 * the cache on first use, before the 0->1 step's ret_stack_list, and never
 * destroys it (6.13+). Read by act_begin(), by probe_graph_active (userspace
 * test-runs it before attaching and on every poll: fgraph may have been
 * active before we started) and inside an activation by cache_is_fgraph();
 * after that the hot path compares a pointer and calls no helper.
 */
static __always_inline void read_cachep(void)
{
	__u64 c = 0;

	if (!kconf.cachep_addr || hot.cachep)
		return;
	bpf_probe_read_kernel(&c, sizeof(c), (void *)kconf.cachep_addr);
	if (c)
		hot.cachep = c;
}

__noinline int agg_act_begin(__u32 src, __u64 list, __s32 stack_id)
{
	struct fgt_agg_begin b = { .src = src, .has_who = 1, .stack_id = stack_id };
	struct fgt_event *e;
	__u64 id = bpf_get_current_pid_tgid();

	read_cachep();
	act_tid = (__u32)id;
	act_list = list;
	hot.walk_lo = kconf.sweep_lo;
	hot.walk_span = kconf.sweep_lo ? kconf.sweep_hi - kconf.sweep_lo : 0;
	hot.walk_hot = 0;
	act_lost = 0;
	act_seq++;
	if (kconf.nr_threads_addr) {
		int v = 0;

		bpf_probe_read_kernel(&v, sizeof(v), (void *)kconf.nr_threads_addr);
		b.nr_threads = v;
	}
	b.who.pid = id >> 32;
	b.who.tid = (__u32)id;
	bpf_get_current_comm(b.who.comm, sizeof(b.who.comm));
	b.ts = act_begin_ns = bpf_ktime_get_ns();
	fgt_agg_touch(&hot.agg, b.ts);
	hot.agg.res_trust = kconf.cachep_addr != 0;	/* FGT_AGG_RES_TRUST(), for readers */
	fgt_agg_act_begin(&hot.agg, NULL, &b);
	hot.agg.act.seq = hot.agg.seq = act_seq;	/* one count: the log's and the messages' */
	e = reserve(FGT_EV_ACT_BEGIN, src);
	if (!e)
		return 0;
	e->ts_ns = b.ts;
	e->act_seq = act_seq;
	e->nr_threads = b.nr_threads;
	e->ptr = list;
	e->stack_id = b.stack_id;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* The 0->1 step began: its stack (which needs the program's context), then
 * the rest. */
static __always_inline void act_begin(void *ctx, __u32 src, __u64 list)
{
	agg_act_begin(src, list, bpf_get_stackid(ctx, &stacks, 0));
}


/*
 * The activation's end (complete) or, at the next ACT_BEGIN, its lost END:
 * the state goes out whole, led by its header (hot.agg.act_ev, at offset 0: an
 * ACT_END event as --events prints it, ok = complete), and the consumer
 * finishes it with bpf/agg.h's own code (src/model/agg_collect.c fgt_agg_collect_end()),
 * so that none of that code is in the programs: the verifier's time goes by
 * their instructions. No wake-up: the tracer switch goes on after the 0->1
 * step (register_ftrace_graph() patches call sites), and a consumer woken
 * now, on the same CPU, would finish the record inside the time we measure;
 * its next poll (100 ms at most) picks it up. With no room in the ring the
 * state stays as it is: the next ACT_BEGIN, or fgraphtop's exit, finds it
 * under way and reports what it has.
 */
static __always_inline void agg_send_end(__u64 end_ns, int complete, __s32 ret)
{
	struct fgt_event *e = &hot.agg.act_ev;

	e->type = FGT_EV_ACT_END;
	e->src = hot.agg.act.src;
	e->ts_ns = end_ns;
	e->dur_ns = end_ns - hot.agg.act.begin_ns;
	e->ret = ret;
	e->ok = complete;
	e->ptr = act_list;
	e->act_seq = hot.agg.act.seq;
	e->lost = act_lost;
	e->pid = hot.agg.act.pid;
	e->tid = hot.agg.act.tid;
	e->cpu = bpf_get_smp_processor_id();
	e->stack_id = -1;
	__builtin_memcpy(e->comm, hot.agg.act.comm, sizeof(e->comm));
	if (bpf_ringbuf_output(&events, &hot.agg, sizeof(hot.agg), BPF_RB_NO_WAKEUP)) {
		count_lost();
		return;
	}
	hot.agg.act.active = 0;
	fgt_agg_fast_set(&hot.agg);
}

/* The end at ts (0: now, else the activation's latest event's time). */
__noinline int agg_act_end(int ret, __u64 at)
{
	__u64 ts = at ? at : bpf_ktime_get_ns();

	fgt_agg_touch(&hot.agg, ts);
	fgt_agg_act_end(&hot.agg, NULL, ts, ret, 0);
	hot.walk_span = 0;
	hot.walk_hot = 0;
	act_tid = 0;
	act_list = 0;
	return 0;
}

static __always_inline void act_end(__u32 src, int ret)
{
	agg_act_end(ret, 0);
}

static __always_inline bool known_site(__u64 a)
{
	return in_range(a, kconf.sweep_lo, kconf.sweep_hi) ||
	       in_range(a, kconf.start_lo, kconf.start_hi) ||
	       in_range(a, kconf.fork_lo, kconf.fork_hi) ||
	       in_range(a, kconf.idle_lo, kconf.idle_hi);
}

#define CALLER_DEPTH 16


/*
 * The first fgraph frame on the stack, 0 if none: the first frame in the
 * union of the sites' ranges, if it is one of the sites. Nothing of fgraph's
 * runs between an allocator and its caller, so that frame is the caller; and
 * the loop makes one comparison a frame. Out of real_call_site():
 * zeroing ips[] on every shadow-stack allocation cost 17 stores before the
 * common case (call_site itself in range) returned. A loop, not unrolled:
 * unrolled it was 457 instructions, copied into each program that calls it,
 * and the verifier's time goes by a program's instructions (7.2's
 * compute_live_registers() took most of it): 16 ms of start-up on lab-stock
 * under qemu instruction counting. It runs only for the rare allocations
 * from outside the kernel's text.
 */
static __noinline __u64 stack_call_site(void *ctx)
{
	__u64 ips[CALLER_DEPTH] = {};
	__u64 span = sites_hi - sites_lo, ip = 0;
	long n;

	n = bpf_get_stack(ctx, ips, sizeof(ips), 0);
#pragma clang loop unroll(disable)
	for (int i = 0; i < CALLER_DEPTH; i++) {
		if (i * 8 >= n)
			break;
		if (ips[i] - sites_lo < span) {
			ip = ips[i];
			break;
		}
	}
	return ip && known_site(ip) ? ip : 0;
}
/*
 * The tracepoints' call_site is the allocator's _RET_IP_. It is not its caller
 * when a BPF trampoline called the allocator (our own lat_* fentry/fexit while
 * fgraph is active, or any other tool's, even during an activation), or when
 * function_graph rewrote the return address (return_to_handler). Either way
 * it lies outside the kernel's own text or is return_to_handler: then the
 * caller is found on the stack (the unwinder steps over both), 0 if no fgraph
 * frame is there (hidden). Only shadow-stack allocations come here, and only
 * those from outside the kernel's text (modules on kmalloc kernels, besides
 * the cases above) pay for the walk.
 */
static __always_inline __u64 real_call_site(void *ctx, __u64 call_site)
{
	if (known_site(call_site))
		return call_site;
	if (call_site != kconf.rth_addr &&
	    (!kconf.text_lo || in_range(call_site, kconf.text_lo, kconf.text_hi)))
		return call_site;	/* some other caller in the kernel */
	return stack_call_site(ctx);
}

/* Which fgraph path made this shadow-stack-sized allocation? */
static __always_inline __u32 classify(__u64 call_site)
{
	__u32 tid;

	if (in_range(call_site, kconf.idle_lo, kconf.idle_hi))
		return FGT_SITE_IDLE;
	if (in_range(call_site, kconf.fork_lo, kconf.fork_hi))
		return FGT_SITE_FORK;
	if (in_range(call_site, kconf.sweep_lo, kconf.sweep_hi))
		return FGT_SITE_SWEEP;
	tid = cur_tid();
	if (kconf.direct_act && act_tid == tid)
		return FGT_SITE_SWEEP;
	/* function_graph rewrote the allocator's return address, or a
	 * trampoline hid it, and the stack showed no fgraph frame
	 * (real_call_site() gave 0): judge by context. Inside copy_process()
	 * while fgraph is active, a shadow stack is ftrace_graph_init_task()'s. */
	if (!call_site && bpf_map_lookup_elem(&in_fork, &tid))
		return FGT_SITE_FORK;
	return FGT_SITE_UNKNOWN;
}

/* --events: the allocation as a record of the activation log. */
static __always_inline void log_alloc(__u64 ts, __u64 ptr, __u32 site, __u32 gfp, __u32 size)
{
	struct fgt_rec *r = log_rec(FGT_EV_ALLOC, FGT_SRC_ATTRIBUTED);

	if (!r)
		return;
	r->ts_ns = ts;
	r->ptr = ptr;
	r->site = site;
	r->gfp = gfp;
	r->size = size;
	r->ok = ptr != 0;
	log_commit();
}

__noinline int agg_sweep_open(__u64 begin_ns, int expl, __u64 gap_from)
{
	fgt_agg_sweep_open(&hot.agg, NULL, begin_ns, expl, gap_from);
	return 0;
}

/* fgt_agg_alloc()'s cold part (FGT_AGG_ALLOC_COLD): 2 if a stock
 * kernel's next batch, which needs no log (no --events: no fast path). */
__noinline int agg_alloc_cold(__u64 ts, __u64 ptr, __u32 gfp)
{
	return fgt_agg_alloc_cold(&hot.agg, NULL, ts, FGT_SRC_ATTRIBUTED, NULL, ptr, gfp,
				  ptr != 0, 0);
}

__noinline int agg_idle(__u64 ts)
{
	fgt_agg_touch(&hot.agg, ts);
	fgt_agg_idle(&hot.agg, ts);
	return 0;
}

__noinline int agg_free(__u64 ts, __u64 ptr)
{
	fgt_agg_touch(&hot.agg, ts);
	fgt_agg_free(&hot.agg, NULL, ts, 0, NULL, ptr);	/* no src: never an implicit start */
	return 0;
}

__noinline int agg_sweep_begin(__u64 ts)
{
	fgt_agg_touch(&hot.agg, ts);
	fgt_agg_sweep_begin(&hot.agg, NULL, ts, FGT_SRC_DIRECT, NULL);
	return 0;
}

__noinline int agg_sweep_end(__u64 ts, int ret)
{
	fgt_agg_touch(&hot.agg, ts);
	fgt_agg_sweep_end(&hot.agg, NULL, ts, ret);
	return 0;
}

/* A shadow stack of the walk: into the activation's figures (bpf/agg.h),
 * its fast path inline. trusted: FGT_AGG_RES_TRUST, a constant where the
 * caller runs only on kernels whose stacks have their own cache. */
static __always_inline void sweep_alloc(struct fgt_hot *h, const __u64 *args, int gfp_arg,
					int trusted)
{
	__u64 ts = bpf_ktime_get_ns();
	/* the tracepoint's ptr and gfp_flags read after the call, from the
	 * context the program keeps anyway: not held across it on the stack */
	__u64 ptr = args[1];
	__u32 gfp = args[gfp_arg];

	if (fgt_agg_alloc(&h->agg, NULL, ts, FGT_SRC_ATTRIBUTED, NULL, ptr, gfp, ptr != 0, 0,
			  trusted))
		return;		/* the fast path: never with --events (FGT_AGG_NO_FAST) */
	if (log_on)
		log_alloc(ts, ptr, FGT_SITE_SWEEP, gfp, shadow_size());
}

/*
 * The walk's own allocations, nearly all an activation makes, are known
 * before anything else, with no helper: their call site is the sweep's code,
 * so real_call_site() and classify() would say SWEEP; and that code runs only
 * inside the 0->1 step (under ftrace_lock), so while one is under way its
 * thread is the only one to get here (in_act()). The last one's call site
 * first (walk_hot): one comparison, where the range takes two.
 */
static __always_inline bool walk_site(struct fgt_hot *h, __u64 call_site)
{
	if (call_site == h->walk_hot)
		return true;
	if (call_site - h->walk_lo >= h->walk_span)
		return false;
	h->walk_hot = call_site;
	return true;
}

/* A shadow-stack-sized allocation walk_site() did not know: true if it is
 * the walk's after all (the caller feeds it to sweep_alloc(), whose fast path
 * is then in the program once). */
static __always_inline bool alloc_seen(void *ctx, __u64 call_site, __u64 ptr, __u32 gfp,
				       __u32 size)
{
	struct fgt_event *e;
	struct inflight *f;
	__u32 site, tid;
	__u64 dur = 0, wake = 0;
	bool act;

	site = classify(real_call_site(ctx, call_site));
	if (site == FGT_SITE_UNKNOWN)
		return false;
	act = in_act();
	if (act && site == FGT_SITE_SWEEP)
		return true;
	/*
	 * A sweep with none under way: a kernel whose fgraph keeps no
	 * ret_stack_list (lab-shape-single, -pinned, -blocking) has no
	 * ACT_BEGIN, and its activation begins at its first allocation, to
	 * be aggregated here as any other; its end comes from userspace
	 * (end_at_sweep). Not before userspace saw fgraph idle: a step
	 * begun before the attach (joined, or its ACT_BEGIN missed) sends its
	 * events through the ring buffer to the assembler.
	 */
	if (site == FGT_SITE_SWEEP && !act_tid && begin_at_sweep && !kconf.direct_act) {
		act_begin(ctx, FGT_SRC_ATTRIBUTED, 0);
		return true;
	}
	/* the idle tasks' stacks, before the first sweep: the fork path's
	 * figures, through the ring buffer as outside an activation */
	if (act && site == FGT_SITE_IDLE) {
		__u64 ts = bpf_ktime_get_ns();

		agg_idle(ts);
		wake = BPF_RB_NO_WAKEUP;	/* not inside the step being timed */
	}
	/*
	 * The kmem tracepoints fire as the allocator returns, so with its fentry
	 * attached (fork path, fgraph active) the allocation's latency is the time
	 * since that fentry. The event goes out here in any case: waiting for the
	 * fexit would lose it unseen if the kernel skipped that fexit (recursion),
	 * as one failed fork-path allocation was in the lab. The sweep path's
	 * latency is the gap between the sweep's events (src/model/activation.c).
	 */
	if (site != FGT_SITE_SWEEP && lat_on) {
		tid = cur_tid();
		f = bpf_map_lookup_elem(&inflight, &tid);
		if (f && f->start_ns)
			dur = bpf_ktime_get_ns() - f->start_ns;
	}
	e = reserve(FGT_EV_ALLOC, FGT_SRC_ATTRIBUTED);
	if (!e)
		return false;
	/* the walk's own, outside an activation we saw begin: fgraphtop
	 * joined it under way, and the trigger's stack, read by no unwinder
	 * while it runs on another CPU, is taken here, in its context */
	if (site == FGT_SITE_SWEEP)
		e->stack_id = bpf_get_stackid(ctx, &stacks, 0);
	e->ptr = ptr;
	e->site = site;
	e->gfp = gfp;
	e->size = size;
	e->ok = ptr != 0;
	e->dur_ns = dur;
	bpf_ringbuf_submit(e, wake);
	return false;
}

/* ================= attributed path: kmem tracepoints =================
 * raw_tp, not tp_btf: their `const void *ptr` argument makes tp_btf refuse to
 * read it up to at least 6.12 ("func 'kmalloc' arg1 type UNKNOWN is not a
 * struct"; 7.2's verifier reads void * arguments as scalars). raw_tp reads the
 * same arguments untyped, with the same cost.
 * Prototypes identical in 6.1, 6.12 and 7.2 (include/trace/events/kmem.h):
 *   kmalloc(call_site, ptr, bytes_req, bytes_alloc, gfp_flags, node)
 *   kmem_cache_alloc(call_site, ptr, s, gfp_flags, node)
 *   kfree(call_site, ptr)
 *   kmem_cache_free(call_site, ptr, s)
 */
/* gfp_flags's place among them, for sweep_alloc() (ptr is always second) */
#define KMALLOC_GFP_ARG		4
#define KMEM_CACHE_ALLOC_GFP_ARG	3

/* The ret_stack_list's kmalloc: the activation begins (attributed). No
 * stack walk for it: 256-byte kmallocs from modules are common, and no
 * trampoline of ours is on kmalloc during a 0->1 step. */
static __always_inline void list_seen(void *ctx, __u64 call_site, __u64 ptr, __u64 bytes_req)
{
	if (bytes_req != kconf.list_bytes || !ptr ||
	    !in_range(call_site, kconf.start_lo, kconf.start_hi))
		return;
	if (!kconf.direct_act)
		act_begin(ctx, FGT_SRC_ATTRIBUTED, ptr);
	else if (act_tid == cur_tid())
		act_list = ptr;	/* so that its kfree is not taken for a stack */
}

SEC("raw_tp/kmalloc")
int BPF_PROG(tp_kmalloc, unsigned long call_site, const void *ptr,
	     size_t bytes_req, size_t bytes_alloc, gfp_t gfp_flags)
{
	if (bytes_req == shadow_size() && !kconf.cachep_addr) {
		struct fgt_hot *h = hot_reg();

		if (walk_site(h, call_site) ||
		    alloc_seen(ctx, call_site, (__u64)ptr, gfp_flags, bytes_req))
			sweep_alloc(h, ctx, KMALLOC_GFP_ARG, FGT_AGG_RES_TRUST(&h->agg));
		return 0;
	}
	list_seen(ctx, call_site, (__u64)ptr, bytes_req);
	return 0;
}

/*
 * tp_kmalloc where stacks have their own cache (6.13+; the plan loads it
 * instead: fgt_probe_rows' cache_progs): a kmalloc is only ever the list, so
 * none of the stacks' code is in it. The verifier's time goes by all of a
 * program's instructions, the dead ones too (7.2's passes over the whole
 * program): 2,100 of them made tp_kmalloc the slowest to load.
 */
SEC("raw_tp/kmalloc")
int BPF_PROG(tp_kmalloc_list, unsigned long call_site, const void *ptr, size_t bytes_req)
{
	list_seen(ctx, call_site, (__u64)ptr, bytes_req);
	return 0;
}

/* s->object_size, at the offset the plan read from BTF (kconf). */
static __always_inline __u32 cache_object_size(const struct kmem_cache *s)
{
	__u32 size = 0;

	bpf_probe_read_kernel(&size, sizeof(size), (const char *)s + kconf.cache_size_off);
	return size;
}

static __always_inline bool cache_is_fgraph(const struct fgt_hot *h, struct kmem_cache *s,
					    __u64 call_site)
{
	__u64 c = h->cachep;

	/* the cache, first: a walk's allocation takes one test (s is never 0) */
	if ((__u64)s == c)
		return true;
	if (c)
		return false;
	/*
	 * Not read yet: outside an activation, no stack can come from the cache
	 * before one of its readers ran (read_cachep()), so every allocation of
	 * the system is rejected here with no helper call; that was 124 of the
	 * 170 ns (lab, icount) this program cost per allocation before any
	 * activation. During one whose ACT_BEGIN came before the cache existed
	 * (the direct path's fentry on register_ftrace_graph, which creates
	 * it), read it here; most caches fail the size test first. A merged
	 * cache's object_size can exceed ours by less than a word. So too for
	 * an allocation from the sweep's own code with none under way: a
	 * kernel whose fgraph keeps no ret_stack_list has no ACT_BEGIN, and
	 * its first walk comes from the cache that step creates (two compares,
	 * no helper, for the rest of the system).
	 */
	if ((!act_tid && !in_range(call_site, kconf.sweep_lo, kconf.sweep_hi)) ||
	    !kconf.cachep_addr || !kconf.cache_size_off ||
	    cache_object_size(s) - shadow_size() >= 8)
		return false;
	read_cachep();
	c = h->cachep;
	return c && (__u64)s == c;
}

/* The arguments read as they are needed, not all at entry (BPF_PROG()):
 * nearly every allocation of the system is rejected on its cache alone. */
SEC("raw_tp/kmem_cache_alloc")
int tp_kmem_cache_alloc(__u64 *ctx)
{
	struct fgt_hot *h = hot_reg();
	__u64 call_site;

	if (!cache_is_fgraph(h, (struct kmem_cache *)ctx[2], ctx[0]))
		return 0;
	call_site = ctx[0];
	if (walk_site(h, call_site) ||
	    alloc_seen(ctx, call_site, ctx[1], ctx[KMEM_CACHE_ALLOC_GFP_ARG], shadow_size()))
		/* loaded only where stacks come from fgraph_stack_cachep (its
		 * row needs the cache): every free passed on is the reserve's */
		sweep_alloc(h, ctx, KMEM_CACHE_ALLOC_GFP_ARG, 1);
	return 0;
}

/*
 * A free from fgraph's code. `stack`: it may be a shadow stack's. Where stacks
 * have their own cache (6.13+) only that cache's frees are, so that the
 * aggregation trusts every one it is given (bpf/agg.h res_trust) and keeps
 * no set of the reserve's pointers; a kfree() there can only be the
 * ret_stack_list's, or lab-fixed-plus's kvfree() of its reserve array.
 * `list`: it may be the ret_stack_list's, kmalloc'd (a kfree()).
 */
static __always_inline void free_seen(__u64 call_site, __u64 ptr, bool stack, bool list)
{
	struct fgt_event *e;
	struct fgt_rec *r;
	__u32 src;
	__u64 ts;

	if (call_site < frees_lo || call_site >= frees_hi)
		return;
	if (in_range(call_site, kconf.exit_lo, kconf.exit_hi)) {
		if (!kconf.want_exits || !stack)
			return;
		e = reserve(FGT_EV_TASK_EXIT, FGT_SRC_ATTRIBUTED);
		if (e) {
			e->ptr = ptr;
			e->target_tid = cur_tid();
			bpf_ringbuf_submit(e, 0);
		}
		return;
	}
	if (!in_range(call_site, kconf.sweep_lo, kconf.sweep_hi) &&
	    !in_range(call_site, kconf.start_lo, kconf.start_hi))
		return;
	if (!ptr)
		return;
	if (!in_act()) {
		/* none under way here: the walk's allocations reach the
		 * assembler as events (alloc_seen()), and so must its frees: a
		 * kernel whose fgraph keeps no ret_stack_list (lab-shape-
		 * blocking frees its unused slack), or a step joined under way */
		if (!act_tid && stack) {
			e = reserve(FGT_EV_FREE, FGT_SRC_ATTRIBUTED);
			if (e) {
				e->ptr = ptr;
				e->site = FGT_SITE_SWEEP;
				bpf_ringbuf_submit(e, 0);
			}
		}
		return;
	}
	if (list && ptr == act_list) {
		if (!kconf.direct_act)
			act_end(FGT_SRC_ATTRIBUTED, 0);
		return;
	}
	if (!stack)
		return;
	src = kconf.direct_act ? FGT_SRC_DIRECT : FGT_SRC_ATTRIBUTED;
	ts = bpf_ktime_get_ns();
	agg_free(ts, ptr);
	if (!log_on)
		return;
	r = log_rec(FGT_EV_FREE, src);
	if (r) {
		r->ts_ns = ts;
		r->ptr = ptr;
		r->site = FGT_SITE_SWEEP;
		log_commit();
	}
}

SEC("raw_tp/kfree")
int BPF_PROG(tp_kfree, unsigned long call_site, const void *ptr)
{
	free_seen(call_site, (__u64)ptr, true, true);
	return 0;
}

/* tp_kfree where stacks have their own cache (cache_progs, as
 * tp_kmalloc_list): a kfree() from fgraph's code is never a stack there. */
SEC("raw_tp/kfree")
int BPF_PROG(tp_kfree_list, unsigned long call_site, const void *ptr)
{
	free_seen(call_site, (__u64)ptr, false, true);
	return 0;
}

/* Only fgraph_stack_cachep's: once it is known (the activation read it
 * before any stack of its was freed), every other cache's free is no stack. */
SEC("raw_tp/kmem_cache_free")
int BPF_PROG(tp_kmem_cache_free, unsigned long call_site, const void *ptr,
	     struct kmem_cache *s)
{
	__u64 c = hot.cachep;

	if (!kconf.cachep_addr || (c && (__u64)s != c))
		return 0;
	free_seen(call_site, (__u64)ptr, true, false);	/* the list is kmalloc'd */
	return 0;
}

/* The new task itself: did ftrace_graph_init_task() give it a stack? */
SEC("tp_btf/task_newtask")
int BPF_PROG(tp_task_newtask, struct task_struct *task, __u64 clone_flags)
{
	struct fgt_event *e;
	int active = graph_active();

	last_graph_active = active;
	newtask_seen++;
	if (!active || kconf.direct_fork)
		return 0;
	e = reserve(FGT_EV_TASK_NEW, FGT_SRC_ATTRIBUTED);
	if (!e)
		return 0;
	task_stack(task, &e->target_tid, &e->ok);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* Fork-path context while fgraph is active. Always attached (a fork's cost, not
 * an allocation's): function_graph may rewrite the allocator's return address as
 * soon as it is on, before the lat_* programs are (src/watch/attach.c). */
/* Entries fork_enter put in in_fork and fork_exit has not taken out: while
 * there are none, fork_exit has nothing to delete and skips the hash delete
 * (136 of its 208 ns per fork, lab, icount). */
__u64 in_fork_n;

SEC("fentry/copy_process")
int BPF_PROG(fork_enter)
{
	__u32 tid;
	__u8 one = 1;

	if (!graph_active())
		return 0;
	tid = cur_tid();
	if (!bpf_map_update_elem(&in_fork, &tid, &one, BPF_ANY))
		__sync_fetch_and_add(&in_fork_n, 1);
	return 0;
}

SEC("fexit/copy_process")
int BPF_PROG(fork_exit)
{
	__u32 tid = cur_tid();

	if (in_fork_n && !bpf_map_delete_elem(&in_fork, &tid))
		__sync_fetch_and_add(&in_fork_n, -1);
	return 0;
}

/* ================= allocator latency: fentry/fexit =================
 * Three shapes (enum fgt_alloc_shape); src/watch/plan.c picks the functions this
 * kernel uses (fgt_alloc_fns in src/facts/kfacts.c) and src/watch/attach.c sets the
 * attach targets at run time.
 * Attached only while fgraph is active (src/watch/attach.c): they put a trampoline
 * on every allocation of the system, so they serve the fork path only. */

/* Only for shadow-stack allocations while fgraph is active: when it started.
 * Not in an activation's walk: the lat_* programs are detached while fgraph is off. */
static __always_inline void lat_enter(void)
{
	struct inflight f = {};
	__u32 tid;

	if (!graph_active())
		return;
	tid = cur_tid();
	f.start_ns = bpf_ktime_get_ns();
	bpf_map_update_elem(&inflight, &tid, &f, BPF_ANY);
}

/* The allocation is over (the tracepoint has emitted it): forget it, so that
 * a later allocation whose fentry was skipped finds no stale start time. */
static __always_inline void lat_exit(void)
{
	__u32 tid = cur_tid();

	bpf_map_delete_elem(&inflight, &tid);
}

/* kmem_cache_alloc(s, gfp) shape */
SEC("fentry")
int BPF_PROG(lat_cache_enter, struct kmem_cache *s, gfp_t gfp)
{
	if (cache_is_fgraph(&hot, s, 0))
		lat_enter();
	return 0;
}

SEC("fexit")
int BPF_PROG(lat_cache_exit, struct kmem_cache *s, gfp_t gfp, void *ret)
{
	if (cache_is_fgraph(&hot, s, 0))
		lat_exit();
	return 0;
}

/* kmalloc_trace / __kmalloc_cache_noprof(s, gfp, size) shape */
SEC("fentry")
int BPF_PROG(lat_csize_enter, struct kmem_cache *s, gfp_t gfp, size_t size)
{
	if (size == shadow_size() && !kconf.cachep_addr)
		lat_enter();
	return 0;
}

SEC("fexit")
int BPF_PROG(lat_csize_exit, struct kmem_cache *s, gfp_t gfp, size_t size, void *ret)
{
	if (size == shadow_size() && !kconf.cachep_addr)
		lat_exit();
	return 0;
}

/* __kmalloc / __kmalloc_noprof(size, gfp) shape */
SEC("fentry")
int BPF_PROG(lat_size_enter, size_t size, gfp_t gfp)
{
	if (size == shadow_size() && !kconf.cachep_addr)
		lat_enter();
	return 0;
}

SEC("fexit")
int BPF_PROG(lat_size_exit, size_t size, gfp_t gfp, void *ret)
{
	if (size == shadow_size() && !kconf.cachep_addr)
		lat_exit();
	return 0;
}

/* Test-run by userspace (BPF_PROG_TEST_RUN, never attached): is fgraph active
 * now? Decides when the lat_* programs are attached. */
SEC("raw_tp")
int probe_graph_active(void *ctx)
{
	graph_active_probe = graph_active();
	read_cachep();
	return 0;
}

/*
 * Test-run by userspace (never attached) once the walker of an activation
 * begun at a sweep's allocation (no ret_stack_list: alloc_seen()) has left
 * register_ftrace_graph(): its end, complete, at its latest event. ctx[0]:
 * that walker's tid, so that an activation begun since is left alone.
 */
SEC("raw_tp")
int end_at_sweep(__u64 *ctx)
{
	__u32 tid = (__u32)ctx[0];

	if (!tid || act_tid != tid || act_list || kconf.direct_act)
		return 0;
	fgt_agg_sync(&hot.agg);
	agg_act_end(0, hot.agg.last_ts);
	return 0;
}

/* ================= direct path: the fgraph functions themselves ================= */

/* start_graph_tracing() runs only on the 0 -> 1 step. */
SEC("fentry/start_graph_tracing")
int BPF_PROG(d_start_enter)
{
	act_begin(ctx, FGT_SRC_DIRECT, 0);
	return 0;
}

SEC("fexit/start_graph_tracing")
int BPF_PROG(d_start_exit, int ret)
{
	if (act_tid == cur_tid())
		act_end(FGT_SRC_DIRECT, ret);
	return 0;
}

/* register_ftrace_graph() holding the inlined start_graph_tracing(): only the
 * call that finds ftrace_graph_active == 0 is a 0 -> 1 step. */
SEC("fentry/register_ftrace_graph")
int BPF_PROG(d_reg_enter)
{
	if (graph_active() == 0)
		act_begin(ctx, FGT_SRC_DIRECT, 0);
	return 0;
}

SEC("fexit/register_ftrace_graph")
int BPF_PROG(d_reg_exit, void *gops, int ret)
{
	if (act_tid == cur_tid())
		act_end(FGT_SRC_DIRECT, ret);
	return 0;
}

SEC("fentry/alloc_retstack_tasklist")
int BPF_PROG(d_sweep_enter)
{
	__u64 ts = bpf_ktime_get_ns();
	struct fgt_rec *r;

	sweep_begin_ns = ts;
	if (!in_act())
		return 0;	/* began before we did: the next ACT_BEGIN resyncs */
	agg_sweep_begin(ts);
	if (!log_on)
		return 0;
	r = log_rec(FGT_EV_SWEEP_BEGIN, FGT_SRC_DIRECT);
	if (r) {
		r->ts_ns = ts;
		log_commit();
	}
	return 0;
}

SEC("fexit/alloc_retstack_tasklist")
int BPF_PROG(d_sweep_exit, void *list, int ret)
{
	struct fgt_rec *r;
	__u64 ts;

	if (!in_act())
		return 0;
	ts = bpf_ktime_get_ns();
	agg_sweep_end(ts, ret);
	if (!log_on)
		return 0;
	r = log_rec(FGT_EV_SWEEP_END, FGT_SRC_DIRECT);
	if (r) {
		r->ts_ns = ts;
		r->ret = ret;
		r->dur_ns = ts - sweep_begin_ns;
		log_commit();
	}
	return 0;
}

SEC("fexit/ftrace_graph_init_task")
int BPF_PROG(d_fork_exit, struct task_struct *t)
{
	struct fgt_event *e;

	if (!graph_active())
		return 0;
	e = reserve(FGT_EV_TASK_NEW, FGT_SRC_DIRECT);
	if (!e)
		return 0;
	task_stack(t, &e->target_tid, &e->ok);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* ================= the exposure's task iterator (bpf/exposure.h) =================
 * Loaded with the programs above when the session counts the threads lacking
 * a stack (src/watch/session.c): one load, one parse of vmlinux BTF. Never
 * attached to anything; each read of its iterator is one pass. */
bool exp_no_ret_stack = false;

SEC("iter/task")
int exp_count_lacking(struct fgt_iter_task *ctx)
{
	return fgt_exp_task(ctx, &exp_no_ret_stack);
}
