// SPDX-License-Identifier: Apache-2.0
/* The bounded readers against what a config or a pod may plant, the string
 * helpers and the UTF-8 rules. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "helpers.h"
#include "base/util.h"

static char dir[64];

static void setup(void)
{
	make_tmpdir(dir, sizeof(dir));
}

static void teardown(void)
{
	rm_tree(dir);
}

/* Each refusal must come back at once: a blocking open or an unbounded read
 * would trip the suite's timeout instead. */
TestSuite(read, .init = setup, .fini = teardown, .timeout = 10);

static char *at(const char *rel)
{
	static char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return path;
}

Test(read, regular_file_read_whole)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;

	tree_put(dir, "f", "0x8001\n");
	cr_assert_eq(read_file(at("f"), 7, &buf, &len), 0);
	cr_assert_str_eq(buf, "0x8001\n");
	cr_assert_eq(len, 7);
}

Test(read, fifo_refused_without_blocking)
{
	char *buf = (char *)1;

	/* No writer: a blocking open would wait for one for ever. */
	cr_assert_eq(mkfifo(at("fifo"), 0600), 0);
	cr_assert_eq(read_file(at("fifo"), 64, &buf, NULL), -EINVAL);
	cr_assert_null(buf);
}

Test(read, device_refused)
{
	char *buf = (char *)1;

	cr_assert_eq(read_file("/dev/zero", 64, &buf, NULL), -EINVAL);
	cr_assert_null(buf);
	cr_assert_eq(read_file("/dev/null", 64, &buf, NULL), -EINVAL);
}

Test(read, directory_refused)
{
	char *buf = (char *)1;

	cr_assert_eq(read_file(dir, 64, &buf, NULL), -EINVAL);
	cr_assert_null(buf);
}

Test(read, symlink_refused)
{
	char *buf = (char *)1;

	tree_put(dir, "target", "secret");
	tree_link(dir, "target", "link");
	cr_assert_eq(read_file(at("link"), 64, &buf, NULL), -ELOOP);
	cr_assert_null(buf);
}

Test(read, over_the_bound_refused)
{
	_cleanup_close_ int fd = open(at("big"), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	_cleanup_free_ char *buf = NULL;
	char *none = (char *)1;

	cr_assert_geq(fd, 0);
	/* Sparse 1 GiB: reading it all would take seconds and the memory. */
	cr_assert_eq(ftruncate(fd, 1L << 30), 0);
	cr_assert_eq(read_file(at("big"), 4096, &none, NULL), -EFBIG);
	cr_assert_null(none);
	/* The bound itself is allowed. */
	cr_assert_eq(ftruncate(fd, 4096), 0);
	cr_assert_eq(read_file(at("big"), 4096, &buf, NULL), 0);
}

Test(read, fileat_and_fd)
{
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	char *none = (char *)1;

	tree_put(dir, "f", "x");
	cr_assert_eq(read_fileat(dfd, "f", 8, &buf, NULL), 0);
	cr_assert_str_eq(buf, "x");
	cr_assert_eq(mkfifo(at("p"), 0600), 0);
	cr_assert_eq(read_fileat(dfd, "p", 8, &none, NULL), -EINVAL);
	cr_assert_eq(read_fd(zero, 8, &none, NULL), -EINVAL);
	cr_assert_null(none);
}

Test(util, dup_str)
{
	_cleanup_free_ char *a = NULL;
	char *b = (char *)1;

	cr_assert_eq(dup_str(&a, "x"), 0);
	cr_assert_str_eq(a, "x");
	cr_assert_eq(dup_str(&b, NULL), 0);
	cr_assert_null(b);
}

Test(util, numbers_as_printf_writes_them)
{
	static const int64_t vals[] = {
	    0, 1, -1, 9, 10, -10, 1500, 9000, 4294967295LL, INT64_MAX, INT64_MIN, INT64_MIN + 1};
	char got[CNI_NUM_MAX], want[32];

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		snprintf(want, sizeof(want), "%" PRId64, vals[i]);
		cr_assert_str_eq(cni_i64_str(vals[i], got), want);
		snprintf(want, sizeof(want), "%" PRIu64, (uint64_t)vals[i]);
		cr_assert_str_eq(cni_u64_str((uint64_t)vals[i], got), want);
	}
	cr_assert_eq(strlen(cni_u64_str(UINT64_MAX, got)), CNI_NUM_MAX - 1);
}

Test(util, hex_pairs_fit_or_refuse)
{
	static const unsigned char mac[6] = {0x00, 0x1b, 0xa0, 0xff, 0x7e, 0x09};
	char buf[18];

	cr_assert_eq(cni_hex_str(mac, 6, ':', buf, sizeof(buf)), 0);
	cr_assert_str_eq(buf, "00:1b:a0:ff:7e:09");
	cr_assert_eq(cni_hex_str(mac, 6, 0, buf, 13), 0);
	cr_assert_str_eq(buf, "001ba0ff7e09");
	cr_assert_eq(cni_hex_str(mac, 0, ':', buf, 1), 0);
	cr_assert_str_eq(buf, "");
	/* One byte short: nothing half-written. */
	cr_assert_eq(cni_hex_str(mac, 6, ':', buf, 17), -ENAMETOOLONG);
	cr_assert_str_eq(buf, "");
	cr_assert_eq(cni_hex_str(mac, 6, 0, buf, 12), -ENAMETOOLONG);
}

Test(util, utf8)
{
	static const struct {
		const char *s;
		bool ok;
		size_t bad;
	} cases[] = {
	    {"plain", true, 0},
	    {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", true, 0},
	    {"a\xff", false, 1},
	    {"\xc0\xaf", false, 0},	    /* overlong '/' */
	    {"ab\xed\xa0\x80", false, 2},   /* a UTF-16 surrogate */
	    {"\xf4\x90\x80\x80", false, 0}, /* above U+10FFFF */
	    {"x\xe2\x82", false, 1},	    /* truncated */
	    {"\x80", false, 0},		    /* a stray continuation */
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t bad = 99;

		cr_assert_eq(utf8_valid(cases[i].s, strlen(cases[i].s), &bad), cases[i].ok,
			     "case %zu", i);
		if (!cases[i].ok)
			cr_assert_eq(bad, cases[i].bad, "case %zu", i);
	}
}
