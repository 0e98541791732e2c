// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/path.h"
#include "base/util.h"

/* Not in Debian's linux/magic.h: the values the filesystems' own sources use. */
#define ZFS_SUPER_MAGIC	     0x2fc12fc1
#define JFS_SUPER_MAGIC	     0x3153464a
#define BCACHEFS_SUPER_MAGIC 0xca451a4e
#define CONFIGFS_MAGIC	     0x62656570

int cni_path_normalise(const char *path, char *out, size_t len)
{
	size_t n = 0;

	if (!len)
		return -ENAMETOOLONG;
	if (path[0] != '/')
		return -EINVAL;
	for (const char *p = path; *p;) {
		size_t l;

		while (*p == '/')
			p++;
		l = strcspn(p, "/");
		if (!l)
			break;
		if ((l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.'))
			return -EINVAL;
		if (n + 1 + l >= len)
			return -ENAMETOOLONG;
		out[n++] = '/';
		memcpy(out + n, p, l);
		n += l;
		p += l;
	}
	if (!n) {
		if (len < 2)
			return -ENAMETOOLONG;
		out[n++] = '/';
	}
	out[n] = '\0';
	return 0;
}

const char *cni_path_under(const char *path, char *const roots[], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(roots[i]);

		if (strncmp(path, roots[i], l))
			continue;
		if (!path[l] || path[l] == '/' || !strcmp(roots[i], "/"))
			return roots[i];
	}
	return NULL;
}

static const struct {
	unsigned long magic;
	const char *name;
	bool ordinary;
} filesystems[] = {
    {EXT4_SUPER_MAGIC, "ext4", true},
    {XFS_SUPER_MAGIC, "xfs", true},
    {BTRFS_SUPER_MAGIC, "btrfs", true},
    {TMPFS_MAGIC, "tmpfs", true},
    {RAMFS_MAGIC, "ramfs", true},
    {OVERLAYFS_SUPER_MAGIC, "overlay", true},
    {ZFS_SUPER_MAGIC, "zfs", true},
    {F2FS_SUPER_MAGIC, "f2fs", true},
    {JFS_SUPER_MAGIC, "jfs", true},
    {REISERFS_SUPER_MAGIC, "reiserfs", true},
    {BCACHEFS_SUPER_MAGIC, "bcachefs", true},
    {NILFS_SUPER_MAGIC, "nilfs2", true},
    /* Named only for the message. */
    {PROC_SUPER_MAGIC, "proc", false},
    {SYSFS_MAGIC, "sysfs", false},
    {TRACEFS_MAGIC, "tracefs", false},
    {DEBUGFS_MAGIC, "debugfs", false},
    {CGROUP_SUPER_MAGIC, "cgroup", false},
    {CGROUP2_SUPER_MAGIC, "cgroup2", false},
    {CONFIGFS_MAGIC, "configfs", false},
    {BPF_FS_MAGIC, "bpf", false},
    {SECURITYFS_MAGIC, "securityfs", false},
    {FUSE_SUPER_MAGIC, "fuse", false},
    {NFS_SUPER_MAGIC, "nfs", false},
    {CIFS_SUPER_MAGIC, "cifs", false},
    {SMB2_SUPER_MAGIC, "smb2", false},
    {CEPH_SUPER_MAGIC, "ceph", false},
    {V9FS_MAGIC, "9p", false},
    {HUGETLBFS_MAGIC, "hugetlbfs", false},
    {DEVPTS_SUPER_MAGIC, "devpts", false},
    {EFIVARFS_MAGIC, "efivarfs", false},
    {PSTOREFS_MAGIC, "pstore", false},
    {SQUASHFS_MAGIC, "squashfs", false},
};

int cni_fs_ordinary(int fd, const char **fs, char *buf, size_t len)
{
	struct statfs sf;
	unsigned long magic;

	if (fstatfs(fd, &sf) < 0)
		return -errno;
	/* f_type is signed on some ABIs: compare its low 32 bits. */
	magic = (unsigned long)sf.f_type & 0xffffffffUL;
	for (size_t i = 0; i < ARRAY_SIZE(filesystems); i++) {
		if (filesystems[i].magic != magic)
			continue;
		*fs = filesystems[i].name;
		return filesystems[i].ordinary ? 0 : -EXDEV;
	}
	snprintf(buf, len, "magic 0x%lx", magic);
	*fs = buf;
	return -EXDEV;
}

bool cni_path_on_root_mount(const char *root, const char *path)
{
	struct open_how how = {
	    .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
	    .resolve =
		RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH,
	};
	size_t n = strlen(root);
	_cleanup_close_ int rfd = -1, fd = -1;

	if (strncmp(path, root, n) || (path[n] && path[n] != '/' && n > 1))
		return false;
	rfd = open(root, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (rfd < 0)
		return false;
	fd = (int)syscall(SYS_openat2, rfd, path[n] ? path + n + (path[n] == '/') : ".", &how,
			  sizeof(how));
	return fd >= 0 || errno == ENOENT;
}

bool cni_path_private(const struct stat *st)
{
	return st->st_uid == cni_euid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static int check_private(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!cni_path_private(&st))
		return -EPERM;
	return 0;
}

int cni_path_opendirat(int dirfd, const char *name, unsigned int flags, bool *created)
{
	const int oflags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	_cleanup_close_ int fd = -1;
	bool made = false;
	struct stat st;
	int ret;

	if (created)
		*created = false;
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/'))
		return -EINVAL;
	fd = openat(dirfd, name, oflags);
	if (fd < 0 && errno == ENOENT && (flags & CNI_PATH_CREATE)) {
		if (mkdirat(dirfd, name, 0700) == 0)
			made = true;
		else if (errno != EEXIST)
			return -errno;
		fd = openat(dirfd, name, oflags);
	}
	if (fd < 0) {
		ret = -errno;
		/* O_NOFOLLOW|O_DIRECTORY reports a link as ENOTDIR: say what it is. */
		if (ret == -ENOTDIR && !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISLNK(st.st_mode))
			return -ELOOP;
		return ret;
	}
	/* The umask may have narrowed 0700. Only a directory we made (and that
	 * is still ours: the name could have been swapped) changes mode. */
	if (made && !fstat(fd, &st) && st.st_uid == cni_euid() && (st.st_mode & 07777) != 0700 &&
	    fchmod(fd, 0700) < 0)
		return -errno;
	if ((flags & CNI_PATH_PRIVATE) && (ret = check_private(fd)))
		return ret;
	if (created)
		*created = made;
	return steal_fd(fd);
}

/* Whether rel ("a/b/c") has a "." or ".." component, which the walk refuses. */
static bool has_dot_component(const char *rel)
{
	for (const char *c = rel; *c;) {
		size_t n = strcspn(c, "/");

		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return true;
		c += n;
		c += strspn(c, "/");
	}
	return false;
}

/* dir (absolute) in one system call, no symbolic link anywhere on it (what
 * the walk's O_NOFOLLOW checks component by component): the fd, or negative
 * errno; -ENOSYS on a kernel without openat2 (before 5.6, or valgrind). */
static int open_no_symlinks(const char *dir)
{
	struct open_how how = {
	    .flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
	    .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd = syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));

	if (fd < 0)
		return -errno;
	return (int)fd;
}

/* dir's components from /, each with cni_path_opendirat: the error names
 * the component that is wrong (missing, a link, a file). */
static int walk(const char *dir, unsigned int flags)
{
	_cleanup_close_ int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char part[NAME_MAX + 1];
	const char *p = dir;

	if (fd < 0)
		return -errno;
	for (;;) {
		unsigned int f = flags & CNI_PATH_CREATE;
		size_t n;
		int sub;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (!n)
			break;
		if (n >= sizeof(part))
			return -ENAMETOOLONG;
		memcpy(part, p, n);
		part[n] = '\0';
		p += n;
		if ((flags & CNI_PATH_CREATE_LAST) && !p[strspn(p, "/")])
			f = CNI_PATH_CREATE;
		sub = cni_path_opendirat(fd, part, f, NULL);
		if (sub < 0)
			return sub;
		close(fd);
		fd = sub;
	}
	return steal_fd(fd);
}

int cni_path_opendir(const char *dir, unsigned int flags)
{
	_cleanup_close_ int fd = -1;
	const char *rel;
	int ret;

	if (!dir || dir[0] != '/')
		return -EINVAL;
	if (strlen(dir) >= PATH_MAX)
		return -ENAMETOOLONG;
	/* The whole path in one call when it is all there: any other failure
	 * (a component to create, a link, an old kernel) takes the walk, which
	 * says which component is wrong. */
	rel = dir + strspn(dir, "/");
	if (*rel && !has_dot_component(rel))
		fd = open_no_symlinks(dir);
	/* A missing component with nothing to create: the walk would only
	 * find it missing too. */
	if (fd == -ENOENT && !(flags & (CNI_PATH_CREATE | CNI_PATH_CREATE_LAST)))
		return fd;
	if (fd < 0)
		fd = walk(dir, flags);
	if (fd < 0)
		return fd;
	if ((flags & CNI_PATH_PRIVATE) && (ret = check_private(fd)))
		return ret;
	return steal_fd(fd);
}
