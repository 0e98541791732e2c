// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/path.h"
#include "state/confine.h"
#include "state/state.h"
#include "base/util.h"

/* The fd when it is on an ordinary filesystem; else closed, -EXDEV. */
static int ordinary_or_close(int fd, const char **fs, char *buf, size_t len)
{
	int ret = cni_fs_ordinary(fd, fs, buf, len);

	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* From root's parent (which must exist: it is never created), one
 * component at a time: each missing one is made only in a directory that
 * is on an ordinary filesystem. */
static int walk_create(const char *root, const char *dir, unsigned int flags, const char **fs,
		       char *buf, size_t len)
{
	const char *slash = strrchr(root, '/');
	size_t plen = slash > root ? (size_t)(slash - root) : 1;
	_cleanup_free_ char *parent = strndup(root, plen);
	_cleanup_close_ int fd = -1;
	const char *p = dir + (plen > 1 ? plen : 0);
	int ret;

	if (!parent)
		return -ENOMEM;
	fd = cni_state_opendir(parent, 0);
	if (fd < 0)
		return fd;
	while (*p == '/' && p[1]) {
		unsigned int last;
		char name[256];
		size_t n;
		int sub;

		p++;
		n = strcspn(p, "/");
		if (n >= sizeof(name))
			return -ENAMETOOLONG;
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		last = *p ? 0 : flags & CNI_DIR_PRIVATE;

		sub = cni_state_opendirat(fd, name, last, NULL);
		if (sub == -ENOENT) {
			ret = cni_fs_ordinary(fd, fs, buf, len);
			if (ret)
				return ret;
			sub = cni_state_opendirat(fd, name, last | CNI_DIR_CREATE, NULL);
		}
		if (sub < 0)
			return sub;
		close(fd);
		fd = sub;
	}
	return ordinary_or_close(steal_fd(fd), fs, buf, len);
}

int cni_state_opendir_under(const char *root, const char *dir, unsigned int flags, const char **fs,
			    char *buf, size_t len)
{
	size_t rl = strlen(root);
	int fd;

	*fs = NULL;
	/* "/" has no parent to stop at. */
	if (root[0] != '/' || !root[1] || strncmp(dir, root, rl) || (dir[rl] && dir[rl] != '/'))
		return -EINVAL;
	/* The usual case, in the state walk's one cached call. */
	fd = cni_state_opendir(dir, flags & ~CNI_DIR_CREATE);
	if (fd >= 0)
		return ordinary_or_close(fd, fs, buf, len);
	if (fd != -ENOENT || !(flags & CNI_DIR_CREATE))
		return fd;
	return walk_create(root, dir, flags, fs, buf, len);
}
