// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/error.h"
#include "base/log.h"
#include "base/util.h"
#include "kernel/netns.h"
#include "kernel/sys.h"

#ifndef NSIO
#define NSIO 0xb7
#endif
#ifndef NS_GET_NSTYPE
#define NS_GET_NSTYPE _IO(NSIO, 0x3)
#endif

/* The caller's namespace is tracked in sys (kernel/sys.h) across every
 * switch of ours (cni_netns_enter/restore), so that finding a netlink socket
 * for it costs no lookup of /proc/thread-self/ns/net per request. */
#define NETNS_DEPTH CNI_SYS_DEPTH

/* The home fd, opened the first time the caller is at depth 0: its identity
 * is also the thread's current namespace's, so the first lookup of
 * /proc/thread-self/ns/net is the only one. */
static int home_get(struct cni_sys *sys)
{
	struct stat st;
	int fd;

	if (sys->home >= 0 || sys->depth)
		return sys->home;
	fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	sys->home = fd;
	sys->home_id = sys->cur =
	    (struct cni_sys_ns){.known = true, .dev = st.st_dev, .ino = st.st_ino};
	return sys->home;
}

static bool at_home(const struct cni_sys *sys)
{
	return !sys->depth && sys->cur.known && sys->home >= 0 &&
	       sys->cur.dev == sys->home_id.dev && sys->cur.ino == sys->home_id.ino;
}

static int open_current(struct cni_sys *sys)
{
	int fd;

	home_get(sys);
	if (at_home(sys))
		return sys->home;
	fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int cni_netns_open_current(struct cni_sys *sys)
{
	int fd = open_current(sys);

	/* The kept one is never handed out: the caller closes what it gets. */
	if (fd >= 0 && fd == sys->home && (fd = fcntl(sys->home, F_DUPFD_CLOEXEC, 0)) < 0)
		return -errno;
	return fd;
}

static void close_saved(const struct cni_sys *sys, int fd)
{
	if (fd != sys->home)
		close(fd);
}

int cni_netns_current(struct cni_sys *sys, dev_t *dev, ino_t *ino)
{
	struct stat st;

	if (!sys->cur.known)
		home_get(sys);
	if (!sys->cur.known) {
		if (stat("/proc/thread-self/ns/net", &st) < 0)
			return -errno;
		sys->cur = (struct cni_sys_ns){.known = true, .dev = st.st_dev, .ino = st.st_ino};
	}
	*dev = sys->cur.dev;
	*ino = sys->cur.ino;
	return 0;
}

int cni_netns_enter(struct cni_sys *sys, int fd, int *saved)
{
	struct stat st;
	bool have = fstat(fd, &st) == 0;

	*saved = open_current(sys);
	if (*saved < 0)
		return *saved;
	if (setns(fd, CLONE_NEWNET) < 0) {
		int ret = -errno;

		close_saved(sys, *saved);
		*saved = -1;
		return ret;
	}
	if (sys->depth < NETNS_DEPTH)
		sys->stack[sys->depth] = sys->cur;
	sys->depth++;
	sys->cur = (struct cni_sys_ns){.known = have, .dev = st.st_dev, .ino = st.st_ino};
	return 0;
}

int cni_netns_restore(struct cni_sys *sys, int *saved)
{
	int fd = *saved;

	if (fd < 0)
		return 0;
	*saved = -1;
	if (setns(fd, CLONE_NEWNET) < 0) {
		int ret = -errno;

		close_saved(sys, fd);
		/* Every later step would act on the pod's namespace as if it
		 * were the host's: stop here, with an error the runtime sees. */
		log_err("cannot return to the host network namespace: %s", strerror(-ret));
		cni_die(CNI_ERR_INTERNAL, "cannot return to the host network namespace",
			strerror(-ret));
	}
	close_saved(sys, fd);
	if (sys->depth && sys->depth <= NETNS_DEPTH)
		sys->cur = sys->stack[sys->depth - 1];
	else
		sys->cur.known = false;
	if (sys->depth)
		sys->depth--;
	return 0;
}

/* The plugin's own namespace (the process's), as device and inode. */
static int own_netns(struct cni_sys *sys, struct stat *st)
{
	if (!sys->depth && !cni_netns_current(sys, &st->st_dev, &st->st_ino))
		return 0;
	return stat("/proc/self/ns/net", st) < 0 ? -errno : 0;
}

/* 1 when the nsfs file fd is a network namespace, 0 when it is another
 * kind, or -errno. NS_GET_NSTYPE (Linux 4.11) says; where it is unknown
 * (ENOTTY from an older kernel, ENOSYS from qemu-user, which forwards no
 * ioctl missing from its table) setns(CLONE_NEWNET) asks the kernel, which
 * refuses another kind with EINVAL, and we return at once. */
static int is_net_ns(struct cni_sys *sys, int fd)
{
	int saved, ret, type = ioctl(fd, NS_GET_NSTYPE);

	if (type >= 0 || (errno != ENOTTY && errno != ENOSYS))
		return type == CLONE_NEWNET;
	ret = cni_netns_enter(sys, fd, &saved);
	if (ret)
		return ret == -EINVAL ? 0 : ret;
	cni_netns_restore(sys, &saved);
	return 1;
}

int cni_netns_open(struct cni_sys *sys, const char *path, struct cni_error *err)
{
	_cleanup_close_ int fd = -1;
	struct stat st, self;
	struct statfs sfs;
	int ret;

	/* Non-blocking: a FIFO planted as CNI_NETNS must not hang us. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return cni_errorf(err, -errno, CNI_ERR_INVALID_ENV, "cannot open CNI_NETNS",
				  "%s: %s", path, strerror(errno));
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != NSFS_MAGIC)
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_ENV,
				  "CNI_NETNS is not a network namespace",
				  "%s is not a namespace file (nsfs)", path);
	ret = is_net_ns(sys, fd);
	if (ret < 0)
		return cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot enter CNI_NETNS", "%s: %s",
				  path, strerror(-ret));
	if (!ret)
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_ENV,
				  "CNI_NETNS is not a network namespace",
				  "%s refers to another kind of namespace", path);
	/* The plugin's own namespace is the host's: a "pod" there would get
	 * the host's devices moved and configured as if they were the pod's.
	 * Outside any entry of ours that is where the thread is. */
	ret = fstat(fd, &st) < 0 ? -errno : own_netns(sys, &self);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_INTERNAL,
				  "cannot compare CNI_NETNS with our namespace", "%s: %s", path,
				  strerror(-ret));
	if (st.st_dev == self.st_dev && st.st_ino == self.st_ino)
		return cni_errorf(
		    err, -EINVAL, CNI_ERR_INVALID_ENV, "CNI_NETNS is the host network namespace",
		    "%s is the plugin's own network namespace; a pod needs its own", path);
	return steal_fd(fd);
}

/* 1 when path's directory is there (so the file in it is gone), else
 * -ENOENT: a view without the runtime's directory (an agent's container
 * without that mount, another PID namespace's /proc, a /proc/PID gone)
 * proves nothing. */
static int parent_here(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (slash == path || check_snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path))
		return -ENOENT;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return -ENOENT;
	return 1;
}

int cni_netns_gone(const char *path)
{
	_cleanup_close_ int fd = -1, ns = -1;
	struct statfs sfs;
	char self[64];
	int type;

	if (!path || *path != '/')
		return -EINVAL;
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return parent_here(path);
	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sfs) < 0)
		return -errno;
	if (sfs.f_type != NSFS_MAGIC)
		return 1;
	/* The same file, readable for the ioctl: nsfs files never block. */
	if (check_snprintf(self, sizeof(self), "/proc/self/fd/%d", fd))
		return -ENAMETOOLONG;
	ns = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (ns < 0)
		return -errno;
	type = ioctl(ns, NS_GET_NSTYPE);
	/* No answer (an older kernel, qemu-user): alive, for all we know. */
	if (type < 0)
		return -errno;
	return type != CLONE_NEWNET;
}

int cni_netns_is_current(struct cni_sys *sys, int fd)
{
	struct stat a, b;

	if (fstat(fd, &a) < 0 || stat("/proc/thread-self/ns/net", &b) < 0)
		return -errno;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
