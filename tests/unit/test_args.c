// SPDX-License-Identifier: Apache-2.0
/* CNI_ARGS parsing with Go's IgnoreUnknown semantics. */
#include <criterion/criterion.h>

#include "args.h"
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

/* Multus passes a value holding '=' on (BLAH=foo=bar): split at the first. */
Test(args, value_may_hold_equals)
{
	struct cni_error err = {0};
	struct cni_args a;

	cr_assert_eq(cni_args_parse("BLAH=foo=bar;IgnoreUnknown=1", &a, &err), 0);
	cr_assert_str_eq(cni_args_get(&a, "BLAH"), "foo=bar");
	cni_args_free(&a);
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
