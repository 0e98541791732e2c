// SPDX-License-Identifier: Apache-2.0
/* Namespace files (planted, foreign, our own), the fatal failed return, and
 * logging: where a logFile may be, escaping, levels. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <glob.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "helpers.h"
#include "base/log.h"
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

/* --- logging --- */

static char logdir[64];
static int stderr_saved = -1;
static char stderr_path[96];

/* Confine logFile to a fresh directory, and catch stderr in a file. */
static void log_init(void)
{
	int fd;

	make_tmpdir(logdir, sizeof(logdir));
	cni_log_dir = logdir;
	snprintf(stderr_path, sizeof(stderr_path), "%s.stderr", logdir);
	fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert_geq(fd, 0);
	fflush(stderr);
	stderr_saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
	cni_log_context("unit", "ADD", "ctr", "eth0");
}

static void log_fini(void)
{
	cni_log_close();
	if (stderr_saved >= 0) {
		dup2(stderr_saved, STDERR_FILENO);
		close(stderr_saved);
	}
	unlink(stderr_path);
	rm_tree(logdir);
}

/* The text of path under the log directory ("" when absent). */
static char *slurp(const char *path)
{
	char *text = NULL;

	if (read_file(path, 1 << 20, &text, NULL))
		text = strdup("");
	return text;
}

static char *in_logdir(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", logdir, rel);
	return buf;
}

TestSuite(log, .init = log_init, .fini = log_fini, .timeout = 10);

Test(log, file_and_levels)
{
	_cleanup_free_ char *text = NULL;
	char path[128];

	cni_log_setup("warning", "unit.log");
	log_info("hidden");
	log_warn("shown %d", 1);
	/* The same file by its absolute name. */
	cni_log_setup("DEBUG", in_logdir(path, sizeof(path), "unit.log"));
	log_debug("debug line");
	cni_log_close();
	text = slurp(path);
	cr_assert_null(strstr(text, "hidden"));
	cr_assert(strstr(text, "[warning] unit ADD ctr/eth0: shown 1\n"), "%s", text);
	cr_assert(strstr(text, "[debug] unit ADD ctr/eth0: debug line\n"), "%s", text);
	free(text);
	text = slurp(stderr_path);
	cr_assert_eq(text[0], '\0', "stderr stays quiet with a logFile");
}

Test(log, bad_level_warns_and_uses_info)
{
	_cleanup_free_ char *text = NULL;
	char path[128];

	cni_log_context("unit", "DEL", "", "");
	cni_log_setup("loud", "unit.log");
	log_info("info shown");
	log_debug("debug hidden");
	cni_log_close();
	text = slurp(in_logdir(path, sizeof(path), "unit.log"));
	cr_assert(strstr(text, "logLevel \"loud\" is not panic, error, warning, info or debug"),
		  "%s", text);
	cr_assert(strstr(text, "info shown"));
	cr_assert_null(strstr(text, "debug hidden"));
}

/* logFile refused: the message on stderr, the line there too, and the
 * would-be target untouched. */
static void assert_refused(const char *file, const char *target, const char *why)
{
	_cleanup_free_ char *before = slurp(target);
	_cleanup_free_ char *after = NULL;
	_cleanup_free_ char *err = NULL;
	char want[512];

	cni_log_setup("info", file);
	log_info("after %s", file);
	cni_log_close();
	after = slurp(target);
	cr_assert_str_eq(after, before, "%s was written through logFile %s", target, file);
	err = slurp(stderr_path);
	snprintf(want, sizeof(want), "logFile \"%s\" refused (%s); logging to stderr", file, why);
	cr_assert(strstr(err, want), "want \"%s\" in stderr: %s", want, err);
	cr_assert(strstr(err, "after "), "%s", err);
	cr_assert_eq(ftruncate(STDERR_FILENO, 0), 0);
	lseek(STDERR_FILENO, 0, SEEK_SET);
}

Test(log, outside_the_directory_refused)
{
	char outside[96], rel[128];

	snprintf(outside, sizeof(outside), "%s.keys", logdir);
	tree_put("/", outside + 1, "ssh-ed25519 AAAA owner\n");
	assert_refused(outside, outside, "it is not under the log directory");
	snprintf(rel, sizeof(rel), "../%s.keys", strrchr(logdir, '/') + 1);
	assert_refused(rel, outside, "not a plain name, or not a regular file with one link");
	snprintf(rel, sizeof(rel), "%s/../%s.keys", logdir, strrchr(logdir, '/') + 1);
	assert_refused(rel, outside, "not a plain name, or not a regular file with one link");
	snprintf(rel, sizeof(rel), "%sx/a.log", logdir);
	assert_refused(rel, outside, "it is not under the log directory");
	unlink(outside);
}

Test(log, links_refused)
{
	char outside[96], path[128];

	snprintf(outside, sizeof(outside), "%s.keys", logdir);
	tree_put("/", outside + 1, "ssh-ed25519 AAAA owner\n");
	/* A symbolic link as the file, and as a directory on the way. */
	tree_link(logdir, outside, "authorized_keys");
	assert_refused("authorized_keys", outside,
		       "a symbolic link or a non-directory is on the way");
	/* Subdirectories are not log names at all, links or not. */
	tree_link(logdir, "/tmp", "sub");
	snprintf(path, sizeof(path), "sub/%s.keys", strrchr(logdir, '/') + 1);
	assert_refused(path, outside, "not a plain name, or not a regular file with one link");
	/* A hard link: a second name of someone else's file. */
	cr_assert_eq(link(outside, in_logdir(path, sizeof(path), "hard.log")), 0);
	assert_refused("hard.log", outside,
		       "not a plain name, or not a regular file with one link");
	unlink(outside);
}

Test(log, planted_files_refused_without_hanging)
{
	char path[128];

	cr_assert_eq(mkfifo(in_logdir(path, sizeof(path), "fifo.log"), 0600), 0);
	assert_refused("fifo.log", path, "No such device or address");
	tree_mkdir(logdir, "dir.log");
	assert_refused("dir.log", in_logdir(path, sizeof(path), "dir.log"), "Is a directory");
	tree_put(logdir, "shared.log", "");
	cr_assert_eq(chmod(in_logdir(path, sizeof(path), "shared.log"), 0666), 0);
	assert_refused("shared.log", path, "not owned by root, or writable by group or others");
	tree_mkdir(logdir, "open");
	cr_assert_eq(chmod(in_logdir(path, sizeof(path), "open"), 0777), 0);
	assert_refused("open/x.log", in_logdir(path, sizeof(path), "open/x.log"),
		       "not a plain name, or not a regular file with one link");
	/* R7: a name with escapes is no log name: no such file is made. */
	{
		_cleanup_dir_ DIR *d = NULL;
		struct dirent *e;

		cni_log_setup("info", "\x1b[2J\x1b[31mPWNED\n");
		log_info("line");
		cni_log_close();
		d = opendir(logdir);
		cr_assert_not_null(d);
		while ((e = readdir(d)))
			cr_assert_null(strstr(e->d_name, "PWNED"), "%s made", e->d_name);
		cr_assert_eq(ftruncate(STDERR_FILENO, 0), 0);
		lseek(STDERR_FILENO, 0, SEEK_SET);
	}
	assert_refused(".hidden", in_logdir(path, sizeof(path), ".hidden"),
		       "not a plain name, or not a regular file with one link");
	cr_assert_neq(access(in_logdir(path, sizeof(path), ".hidden"), F_OK), 0);
}

/* T8: a network's config may name its own log only. */
Test(log, only_the_networks_own_file)
{
	static const char *const ok[] = {"",	      "tenantB", "tenantB.log", "tenantB-debug.log",
					 "tenantB.1", NULL};
	static const char *const refused[] = {
	    "tenantBx.log",  "tenant.log",   "other.log",
	    "tenantB/x",     ".tenantB",     "tenantB.l\x1bg",
	    "tenantB.log\n", "tenantB.l og", "/var/log/ibcni/other.log",
	    "tenantB_log"};
	char abs[128];
	struct cni_error err = {0};

	for (size_t i = 0; ok[i]; i++)
		cr_assert_eq(cni_log_file_check(ok[i], "tenantB", &err), 0, "%s: %s", ok[i],
			     err.details);
	cr_assert_eq(cni_log_file_check(NULL, "tenantB", &err), 0);
	cr_assert_eq(
	    cni_log_file_check(in_logdir(abs, sizeof(abs), "tenantB.log"), "tenantB", &err), 0,
	    "%s", err.details);
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		memset(&err, 0, sizeof(err));
		cr_assert_eq(cni_log_file_check(refused[i], "tenantB", &err), -EINVAL, "%s",
			     refused[i]);
		assert_cni_error(&err, 7, "invalid logFile");
		cr_assert(strstr(err.details, "named after the network: \"tenantB\""), "%s",
			  err.details);
	}
}

/* A full log becomes <name>.1 (the one before dropped); the new file starts empty. */
Test(log, rotated_once_past_the_cap)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_free_ char *old = NULL;
	char path[128], one[128];
	int fd;

	in_logdir(path, sizeof(path), "n.log");
	in_logdir(one, sizeof(one), "n.log.1");
	tree_put(logdir, "n.log.1", "the oldest\n");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, CNI_LOG_MAX_SIZE - 1), 0);
	close(fd);
	/* Below the cap: appended to. */
	cni_log_setup("info", "n.log");
	log_info("first");
	cni_log_close();
	cr_assert_eq(access(one, F_OK), 0);
	text = slurp(one);
	cr_assert_str_eq(text, "the oldest\n");
	free(text);
	/* At or past it: rotated. */
	cni_log_setup("info", "n.log");
	log_info("second");
	cni_log_close();
	text = slurp(path);
	cr_assert(strstr(text, "second") && !strstr(text, "first"), "%s", text);
	/* The rotated file is the full one: its head is not the oldest, its tail "first". */
	old = calloc(1, 256);
	fd = open(one, O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, old, 10, 0), 10);
	cr_assert_neq(memcmp(old, "the oldest", 10), 0);
	cr_assert_gt(pread(fd, old, 255, CNI_LOG_MAX_SIZE - 1), 0);
	close(fd);
	cr_assert(strstr(old, "first"), "%s", old);
}

Test(log, empty_file_is_stderr)
{
	_cleanup_free_ char *err = NULL;

	cni_log_setup("info", "");
	log_info("to stderr");
	err = slurp(stderr_path);
	cr_assert(strstr(err, "[info] unit ADD ctr/eth0: to stderr\n"), "%s", err);
	cr_assert_null(strstr(err, "refused"), "%s", err);
}

Test(log, every_string_escaped_one_line)
{
	_cleanup_free_ char *text = NULL;
	char path[128];

	/* The context is escaped too (containerid and ifname are validated
	 * before they get here, but the log does not rely on it). */
	cni_log_context("unit", "DEL", "c\n1", "e\x1b");
	cni_log_setup("info", "unit.log");
	log_warn("key %s",
		 "x\nssh-ed25519 AAAA attacker\r\x1b[2J\x07\x7f\\ \xff\xc2\x9b ok \xc3\xa9");
	cni_log_close();
	text = slurp(in_logdir(path, sizeof(path), "unit.log"));
	cr_assert(strstr(text, "[warning] unit DEL c\\n1/e\\x1b: key x\\nssh-ed25519 AAAA "
			       "attacker\\r\\x1b[2J\\x07\\x7f\\\\ \\xff\\xc2\\x9b ok \xc3\xa9\n"),
		  "%s", text);
	cr_assert_eq(strcspn(text, "\n"), strlen(text) - 1, "more than one line: %s", text);
}

Test(log, long_line_bounded)
{
	_cleanup_free_ char *text = NULL;
	char big[10000], path[128];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cni_log_setup("info", "unit.log");
	log_info("%s", big);
	log_info("next");
	cni_log_close();
	text = slurp(in_logdir(path, sizeof(path), "unit.log"));
	size_t first = strcspn(text, "\n");

	cr_assert_eq(first + 1, 4096, "%s", text);
	cr_assert(!memcmp(text + first - 3, "...", 3));
	cr_assert(strstr(text, ": next\n"));
}

Test(log, escape_contract)
{
	char out[8];
	bool cut;

	cr_assert_eq(cni_log_escape(out, sizeof(out), "a\tb\\", &cut), 6);
	cr_assert_str_eq(out, "a\\tb\\\\");
	cr_assert_not(cut);
	/* Never half an escape: \x02 does not fit after \x01. */
	cr_assert_eq(cni_log_escape(out, sizeof(out), "\x01\x02", &cut), 4);
	cr_assert_str_eq(out, "\\x01");
	cr_assert(cut);
	/* Never half a character. */
	cr_assert_eq(cni_log_escape(out, 6, "abc\xc3\xa9", &cut), 5);
	cr_assert_str_eq(out, "abc\xc3\xa9");
	cr_assert_eq(cni_log_escape(out, 5, "abc\xc3\xa9", &cut), 3);
	cr_assert(cut);
}
