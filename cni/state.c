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
#include "state.h"
#include "util.h"

bool cni_state_name_valid(const char *name)
{
	return name && strlen(name) <= NAME_MAX && cni_valid_id(name);
}

int cni_state_mkdir(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;
	char *p;

	if (copy_str(path, sizeof(path), dir) || path[0] != '/')
		return -EINVAL;
	for (p = path + 1; ; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = c;
		if (!c)
			break;
	}
	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if ((st.st_mode & 07777) != 0700 && chmod(dir, 0700) < 0)
		return -errno;
	return 0;
}

static int write_atomic(const char *dir, const char *name, const void *data,
			size_t len, bool durable)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	_cleanup_close_ int fd = -1;
	int ret;

	if (check_snprintf(dst, sizeof(dst), "%s/%s", dir, name) ||
	    check_snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, name))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);	/* mode 0600 */
	if (fd < 0)
		return -errno;
	ret = write_all(fd, data, len);
	if (!ret && fchmod(fd, 0600) < 0)
		ret = -errno;
	if (!ret && durable && fsync(fd) < 0)
		ret = -errno;
	if (!ret && rename(tmp, dst) < 0)
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return ret;
	}
	return durable ? fsync_dir(dir) : 0;
}

int cni_state_write_raw(const char *dir, const char *name, const void *data,
			size_t len)
{
	return write_atomic(dir, name, data, len, true);
}

int cni_state_write_cache(const char *dir, const char *name, const void *data,
			  size_t len)
{
	return write_atomic(dir, name, data, len, false);
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
	_cleanup_free_ char *buf = NULL;
	char path[PATH_MAX];
	const char *why;
	size_t len;
	int ret;

	*rec = NULL;
	if (check_snprintf(path, sizeof(path), "%s/%s", dir, name))
		return -ENAMETOOLONG;
	ret = read_file(path, 1 << 20, &buf, &len);
	if (ret)
		return ret;
	*rec = cni_json_parse(buf, len, &why);
	return *rec ? 0 : -EBADMSG;
}

int cni_state_remove(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (check_snprintf(path, sizeof(path), "%s/%s", dir, name))
		return -ENAMETOOLONG;
	if (unlink(path) < 0)
		return errno == ENOENT ? 0 : -errno;
	return fsync_dir(dir);
}
