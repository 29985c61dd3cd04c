// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel knowledge of src/facts/kfacts.h. Each entry names the change that made
 * it necessary ("<release>: <sha> (<subject>)"); where no upstream commit is
 * the cause, it says what is (a build option, inlining).
 *
 * Read off Debian's linux-source-5.10, -6.1, -6.12 and -7.2 (include/linux/slab.h,
 * gfp_types.h, sched.h, kernel/trace/fgraph.c, fprobe.c) and checked against
 * the lab's kernels; see docs/EVENTS.md for how each is used.
 */
#include <stdio.h>
#include "facts/kfacts.h"

const struct fgt_sym_fact fgt_syms[FGT_SYM__NR] = {
	[FGT_SYM_REGISTER] = { "register_ftrace_graph",
		"every fgraph user registers through it; stock builds inline "
		"start_graph_tracing() and alloc_retstack_tasklist() into it" },
	[FGT_SYM_SWEEP] = { "alloc_retstack_tasklist",
		"the sweep; static, out of line only where fgraph.c is built "
		"instrumented (the lab's traceable kernels)" },
	[FGT_SYM_START] = { "start_graph_tracing",
		"the 0->1 step: allocates the ret_stack_list, loops over sweeps" },
	[FGT_SYM_INIT_TASK] = { "ftrace_graph_init_task",
		"the fork path: one stack per new task while fgraph is active" },
	[FGT_SYM_INIT_IDLE] = { "ftrace_graph_init_idle_task",
		"the per-CPU idle tasks' stacks" },
	[FGT_SYM_EXIT_TASK] = { "ftrace_graph_exit_task",
		"frees a task's stack when it exits (the only place stacks are freed)" },
	[FGT_SYM_RETURN_TO_HANDLER] = { "return_to_handler",
		"function_graph rewrites traced functions' return addresses to it, "
		"so an allocation's call_site can read it" },
	[FGT_SYM_GRAPH_ACTIVE] = { "ftrace_graph_active", "fgraph's user count" },
	[FGT_SYM_NR_THREADS] = { "nr_threads", "threads in the system" },
	[FGT_SYM_STACK_CACHEP] = { "fgraph_stack_cachep",
		"6.13: 434098485bfc (fgraph: Give ret_stack its own kmem cache)" },
	[FGT_SYM_FPROBE_GRAPH_OPS] = { "fprobe_graph_ops",
		"6.14: 4346ba160409 (fprobe: Rewrite fprobe on function-graph tracer): "
		"BPF kprobe_multi links with a return handler are fgraph users" },
	[FGT_SYM_FPROBE_FGRAPH_ENTRY] = { "fprobe_fgraph_entry",
		"the same rewrite, when fprobe_graph_ops is not in kallsyms" },
	[FGT_SYM_FPROBE_FTRACE_ENTRY] = { "fprobe_ftrace_entry",
		"entry-only fprobes (and kprobe_multi links without a return handler) "
		"moved onto an ftrace_ops of their own, off fgraph (upstream around "
		"6.19; read off 7.2's kernel/trace/fprobe.c)" },
	[FGT_SYM_STEXT] = { "_stext", "start of the kernel's own text" },
	[FGT_SYM_ETEXT] = { "_etext", "end of the kernel's own text" },
	[FGT_SYM_RCU_READ_LOCK] = { "__rcu_read_lock",
		"rcu_read_lock() is a call on PREEMPT_RCU kernels (Debian's, the lab's): "
		"it marks where the walk begins" },
	[FGT_SYM_RCU_READ_UNLOCK] = { "__rcu_read_unlock", "... and where it ends" },
	[FGT_SYM_INIT_TASK_STRUCT] = { "init_task",
		"for_each_process_thread() starts at it: without PREEMPT_RCU, "
		"the walk begins with the read of init_task.tasks.next" },
	[FGT_SYM_RCU_UNLOCK_STRICT] = { "rcu_read_unlock_strict",
		"rcu_read_unlock() calls it on non-PREEMPT_RCU tree-RCU kernels "
		"(Debian 11's 5.10): where the walk ends there" },
};

/*
 * Allocator functions a shadow stack can land in. An allocation with a
 * constant size inlines kmalloc() to the cache-and-size shape; a variable size
 * calls the size shape. Order: how the probes try them.
 */
const struct fgt_alloc_fn fgt_alloc_fns[] = {
	{ "kmem_cache_alloc_noprof", FGT_ALLOC_CACHE, 0, 1, -1,
	  "6.10: 7bd230a26648 (mm/slab: enable slab allocation tagging for kmalloc and "
	  "friends): the allocators became *_noprof, the old names macros" },
	{ "kmem_cache_alloc", FGT_ALLOC_CACHE, 0, 1, -1,
	  "before 6.10, the same function without the suffix" },
	{ "__kmalloc_cache_noprof", FGT_ALLOC_CACHE_SIZE, 0, 1, 2,
	  "6.11: a0a44d9175b3 (mm, slab: don't wrap internal functions with "
	  "alloc_hooks()): kmalloc_trace_noprof renamed" },
	{ "kmalloc_trace_noprof", FGT_ALLOC_CACHE_SIZE, 0, 1, 2,
	  "6.10 only: 7bd230a26648 (mm/slab: enable slab allocation tagging for kmalloc "
	  "and friends) renamed kmalloc_trace, the cache kmalloc() of a constant size; "
	  "6.11's a0a44d9175b3 made it __kmalloc_cache_noprof" },
	{ "kmalloc_trace", FGT_ALLOC_CACHE_SIZE, 0, 1, 2,
	  "6.1 .. 6.9: kmalloc() of a constant size (the 6.1 common-kmalloc series, "
	  "mm/slab_common: cleanup kmalloc())" },
	{ "kmem_cache_alloc_trace", FGT_ALLOC_CACHE_SIZE, 0, 1, 2,
	  "up to 6.0 (5.10): kmalloc() of a constant size, kmalloc_trace's name "
	  "before the 6.1 common-kmalloc series" },
	{ "__kmalloc", FGT_ALLOC_SIZE, -1, 1, 0,
	  "before 6.10: kmalloc() of a size not known at build time" },
	{ "__kmalloc_noprof", FGT_ALLOC_SIZE, -1, 1, 0,
	  "6.10: 7bd230a26648; 7.x with CONFIG_KMALLOC_PARTITION_CACHES passes a token "
	  "after the size, moving gfp to the third argument (the kernel's BTF says)" },
};

const size_t fgt_nr_alloc_fns = sizeof(fgt_alloc_fns) / sizeof(fgt_alloc_fns[0]);

#define SHAPE(s) (1u << (s))

const struct fgt_stack_fact fgt_stack_facts[FGT_STACK__NR] = {
	[FGT_STACK_KMALLOC_ARRAY] = {
		"kmalloc FTRACE_RETFUNC_DEPTH * sizeof(struct ftrace_ret_stack) (CO-RE)",
		"up to 6.10",
		"task_struct::ret_stack is a struct ftrace_ret_stack * (1600 bytes on "
		"x86-64 Debian 6.1)",
		SHAPE(FGT_ALLOC_CACHE_SIZE) | SHAPE(FGT_ALLOC_SIZE) },
	[FGT_STACK_KMALLOC] = {
		"kmalloc SHADOW_STACK_SIZE (4096)",
		"6.11, 6.12",
		"6.11: 42675b723b48 (function_graph: Convert ret_stack to a series of longs)",
		SHAPE(FGT_ALLOC_CACHE_SIZE) | SHAPE(FGT_ALLOC_SIZE) },
	[FGT_STACK_CACHE] = {
		"kmem_cache fgraph_stack (fgraph_stack_cachep in kallsyms)",
		"6.13 and later",
		"6.13: 434098485bfc (fgraph: Give ret_stack its own kmem cache)",
		SHAPE(FGT_ALLOC_CACHE) },
};

uint32_t fgt_stack_bytes(enum fgt_stack_src src, uint32_t btf_bytes, long page)
{
	switch (src) {
	case FGT_STACK_KMALLOC_ARRAY:
		return btf_bytes;
	case FGT_STACK_KMALLOC:
		return page > 0 && page <= 65536 ? (uint32_t)page : FGT_SHADOW_STACK_SIZE;
	default:
		return FGT_SHADOW_STACK_SIZE;
	}
}

/*
 * GFP_NOWAIT is __GFP_KSWAPD_RECLAIM (0x800) up to 6.7 and adds __GFP_NOWARN
 * (0x2800) from 6.8: 16f5dfbc851b (gfp: include __GFP_NOWARN in GFP_NOWAIT).
 * Both are named by their bits, so the name is right on every series.
 */
const char *fgt_gfp_name(uint32_t gfp, char *buf, size_t len)
{
	static const struct { uint32_t v; const char *name; } names[] = {
		{ FGT_GFP_KERNEL, "GFP_KERNEL" },
		{ FGT_GFP_KERNEL | FGT_GFP_ZERO, "GFP_KERNEL|__GFP_ZERO" },
		{ FGT_GFP_KSWAPD_RECLAIM, "GFP_NOWAIT" },
		{ FGT_GFP_KSWAPD_RECLAIM | FGT_GFP_NOWARN, "GFP_NOWAIT|__GFP_NOWARN" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].v == gfp) {
			snprintf(buf, len, "%s", names[i].name);
			return buf;
		}
	snprintf(buf, len, "%#x", gfp);
	return buf;
}

/*
 * What boot-time patching and mitigations do to the calls the static decoder
 * follows. The file on disk and /proc/kcore can differ: at boot a direct call
 * may be redirected into its callee's padding (call-depth tracking), a return
 * thunk jump becomes `ret`, a retpoline call becomes `call *%reg`. Both forms
 * mean the same here. Commit ids are not given where they could not be checked
 * against a kernel tree here; the subjects are upstream's.
 */
const struct fgt_text_fact fgt_text_facts[] = {
	{ "__pfx_", true, FGT_TEXT_PADDING,
	  "6.2: objtool --prefix (objtool: Add option to generate prefix symbols): "
	  "CONFIG_CALL_PADDING names the 16 bytes before foo __pfx_foo; call-depth "
	  "tracking (x86/callthunks: Add call patching for call depth tracking) "
	  "redirects direct calls into them at boot (arch/x86/kernel/callthunks.c "
	  "patch_dest(): dest - SKL_TMPL_SIZE)" },
	{ "__cfi_", true, FGT_TEXT_PADDING,
	  "6.1: kCFI (x86: Add support for CONFIG_CFI_CLANG): the type-hash preamble "
	  "before foo is __cfi_foo" },
	{ "__x86_return_thunk", false, FGT_TEXT_RETURN,
	  "5.19: retbleed (x86: Use return-thunk in asm code, x86/retpoline: Use "
	  "-mfunction-return): `ret` is compiled as jmp __x86_return_thunk, "
	  "patched back to ret; int3 at boot where it is not needed" },
	{ "__x86_indirect_", true, FGT_TEXT_INDIRECT,
	  "4.15: retpolines (x86/retpoline: Add initial retpoline support): "
	  "call/jmp __x86_indirect_thunk_<reg>, patched at boot to call/jmp *%reg; "
	  "6.2 adds __x86_indirect_{call,jump}_thunk_ (call depth), 6.15 "
	  "__x86_indirect_its_thunk_ (ITS)" },
	{ "__fentry__", false, FGT_TEXT_NOP,
	  "-pg -mfentry (CONFIG_FUNCTION_TRACER): an instrumented function (the lab's "
	  "traceable fgraph.c) starts with call __fentry__; dynamic ftrace makes it a "
	  "5-byte nop at boot, and its trampolines keep the argument registers when it "
	  "is enabled: the function's first argument survives it" },
	{ "__stack_chk_fail", false, FGT_TEXT_NORETURN,
	  "-fstack-protector (CONFIG_STACKPROTECTOR): kernel/panic.c's __stack_chk_fail() "
	  "panics. GCC puts its call at the end of a block whose callee-saved registers "
	  "were already restored (Debian's arm64 7.2: register_ftrace_graph+0x74c), so "
	  "following control past it would carry those registers into the code after it" },
};

const size_t fgt_nr_text_facts = sizeof(fgt_text_facts) / sizeof(fgt_text_facts[0]);

/* KASAN: the instrumented atomics (atomic_set() of t->tracing_graph_pause
 * in the walk) check their operand's shadow first: reads it, allocates nothing */
#define KASAN_CHECK	"CONFIG_KASAN: instrument_atomic_write() and _read()'s check of " \
			"the shadow (include/linux/instrumented.h)"
/* CONFIG_KASAN_INLINE: each load or store tests its shadow byte inline and
 * calls the report only when it is poisoned; the report prints (and taints),
 * allocates nothing (mm/kasan/report.c) */
#define ASAN_REPORT_WHY	"CONFIG_KASAN_INLINE: the compiler's report call on a poisoned " \
			"shadow byte (mm/kasan/report_generic.c): prints, allocates nothing"
#define ASAN_REPORT(op)	{ "__asan_report_" op "1_noabort", ASAN_REPORT_WHY }, \
			{ "__asan_report_" op "2_noabort", ASAN_REPORT_WHY }, \
			{ "__asan_report_" op "4_noabort", ASAN_REPORT_WHY }, \
			{ "__asan_report_" op "8_noabort", ASAN_REPORT_WHY }, \
			{ "__asan_report_" op "16_noabort", ASAN_REPORT_WHY }, \
			{ "__asan_report_" op "_n_noabort", ASAN_REPORT_WHY }

const struct fgt_walk_call fgt_walk_calls[] = {
	{ "ret_stack_init_task_vars",
	  "6.11: the per-task variables of the multi-user fgraph series (function_graph: "
	  "Add \"task variables\" per task for fgraph_ops): a memset() of the new stack's "
	  "FGRAPH_ARRAY_SIZE words, called out of line by Debian's 6.12 and 7.2" },
	{ "memset",
	  "what ret_stack_init_task_vars() is, where GCC inlines it but not the memset()" },
	{ "__put_task_struct",
	  "put_task_struct()'s last reference: frees the task, allocates nothing; a walk "
	  "that pins its cursor (get_task_struct(), as rcu_lock_break() in "
	  "kernel/hung_task.c) drops the pin with it (issue 39)" },
	{ "call_rcu",
	  "7.x's put_task_struct() of a pinned cursor's last reference: queues the "
	  "task's own rcu_head (__put_task_struct_rcu_cb), allocates nothing" },
	{ "kmem_cache_free",
	  "a pinned cursor's fallback stack given back when the cursor's task exited "
	  "meanwhile (lab-shape-pinned, issue 39): frees, allocates nothing" },
	{ "refcount_warn_saturate",
	  "the WARN of a refcount_t that over- or underflows, in get_task_struct() and "
	  "put_task_struct() of a pinned cursor: prints, allocates nothing" },
	/* A debug build's instrumentation of the walk (issue 39's lab-debug-*):
	 * each checks or records, and allocates no slab object */
	{ "lock_acquire",
	  "CONFIG_DEBUG_LOCK_ALLOC: rcu_read_lock()'s rcu_lock_acquire(&rcu_lock_map); "
	  "lockdep keeps its chains in static arrays" },
	{ "lock_release",
	  "CONFIG_DEBUG_LOCK_ALLOC: rcu_read_unlock()'s rcu_lock_release(), and a pinned "
	  "cursor's own rcu_read_unlock() inside the walk" },
	{ "debug_lockdep_rcu_enabled",
	  "CONFIG_PROVE_RCU: rcu_dereference_check()'s RCU_LOCKDEP_WARN(), in "
	  "for_each_process_thread()'s list_entry_rcu(): a test" },
	{ "lockdep_rcu_suspicious",
	  "CONFIG_PROVE_RCU: RCU_LOCKDEP_WARN()'s report (\"suspicious RCU usage\"): prints" },
	{ "rcu_is_watching",
	  "CONFIG_PROVE_RCU: rcu_read_lock()'s RCU_LOCKDEP_WARN(!rcu_is_watching()): a test" },
	{ "__kasan_check_read", KASAN_CHECK },
	{ "__kasan_check_write", KASAN_CHECK },
	ASAN_REPORT("load"), ASAN_REPORT("store"),
};

const size_t fgt_nr_walk_calls = sizeof(fgt_walk_calls) / sizeof(fgt_walk_calls[0]);

const struct fgt_walk_bound fgt_walk_bounds[] = {
	{ FGT_SYM_RCU_READ_LOCK, FGT_SYM_RCU_READ_UNLOCK, false,
	  "PREEMPT_RCU kernels (Debian's 6.1 and later, every lab kernel): "
	  "rcu_read_lock() and rcu_read_unlock() are calls of __rcu_read_lock() and "
	  "__rcu_read_unlock(). Added in: 40d14da38367 (fgraph: Convert ret_stack "
	  "tasklist scanning to rcu), 5.10; before it the walk held "
	  "read_lock(&tasklist_lock), in no kernel supported here" },
	{ FGT_SYM_INIT_TASK_STRUCT, FGT_SYM_RCU_UNLOCK_STRICT, true,
	  "non-PREEMPT_RCU kernels (Debian 11's 5.10, PREEMPT_VOLUNTARY): "
	  "rcu_read_lock() is preempt_disable(), no code without PREEMPT_COUNT, so "
	  "the walk opens at for_each_process_thread()'s read of init_task.tasks.next "
	  "and closes at rcu_read_unlock()'s call of rcu_read_unlock_strict() (5.10: "
	  "rcu: Report QS for outermost PREEMPT=n rcu_read_unlock() for strict GPs). "
	  "Added in: 40d14da38367 (fgraph: Convert ret_stack tasklist scanning to "
	  "rcu): Debian 11's walk is RCU, not tasklist_lock, in 5.10.218 and 5.10.223 "
	  "alike" },
};

const size_t fgt_nr_walk_bounds = sizeof(fgt_walk_bounds) / sizeof(fgt_walk_bounds[0]);

#define BIT(n)	(1u << (n))

const struct fgt_arch_fact fgt_arch_facts[FGT_ARCH__NR] = {
	[FGT_ARCH_X86_64] = {
		.name = "x86-64", .elf_machine = 62 /* EM_X86_64 */,
		/* rdi, rsi, rdx, rcx, r8, r9; rax; rax rcx rdx rsi rdi r8-r11 */
		.arg_reg = { 7, 6, 2, 1, 8, 9 }, .ret_reg = 0,
		.caller_saved = BIT(0) | BIT(1) | BIT(2) | BIT(6) | BIT(7) | BIT(8) | BIT(9) |
				BIT(10) | BIT(11),
		.abi = "System V AMD64 psABI 3.2.3 (the kernel: arch/x86/entry/calling.h)",
		.kernel_lo = 0xffff800000000000ull,
		/* arch/x86/kernel/vmlinux.lds.S: .text opens with _text = . */
		.text_section = ".text",
		.image = "bzImage: Documentation/arch/x86/boot.rst (\"HdrS\" at 0x202)",
	},
	[FGT_ARCH_ARM64] = {
		.name = "arm64", .elf_machine = 183 /* EM_AARCH64 */,
		/* x0-x7 arguments, x0 the result; x0-x18 and x30 (the link
		 * register, written by bl) are not kept across a call */
		.arg_reg = { 0, 1, 2, 3, 4, 5 }, .ret_reg = 0,
		.caller_saved = 0x7ffffu | BIT(30),
		.abi = "AAPCS64 6.1.1 (general-purpose registers; the kernel: "
		       "arch/arm64/include/asm/ptrace.h's pt_regs)",
		/* _PAGE_END(VA_BITS_MIN), VA_BITS_MIN 48 (arch/arm64/include/asm/memory.h):
		 * below it only the linear map, never the image */
		.kernel_lo = 0xffff800000000000ull,
		/* arch/arm64/kernel/vmlinux.lds.S: `.head.text : { _text = .;
		 * HEAD_TEXT }`, the image header, before .text (_stext, 64 KiB on) */
		.text_section = ".head.text",
		/* arch/arm64/kernel/head.S: code0, code1, text_offset, image_size,
		 * flags, res2-res4, then the magic "ARM\x64" at 56
		 * (arch/arm64/include/asm/image.h ARM64_IMAGE_MAGIC) */
		.image_magic_off = 56, .image_magic = { 'A', 'R', 'M', 0x64 },
		/* KIMAGE_VADDR = MODULES_END = _PAGE_END(48) + MODULES_VSIZE (2 GiB
		 * since 6.5: arm64: mm: Make MODULES_VSIZE 2GiB; 128 MiB before, so
		 * 6.1 links at 0xffff800008000000, whose tables say so) */
		.image_va = 0xffff800080000000ull,
		.image = "Image: Documentation/arch/arm64/booting.rst and arch/arm64/kernel/"
			 "head.S; Image.gz: gzip; EFI zboot: drivers/firmware/efi/libstub/"
			 "zboot-header.S (\"MZ\", \"zimg\" at 4, payload offset and size at 8 "
			 "and 12, the compression's name at 24)",
	},
};

const char *fgt_probe_kind_name(enum fgt_probe_kind k)
{
	switch (k) {
	case FGT_PK_FENTRY:	return "fentry";
	case FGT_PK_FEXIT:	return "fexit";
	case FGT_PK_RAW_TP:	return "raw_tp";
	case FGT_PK_TP_BTF:	return "tp_btf";
	case FGT_PK_TEST_RUN:	return "test_run";
	}
	return "?";
}

/*
 * The probe table. kernel/trace/Makefile strips ftrace instrumentation from
 * everything in kernel/trace/, so on stock kernels the direct rows' programs
 * load (BTF has the FUNC) and fail to attach (-EBUSY): only a real attach
 * tells. Order: how --explain lists the probes.
 */
const struct fgt_probe_row fgt_probe_rows[FGT_ROLE__NR] = {
	[FGT_ROLE_ACT_DIRECT] = {
		.role = FGT_ROLE_ACT_DIRECT, .what = "the 0->1 step, direct",
		.kind = FGT_PK_FENTRY, .direct = true, .alloc_shape = -1,
		.cand = {
			{ "start_graph_tracing", "static; out of line only in instrumented "
			  "builds of fgraph.c", { "d_start_enter", "d_start_exit" } },
			{ "register_ftrace_graph", "holds the inlined start_graph_tracing() "
			  "on stock builds; only the call finding ftrace_graph_active == 0 "
			  "is a 0->1 step", { "d_reg_enter", "d_reg_exit" } },
		},
	},
	[FGT_ROLE_SWEEP_DIRECT] = {
		.role = FGT_ROLE_SWEEP_DIRECT, .what = "sweeps, direct",
		.kind = FGT_PK_FENTRY, .direct = true, .alloc_shape = -1,
		.cand = { { "alloc_retstack_tasklist", "static, inlined on stock builds" } },
		.progs = { "d_sweep_enter", "d_sweep_exit" },
	},
	[FGT_ROLE_FORK_DIRECT] = {
		.role = FGT_ROLE_FORK_DIRECT, .what = "the fork path, direct",
		.kind = FGT_PK_FEXIT, .direct = true, .alloc_shape = -1,
		.cand = { { "ftrace_graph_init_task", "called from copy_process()" } },
		.progs = { "d_fork_exit" },
	},
	/*
	 * raw_tp, not tp_btf: tp_btf refuses to read their `const void *ptr`
	 * up to 6.12 ("arg1 type UNKNOWN is not a struct"). Prototypes are the
	 * same from 6.1 to 7.2: kmalloc(call_site, ptr, bytes_req, bytes_alloc,
	 * gfp_flags, node), kmem_cache_alloc(call_site, ptr, s, gfp_flags, node),
	 * kfree(call_site, ptr), kmem_cache_free(call_site, ptr, s); the node
	 * argument came with 6.1's unification of the NUMA and UMA tracepoints.
	 */
	[FGT_ROLE_TP_KMALLOC] = {
		.role = FGT_ROLE_TP_KMALLOC, .what = "kmalloc: the ret_stack_list, kmalloc'd stacks",
		.kind = FGT_PK_RAW_TP, .attributed_needs = true, .alloc_shape = -1,
		.cand = { { "kmalloc", "call_site, ptr, bytes_req, gfp_flags" } },
		.progs = { "tp_kmalloc" },
		/* 6.13: 434098485bfc (fgraph: Give ret_stack its own kmem cache):
		 * a kmalloc there is only ever the list */
		.cache_progs = { "tp_kmalloc_list" },
	},
	[FGT_ROLE_TP_CACHE_ALLOC] = {
		.role = FGT_ROLE_TP_CACHE_ALLOC, .what = "kmem_cache_alloc: cached stacks",
		.kind = FGT_PK_RAW_TP, .need = FGT_NEED_CACHE, .attributed_needs = true,
		.alloc_shape = -1,
		.cand = { { "kmem_cache_alloc", "6.13: 434098485bfc (fgraph: Give ret_stack "
			    "its own kmem cache)" } },
		.progs = { "tp_kmem_cache_alloc" },
	},
	[FGT_ROLE_TP_KFREE] = {
		.role = FGT_ROLE_TP_KFREE, .what = "kfree: the list's end, unused kmalloc'd stacks",
		.kind = FGT_PK_RAW_TP, .attributed_needs = true, .alloc_shape = -1,
		.cand = { { "kfree", "call_site, ptr" } },
		.progs = { "tp_kfree" },
		.cache_progs = { "tp_kfree_list" },	/* 6.13: 434098485bfc, as kmalloc's */
	},
	[FGT_ROLE_TP_CACHE_FREE] = {
		.role = FGT_ROLE_TP_CACHE_FREE, .what = "kmem_cache_free: unused cached stacks",
		.kind = FGT_PK_RAW_TP, .need = FGT_NEED_CACHE, .attributed_needs = true,
		.alloc_shape = -1,
		.cand = { { "kmem_cache_free", "6.13: 434098485bfc" } },
		.progs = { "tp_kmem_cache_free" },
	},
	[FGT_ROLE_TP_NEWTASK] = {
		.role = FGT_ROLE_TP_NEWTASK, .what = "new tasks: did they get a stack",
		.kind = FGT_PK_TP_BTF, .alloc_shape = -1,
		.cand = { { "task_newtask", "struct task_struct *: task->ret_stack" } },
		.progs = { "tp_task_newtask" },
	},
	[FGT_ROLE_FORK_CTX] = {
		.role = FGT_ROLE_FORK_CTX, .what = "fork context for hidden call sites",
		.kind = FGT_PK_FENTRY, .alloc_shape = -1,
		.cand = { { "copy_process", "while function_graph traces the allocator, "
			    "call_site reads return_to_handler" } },
		.progs = { "fork_enter", "fork_exit" },
	},
	[FGT_ROLE_LAT_CACHE] = {
		.role = FGT_ROLE_LAT_CACHE, .what = "allocator latency, cache shape",
		.kind = FGT_PK_FENTRY, .need = FGT_NEED_CACHE, .lazy = true,
		.alloc_shape = FGT_ALLOC_CACHE,
		.progs = { "lat_cache_enter", "lat_cache_exit" },
	},
	[FGT_ROLE_LAT_CACHE_SIZE] = {
		.role = FGT_ROLE_LAT_CACHE_SIZE, .what = "allocator latency, cache-and-size shape",
		.kind = FGT_PK_FENTRY, .need = FGT_NEED_KMALLOC, .lazy = true,
		.alloc_shape = FGT_ALLOC_CACHE_SIZE,
		.progs = { "lat_csize_enter", "lat_csize_exit" },
	},
	[FGT_ROLE_LAT_SIZE] = {
		.role = FGT_ROLE_LAT_SIZE, .what = "allocator latency, size shape",
		.kind = FGT_PK_FENTRY, .need = FGT_NEED_KMALLOC, .lazy = true,
		.alloc_shape = FGT_ALLOC_SIZE,
		.progs = { "lat_size_enter", "lat_size_exit" },
	},
	[FGT_ROLE_GRAPH_ACTIVE] = {
		.role = FGT_ROLE_GRAPH_ACTIVE, .what = "ftrace_graph_active, read on demand",
		.kind = FGT_PK_TEST_RUN, .alloc_shape = -1,
		/* end_at_sweep: test-run too, the end of an activation begun
		 * at a sweep's allocation (a kernel without ret_stack_list) */
		.progs = { "probe_graph_active", "end_at_sweep" },
		.note = "BPF_PROG_TEST_RUN of a raw_tp program (5.10+): one syscall, no fork",
	},
};

const struct fgt_cand *fgt_row_cand(const struct fgt_probe_row *r, int i)
{
	static struct fgt_cand alloc_cands[FGT_ALLOC__NR][FGT_MAX_CANDS];
	int n = 0;

	if (r->alloc_shape < 0)
		return i >= 0 && i < FGT_MAX_CANDS && r->cand[i].target ? &r->cand[i] : NULL;
	for (size_t k = 0; k < fgt_nr_alloc_fns; k++) {
		const struct fgt_alloc_fn *f = &fgt_alloc_fns[k];

		if ((int)f->shape != r->alloc_shape)
			continue;
		if (n == i && n < FGT_MAX_CANDS) {
			struct fgt_cand *c = &alloc_cands[r->alloc_shape][n];

			c->target = f->name;
			c->change = f->change;
			return c;
		}
		n++;
	}
	return NULL;
}

const struct fgt_figure_fact fgt_figures[FGT_FIG__NR] = {
	[FGT_FIG_ACT] = { "activation (trigger, threads, end-to-end)",
			  { FGT_ROLE_ACT_DIRECT, FGT_ROLE_TP_KMALLOC, FGT_ROLE__NR } },
	[FGT_FIG_SWEEPS] = { "sweeps, walk time",
			     { FGT_ROLE_SWEEP_DIRECT, FGT_ROLE_TP_KMALLOC, FGT_ROLE__NR } },
	[FGT_FIG_ALLOCS] = { "shadow-stack allocations, failures by gfp class",
			     { FGT_ROLE_TP_CACHE_ALLOC, FGT_ROLE_TP_KMALLOC, FGT_ROLE__NR } },
	[FGT_FIG_LAT_SWEEP] = { "per-allocation latency, sweep path",
				{ FGT_ROLE_SWEEP_DIRECT, FGT_ROLE_TP_KMALLOC, FGT_ROLE__NR } },
	[FGT_FIG_LAT_FORK] = { "per-allocation latency, fork path",
			       { FGT_ROLE_LAT_CACHE, FGT_ROLE_LAT_CACHE_SIZE, FGT_ROLE_LAT_SIZE } },
	[FGT_FIG_FORK] = { "fork path (new tasks, tasks left without a stack)",
			   { FGT_ROLE_FORK_DIRECT, FGT_ROLE_TP_NEWTASK, FGT_ROLE__NR } },
};
