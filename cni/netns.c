// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cleanup.h"
#include "netns.h"

#ifndef NSIO
#define NSIO 0xb7
#endif
#ifndef NS_GET_NSTYPE
#define NS_GET_NSTYPE _IO(NSIO, 0x3)
#endif

int cni_netns_open(const char *path, struct cni_error *err)
{
	_cleanup_close_ int fd = -1;
	struct statfs sfs;
	int type;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cni_errorf(err, -errno, CNI_ERR_INVALID_ENV,
				  "cannot open CNI_NETNS", "%s: %s", path,
				  strerror(errno));
	if (fstatfs(fd, &sfs) < 0 || (sfs.f_type != NSFS_MAGIC &&
				      sfs.f_type != PROC_SUPER_MAGIC))
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_ENV,
				  "CNI_NETNS is not a network namespace",
				  "%s is not an nsfs or /proc namespace file", path);
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type != CLONE_NEWNET)
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_ENV,
				  "CNI_NETNS is not a network namespace",
				  "%s refers to another kind of namespace", path);
	return steal_fd(fd);
}

int cni_netns_enter(int fd, int *saved)
{
	*saved = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (*saved < 0)
		return -errno;
	if (setns(fd, CLONE_NEWNET) < 0) {
		int ret = -errno;

		close(*saved);
		*saved = -1;
		return ret;
	}
	return 0;
}

int cni_netns_restore(int *saved)
{
	int ret = 0;

	if (*saved < 0)
		return 0;
	if (setns(*saved, CLONE_NEWNET) < 0)
		ret = -errno;
	close(*saved);
	*saved = -1;
	return ret;
}

int cni_netns_is_current(int fd)
{
	struct stat a, b;

	if (fstat(fd, &a) < 0 || stat("/proc/thread-self/ns/net", &b) < 0)
		return -errno;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
