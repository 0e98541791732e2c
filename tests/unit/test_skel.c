// SPDX-License-Identifier: Apache-2.0
/* cni_run end to end in a child process: output bytes, exit status, gating. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <sys/capability.h>
#include <sys/wait.h>
#include <unistd.h>

#include "protocol/caps.h"
#include "base/cleanup.h"
#include "protocol/cni.h"
#include "helpers.h"
#include "kernel/netns.h"
#include "base/util.h"

static int status_code = 50;

static int add_ok(struct cni_ctx *ctx)
{
	struct cni_ip *ip;

	ctx->result = cni_result_new();
	ip = cni_result_add_ip(ctx->result);
	cni_prefix_parse("10.1.2.5/24", &ip->address);
	return 0;
}

static int del_ok(struct cni_ctx *ctx)
{
	return 0;
}

static int status_down(struct cni_ctx *ctx)
{
	return cni_errorf(&ctx->err, -EAGAIN, status_code, "not ready", "asked by the test");
}

static int add_errno(struct cni_ctx *ctx)
{
	return -ENODEV; /* no CNI error filled: cni_run must still say something */
}

static int add_lost_netns(struct cni_ctx *ctx)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	/* A saved "host" namespace that setns cannot return to. */
	int saved = open("/dev/null", O_RDONLY);

	cni_netns_restore(&sys, &saved);
	return 0;
}

static const struct cni_plugin plugin_lost = {
    .name = "test",
    .about = "test plugin",
    .add = add_lost_netns,
    .del = del_ok,
    .check = del_ok,
};

static const struct cni_plugin plugin = {
    .name = "test",
    .about = "test plugin",
    .add = add_ok,
    .del = del_ok,
    .check = del_ok,
    .status = status_down,
};

static const struct cni_plugin plugin_errno = {
    .name = "test",
    .about = "test plugin",
    .add = add_errno,
    .del = del_ok,
    .check = del_ok,
    .caps = CNI_CAP(CAP_NET_ADMIN),
};

/* Run cni_run in a child with env "K=V|K=V" and stdin; capture stdout. */
static int run(const struct cni_plugin *p, const char *env, const char *in, char *out, size_t len,
	       bool drop_net_admin)
{
	char inpath[] = "/tmp/ibcni-skel-in.XXXXXX", outpath[] = "/tmp/ibcni-skel-out.XXXXXX";
	int infd = mkstemp(inpath), outfd = mkstemp(outpath), status;
	_cleanup_free_ char *buf = NULL;
	pid_t pid;

	cr_assert(infd >= 0 && outfd >= 0);
	cr_assert_eq(write(infd, in, strlen(in)), (ssize_t)strlen(in));
	lseek(infd, 0, SEEK_SET);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char *e = strdup(env), *save = NULL;

		clearenv();
		for (char *kv = strtok_r(e, "|", &save); kv; kv = strtok_r(NULL, "|", &save))
			putenv(kv);
		if (drop_net_admin) {
			cap_t caps = cap_get_proc();
			cap_value_t v = CAP_NET_ADMIN;

			cap_set_flag(caps, CAP_EFFECTIVE, 1, &v, CAP_CLEAR);
			cap_set_proc(caps);
		}
		dup2(infd, 0);
		dup2(outfd, 1);
		_exit(cni_run(p, 0, NULL));
	}
	waitpid(pid, &status, 0);
	cr_assert_eq(read_file(outpath, 65536, &buf, NULL), 0);
	snprintf(out, len, "%s", buf);
	unlink(inpath);
	unlink(outpath);
	close(infd);
	close(outfd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#define ADD_ENV "CNI_COMMAND=ADD|CNI_CONTAINERID=c1|CNI_NETNS=/n|CNI_IFNAME=eth0|CNI_PATH=/p"

Test(skel, version_lists_all_seven)
{
	char out[1024];

	cr_assert_eq(run(&plugin, "CNI_COMMAND=VERSION", "", out, sizeof(out), false), 0);
	cr_assert_str_eq(out, "{\n    \"cniVersion\": \"1.1.0\",\n    \"supportedVersions\": [\n"
			      "        \"0.1.0\",\n        \"0.2.0\",\n        \"0.3.0\",\n"
			      "        \"0.3.1\",\n        \"0.4.0\",\n        \"1.0.0\",\n"
			      "        \"1.1.0\"\n    ]\n}");
}

Test(skel, no_command_prints_about_to_stderr_only)
{
	char out[256];

	cr_assert_eq(run(&plugin, "X=1", "", out, sizeof(out), false), 0);
	cr_assert_str_eq(out, "");
}

Test(skel, error_json_exact_bytes)
{
	char out[1024];

	cr_assert_eq(run(&plugin, ADD_ENV, "{\"cniVersion\": \"1.0.0\", \"name\": \"-x\"}", out,
			 sizeof(out), false),
		     1);
	cr_assert_str_eq(out, "{\n    \"cniVersion\": \"1.0.0\",\n    \"code\": 7,\n"
			      "    \"msg\": \"invalid characters found in network name\",\n"
			      "    \"details\": \"-x\"\n}");
}

Test(skel, add_prints_result_in_request_version)
{
	char out[1024];

	cr_assert_eq(run(&plugin, ADD_ENV, "{\"cniVersion\": \"0.2.0\", \"name\": \"n\"}", out,
			 sizeof(out), false),
		     0);
	cr_assert_str_eq(out, "{\n    \"cniVersion\": \"0.2.0\",\n    \"ip4\": {\n"
			      "        \"ip\": \"10.1.2.5/24\"\n    },\n    \"dns\": {}\n}");
}

Test(skel, command_gating_by_version)
{
	char out[1024];

	cr_assert_eq(
	    run(&plugin,
		"CNI_COMMAND=CHECK|CNI_CONTAINERID=c|CNI_NETNS=/n|CNI_IFNAME=e|CNI_PATH=/p",
		"{\"cniVersion\": \"0.3.1\", \"name\": \"n\"}", out, sizeof(out), false),
	    1);
	cr_assert(strstr(out, "\"code\": 1,") && strstr(out, "config version does not allow CHECK"),
		  "%s", out);
	cr_assert_eq(run(&plugin, "CNI_COMMAND=GC|CNI_PATH=/p",
			 "{\"cniVersion\": \"1.0.0\", \"name\": \"n\"}", out, sizeof(out), false),
		     1);
	cr_assert(strstr(out, "config version does not allow GC"), "%s", out);
	cr_assert_eq(run(&plugin, "CNI_COMMAND=STATUS|CNI_PATH=/p",
			 "{\"cniVersion\": \"1.0.0\", \"name\": \"n\"}", out, sizeof(out), false),
		     1);
	cr_assert(strstr(out, "config version does not allow STATUS"), "%s", out);
	/* A plugin without GC succeeds silently, as Go's skel does. */
	cr_assert_eq(run(&plugin, "CNI_COMMAND=GC|CNI_PATH=/p",
			 "{\"cniVersion\": \"1.1.0\", \"name\": \"n\"}", out, sizeof(out), false),
		     0);
	cr_assert_str_eq(out, "");
}

Test(skel, status_codes_50_and_51)
{
	char out[1024];

	cr_assert_eq(run(&plugin, "CNI_COMMAND=STATUS|CNI_PATH=/p",
			 "{\"cniVersion\": \"1.1.0\", \"name\": \"n\"}", out, sizeof(out), false),
		     1);
	cr_assert(strstr(out, "\"code\": 50,"), "%s", out);
	status_code = 51;
	cr_assert_eq(run(&plugin, "CNI_COMMAND=STATUS|CNI_PATH=/p",
			 "{\"cniVersion\": \"1.1.0\", \"name\": \"n\"}", out, sizeof(out), false),
		     1);
	cr_assert(strstr(out, "\"code\": 51,"), "%s", out);
}

Test(skel, bare_errno_still_reported)
{
	char out[1024];

	cr_assert_eq(run(&plugin_errno, ADD_ENV, "{\"cniVersion\": \"1.0.0\", \"name\": \"n\"}",
			 out, sizeof(out), false),
		     1);
	cr_assert_str_eq(out, "{\n    \"cniVersion\": \"1.0.0\",\n    \"code\": 100,\n"
			      "    \"msg\": \"No such device\"\n}");
}

Test(skel, missing_capability_named)
{
	char out[1024];

	cr_assert_eq(run(&plugin_errno, ADD_ENV, "{\"cniVersion\": \"1.0.0\", \"name\": \"n\"}",
			 out, sizeof(out), true),
		     1);
	cr_assert(strstr(out, "\"code\": 102,"), "%s", out);
	cr_assert(strstr(out, "CAP_NET_ADMIN"), "%s", out);
}

Test(skel, bad_cni_args_is_code_4)
{
	char out[1024];

	cr_assert_eq(run(&plugin, ADD_ENV "|CNI_ARGS=A=1;B",
			 "{\"cniVersion\": \"1.0.0\", \"name\": \"n\"}", out, sizeof(out), false),
		     1);
	cr_assert(strstr(out, "\"code\": 4,"), "%s", out);
}

Test(skel, stdout_is_valid_utf8_whatever_the_input)
{
	char out[1024];

	/* The bad name is echoed in details: as U+FFFD, never as the byte. */
	cr_assert_eq(run(&plugin, ADD_ENV, "{\"cniVersion\": \"1.0.0\", \"name\": \"n\xff\"}", out,
			 sizeof(out), false),
		     1);
	cr_assert_str_eq(out, "{\n    \"cniVersion\": \"1.0.0\",\n    \"code\": 7,\n"
			      "    \"msg\": \"invalid characters found in network name\",\n"
			      "    \"details\": \"n\\ufffd\"\n}");
	cr_assert(utf8_valid(out, strlen(out), NULL));
	cr_assert_eq(run(&plugin, ADD_ENV,
			 "{\"cniVersion\": \"1.0.0\", \"name\": \"n\", \"x\": \"\xc3\"}", out,
			 sizeof(out), false),
		     1);
	cr_assert(strstr(out, "\"code\": 6,") && strstr(out, "invalid UTF-8 at byte 43"), "%s",
		  out);
}

Test(skel, control_bytes_in_ifname_are_code_4)
{
	char out[1024];

	cr_assert_eq(run(&plugin,
			 "CNI_COMMAND=ADD|CNI_CONTAINERID=c1|CNI_NETNS=/"
			 "n|CNI_IFNAME=e\x1b]0;x\x07|CNI_PATH=/p",
			 "{\"cniVersion\": \"1.0.0\", \"name\": \"n\"}", out, sizeof(out), false),
		     1);
	cr_assert_str_eq(out, "{\n    \"cniVersion\": \"1.0.0\",\n    \"code\": 4,\n"
			      "    \"msg\": \"interface name contains control characters\",\n"
			      "    \"details\": \"CNI_IFNAME=e\\u001b]0;x\\u0007\"\n}");
}

Test(skel, failed_return_to_host_netns_is_fatal)
{
	char out[1024];

	cr_assert_eq(run(&plugin_lost, ADD_ENV, "{\"cniVersion\": \"0.4.0\", \"name\": \"n\"}", out,
			 sizeof(out), false),
		     1);
	cr_assert_str_eq(out, "{\n    \"cniVersion\": \"0.4.0\",\n    \"code\": 100,\n"
			      "    \"msg\": \"cannot return to the host network namespace\",\n"
			      "    \"details\": \"Invalid argument\"\n}");
}
