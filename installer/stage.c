// SPDX-License-Identifier: Apache-2.0
/* The node configuration as this run would leave it, built in a private
 * stage inside the node directory and loaded with the plugins' own loader
 * before any file they read changes: a configuration they would refuse never
 * reaches them, not even for a moment. The stage is dot-named (the loader
 * reads no dot name), root's, 0700, and always removed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "install.h"
#include "../ipam/ipam.h"

#define STAGE_PREFIX ".ibcni-stage."

/* Unlink every entry of the directory fd, its empty directories too. */
static int empty_dir(int fd)
{
	_cleanup_close_ int dup_fd = dup(fd);
	struct dirent *e;
	int ret = 0;
	DIR *d;

	if (dup_fd < 0 || !(d = fdopendir(dup_fd)))
		return -errno;
	dup_fd = -1;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(fd, e->d_name, 0) < 0 &&
		    (errno != EISDIR || unlinkat(fd, e->d_name, AT_REMOVEDIR) < 0) && !ret)
			ret = -errno;
	}
	closedir(d);
	return ret;
}

/* Remove the stage dfd/name: its ibcni.conf.d emptied, then the stage (what
 * this file puts there, two levels deep, no more). */
static int remove_stage(int dfd, const char *name)
{
	_cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_close_ int sub = -1;
	int ret;

	if (fd < 0 && (errno == ENOTDIR || errno == ELOOP)) /* not ours, but at our name */
		return unlinkat(dfd, name, 0) < 0 ? -errno : 0;
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	sub = openat(fd, "ibcni.conf.d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ret = sub >= 0 ? empty_dir(sub) : 0;
	if (!ret)
		ret = empty_dir(fd);
	if (!ret && unlinkat(dfd, name, AT_REMOVEDIR) < 0)
		ret = -errno;
	if (ret)
		fprintf(stderr, "ibcni-install: cannot remove %s: %s\n", name, strerror(-ret));
	return ret;
}

/* The stages a killed run left in dfd, removed. */
static int remove_old_stages(int dfd)
{
	_cleanup_close_ int fd = dup(dfd);
	struct dirent *e;
	int ret = 0;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd)))
		return -errno;
	fd = -1;
	while (!ret && (e = readdir(d)))
		if (!strncmp(e->d_name, STAGE_PREFIX, strlen(STAGE_PREFIX)))
			ret = remove_stage(dfd, e->d_name);
	closedir(d);
	return ret;
}

/* A new stage in dfd: name filled, its fd returned (or negative errno). */
static int make_stage(int dfd, char *name, size_t size)
{
	unsigned long long r;
	int ret = -EEXIST;

	for (int i = 0; i < 16 && ret == -EEXIST; i++) {
		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			return -EIO;
		ret = check_snprintf(name, size, STAGE_PREFIX "%016llx", r);
		if (!ret && mkdirat(dfd, name, 0700) < 0)
			ret = -errno;
	}
	if (ret)
		return ret;
	ret = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return ret < 0 ? -errno : ret;
}

/* from/name as it is, into the stage as to/name: a hard link (owner, mode
 * and type kept, a symlink not followed), an empty directory for a
 * directory; nothing when it is absent. The loader's answer on it is then
 * the one it gives on the real file. */
static int mirror(int from, int to, const char *name)
{
	struct stat st;
	int err;

	if (linkat(from, name, to, name, 0) == 0 || errno == ENOENT)
		return 0;
	err = errno;
	if (err == EPERM && !fstatat(from, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode))
		err = mkdirat(to, name, 0700) < 0 ? errno : 0;
	/* EPERM: without CAP_FOWNER (the DaemonSet drops it) only a file of
	 * root's links, and another owner's is refused by the loader anyway. */
	if (err)
		fprintf(stderr, "ibcni-install: cannot link %s into the stage to load it: %s\n",
			name, strerror(err));
	return -err;
}

/* The names the loader reads ("*.conf", no leading dot), ranges.conf left
 * out when this run writes or removes it: linked from ddfd into sfd. One
 * more than the loader takes is enough for its refusal. */
static int mirror_dropins(const struct opts *o, int ddfd, int sfd)
{
	_cleanup_close_ int fd = dup(ddfd);
	struct dirent *e;
	size_t n = 0;
	int ret = 0;
	DIR *d;

	if (fd < 0 || !(d = fdopendir(fd)))
		return -errno;
	fd = -1;
	while (!ret && n <= CNI_NODECONF_MAX_DROPINS && (e = readdir(d))) {
		size_t len = strnlen(e->d_name, NAME_MAX + 1);

		if (e->d_name[0] == '.' || len < 6 || len > NAME_MAX || strchr(e->d_name, '/') ||
		    strcmp(e->d_name + len - 5, ".conf") ||
		    (o->ranges_dir && !strcmp(e->d_name, "ranges.conf")))
			continue;
		ret = mirror(ddfd, sfd, e->d_name);
		n++;
	}
	closedir(d);
	return ret;
}

/* The stage's ibcni.conf.d: the real one's drop-ins under its owner and
 * mode (the loader checks the directory too), or a new one as the real
 * write would make it; a link or file there is mirrored for the loader to
 * name. Its fd, -ENOENT when the stage has none, or negative errno. */
static int stage_dropins(const struct opts *o, int dfd, int sfd)
{
	_cleanup_close_ int real =
	    openat(dfd, "ibcni.conf.d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_close_ int fd = -1;
	struct stat st;
	int ret = 0;

	if (real < 0 && (errno == ELOOP || errno == ENOTDIR)) {
		ret = mirror(dfd, sfd, "ibcni.conf.d");
		return ret ? ret : -ENOENT;
	}
	if (real < 0 && (errno != ENOENT || !o->ranges_dir))
		return errno == ENOENT ? -ENOENT : -errno;
	if (mkdirat(sfd, "ibcni.conf.d", 0755) < 0)
		return -errno;
	fd = openat(sfd, "ibcni.conf.d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (real >= 0 && (fstat(real, &st) < 0 || fchown(fd, st.st_uid, st.st_gid) < 0 ||
			  fchmod(fd, st.st_mode & 07777) < 0))
		return -errno;
	if (real >= 0)
		ret = mirror_dropins(o, real, fd);
	if (ret)
		return ret;
	ret = fd;
	fd = -1;
	return ret;
}

/* The files into the stage sfd: ibcni.conf (conf, or the current one),
 * the drop-ins, ranges.conf (ranges, or none when this run removes it). */
static int fill_stage(const struct opts *o, int dfd, int sfd, const char *conf, const char *ranges)
{
	_cleanup_close_ int ddfd = -1;
	int ret;

	ret = conf ? write_atomic(sfd, "ibcni.conf", conf, strlen(conf), 0644)
		   : mirror(dfd, sfd, "ibcni.conf");
	if (ret)
		return ret;
	ddfd = stage_dropins(o, dfd, sfd);
	if (ddfd == -ENOENT)
		return 0;
	if (ddfd < 0)
		return ddfd;
	if (ranges)
		return write_atomic(ddfd, "ranges.conf", ranges, strlen(ranges), 0644);
	return 0;
}

/* s with every stage path in it shown as the node directory's. */
static void put_unstaged(const char *s, const char *stage, const char *dir)
{
	size_t n = strlen(stage);
	const char *p;

	while ((p = strstr(s, stage))) {
		fprintf(stderr, "%.*s%s", (int)(p - s), s, dir);
		s = p + n;
	}
	fputs(s, stderr);
}

/* dir/stage/ibcni.conf (and its ".d") loaded by the plugins' loader; a
 * refusal named with the real files' paths. */
static int load_stage(const char *dir, const char *stage)
{
	struct cni_nodeconf nc = {0};
	struct cni_error err = {0};
	char spath[PATH_MAX], path[PATH_MAX];
	int ret;

	ret = check_snprintf(spath, sizeof(spath), "%s/%s", dir, stage);
	if (!ret)
		ret = check_snprintf(path, sizeof(path), "%s/ibcni.conf", spath);
	if (ret)
		return ret;
	cni_nodeconf_ranges_checker(ipam_node_ranges_check);
	ret = cni_nodeconf_load(&nc, path, &err);
	cni_nodeconf_free(&nc);
	if (ret == -ENOMEM || !ret)
		return ret;
	fputs("ibcni-install: the node configuration does not load: ", stderr);
	put_unstaged(err.msg, spath, dir);
	fputs(": ", stderr);
	put_unstaged(err.details, spath, dir);
	fputs("; nothing written\n", stderr);
	return -EINVAL;
}

int check_node_conf(const struct opts *o, int dfd, const char *conf, const char *ranges)
{
	char dir[PATH_MAX], stage[64];
	_cleanup_close_ int sfd = -1;
	int ret, rm;

	/* The plugins read /etc/ibcni, link-free; the admin's path to it may not be. */
	if (!realpath(o->node_dir, dir) && check_snprintf(dir, sizeof(dir), "%s", o->node_dir))
		return -ENAMETOOLONG;
	ret = remove_old_stages(dfd);
	if (ret)
		return ret;
	sfd = make_stage(dfd, stage, sizeof(stage));
	if (sfd < 0)
		return sfd;
	ret = fill_stage(o, dfd, sfd, conf, ranges);
	if (!ret)
		ret = load_stage(dir, stage);
	rm = remove_stage(dfd, stage);
	return ret ? ret : rm;
}
