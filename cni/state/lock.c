// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "state/lock.h"
#include "state/state.h"
#include "base/util.h"

/* Open (or create) the lock file: never a link, never blocking on a FIFO,
 * and only a regular file is locked. */
static int open_lock(int dirfd, const char *name, const char *what, struct cni_error *err)
{
	const int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
	_cleanup_close_ int fd = -1;
	bool created = false;
	struct stat st;

	fd = openat(dirfd, name, flags);
	if (fd < 0 && errno == ENOENT) {
		fd = openat(dirfd, name, flags | O_CREAT | O_EXCL, 0600);
		created = fd >= 0;
		if (fd < 0 && errno == EEXIST) /* another run made it since */
			fd = openat(dirfd, name, flags);
	}
	if (fd < 0 || fstat(fd, &st) < 0)
		return cni_errorf(err, -errno, CNI_ERR_IO, "cannot open lock file", "%s: %s", what,
				  strerror(errno));
	if (!S_ISREG(st.st_mode))
		return cni_errorf(err, -EINVAL, CNI_ERR_IO, "cannot open lock file",
				  "%s is not a regular file; remove it", what);
	/* 0600 whatever the umask, on the file this call made only: an
	 * existing one may be another program's (a dataDir naming a
	 * directory that holds its "lock"), and is used as it is. */
	if (created && (st.st_mode & 07777) != 0600)
		fchmod(fd, 0600);
	return steal_fd(fd);
}

static void on_alarm(int sig)
{
	(void)sig; /* only there to interrupt flock() */
}

/* Block in flock() (the kernel wakes waiters as soon as the lock is free,
 * as it does for host-local, which waits the same way) until a timer
 * interrupts it. Polling instead loses every race to blocked waiters and
 * can starve past any bound under contention. 0, -EAGAIN or -errno. */
static int flock_timed(int fd, unsigned int timeout_ms)
{
	struct sigaction sa = {.sa_handler = on_alarm}, old_sa;
	struct itimerval it = {
	    .it_value = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000}};
	struct itimerval off = {0}, old_it;
	uint64_t deadline = now_ms() + timeout_ms;
	sigset_t alrm, old_mask;
	int ret;

	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK)
		return -errno;
	if (!timeout_ms)
		return -EAGAIN;
	sigemptyset(&sa.sa_mask); /* no SA_RESTART: flock() returns EINTR */
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigaction(SIGALRM, &sa, &old_sa);
	sigprocmask(SIG_UNBLOCK, &alrm, &old_mask);
	setitimer(ITIMER_REAL, &it, &old_it);
	do {
		ret = flock(fd, LOCK_EX) ? -errno : 0;
	} while (ret == -EINTR && now_ms() < deadline);
	setitimer(ITIMER_REAL, &off, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	sigaction(SIGALRM, &old_sa, NULL);
	if (old_it.it_value.tv_sec || old_it.it_value.tv_usec)
		setitimer(ITIMER_REAL, &old_it, NULL);
	return ret == -EINTR ? -EAGAIN : ret;
}

int cni_lock_acquireat(int dirfd, const char *name, const char *what, unsigned int timeout_ms,
		       struct cni_error *err)
{
	_cleanup_close_ int fd = -1;
	int ret;

	fd = open_lock(dirfd, name, what, err);
	if (fd < 0)
		return fd;
	ret = flock_timed(fd, timeout_ms);
	if (ret == -EAGAIN)
		return cni_errorf(err, -EAGAIN, CNI_ERR_TRY_AGAIN, "timed out waiting for a lock",
				  "%s is held by another process for more than %u ms; try again",
				  what, timeout_ms);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot lock", "%s: %s", what,
				  strerror(-ret));
	return steal_fd(fd);
}

int cni_lock_acquire(const char *path, unsigned int timeout_ms, struct cni_error *err)
{
	_cleanup_close_ int dirfd = -1;
	char dir[PATH_MAX];
	const char *name = strrchr(path, '/');

	if (!name || !name[1] || copy_str(dir, sizeof(dir), path))
		return cni_errorf(err, -EINVAL, CNI_ERR_INTERNAL, "cannot open lock file",
				  "%s is not an absolute file path", path);
	dir[name - path] = '\0';
	dirfd = cni_state_opendir(dir[0] ? dir : "/", CNI_DIR_PRIVATE);
	if (dirfd < 0)
		return cni_errorf(err, dirfd, CNI_ERR_IO, "cannot open lock file",
				  "%s: directory %s: %s", path, dir[0] ? dir : "/",
				  dirfd == -EPERM ? "not owned by us or writable by others"
						  : strerror(-dirfd));
	return cni_lock_acquireat(dirfd, name + 1, path, timeout_ms, err);
}

void cni_lock_release(int fd)
{
	if (fd < 0)
		return;
	flock(fd, LOCK_UN);
	close(fd);
}
