// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/child.h"
#include "base/cleanup.h"
#include "base/log.h"
#include "base/util.h"

/* Blocked on the child's pidfd (readable once it exits) rather than a sleep
 * between tries: a delegate closes its stdout a moment before it can be
 * reaped, and each sleep there cost an ADD milliseconds. Without pidfds
 * (before Linux 5.3) the tries are 2 ms apart. */
int cni_child_wait_until(pid_t pid, uint64_t deadline, int *status)
{
#ifdef SYS_pidfd_open
	_cleanup_close_ int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
#else
	_cleanup_close_ int pfd = -1;
#endif

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		struct pollfd p = {.fd = pfd, .events = POLLIN};
		uint64_t now = now_ms();

		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (now >= deadline)
			return -ETIMEDOUT;
		if (pfd < 0 || poll(&p, 1, (int)(deadline - now)) < 0)
			sleep_ms(2);
	}
}

int cni_child_wait(pid_t pid, unsigned int wait_ms, int *status)
{
	return cni_child_wait_until(pid, now_ms() + wait_ms, status);
}

int cni_child_kill(pid_t pid, unsigned int wait_ms)
{
	int ret;

	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	/* SIGKILL does not end a process stuck in the kernel (a hung NFS or
	 * FUSE read): waiting for it unbounded would hang us with it. */
	ret = cni_child_wait(pid, wait_ms, &(int){0});
	if (ret)
		log_warn("child %d did not exit within %u ms of SIGKILL; left behind", (int)pid,
			 wait_ms);
	return ret;
}

/* close_range(2) (Linux 5.9); before it, one close per possible fd. */
static int close_span(unsigned int lo, unsigned int hi)
{
	if (lo > hi)
		return 0;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, lo, hi, 0) == 0)
		return 0;
	if (errno != ENOSYS)
		return -errno;
#endif
	for (long fd = lo, max = sysconf(_SC_OPEN_MAX); fd <= (long)hi && fd < max; fd++)
		close((int)fd);
	return 0;
}

int cni_child_close_fds(const int *keep, unsigned int n)
{
	unsigned int lo = 3;

	for (;;) {
		unsigned int next = ~0U;
		int ret;

		/* The lowest kept fd at or above lo: close up to it, skip it. */
		for (unsigned int i = 0; i < n; i++)
			if (keep[i] >= (int)lo && (unsigned int)keep[i] < next)
				next = (unsigned int)keep[i];
		ret = close_span(lo, next == ~0U ? ~0U : next - 1);
		if (ret || next == ~0U)
			return ret;
		lo = next + 1;
	}
}

int cni_child_drop_caps(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {{0}};

	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}
