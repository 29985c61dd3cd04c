// SPDX-License-Identifier: GPL-2.0
/*
 * The static verdict's glue (src/static/static_check.h, fgt_static_check): find the
 * function holding the sweep, read its text, size the shadow stack, decode.
 * Reads only: kallsyms, /proc/kcore (or one BPF_PROG_TEST_RUN of a program
 * that is never attached, src/static/kread_bpf.c), BTF; or a kernel file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "host/kbtf.h"
#include "host/kernel_id.h"
#include "common/clock.h"
#include "common/readall.h"
#include "static/kimage.h"
#include "static/kimage_boot.h"
#include "static/kimage_elf.h"
#include "static/kimage_ident.h"
#include "static/kimage_kallsyms.h"
#include "static/kimage_kcore.h"
#include "static/kimage_syms.h"
#include "common/log.h"
#include "static/static_check.h"
#include "static/static_kernel.h"
#include "static/refs.h"

/* A function bigger than this is not the one we know (register_ftrace_graph: 2-3 KiB). */
#define MAX_FUNC	(64u << 10)

/* The running kernel's code is this machine's, where no ELF header says
 * (the BPF read, without kcore). */
#if defined(__aarch64__)
#define HOST_ARCH	FGT_ARCH_ARM64
#else
#define HOST_ARCH	FGT_ARCH_X86_64
#endif


static double now_ms(void)
{
	return (double)fgt_mono_ns() / 1e6;
}

static enum fgt_verdict fail(struct fgt_static_result *r, int why, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum fgt_verdict fail(struct fgt_static_result *r, int why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->evidence, sizeof(r->evidence), fmt, ap);
	va_end(ap);
	r->why = (enum fgt_static_why)why;
	return r->verdict = FGT_VERDICT_UNKNOWN;
}

struct ctx {
	const struct fgt_static_opts *o;
	struct fgt_static_result *r;
	struct fgt_kimage im;
	bool have_im;
	struct fgt_ksyms *ks_owned;
	const struct fgt_ksyms *ks;
	uint8_t *text[FGT_STATIC_MAX_PARTS];
	uint8_t *ctext[FGT_STATIC_MAX_CALLER_PARTS];	/* the caller's, where out of line */
	char caller[64];
	/* the running kernel's kallsyms from its memory, and the symbols taken */
	struct fgt_kmem *km;
	long *sel;
	size_t nr_sel, cap_sel;
	int kcore_why;			/* why kcore could not be opened, 0 if it was */
	/* the kernel's BTF, read once (kernel_btf) */
	struct fgt_btf_stack btf;
	bool btf_read, btf_found;
	int btf_err;
	char kcore_msg[200];
	/* the profile (-v): each step's name and when it ended */
	const char *lap_what[16];
	double lap_t[16];
	unsigned int nr_laps;
};

/*
 * A step ends: its time is noted, and formatted only for -v once the answer's
 * time is taken (snprintf("%.1f") in the timed path ran glibc's float
 * formatting for the first time there: its translation under TCG went into
 * the first answer after boot).
 */
static void lap(struct ctx *c, const char *what)
{
	if (c->nr_laps < sizeof(c->lap_t) / sizeof(c->lap_t[0])) {
		c->lap_what[c->nr_laps] = what;
		c->lap_t[c->nr_laps++] = now_ms();
	}
}

/* "kcore 0.9, vmcoreinfo 3.2, ...": each step's time since the one before. */
static void laps_text(const struct ctx *c, double t0, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < c->nr_laps && o < len; i++) {
		int n = snprintf(buf + o, len - o, "%s%s %.1f", i ? ", " : "", c->lap_what[i],
				 c->lap_t[i] - (i ? c->lap_t[i - 1] : t0));

		if (n < 0)
			break;
		o += (size_t)n;
	}
}

/* ---- the running kernel's symbols from kcore (VMCOREINFO) ------------------- */

static void select_sym(struct ctx *c, long i)
{
	long *p;

	if (i < 0)
		return;
	for (size_t k = 0; k < c->nr_sel; k++)
		if (c->sel[k] == i)
			return;
	if (c->nr_sel == c->cap_sel) {
		p = realloc(c->sel, (c->cap_sel ? c->cap_sel * 2 : 64) * sizeof(*p));
		if (!p)
			return;
		c->sel = p;
		c->cap_sel = c->cap_sel ? c->cap_sel * 2 : 64;
	}
	c->sel[c->nr_sel++] = i;
}

/* The symbols taken so far as a table (each with the next one, for its size). */
static int kmem_table(struct ctx *c)
{
	fgt_ksyms_free(c->ks_owned);
	c->ks_owned = fgt_kmem_table(c->km, c->sel, c->nr_sel);
	c->ks = c->ks_owned;
	return c->ks ? 0 : -1;
}

/* Every name the decoder and the glue look up, by name. */
static size_t wanted(const char **names, char (*buf)[96], size_t max)
{
	size_t n = 0, b = 0;

#define WANT(s) do { if (n < max) names[n++] = (s); } while (0)
	for (int i = 0; i < FGT_SYM__NR; i++)
		WANT(fgt_sym_name(i));
	for (size_t i = 0; i < fgt_nr_alloc_fns; i++)
		WANT(fgt_alloc_fns[i].name);
	for (size_t i = 0; i < fgt_nr_walk_calls; i++)
		WANT(fgt_walk_calls[i].name);
	for (size_t i = 0; i < fgt_nr_text_facts; i++)
		if (!fgt_text_facts[i].prefix)
			WANT(fgt_text_facts[i].name);
	snprintf(buf[b], sizeof(buf[b]), "%s.cold", fgt_sym_name(FGT_SYM_REGISTER));
	WANT(buf[b++]);
	snprintf(buf[b], sizeof(buf[b]), "%s.cold", fgt_sym_name(FGT_SYM_SWEEP));
	WANT(buf[b++]);
#undef WANT
	return n;
}

/* 0: c->ks holds what was wanted; 1: not available here (the caller reads
 * /proc/kallsyms); -1: failed, with r filled. */
static int kmem_symbols(struct ctx *c)
{
	struct fgt_static_result *r = c->r;
	struct fgt_vmcoreinfo vi;
	const char *names[96];
	char buf[2][96], msg[200];
	long idx[96];
	size_t n;

	c->kcore_why = fgt_kimage_open_kcore(&c->im, c->o->kcore, c->kcore_msg, sizeof(c->kcore_msg));
	lap(c, "kcore");
	if (c->kcore_why)
		return 1;
	c->have_im = true;
	snprintf(r->source, sizeof(r->source), "%s", c->im.desc);
	if (fgt_kimage_vmcoreinfo(&c->im, &vi))
		return 1;	/* before 6.0: no kallsyms tables in VMCOREINFO */
	lap(c, "vmcoreinfo");
	snprintf(r->release, sizeof(r->release), "%s", vi.osrelease);
	snprintf(r->build_id, sizeof(r->build_id), "%s", vi.build_id);
	n = wanted(names, buf, sizeof(names) / sizeof(names[0]));
	c->km = fgt_kmem_open(&c->im, &vi, names, n, idx, msg, sizeof(msg));
	lap(c, "tables");
	if (!c->km) {
		log_info("static: the kallsyms tables in kernel memory: %s; reading /proc/kallsyms", msg);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		select_sym(c, idx[i]);
	snprintf(r->symbols, sizeof(r->symbols), "the kallsyms tables in kernel memory "
		 "(VMCOREINFO; %u symbols)", fgt_kmem_count(c->km));
	if (kmem_table(c))
		return fail(r, FGT_SW_READ, "cannot build the symbol table: %s", strerror(errno)), -1;
	lap(c, "table");
	return 0;
}

static void take_ref(uint64_t a, void *arg)
{
	struct ctx *c = arg;

	select_sym(c, fgt_kmem_at(c->km, a));
}

/* With the text read: the symbols of everything it refers to. */
static int kmem_refs(struct ctx *c, const struct fgt_static_code *code)
{
	fgt_static_refs(code, take_ref, c);
	if (kmem_table(c))
		return fail(c->r, FGT_SW_READ, "cannot build the symbol table: %s", strerror(errno)), -1;
	return 0;
}

/* The BTF file: pread, a page at a time from sysfs (kernfs gives no more).
 * Not counted: the profile's reads (-v) are the kernel image's. */
static int btf_pread(void *arg, uint64_t off, void *buf, size_t len)
{
	return fgt_pread_all(*(int *)arg, buf, len, off, NULL);
}

/* task_struct::ret_stack from a BTF file, read only as far as needed. */
static int btf_file(const char *path, struct fgt_btf_stack *out, bool *found)
{
	char msg[200];
	uint64_t size;
	int err = -1, why;
	/* a regular file (a FIFO in its place is refused, not waited on) */
	int fd = fgt_open_regular(path, FGT_KIMAGE_MAX_SECTION, &size, &why, msg, sizeof(msg));

	*found = fd >= 0;
	if (fd < 0)
		return -1;
	/* sysfs gives /sys/kernel/btf/vmlinux's size: __stop_BTF - __start_BTF */
	if (size > 0) {
		err = fgt_btf_ret_stack_read(btf_pread, &fd, size, out);
	} else {
		/* no size given: read whole, from the file checked, as far
		 * as a section may be (a read error is no BTF) */
		size_t len = 0;
		char *raw;

		if (!fgt_read_all(fd, FGT_KIMAGE_MAX_SECTION, &raw, &len)) {
			err = fgt_btf_ret_stack(raw, len, out);
			free(raw);
		} else {
			*found = false;
		}
	}
	close(fd);
	return err;
}

/*
 * The BTF of the kernel judged: the file's .BTF, or the running kernel's
 * (--btf in tests). *found says whether there is one; the return is
 * fgt_btf_ret_stack()'s. Read once, for the stacks' source and the
 * not-affected evidence alike.
 */
static int kernel_btf(struct ctx *c, struct fgt_btf_stack *out, bool *found)
{
	const void *raw;
	size_t len = 0;

	if (c->btf_read) {
		*out = c->btf;
		*found = c->btf_found;
		return c->btf_err;
	}
	if (c->o->kernel) {
		raw = fgt_kimage_section(&c->im, ".BTF", &len);
		c->btf_found = raw != NULL;
		c->btf_err = raw ? fgt_btf_ret_stack(raw, len, &c->btf) : -1;
	} else if (c->o->btf_known) {
		c->btf_found = true;
		c->btf = c->o->btf_known->stack;
		c->btf_err = c->o->btf_known->err;
	} else {
		c->btf_err = btf_file(c->o->btf ? c->o->btf : "/sys/kernel/btf/vmlinux", &c->btf,
				      &c->btf_found);
	}
	c->btf_read = true;
	*out = c->btf;
	*found = c->btf_found;
	return c->btf_err;
}

/*
 * The kernel's page size: on 6.11 and 6.12 SHADOW_STACK_SIZE is PAGE_SIZE
 * (42675b723b48; 6.13 fixed it at 4096), so a kernel of 16K pages (Debian's
 * linux-image-6.12.*-arm64-16k) allocates 16384-byte stacks. The running
 * kernel's is this process's; an arm64 image says it in its header's flags
 * (Documentation/arch/arm64/booting.rst: bits 1-2, 1: 4K, 2: 16K, 3: 64K;
 * the header is at _text); x86-64 has 4K pages only. 0: not known.
 */
static uint32_t page_size(struct ctx *c)
{
	const struct fgt_ksym *t;
	uint8_t flags[8];
	unsigned int ps;
	long sz;

	if (!c->o->kernel) {
		sz = sysconf(_SC_PAGESIZE);
		return sz > 0 && sz <= (1l << 16) ? (uint32_t)sz : 0;
	}
	if (!c->have_im || c->im.arch != FGT_ARCH_ARM64)
		return c->have_im && c->im.arch == FGT_ARCH_X86_64 ? 4096 : 0;
	t = fgt_ksyms_by_name(c->ks, "_text");
	if (!t || fgt_kimage_read(&c->im, t->addr + 24, flags, sizeof(flags)))
		return 0;
	ps = (flags[0] >> 1) & 3;
	return ps ? 1u << (10 + 2 * ps) : 0;
}

/* Where shadow stacks come from: the cache (6.13+), else BTF decides; and
 * where in task_struct a stack's pointer goes. */
static int stack_source(struct ctx *c, struct fgt_static_kernel *k)
{
	struct fgt_btf_stack bs;
	bool found;
	int err;

	/* the BTF also gives task_struct::ret_stack's offset, which tells a
	 * shadow stack by where its pointer goes (0 where there is no BTF:
	 * the decoder takes the field the walk tests for NULL, and says so) */
	err = kernel_btf(c, &bs, &found);
	if (!err) {
		k->ret_stack_off = bs.off;
		k->tasks_off = bs.tasks_off;
	}
	if (fgt_ksyms_by_name(c->ks, fgt_sym_name(FGT_SYM_STACK_CACHEP))) {
		k->stack_src = FGT_STACK_CACHE;
		return 0;
	}
	if (!found) {
		fail(c->r, FGT_SW_NO_BTF, "no fgraph_stack_cachep, so shadow stacks are kmalloc()ed, "
		     "and their size needs the kernel's BTF, which %s has not",
		     c->o->kernel ? c->o->kernel : "this kernel");
		return -1;
	}
	if (err) {
		fail(c->r, FGT_SW_SHAPE, "no task_struct::ret_stack pointer in the BTF: not a "
		     "shadow stack we know");
		return -1;
	}
	k->stack_src = bs.src;
	k->shadow_bytes = bs.bytes;
	if (bs.src == FGT_STACK_KMALLOC) {
		uint32_t page = page_size(c);

		if (page)
			k->shadow_bytes = page;
	}
	return 0;
}

static int symbols(struct ctx *c)
{
	const struct fgt_static_opts *o = c->o;
	struct fgt_static_result *r = c->r;
	char msg[sizeof(r->evidence)], why[160];
	int err = 0;

	if (o->kernel) {
		err = fgt_kimage_open_file(&c->im, o->kernel, o->stop, msg, sizeof(msg));
		if (err)
			return fail(r, err, "%s", msg), -1;
		c->have_im = true;
		snprintf(r->source, sizeof(r->source), "%s", c->im.desc);
		if (o->system_map) {
			c->ks_owned = fgt_kimage_system_map(&c->im, o->system_map, &err, msg, sizeof(msg));
			snprintf(r->symbols, sizeof(r->symbols), "System.map %s", o->system_map);
		}
		if (o->system_map && !c->ks_owned && c->im.map_placeholder) {
			/* Debian's System.map points at the -dbg package: the
			 * image's own tables answer as they would without it */
			p_warn("system_map_placeholder", "%s; the image's own symbols answer "
			       "instead", msg);
			c->ks_owned = fgt_kimage_symbols(&c->im, r->symbols, sizeof(r->symbols),
							 &err, msg, sizeof(msg));
		} else if (!o->system_map) {
			c->ks_owned = fgt_kimage_symbols(&c->im, r->symbols, sizeof(r->symbols),
							 &err, msg, sizeof(msg));
		}
		if (!c->ks_owned)
			return fail(r, err, "%s", msg), -1;
		c->ks = c->ks_owned;
		fgt_kimage_ident(&c->im, c->ks, r->release, sizeof(r->release), r->build_id,
				 sizeof(r->build_id));
		return 0;
	}
	/* kcore's VMCOREINFO gives the kallsyms tables: no /proc/kallsyms to read */
	if (!o->ks && !o->kallsyms) {
		err = kmem_symbols(c);
		if (err <= 0)
			return err;
	}
	snprintf(r->symbols, sizeof(r->symbols), "%s", o->kallsyms ? o->kallsyms : "/proc/kallsyms");
	c->ks = o->ks;
	if (!c->ks) {
		c->ks = c->ks_owned = fgt_ksyms_load(o->kallsyms);
		if (!c->ks)
			return fail(r, errno == EACCES ? FGT_SW_NO_PERM : FGT_SW_READ, "%s: %s",
				    r->symbols, strerror(errno)), -1;
	}
	if (!fgt_ksyms_have_addrs(c->ks))
		return fail(r, FGT_SW_KSYMS_HIDDEN, "kallsyms addresses are hidden (kernel.kptr_restrict, "
			    "or not root): run as root"), -1;
	if (!fgt_ksyms_sane(c->ks, why, sizeof(why)))
		return fail(r, FGT_SW_KSYMS_HIDDEN, "%s", why), -1;
	return 0;
}

/* Read [addr, addr + len) of the running kernel: kcore, else BPF. */
static int read_running(struct ctx *c, uint64_t addr, void *buf, size_t len)
{
	const struct fgt_static_opts *o = c->o;
	struct fgt_static_result *r = c->r;
	char msg[sizeof(r->evidence)], bmsg[200];
	int err, why;

	if (!c->have_im) {
		if (c->kcore_why) {
			/* tried already (kmem_symbols) */
			why = c->kcore_why;
			snprintf(msg, sizeof(msg), "%s", c->kcore_msg);
		} else {
			why = fgt_kimage_open_kcore(&c->im, o->kcore, msg, sizeof(msg));
		}
		if (!why) {
			c->have_im = true;
			snprintf(r->source, sizeof(r->source), "%s", c->im.desc);
		} else if (!o->no_bpf && o->bpf_read && why != FGT_SW_LOCKDOWN) {
			/* a container without kcore may still let BPF read kernel memory */
			err = o->bpf_read(addr, buf, len, bmsg, sizeof(bmsg));
			if (!err) {
				snprintf(r->source, sizeof(r->source), "kernel memory through BPF "
					 "(bpf_probe_read_kernel; %.180s)", msg);
				return 0;
			}
			return fail(r, why, "%s; and BPF could not read it either: %s", msg, bmsg), -1;
		} else {
			return fail(r, why, "%s", msg), -1;
		}
	}
	err = fgt_kimage_read(&c->im, addr, buf, len);
	if (err)
		return fail(r, FGT_SW_READ, "%s: cannot read %zu bytes at %#lx: %s", c->im.desc, len,
			    (unsigned long)addr, strerror(-err)), -1;
	return 0;
}

int fgt_static_read_running(const struct fgt_static_opts *o, uint64_t addr, void *buf,
			    size_t len, char *msg, size_t mlen)
{
	struct fgt_static_result r = {};
	struct ctx c = { .o = o, .r = &r };
	int err = read_running(&c, addr, buf, len);

	if (c.have_im)
		fgt_kimage_close(&c.im);
	if (err)
		snprintf(msg, mlen, "%s", r.evidence);
	return err;
}

static int read_text(struct ctx *c, uint64_t addr, void *buf, size_t len)
{
	int err;

	if (!c->o->kernel)
		return read_running(c, addr, buf, len);
	err = fgt_kimage_read(&c->im, addr, buf, len);
	if (err)
		return fail(c->r, FGT_SW_READ, "%s: the text at %#lx is not in the image: %s",
			    c->im.desc, (unsigned long)addr, strerror(-err)), -1;
	return 0;
}

/*
 * Is a symbol table that lacks the function a kernel's whole table? The
 * checks /proc/kallsyms gets (src/host/ksyms.c: a plausible count, _stext and
 * _etext), and _stext below _etext. The tables read from kernel memory were
 * checked as they were read (count, _stext where VMCOREINFO says, order).
 */
static bool symbols_whole(struct ctx *c, char *why, size_t len)
{
	const struct fgt_ksym *st, *et;

	if (c->km)
		return true;
	if (!fgt_ksyms_sane(c->ks, why, len))
		return false;
	st = fgt_ksyms_by_name(c->ks, fgt_sym_name(FGT_SYM_STEXT));
	et = fgt_ksyms_by_name(c->ks, fgt_sym_name(FGT_SYM_ETEXT));
	if (st->addr >= et->addr) {
		snprintf(why, len, "_stext (%#llx) is not below _etext (%#llx)",
			 (unsigned long long)st->addr, (unsigned long long)et->addr);
		return false;
	}
	return true;
}

/* What the BTF says: 1: task_struct has no ret_stack; 0: it has one; 2: a
 * member of its shape under another name; -1: broken; -2: no BTF. */
static int btf_says(struct ctx *c)
{
	struct fgt_btf_stack bs;
	bool found;
	int err = kernel_btf(c, &bs, &found);

	if (!found)
		return -2;
	if (err == 1 && bs.shaped)
		return 2;
	return err == 1 ? 1 : err == 0 ? 0 : -1;
}

/*
 * Functions every Linux kernel has, whatever its configuration (init/main.c,
 * kernel/sched/core.c, kernel/exit.c, kernel/panic.c): a file that is a
 * kernel has them in its text, between _stext and _etext.
 */
static const char *const core_text[] = { "start_kernel", "schedule", "do_exit", "panic" };

/*
 * Is the file plainly a Linux kernel? A table whole in form is easily made
 * (1,000 names and _stext, _etext), and so is a "Linux version" string: a
 * missing name clears nothing in a file that is no kernel. A file must show
 * its banner naming a release (fgt_kimage_ident), and the core functions
 * above as text symbols inside [_stext, _etext) whose code the image holds.
 * The running kernel is one by being read. 0, or -1 with why.
 */
static int plainly_linux(struct ctx *c, char *why, size_t len)
{
	const struct fgt_ksym *st, *et, *s;
	uint8_t byte;

	if (!c->o->kernel)
		return 0;
	if (!c->r->release[0]) {
		snprintf(why, len, "%.120s shows no Linux banner (%s, \"%s\" and a release)", c->im.desc,
			 FGT_BANNER_SYM, FGT_BANNER);
		return -1;
	}
	st = fgt_ksyms_by_name(c->ks, fgt_sym_name(FGT_SYM_STEXT));
	et = fgt_ksyms_by_name(c->ks, fgt_sym_name(FGT_SYM_ETEXT));
	for (size_t i = 0; i < sizeof(core_text) / sizeof(core_text[0]); i++) {
		s = fgt_ksyms_by_name(c->ks, core_text[i]);
		if (!s || (s->type != 't' && s->type != 'T') || !st || !et || s->addr < st->addr ||
		    s->addr >= et->addr || fgt_kimage_read(&c->im, s->addr, &byte, 1)) {
			snprintf(why, len, "%.120s is not plainly a kernel: %s is not among its text "
				 "symbols, in its code", c->im.desc, core_text[i]);
			return -1;
		}
	}
	return 0;
}

/*
 * Is name a sign of the function graph tracer? fgraph's own functions and
 * data (kernel/trace/fgraph.c, the entry code's return_to_handler), by the
 * facts' names and by the words only fgraph's names hold.
 */
static bool fgraph_sign(const char *name)
{
	static const char *const words[] = { "fgraph", "ftrace_graph", "ret_stack",
					     "return_to_handler", "function_graph",
					     "register_ftrace_graph", "retstack" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(name, words[i]))
			return true;
	return false;
}

/* The fgraph facts' symbols (src/facts/kfacts.h), register_ftrace_graph to
 * the fprobe entries: the ones a table from kernel memory was asked for. */
static bool fgraph_fact(enum fgt_sym s)
{
	return s >= FGT_SYM_REGISTER && s <= FGT_SYM_FPROBE_FGRAPH_ENTRY && s != FGT_SYM_NR_THREADS;
}

/*
 * Any sign of fgraph in the symbols: one present, or one the reader saw and
 * did not take (c->im's doubt). The name into name, what into what; false
 * when there is none.
 */
static bool fgraph_evidence(struct ctx *c, char *name, size_t nlen, char *what, size_t wlen)
{
	char why[96], n[128];

	for (int s = 0; s < FGT_SYM__NR; s++) {
		const char *sn = fgt_sym_name(s);

		if (!fgraph_fact(s))
			continue;
		if (fgt_ksyms_by_name(c->ks, sn)) {
			snprintf(name, nlen, "%s", sn);
			snprintf(what, wlen, "is there");
			return true;
		}
		if (c->have_im && fgt_kimage_doubt(&c->im, sn, why, sizeof(why))) {
			snprintf(name, nlen, "%s", sn);
			snprintf(what, wlen, "is in it, not taken (%s)", why);
			return true;
		}
	}
	for (size_t i = 0; i < fgt_ksyms_len(c->ks); i++) {
		const struct fgt_ksym *s = fgt_ksyms_nth(c->ks, i);

		if (s && fgraph_sign(s->name)) {
			snprintf(name, nlen, "%s", s->name);
			snprintf(what, wlen, "is there");
			return true;
		}
	}
	/* a sign in doubt: the doubt list is short, read it through */
	for (size_t at = 0; c->have_im && (at = fgt_kimage_doubt_next(&c->im, at, n, sizeof(n),
								      why, sizeof(why)));) {
		if (fgraph_sign(n)) {
			snprintf(name, nlen, "%s", n);
			snprintf(what, wlen, "is in it, not taken (%s)", why);
			return true;
		}
	}
	return false;
}

/*
 * "Not affected" is the one answer that clears a kernel without reading its
 * walk, so it needs positive evidence: the missing name is only a fact when
 * the table it is missing from is a kernel's whole table, of a file that is
 * plainly a Linux kernel; every other sign of fgraph must be absent too (its
 * other functions and data, a symbol seen and not taken), and the image's
 * own facts, where it has them, must agree (its BTF has no
 * task_struct::ret_stack; its IKCONFIG, where built in, has no
 * CONFIG_FUNCTION_GRAPH_TRACER). Anything less is unknown.
 */
static void not_affected(struct ctx *c)
{
	struct fgt_static_result *r = c->r;
	const char *reg = fgt_sym_name(FGT_SYM_REGISTER);
	char why[200], facts[160] = "", sign[128], what[128];
	int btf, cfg;

	if (fgraph_evidence(c, sign, sizeof(sign), what, sizeof(what))) {
		fail(r, FGT_SW_SHAPE, "no %s taken from %s, but %s %s: fgraph is built in, and "
		     "the symbols contradict each other", reg, r->symbols, sign, what);
		return;
	}
	if (!symbols_whole(c, why, sizeof(why))) {
		fail(r, FGT_SW_NO_SYMBOLS, "no %s in %s, but that is not a kernel's whole symbol "
		     "table (%s): not evidence of a kernel without fgraph", reg, r->symbols, why);
		return;
	}
	if (plainly_linux(c, why, sizeof(why))) {
		fail(r, FGT_SW_NOT_KERNEL, "no %s in %s, but %s: not evidence of a Linux kernel "
		     "without fgraph", reg, r->symbols, why);
		return;
	}
	btf = btf_says(c);
	if (btf == 0 || btf == -1 || btf == 2) {
		fail(r, FGT_SW_SHAPE, "no %s in %s, but %s: the symbols and the image disagree", reg,
		     r->symbols, btf == 0 ? "its BTF has task_struct::ret_stack (fgraph is built in)" :
		     btf == 2 ? "its BTF's task_struct has a member shaped as ret_stack (fgraph "
				"is built in)" : "its BTF is broken");
		return;
	}
	cfg = c->o->kernel ? fgt_kimage_ikconfig(&c->im, "CONFIG_FUNCTION_GRAPH_TRACER") : -2;
	if (cfg == 1 || cfg == -1) {
		fail(r, FGT_SW_SHAPE, "no %s in %s, but %s: the symbols and the image disagree", reg,
		     r->symbols, cfg == 1 ? "its IKCONFIG has CONFIG_FUNCTION_GRAPH_TRACER=y" :
		     "its IKCONFIG is broken");
		return;
	}
	if (btf == 1)
		snprintf(facts, sizeof(facts), "; its BTF's task_struct has no ret_stack");
	if (cfg == 0)
		snprintf(facts + strlen(facts), sizeof(facts) - strlen(facts),
			 "; its IKCONFIG has no CONFIG_FUNCTION_GRAPH_TRACER");
	if (!facts[0])
		snprintf(facts, sizeof(facts), "; no BTF or IKCONFIG to confirm it");
	r->verdict = FGT_VERDICT_NOT_AFFECTED;
	snprintf(r->evidence, sizeof(r->evidence), "no %s in %s%s: no function graph tracer, "
		 "so no shadow-stack walk", reg, r->symbols, facts);
}

/* name, when the reader saw it and did not take it: r fails with why. */
static bool doubted(struct ctx *c, const char *name, const char *role)
{
	char why[96];

	if (!name || !name[0] || !fgt_kimage_doubt(&c->im, name, why, sizeof(why)))
		return false;
	fail(c->r, FGT_SW_SHAPE, "the answer would rest on %s (%s), whose symbol is %s: the "
	     "tables contradict each other", name, role, why);
	return true;
}

/*
 * Is name base or one of the clones compilers make of it: GCC's .part.N (the
 * early WARN_ON_ONCE() return invites it), .isra.N, .constprop.N, and
 * ThinLTO's .llvm.N (a hash of digits), in any chain ("start_graph_tracing
 * .constprop.0.isra.0"). Not .cold: that is a part of the function.
 */
static bool clone_of(const char *name, const char *base)
{
	static const char *const kinds[] = { "part", "isra", "constprop", "llvm", "lto_priv" };
	size_t n = strlen(base);
	const char *p = name + n;

	if (strncmp(name, base, n))
		return false;
	while (*p == '.') {
		bool kind = false;

		p++;
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !kind; i++) {
			size_t k = strlen(kinds[i]);

			if (!strncmp(p, kinds[i], k) && p[k] == '.') {
				p += k + 1;
				kind = true;
			}
		}
		if (!kind || *p < '0' || *p > '9')
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return !*p;
}

/* Read a function's text (and its .cold part, when parts has room) into
 * parts, buffers into text[]. The number of parts, or -1 with r filled. */
static int read_func(struct ctx *c, const struct fgt_ksym *f, struct fgt_static_part *parts,
		     uint8_t **text, unsigned int max)
{
	const struct fgt_ksym *cold;
	unsigned int n = 1;
	char name[160];

	/* its symbol, and where it ends, taken without doubt (issue 40: a
	 * kallsyms entry out of order, a .symtab entry not taken) */
	if (c->have_im && (doubted(c, f->name, "the function read") ||
			   ((cold = fgt_ksyms_by_addr(c->ks, f->addr + f->size)) &&
			    doubted(c, cold->name, "where the function ends"))))
		return -1;
	if (!f->size || f->size > MAX_FUNC)
		return fail(c->r, FGT_SW_SHAPE, "%s: %lu bytes by its symbols: not the function we know",
			    f->name, (unsigned long)f->size), -1;
	parts[0] = (struct fgt_static_part){ f->addr, NULL, f->size };
	snprintf(name, sizeof(name), "%s.cold", f->name);
	cold = fgt_ksyms_by_name(c->ks, name);
	if (max > 1 && cold && cold->size && cold->size <= MAX_FUNC)
		parts[n++] = (struct fgt_static_part){ cold->addr, NULL, cold->size };
	for (unsigned int i = 0; i < n; i++) {
		text[i] = malloc(parts[i].len);
		if (!text[i])
			return fail(c->r, FGT_SW_READ, "out of memory"), -1;
		if (read_text(c, parts[i].addr, text[i], parts[i].len))
			return -1;
		parts[i].bytes = text[i];
	}
	return (int)n;
}

struct callees {
	const struct fgt_ksyms *ks;
	const struct fgt_ksym *sweep, *start;
};

/* A text symbol the code refers to at its very address: a clone of the
 * sweep or of start_graph_tracing() is what the code reaches. */
static void callee_ref(uint64_t a, void *arg)
{
	struct callees *cl = arg;
	const struct fgt_ksym *s = fgt_ksyms_by_addr(cl->ks, a);

	if (!s || s->addr != a || (s->type != 't' && s->type != 'T'))
		return;
	if (!cl->sweep && clone_of(s->name, fgt_sym_name(FGT_SYM_SWEEP)))
		cl->sweep = s;
	else if (!cl->start && clone_of(s->name, fgt_sym_name(FGT_SYM_START)))
		cl->start = s;
}

/* What the code (read, its symbols known) reaches of the two. */
static int reached(struct ctx *c, const struct fgt_static_code *code, struct callees *cl)
{
	if (c->km && kmem_refs(c, code))
		return -1;
	*cl = (struct callees){ .ks = c->ks };
	fgt_static_refs(code, callee_ref, cl);
	return 0;
}

/*
 * The function holding the sweep, found from register_ftrace_graph by what
 * it reaches (issue 39): register_ftrace_graph itself where the sweep is
 * inlined into it; else the out-of-line start_graph_tracing*() it calls,
 * and in either the out-of-line alloc_retstack_tasklist*() that one calls,
 * clones included. A symbol of those names that register_ftrace_graph does
 * not reach is never taken (a renamed or planted one: issue 40). Where the
 * function taken is out of line, its caller's text comes with it: the
 * bug's loop back is there.
 */
static int find_code(struct ctx *c, struct fgt_static_code *code)
{
	struct fgt_static_result *r = c->r;
	const struct fgt_ksym *reg, *f;
	struct callees cl;
	bool have_caller = false;
	int n;

	reg = fgt_ksyms_by_name(c->ks, fgt_sym_name(FGT_SYM_REGISTER));
	if (!reg) {
		not_affected(c);
		return -1;
	}
	f = reg;
	n = read_func(c, f, code->part, c->text, FGT_STATIC_MAX_PARTS);
	if (n < 0)
		return -1;
	code->nr_parts = (unsigned int)n;
	code->arch = c->have_im ? c->im.arch : HOST_ARCH;
	/* at most two steps: register_ftrace_graph -> start_graph_tracing* ->
	 * alloc_retstack_tasklist* */
	for (int step = 0; step < 2; step++) {
		const struct fgt_ksym *next;

		/* By value: from kernel memory, reached() builds the symbol
		 * table anew (kmem_refs()), and every fgt_ksym taken from the
		 * old one, f among them, is freed with it. */
		snprintf(r->func, sizeof(r->func), "%s", f->name);
		r->func_addr = f->addr;
		r->func_len = f->size;
		code->func = r->func;
		if (reached(c, code, &cl))
			return -1;
		next = cl.sweep ? cl.sweep : step == 0 ? cl.start : NULL;
		if (!next)
			break;
		/* the function reached becomes the one judged, this one its caller */
		for (unsigned int i = 0; i < code->nr_parts && i < FGT_STATIC_MAX_CALLER_PARTS; i++) {
			free(c->ctext[i]);
			c->ctext[i] = c->text[i];
			code->caller_part[i] = code->part[i];
			c->text[i] = NULL;
		}
		for (unsigned int i = FGT_STATIC_MAX_CALLER_PARTS; i < code->nr_parts; i++) {
			free(c->text[i]);
			c->text[i] = NULL;
		}
		code->nr_caller_parts = code->nr_parts < FGT_STATIC_MAX_CALLER_PARTS ?
					code->nr_parts : FGT_STATIC_MAX_CALLER_PARTS;
		snprintf(c->caller, sizeof(c->caller), "%s", r->func);
		have_caller = true;
		f = next;	/* of the table reached() left: alive until the next */
		n = read_func(c, f, code->part, c->text, FGT_STATIC_MAX_PARTS);
		if (n < 0)
			return -1;
		code->nr_parts = (unsigned int)n;
		snprintf(r->func, sizeof(r->func), "%s", f->name);
		r->func_addr = f->addr;
		r->func_len = f->size;
		if (cl.sweep)
			break;
	}
	code->func = r->func;
	if (have_caller)
		code->caller = c->caller;
	return 0;
}

/*
 * An answer from the code rests on a few symbols: the function read, the
 * one after it (its end), the allocators called and their caches, the RCU
 * calls that bound the walk. Each must be one the reader took without doubt
 * (an entry in address order, agreeing with the one before it; a .symtab
 * entry that is defined and in place), or the answer is unknown.
 */
static void rests_on_doubt(struct ctx *c)
{
	struct fgt_static_result *r = c->r;
	const struct fgt_ksym *next;
	static const enum fgt_sym marks[] = { FGT_SYM_RCU_READ_LOCK, FGT_SYM_RCU_READ_UNLOCK,
					      FGT_SYM_RCU_UNLOCK_STRICT, FGT_SYM_STACK_CACHEP,
					      FGT_SYM_INIT_TASK_STRUCT };

	if (!c->have_im || !c->im.doubt || r->verdict == FGT_VERDICT_UNKNOWN)
		return;
	if (doubted(c, r->func, "the function read"))
		return;
	next = fgt_ksyms_by_addr(c->ks, r->func_addr + r->func_len);
	if (next && doubted(c, next->name, "where the function ends"))
		return;
	for (unsigned int i = 0; i < r->nr_sites; i++)
		if ((r->sites[i].fn && doubted(c, r->sites[i].fn->name, "an allocator it calls")) ||
		    doubted(c, r->sites[i].cache_name, "an allocation's cache"))
			return;
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (doubted(c, fgt_sym_name(marks[i]), "a mark of the walk"))
			return;
}

/*
 * Under lockdown=confidentiality the running kernel's memory cannot be read
 * (LOCKDOWN_KCORE, and bpf_probe_read_kernel), but the file it booted from
 * can: it is the same code only if it is the same build, so its GNU build ID
 * must be the running kernel's (/sys/kernel/notes, which lockdown leaves
 * readable).
 */
void fgt_static_from_boot_image(const struct fgt_static_opts *o, struct fgt_static_result *r)
{
	struct fgt_static_opts fo = { .stop = o->stop, .no_bpf = true };
	struct fgt_static_result *fr = malloc(sizeof(*fr));
	char path[300], refused[200];
	struct fgt_kernel_id id;
	size_t n = strlen(r->evidence);

	if (!fr)
		return;
	fgt_kernel_id_read(&id, o->notes);
	if (o->boot_image)
		snprintf(path, sizeof(path), "%s", o->boot_image);
	else
		snprintf(path, sizeof(path), "/boot/vmlinuz-%s", id.release);
	fo.kernel = path;
	if (access(path, R_OK)) {
		snprintf(r->evidence + n, sizeof(r->evidence) - n, "; and no %s to read instead", path);
		goto out;
	}
	fgt_static_check(&fo, fr);
	if (!id.build_id[0] || strcmp(fr->build_id, id.build_id)) {
		snprintf(r->evidence + n, sizeof(r->evidence) - n, "; %s cannot stand in: its build ID "
			 "(%s) is not the running kernel's (%s)", path, fr->build_id[0] ? fr->build_id : "none",
			 id.build_id[0] ? id.build_id : "unknown");
		goto out;
	}
	snprintf(refused, sizeof(refused), "%.*s", (int)sizeof(refused) - 1, r->evidence);
	*r = *fr;
	snprintf(r->source, sizeof(r->source), "%.100s, the running kernel's (build ID %.40s): %.60s",
		 fr->source, id.build_id, refused);
out:
	free(fr);
}

enum fgt_verdict fgt_static_check(const struct fgt_static_opts *o,
					 struct fgt_static_result *r)
{
	struct ctx c = { .o = o, .r = r };
	struct fgt_static_code code = {};
	struct fgt_static_kernel k = {};
	double t0 = now_ms();
	struct fgt_kio io0 = fgt_kio;

	memset(r, 0, sizeof(*r));
	c.im.fd = -1;
	if (!symbols(&c) && (lap(&c, "symbols"), !find_code(&c, &code)) &&
	    (lap(&c, "text"), !c.km || !kmem_refs(&c, &code))) {
		if (c.km)
			lap(&c, "refs");
		k.ks = c.ks;
		if (!stack_source(&c, &k)) {
			lap(&c, k.stack_src == FGT_STACK_CACHE ? "source" : "btf");
			if (o->code_cb)
				o->code_cb(&code, &k, o->code_arg);
			fgt_static_decode(&code, &k, r);
			rests_on_doubt(&c);
			lap(&c, "decode");
		}
	}
	r->ms = now_ms() - t0;
	if (fgt_verbose >= 1) {
		char laps[400];

		laps_text(&c, t0, laps, sizeof(laps));
		log_info("static: %.1f ms (%s); %lu reads of %s, %llu bytes", r->ms, laps,
			 fgt_kio.reads - io0.reads, r->source[0] ? r->source : "-",
			 (unsigned long long)(fgt_kio.bytes - io0.bytes));
	}
	if (c.have_im)
		fgt_kimage_close(&c.im);
	for (int i = 0; i < FGT_STATIC_MAX_PARTS; i++)
		free(c.text[i]);
	for (int i = 0; i < FGT_STATIC_MAX_CALLER_PARTS; i++)
		free(c.ctext[i]);
	fgt_ksyms_free(c.ks_owned);
	fgt_kmem_free(c.km);
	free(c.sel);
	if (!o->kernel && r->why == FGT_SW_LOCKDOWN)
		fgt_static_from_boot_image(o, r);
	return r->verdict;
}
