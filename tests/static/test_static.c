// SPDX-License-Identifier: GPL-2.0
/*
 * The static verdict's decoder over the machine code recorded from every lab
 * kernel (tests/data/static/), and the shapes it must not recognize.
 *
 * The expectations were read off `objdump -d` of each kernel's function (call
 * targets through its System.map, or through the kallsyms tables of Debian's
 * images), not from the decoder: each site's offset, allocator, cache, gfp
 * (the `mov $...,%esi` before the call), size (%edx), and the offsets of the
 * __rcu_read_lock / __rcu_read_unlock calls.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "render/output.h"
#include "static/static_check.h"
#include "static/static_rec.h"
#include "render/static_json.h"

struct xsite {
	const char *at, *call, *cache;
	uint32_t gfp;
	uint64_t size;			/* 0: the shape has no size */
	enum fgt_static_rcu rcu;
	enum fgt_static_kind kind;
};

struct xkernel {
	const char *file;
	enum fgt_verdict verdict;
	const char *evidence;
	struct xsite sites[4];
	const char *locks[2];
	const char *unlocks[4];
	const char *loop;		/* no PREEMPT_RCU: the thread loop's back edge */
};

/* How the shadow stacks' destination was told: task_struct::ret_stack's
 * offset from BTF (`pahole -F btf -C task_struct` of Debian's vmlinux: 5056,
 * 5048, 5520, the recordings' "retstack" lines), or, with none given (the lab
 * recordings: the inference stays covered), the field the walk tests for
 * NULL; pahole of the lab 7.x builds gives 2192 = 0x890 for that too. */
#define F_BTF(off) "; t->ret_stack at +" off " (BTF)"
#define F_WALK(off) "; t->ret_stack at +" off " (the field the walk tests for NULL; no BTF offset)"

/* The shape the judge recognised, before the sites (docs/static.md): the
 * bug's signature (the batch's call, its loop's compare with 32, the walk's
 * compare with 32), or the fix's inline allocation (its gfp, its call). */
#define SIG(batch, bound, exit) "the batch of 32 and its -EAGAIN loop at " batch ": the batch " \
	"bounded by 32 at " bound ", the walk's exit when it is used up at " exit ", and the loop " \
	"back from the walk into the batch; "
#define INL(gfp, at) "one walk allocating inline, " gfp ", at " at "; "

#define O FGT_RCU_OUTSIDE
#define I FGT_RCU_INSIDE
#define SHADOW FGT_SITE_SHADOW
#define OTHER FGT_SITE_OTHER

static const struct xkernel lab_stock = {
	"lab-stock", FGT_VERDICT_NOT_FIXED,
	SIG("register_ftrace_graph+0x33e", "register_ftrace_graph+0x354", "register_ftrace_graph+0x398")
	"register_ftrace_graph+0x33e: kmem_cache_alloc_noprof(fgraph_stack_cachep, GFP_KERNEL) "
	"outside rcu_read_lock() (the batch), into ret_stack_list[]; no shadow-stack allocation inside the walk "
	"(rcu_read_lock() at register_ftrace_graph+0x35a)" F_WALK("0x890"),
	{ { "register_ftrace_graph+0x29a", "__kmalloc_cache_noprof", "kmalloc_caches+0x40", 0xdc0, 256, O, OTHER },
	  { "register_ftrace_graph+0x33e", "kmem_cache_alloc_noprof", "fgraph_stack_cachep", 0xcc0, 0, O, SHADOW } },
	{ "register_ftrace_graph+0x35a" },
	{ "register_ftrace_graph+0x3de", "register_ftrace_graph+0x4e6", "register_ftrace_graph+0x640" },	NULL,
};

static const struct xkernel lab_fixed = {
	"lab-fixed", FGT_VERDICT_FIXED,
	INL("GFP_NOWAIT|__GFP_NOWARN", "register_ftrace_graph+0x3d1") "register_ftrace_graph+0x3d1: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
	"GFP_NOWAIT|__GFP_NOWARN) inside rcu_read_lock(), into t->ret_stack; register_ftrace_graph+0x345: "
	"kmem_cache_alloc_noprof(fgraph_stack_cachep, GFP_KERNEL) outside rcu_read_lock() (the reserve), into ret_stack_list[]" F_WALK("0x890"),
	{ { "register_ftrace_graph+0x2a9", "__kmalloc_cache_noprof", "kmalloc_caches+0x40", 0xdc0, 256, O, OTHER },
	  { "register_ftrace_graph+0x345", "kmem_cache_alloc_noprof", "fgraph_stack_cachep", 0xcc0, 0, O, SHADOW },
	  { "register_ftrace_graph+0x3d1", "kmem_cache_alloc_noprof", "fgraph_stack_cachep", 0x2800, 0, I, SHADOW } },
	{ "register_ftrace_graph+0x361" },
	{ "register_ftrace_graph+0x455", "register_ftrace_graph+0x60a", "register_ftrace_graph+0x6af" },	NULL,
};

static const struct xkernel lab_tfixed = {
	"lab-traceable-fixed", FGT_VERDICT_FIXED,
	INL("GFP_NOWAIT|__GFP_NOWARN", "alloc_retstack_tasklist+0xc8") "alloc_retstack_tasklist+0xc8: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
	"GFP_NOWAIT|__GFP_NOWARN) inside rcu_read_lock(), into t->ret_stack; alloc_retstack_tasklist+0x31: "
	"kmem_cache_alloc_noprof(fgraph_stack_cachep, GFP_KERNEL) outside rcu_read_lock() (the reserve), into ret_stack_list[]" F_WALK("0x890"),
	{ { "alloc_retstack_tasklist+0x31", "kmem_cache_alloc_noprof", "fgraph_stack_cachep", 0xcc0, 0, O, SHADOW },
	  { "alloc_retstack_tasklist+0xc8", "kmem_cache_alloc_noprof", "fgraph_stack_cachep", 0x2800, 0, I, SHADOW } },
	{ "alloc_retstack_tasklist+0x4e" },
	{ "alloc_retstack_tasklist+0x14b", "alloc_retstack_tasklist+0x1ca" },	NULL,
};

/* 6.1: kmalloc_array(50, 32) inlined to kmalloc_trace(cache, gfp, 1600) */
static const struct xkernel deb61 = {
	"debian-6.1", FGT_VERDICT_NOT_FIXED,
	SIG("register_ftrace_graph+0xc5", "register_ftrace_graph+0xdc", "register_ftrace_graph+0x120")
	"register_ftrace_graph+0xc5: kmalloc_trace(kmalloc_caches+0x58, GFP_KERNEL, 1600) "
	"outside rcu_read_lock() (the batch), into ret_stack_list[]; no shadow-stack allocation inside the walk "
	"(rcu_read_lock() at register_ftrace_graph+0xe2)" F_BTF("0x13c0"),
	{ { "register_ftrace_graph+0x49", "kmalloc_trace", "kmalloc_caches+0x40", 0xcc0, 256, O, OTHER },
	  { "register_ftrace_graph+0xc5", "kmalloc_trace", "kmalloc_caches+0x58", 0xcc0, 1600, O, SHADOW } },
	{ "register_ftrace_graph+0xe2" },
	{ "register_ftrace_graph+0xac", "register_ftrace_graph+0x162", "register_ftrace_graph+0x21e" },	NULL,
};

/* 6.12: kmalloc(SHADOW_STACK_SIZE) lands in __kmalloc_cache_noprof; the walk
 * calls ret_stack_init_task_vars() out of line */
static const struct xkernel deb612 = {
	"debian-6.12", FGT_VERDICT_NOT_FIXED,
	SIG("register_ftrace_graph+0x490", "register_ftrace_graph+0x4a7", "register_ftrace_graph+0x4eb")
	"register_ftrace_graph+0x490: __kmalloc_cache_noprof(kmalloc_caches+0x60, GFP_KERNEL, 4096) "
	"outside rcu_read_lock() (the batch), into ret_stack_list[]; no shadow-stack allocation inside the walk "
	"(rcu_read_lock() at register_ftrace_graph+0x4ad)" F_BTF("0x13b8"),
	{ { "register_ftrace_graph+0x324", "__kmalloc_cache_noprof", "kmalloc_caches+0x40", 0xdc0, 256, O, OTHER },
	  { "register_ftrace_graph+0x490", "__kmalloc_cache_noprof", "kmalloc_caches+0x60", 0xcc0, 4096, O, SHADOW } },
	{ "register_ftrace_graph+0x4ad" },
	{ "register_ftrace_graph+0x447", "register_ftrace_graph+0x5c9" },	NULL,
};

/* 7.2: the fgraph_stack cache; a .cold part; three unlock sites */
static const struct xkernel deb72 = {
	"debian-7.2", FGT_VERDICT_NOT_FIXED,
	SIG("register_ftrace_graph+0x4e4", "register_ftrace_graph+0x4fa", "register_ftrace_graph+0x542")
	"register_ftrace_graph+0x4e4: kmem_cache_alloc_noprof(fgraph_stack_cachep, GFP_KERNEL) "
	"outside rcu_read_lock() (the batch), into ret_stack_list[]; no shadow-stack allocation inside the walk "
	"(rcu_read_lock() at register_ftrace_graph+0x500)" F_BTF("0x1590"),
	{ { "register_ftrace_graph+0x44f", "__kmalloc_cache_noprof", "kmalloc_caches+0x40", 0xdc0, 256, O, OTHER },
	  { "register_ftrace_graph+0x4e4", "kmem_cache_alloc_noprof", "fgraph_stack_cachep", 0xcc0, 0, O, SHADOW } },
	{ "register_ftrace_graph+0x500" },
	{ "register_ftrace_graph+0x4be", "register_ftrace_graph+0x590", "register_ftrace_graph+0x772" },	NULL,
};

/* The LTS ports of the fix (lab/patches/fix-6.1, fix-6.12) on minimal builds. */
static const struct xkernel lab61_stock = {
	"lab-6.1-stock", FGT_VERDICT_NOT_FIXED,
	SIG("register_ftrace_graph+0xbc", "register_ftrace_graph+0xd3", "register_ftrace_graph+0x117")
	"register_ftrace_graph+0xbc: kmalloc_trace(kmalloc_caches+0x58, GFP_KERNEL, 1600) "
	"outside rcu_read_lock() (the batch), into ret_stack_list[]; no shadow-stack allocation inside the walk "
	"(rcu_read_lock() at register_ftrace_graph+0xd9)" F_WALK("0x818"),
	{ { "register_ftrace_graph+0x40", "kmalloc_trace", "kmalloc_caches+0x40", 0xcc0, 256, O, OTHER },
	  { "register_ftrace_graph+0xbc", "kmalloc_trace", "kmalloc_caches+0x58", 0xcc0, 1600, O, SHADOW } },
	{ "register_ftrace_graph+0xd9" },
	{ "register_ftrace_graph+0xa3", "register_ftrace_graph+0x159", "register_ftrace_graph+0x211" },	NULL,
};

/* 6.1's GFP_NOWAIT is 0x800 alone: the port adds __GFP_NOWARN itself */
static const struct xkernel lab61_fixed = {
	"lab-6.1-fixed", FGT_VERDICT_FIXED,
	INL("GFP_NOWAIT|__GFP_NOWARN", "register_ftrace_graph+0x18a") "register_ftrace_graph+0x18a: kmalloc_trace(kmalloc_caches+0x58, GFP_NOWAIT|__GFP_NOWARN, 1600) "
	"inside rcu_read_lock(), into t->ret_stack; register_ftrace_graph+0xf6: kmalloc_trace(kmalloc_caches+0x58, "
	"GFP_KERNEL, 1600) outside rcu_read_lock() (the reserve), into ret_stack_list[]" F_WALK("0x818"),
	{ { "register_ftrace_graph+0x42", "kmalloc_trace", "kmalloc_caches+0x40", 0xcc0, 256, O, OTHER },
	  { "register_ftrace_graph+0xf6", "kmalloc_trace", "kmalloc_caches+0x58", 0xcc0, 1600, O, SHADOW },
	  { "register_ftrace_graph+0x18a", "kmalloc_trace", "kmalloc_caches+0x58", 0x2800, 1600, I, SHADOW } },
	{ "register_ftrace_graph+0x112" },
	{ "register_ftrace_graph+0xba", "register_ftrace_graph+0x1ef" },	NULL,
};

static const struct xkernel lab612_stock = {
	"lab-6.12-stock", FGT_VERDICT_NOT_FIXED,
	SIG("register_ftrace_graph+0x34f", "register_ftrace_graph+0x365", "register_ftrace_graph+0x3a9")
	"register_ftrace_graph+0x34f: __kmalloc_cache_noprof(kmalloc_caches+0x60, GFP_KERNEL, 4096) "
	"outside rcu_read_lock() (the batch), into ret_stack_list[]; no shadow-stack allocation inside the walk "
	"(rcu_read_lock() at register_ftrace_graph+0x36b)" F_WALK("0x840"),
	{ { "register_ftrace_graph+0x2bb", "__kmalloc_cache_noprof", "kmalloc_caches+0x40", 0xdc0, 256, O, OTHER },
	  { "register_ftrace_graph+0x34f", "__kmalloc_cache_noprof", "kmalloc_caches+0x60", 0xcc0, 4096, O, SHADOW } },
	{ "register_ftrace_graph+0x36b" },
	{ "register_ftrace_graph+0x3ef", "register_ftrace_graph+0x542", "register_ftrace_graph+0x562" },	NULL,
};

static const struct xkernel lab612_fixed = {
	"lab-6.12-fixed", FGT_VERDICT_FIXED,
	INL("GFP_NOWAIT|__GFP_NOWARN", "register_ftrace_graph+0x400") "register_ftrace_graph+0x400: __kmalloc_cache_noprof(kmalloc_caches+0x60, "
	"GFP_NOWAIT|__GFP_NOWARN, 4096) inside rcu_read_lock(), into t->ret_stack; register_ftrace_graph+0x36b: "
	"__kmalloc_cache_noprof(kmalloc_caches+0x60, GFP_KERNEL, 4096) outside rcu_read_lock() (the reserve), into ret_stack_list[]" F_WALK("0x840"),
	{ { "register_ftrace_graph+0x2dc", "__kmalloc_cache_noprof", "kmalloc_caches+0x40", 0xdc0, 256, O, OTHER },
	  { "register_ftrace_graph+0x36b", "__kmalloc_cache_noprof", "kmalloc_caches+0x60", 0xcc0, 4096, O, SHADOW },
	  { "register_ftrace_graph+0x400", "__kmalloc_cache_noprof", "kmalloc_caches+0x60", 0x2800, 4096, I, SHADOW } },
	{ "register_ftrace_graph+0x387" },
	{ "register_ftrace_graph+0x487", "register_ftrace_graph+0x59c" },	NULL,
};

/*
 * 6.12 without PREEMPT_RCU (lab/config/6.12-nopreempt.config): rcu_read_lock()
 * is `incl %gs:...` (+0x373 stock, +0x38f fixed), no call. objdump: the
 * thread loop `cmp $init_task+0x3a0,%r8; jne` (+0x3f0/+0x3f7 stock), `cmp
 * ...,%rbx; jne` (+0x481/+0x488 fixed); `cmpq $0x0,0x7e8(%rdx)` inside it
 * (pahole: ret_stack at 2024 = 0x7e8); the batch `mov %rax,(%rbx,%r14,8)`,
 * then `lea (%rbx,%rax,8),%r10 ... mov %rax,0x7e8(%rdx)`; the fix's
 * `mov %rax,%rdx ... mov %rdx,0x7e8(%r14)` after the GFP_NOWAIT call.
 */
static const struct xkernel lab612np_stock = {
	"lab-6.12-nopreempt-stock", FGT_VERDICT_NOT_FIXED,
	SIG("register_ftrace_graph+0x357", "register_ftrace_graph+0x36d", "register_ftrace_graph+0x3b3")
	"register_ftrace_graph+0x357: __kmalloc_cache_noprof(kmalloc_caches+0x60, GFP_KERNEL, 4096) "
	"outside the walk (the batch), into ret_stack_list[]; no shadow-stack allocation inside the walk "
	"(the loop over the thread list closed at register_ftrace_graph+0x3f7; no rcu_read_lock() "
	"call: not PREEMPT_RCU)" F_WALK("0x7e8"),
	{ { "register_ftrace_graph+0x2c3", "__kmalloc_cache_noprof", "kmalloc_caches+0x40", 0xdc0, 256, O, OTHER },
	  { "register_ftrace_graph+0x357", "__kmalloc_cache_noprof", "kmalloc_caches+0x60", 0xcc0, 4096, O, SHADOW } },
	{ NULL }, { NULL }, "register_ftrace_graph+0x3f7",
};

static const struct xkernel lab612np_fixed = {
	"lab-6.12-nopreempt-fixed", FGT_VERDICT_FIXED,
	INL("GFP_NOWAIT|__GFP_NOWARN", "register_ftrace_graph+0x40a") "register_ftrace_graph+0x40a: __kmalloc_cache_noprof(kmalloc_caches+0x60, "
	"GFP_NOWAIT|__GFP_NOWARN, 4096) inside the walk, into t->ret_stack; register_ftrace_graph+0x373: "
	"__kmalloc_cache_noprof(kmalloc_caches+0x60, GFP_KERNEL, 4096) outside the walk (the reserve), "
	"into ret_stack_list[]" F_WALK("0x7e8"),
	{ { "register_ftrace_graph+0x2e4", "__kmalloc_cache_noprof", "kmalloc_caches+0x40", 0xdc0, 256, O, OTHER },
	  { "register_ftrace_graph+0x373", "__kmalloc_cache_noprof", "kmalloc_caches+0x60", 0xcc0, 4096, O, SHADOW },
	  { "register_ftrace_graph+0x40a", "__kmalloc_cache_noprof", "kmalloc_caches+0x60", 0x2800, 4096, I, SHADOW } },
	{ NULL }, { NULL }, "register_ftrace_graph+0x488",
};

/* 5.10 (Debian 11): no PREEMPT_RCU, so rcu_read_lock() is no code; the walk
 * opens at the read of init_task.tasks.next and closes at each call of
 * rcu_read_unlock_strict(). kmalloc_array(50, 32) inlined to
 * kmem_cache_alloc_trace(cache, gfp, 1600). */
static const struct xkernel deb510 = {
	"debian-5.10", FGT_VERDICT_NOT_FIXED,
	SIG("register_ftrace_graph+0xf2", "register_ftrace_graph+0xd8", "register_ftrace_graph+0x154")
	"register_ftrace_graph+0xf2: kmem_cache_alloc_trace(kmalloc_caches+0x58, GFP_KERNEL, 1600) "
	"outside rcu_read_lock() (the batch), into ret_stack_list[]; no shadow-stack allocation inside the walk "
	"(rcu_read_lock() at register_ftrace_graph+0x103)" F_WALK("0x12b0"),
	{ { "register_ftrace_graph+0x49", "kmem_cache_alloc_trace", "kmalloc_caches+0x40", 0xcc0, 256, O, OTHER },
	  { "register_ftrace_graph+0xf2", "kmem_cache_alloc_trace", "kmalloc_caches+0x58", 0xcc0, 1600, O, SHADOW } },
	{ "register_ftrace_graph+0x103" },
	{ "register_ftrace_graph+0x1ae", "register_ftrace_graph+0x1c6", "register_ftrace_graph+0x2a7" },
};

/* The 5.10 port (lab/patches/fix-5.10) on minimal PREEMPT builds: the
 * __rcu_read_lock() bounds; 5.10's GFP_NOWAIT is 0x800, the port adds
 * __GFP_NOWARN. */
static const struct xkernel lab510_stock = {
	"lab-5.10-stock", FGT_VERDICT_NOT_FIXED,
	SIG("register_ftrace_graph+0xb6", "register_ftrace_graph+0x9f", "register_ftrace_graph+0x150")
	"register_ftrace_graph+0xb6: kmem_cache_alloc_trace(kmalloc_caches+0x58, GFP_KERNEL, 1600) "
	"outside rcu_read_lock() (the batch), into ret_stack_list[]; no shadow-stack allocation inside the walk "
	"(rcu_read_lock() at register_ftrace_graph+0x113)" F_WALK("0x7b0"),
	{ { "register_ftrace_graph+0x40", "kmem_cache_alloc_trace", "kmalloc_caches+0x40", 0xcc0, 256, O, OTHER },
	  { "register_ftrace_graph+0xb6", "kmem_cache_alloc_trace", "kmalloc_caches+0x58", 0xcc0, 1600, O, SHADOW } },
	{ "register_ftrace_graph+0x113" },
	{ "register_ftrace_graph+0x92", "register_ftrace_graph+0x191", "register_ftrace_graph+0x29e" },
};

static const struct xkernel lab510_fixed = {
	"lab-5.10-fixed", FGT_VERDICT_FIXED,
	INL("GFP_NOWAIT|__GFP_NOWARN", "register_ftrace_graph+0x195") "register_ftrace_graph+0x195: kmem_cache_alloc_trace(kmalloc_caches+0x58, GFP_NOWAIT|__GFP_NOWARN, "
	"1600) inside rcu_read_lock(), into t->ret_stack; register_ftrace_graph+0xda: kmem_cache_alloc_trace(kmalloc_caches+0x58, "
	"GFP_KERNEL, 1600) outside rcu_read_lock() (the reserve), into ret_stack_list[]" F_WALK("0x7b0"),
	{ { "register_ftrace_graph+0x42", "kmem_cache_alloc_trace", "kmalloc_caches+0x40", 0xcc0, 256, O, OTHER },
	  { "register_ftrace_graph+0xda", "kmem_cache_alloc_trace", "kmalloc_caches+0x58", 0xcc0, 1600, O, SHADOW },
	  { "register_ftrace_graph+0x195", "kmem_cache_alloc_trace", "kmalloc_caches+0x58", 0x2800, 1600, I, SHADOW } },
	{ "register_ftrace_graph+0x121" },
	{ "register_ftrace_graph+0x1f8", "register_ftrace_graph+0x2ad" },
};

static char *data_path(const char *name, char *buf, size_t len)
{
	const char *dir = getenv("FGT_TEST_DATA");

	snprintf(buf, len, "%s/static/%s.txt", dir ? dir : "tests/data", name);
	return buf;
}

static void load(const char *name, struct fgt_static_rec *rec)
{
	char path[512], msg[256];

	if (fgt_static_rec_load(data_path(name, path, sizeof(path)), rec, msg, sizeof(msg)))
		fail_msg("%s", msg);
}

/* A recording with one symbol line changed (renamed, or dropped when to is NULL). */
static void load_edited_path(const char *path, const char *sym, const char *to,
			     struct fgt_static_rec *rec)
{
	char tmp[] = "/tmp/fgt-static-rec.XXXXXX", line[600], msg[256];
	FILE *in, *out;
	int fd = mkstemp(tmp);
	size_t sl = strlen(sym);

	assert_true(fd >= 0);
	in = fopen(path, "r");
	out = fdopen(fd, "w");
	assert_non_null(in);
	assert_non_null(out);
	while (fgets(line, sizeof(line), in)) {
		size_t l = strlen(line);

		if (!strncmp(line, "sym ", 4) && l > sl + 1 && !strncmp(line + l - sl - 1, sym, sl) &&
		    line[l - sl - 2] == ' ') {
			if (to)
				fprintf(out, "%.*s%s\n", (int)(l - sl - 1), line, to);
			continue;
		}
		fputs(line, out);
	}
	fclose(in);
	fclose(out);
	if (fgt_static_rec_load(tmp, rec, msg, sizeof(msg)))
		fail_msg("%s", msg);
	unlink(tmp);
}

static void load_edited(const char *name, const char *sym, const char *to, struct fgt_static_rec *rec)
{
	char path[512];

	load_edited_path(data_path(name, path, sizeof(path)), sym, to, rec);
}

/* Overwrite bytes of part 0 at an offset from the function's start. */
static void patch(struct fgt_static_rec *rec, size_t off, const char *hex)
{
	size_t n = strlen(hex) / 2;

	assert_true(off + n <= rec->code.part[0].len);
	for (size_t i = 0; i < n; i++) {
		unsigned int b;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &b), 1);
		rec->bytes[0][off + i] = (uint8_t)b;
	}
}

static enum fgt_verdict decode(struct fgt_static_rec *rec, struct fgt_static_result *r)
{
	memset(r, 0, sizeof(*r));
	return fgt_static_decode(&rec->code, &rec->k, r);
}

static void check_kernel(const struct xkernel *x, const char *file)
{
	struct fgt_static_rec rec;
	struct fgt_static_result r;
	unsigned int n = 0;

	load(file, &rec);
	assert_int_equal(decode(&rec, &r), x->verdict);
	assert_int_equal(r.why, FGT_SW_NONE);
	assert_string_equal(r.evidence, x->evidence);
	while (n < 4 && x->sites[n].at)
		n++;
	assert_int_equal(r.nr_sites, n);
	for (unsigned int i = 0; i < n; i++) {
		const struct xsite *e = &x->sites[i];
		const struct fgt_static_site *s = &r.sites[i];

		assert_string_equal(s->at, e->at);
		assert_string_equal(s->fn->name, e->call);
		assert_string_equal(s->cache_name, e->cache);
		assert_int_equal(s->gfp.kind, FGT_VAL_CONST);
		assert_int_equal(s->gfp.v, e->gfp);
		if (e->size) {
			assert_int_equal(s->size.kind, FGT_VAL_CONST);
			assert_int_equal(s->size.v, e->size);
		}
		assert_int_equal(s->rcu, e->rcu);
		assert_int_equal(s->kind, e->kind);
		assert_int_equal(s->by_arg, e->kind);
		/* read off objdump too: the batch and the reserve are stored
		 * into ret_stack_list[i] (mov %rax,(%reg,%idx,8)), the fix's
		 * inline one into t->ret_stack, the list itself nowhere */
		assert_int_equal(s->dest, e->kind != SHADOW ? FGT_DEST_NONE :
				 e->rcu == I ? FGT_DEST_TASK : FGT_DEST_LIST);
		assert_false(s->thunk);
	}
	assert_int_equal(r.walk_by_loop, x->loop != NULL);
	if (x->loop)
		assert_string_equal(r.walk_loop, x->loop);
	for (n = 0; n < 2 && x->locks[n]; n++)
		assert_string_equal(r.rcu_lock[n], x->locks[n]);
	assert_int_equal(r.nr_rcu_lock, n);
	for (n = 0; n < 4 && x->unlocks[n]; n++)
		assert_string_equal(r.rcu_unlock[n], x->unlocks[n]);
	assert_int_equal(r.nr_rcu_unlock, n);
	fgt_static_rec_free(&rec);
}

static void test_lab_stock(void **state) { check_kernel(&lab_stock, "lab-stock"); }
static void test_lab_fixed(void **state) { check_kernel(&lab_fixed, "lab-fixed"); }
/*
 * Out of line, the loop back is in the caller: a recording of the function
 * alone (these were made before the caller was recorded, issue 39) shows
 * the batch of 32 (the cmp $0x20 at +0x46), the walk's exit (+0x92) and the
 * -EAGAIN (mov $0xfffffff5 at +0x167), but not the loop that calls it again:
 * unknown, never not_fixed from what was not read.
 */
#define TSTOCK_NO_CALLER "alloc_retstack_tasklist: the batch at alloc_retstack_tasklist+0x2f is " \
	"bounded by 32 (at alloc_retstack_tasklist+0x46), the walk leaves when it is used up " \
	"(at alloc_retstack_tasklist+0x92) and -EAGAIN is returned (at " \
	"alloc_retstack_tasklist+0x167), but its caller's code was not read: the loop back is " \
	"not seen"

static void expect_unknown(struct fgt_static_rec *rec, enum fgt_static_why why,
			   const char *evidence);

static void tstock_no_caller(const char *file)
{
	struct fgt_static_rec rec;

	load(file, &rec);
	assert_null(rec.code.caller);
	expect_unknown(&rec, FGT_SW_SHAPE, TSTOCK_NO_CALLER);
}

/*
 * The shapes a fix can take (issue 39, lab/patches/shape-*), each its own
 * patch on lab-stock's fgraph.c, compiled by the lab's 7.x build command and
 * recorded with tests/static-reloc.py (lab-stock's own fgraph.o recorded
 * that way decodes to lab-stock's answer, address for address). The sites,
 * the compares and the calls below were read off `objdump -d` of the
 * recordings (tests/data/static/lab-shape-*.txt).
 */
static void check_shape(const char *file, enum fgt_verdict want, const char *evidence,
			unsigned int nsites, const char *lock0)
{
	struct fgt_static_rec rec;
	struct fgt_static_result r;

	load(file, &rec);
	assert_null(rec.code.caller);
	assert_int_equal(decode(&rec, &r), want);
	assert_int_equal(r.why, FGT_SW_NONE);
	assert_string_equal(r.evidence, evidence);
	assert_int_equal(r.nr_sites, nsites);
	assert_false(r.walk_by_loop);
	assert_string_equal(r.rcu_lock[0], lock0);
	fgt_static_rec_free(&rec);
}

/* one walk, `mov $0x2800,%esi; call kmem_cache_alloc_noprof` at +0x375
 * between __rcu_read_lock (+0x2f8) and __rcu_read_unlock (+0x48d); no
 * reserve, no kcalloc of ret_stack_list: one allocator call */
static void test_shape_single(void **state)
{
	check_shape("lab-shape-single", FGT_VERDICT_FIXED,
		    INL("GFP_NOWAIT|__GFP_NOWARN", "register_ftrace_graph+0x375")
		    "register_ftrace_graph+0x375: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
		    "GFP_NOWAIT|__GFP_NOWARN) inside rcu_read_lock(), into t->ret_stack"
		    F_BTF("0x890"), 1, "register_ftrace_graph+0x2f8");
}

/* GFP_NOWAIT at +0x37e; on failure the cursor pinned (lock xadd on both
 * tasks' usage), __rcu_read_unlock at +0x60f, `mov $0xcc0,%esi; call
 * kmem_cache_alloc_noprof` at +0x620, __rcu_read_lock at +0x62a; GCC keeps
 * that pointer on the stack (mov %rax,0x30(%rsp)) across the calls and
 * loads it back for the store into t->ret_stack: the spill followed, the
 * fallback is told by where its pointer goes. put_task_struct() is
 * call_rcu() there. */
static void test_shape_pinned(void **state)
{
	check_shape("lab-shape-pinned", FGT_VERDICT_FIXED,
		    "one walk allocating inline, GFP_NOWAIT|__GFP_NOWARN, at "
		    "register_ftrace_graph+0x37e, falling back to a blocking allocation outside "
		    "the walk's rcu_read_lock() at register_ftrace_graph+0x620 (a pinned cursor); "
		    "register_ftrace_graph+0x37e: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
		    "GFP_NOWAIT|__GFP_NOWARN) inside rcu_read_lock(), into t->ret_stack; "
		    "register_ftrace_graph+0x620: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
		    "GFP_KERNEL) outside rcu_read_lock() (the fallback), into t->ret_stack"
		    F_BTF("0x890"), 2, "register_ftrace_graph+0x300");
}

/* the threads counted (an RCU section of its own from +0x307), the array
 * from __kvmalloc_node_noprof (+0x3a9), then `mov $0xcc0,%esi; call
 * kmem_cache_alloc_noprof` at +0x3d1 stored into stacks[i] in a loop closed
 * by `cmp %rbp,%r15; jne` at +0x3e7 (no 32 in it), one walk storing
 * stacks[i] into t->ret_stack (mov %rcx,0x890(%rdx) at +0x4aa) */
static void test_shape_blocking(void **state)
{
	check_shape("lab-shape-blocking", FGT_VERDICT_FIXED,
		    "every stack allocated before one walk at register_ftrace_graph+0x3d1: the "
		    "batch's loop bounded by a count made at run time (its compare at "
		    "register_ftrace_graph+0x3e7), not by 32; register_ftrace_graph+0x3d1: "
		    "kmem_cache_alloc_noprof(fgraph_stack_cachep, GFP_KERNEL) outside "
		    "rcu_read_lock() (the batch), into ret_stack_list[]" F_BTF("0x890"), 1,
		    "register_ftrace_graph+0x307");
}

/* v1: the batch of 32 (cmp $0x20,%r15 at +0x354), the walk's cmp $0x20 at
 * +0x398 and the retry loop; cond_resched() is no call on this preemptible
 * config, so the code is lab-stock's up to the loop */
static void test_shape_v1(void **state)
{
	check_shape("lab-shape-v1", FGT_VERDICT_NOT_FIXED,
		    SIG("register_ftrace_graph+0x33e", "register_ftrace_graph+0x354",
			"register_ftrace_graph+0x398")
		    "register_ftrace_graph+0x33e: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
		    "GFP_KERNEL) outside rcu_read_lock() (the batch), into ret_stack_list[]; no "
		    "shadow-stack allocation inside the walk (rcu_read_lock() at "
		    "register_ftrace_graph+0x35a)" F_BTF("0x890"), 2, "register_ftrace_graph+0x35a");
}

/* The blocking shape's batch made a batch of 32 (`add $0x20,%r14d; movslq
 * %r14d,%r15` at +0x37e turned into `mov $0x20,%r15d; nop`, the same seven
 * bytes: its loop's cmp %rbp,%r15 now compares with 32), but the walk
 * compares with no 32 (its cmp %r14d,%r15d at +0x454): one part of the
 * signature alone is unknown, never not_fixed. */
static void test_shape_batch32_alone(void **state)
{
	struct fgt_static_rec rec;

	load("lab-shape-blocking", &rec);
	patch(&rec, 0x37e, "41bf2000000090");
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "register_ftrace_graph: the batch at register_ftrace_graph+0x3d1 is bounded "
		       "by 32 (at register_ftrace_graph+0x3e7), but the walk never compares with 32: "
		       "its exit when the batch is used up is not seen");
}

/*
 * clang 19 (LLVM=-19) of the lab's 7.x config: the sweep inlined too, but
 * its cursor steps through &t->thread_node, so the walk reaches ret_stack
 * (+0x890 by BTF) as 0x370(%rbp) (cmpq $0x0,0x370(%rbp); mov %rax,0x370(%rbp);
 * the cursor stepped by mov 0x0(%rbp),%rbp): read before issue 39 as "no
 * shadow-stack allocation found". The batch: mov $0xcc0,%esi; call
 * kmem_cache_alloc_noprof at +0x537, cmp $0x20,%r13 at +0x54c; the walk's
 * cmp $0x20,%r14d at +0x59e; the fix's mov $0x2800 call at +0x68c.
 */
#define CLANG_NODE ", at +0x370 from the thread list's node the walk steps through (the " \
	"field it tests for NULL and stores into)"

static void test_clang_stock(void **state)
{
	check_shape("lab-clang-stock", FGT_VERDICT_NOT_FIXED,
		    SIG("register_ftrace_graph+0x537", "register_ftrace_graph+0x54c",
			"register_ftrace_graph+0x59e")
		    "register_ftrace_graph+0x537: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
		    "GFP_KERNEL) outside rcu_read_lock() (the batch), into ret_stack_list[]; no "
		    "shadow-stack allocation inside the walk (rcu_read_lock() at "
		    "register_ftrace_graph+0x552)" F_BTF("0x890") CLANG_NODE, 2,
		    "register_ftrace_graph+0x552");
}

static void test_clang_fixed(void **state)
{
	check_shape("lab-clang-fixed", FGT_VERDICT_FIXED,
		    INL("GFP_NOWAIT|__GFP_NOWARN", "register_ftrace_graph+0x68c")
		    "register_ftrace_graph+0x68c: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
		    "GFP_NOWAIT|__GFP_NOWARN) inside rcu_read_lock(), into t->ret_stack; "
		    "register_ftrace_graph+0x537: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
		    "GFP_KERNEL) outside rcu_read_lock() (the reserve), into ret_stack_list[]"
		    F_BTF("0x890") CLANG_NODE, 3, "register_ftrace_graph+0x552");
}

/*
 * The debug build of the lab's 7.x (PROVE_LOCKING, PROVE_RCU, KASAN inline;
 * lab/config/7-debug.config), GCC: every load and store tests its shadow
 * byte (cmpb $0x0,(%rdx,%rbp,1); jne to __asan_report_*_noabort), the walk
 * opens with lockdep's lock_acquire(&rcu_lock_map) after __rcu_read_lock,
 * and KASAN's checks take so many registers that ret_stack_list lives on
 * the stack: stock spills it (mov %r12,0x10(%rsp) at +0x7a9) and loads it
 * back in the walk (mov 0x10(%rsp),%rcx at +0x8ec, then mov (%rcx),%rax);
 * fixed spills it at +0x539 (mov %rax,0x18(%rsp)) and loads it back past
 * a push and a pop (lock_acquire's _THIS_IP_, +0x697 and +0x6b0). Read
 * before as "no shadow-stack allocation found" (stock) and as a pinned
 * cursor (fixed). Stock: call kmem_cache_alloc_noprof at +0x70f, cmp
 * $0x20,%ebx at +0x738, the walk's cmp $0x20,%r15d at +0x7f6; fixed: the
 * reserve's call at +0x651, the walk's mov $0x2800,%esi; call at +0x7d4.
 */
static void test_debug_stock(void **state)
{
	check_shape("lab-debug-stock", FGT_VERDICT_NOT_FIXED,
		    SIG("register_ftrace_graph+0x70f", "register_ftrace_graph+0x738",
			"register_ftrace_graph+0x7f6")
		    "register_ftrace_graph+0x70f: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
		    "GFP_KERNEL) outside rcu_read_lock() (the batch), into ret_stack_list[]; no "
		    "shadow-stack allocation inside the walk (rcu_read_lock() at "
		    "register_ftrace_graph+0x73d)" F_BTF("0x12b8"), 2,
		    "register_ftrace_graph+0x73d");
}

static void test_debug_fixed(void **state)
{
	check_shape("lab-debug-fixed", FGT_VERDICT_FIXED,
		    INL("GFP_NOWAIT|__GFP_NOWARN", "register_ftrace_graph+0x7d4")
		    "register_ftrace_graph+0x7d4: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
		    "GFP_NOWAIT|__GFP_NOWARN) inside rcu_read_lock(), into t->ret_stack; "
		    "register_ftrace_graph+0x651: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
		    "GFP_KERNEL) outside rcu_read_lock() (the reserve), into ret_stack_list[]"
		    F_BTF("0x12b8"), 3, "register_ftrace_graph+0x683");
}

/* The debug build's spill undone: its load from the stack made one from
 * another slot (mov 0x10(%rsp),%rcx at +0x8ec read as 0x20(%rsp): 48 8b 4c
 * 24 20): the list's entries are not seen going into t->ret_stack, so the
 * batch is no shadow stack's: unknown, never not_fixed. */
static void test_debug_spill_lost(void **state)
{
	struct fgt_static_rec rec;

	load("lab-debug-stock", &rec);
	patch(&rec, 0x8ec, "488b4c2420");
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "no shadow-stack allocation (kmem_cache fgraph_stack (fgraph_stack_cachep in "
		       "kallsyms)) found in register_ftrace_graph (2 allocator calls)");
	/* the slot overwritten by a 4-byte store on the way to the load (the
	 * walk's mov %rax,0x8(%rsp) at +0x80d made mov %eax,0x10(%rsp); nop):
	 * what the load gets is not the list any more */
	load("lab-debug-stock", &rec);
	patch(&rec, 0x80d, "8944241090");
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "no shadow-stack allocation (kmem_cache fgraph_stack (fgraph_stack_cachep in "
		       "kallsyms)) found in register_ftrace_graph (2 allocator calls)");
}

/*
 * The same function with its caller read: a loop of register_ftrace_graph
 * (hand-assembled at its address: call alloc_retstack_tasklist; cmp
 * $0xfffffff5,%eax; je back; ret) calls it again on -EAGAIN: the loop back,
 * and not_fixed. With the loop on anything but -EAGAIN (test %eax,%eax; jne
 * back), no loop back: unknown.
 */
static void tstock_with_caller(const char *loop_test, enum fgt_verdict want, const char *evidence)
{
	struct fgt_static_rec rec;
	struct fgt_static_result r;
	const struct fgt_ksym *reg, *fn;
	uint8_t code[16];
	int32_t rel;
	size_t n = 0;

	load("lab-traceable-stock", &rec);
	reg = fgt_ksyms_by_name(rec.ks, "register_ftrace_graph");
	fn = fgt_ksyms_by_name(rec.ks, "alloc_retstack_tasklist");
	assert_non_null(reg);
	assert_non_null(fn);
	rel = (int32_t)(fn->addr - (reg->addr + 5));
	code[n++] = 0xe8;
	memcpy(code + n, &rel, 4);
	n += 4;
	for (const char *h = loop_test; h[0] && h[1]; h += 2) {
		unsigned int b;

		assert_int_equal(sscanf(h, "%2x", &b), 1);
		code[n++] = (uint8_t)b;
	}
	code[n] = (uint8_t)(0x100 - (n + 1));	/* the jcc's rel8, back to the call */
	n++;
	code[n++] = 0xc3;
	rec.code.caller = "register_ftrace_graph";
	rec.code.caller_part[0] = (struct fgt_static_part){ reg->addr, code, n };
	rec.code.nr_caller_parts = 1;
	assert_int_equal(decode(&rec, &r), want);
	assert_string_equal(r.evidence, evidence);
	fgt_static_rec_free(&rec);
}

static void test_tstock_caller_loop(void **state)
{
	tstock_with_caller("83f8f574", FGT_VERDICT_NOT_FIXED,
			   "the batch of 32 and its -EAGAIN loop at alloc_retstack_tasklist+0x2f: the "
			   "batch bounded by 32 at alloc_retstack_tasklist+0x46, the walk's exit when it "
			   "is used up at alloc_retstack_tasklist+0x92, -EAGAIN at "
			   "alloc_retstack_tasklist+0x167, and the loop of register_ftrace_graph calling "
			   "it again at register_ftrace_graph+0x0; alloc_retstack_tasklist+0x2f: "
			   "kmem_cache_alloc_noprof(fgraph_stack_cachep, GFP_KERNEL) outside "
			   "rcu_read_lock() (the batch), into ret_stack_list[]; no shadow-stack "
			   "allocation inside the walk (rcu_read_lock() at alloc_retstack_tasklist+0x4c)"
			   F_WALK("0x890"));
}

static void test_tstock_caller_no_eagain(void **state)
{
	tstock_with_caller("85c075", FGT_VERDICT_UNKNOWN,
			   "alloc_retstack_tasklist: the batch at alloc_retstack_tasklist+0x2f is "
			   "bounded by 32 (at alloc_retstack_tasklist+0x46), the walk leaves when it is "
			   "used up (at alloc_retstack_tasklist+0x92) and -EAGAIN is returned (at "
			   "alloc_retstack_tasklist+0x167), but no loop of its caller calls it again on "
			   "-EAGAIN");
}

static void test_lab_traceable_stock(void **state) { tstock_no_caller("lab-traceable-stock"); }
static void test_lab_traceable_fixed(void **state) { check_kernel(&lab_tfixed, "lab-traceable-fixed"); }
static void test_debian_61(void **state) { check_kernel(&deb61, "debian-6.1"); }
static void test_debian_612(void **state) { check_kernel(&deb612, "debian-6.12"); }
static void test_debian_72(void **state) { check_kernel(&deb72, "debian-7.2"); }
static void test_debian_510(void **state) { check_kernel(&deb510, "debian-5.10"); }
static void test_lab_510_stock(void **state) { check_kernel(&lab510_stock, "lab-5.10-stock"); }
static void test_lab_510_fixed(void **state) { check_kernel(&lab510_fixed, "lab-5.10-fixed"); }
static void test_lab_61_stock(void **state) { check_kernel(&lab61_stock, "lab-6.1-stock"); }
static void test_lab_61_fixed(void **state) { check_kernel(&lab61_fixed, "lab-6.1-fixed"); }
static void test_lab_612_stock(void **state) { check_kernel(&lab612_stock, "lab-6.12-stock"); }
static void test_lab_612_fixed(void **state) { check_kernel(&lab612_fixed, "lab-6.12-fixed"); }
static void test_lab_612np_stock(void **state)
{
	check_kernel(&lab612np_stock, "lab-6.12-nopreempt-stock");
}
static void test_lab_612np_fixed(void **state)
{
	check_kernel(&lab612np_fixed, "lab-6.12-nopreempt-fixed");
}

/* The same with BTF's offset given: the same answer, said to be BTF's. */
static void test_lab_612np_btf(void **state)
{
	struct fgt_static_rec rec;
	struct fgt_static_result r;

	load("lab-6.12-nopreempt-fixed", &rec);
	rec.k.ret_stack_off = 2024;
	assert_int_equal(decode(&rec, &r), FGT_VERDICT_FIXED);
	assert_true(r.ret_stack_off_btf);
	assert_non_null(strstr(r.evidence, "; t->ret_stack at +0x7e8 (BTF)"));
	fgt_static_rec_free(&rec);
}

/*
 * The same kernels' text as the running kernel shows it (/proc/kcore on
 * Debian's, BPF on the lab's, which have no kcore): KASLR moved Debian's
 * (by 0x1e400000, 0x15800000, 0x23600000) and boot-time patching rewrote
 * 35, 90 and 104 bytes of it (return thunks into `ret; int3`, ENDBR sealed
 * into nops, relocated immediates, 7.2's WARN calls into ud1), 5 to 9 bytes
 * of the lab's: the answer and its sites are the same.
 */
static void test_live_debian_61(void **state) { check_kernel(&deb61, "debian-6.1-live"); }
static void test_live_debian_612(void **state) { check_kernel(&deb612, "debian-6.12-live"); }
static void test_live_debian_72(void **state) { check_kernel(&deb72, "debian-7.2-live"); }
static void test_live_lab_stock(void **state) { check_kernel(&lab_stock, "lab-stock-live"); }
static void test_live_lab_fixed(void **state) { check_kernel(&lab_fixed, "lab-fixed-live"); }
static void test_live_lab_tstock(void **state) { tstock_no_caller("lab-traceable-stock-live"); }
static void test_live_lab_tfixed(void **state) { check_kernel(&lab_tfixed, "lab-traceable-fixed-live"); }
/* and as /proc/kcore showed the 6.12 kernels without PREEMPT_RCU, booted
 * (tests/static-lab.sh guest: rec.txt), boot-time patched: the same answer */
static void test_live_lab_612np_stock(void **state)
{
	check_kernel(&lab612np_stock, "lab-6.12-nopreempt-stock-live");
}
static void test_live_lab_612np_fixed(void **state)
{
	check_kernel(&lab612np_fixed, "lab-6.12-nopreempt-fixed-live");
}

/* The record format round-trips through the writer. */
static void test_record_roundtrip(void **state)
{
	struct fgt_static_rec rec, back;
	struct fgt_static_result a, b;
	char tmp[] = "/tmp/fgt-static-rt.XXXXXX", msg[256];
	FILE *f;
	int fd;

	load("debian-7.2", &rec);
	fd = mkstemp(tmp);
	f = fdopen(fd, "w");
	assert_int_equal(fgt_static_rec_write(f, "round trip", &rec.code, &rec.k), 0);
	fclose(f);
	assert_int_equal(fgt_static_rec_load(tmp, &back, msg, sizeof(msg)), 0);
	unlink(tmp);
	assert_int_equal(back.code.nr_parts, 2);	/* the function and its .cold part */
	for (unsigned int i = 0; i < back.code.nr_parts; i++) {
		assert_int_equal(back.code.part[i].addr, rec.code.part[i].addr);
		assert_int_equal(back.code.part[i].len, rec.code.part[i].len);
		assert_memory_equal(back.code.part[i].bytes, rec.code.part[i].bytes, rec.code.part[i].len);
	}
	decode(&rec, &a);
	decode(&back, &b);
	assert_string_equal(a.evidence, b.evidence);
	fgt_static_rec_free(&rec);
	fgt_static_rec_free(&back);
}

/* ---- shapes the decoder must not recognize: unknown, never a guess ---------- */

static void expect_unknown(struct fgt_static_rec *rec, enum fgt_static_why why, const char *evidence)
{
	struct fgt_static_result r;

	assert_int_equal(decode(rec, &r), FGT_VERDICT_UNKNOWN);
	assert_string_equal(r.evidence, evidence);
	assert_int_equal(r.why, why);
	fgt_static_rec_free(rec);
}

/* The fix's inline allocation made blocking: a GFP_KERNEL inside the walk. */
static void test_blocking_inside_walk(void **state)
{
	struct fgt_static_rec rec;

	load("lab-fixed", &rec);
	patch(&rec, 0x3cc, "bec00c0000");	/* mov $0x2800,%esi -> mov $0xcc0,%esi */
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "register_ftrace_graph+0x3d1: kmem_cache_alloc_noprof(fgraph_stack_cachep, GFP_KERNEL) "
		       "inside rcu_read_lock(): a blocking allocation inside the walk is neither shape");
}

/* The gfp from a register the decoder does not know. */
static void test_gfp_not_constant(void **state)
{
	struct fgt_static_rec rec;

	load("lab-fixed", &rec);
	patch(&rec, 0x3cc, "89de0f1f00");	/* mov %ebx,%esi; nopl (%rax) */
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "register_ftrace_graph+0x3d1: kmem_cache_alloc_noprof(fgraph_stack_cachep, ?): "
		       "the gfp argument is not a constant here");
}

/* The unfixed batch made non-blocking: neither the batch nor the fix. */
static void test_nonblocking_outside_walk(void **state)
{
	struct fgt_static_rec rec;

	load("lab-stock", &rec);
	patch(&rec, 0x339, "be00280000");	/* mov $0xcc0,%esi -> mov $0x2800,%esi */
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "register_ftrace_graph+0x33e: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
		       "GFP_NOWAIT|__GFP_NOWARN) outside rcu_read_lock(): a non-blocking allocation "
		       "outside the walk is neither shape");
}

/* A path from before the walk into its inline allocation: the walk is then
 * entered at depth 0 too, leaves through __rcu_read_unlock unbalanced, and
 * start_graph_tracing()'s retry loop carries that back to the reserve. */
static void test_mixed_rcu_depth(void **state)
{
	struct fgt_static_rec rec;
	struct fgt_static_result r;

	load("lab-fixed", &rec);
	patch(&rec, 0x35f, "7564");	/* the batch loop's jne, retargeted to +0x3c5 */
	assert_int_equal(decode(&rec, &r), FGT_VERDICT_UNKNOWN);
	assert_int_equal(r.sites[2].rcu, FGT_RCU_MIXED);	/* the inline one */
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "register_ftrace_graph+0x345: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
		       "GFP_KERNEL): reached both inside and outside rcu_read_lock()");
}

/* No PREEMPT_RCU: rcu_read_lock() is no call (here: __rcu_read_lock's symbol
 * gone, so its call is just some call before the walk). The walk is then the
 * loop over the thread list: closed by `cmp $init_task+0x3a8,%rsi; jne` at
 * +0x3dc (lab-stock) and +0x3ec... (objdump), and it tests t->ret_stack. */
static void test_walk_by_loop_stock(void **state)
{
	struct fgt_static_rec rec;
	struct fgt_static_result r;

	load_edited("lab-stock", "__rcu_read_lock", NULL, &rec);
	assert_int_equal(decode(&rec, &r), FGT_VERDICT_NOT_FIXED);
	assert_true(r.walk_by_loop);
	assert_string_equal(r.walk_loop, "register_ftrace_graph+0x3dc");
	assert_string_equal(r.evidence,
			    SIG("register_ftrace_graph+0x33e", "register_ftrace_graph+0x354", "register_ftrace_graph+0x398")
	"register_ftrace_graph+0x33e: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
			    "GFP_KERNEL) outside the walk (the batch), into ret_stack_list[]; no "
			    "shadow-stack allocation inside the walk (the loop over the thread list closed "
			    "at register_ftrace_graph+0x3dc; no rcu_read_lock() call: not PREEMPT_RCU)"
			    F_WALK("0x890"));
	assert_int_equal(r.nr_rcu_lock, 0);
	fgt_static_rec_free(&rec);
}

static void test_walk_by_loop_fixed(void **state)
{
	struct fgt_static_rec rec;
	struct fgt_static_result r;

	load_edited("lab-fixed", "__rcu_read_lock", NULL, &rec);
	assert_int_equal(decode(&rec, &r), FGT_VERDICT_FIXED);
	assert_true(r.walk_by_loop);
	assert_int_equal(r.sites[2].rcu, FGT_RCU_INSIDE);
	assert_int_equal(r.sites[1].rcu, FGT_RCU_OUTSIDE);
	assert_int_equal(r.sites[0].rcu, FGT_RCU_OUTSIDE);
	assert_string_equal(r.evidence,
			    INL("GFP_NOWAIT|__GFP_NOWARN", "register_ftrace_graph+0x3d1") "register_ftrace_graph+0x3d1: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
			    "GFP_NOWAIT|__GFP_NOWARN) inside the walk, into t->ret_stack; "
			    "register_ftrace_graph+0x345: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
			    "GFP_KERNEL) outside the walk (the reserve), into ret_stack_list[]" F_WALK("0x890"));
	fgt_static_rec_free(&rec);
}

/* Neither an rcu_read_lock() call nor the thread loop (init_task unknown). */
static void test_no_walk(void **state)
{
	struct fgt_static_rec rec, rec2;
	char tmp[] = "/tmp/fgt-static-nowalk.XXXXXX";
	FILE *f;
	int fd;

	load_edited("lab-stock", "__rcu_read_lock", NULL, &rec);
	fd = mkstemp(tmp);
	f = fdopen(fd, "w");
	assert_int_equal(fgt_static_rec_write(f, "no walk", &rec.code, &rec.k), 0);
	fclose(f);
	fgt_static_rec_free(&rec);
	{
		char msg[256];
		struct fgt_static_rec t;

		assert_int_equal(fgt_static_rec_load(tmp, &t, msg, sizeof(msg)), 0);
		fgt_static_rec_free(&t);
	}
	load_edited_path(tmp, "init_task", NULL, &rec2);
	unlink(tmp);
	expect_unknown(&rec2, FGT_SW_SHAPE,
		       "no call of __rcu_read_lock in register_ftrace_graph, and no loop over the "
		       "thread list (closed by a cmp with &init_task.tasks): cannot tell the walk");
}

/* The thread loops found (lab-stock has two: the walk, and the one at +0x220
 * that register_ftrace_graph runs when fgraph is already on), but neither
 * tests a t->ret_stack at BTF's offset: the first is named. */
static void test_loop_without_ret_stack_test(void **state)
{
	struct fgt_static_rec rec;

	load_edited("lab-stock", "__rcu_read_lock", NULL, &rec);
	rec.k.ret_stack_off = 0x898;
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "no call of __rcu_read_lock in register_ftrace_graph, and its 2 loops over "
		       "the thread list never store into t->ret_stack (+0x898): not the walk (a "
		       "second user's init_task_vars() only tests it)");
}

/* BTF says ret_stack is elsewhere: no store goes there, no shadow stack. */
static void test_btf_offset_elsewhere(void **state)
{
	struct fgt_static_rec rec;

	load("debian-6.1", &rec);
	assert_int_equal(rec.k.ret_stack_off, 0x13c0);
	rec.k.ret_stack_off = 0x13c8;
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "no shadow-stack allocation (kmalloc FTRACE_RETFUNC_DEPTH * sizeof(struct "
		       "ftrace_ret_stack) (CO-RE)) found in register_ftrace_graph (2 allocator calls)");
}

/* An allocator call inside the walk whose pointer goes nowhere we know (the
 * out-of-line ret_stack_init_task_vars() renamed an allocator): unknown,
 * where it used to be skipped. */
static void test_unclassified_alloc_in_walk(void **state)
{
	struct fgt_static_rec rec;

	load_edited("debian-6.12", "ret_stack_init_task_vars", "kmem_cache_alloc", &rec);
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "register_ftrace_graph+0x54c: kmem_cache_alloc(?, ?) inside the walk: an "
		       "allocation whose pointer goes neither into t->ret_stack nor into "
		       "ret_stack_list[] is neither shape");
}

/* More allocator calls than are judged: unknown, not the first 32 alone. */
static void test_too_many_sites(void **state)
{
	char tmp[] = "/tmp/fgt-static-many.XXXXXX", msg[256];
	const uint64_t fn = 0xffffffff81000000ull, alloc = 0xffffffff81100000ull;
	struct fgt_static_rec rec;
	FILE *f;
	int fd = mkstemp(tmp);

	f = fdopen(fd, "w");
	fprintf(f, "func many\nstack cache 0\nretstack 0x890\n");
	fprintf(f, "sym %016llx T many\nsym %016llx T kmem_cache_alloc_noprof\n",
		(unsigned long long)fn, (unsigned long long)alloc);
	fprintf(f, "part %016llx %d\n", (unsigned long long)fn, 33 * 5 + 1);
	for (int i = 0; i < 33; i++) {
		int32_t rel = (int32_t)(alloc - (fn + 5 * (uint64_t)i + 5));

		fprintf(f, "e8%02x%02x%02x%02x\n", rel & 0xff, (rel >> 8) & 0xff,
			(rel >> 16) & 0xff, (rel >> 24) & 0xff);
	}
	fprintf(f, "c3\n");
	fclose(f);
	assert_int_equal(fgt_static_rec_load(tmp, &rec, msg, sizeof(msg)), 0);
	unlink(tmp);
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "many: more than 32 allocator calls (one more at many+0xa0): the rest would "
		       "go unjudged");
}

/* A jump out of the code read that is no function's entry: not a tail call. */
static void test_jump_outside(void **state)
{
	struct fgt_static_rec rec;
	const struct fgt_ksym *fn;
	uint64_t jmp;
	char hex[11];
	int32_t rel;

	load("debian-7.2", &rec);
	fn = fgt_ksyms_by_name(rec.ks, "kmem_cache_alloc_noprof");
	assert_non_null(fn);
	jmp = rec.code.part[0].addr + 0x4e4;
	rel = (int32_t)(fn->addr + 0x10 - (jmp + 5));
	snprintf(hex, sizeof(hex), "e9%02x%02x%02x%02x", rel & 0xff, (rel >> 8) & 0xff,
		 (rel >> 16) & 0xff, (rel >> 24) & 0xff);
	patch(&rec, 0x4e4, hex);
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "register_ftrace_graph: jump at register_ftrace_graph+0x4e4 to "
		       "kmem_cache_alloc_noprof+0x10, outside the code read and not a function's "
		       "entry: where control goes is not known");
}

/*
 * 5.10 without PREEMPT_RCU, its two ways to the walk: without
 * rcu_read_unlock_strict() among the symbols, the bounds table has no entry,
 * and the thread loop finds the same walk, with the same answer; without
 * init_task neither bounds nor loop can be told, and nothing is claimed.
 */
static void test_no_rcu_bounds_510(void **state)
{
	struct fgt_static_rec rec;
	struct fgt_static_result r;

	load_edited("debian-5.10", "rcu_read_unlock_strict", NULL, &rec);
	assert_int_equal(decode(&rec, &r), FGT_VERDICT_NOT_FIXED);
	assert_true(r.walk_by_loop);
	assert_string_equal(r.evidence,
			    SIG("register_ftrace_graph+0xf2", "register_ftrace_graph+0xd8", "register_ftrace_graph+0x154")
	"register_ftrace_graph+0xf2: kmem_cache_alloc_trace(kmalloc_caches+0x58, "
			    "GFP_KERNEL, 1600) outside the walk (the batch), into ret_stack_list[]; no "
			    "shadow-stack allocation inside the walk (the loop over the thread list closed "
			    "at register_ftrace_graph+0x1a8; no rcu_read_lock() call: not PREEMPT_RCU); "
			    "t->ret_stack at +0x12b0 (the field the walk tests for NULL; no BTF offset)");
	fgt_static_rec_free(&rec);
	load_edited("debian-5.10", "init_task", NULL, &rec);
	expect_unknown(&rec, FGT_SW_SHAPE, "no call of __rcu_read_lock in register_ftrace_graph, and no "
		       "loop over the thread list (closed by a cmp with &init_task.tasks): cannot tell "
		       "the walk");
}

/* A GFP_NOWAIT allocation put into the walk of Debian 11's code (where it
 * sets up a task) whose pointer is stored nowhere: no shadow stack by its
 * destination, so neither shape, whatever its size says. */
static void test_stored_nowhere_510(void **state)
{
	struct fgt_static_rec rec;
	const struct fgt_ksym *fn;
	char hex[64];
	uint64_t call;
	int32_t rel;

	load("debian-5.10", &rec);
	fn = fgt_ksyms_by_name(rec.ks, "kmem_cache_alloc_trace");
	assert_non_null(fn);
	call = rec.code.part[0].addr + 0x16d;
	rel = (int32_t)(fn->addr - (call + 5));
	/* the 21 bytes at +0x163 (movl $0,0x12c0(%rax); movq $-1,0x12a8(%rax)):
	 * mov $0x640,%edx; mov $0x800,%esi; call kmem_cache_alloc_trace; nopw */
	snprintf(hex, sizeof(hex), "ba40060000be00080000e8%02x%02x%02x%02x660f1f440000",
		 rel & 0xff, (rel >> 8) & 0xff, (rel >> 16) & 0xff, (rel >> 24) & 0xff);
	patch(&rec, 0x163, hex);
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "register_ftrace_graph+0x16d: kmem_cache_alloc_trace(?, GFP_NOWAIT, 1600) inside "
		       "the walk: an allocation whose pointer goes neither into t->ret_stack nor into "
		       "ret_stack_list[] is neither shape");
}

/* A call inside the walk that could allocate: not_fixed cannot be claimed. */
static void test_unknown_call_in_walk(void **state)
{
	struct fgt_static_rec rec;

	load_edited("debian-6.12", "ret_stack_init_task_vars", "ret_stack_init_task_vars_new", &rec);
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "register_ftrace_graph+0x54c: the walk calls ret_stack_init_task_vars_new+0x0, "
		       "which is not known not to allocate");
}

/*
 * The fix's shape with a call the walk makes that may allocate: unknown, not
 * fixed, for the call is an allocation left unjudged (a blocking one there
 * is the bug). lab-fixed's walk, after `mov %rsi,0x890(%r15)` at +0x427,
 * reloads the thread list at +0x42e (7 bytes, objdump); a call of memset
 * put there keeps the answer fixed (fgt_walk_calls), and the same call of
 * a function of no known name answers unknown.
 */
static void patch_call(struct fgt_static_rec *rec, size_t off, const char *sym, const char *pad)
{
	const struct fgt_ksym *fn = fgt_ksyms_by_name(rec->ks, sym);
	uint64_t call = rec->code.part[0].addr + off;
	char hex[32];
	int32_t rel;

	assert_non_null(fn);
	rel = (int32_t)(fn->addr - (call + 5));
	snprintf(hex, sizeof(hex), "e8%02x%02x%02x%02x%s", rel & 0xff, (rel >> 8) & 0xff,
		 (rel >> 16) & 0xff, (rel >> 24) & 0xff, pad);
	patch(rec, off, hex);
}

static void test_unknown_call_in_fixed_walk(void **state)
{
	struct fgt_static_rec rec;
	struct fgt_static_result r;

	load("lab-fixed", &rec);
	patch_call(&rec, 0x42e, "memset", "6690");	/* call memset; xchg %ax,%ax */
	assert_int_equal(decode(&rec, &r), FGT_VERDICT_FIXED);
	fgt_static_rec_free(&rec);
	load_edited("lab-fixed", "memset", "vendor_task_hook", &rec);
	patch_call(&rec, 0x42e, "vendor_task_hook", "6690");
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "register_ftrace_graph+0x42e: the walk calls vendor_task_hook+0x0, "
		       "which is not known not to allocate");
}

/* A jump whose targets are not followed. */
static void test_indirect_jump(void **state)
{
	struct fgt_static_rec rec;

	load("lab-stock", &rec);
	patch(&rec, 0x330, "ffe0");	/* jmp +0x339 -> jmp *%rax */
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "register_ftrace_graph: indirect jump at register_ftrace_graph+0x330: its "
		       "targets are not followed");
}

/* Text cut short inside the walk: the first path met that leaves it is the
 * jump at +0x16 (objdump: je +0x629, a WARN's block after the cut). */
static void test_truncated(void **state)
{
	struct fgt_static_rec rec;

	load("lab-stock", &rec);
	rec.code.part[0].len = 0x364;	/* 5 bytes into the 7-byte mov after rcu_read_lock() */
	expect_unknown(&rec, FGT_SW_DISASM,
		       "register_ftrace_graph: jump at register_ftrace_graph+0x16 to "
		       "register_ftrace_graph+0x629, past the code read (its text is cut short)");
}

/* Without fgraph_stack_cachep the batch's cache says "not a shadow stack",
 * its pointer's destination says it is one: neither is believed. */
static void test_no_cache_symbol(void **state)
{
	struct fgt_static_rec rec;

	load_edited("lab-stock", "fgraph_stack_cachep", NULL, &rec);
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "register_ftrace_graph+0x33e: kmem_cache_alloc_noprof(0xffffffff82515d80, "
		       "GFP_KERNEL): its pointer goes into ret_stack_list[], but its cache says it is "
		       "not a shadow stack (kmem_cache fgraph_stack (fgraph_stack_cachep in kallsyms))");
}

/* 6.1 with another shadow-stack size (BTF says the frame is 32 bytes). */
static void test_wrong_shadow_size(void **state)
{
	struct fgt_static_rec rec;

	load("debian-6.1", &rec);
	rec.k.shadow_bytes = 50 * 40;
	expect_unknown(&rec, FGT_SW_SHAPE,
		       "register_ftrace_graph+0xc5: kmalloc_trace(kmalloc_caches+0x58, GFP_KERNEL, "
		       "1600): its pointer goes into ret_stack_list[], but its size says it is not a "
		       "shadow stack (kmalloc FTRACE_RETFUNC_DEPTH * sizeof(struct ftrace_ret_stack) "
		       "(CO-RE))");
}

/* ---- what boot-time patching does to call sites ------------------------------- */

/* Call-depth tracking sends a call into the callee's padding (__pfx_): the
 * same allocator. */
static void test_call_thunk(void **state)
{
	struct fgt_static_rec rec;
	struct fgt_static_result r;
	const struct fgt_ksym *pfx;
	uint64_t call, target;
	char hex[11];
	int32_t rel;

	load("debian-7.2", &rec);
	pfx = fgt_ksyms_by_name(rec.ks, "__pfx_kmem_cache_alloc_noprof");
	assert_non_null(pfx);
	call = rec.code.part[0].addr + 0x4e4;
	target = pfx->addr + 16 - 10;	/* dest - SKL_TMPL_SIZE */
	rel = (int32_t)(target - (call + 5));
	snprintf(hex, sizeof(hex), "e8%02x%02x%02x%02x", rel & 0xff, (rel >> 8) & 0xff,
		 (rel >> 16) & 0xff, (rel >> 24) & 0xff);
	patch(&rec, 0x4e4, hex);
	assert_int_equal(decode(&rec, &r), FGT_VERDICT_NOT_FIXED);
	assert_true(r.sites[1].thunk);
	assert_string_equal(r.evidence,
			    SIG("register_ftrace_graph+0x4e4", "register_ftrace_graph+0x4fa", "register_ftrace_graph+0x542")
	"register_ftrace_graph+0x4e4: kmem_cache_alloc_noprof(fgraph_stack_cachep, "
			    "GFP_KERNEL) outside rcu_read_lock() (through its call thunk) (the batch), into "
			    "ret_stack_list[]; no shadow-stack allocation inside the walk (rcu_read_lock() at "
			    "register_ftrace_graph+0x500)" F_BTF("0x1590"));
	fgt_static_rec_free(&rec);
}

/* The JSON fields. */
static void test_json(void **state)
{
	struct fgt_static_rec rec;
	struct fgt_static_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_writer_t *jw = jsonw_new(f);

	load("lab-fixed", &rec);
	decode(&rec, &r);
	jsonw_start_object(jw);
	fgt_static_json_fields(&r, jw);
	jsonw_end_object(jw);
	jsonw_destroy(&jw);
	fclose(f);
	assert_non_null(strstr(buf, "\"verdict\":\"fixed\""));
	assert_non_null(strstr(buf, "{\"site\":\"register_ftrace_graph+0x3d1\",\"call\":"
			       "\"kmem_cache_alloc_noprof\",\"tail\":false,\"thunk\":false,\"cache\":"
			       "\"fgraph_stack_cachep\",\"gfp\":\"GFP_NOWAIT|__GFP_NOWARN\","
			       "\"gfp_flags\":10240,\"blocking\":false,\"rcu\":\"inside\",\"kind\":\"shadow\","
			       "\"stored\":\"ret_stack\"}"));
	assert_non_null(strstr(buf, "\"walk\":\"rcu_read_lock\",\"ret_stack_off\":2192,"
			       "\"ret_stack_off_from\":\"walk\""));
	assert_non_null(strstr(buf, "\"rcu_read_lock\":[\"register_ftrace_graph+0x361\"]"));
	assert_null(strstr(buf, "\"why\""));
	free(buf);
	fgt_static_rec_free(&rec);
}

/* The live view's "static" record (src/render/out_json.c), checked against docs/json.md
 * by make test-schema. */
static void test_live_record(void **state)
{
	struct fgt_out_opts oo = { .json = true };
	struct fgt_static_rec rec;
	struct fgt_static_result r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct fgt_out *out = fgt_out_new(f, &oo);

	load("lab-stock", &rec);
	decode(&rec, &r);
	fgt_out_static(out, &r);
	fgt_out_free(out);
	fclose(f);
	assert_non_null(strstr(buf, "\"type\":\"static\",\"verdict\":\"not_fixed\""));
	if (getenv("FGT_JSON_OUT")) {
		FILE *j = fopen(getenv("FGT_JSON_OUT"), "a");

		assert_non_null(j);
		fputs(buf, j);
		fclose(j);
	}
	free(buf);
	fgt_static_rec_free(&rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab_stock),
		cmocka_unit_test(test_lab_fixed),
		cmocka_unit_test(test_lab_traceable_stock),
		cmocka_unit_test(test_lab_traceable_fixed),
		cmocka_unit_test(test_debian_61),
		cmocka_unit_test(test_debian_510),
		cmocka_unit_test(test_debian_612),
		cmocka_unit_test(test_debian_72),
		cmocka_unit_test(test_lab_61_stock),
		cmocka_unit_test(test_lab_61_fixed),
		cmocka_unit_test(test_lab_612_stock),
		cmocka_unit_test(test_lab_612_fixed),
		cmocka_unit_test(test_lab_510_stock),
		cmocka_unit_test(test_lab_510_fixed),
		cmocka_unit_test(test_lab_612np_stock),
		cmocka_unit_test(test_lab_612np_fixed),
		cmocka_unit_test(test_lab_612np_btf),
		cmocka_unit_test(test_live_debian_61),
		cmocka_unit_test(test_live_debian_612),
		cmocka_unit_test(test_live_debian_72),
		cmocka_unit_test(test_live_lab_stock),
		cmocka_unit_test(test_live_lab_fixed),
		cmocka_unit_test(test_live_lab_tstock),
		cmocka_unit_test(test_shape_single),
		cmocka_unit_test(test_shape_pinned),
		cmocka_unit_test(test_shape_blocking),
		cmocka_unit_test(test_shape_v1),
		cmocka_unit_test(test_shape_batch32_alone),
		cmocka_unit_test(test_clang_stock),
		cmocka_unit_test(test_clang_fixed),
		cmocka_unit_test(test_debug_stock),
		cmocka_unit_test(test_debug_fixed),
		cmocka_unit_test(test_debug_spill_lost),
		cmocka_unit_test(test_tstock_caller_loop),
		cmocka_unit_test(test_tstock_caller_no_eagain),
		cmocka_unit_test(test_live_lab_tfixed),
		cmocka_unit_test(test_live_lab_612np_stock),
		cmocka_unit_test(test_live_lab_612np_fixed),
		cmocka_unit_test(test_record_roundtrip),
		cmocka_unit_test(test_blocking_inside_walk),
		cmocka_unit_test(test_gfp_not_constant),
		cmocka_unit_test(test_nonblocking_outside_walk),
		cmocka_unit_test(test_mixed_rcu_depth),
		cmocka_unit_test(test_walk_by_loop_stock),
		cmocka_unit_test(test_walk_by_loop_fixed),
		cmocka_unit_test(test_no_walk),
		cmocka_unit_test(test_loop_without_ret_stack_test),
		cmocka_unit_test(test_btf_offset_elsewhere),
		cmocka_unit_test(test_unclassified_alloc_in_walk),
		cmocka_unit_test(test_too_many_sites),
		cmocka_unit_test(test_jump_outside),
		cmocka_unit_test(test_no_rcu_bounds_510),
		cmocka_unit_test(test_stored_nowhere_510),
		cmocka_unit_test(test_unknown_call_in_walk),
		cmocka_unit_test(test_unknown_call_in_fixed_walk),
		cmocka_unit_test(test_indirect_jump),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_no_cache_symbol),
		cmocka_unit_test(test_wrong_shadow_size),
		cmocka_unit_test(test_call_thunk),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_live_record),
	};

	return cmocka_run_group_tests_name("static", tests, NULL, NULL);
}
