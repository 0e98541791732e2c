// SPDX-License-Identifier: Apache-2.0
/* Namespace files, logging destinations and levels. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include "cleanup.h"
#include "helpers.h"
#include "log.h"
#include "netns.h"
#include "util.h"

Test(netns, open_verifies_the_kind)
{
	struct cni_error err = { 0 };
	int fd = cni_netns_open("/proc/self/ns/net", &err);

	cr_assert_geq(fd, 0, "%s", err.details);
	cr_assert_eq(cni_netns_is_current(fd), 1);
	cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	cr_assert_lt(cni_netns_open("/proc/self/ns/uts", &err), 0);
	assert_cni_error(&err, 4, "CNI_NETNS is not a network namespace");
	memset(&err, 0, sizeof(err));
	cr_assert_lt(cni_netns_open("/etc/hostname", &err), 0);
	assert_cni_error(&err, 4, "CNI_NETNS is not a network namespace");
	memset(&err, 0, sizeof(err));
	cr_assert_eq(cni_netns_open("/nonexistent/ns", &err), -ENOENT);
	assert_cni_error(&err, 4, "cannot open CNI_NETNS");
}

Test(netns, enter_and_restore)
{
	struct cni_error err = { 0 };
	_cleanup_close_ int self = -1;
	int saved = -1, ret;

	if (geteuid() != 0)
		cr_skip_test("setns needs CAP_SYS_ADMIN: covered by the netns tier");
	cr_assert_eq(unshare(CLONE_NEWNET), 0);
	self = cni_netns_open("/proc/self/ns/net", &err);
	cr_assert_geq(self, 0);
	/* Enter the namespace we are in: the round trip must leave us here. */
	ret = cni_netns_enter(self, &saved);
	cr_assert_eq(ret, 0);
	cr_assert_geq(saved, 0);
	cr_assert_eq(cni_netns_restore(&saved), 0);
	cr_assert_eq(saved, -1);
	cr_assert_eq(cni_netns_is_current(self), 1);
}

Test(log, file_and_levels)
{
	char path[] = "/tmp/ibcni-log.XXXXXX";
	_cleanup_free_ char *text = NULL;
	int fd = mkstemp(path);

	close(fd);
	cni_log_context("unit", "ADD", "ctr", "eth0");
	cni_log_setup("warning", path);
	log_info("hidden");
	log_warn("shown %d", 1);
	cni_log_setup("DEBUG", path);
	log_debug("debug line");
	cni_log_close();
	cr_assert_eq(read_file(path, 4096, &text, NULL), 0);
	cr_assert_null(strstr(text, "hidden"));
	cr_assert(strstr(text, "[warning] unit ADD ctr/eth0: shown 1\n"), "%s", text);
	cr_assert(strstr(text, "[debug] unit ADD ctr/eth0: debug line\n"), "%s", text);
	unlink(path);
}

Test(log, bad_level_warns_and_uses_info)
{
	char path[] = "/tmp/ibcni-log.XXXXXX";
	_cleanup_free_ char *text = NULL;
	int fd = mkstemp(path);

	close(fd);
	cni_log_context("unit", "DEL", "", "");
	cni_log_setup("loud", path);
	log_info("info shown");
	log_debug("debug hidden");
	cni_log_close();
	cr_assert_eq(read_file(path, 4096, &text, NULL), 0);
	cr_assert(strstr(text, "logLevel \"loud\" is not panic, error, warning, info or debug"),
		  "%s", text);
	cr_assert(strstr(text, "info shown"));
	cr_assert_null(strstr(text, "debug hidden"));
	unlink(path);
}
