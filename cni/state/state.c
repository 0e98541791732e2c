// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "base/log.h"
#include "base/path.h"
#include "state/state.h"
#include "base/util.h"

#define RECORD_MAX (1 << 20)
#define SWEEP_MAX  65536 /* entries looked at for older temp files */

bool cni_state_name_valid(const char *name)
{
	return name && strlen(name) <= CNI_STATE_NAME_MAX && cni_valid_id(name);
}

int cni_state_opendirat(int dirfd, const char *name, unsigned int flags, bool *created)
{
	return cni_path_opendirat(dirfd, name, flags, created);
}

/* No cache of directory fds: each operation opens its directory (one
 * openat2 where the kernel has it) and closes it, so nothing a fork, a
 * thread or a setns would have to know about is kept between calls. */
int cni_state_opendir(const char *dir, unsigned int flags)
{
	return cni_path_opendir(dir, flags);
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
	_cleanup_close_ int fd = cni_state_opendir(dir, CNI_DIR_PRIVATE);
	char tmp[NAME_MAX + 1];

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	if (tmp_name(tmp, sizeof(tmp), name))
		return -ENAMETOOLONG;
	if (unlinkat(fd, tmp, 0) == 0)
		return 1;
	return errno == ENOENT ? 0 : -errno;
}

static int write_path(const char *dir, unsigned int flags, const char *name, const void *data,
		      size_t len, bool durable)
{
	_cleanup_close_ int fd = cni_state_opendir(dir, flags | CNI_DIR_PRIVATE);

	if (fd < 0)
		return fd;
	return cni_state_write_at(fd, name, data, len, durable);
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
	_cleanup_close_ int fd = cni_state_opendir(dir, CNI_DIR_PRIVATE);
	_cleanup_free_ char *buf = NULL;
	const char *why;
	size_t len;
	int ret;

	*rec = NULL;
	if (fd < 0)
		return fd;
	ret = read_fileat(fd, name, RECORD_MAX, &buf, &len);
	if (ret)
		return ret;
	*rec = cni_json_parse(buf, len, &why);
	return *rec ? 0 : -EBADMSG;
}

int cni_state_identity(const char *dir, const char *name, char *buf, size_t len)
{
	_cleanup_close_ int fd = cni_state_opendir(dir, CNI_DIR_PRIVATE);
	struct stat st;

	if (fd < 0)
		return fd;
	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return check_snprintf(buf, len, "%ju:%ju:%lld.%09ld", (uintmax_t)st.st_dev,
			      (uintmax_t)st.st_ino, (long long)st.st_ctim.tv_sec,
			      st.st_ctim.tv_nsec);
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

int cni_state_each(const char *dir, size_t max, cni_state_each_fn fn, void *arg)
{
	int fd = cni_state_opendir(dir, 0);
	_cleanup_dir_ DIR *d = NULL;
	struct dirent *e;
	size_t seen = 0;

	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	/* The stream owns the walk's fd (no second open of "."): a listing
	 * costs what opendir did, and fn's openat calls do not move it. */
	d = fdopendir(fd);
	if (!d) {
		int ret = -errno;

		close(fd);
		return ret;
	}
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
