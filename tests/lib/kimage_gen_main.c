// SPDX-License-Identifier: GPL-2.0
/*
 * fgt-kimage-gen DIR [--fuzz|--atlas]: the hostile kernel files of
 * tests/lib/kimage_gen.h into DIR, one per class, for tests/kimage-bad.py
 * (check --kernel on each, as shipped) and, with --fuzz, as kimage fuzzer
 * seeds (a mode byte first, only the small ones); with --atlas, the one lz4
 * bzImage tests/atlas.sh gives lab/atlas.sh.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/kimage_gen.h"

static int fuzz;
static const char *dir;

static int out(const char *name, struct kgen_buf *b)
{
	char path[4096];
	struct kgen_buf f = *b;
	int err = 0;

	if (fuzz) {
		if (b->len > (1u << 20))
			goto done;
		f.len = b->len + 1;
		f.p = malloc(f.len);
		if (!f.p)
			return -1;
		f.p[0] = 0;		/* the file itself (tests/fuzz/fuzz_kimage.c) */
		memcpy(f.p + 1, b->p, b->len);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	err = kgen_write(&f, path);
	if (err)
		perror(path);
	if (fuzz)
		free(f.p);
done:
	kgen_free(b);
	return err;
}

static void strip(struct kgen_buf *b)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b->p;

	((Elf64_Shdr *)(b->p + eh->e_shoff))[3].sh_type = SHT_NULL;
}

int main(int argc, char **argv)
{
	static const char *const one[] = { "_stext" };
	struct kgen_buf b, elf, ro;
	char name[64];
	int err = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: fgt-kimage-gen DIR [--fuzz]\n");
		return 2;
	}
	dir = argv[1];
	if (argc > 2 && !strcmp(argv[2], "--atlas")) {
		/* make test's atlas input: a kernel, plainly one, in an lz4 bzImage */
		kgen40(&elf, KG40_PLAIN);
		kgen_bzimage(&b, &elf, KGEN_LZ4, 0);
		kgen_free(&elf);
		return out("kernel-plain.lz4.bzImage", &b) ? 1 : 0;
	}
	fuzz = argc > 2 && !strcmp(argv[2], "--fuzz");
	kgen_elf_wrap_phdr(&b);
	err |= out("wrap-phdr.elf", &b);
	kgen_elf_wrap_phoff(&b);
	err |= out("wrap-phoff.elf", &b);
	kgen_elf(&elf, one, 1, NULL, 64, 64 << 10);
	for (int c = 0; c < KGEN__NR; c++) {
		kgen_bzimage(&b, &elf, c, 0);
		snprintf(name, sizeof(name), "one-symbol.%s.bzImage", kgen_codec_name(c));
		err |= out(name, &b);
	}
	err |= out("one-symbol.elf", &elf);
	kgen_zstd_bomb(&b, fuzz ? 1u << 20 : 64u << 20);
	err |= out("zstd-bomb.bzImage", &b);
	kgen_kallsyms_worst(&ro, fuzz ? 2048 : 32768);
	kgen_elf(&b, NULL, 0, ro.p, ro.len, 0);
	strip(&b);
	err |= out("kallsyms-worst.elf", &b);
	kgen_free(&ro);
	/* arm64: an Image of nothing, big-endian, the kallsyms search's worst
	 * case in a raw Image (the whole image is searched), gzip'd, in EFI
	 * zboot images (well-formed, truncated, mislabelled, a bomb), an ELF */
	/* noise, so that the packed ones stay under the ratio cap and are
	 * decompressed: an Image of no kernel */
	{
		static uint8_t noise[64 << 10];
		uint32_t x = 2463534242u;

		for (size_t i = 0; i < sizeof(noise); i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			noise[i] = (uint8_t)x;
		}
		kgen_a64_image(&b, noise, sizeof(noise), 0, 0);
	}
	kgen_gzip(&elf, &b);
	err |= out("a64-noise.Image.gz", &elf);
	kgen_zboot(&elf, &b, KGEN_GZIP, "gzip", 0);
	err |= out("a64-noise.gzip.zboot", &elf);
	kgen_zboot(&elf, &b, KGEN_ZSTD, "zstd", 0);
	err |= out("a64-noise.zstd.zboot", &elf);
	kgen_zboot(&elf, &b, KGEN_ZSTD, "zstd", 1);
	err |= out("a64-truncated.zboot", &elf);
	kgen_zboot(&elf, &b, KGEN_GZIP, "zstd", 0);
	err |= out("a64-mislabelled.zboot", &elf);
	err |= out("a64-noise.Image", &b);
	kgen_a64_image(&b, NULL, 0, 64 << 10, 0);
	err |= out("a64-empty.Image", &b);
	kgen_a64_image(&b, NULL, 0, 64 << 10, 1);
	err |= out("a64-bigendian.Image", &b);
	kgen_elf(&elf, one, 1, NULL, 64, 64 << 10);
	kgen_gzip(&b, &elf);
	err |= out("elf-not-image.Image.gz", &b);
	kgen_free(&elf);
	{
		struct kgen_buf zeros = { calloc(1, fuzz ? 1u << 20 : 64u << 20), fuzz ? 1u << 20 : 64u << 20 };

		if (!zeros.p)
			return 1;
		kgen_zboot(&b, &zeros, KGEN_ZSTD, "zstd", 0);
		kgen_free(&zeros);
		err |= out("a64-zstd-bomb.zboot", &b);
	}
	kgen_kallsyms_worst(&ro, fuzz ? 2048 : 32768);
	kgen_a64_image(&b, ro.p, ro.len, 0, 0);
	err |= out("a64-kallsyms-worst.Image", &b);
	kgen_free(&ro);
	kgen_elf_arm64(&b, one, 1, 64 << 10);
	err |= out("one-symbol-arm64.elf", &b);
	/* issue 40's crafted files (not the control, whose answer is an
	 * all-clear), and what check must say of each (c40.expect) */
	{
		FILE *ex = NULL;
		char p[4096];

		if (!fuzz) {
			snprintf(p, sizeof(p), "%s/c40.expect", dir);
			ex = fopen(p, "w");
			if (!ex)
				return 1;
		}
		for (int k = KG40_PLAIN + 1; k < KG40__NR; k++) {
			snprintf(name, sizeof(name), "c40-%s.elf", kgen40_name(k));
			if (ex)
				fprintf(ex, "%s\t%s\n", name, kgen40_line(k));
			kgen40(&b, k);
			err |= out(name, &b);
		}
		/* class 4: a sweep planted beside the register is not read unless
		 * the register calls it */
		for (int reached = 0; reached < 2; reached++) {
			snprintf(name, sizeof(name), "c40-planted-%s.elf", reached ? "reached" :
				 "unreached");
			if (ex)
				fprintf(ex, "%s\tno call of __rcu_read_lock in %s\n", name, reached ?
					"alloc_retstack_tasklist" : "register_ftrace_graph");
			kgen40_planted(&b, reached);
			err |= out(name, &b);
		}
		/* a package with no vmlinuz, and one whose vmlinuz is no boot image */
		kgen_deb(&b, NULL, NULL);
		err |= out("deb-no-vmlinuz.deb", &b);
		if (ex)
			fprintf(ex, "deb-no-vmlinuz.deb\ta package with no vmlinuz\n");
		kgen_elf(&elf, one, 1, NULL, 64, 64 << 10);
		kgen_deb(&b, "./boot/vmlinuz-6.1.0-99-amd64", &elf);
		kgen_free(&elf);
		err |= out("deb-elf-vmlinuz.deb", &b);
		if (ex) {
			fprintf(ex, "deb-elf-vmlinuz.deb\tits ./boot/vmlinuz-6.1.0-99-amd64 is not a "
				"boot image\n");
			if (fclose(ex))
				err = 1;
		}
	}
	if (!fuzz) {
		/* the one SIGTERM is sent during: 3 million symbols to read */
		static char names[3u << 20][12];
		static const char *np[3u << 20];

		for (size_t i = 0; i < sizeof(np) / sizeof(np[0]); i++) {
			snprintf(names[i], sizeof(names[i]), "s%zu", i);
			np[i] = names[i];
		}
		kgen_elf(&b, np, sizeof(np) / sizeof(np[0]), NULL, 64, 0);
		err |= out("many-symbols.elf", &b);
	}
	return err ? 1 : 0;
}
