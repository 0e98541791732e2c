// SPDX-License-Identifier: Apache-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "kernel/link.h"
#include "kernel/netns.h"
#include "kernel/netns_scan.h"

#ifndef NS_GET_NSTYPE
#define NS_GET_NSTYPE _IO(0xb7, 0x3)
#endif

/* Twice the namespace bound: open addressing stays short. */
#define SEEN_SLOTS (2 * CNI_NETNS_SCAN_NS_MAX)

struct scan {
	struct cni_sys *sys;
	struct cni_netns_mac_scan *s;
	struct cni_sys_ns *seen; /* SEEN_SLOTS, by inode */
	unsigned int n_seen;
};

/* 1 when (dev, ino) is new (noted), 0 when seen, -E2BIG past the bound. */
static int seen_add(struct scan *sc, dev_t dev, ino_t ino)
{
	size_t i = (size_t)ino % SEEN_SLOTS;

	for (; sc->seen[i].known; i = (i + 1) % SEEN_SLOTS)
		if (sc->seen[i].dev == dev && sc->seen[i].ino == ino)
			return 0;
	if (sc->n_seen == CNI_NETNS_SCAN_NS_MAX)
		return -E2BIG;
	sc->seen[i] = (struct cni_sys_ns){.known = true, .dev = dev, .ino = ino};
	sc->n_seen++;
	return 1;
}

/* Count in the namespace of fd (an nsfs file open for reading). */
static int count_in(struct scan *sc, int fd)
{
	unsigned int n = 0;
	int saved = -1, ret = cni_netns_enter(sc->sys, fd, &saved);

	if (ret)
		return ret;
	ret = cni_link_count_mac(sc->sys, sc->s->mac, sc->s->len, &n);
	cni_netns_restore(sc->sys, &saved);
	sc->s->carriers += n;
	sc->s->spaces++;
	return ret;
}

/* The namespace file dirfd/name into *fd (open for setns) when it is a
 * network namespace not seen yet, else *fd = -1. 0 or -errno. */
static int ns_open(struct scan *sc, int dirfd, const char *name, int *fd)
{
	_cleanup_close_ int path = openat(dirfd, name, O_PATH | O_CLOEXEC);
	struct statfs sfs;
	struct stat st;
	char self[64];
	int ret, type;

	*fd = -1;
	/* A process gone, a file removed: what it held is seen elsewhere or gone. */
	if (path < 0 || fstatfs(path, &sfs) < 0 || sfs.f_type != NSFS_MAGIC || fstat(path, &st) < 0)
		return 0;
	ret = seen_add(sc, st.st_dev, st.st_ino);
	if (ret <= 0)
		return ret;
	/* The same inode, now readable: an nsfs file never blocks. */
	if (check_snprintf(self, sizeof(self), "/proc/self/fd/%d", path))
		return -ENAMETOOLONG;
	*fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	/* Another kind of namespace is skipped; where the kernel cannot say,
	 * the switch into a network namespace refuses one. */
	type = ioctl(*fd, NS_GET_NSTYPE);
	if (type >= 0 && type != CLONE_NEWNET) {
		close(*fd);
		*fd = -1;
	}
	return 0;
}

static int visit(struct scan *sc, int dirfd, const char *name, const char *shown)
{
	_cleanup_close_ int fd = -1;
	int ret = ns_open(sc, dirfd, name, &fd);

	if (!ret && fd >= 0)
		ret = count_in(sc, fd);
	if (ret)
		copy_str(sc->s->failed, sizeof(sc->s->failed), shown);
	return ret;
}

/* Every entry of a runtime's netns directory (absent: none). */
static int scan_dir(struct scan *sc, const char *dir)
{
	_cleanup_dir_ DIR *d = opendir(dir);
	struct dirent *e;
	char shown[128];
	unsigned int n = 0;
	int ret = 0;

	while (d && !ret && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (++n > CNI_NETNS_SCAN_NS_MAX)
			ret = -E2BIG;
		else if (check_snprintf(shown, sizeof(shown), "%s/%s", dir, e->d_name))
			memcpy(shown + sizeof(shown) - 4, "...", 4);
		if (!ret)
			ret = visit(sc, dirfd(d), e->d_name, shown);
	}
	if (ret == -E2BIG)
		copy_str(sc->s->failed, sizeof(sc->s->failed), dir);
	return ret;
}

/* Every process's /proc/<pid>/ns/net. */
static int scan_proc(struct scan *sc)
{
	_cleanup_dir_ DIR *d = opendir("/proc");
	struct dirent *e;
	char rel[NAME_MAX + 16];
	unsigned int n = 0;
	int ret = d ? 0 : -errno;

	while (d && !ret && (e = readdir(d))) {
		uint64_t pid;

		if (parse_u64(e->d_name, 10, UINT32_MAX, &pid))
			continue;
		if (++n > CNI_NETNS_SCAN_PROC_MAX)
			ret = -E2BIG;
		else if (!check_snprintf(rel, sizeof(rel), "%s/ns/net", e->d_name))
			ret = visit(sc, dirfd(d), rel, "/proc/<pid>/ns/net");
	}
	if (ret == -E2BIG || !d)
		copy_str(sc->s->failed, sizeof(sc->s->failed), "/proc");
	return ret;
}

/* The caller's namespace first (where the host's netdevs are), then the pod's. */
static int scan_known(struct scan *sc)
{
	char self[64];
	int ret = visit(sc, AT_FDCWD, "/proc/thread-self/ns/net", "the host namespace");

	if (ret || sc->s->pod_fd < 0)
		return ret;
	if (check_snprintf(self, sizeof(self), "/proc/self/fd/%d", sc->s->pod_fd))
		return -ENAMETOOLONG;
	return visit(sc, AT_FDCWD, self, "the pod's namespace");
}

int cni_netns_count_mac(struct cni_sys *sys, struct cni_netns_mac_scan *s)
{
	_cleanup_free_ struct cni_sys_ns *seen = calloc(SEEN_SLOTS, sizeof(*seen));
	struct scan sc = {.sys = sys, .s = s, .seen = seen};
	int ret;

	s->carriers = s->spaces = 0;
	s->failed[0] = '\0';
	if (!seen)
		return -ENOMEM;
	ret = scan_known(&sc);
	if (!ret)
		ret = scan_dir(&sc, "/run/netns");
	if (!ret)
		ret = scan_dir(&sc, "/var/run/netns");
	return ret ? ret : scan_proc(&sc);
}
