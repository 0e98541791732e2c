// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "lock.h"
#include "util.h"

int cni_lock_acquire(const char *path, unsigned int timeout_ms,
		     struct cni_error *err)
{
	_cleanup_close_ int fd = -1;
	uint64_t deadline = now_ms() + timeout_ms;
	unsigned int nap = 1;

	fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return cni_errorf(err, -errno, CNI_ERR_IO, "cannot open lock file",
				  "%s: %s", path, strerror(errno));
	/* Older files may carry wider modes; a lock needs no more than 0600. */
	fchmod(fd, 0600);
	for (;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return steal_fd(fd);
		if (errno != EWOULDBLOCK && errno != EINTR)
			return cni_errorf(err, -errno, CNI_ERR_IO, "cannot lock",
					  "%s: %s", path, strerror(errno));
		if (now_ms() >= deadline)
			return cni_errorf(err, -EAGAIN, CNI_ERR_TRY_AGAIN,
					  "timed out waiting for a lock",
					  "%s is held by another process for more than %u ms; try again",
					  path, timeout_ms);
		sleep_ms(nap);
		if (nap < 50)
			nap *= 2;
	}
}

void cni_lock_release(int fd)
{
	if (fd < 0)
		return;
	flock(fd, LOCK_UN);
	close(fd);
}
