// SPDX-License-Identifier: GPL-2.0
/*
 * Build ID from ELF note streams: the .notes sections of Debian's 6.1 and 7.2
 * vmlinux (objcopy -O binary --only-section=.notes) and this machine's
 * /sys/kernel/notes, as recorded in tests/data/notes/, plus hand-made streams.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "host/kernel_id.h"

static size_t slurp(const char *name, unsigned char *buf, size_t cap)
{
	const char *dir = getenv("FGT_TEST_DATA");
	char p[512];
	size_t n;
	FILE *f;

	snprintf(p, sizeof(p), "%s/notes/%s", dir ? dir : "tests/data", name);
	f = fopen(p, "rb");
	assert_non_null(f);
	n = fread(buf, 1, cap, f);
	fclose(f);
	return n;
}

static void expect_file(const char *name, const char *want)
{
	unsigned char buf[4096];
	char hex[2 * FGT_BUILD_ID_MAX + 1];
	size_t n = slurp(name, buf, sizeof(buf));

	assert_int_equal(fgt_build_id_parse(buf, n, hex, sizeof(hex)), 0);
	assert_string_equal(hex, want);
}

/* readelf -n of the same vmlinux files gives these */
static void test_recorded(void **state)
{
	/* 6.1's stream has Xen notes of type 3 before GNU's: skipped by owner name */
	expect_file("debian-6.1.0-50-amd64.notes", "06f8bde30046985060c60820f7a11515a33afb06");
	expect_file("debian-7.2.13+deb14-amd64.notes", "f8da1e460d1343b62f4a8880ae5ce63634756e7a");
	/* GNU first, then Linux and Xen notes */
	expect_file("host-6.18.44-fc.notes", "4a5a9b0affb66c437abcd455d2738af879985fa9");
}

/* Append one note: namesz, descsz, type, name (padded), desc (padded). */
static size_t put_note(unsigned char *p, const char *name, uint32_t type,
		       const void *desc, uint32_t descsz)
{
	uint32_t namesz = strlen(name) + 1;
	size_t off = 0;

	memcpy(p + off, &namesz, 4);
	memcpy(p + off + 4, &descsz, 4);
	memcpy(p + off + 8, &type, 4);
	off += 12;
	memset(p + off, 0, (namesz + 3) & ~3u);
	memcpy(p + off, name, namesz);
	off += (namesz + 3) & ~3u;
	memset(p + off, 0, (descsz + 3) & ~3u);
	memcpy(p + off, desc, descsz);
	return off + ((descsz + 3) & ~3u);
}

static void test_hand_made(void **state)
{
	static const unsigned char id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
					      7, 8, 9, 10, 11, 12, 13, 14, 15, 0xff };
	unsigned char buf[256];
	char hex[64], small[10];
	size_t n = 0;

	n += put_note(buf + n, "Xen", 3, "\0\0\0\x80\xff\xff\xff\xff", 8);
	n += put_note(buf + n, "Linux", 0x101, "abc", 3);	/* odd desc: padded */
	n += put_note(buf + n, "GNU", 1, "\0\0\0\0", 4);	/* GNU, but ABI tag */
	n += put_note(buf + n, "GNU", 3, id, sizeof(id));
	assert_int_equal(fgt_build_id_parse(buf, n, hex, sizeof(hex)), 0);
	assert_string_equal(hex, "deadbeef0102030405060708090a0b0c0d0e0fff");
	assert_int_equal(fgt_build_id_parse(buf, n, small, sizeof(small)), -ENOSPC);
	/* cut inside the build ID's desc */
	assert_int_equal(fgt_build_id_parse(buf, n - 5, hex, sizeof(hex)), -EBADMSG);
	assert_string_equal(hex, "");
	/* no build ID at all: only the first three notes */
	n = 0;
	n += put_note(buf + n, "Xen", 3, "\0\0\0\x80\xff\xff\xff\xff", 8);
	n += put_note(buf + n, "Linux", 0x101, "abc", 3);
	assert_int_equal(fgt_build_id_parse(buf, n, hex, sizeof(hex)), -ENOENT);
	assert_int_equal(fgt_build_id_parse(buf, 0, hex, sizeof(hex)), -ENOENT);
	/* a header whose namesz runs past the end */
	memset(buf, 0xff, 12);
	assert_int_equal(fgt_build_id_parse(buf, 16, hex, sizeof(hex)), -EBADMSG);
	/* a stray tail shorter than a header */
	n = put_note(buf, "GNU", 1, "\0\0\0\0", 4);
	assert_int_equal(fgt_build_id_parse(buf, n + 3, hex, sizeof(hex)), -EBADMSG);
}

/* The last note's desc padding may be missing (descsz fits, the stream ends). */
static void test_unpadded_tail(void **state)
{
	unsigned char buf[64];
	char hex[16];
	size_t n = put_note(buf, "GNU", 3, "\x01\x02\x03", 3);

	assert_int_equal(fgt_build_id_parse(buf, n - 1, hex, sizeof(hex)), 0);
	assert_string_equal(hex, "010203");
}

static void test_read(void **state)
{
	const char *dir = getenv("FGT_TEST_DATA");
	struct fgt_kernel_id id;
	char p[512];

	snprintf(p, sizeof(p), "%s/notes/debian-7.2.13+deb14-amd64.notes", dir ? dir : "tests/data");
	fgt_kernel_id_read(&id, p);
	assert_true(id.release[0] != '\0');
	assert_string_equal(id.build_id, "f8da1e460d1343b62f4a8880ae5ce63634756e7a");
	assert_int_equal(id.build_id_err, 0);
	fgt_kernel_id_read(&id, "/nonexistent/notes");
	assert_string_equal(id.build_id, "");
	assert_int_equal(id.build_id_err, -ENOENT);
	assert_true(id.release[0] != '\0');
	/* 64 KiB or more is no .notes section; one byte less is read (and is
	 * no note either) */
	for (size_t size = 65535; size <= 65536; size++) {
		char big[] = "/tmp/fgt-notes.XXXXXX";
		int fd = mkstemp(big);

		assert_true(fd >= 0);
		assert_int_equal(ftruncate(fd, (off_t)size), 0);
		close(fd);
		fgt_kernel_id_read(&id, big);
		unlink(big);
		assert_int_equal(id.build_id_err, size == 65536 ? -EFBIG : -EBADMSG);
		assert_string_equal(id.build_id, "");
	}
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* securityfs's lockdown file first, the command line where it is absent. */
static void test_lockdown(void **state)
{
	char sfs[] = "/tmp/fgt-lockdown.XXXXXX", cmd[] = "/tmp/fgt-cmdline.XXXXXX";
	int a = mkstemp(sfs), b = mkstemp(cmd);

	assert_true(a >= 0 && b >= 0);
	close(a);
	close(b);
	put(cmd, "console=ttyS0 lockdown=integrity\n");
	put(sfs, "none integrity [confidentiality]\n");
	assert_int_equal(fgt_lockdown_mode(sfs, cmd), FGT_LOCKDOWN_CONFIDENTIALITY);
	put(sfs, "none [integrity] confidentiality\n");
	assert_int_equal(fgt_lockdown_mode(sfs, cmd), FGT_LOCKDOWN_INTEGRITY);
	put(sfs, "[none] integrity confidentiality\n");
	assert_int_equal(fgt_lockdown_mode(sfs, cmd), FGT_LOCKDOWN_NONE);
	put(sfs, "\n");
	assert_int_equal(fgt_lockdown_mode(sfs, cmd), FGT_LOCKDOWN_UNKNOWN);
	unlink(sfs);
	/* no securityfs: the command line, whole words only */
	assert_int_equal(fgt_lockdown_mode(sfs, cmd), FGT_LOCKDOWN_INTEGRITY);
	put(cmd, "quiet lockdown=confidentiality\n");
	assert_int_equal(fgt_lockdown_mode(sfs, cmd), FGT_LOCKDOWN_CONFIDENTIALITY);
	put(cmd, "xlockdown=confidentiality lockdown=confidentialityx\n");
	assert_int_equal(fgt_lockdown_mode(sfs, cmd), FGT_LOCKDOWN_UNKNOWN);
	put(cmd, "lockdown=none");
	assert_int_equal(fgt_lockdown_mode(sfs, cmd), FGT_LOCKDOWN_NONE);
	unlink(cmd);
	assert_int_equal(fgt_lockdown_mode(sfs, cmd), FGT_LOCKDOWN_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded),
		cmocka_unit_test(test_hand_made),
		cmocka_unit_test(test_unpadded_tail),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_lockdown),
	};

	return cmocka_run_group_tests_name("kernel_id", tests, NULL, NULL);
}
