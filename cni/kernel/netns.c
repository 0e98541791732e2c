// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
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
#ifndef NS_GET_ID
#define NS_GET_ID _IOR(NSIO, 0xd, uint64_t)
#endif
/* Linux 5.14; Debian 12's headers have it (asm-generic/socket.h). For older
 * ones, the generic value (the architectures with their own socket.h,
 * alpha, mips, parisc and sparc, give it another). */
#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
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

/* The most entries of a netns directory looked at for a namespace mount
 * (a node runs a few hundred pods at most). */
#define SCAN_MAX 4096

/* Whether this mount view shows a namespace mount in the directory dfd
 * (one of its first SCAN_MAX entries nsfs, links followed as the runtime's
 * /proc/PID/ns ones are links): then the runtime's mounts reach the view,
 * and an absence there is the runtime's doing. Takes dfd. */
static bool shows_mounts(int dfd)
{
	_cleanup_dir_ DIR *d = fdopendir(dfd);
	struct dirent *e;
	unsigned int n = 0;

	if (!d) {
		close(dfd);
		return false;
	}
	while ((e = readdir(d)) && n++ < SCAN_MAX) {
		_cleanup_close_ int fd = -1;
		struct statfs sfs;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		fd = openat(dirfd(d), e->d_name, O_PATH | O_CLOEXEC);
		if (fd >= 0 && !fstatfs(fd, &sfs) && sfs.f_type == NSFS_MAGIC)
			return true;
	}
	return false;
}

/* What path's directory tells of the file in it: -ENOENT when the
 * directory is not there (a view without the runtime's directory, another
 * PID namespace's /proc, a /proc/PID gone: nothing proven);
 * -CNI_NETNS_NO_MOUNTS when it shows no namespace mount (not the runtime's
 * directory, or its mounts do not reach this view); else ok. */
static int dir_tells(const char *path, int ok)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int dfd;

	if (slash == path || check_snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path))
		return -ENOENT;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -ENOENT;
	return shows_mounts(dfd) ? ok : -CNI_NETNS_NO_MOUNTS;
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
		return dir_tells(path, 1);
	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sfs) < 0)
		return -errno;
	/* Not a namespace: a file whose mount the runtime removed (and then
	 * did not remove the file), or a mount that never reached this view.
	 * Nothing here tells which, so it never means gone; the directory
	 * says whether the view is blind. */
	if (sfs.f_type != NSFS_MAGIC)
		return dir_tells(path, -CNI_NETNS_NOT_MOUNT);
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
	/* Another kind of namespace mounted there: not the pod's, but not a
	 * proof that its namespace is gone either. */
	return type == CLONE_NEWNET ? 0 : -EINVAL;
}

const char *cni_netns_unseen_text(int ret)
{
	if (ret == -CNI_NETNS_NOT_MOUNT)
		return "the file is there but is not a namespace mount in this mount view (a "
		       "runtime that left it unmounted: remove it once its pod is gone; a mount "
		       "namespace the runtime's netns mounts do not propagate to: mount the netns "
		       "directory with mountPropagation: HostToContainer, see "
		       "conf-examples/ibcni-daemonset.yaml)";
	if (ret == -CNI_NETNS_NO_MOUNTS)
		return "its directory shows no namespace mount in this mount view (not the "
		       "runtime's netns directory, or one its mounts do not propagate to: mount "
		       "the host's netns directory with mountPropagation: HostToContainer, see "
		       "conf-examples/ibcni-daemonset.yaml)";
	return strerror(-ret);
}

bool cni_netns_blind_note(struct cni_netns_blind *b, const char *path, int ret)
{
	const char *slash = strrchr(path, '/');
	int len = slash ? (int)(slash - path) : 0;
	unsigned int i;

	if (ret != -CNI_NETNS_NOT_MOUNT && ret != -CNI_NETNS_NO_MOUNTS)
		return false;
	if ((size_t)len >= sizeof(b->d[0].dir)) {
		b->more++;
		return true;
	}
	for (i = 0; i < b->n; i++)
		if (!strncmp(b->d[i].dir, path, (size_t)len) && !b->d[i].dir[len])
			break;
	if (i == b->n) {
		if (i == CNI_NETNS_BLIND_MAX) {
			b->more++;
			return true;
		}
		memcpy(b->d[i].dir, path, (size_t)len);
		b->d[i].dir[len] = '\0';
		b->n++;
	}
	b->d[i].kept++;
	/* One directory that shows no mount is blind, whatever else. */
	if (!b->d[i].why || ret == -CNI_NETNS_NO_MOUNTS)
		b->d[i].why = ret;
	return true;
}

void cni_netns_blind_report(const struct cni_netns_blind *b)
{
	for (unsigned int i = 0; i < b->n; i++) {
		bool none = b->d[i].why == -CNI_NETNS_NO_MOUNTS;

		log_warn("kept %u attachment(s) whose netns is in %s: %s; mount the host's %s into "
			 "the agent with mountPropagation: HostToContainer "
			 "(conf-examples/ibcni-daemonset.yaml)%s",
			 b->d[i].kept, b->d[i].dir,
			 none ? "it shows no namespace mount in this mount view, so nothing there "
				"tells whether their pods are gone"
			      : "their files are there but are not namespace mounts in this "
				"mount view",
			 b->d[i].dir,
			 none ? "; on a node without pods, the first pod's netns ends this"
			      : "; files a runtime left unmounted: remove them once their pods "
				"are gone");
	}
	if (b->more)
		log_warn("kept %u more attachment(s) in netns directories this mount view cannot "
			 "see into (the fix above)",
			 b->more);
}

int cni_netns_is_current(struct cni_sys *sys, int fd)
{
	struct stat a, b;

	if (fstat(fd, &a) < 0 || stat("/proc/thread-self/ns/net", &b) < 0)
		return -errno;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int cni_netns_id(int fd, struct cni_netns_id *id)
{
	struct stat st;
	uint64_t nsid = 0;

	if (fstat(fd, &st) < 0)
		return -errno;
	/* Before Linux 6.18 (ENOTTY) or under qemu-user (ENOSYS): no ID, the
	 * inode alone says. */
	if (ioctl(fd, NS_GET_ID, &nsid) < 0)
		nsid = 0;
	*id = (struct cni_netns_id){.dev = st.st_dev, .ino = st.st_ino, .nsid = nsid};
	return 0;
}

/* The cookie of the namespace the caller is in, from a fresh socket: any
 * socket answers for the namespace it was created in. */
static int cookie_here(uint64_t *cookie)
{
	_cleanup_close_ int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	socklen_t len = sizeof(*cookie);

	if (s < 0)
		return -errno;
	if (getsockopt(s, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len) == 0)
		return len == sizeof(*cookie) ? 0 : -EPROTO;
	/* Before Linux 5.14 (ENOPROTOOPT) or under qemu-user (EOPNOTSUPP or
	 * EINVAL for an option missing from its table): no cookie, the rest
	 * says. */
	*cookie = 0;
	return errno == ENOPROTOOPT || errno == EOPNOTSUPP || errno == EINVAL ? 0 : -errno;
}

int cni_netns_cookie(struct cni_sys *sys, int fd, uint64_t *cookie)
{
	int saved = -1, ret;

	*cookie = 0;
	ret = cni_netns_enter(sys, fd, &saved);
	if (ret)
		return ret;
	ret = cookie_here(cookie);
	cni_netns_restore(sys, &saved);
	return ret;
}
