// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: check --kernel's whole path on an untrusted file, as check runs
 * it (fgt_static_check: open, bzImage header, decompression, ELF through
 * libelf, .symtab or the kallsyms tables, System.map, BTF, decode, verdict),
 * fed through a memfd; and the decoder and the BTF reader on their own.
 *
 * The first byte picks how the rest is used:
 *   0-3  the file itself (a vmlinux, a bzImage, or anything)
 *   4, 5 the payload of a bzImage made here (gzip, zstd): the decompressors
 *        and the ELF behind them, which a raw mutation rarely reaches
 *   6    a System.map beside a made kernel image
 *   7    a function's machine code, for the decoder
 *   8    raw BTF
 *   9    the body of an arm64 Image made here (its header: the raw Image
 *        path, the whole-image BTF, build-ID and kallsyms searches)
 *   10   ... gzip'd (Image.gz)
 *   11   ... in an EFI zboot image (zstd)
 *   12   a function's A64 code, for the decoder
 * Seeds: tests/fuzz/corpus/kimage (committed heads), the crafted classes
 * (fgt-kimage-gen) and the lab's images' heads where the cache has them
 * (tests/fuzz/fuzz.mk).
 *
 * Beyond memory safety it checks the judge's rule: no input too small to hold
 * a kernel's whole symbol table, or without a Linux banner, answers "not
 * affected", and every answer is one line.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "lib/kimage_gen.h"
#include "static/kimage.h"
#include "host/kbtf.h"
#include "static/static_check.h"
#include "static/static_kernel.h"

/* The allocator, RCU and cache symbols the decoder looks for, at fixed places. */
static const char syms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T register_ftrace_graph\n"
	"ffffffff81002000 T __rcu_read_lock\n"
	"ffffffff81002100 T __rcu_read_unlock\n"
	"ffffffff81003000 T kmem_cache_alloc_noprof\n"
	"ffffffff81003ff0 T __pfx___kmalloc_cache_noprof\n"
	"ffffffff81004000 T __kmalloc_cache_noprof\n"
	"ffffffff81005000 T __x86_return_thunk\n"
	"ffffffff81005100 T __x86_indirect_thunk_rax\n"
	"ffffffff82000000 b fgraph_stack_cachep\n"
	"ffffffff82000100 D kmalloc_caches\n"
	"ffffffff83000000 T _etext\n";

/* The same for arm64 code (the Image's addresses). */
static const char syms_a64[] =
	"ffff800080000000 T _text\n"
	"ffff800080010000 T _stext\n"
	"ffff800080201000 T register_ftrace_graph\n"
	"ffff800080202000 T __rcu_read_lock\n"
	"ffff800080202100 T __rcu_read_unlock\n"
	"ffff800080203000 T kmem_cache_alloc_noprof\n"
	"ffff800080204000 T __kmalloc_cache_noprof\n"
	"ffff800080205000 T __stack_chk_fail\n"
	"ffff800082000000 D init_task\n"
	"ffff800082100000 b fgraph_stack_cachep\n"
	"ffff800082100100 D kmalloc_caches\n"
	"ffff800083000000 T _etext\n";

static struct fgt_ksyms *ks, *ks_a64;

/* data as a file: a memfd, named by its /proc/self/fd path; -1 if none. */
static int as_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz-kimage", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

static void whole_path(const uint8_t *data, size_t size, const uint8_t *map, size_t map_len)
{
	struct fgt_static_opts o = { .no_bpf = true, .btf = "/nonexistent" };
	struct fgt_static_result *r = malloc(sizeof(*r));
	char kpath[64], mpath[64];
	int fd, mfd = -1;

	if (!r)
		return;
	fd = as_file(data, size, kpath, sizeof(kpath));
	if (fd < 0)
		goto out;
	o.kernel = kpath;
	if (map) {
		mfd = as_file(map, map_len, mpath, sizeof(mpath));
		if (mfd < 0)
			goto out;
		o.system_map = mpath;
	}
	fgt_static_check(&o, r);
	/* one line, always; "not affected" only on a whole table */
	if (memchr(r->evidence, '\n', sizeof(r->evidence)) || !r->evidence[0])
		abort();
	/* a whole table is FGT_KSYMS_MIN symbols of 24 bytes: never in less */
	if (r->verdict == FGT_VERDICT_NOT_AFFECTED && size + map_len < FGT_KSYMS_MIN * 24)
		abort();
	/* ... and only of a file that shows a Linux banner */
	if (r->verdict == FGT_VERDICT_NOT_AFFECTED && !r->release[0])
		abort();
out:
	if (fd >= 0)
		close(fd);
	if (mfd >= 0)
		close(mfd);
	free(r);
}

static struct fgt_ksyms *load_syms(const char *text, size_t len)
{
	FILE *f = fmemopen((void *)text, len, "r");
	struct fgt_ksyms *t = fgt_ksyms_load_file(f);

	fclose(f);
	return t;
}

static void as_code(const uint8_t *data, size_t size, enum fgt_arch arch)
{
	struct fgt_static_code c = { .func = "register_ftrace_graph", .nr_parts = 1, .arch = arch };
	struct fgt_static_kernel k = { .stack_src = FGT_STACK_CACHE };
	struct fgt_static_result *r = malloc(sizeof(*r));

	if (!r)
		return;
	if (!ks)
		ks = load_syms(syms, sizeof(syms) - 1);
	if (!ks_a64)
		ks_a64 = load_syms(syms_a64, sizeof(syms_a64) - 1);
	c.part[0] = (struct fgt_static_part){ arch == FGT_ARCH_ARM64 ? 0xffff800080201000ull :
					      0xffffffff81001000ull, data, size };
	k.ks = arch == FGT_ARCH_ARM64 ? ks_a64 : ks;
	/* with and without BTF's offsets: the thread loop told both ways */
	k.ret_stack_off = size && data[0] & 1 ? 0x890 : 0;
	k.tasks_off = size && data[0] & 2 ? 0x468 : 0;
	fgt_static_decode(&c, &k, r);
	k.stack_src = FGT_STACK_KMALLOC;
	k.shadow_bytes = 4096;
	fgt_static_decode(&c, &k, r);
	free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const one[] = { "_stext", "_etext", "linux_banner" };
	struct kgen_buf payload, bz;
	struct fgt_btf_stack bs;

	if (!size)
		return 0;
	switch (data[0] % 13) {
	case 4:
	case 5:
		payload = (struct kgen_buf){ (uint8_t *)data + 1, size - 1 };
		if (size < 65)
			return 0;
		kgen_bzimage(&bz, &payload, data[0] % 9 == 4 ? KGEN_GZIP : KGEN_ZSTD, 0);
		whole_path(bz.p, bz.len, NULL, 0);
		kgen_free(&bz);
		break;
	case 6:
		kgen_elf(&bz, one, 3, NULL, 64, 8192);
		whole_path(bz.p, bz.len, data + 1, size - 1);
		kgen_free(&bz);
		break;
	case 7:
		as_code(data + 1, size - 1, FGT_ARCH_X86_64);
		break;
	case 9:
	case 10:
	case 11:
		kgen_a64_image(&payload, data + 1, size - 1, 0, 0);
		if (data[0] % 13 == 9) {
			whole_path(payload.p, payload.len, NULL, 0);
		} else {
			if (data[0] % 13 == 10)
				kgen_gzip(&bz, &payload);
			else
				kgen_zboot(&bz, &payload, KGEN_ZSTD, "zstd", 0);
			whole_path(bz.p, bz.len, NULL, 0);
			kgen_free(&bz);
		}
		kgen_free(&payload);
		break;
	case 12:
		as_code(data + 1, size - 1, FGT_ARCH_ARM64);
		break;
	case 8:
		fgt_btf_ret_stack(data + 1, size - 1, &bs);
		break;
	default:
		whole_path(data + 1, size - 1, NULL, 0);
	}
	return 0;
}
