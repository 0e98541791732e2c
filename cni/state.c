// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "env.h"
#include "json.h"
#include "log.h"
#include "state.h"
#include "util.h"

#define RECORD_MAX (1 << 20)
#define SWEEP_MAX  65536 /* entries looked at for older temp files */

bool cni_state_name_valid(const char *name)
{
	return name && strlen(name) <= CNI_STATE_NAME_MAX && cni_valid_id(name);
}

/* Our own, and not writable by anyone else: nobody but us can plant a file
 * in it or swap one of its entries. */
static int check_private(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_uid != cni_euid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	return 0;
}

int cni_state_opendirat(int dirfd, const char *name, unsigned int flags, bool *created)
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
	if (fd < 0 && errno == ENOENT && (flags & CNI_DIR_CREATE)) {
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
	if ((flags & CNI_DIR_PRIVATE) && (ret = check_private(fd)))
		return ret;
	if (created)
		*created = made;
	return steal_fd(fd);
}

/* Directories this process has reached, by path: a command opens its state
 * and lock directories several times, and each walk from / costs a dozen
 * system calls. A cached fd is the directory the walk verified; one removed
 * since (no links left) is walked again, and the private check is redone on
 * every use. */
static __thread struct {
	char *path;
	int fd;
} dir_cache[8];

static int cache_get(const char *dir, unsigned int flags)
{
	struct stat st;

	for (size_t i = 0; i < ARRAY_SIZE(dir_cache); i++) {
		if (!dir_cache[i].path || strcmp(dir_cache[i].path, dir))
			continue;
		if (fstat(dir_cache[i].fd, &st) < 0 || st.st_nlink == 0) {
			close(dir_cache[i].fd);
			free(dir_cache[i].path);
			dir_cache[i].path = NULL;
			return -ENOENT;
		}
		if ((flags & CNI_DIR_PRIVATE) &&
		    (st.st_uid != cni_euid() || (st.st_mode & (S_IWGRP | S_IWOTH))))
			return -EPERM;
		return fcntl(dir_cache[i].fd, F_DUPFD_CLOEXEC, 0);
	}
	return -ENOENT;
}

static void cache_put(const char *dir, int fd)
{
	for (size_t i = 0; i < ARRAY_SIZE(dir_cache); i++) {
		if (dir_cache[i].path)
			continue;
		dir_cache[i].fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (dir_cache[i].fd >= 0 && !(dir_cache[i].path = strdup(dir)))
			close(dir_cache[i].fd);
		return;
	}
}

static int opendir_walk(const char *dir, unsigned int flags);

int cni_state_opendir(const char *dir, unsigned int flags)
{
	int fd;

	if (!dir || dir[0] != '/')
		return -EINVAL;
	fd = cache_get(dir, flags);
	if (fd >= 0 || fd == -EPERM)
		return fd;
	fd = opendir_walk(dir, flags);
	if (fd >= 0)
		cache_put(dir, fd);
	return fd;
}

static int opendir_walk(const char *dir, unsigned int flags)
{
	_cleanup_close_ int fd = -1;
	char path[PATH_MAX], *save = NULL, *next;
	const char *part;

	if (copy_str(path, sizeof(path), dir))
		return -ENAMETOOLONG;
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	part = strtok_r(path, "/", &save);
	if (!part)
		return (flags & CNI_DIR_PRIVATE) && check_private(fd) ? -EPERM : steal_fd(fd);
	for (; part; part = next) {
		unsigned int f = flags & CNI_DIR_CREATE;
		int sub;

		next = strtok_r(NULL, "/", &save);
		if (!next)
			f = flags; /* only the last one is checked */
		sub = cni_state_opendirat(fd, part, f, NULL);
		if (sub < 0)
			return sub;
		close(fd);
		fd = sub;
	}
	return steal_fd(fd);
}

int cni_state_mkdir(const char *dir)
{
	int fd = cni_state_opendir(dir, CNI_DIR_CREATE | CNI_DIR_PRIVATE);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int cni_state_create_tmp(int dirfd, const char *tmp)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat(dirfd, tmp, flags, 0600);

	/* One left by a writer killed before its rename. Callers hold the
	 * lock that serialises writers of the name. */
	if (fd < 0 && errno == EEXIST) {
		if (unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT)
			return -errno;
		fd = openat(dirfd, tmp, flags, 0600);
	}
	if (fd < 0)
		return -errno;
	/* 0600 whatever the umask: only a umask that takes from it needs a fix. */
	if ((cni_umask() & 0600) && fchmod(fd, 0600) < 0) {
		int ret = -errno;

		close(fd);
		unlinkat(dirfd, tmp, 0);
		return ret;
	}
	return fd;
}

static int tmp_name(char *buf, size_t len, const char *name)
{
	return check_snprintf(buf, len, ".%s.tmp", name);
}

int cni_state_write_at(int dirfd, const char *name, const void *data, size_t len, bool durable)
{
	_cleanup_close_ int fd = -1;
	char tmp[NAME_MAX + 1];
	int ret;

	if (tmp_name(tmp, sizeof(tmp), name))
		return -ENAMETOOLONG;
	fd = cni_state_create_tmp(dirfd, tmp);
	if (fd < 0)
		return fd;
	ret = write_all(fd, data, len);
	if (!ret && durable && fsync(fd) < 0)
		ret = -errno;
	if (!ret && renameat(dirfd, tmp, dirfd, name) < 0)
		ret = -errno;
	if (ret) {
		unlinkat(dirfd, tmp, 0);
		return ret;
	}
	return durable && fsync(dirfd) < 0 ? -errno : 0;
}

/* ".<name>.XXXXXX": the temp files of older builds (mkostemp), which a kill
 * before the rename left behind. */
static bool older_tmp(const char *entry, const char *name)
{
	size_t n = strlen(name);

	if (entry[0] != '.' || strncmp(entry + 1, name, n) || entry[n + 1] != '.')
		return false;
	entry += n + 2;
	return strlen(entry) == 6 && strspn(entry, "abcdefghijklmnopqrstuvwxyz"
						   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == 6;
}

DIR *cni_state_stream(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d) {
		int saved = errno;

		close(fd);
		errno = saved;
	}
	return d;
}

static void sweep_older_tmp(int dirfd, const char *name)
{
	_cleanup_dir_ DIR *d = cni_state_stream(dirfd);
	struct dirent *e;
	size_t seen = 0;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (++seen > SWEEP_MAX) {
			log_warn("more than %d entries in a state directory; older temporary files "
				 "of %s not swept",
				 SWEEP_MAX, name);
			return;
		}
		if (e->d_type != DT_DIR && older_tmp(e->d_name, name))
			unlinkat(dirfd, e->d_name, 0);
	}
}

int cni_state_remove_at(int dirfd, const char *name)
{
	char tmp[NAME_MAX + 1];

	if (tmp_name(tmp, sizeof(tmp), name))
		return -ENAMETOOLONG;
	if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	if (unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT)
		return -errno;
	sweep_older_tmp(dirfd, name);
	return fsync(dirfd) < 0 ? -errno : 0;
}

static int write_path(const char *dir, const char *name, const void *data, size_t len, bool durable)
{
	_cleanup_close_ int fd = cni_state_opendir(dir, CNI_DIR_PRIVATE);

	if (fd < 0)
		return fd;
	return cni_state_write_at(fd, name, data, len, durable);
}

int cni_state_write_raw(const char *dir, const char *name, const void *data, size_t len)
{
	return write_path(dir, name, data, len, true);
}

int cni_state_write_cache(const char *dir, const char *name, const void *data, size_t len)
{
	return write_path(dir, name, data, len, false);
}

int cni_state_write(const char *dir, const char *name, struct json_object *rec)
{
	_cleanup_free_ char *s = cni_json_dump(rec, false);

	if (!s)
		return -ENOMEM;
	return cni_state_write_raw(dir, name, s, strlen(s));
}

int cni_state_read(const char *dir, const char *name, struct json_object **rec)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	const char *why;
	size_t len;
	int ret;

	*rec = NULL;
	fd = cni_state_opendir(dir, CNI_DIR_PRIVATE);
	if (fd < 0)
		return fd;
	ret = read_fileat(fd, name, RECORD_MAX, &buf, &len);
	if (ret)
		return ret;
	*rec = cni_json_parse(buf, len, &why);
	return *rec ? 0 : -EBADMSG;
}

int cni_state_remove(const char *dir, const char *name)
{
	_cleanup_close_ int fd = cni_state_opendir(dir, CNI_DIR_PRIVATE);

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	return cni_state_remove_at(fd, name);
}
