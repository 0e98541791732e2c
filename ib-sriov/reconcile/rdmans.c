// SPDX-License-Identifier: Apache-2.0
/* rdma-ns's records in the agent's pass: `rdma-ns reconcile` exec'ed from
 * this binary's directory with the same flags. Its release reads rdma-ns's
 * records and moves RDMA devices, which no one layer of cni/ may do
 * (kernel/ and state/ include only base/), and a plugin never calls another
 * plugin's code: so each plugin releases its own records, and rdma-ns's
 * pass also runs alone. Its action lines reach our stderr as they are; its
 * one stdout line, the counts, is added to ours. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/child.h"
#include "base/cleanup.h"
#include "base/util.h"
#include "reconcile.h"

#define RDMANS_WAIT_MS (5 * 60 * 1000) /* a pass of rdma-ns, bounded */
#define COUNTS_MAX     256

extern char **environ;

static int spawn_rdmans(const struct reconcile_pass *p, const char *path, int out, pid_t *pid)
{
	char a0[] = "rdma-ns", a1[] = "reconcile", a2[] = "--grace", grace[16], a4[] = "--dry-run";
	char *argv[] = {a0, a1, a2, grace, p->o->dry_run ? a4 : NULL, NULL};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none;
	int ret;

	if (check_snprintf(grace, sizeof(grace), "%u", p->o->grace))
		return -EINVAL;
	sigemptyset(&none);
	ret = posix_spawn_file_actions_init(&fa);
	if (ret)
		return -ret;
	ret = posix_spawnattr_init(&attr);
	if (!ret)
		ret = posix_spawn_file_actions_adddup2(&fa, out, STDOUT_FILENO);
	if (!ret)
		ret = posix_spawnattr_setsigmask(&attr, &none);
	if (!ret)
		ret = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	if (!ret)
		ret = posix_spawn(pid, path, &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return -ret;
}

/* Its stdout until it closes it or the deadline, at most len - 1 bytes
 * (the rest is drained). */
static void read_counts(int fd, char *buf, size_t len, uint64_t deadline)
{
	size_t used = 0;
	char sink[256];
	ssize_t n;

	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		uint64_t now = now_ms();

		if (now >= deadline || poll(&pfd, 1, (int)(deadline - now)) == 0)
			break;
		if (used + 1 < len)
			n = read(fd, buf + used, len - 1 - used);
		else
			n = read(fd, sink, sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (used + 1 < len)
			used += (size_t)n;
	}
	buf[used] = '\0';
}

void reconcile_rdmans(struct reconcile_pass *p)
{
	char path[PATH_MAX], counts[COUNTS_MAX];
	unsigned int n = 0, released = 0, kept = 0, skipped = 0;
	_cleanup_close_ int rd = -1;
	int fds[2], status = 0, ret;
	uint64_t deadline;
	pid_t pid = -1;

	if (check_snprintf(path, sizeof(path), "%s/rdma-ns", p->self_dir) || access(path, X_OK)) {
		log_debug("no %s beside ib-sriov: rdma-ns's records are not looked at", path);
		return;
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		log_warn("cannot run %s reconcile: %s", path, strerror(errno));
		return;
	}
	ret = spawn_rdmans(p, path, fds[1], &pid);
	close(fds[1]);
	rd = fds[0];
	if (ret) {
		log_warn("cannot run %s reconcile: %s", path, strerror(-ret));
		return;
	}
	deadline = now_ms() + RDMANS_WAIT_MS;
	read_counts(rd, counts, sizeof(counts), deadline);
	if (cni_child_wait_until(pid, deadline, &status))
		cni_child_kill(pid, 2000);
	if (sscanf(counts, "reconcile: %u records, released %u, kept %u, skipped %u", &n, &released,
		   &kept, &skipped) != 4) {
		log_warn("%s reconcile gave no counts (status %d): its records are left", path,
			 status);
		return;
	}
	p->records += n;
	p->released += released;
	p->kept += kept;
	p->skipped += skipped;
}
