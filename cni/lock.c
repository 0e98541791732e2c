// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "lock.h"
#include "state.h"
#include "util.h"

/* Open (or create) the lock file: never a link, never blocking on a FIFO,
 * and only a regular file is locked. */
static int open_lock(int dirfd, const char *name, const char *what, struct cni_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	fd = openat(dirfd, name, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0 || fstat(fd, &st) < 0)
		return cni_errorf(err, -errno, CNI_ERR_IO, "cannot open lock file", "%s: %s", what,
				  strerror(errno));
	if (!S_ISREG(st.st_mode))
		return cni_errorf(err, -EINVAL, CNI_ERR_IO, "cannot open lock file",
				  "%s is not a regular file; remove it", what);
	/* Older files may carry wider modes; a lock needs no more than 0600.
	 * Never through a second link: that would change another file. */
	if ((st.st_mode & 07777) != 0600 && st.st_nlink == 1 && st.st_uid == geteuid())
		fchmod(fd, 0600);
	return steal_fd(fd);
}

int cni_lock_acquireat(int dirfd, const char *name, const char *what, unsigned int timeout_ms,
		       struct cni_error *err)
{
	_cleanup_close_ int fd = -1;
	uint64_t deadline = now_ms() + timeout_ms;
	unsigned int nap = 1;

	fd = open_lock(dirfd, name, what, err);
	if (fd < 0)
		return fd;
	for (;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return steal_fd(fd);
		if (errno != EWOULDBLOCK && errno != EINTR)
			return cni_errorf(err, -errno, CNI_ERR_IO, "cannot lock", "%s: %s", what,
					  strerror(errno));
		if (now_ms() >= deadline)
			return cni_errorf(
			    err, -EAGAIN, CNI_ERR_TRY_AGAIN, "timed out waiting for a lock",
			    "%s is held by another process for more than %u ms; try again", what,
			    timeout_ms);
		sleep_ms(nap);
		if (nap < 50)
			nap *= 2;
	}
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
