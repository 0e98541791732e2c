// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "base/log.h"
#include "state/state.h"
#include "base/util.h"

#define RECORD_MAX (1 << 20)
#define SWEEP_MAX  65536 /* entries looked at for older temp files */

bool cni_state_name_valid(const char *name)
{
	return name && strlen(name) <= CNI_STATE_NAME_MAX && cni_valid_id(name);
}

/* Our own, and not writable by anyone else: nobody but us can plant a file
 * in it or swap one of its entries. */
static bool is_private(const struct stat *st)
{
	return st->st_uid == cni_euid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static int check_private(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	return is_private(&st) ? 0 : -EPERM;
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

/* Directories this process has reached, by canonical path ("/var/lib/cni"):
 * a command opens its state, lock, cache and lease directories, and each walk
 * from / costs two system calls a component. A walk starts at the longest
 * cached prefix and caches what it opens. A cached fd is the directory a
 * walk verified (later renames cannot move a walk outside it); a stale one
 * (removed since) only makes the walk fail, and the walk is then redone
 * from / with the cache emptied. The private check is redone on every use. */
#define DIR_CACHE_MAX 16

static __thread struct {
	char *path;
	int fd;
} dir_cache[DIR_CACHE_MAX];

static void cache_flush(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(dir_cache); i++) {
		if (!dir_cache[i].path)
			continue;
		close(dir_cache[i].fd);
		free(dir_cache[i].path);
		dir_cache[i].path = NULL;
	}
}

/* The cached directory that is the longest prefix of dir ending at a
 * component boundary: its fd (still the cache's), *len its length. */
static int cache_prefix(const char *dir, size_t *len)
{
	int fd = -1;

	*len = 0;
	for (size_t i = 0; i < ARRAY_SIZE(dir_cache); i++) {
		const char *p = dir_cache[i].path;
		size_t n = p ? strlen(p) : 0;

		if (!p || (fd >= 0 && n <= *len) || strncmp(dir, p, n))
			continue;
		if (dir[n] && dir[n] != '/' && strcmp(p, "/"))
			continue; /* "/var/lib" is no prefix of "/var/library" */
		fd = dir_cache[i].fd;
		*len = n;
	}
	return fd;
}

/* The index of the cache entry of exactly dir, or -1. */
static int cache_exact(const char *dir)
{
	for (size_t i = 0; i < ARRAY_SIZE(dir_cache); i++)
		if (dir_cache[i].path && !strcmp(dir_cache[i].path, dir))
			return (int)i;
	return -1;
}

/* Keep fd (owned by the cache from now on) as path; false when full. */
static bool cache_put(const char *path, int fd)
{
	for (size_t i = 0; i < ARRAY_SIZE(dir_cache); i++) {
		if (dir_cache[i].path)
			continue;
		if (!(dir_cache[i].path = strdup(path)))
			return false;
		dir_cache[i].fd = fd;
		return true;
	}
	return false;
}

/* dir (absolute) without repeated or trailing slashes: the form of the
 * cache's keys, so that "/a//b/" finds "/a/b". out holds strlen(dir) + 1
 * (never more is written) and at most PATH_MAX. */
static int canonical(char *out, const char *dir)
{
	size_t n = 0;

	for (const char *p = dir; *p; p++) {
		if (*p == '/' && n && out[n - 1] == '/')
			continue;
		if (n + 1 >= PATH_MAX)
			return -ENAMETOOLONG;
		out[n++] = *p;
	}
	if (n > 1 && out[n - 1] == '/')
		n--;
	out[n] = '\0';
	return 0;
}

/* Whether rel ("a/b/c") has a "." or ".." component, which the walk refuses. */
static bool has_dot_component(const char *rel)
{
	for (const char *c = rel; *c; c += strcspn(c, "/"), c += *c == '/') {
		size_t n = strcspn(c, "/");

		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return true;
	}
	return false;
}

/* rel below dirfd in one system call, no symbolic link anywhere on it (what
 * the walk's O_NOFOLLOW checks component by component): the fd, or negative
 * errno. -ENOSYS once a kernel without openat2 (before 5.6) said so. */
static int open_no_symlinks(int dirfd, const char *rel)
{
	static __thread bool unsupported;
	struct open_how how = {
	    .flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
	    .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	if (unsupported)
		return -ENOSYS;
	fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		unsupported = true;
	return fd < 0 ? -errno : (int)fd;
}

/* Open the canonical path's components below its longest cached prefix (or
 * from /). *cached tells whether it began at a cached directory other than
 * /, which may have been removed since: -ESTALE then. path is cut in place
 * for the cache keys of its prefixes, and restored. */
static int walk(char *path, unsigned int flags, bool *cached, bool *borrowed)
{
	_cleanup_close_ int owned = -1;
	char part[NAME_MAX + 1];
	size_t at;
	int fd = cache_prefix(path, &at), ret;
	bool fresh = false;
	struct stat st;

	*cached = fd >= 0 && at > 1;
	if (fd < 0) {
		fd = owned = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (cache_put("/", fd))
			owned = -1;
	}
	if (at == 1 || !*cached)
		at = 0; /* path[at] is the '/' before the next component */
	/* The rest in one call when it is all there: any failure (a component
	 * to create, a link, an old kernel) takes the walk below, which says
	 * which component is wrong. Only the end is cached then. */
	if (path[at] && path[at + 1] && !has_dot_component(path + at + 1)) {
		int sub = open_no_symlinks(fd, path + at + 1);

		if (sub >= 0) {
			if (owned >= 0)
				close(owned);
			fd = owned = sub;
			fresh = true;
			if (cache_exact(path) < 0 && cache_put(path, sub))
				owned = -1;
			at = strlen(path);
		}
	}
	while (path[at] && path[at + 1]) {
		const char *name = path + at + 1;
		size_t n = strcspn(name, "/");
		/* The last one's private check is below, as on a cache hit. */
		unsigned int f = name[n] ? flags & CNI_DIR_CREATE : flags & ~CNI_DIR_PRIVATE;
		int sub;
		char c;

		if (n >= sizeof(part))
			return -ENAMETOOLONG;
		memcpy(part, name, n);
		part[n] = '\0';
		sub = cni_state_opendirat(fd, part, f, NULL);
		if (sub < 0) {
			if (sub == -ENOENT && *cached && !fresh && !fstat(fd, &st) && !st.st_nlink)
				return -ESTALE;
			return sub;
		}
		if (owned >= 0)
			close(owned);
		fd = owned = sub;
		fresh = true;
		at += 1 + n;
		/* The prefix walked so far is the cache key: cut path there. */
		c = path[at];
		path[at] = '\0';
		if (cache_exact(path) < 0 && cache_put(path, sub))
			owned = -1;
		path[at] = c;
	}
	if ((flags & CNI_DIR_PRIVATE) || (*cached && !fresh)) {
		if (fstat(fd, &st) < 0)
			return -errno;
		if (!st.st_nlink)
			return -ESTALE;
		if ((flags & CNI_DIR_PRIVATE) && !is_private(&st))
			return -EPERM;
	}
	if (owned >= 0)
		return steal_fd(owned);
	if (borrowed) {
		*borrowed = true;
		return fd;
	}
	ret = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return ret < 0 ? -errno : ret;
}

/* The directory fd: the cache's own when *borrowed says so (used at once,
 * never closed), else the caller's. NULL borrowed: always the caller's. */
static int dir_open(const char *dir, unsigned int flags, bool *borrowed)
{
	/* Allocated to its length: under a delegated IPAM's open, a PATH_MAX
	 * buffer here was a stack page more to fault in. */
	_cleanup_free_ char *path = NULL;
	bool cached;
	int fd;

	if (borrowed)
		*borrowed = false;
	if (!dir || dir[0] != '/')
		return -EINVAL;
	if (strlen(dir) >= PATH_MAX)
		return -ENAMETOOLONG;
	path = malloc(strlen(dir) + 1);
	if (!path)
		return -ENOMEM;
	if (canonical(path, dir))
		return -ENAMETOOLONG;
	fd = walk(path, flags, &cached, borrowed);
	if (fd != -ESTALE)
		return fd;
	/* A cached directory removed since: forget them all, walk from /. */
	cache_flush();
	fd = walk(path, flags, &cached, borrowed);
	return fd == -ESTALE ? -ENOENT : fd;
}

int cni_state_opendir(const char *dir, unsigned int flags)
{
	return dir_open(dir, flags, NULL);
}

/* A directory for one operation of this file: the cached fd itself when
 * there is one (no dup and close per record). */
struct dir_ref {
	int fd;
	bool borrowed;
};

static void dir_ref_put(struct dir_ref *d)
{
	if (d->fd >= 0 && !d->borrowed)
		close(d->fd);
}

#define _cleanup_dir_ref_ __attribute__((cleanup(dir_ref_put)))

static struct dir_ref dir_ref(const char *dir, unsigned int flags)
{
	struct dir_ref d;

	d.fd = dir_open(dir, flags, &d.borrowed);
	return d;
}

int cni_state_mkdir(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;
	int fd, i;

	/* One this process walked to already is checked where it is. */
	if (dir && dir[0] == '/' && !canonical(path, dir) && (i = cache_exact(path)) >= 0 &&
	    !fstat(dir_cache[i].fd, &st) && st.st_nlink)
		return is_private(&st) ? 0 : -EPERM;
	fd = cni_state_opendir(dir, CNI_DIR_CREATE | CNI_DIR_PRIVATE);
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
static bool older_tmp(const char *entry)
{
	const char *dot = strrchr(entry, '.');

	return entry[0] == '.' && dot && dot > entry + 1 && strlen(dot + 1) == 6 &&
	       strspn(dot + 1, "abcdefghijklmnopqrstuvwxyz"
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

int cni_state_sweep(const char *dir)
{
	_cleanup_close_ int fd = cni_state_opendir(dir, CNI_DIR_PRIVATE);
	_cleanup_dir_ DIR *d = NULL;
	struct dirent *e;
	size_t seen = 0;
	int n = 0;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	d = cni_state_stream(fd);
	if (!d)
		return -errno;
	while ((e = readdir(d)) && ++seen <= SWEEP_MAX)
		if (e->d_type != DT_DIR && older_tmp(e->d_name) && unlinkat(fd, e->d_name, 0) == 0)
			n++;
	if (seen > SWEEP_MAX)
		log_warn("more than %d entries in %s: older temporary files not all swept",
			 SWEEP_MAX, dir);
	if (n)
		log_info("removed %d temporary file(s) an older build's killed run left in %s", n,
			 dir);
	return n;
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
	return fsync(dirfd) < 0 ? -errno : 0;
}

int cni_state_remove_tmp(const char *dir, const char *name)
{
	_cleanup_dir_ref_ struct dir_ref d = dir_ref(dir, CNI_DIR_PRIVATE);
	char tmp[NAME_MAX + 1];

	if (d.fd == -ENOENT)
		return 0;
	if (d.fd < 0)
		return d.fd;
	if (tmp_name(tmp, sizeof(tmp), name))
		return -ENAMETOOLONG;
	if (unlinkat(d.fd, tmp, 0) == 0)
		return 1;
	return errno == ENOENT ? 0 : -errno;
}

static int write_path(const char *dir, unsigned int flags, const char *name, const void *data,
		      size_t len, bool durable)
{
	_cleanup_dir_ref_ struct dir_ref d = dir_ref(dir, flags | CNI_DIR_PRIVATE);

	if (d.fd < 0)
		return d.fd;
	return cni_state_write_at(d.fd, name, data, len, durable);
}

int cni_state_write_raw(const char *dir, const char *name, const void *data, size_t len)
{
	return write_path(dir, 0, name, data, len, true);
}

int cni_state_write_cache(const char *dir, const char *name, const void *data, size_t len)
{
	return write_path(dir, 0, name, data, len, false);
}

int cni_state_write_text(const char *dir, const char *name, const char *text)
{
	return write_path(dir, CNI_DIR_CREATE, name, text, strlen(text), true);
}

int cni_state_write(const char *dir, const char *name, struct json_object *rec)
{
	_cleanup_free_ char *s = cni_json_dump(rec, false);

	return s ? cni_state_write_text(dir, name, s) : -ENOMEM;
}

int cni_state_read(const char *dir, const char *name, struct json_object **rec)
{
	_cleanup_dir_ref_ struct dir_ref d = dir_ref(dir, CNI_DIR_PRIVATE);
	_cleanup_free_ char *buf = NULL;
	const char *why;
	size_t len;
	int ret;

	*rec = NULL;
	if (d.fd < 0)
		return d.fd;
	ret = read_fileat(d.fd, name, RECORD_MAX, &buf, &len);
	if (ret)
		return ret;
	*rec = cni_json_parse(buf, len, &why);
	return *rec ? 0 : -EBADMSG;
}

int cni_state_identity(const char *dir, const char *name, char *buf, size_t len)
{
	_cleanup_dir_ref_ struct dir_ref d = dir_ref(dir, CNI_DIR_PRIVATE);
	struct stat st;

	if (d.fd < 0)
		return d.fd;
	if (fstatat(d.fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return check_snprintf(buf, len, "%ju:%ju:%lld.%09ld", (uintmax_t)st.st_dev,
			      (uintmax_t)st.st_ino, (long long)st.st_ctim.tv_sec,
			      st.st_ctim.tv_nsec);
}

int cni_state_remove(const char *dir, const char *name)
{
	_cleanup_dir_ref_ struct dir_ref d = dir_ref(dir, CNI_DIR_PRIVATE);

	if (d.fd == -ENOENT)
		return 0;
	if (d.fd < 0)
		return d.fd;
	return cni_state_remove_at(d.fd, name);
}

int cni_state_each(const char *dir, size_t max, cni_state_each_fn fn, void *arg)
{
	_cleanup_close_ int fd = cni_state_opendir(dir, 0);
	_cleanup_dir_ DIR *d = NULL;
	struct dirent *e;
	size_t seen = 0;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	d = cni_state_stream(fd);
	if (!d)
		return -errno;
	while ((e = readdir(d)) && (!max || seen++ < max)) {
		int ret;

		if (e->d_name[0] == '.')
			continue;
		ret = fn(fd, e->d_name, arg);
		if (ret)
			return ret;
	}
	return 0;
}
