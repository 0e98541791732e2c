// SPDX-License-Identifier: Apache-2.0
/* CNI_ARGS parsing with Go's IgnoreUnknown semantics. */
#include <criterion/criterion.h>

#include "protocol/args.h"
#include "helpers.h"

static const char *const known[] = {"IP", "MAC"};

Test(args, pairs_and_lookup)
{
	struct cni_error err = {0};
	struct cni_args a;

	cr_assert_eq(cni_args_parse("IP=10.1.2.3;MAC=aa:bb:cc:dd:ee:ff", &a, &err), 0);
	cr_assert_eq(a.n, 2);
	cr_assert_str_eq(cni_args_get(&a, "IP"), "10.1.2.3");
	cr_assert_str_eq(cni_args_get(&a, "MAC"), "aa:bb:cc:dd:ee:ff");
	cr_assert_null(cni_args_get(&a, "ip"), "keys are case-sensitive");
	cr_assert_eq(cni_args_check(&a, known, 2, &err), 0);
	cni_args_free(&a);
}

Test(args, empty_and_trailing_separator)
{
	struct cni_error err = {0};
	struct cni_args a;

	cr_assert_eq(cni_args_parse("", &a, &err), 0);
	cr_assert_eq(a.n, 0);
	cr_assert_eq(cni_args_parse("IgnoreUnknown=1;", &a, &err), 0);
	cr_assert_eq(a.n, 1);
	cr_assert(a.ignore_unknown);
	cni_args_free(&a);
}

Test(args, invalid_pair_is_code_4)
{
	struct cni_error err = {0};
	struct cni_args a;

	cr_assert_lt(cni_args_parse("FOO;IP=1", &a, &err), 0);
	assert_cni_error(&err, 4, "ARGS: invalid pair in CNI_ARGS");
	cr_assert(strstr(err.details, "\"FOO\""));
}

/* Go's types.LoadArgs splits a pair on '=' and wants two parts: a second
 * '=' is refused (host-local, sriov-cni, rdma-cni), and so is a newline or
 * any control character, and a pair no runtime sends (64 KiB): code 4
 * naming CNI_ARGS and the pair, cut to its first bytes. */
Test(args, second_equals_control_and_size_refused)
{
	static const char *const bad[] = {
	    "BLAH=foo=bar", "IP=10.0.0.1\nMAC=x", "IP=a\rb", "K=\x1b[2J", "K=v\x7f", "=="};
	struct cni_error err = {0};
	struct cni_args a;
	char *big = malloc(65537);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[64];

		snprintf(buf, sizeof(buf), "IgnoreUnknown=1;%s;X=1", bad[i]);
		memset(&err, 0, sizeof(err));
		cr_assert_eq(cni_args_parse(buf, &a, &err), -EINVAL, "%s accepted", bad[i]);
		assert_cni_error(&err, 4, "ARGS: invalid pair in CNI_ARGS");
		cr_assert_eq(a.n, 0, "nothing kept");
	}
	cr_assert_not_null(big);
	memcpy(big, "X=", 2);
	memset(big + 2, 'a', 65534);
	big[65536] = '\0';
	memset(&err, 0, sizeof(err));
	cr_assert_eq(cni_args_parse(big, &a, &err), -EINVAL);
	assert_cni_error(&err, 4, "ARGS: invalid pair in CNI_ARGS");
	cr_assert(strstr(err.details, "(65536 bytes) is longer than 4096 bytes"), "%s",
		  err.details);
	cr_assert_lt(strlen(err.details), 200, "the pair is not copied whole");
	/* The longest pair taken. */
	big[CNI_ARGS_PAIR_MAX] = '\0';
	cr_assert_eq(cni_args_parse(big, &a, &err), 0);
	cr_assert_eq(strlen(cni_args_get(&a, "X")), CNI_ARGS_PAIR_MAX - 2);
	cni_args_free(&a);
	free(big);
}

/* The pair shown in the details is cut between characters, never inside one. */
Test(args, long_pair_named_by_whole_characters)
{
	struct cni_error err = {0};
	struct cni_args a;
	char buf[128] = "K=";

	/* 62 ASCII bytes, then a two-byte character across byte 64. */
	memset(buf + 2, 'a', 61);
	strcat(buf, "\xc3\xa9=x");
	cr_assert_eq(cni_args_parse(buf, &a, &err), -EINVAL);
	cr_assert(strstr(err.details, "aaa...\" ("), "%s", err.details);
	cr_assert_null(strstr(err.details, "\xc3"), "%s", err.details);
}

Test(args, unknown_keys)
{
	struct cni_error err = {0};
	struct cni_args a;

	cr_assert_eq(cni_args_parse("K8S_POD_NAME=foo;IP=10.0.0.1", &a, &err), 0);
	cr_assert_lt(cni_args_check(&a, known, 2, &err), 0);
	assert_cni_error(&err, 4, "ARGS: unknown args in CNI_ARGS");
	cr_assert(strstr(err.details, "[\"K8S_POD_NAME=foo\"]"), "%s", err.details);
	cni_args_free(&a);
}

Test(args, ignore_unknown_values)
{
	static const char *const yes[] = {"IgnoreUnknown=1", "IgnoreUnknown=true",
					  "IgnoreUnknown=TRUE"};
	static const char *const no[] = {"IgnoreUnknown=0", "ignoreunknown=1", "IgnoreUnknown=yes"};
	struct cni_error err = {0};
	struct cni_args a;
	char buf[64];

	for (size_t i = 0; i < 3; i++) {
		snprintf(buf, sizeof(buf), "%s;X=1", yes[i]);
		cr_assert_eq(cni_args_parse(buf, &a, &err), 0);
		cr_assert_eq(cni_args_check(&a, known, 2, &err), 0, "%s", buf);
		cni_args_free(&a);
		snprintf(buf, sizeof(buf), "%s;X=1", no[i]);
		cr_assert_eq(cni_args_parse(buf, &a, &err), 0);
		memset(&err, 0, sizeof(err));
		cr_assert_lt(cni_args_check(&a, known, 2, &err), 0, "%s", buf);
		cni_args_free(&a);
	}
}
