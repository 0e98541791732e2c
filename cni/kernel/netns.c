// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
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
#include "kernel/netns.h"

#ifndef NSIO
#define NSIO 0xb7
#endif
#ifndef NS_GET_NSTYPE
#define NS_GET_NSTYPE _IO(NSIO, 0x3)
#endif

/* The calling thread's namespace as nsfs device and inode, kept here where
 * every switch of ours happens (cni_netns_enter/restore, and _forget after
 * any other), so that finding a netlink socket for it costs no lookup of
 * /proc/thread-self/ns/net per request. A stack follows nested entries;
 * deeper ones, or a switch not made here, make it unknown until looked up. */
#define NETNS_DEPTH 4

struct ns_id {
	bool known;
	dev_t dev;
	ino_t ino;
};

static __thread struct ns_id cur, stack[NETNS_DEPTH];
static __thread unsigned int depth;

/* The namespace outermost entries return to, kept open after the first one
 * (ADD and DEL enter the pod's several times): an fd of ours, never closed
 * by a restore, used only while the thread is known to be in it. */
static __thread int home = -1;
static __thread struct ns_id home_id;

/* The home fd, opened the first time the thread is at depth 0: its identity
 * is also the thread's current namespace's, so the first lookup of
 * /proc/thread-self/ns/net is the only one. */
static int home_get(void)
{
	struct stat st;
	int fd;

	if (home >= 0 || depth)
		return home;
	fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	home = fd;
	home_id = cur = (struct ns_id){.known = true, .dev = st.st_dev, .ino = st.st_ino};
	return home;
}

static bool at_home(void)
{
	return !depth && cur.known && home >= 0 && cur.dev == home_id.dev && cur.ino == home_id.ino;
}

static int open_current(void)
{
	int fd;

	home_get();
	if (at_home())
		return home;
	fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int cni_netns_open_current(void)
{
	int fd = open_current();

	/* The kept one is never handed out: the caller closes what it gets. */
	if (fd >= 0 && fd == home && (fd = fcntl(home, F_DUPFD_CLOEXEC, 0)) < 0)
		return -errno;
	return fd;
}

static void close_saved(int fd)
{
	if (fd != home)
		close(fd);
}

int cni_netns_current(dev_t *dev, ino_t *ino)
{
	struct stat st;

	if (!cur.known)
		home_get();
	if (!cur.known) {
		if (stat("/proc/thread-self/ns/net", &st) < 0)
			return -errno;
		cur = (struct ns_id){.known = true, .dev = st.st_dev, .ino = st.st_ino};
	}
	*dev = cur.dev;
	*ino = cur.ino;
	return 0;
}

void cni_netns_forget(void)
{
	cur.known = false;
	depth = 0;
}

int cni_netns_enter(int fd, int *saved)
{
	struct stat st;
	bool have = fstat(fd, &st) == 0;

	*saved = open_current();
	if (*saved < 0)
		return *saved;
	if (setns(fd, CLONE_NEWNET) < 0) {
		int ret = -errno;

		close_saved(*saved);
		*saved = -1;
		return ret;
	}
	if (depth < NETNS_DEPTH)
		stack[depth] = cur;
	depth++;
	cur = (struct ns_id){.known = have, .dev = st.st_dev, .ino = st.st_ino};
	return 0;
}

int cni_netns_restore(int *saved)
{
	int fd = *saved;

	if (fd < 0)
		return 0;
	*saved = -1;
	if (setns(fd, CLONE_NEWNET) < 0) {
		int ret = -errno;

		close_saved(fd);
		/* Every later step would act on the pod's namespace as if it
		 * were the host's: stop here, with an error the runtime sees. */
		log_err("cannot return to the host network namespace: %s", strerror(-ret));
		cni_die(CNI_ERR_INTERNAL, "cannot return to the host network namespace",
			strerror(-ret));
	}
	close_saved(fd);
	if (depth && depth <= NETNS_DEPTH)
		cur = stack[depth - 1];
	else
		cur.known = false;
	if (depth)
		depth--;
	return 0;
}

/* The plugin's own namespace (the process's), as device and inode. */
static int own_netns(struct stat *st)
{
	if (!depth && !cni_netns_current(&st->st_dev, &st->st_ino))
		return 0;
	return stat("/proc/self/ns/net", st) < 0 ? -errno : 0;
}

/* 1 when the nsfs file fd is a network namespace, 0 when it is another
 * kind, or -errno. NS_GET_NSTYPE (Linux 4.11) says; where it is unknown
 * (ENOTTY from an older kernel, ENOSYS from qemu-user, which forwards no
 * ioctl missing from its table) setns(CLONE_NEWNET) asks the kernel, which
 * refuses another kind with EINVAL, and we return at once. */
static int is_net_ns(int fd)
{
	int saved, ret, type = ioctl(fd, NS_GET_NSTYPE);

	if (type >= 0 || (errno != ENOTTY && errno != ENOSYS))
		return type == CLONE_NEWNET;
	ret = cni_netns_enter(fd, &saved);
	if (ret)
		return ret == -EINVAL ? 0 : ret;
	cni_netns_restore(&saved);
	return 1;
}

int cni_netns_open(const char *path, struct cni_error *err)
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
	ret = is_net_ns(fd);
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
	ret = fstat(fd, &st) < 0 ? -errno : own_netns(&self);
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

int cni_netns_is_current(int fd)
{
	struct stat a, b;

	if (fstat(fd, &a) < 0 || stat("/proc/thread-self/ns/net", &b) < 0)
		return -errno;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}
