// SPDX-License-Identifier: Apache-2.0
/* Namespace files (planted, foreign, our own) and the fatal failed return. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "helpers.h"
#include "kernel/netns.h"
#include "base/util.h"
#include "kernel/sys.h"

/* One kernel context for the process (each test runs in a fork of its own). */
static struct cni_sys test_sys = CNI_SYS_INIT;
static struct cni_sys *const sys = &test_sys;

/* Move the test process into a new network namespace (as root, or in a new
 * user namespace when unprivileged ones are allowed); false when neither. */
static bool leave_netns(void)
{
	return unshare(CLONE_NEWNET) == 0 || unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0;
}

Test(netns, open_refuses_what_is_not_a_network_namespace, .timeout = 10)
{
	char dir[64], fifo[96];
	struct cni_error err = {0};

	cr_assert_lt(cni_netns_open(sys, "/proc/self/ns/uts", &err), 0);
	assert_cni_error(&err, 4, "CNI_NETNS is not a network namespace");
	cr_assert_str_eq(err.details, "/proc/self/ns/uts refers to another kind of namespace");
	memset(&err, 0, sizeof(err));
	cr_assert_lt(cni_netns_open(sys, "/etc/hostname", &err), 0);
	assert_cni_error(&err, 4, "CNI_NETNS is not a network namespace");
	cr_assert_str_eq(err.details, "/etc/hostname is not a namespace file (nsfs)");
	/* /proc/<pid>/ns itself is a directory on procfs, not nsfs. */
	memset(&err, 0, sizeof(err));
	cr_assert_lt(cni_netns_open(sys, "/proc/self/ns", &err), 0);
	assert_cni_error(&err, 4, "CNI_NETNS is not a network namespace");
	memset(&err, 0, sizeof(err));
	cr_assert_lt(cni_netns_open(sys, "/dev/zero", &err), 0);
	assert_cni_error(&err, 4, "CNI_NETNS is not a network namespace");
	/* A FIFO with no writer: a blocking open would hang here for ever. */
	make_tmpdir(dir, sizeof(dir));
	snprintf(fifo, sizeof(fifo), "%s/ns", dir);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	memset(&err, 0, sizeof(err));
	cr_assert_lt(cni_netns_open(sys, fifo, &err), 0);
	assert_cni_error(&err, 4, "CNI_NETNS is not a network namespace");
	memset(&err, 0, sizeof(err));
	cr_assert_eq(cni_netns_open(sys, "/nonexistent/ns", &err), -ENOENT);
	assert_cni_error(&err, 4, "cannot open CNI_NETNS");
	rm_tree(dir);
}

Test(netns, own_namespace_is_refused)
{
	static const char *const own[] = {"/proc/self/ns/net", "/proc/thread-self/ns/net"};
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)getpid());
	for (size_t i = 0; i < 3; i++) {
		const char *p = i < 2 ? own[i] : path;
		struct cni_error err = {0};

		cr_assert_eq(cni_netns_open(sys, p, &err), -EINVAL, "%s", p);
		assert_cni_error(&err, 4, "CNI_NETNS is the host network namespace");
		cr_assert(strstr(err.details, "is the plugin's own network namespace"), "%s",
			  err.details);
	}
}

Test(netns, another_namespace_is_accepted)
{
	struct cni_error err = {0};
	_cleanup_close_ int orig = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	char path[64];
	int fd;

	cr_assert_geq(orig, 0);
	if (!leave_netns())
		cr_skip_test("no new network namespace here: covered by the netns tier");
	/* The namespace we left is now "another" one: a pod's, seen from here. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", orig);
	fd = cni_netns_open(sys, path, &err);
	cr_assert_geq(fd, 0, "%s: %s", err.msg, err.details);
	cr_assert_eq(cni_netns_is_current(sys, fd), 0);
	cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

/* A namespace's identity is its nsfs file's (fstat), and two namespaces
 * differ in it; the ID rule: same when either side has none. */
Test(netns, identity_of_an_open_namespace)
{
	_cleanup_close_ int a = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), b = -1;
	struct cni_netns_id ia, ib, again;
	struct stat st;

	cr_assert_geq(a, 0);
	cr_assert_eq(fstat(a, &st), 0);
	cr_assert_eq(cni_netns_id(a, &ia), 0);
	cr_assert(ia.dev == (uint64_t)st.st_dev && ia.ino == (uint64_t)st.st_ino);
	cr_assert_eq(cni_netns_id(a, &again), 0);
	cr_assert(cni_netns_id_same(&ia, &again) && ia.nsid == again.nsid);
	cr_assert_eq(cni_netns_id(-1, &again), -EBADF);
	ib = ia;
	ib.nsid = ia.nsid + 1;
	cr_assert_not(cni_netns_id_same(&ia, &ib) && ia.nsid, "another ID, same inode");
	ib.nsid = 0;
	cr_assert(cni_netns_id_same(&ia, &ib), "no ID on one side: the inode decides");
	ib.ino++;
	cr_assert_not(cni_netns_id_same(&ia, &ib));
	if (!leave_netns())
		cr_skip_test("no new network namespace here: covered by the netns tier");
	b = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	cr_assert_eq(cni_netns_id(b, &ib), 0);
	cr_assert_not(cni_netns_id_same(&ia, &ib));
}

/* The cookie rule: a cookie on both sides decides (an inode is reused, a
 * cookie never), whatever the ID; on one side only, the rest decides. */
Test(netns, identity_cookie_rule)
{
	struct cni_netns_id a = {.dev = 4, .ino = 4026532173, .cookie = 9}, b = a;

	cr_assert(cni_netns_id_same(&a, &b));
	b.cookie = 10;
	cr_assert_not(cni_netns_id_same(&a, &b), "the reused inode, another cookie");
	a.nsid = b.nsid = 9;
	cr_assert_not(cni_netns_id_same(&a, &b), "one ID, another cookie");
	a.nsid = b.nsid = 0;
	b.cookie = 0;
	cr_assert(cni_netns_id_same(&a, &b), "no cookie on one side: the inode decides");
	b.ino++;
	cr_assert_not(cni_netns_id_same(&a, &b), "another inode, no cookie");
	b.cookie = a.cookie;
	cr_assert_not(cni_netns_id_same(&a, &b), "another inode, the same cookie");
}

/* Our own namespace's cookie, as a socket of ours reads it. */
static uint64_t cookie_here(void)
{
	_cleanup_close_ int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	uint64_t c = 0;
	socklen_t len = sizeof(c);

	cr_assert_geq(s, 0);
	if (getsockopt(s, SOL_SOCKET, SO_NETNS_COOKIE, &c, &len) < 0)
		cr_skip_test("no SO_NETNS_COOKIE (Linux 5.14): %s", strerror(errno));
	return c;
}

/* cni_netns_cookie enters the namespace fd to read its cookie and comes
 * back: another namespace's cookie differs, and the thread stays where it
 * was. */
Test(netns, cookie_of_an_open_namespace)
{
	_cleanup_close_ int a = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), b = -1;
	_cleanup_sys_ struct cni_sys fresh = CNI_SYS_INIT;
	uint64_t ca = 0, cb = 0, again = 0, here = cookie_here();

	cr_assert_geq(a, 0);
	cr_assert_eq(cni_netns_cookie(sys, a, &ca), 0);
	cr_assert(ca && ca == here, "cookie %llu, a socket here says %llu", (unsigned long long)ca,
		  (unsigned long long)here);
	if (unshare(CLONE_NEWNET) != 0)
		cr_skip_test("no new network namespace to enter from here (not root)");
	b = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	cr_assert_eq(cni_netns_cookie(&fresh, b, &cb), 0);
	cr_assert(cb && cb == cookie_here() && cb != ca);
	cr_assert_eq(cni_netns_cookie(&fresh, a, &again), 0);
	cr_assert_eq(again, ca, "the namespace left, read from its fd");
	cr_assert_eq(cookie_here(), cb, "not back in our own namespace");
	cr_assert_eq(cni_netns_cookie(&fresh, -1, &again), -EBADF);
}

/* The namespace the test started in, opened as a pod's once the test has
 * moved to a new one (skipped where it cannot). */
static int pod_we_left(void)
{
	struct cni_error err = {0};
	_cleanup_close_ int orig = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	char path[64];
	int pod;

	cr_assert_geq(orig, 0);
	if (!leave_netns())
		cr_skip_test("no new network namespace here: covered by the netns tier");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", orig);
	pod = cni_netns_open(sys, path, &err);
	cr_assert_geq(pod, 0, "%s", err.details);
	return pod;
}

Test(netns, enter_and_restore)
{
	_cleanup_close_ int pod = pod_we_left();
	int saved = -1;

	cr_assert_eq(cni_netns_enter(sys, pod, &saved), 0);
	cr_assert_geq(saved, 0);
	cr_assert_eq(cni_netns_is_current(sys, pod), 1);
	cr_assert_eq(cni_netns_restore(sys, &saved), 0);
	cr_assert_eq(saved, -1);
	cr_assert_eq(cni_netns_is_current(sys, pod), 0);
}

/* fd names the namespace the thread is in now. */
static bool same_ns_as_thread(int fd)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat("/proc/thread-self/ns/net", &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

Test(netns, open_current_names_where_the_thread_is)
{
	_cleanup_close_ int pod = pod_we_left();
	int saved = -1, fd, before = open_fds();

	for (int i = 0; i < 3; i++) {
		fd = cni_netns_open_current(sys);
		cr_assert(same_ns_as_thread(fd), "at home");
		cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		close(fd);
		cr_assert_eq(cni_netns_enter(sys, pod, &saved), 0);
		fd = cni_netns_open_current(sys);
		cr_assert(same_ns_as_thread(fd), "in the pod");
		cr_assert_eq(cni_netns_is_current(sys, pod), 1);
		close(fd);
		cr_assert_eq(cni_netns_restore(sys, &saved), 0);
	}
	/* The kept home fd (at most one) is all that stays open. */
	cr_assert_leq(open_fds(), before + 1);
	cr_assert_eq(cni_netns_is_current(sys, pod), 0);
}

/* What cni_netns_current says is what the kernel says, at every step. */
static void assert_tracked(const char *when)
{
	struct stat st;
	dev_t dev;
	ino_t ino;

	cr_assert_eq(cni_netns_current(sys, &dev, &ino), 0);
	cr_assert_eq(stat("/proc/thread-self/ns/net", &st), 0);
	cr_assert(dev == st.st_dev && ino == st.st_ino, "tracked namespace wrong %s", when);
}

Test(netns, current_tracked_through_nested_entries)
{
	_cleanup_close_ int a = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	_cleanup_close_ int b = -1, c = -1;
	int s1 = -1, s2 = -1, s3 = -1;

	cr_assert_geq(a, 0);
	assert_tracked("at start");
	if (!leave_netns())
		cr_skip_test("no new network namespace here: covered by the netns tier");
	/* unshare() is a switch not made through netns.c: a fresh context. */
	cni_sys_close(sys);
	assert_tracked("after unshare");
	b = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	cr_assert(leave_netns());
	cni_sys_close(sys);
	c = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	cr_assert(b >= 0 && c >= 0);
	cr_assert_eq(cni_netns_enter(sys, a, &s1), 0);
	assert_tracked("in a");
	cr_assert_eq(cni_netns_enter(sys, b, &s2), 0);
	assert_tracked("in b, from a");
	cr_assert_eq(cni_netns_enter(sys, c, &s3), 0);
	assert_tracked("in c, from b");
	cr_assert_eq(cni_netns_restore(sys, &s3), 0);
	assert_tracked("back in b");
	cr_assert_eq(cni_netns_restore(sys, &s2), 0);
	assert_tracked("back in a");
	cr_assert_eq(cni_netns_restore(sys, &s1), 0);
	assert_tracked("back in c");
	/* A failed entry changes nothing. */
	cr_assert_lt(cni_netns_enter(sys, -1, &s1), 0);
	assert_tracked("after a failed entry");
}

Test(netns, outermost_entries_return_where_the_thread_was)
{
	_cleanup_close_ int pod = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	_cleanup_close_ int one = -1, two = -1;
	int saved = -1, fds;

	cr_assert_geq(pod, 0);
	if (!leave_netns())
		cr_skip_test("no new network namespace here: covered by the netns tier");
	cni_sys_close(sys);
	assert_tracked("after unshare");
	one = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	/* The namespace returned to is kept open once, not per entry. */
	cr_assert_eq(cni_netns_enter(sys, pod, &saved), 0);
	cr_assert_eq(cni_netns_restore(sys, &saved), 0);
	fds = open_fds();
	for (int i = 0; i < 20; i++) {
		cr_assert_eq(cni_netns_enter(sys, pod, &saved), 0);
		cr_assert_eq(cni_netns_is_current(sys, pod), 1);
		cr_assert_eq(cni_netns_restore(sys, &saved), 0);
		cr_assert_eq(cni_netns_is_current(sys, one), 1, "entry %d returned elsewhere", i);
	}
	cr_assert_eq(open_fds(), fds, "an fd per entry");
	/* Moved on (a switch not made here), with a fresh context: an entry
	 * saves the namespace it really leaves. */
	cr_assert(leave_netns());
	cni_sys_close(sys);
	two = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	assert_tracked("moved on");
	cr_assert_eq(cni_netns_enter(sys, pod, &saved), 0);
	cr_assert_eq(cni_netns_restore(sys, &saved), 0);
	cr_assert_eq(cni_netns_is_current(sys, two), 1,
		     "returned to the kept namespace, not the one left");
	assert_tracked("back in the second");
}

/* The tracking in struct cni_sys holds only if every switch goes through
 * netns.c: the one setns() elsewhere is verbs.c's child, which holds no
 * context. Checked on the sources, next to the fixtures. */
Test(netns, switches_only_where_tracked)
{
	static const char *const dirs[] = {"cni/base", "cni/kernel", "cni/state", "cni/protocol",
					   "ib-sriov", "rdma-ns",    "ipam"};
	size_t checked = 0;

	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		char pattern[512];
		glob_t g;

		snprintf(pattern, sizeof(pattern), "%s/../../%s/*.c", fixtures_dir(), dirs[d]);
		cr_assert_eq(glob(pattern, 0, NULL, &g), 0, "%s", pattern);
		for (size_t i = 0; i < g.gl_pathc; i++) {
			_cleanup_free_ char *src = NULL;
			const char *base = strrchr(g.gl_pathv[i], '/') + 1;

			cr_assert_eq(read_file(g.gl_pathv[i], 1 << 20, &src, NULL), 0);
			checked++;
			if (!strcmp(base, "netns.c"))
				continue;
			if (!strstr(src, "setns(") && !strstr(src, "unshare("))
				continue;
			cr_assert(!strcmp(base, "verbs.c"),
				  "%s switches namespaces outside cni/kernel/netns.c",
				  g.gl_pathv[i]);
		}
		globfree(&g);
	}
	cr_assert_gt(checked, 20);
}

/* What cni_die() hands the dispatcher's printer (skel prints it as JSON). */
static void die_print_plain(const struct cni_error *err)
{
	printf("%d|%s|%s", err->code, err->msg, err->details);
}

Test(netns, failed_return_is_fatal_with_code_100)
{
	_cleanup_free_ char *out = NULL;
	int pipefd[2], status;
	char buf[1024] = "";
	ssize_t n, used = 0;
	pid_t pid;

	cr_assert_eq(pipe(pipefd), 0);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		/* Not a namespace: setns back fails (EINVAL) without privileges. */
		int saved = open("/dev/null", O_RDONLY);

		dup2(pipefd[1], STDOUT_FILENO);
		dup2(open("/dev/null", O_WRONLY), STDERR_FILENO);
		cni_die_set_printer(die_print_plain);
		cni_netns_restore(sys, &saved);
		_exit(0); /* reached only if the failure went unnoticed */
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], buf + used, sizeof(buf) - 1 - (size_t)used)) > 0)
		used += n;
	close(pipefd[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d", status);
	cr_assert_str_eq(buf, "100|cannot return to the host network namespace|Invalid argument");
}

/* What a record's netns path may have become once its pod is gone, and
 * what does not prove it gone: only an absence from a directory that shows
 * this view other namespace mounts does. */
Test(netns, gone_only_when_proven, .timeout = 10)
{
	char dir[64], path[128];

	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/cni-1234", dir);
	cr_assert_eq(cni_netns_gone(path), -CNI_NETNS_NO_MOUNTS,
		     "absent from a directory that shows no namespace mount");
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_assert_eq(cni_netns_gone(path), -CNI_NETNS_NO_MOUNTS,
		     "a FIFO: never opened, not a namespace, in a directory of no mount");
	unlink(path);
	close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
	cr_assert_eq(cni_netns_gone(path), -CNI_NETNS_NO_MOUNTS,
		     "an empty file: unmounted, or a mount this view does not see");
	/* A namespace file beside it (a link, as the runtime's /proc ones). */
	snprintf(path, sizeof(path), "%s/other", dir);
	cr_assert_eq(symlink("/proc/self/ns/net", path), 0);
	snprintf(path, sizeof(path), "%s/cni-1234", dir);
	cr_assert_eq(cni_netns_gone(path), -CNI_NETNS_NOT_MOUNT,
		     "an empty file beside a namespace: never gone");
	unlink(path);
	cr_assert_eq(cni_netns_gone(path), 1, "absent beside a namespace: gone");
	snprintf(path, sizeof(path), "%s/other", dir);
	unlink(path);
	cr_assert_eq(cni_netns_gone("/proc/self/ns/net"), 0, "a network namespace");
	cr_assert_eq(cni_netns_gone("/proc/self/ns/uts"), -EINVAL, "another kind of namespace");
	cr_assert_eq(cni_netns_gone("/proc/self/ns/nonet"), 1, "absent from /proc/PID/ns");
	snprintf(path, sizeof(path), "%s/missing/cni-1234", dir);
	cr_assert_eq(cni_netns_gone(path), -ENOENT, "its directory missing proves nothing");
	cr_assert_eq(cni_netns_gone("/proc/999999999/ns/net"), -ENOENT, "a /proc/PID gone");
	cr_assert_lt(cni_netns_gone("relative"), 0);
	cr_assert_lt(cni_netns_gone(""), 0);
	rmdir(dir);
}

/* The agent's pass says each directory it cannot see into once. */
Test(netns, blind_noted_per_directory)
{
	struct cni_netns_blind b = {0};

	cr_assert(cni_netns_blind_note(&b, "/run/netns/a", -CNI_NETNS_NOT_MOUNT));
	cr_assert(cni_netns_blind_note(&b, "/run/netns/b", -CNI_NETNS_NO_MOUNTS));
	cr_assert(cni_netns_blind_note(&b, "/run/netns/c", -CNI_NETNS_NOT_MOUNT));
	cr_assert(cni_netns_blind_note(&b, "/var/run/netns/d", -CNI_NETNS_NOT_MOUNT));
	cr_assert_not(cni_netns_blind_note(&b, "/run/netns/e", -ENOENT));
	cr_assert_not(cni_netns_blind_note(&b, "/run/netns/f", 1));
	cr_assert_eq(b.n, 2);
	cr_assert_str_eq(b.d[0].dir, "/run/netns");
	cr_assert_eq(b.d[0].kept, 3);
	cr_assert_eq(b.d[0].why, -CNI_NETNS_NO_MOUNTS, "one answer of no mount makes it blind");
	cr_assert_str_eq(b.d[1].dir, "/var/run/netns");
	cr_assert_eq(b.d[1].why, -CNI_NETNS_NOT_MOUNT);
	for (int i = 0; i < 20; i++) {
		char p[32];

		snprintf(p, sizeof(p), "/d%d/x", i);
		cni_netns_blind_note(&b, p, -CNI_NETNS_NO_MOUNTS);
	}
	cr_assert_eq(b.n, CNI_NETNS_BLIND_MAX);
	cr_assert_eq(b.more, 20 - (CNI_NETNS_BLIND_MAX - 2));
}
