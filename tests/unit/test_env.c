// SPDX-License-Identifier: Apache-2.0
/* CNI_* environment rules: the table of the reference's section 1.2. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>

#include "base/util.h"
#include "protocol/env.h"
#include "helpers.h"

struct env_case {
	char command[16], id[64], netns[32], ifname[32], path[16];
	int code;
	char msg[96];
	char details[64];
};

static void setenv_or_unset(const char *k, const char *v)
{
	if (!strcmp(v, "-"))
		unsetenv(k);
	else
		setenv(k, v, 1);
}

ParameterizedTestParameters(env, table)
{
	static struct env_case cases[] = {
	    {"ADD", "ctr", "/n", "eth0", "/p", 0, "", ""},
	    {"DEL", "ctr", "-", "eth0", "/p", 0, "", ""},
	    {"GC", "-", "-", "-", "/p", 0, "", ""},
	    {"STATUS", "-", "-", "-", "/p", 0, "", ""},
	    {"VERSION", "-", "-", "-", "-", 0, "", ""},
	    {"FOO", "ctr", "/n", "eth0", "/p", 4, "unknown CNI_COMMAND: FOO", ""},
	    {"ADD", "ctr", "-", "eth0", "-", 4,
	     "required env variables [CNI_NETNS,CNI_PATH] missing", ""},
	    {"ADD", "-", "-", "-", "-", 4,
	     "required env variables [CNI_CONTAINERID,CNI_NETNS,CNI_IFNAME,CNI_PATH] missing", ""},
	    {"CHECK", "ctr", "-", "eth0", "/p", 4, "required env variables [CNI_NETNS] missing",
	     ""},
	    {"DEL", "-", "-", "eth0", "/p", 4, "required env variables [CNI_CONTAINERID] missing",
	     ""},
	    {"GC", "-", "-", "-", "-", 4, "required env variables [CNI_PATH] missing", ""},
	    {"ADD", "bad/id", "/n", "eth0", "/p", 4, "invalid characters in containerID", "bad/id"},
	    {"ADD", "-x", "/n", "eth0", "/p", 4, "invalid characters in containerID", "-x"},
	    {"ADD", "has space", "/n", "eth0", "/p", 4, "invalid characters in containerID",
	     "has space"},
	    {"ADD", "abc:def", "/n", "eth0", "/p", 4, "invalid characters in containerID",
	     "abc:def"},
	    {"ADD", "a_b.c-d9", "/n", "eth0", "/p", 0, "", ""},
	    {"ADD", "ctr", "/n", "0123456789abcdef", "/p", 4, "interface name is too long",
	     "interface name should be less than 16 characters"},
	    {"ADD", "ctr", "/n", "0123456789abcde", "/p", 0, "", ""},
	    {"ADD", "ctr", "/n", "a:b", "/p", 4,
	     "interface name contains / or : or whitespace characters", "CNI_IFNAME=a:b"},
	    {"ADD", "ctr", "/n", "a/b", "/p", 4,
	     "interface name contains / or : or whitespace characters", "CNI_IFNAME=a/b"},
	    {"ADD", "ctr", "/n", "a b", "/p", 4,
	     "interface name contains / or : or whitespace characters", "CNI_IFNAME=a b"},
	    {"ADD", "ctr", "/n", "..", "/p", 4, "interface name is . or ..", "CNI_IFNAME=.."},
	    {"ADD", "ctr", "/n", ".", "/p", 4, "interface name is . or ..", "CNI_IFNAME=."},
	    /* Control bytes reach logs and kubectl output: refused. */
	    {"ADD", "ctr", "/n", "e\x1b[2Jx", "/p", 4, "interface name contains control characters",
	     "CNI_IFNAME=e\x1b[2Jx"},
	    {"ADD", "ctr", "/n", "e\x07", "/p", 4, "interface name contains control characters",
	     ""},
	    {"ADD", "ctr", "/n", "e\x7f", "/p", 4, "interface name contains control characters",
	     ""},
	    {"ADD", "ctr", "/n", "e\xc2\x9b", "/p", 4, "interface name contains control characters",
	     ""},
	    {"ADD", "ctr", "/n", "e\n", "/p", 4,
	     "interface name contains / or : or whitespace characters", ""},
	    {"ADD", "ctr", "/n", "e\xc2\xa0", "/p", 4,
	     "interface name contains / or : or whitespace characters", ""},
	    {"ADD", "ctr", "/n", "e\xe2\x80\x83", "/p", 4,
	     "interface name contains / or : or whitespace characters", ""},
	    {"ADD", "ctr", "/n", "e\xff", "/p", 4, "interface name is not valid UTF-8", ""},
	    {"DEL", "ctr", "-", "e\x1b", "/p", 4, "interface name contains control characters", ""},
	    /* Letters beyond ASCII are names like any other, as in Go. */
	    {"ADD", "ctr", "/n", "caf\xc3\xa9\xc2\xa3", "/p", 0, "", ""},
	};

	return cr_make_param_array(struct env_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct env_case *c, env, table)
{
	struct cni_error err = {0};
	struct cni_env env;
	int ret;

	setenv_or_unset("CNI_COMMAND", c->command);
	setenv_or_unset("CNI_CONTAINERID", c->id);
	setenv_or_unset("CNI_NETNS", c->netns);
	setenv_or_unset("CNI_IFNAME", c->ifname);
	setenv_or_unset("CNI_PATH", c->path);
	ret = cni_env_load(&env, &err);
	if (!c->code) {
		cr_assert_eq(ret, 0, "%s: unexpected error %s", c->command, err.msg);
		cr_assert_str_eq(cni_command_str(env.command), c->command);
		return;
	}
	cr_assert_lt(ret, 0);
	assert_cni_error(&err, c->code, c->msg);
	if (*c->details)
		cr_assert_str_eq(err.details, c->details);
}

Test(env, no_command_is_not_an_error)
{
	struct cni_error err = {0};
	struct cni_env env;

	unsetenv("CNI_COMMAND");
	cr_assert_eq(cni_env_load(&env, &err), 0);
	cr_assert_eq(env.command, CNI_CMD_NONE);
	cr_assert_eq(err.code, 0);
}

Test(env, network_name_charset)
{
	cr_assert(cni_valid_id("net-1_a.b"));
	cr_assert_not(cni_valid_id("../evil"));
	cr_assert_not(cni_valid_id("a/b"));
	cr_assert_not(cni_valid_id(".hidden"));
	cr_assert_not(cni_valid_id("-dash"));
	cr_assert_not(cni_valid_id(""));
	cr_assert_not(cni_valid_id("ünï"));
}
