// SPDX-License-Identifier: Apache-2.0
/* IPAM delegation against the test IPAM executables in tests/fixtures. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "protocol/conf.h"
#include "helpers.h"
#include "protocol/delegate.h"
#include "base/util.h"

static struct cni_conf *conf_for(const char *ipam_type, const char *version)
{
	struct cni_error err = {0};
	struct cni_conf *conf;
	char *raw;

	cr_assert(asprintf(&raw,
			   "{\"cniVersion\": \"%s\", \"name\": \"net\", \"type\": \"x\", "
			   "\"ipam\": {\"type\": \"%s\"}, \"custom\": [1, 2]}",
			   version, ipam_type) > 0);
	cr_assert_eq(cni_conf_parse(raw, strlen(raw), CNI_CMD_ADD, &conf, &err), 0);
	return conf;
}

static struct cni_env env_for(void)
{
	struct cni_env env = {
	    .command = CNI_CMD_ADD,
	    .command_str = "ADD",
	    .containerid = "ctr1",
	    .netns = "/proc/self/ns/net",
	    .ifname = "net1",
	    .path = fixtures_dir(),
	};

	/* As cni_run does: a delegate that dies unread must not kill us. */
	signal(SIGPIPE, SIG_IGN);
	setenv("CNI_COMMAND", "ADD", 1);
	setenv("CNI_CONTAINERID", "ctr1", 1);
	setenv("CNI_IFNAME", "net1", 1);
	return env;
}

Test(ipam, find_in_path)
{
	struct cni_error err = {0};
	char path[4096], dirs[4096];

	snprintf(dirs, sizeof(dirs), "/nonexistent:%s", fixtures_dir());
	cr_assert_eq(cni_delegate_find(dirs, "ipam-ok", path, sizeof(path), &err), 0);
	cr_assert(strstr(path, "/ipam-ok"));
	cr_assert_eq(cni_delegate_find(dirs, "../fixtures/ipam-ok", path, sizeof(path), &err),
		     -EINVAL);
	assert_cni_error(&err, 7, "invalid plugin type");
	memset(&err, 0, sizeof(err));
	cr_assert_eq(cni_delegate_find(dirs, "nope", path, sizeof(path), &err), -ENOENT);
	assert_cni_error(&err, 7, "failed to find plugin");
	memset(&err, 0, sizeof(err));
	/* A directory is not a plugin. */
	cr_assert_eq(cni_delegate_find("/", "tmp", path, sizeof(path), &err), -ENOENT);
}

Test(ipam, add_success_gets_env_and_whole_stdin)
{
	struct cni_conf *conf = conf_for("ipam-ok", "0.4.0");
	struct cni_env env = env_for();
	struct cni_error err = {0};
	struct cni_result *res;
	char log[] = "/tmp/ibcni-ipam-log.XXXXXX";
	_cleanup_free_ char *seen = NULL;
	char want[2048];
	int fd = mkstemp(log);

	cr_assert(fd >= 0);
	close(fd);
	setenv("FAKE_IPAM_LOG", log, 1);
	setenv("FAKE_IPAM_EXTRA", "kept", 1);
	setenv("CNI_COMMAND", "DEL", 1); /* must be overridden for the delegate */
	cr_assert_eq(cni_ipam_add(&env, conf, &res, &err), 0, "%s: %s", err.msg, err.details);
	cr_assert_eq(res->n_ips, 1);
	cr_assert_eq(res->n_routes, 1);
	cr_assert_eq(res->dns.n_nameservers, 1);
	cr_assert_eq(read_file(log, 65536, &seen, NULL), 0);
	snprintf(want, sizeof(want),
		 "command=ADD\ncontainerid=ctr1\nifname=net1\nextra=kept\nstdin=%s\n", conf->raw);
	cr_assert_str_eq(seen, want);
	unlink(log);
	cni_result_free(res);
	cni_conf_free(conf);
}

Test(ipam, delegate_error_reaches_caller_intact)
{
	static const int codes[] = {1, 2, 3, 4, 5, 6, 7, 11, 50, 51, 107};
	struct cni_conf *conf = conf_for("ipam-error", "1.1.0");
	struct cni_env env = env_for();

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		struct cni_error err = {0};
		struct cni_result *res;
		char code[8];

		snprintf(code, sizeof(code), "%d", codes[i]);
		setenv("FAKE_IPAM_CODE", code, 1);
		cr_assert_lt(cni_ipam_add(&env, conf, &res, &err), 0);
		assert_cni_error(&err, codes[i], "fake failure");
		cr_assert_str_eq(err.details, "asked by the test");
		memset(&err, 0, sizeof(err));
		cr_assert_lt(cni_ipam_run(&env, conf, CNI_CMD_DEL, &err), 0);
		cr_assert_eq(err.code, codes[i]);
	}
	cni_conf_free(conf);
}

Test(ipam, garbage_output)
{
	struct cni_conf *conf = conf_for("ipam-garbage", "1.0.0");
	struct cni_env env = env_for();
	struct cni_error err = {0};
	struct cni_result *res;

	cr_assert_lt(cni_ipam_add(&env, conf, &res, &err), 0);
	assert_cni_error(&err, 103, "delegated plugin returned invalid JSON");
	cr_assert(strstr(err.details, "ipam-garbage"));
	cni_conf_free(conf);
}

Test(ipam, failure_without_json)
{
	struct cni_conf *conf = conf_for("ipam-silent", "1.0.0");
	struct cni_env env = env_for();
	struct cni_error err = {0};
	struct cni_result *res;

	cr_assert_lt(cni_ipam_add(&env, conf, &res, &err), 0);
	assert_cni_error(&err, 103, "delegated plugin failed");
	cr_assert_str_eq(
	    err.details,
	    "ipam-silent exited with status 3 and no CNI error on stdout; see its stderr");
	cni_conf_free(conf);
}

Test(ipam, hang_is_bounded)
{
	struct cni_conf *conf = conf_for("ipam-hang", "1.0.0");
	struct cni_env env = env_for();
	struct cni_error err = {0};
	struct cni_result *res;
	uint64_t start = now_ms();

	setenv("IBCNI_DELEGATE_TIMEOUT_MS", "300", 1);
	cr_assert_lt(cni_ipam_add(&env, conf, &res, &err), 0);
	assert_cni_error(&err, 103, "delegated plugin timed out");
	cr_assert_lt(now_ms() - start, 5000, "the bound was not kept");
	cni_conf_free(conf);
}

Test(ipam, output_is_bounded)
{
	struct cni_conf *conf = conf_for("ipam-flood", "1.0.0");
	struct cni_env env = env_for();
	struct cni_error err = {0};
	struct cni_result *res;

	cr_assert_lt(cni_ipam_add(&env, conf, &res, &err), 0);
	assert_cni_error(&err, 103, "delegated plugin output too large");
	cni_conf_free(conf);
}

Test(ipam, missing_type)
{
	struct cni_error err = {0};
	struct cni_env env = env_for();
	struct cni_conf *conf;
	struct cni_result *res;
	char *raw = strdup("{\"cniVersion\": \"1.0.0\", \"name\": \"n\", \"ipam\": {}}");

	cr_assert_eq(cni_conf_parse(raw, strlen(raw), CNI_CMD_ADD, &conf, &err), 0);
	cr_assert_lt(cni_ipam_add(&env, conf, &res, &err), 0);
	assert_cni_error(&err, 7, "IPAM config missing 'type'");
	cni_conf_free(conf);
}

Test(ipam, result_converted_from_delegate_version)
{
	/* ipam-noread ignores stdin and answers 1.0.0 to a 0.3.1 request. */
	struct cni_conf *conf = conf_for("ipam-noread", "0.3.1");
	struct cni_env env = env_for();
	struct cni_error err = {0};
	struct cni_result *res;

	cr_assert_eq(cni_ipam_add(&env, conf, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res->n_ips, 1);
	cr_assert_eq(res->ips[0].gateway.family, 0);
	cni_result_free(res);
	cni_conf_free(conf);
}

Test(ipam, relative_path_entries_never_searched)
{
	static const char *const rel[] = {".", "", "..", "fixtures", "./fixtures", "fixtures/"};
	struct cni_error err = {0};
	char path[4096], cwd[4096], dirs[4096];

	/* Stand where a relative entry would find the fixture. */
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(fixtures_dir()), 0);
	cr_assert_eq(cni_delegate_find(".", "ipam-ok", path, sizeof(path), &err), -ENOENT);
	cr_assert_eq(chdir(".."), 0);
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		memset(&err, 0, sizeof(err));
		snprintf(dirs, sizeof(dirs), "%s:/nonexistent", rel[i]);
		cr_assert_eq(cni_delegate_find(dirs, "ipam-ok", path, sizeof(path), &err), -ENOENT,
			     "CNI_PATH %s searched", dirs);
		assert_cni_error(&err, 7, "failed to find plugin");
	}
	/* The absolute entry after the relative ones still counts. */
	snprintf(dirs, sizeof(dirs), ".::fixtures:%s", fixtures_dir());
	cr_assert_eq(cni_delegate_find(dirs, "ipam-ok", path, sizeof(path), &err), 0);
	cr_assert_eq(path[0], '/');
	cr_assert_eq(chdir(cwd), 0);
}

Test(ipam, empty_delegate_msg_gets_one)
{
	struct cni_conf *conf = conf_for("ipam-error", "1.0.0");
	struct cni_env env = env_for();
	struct cni_error err = {0};
	struct cni_result *res;

	setenv("FAKE_IPAM_CODE", "11", 1);
	setenv("FAKE_IPAM_MSG", "", 1);
	cr_assert_lt(cni_ipam_add(&env, conf, &res, &err), 0);
	assert_cni_error(&err, 11, "ipam-error failed with code 11 and no message");
	cr_assert_str_eq(err.details, "asked by the test");
	/* Code 0 is no CNI error at all. */
	memset(&err, 0, sizeof(err));
	setenv("FAKE_IPAM_CODE", "0", 1);
	cr_assert_lt(cni_ipam_add(&env, conf, &res, &err), 0);
	assert_cni_error(&err, 103, "delegated plugin failed");
	unsetenv("FAKE_IPAM_MSG");
	cni_conf_free(conf);
}

Test(ipam, hang_killed_and_reaped, .timeout = 10)
{
	struct cni_conf *conf = conf_for("ipam-hang", "1.0.0");
	struct cni_env env = env_for();
	struct cni_error err = {0};
	struct cni_result *res;

	setenv("IBCNI_DELEGATE_TIMEOUT_MS", "200", 1);
	cr_assert_lt(cni_ipam_add(&env, conf, &res, &err), 0);
	assert_cni_error(&err, 103, "delegated plugin timed out");
	/* Reaped: no child of ours is left, zombie or not. */
	cr_assert_eq(waitpid(-1, NULL, WNOHANG), -1);
	cr_assert_eq(errno, ECHILD);
	cni_conf_free(conf);
}

Test(ipam, child_wait_is_bounded, .timeout = 10)
{
	/* A child that does not exit (as one stuck in the kernel after
	 * SIGKILL would not): the wait gives up at its bound. A process that
	 * ignores SIGKILL (D state on a hung NFS/FUSE read) cannot be made
	 * here; cni_child_kill's final wait is this one. */
	pid_t pid = fork();
	uint64_t start;
	int status;

	if (pid == 0) {
		pause();
		_exit(0);
	}
	start = now_ms();
	cr_assert_eq(cni_child_wait(pid, 150, &status), -ETIMEDOUT);
	cr_assert_geq(now_ms() - start, 150);
	cr_assert_lt(now_ms() - start, 2000);
	cr_assert_eq(cni_child_kill(pid, 2000), 0);
	cr_assert_eq(kill(pid, 0), -1, "killed and reaped");
}

Test(ipam, decode_error_names_the_delegate)
{
	struct cni_conf *conf = conf_for("ipam-badresult", "1.0.0");
	struct cni_env env = env_for();
	struct cni_error err = {0};
	struct cni_result *res;

	cr_assert_lt(cni_ipam_add(&env, conf, &res, &err), 0);
	assert_cni_error(&err, 6, "ipam-badresult: failed to decode result");
	cr_assert_str_eq(err.details, "ips[].address: 10.9.0.300/24");
	cni_conf_free(conf);
}
