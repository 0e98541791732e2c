// SPDX-License-Identifier: Apache-2.0
/* Leasing and releasing: lease files published whole by link(), the
 * round-robin pointer, the owner index kept up to date. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/log.h"
#include "base/util.h"
#include "state/state.h"
#include "store_priv.h"

void ipam_store_drop_tmp(struct ipam_store *s)
{
	if (s->tmp_ready)
		unlinkat(s->dir_fd, IPAM_LEASE_TMP, 0);
	s->tmp_ready = false;
}

static void mark_changed(struct ipam_store *s)
{
	if (s->changed)
		return;
	s->changed = true;
	ipam_index_invalidate(s);
}

/* The complete lease text in IPAM_LEASE_TMP, beside the leases (so link()
 * works whatever is mounted where), written and fsync'ed once for all the
 * addresses probed for one owner. */
static int lease_tmp(struct ipam_store *s, const char *text)
{
	_cleanup_close_ int fd = -1;
	int ret;

	if (s->tmp_ready && !strcmp(s->tmp_text, text))
		return 0;
	ipam_store_drop_tmp(s);
	free(s->tmp_text);
	s->tmp_text = strdup(text);
	if (!s->tmp_text)
		return -ENOMEM;
	fd = cni_state_create_tmp(s->dir_fd, IPAM_LEASE_TMP);
	if (fd < 0)
		return fd;
	s->tmp_ready = true;
	ret = write_all(fd, text, strlen(text));
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	if (ret)
		ipam_store_drop_tmp(s);
	return ret;
}

/* last_reserved_ip.<set>, rewritten in place as host-local does (no new
 * file) when it is a regular file with one link; else published as a new
 * file through one fixed temp name (a second link must never be written
 * through), which the next open sweeps if a kill left it. Not fsync'ed: it
 * only steers round robin, and a torn one reads as no pointer. */
static bool pointer_in_place(struct ipam_store *s, const char *ptr, const char *text, size_t len)
{
	_cleanup_close_ int fd = -1;
	struct stat at, st;

	/* Only a regular file with one link is opened for writing: whatever
	 * else was planted under the name (a device) is never opened. */
	if (fstatat(s->dir_fd, ptr, &at, AT_SYMLINK_NOFOLLOW) || !S_ISREG(at.st_mode) ||
	    at.st_nlink != 1)
		return false;
	fd = openat(s->dir_fd, ptr, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	return fd >= 0 && !fstat(fd, &st) && st.st_dev == at.st_dev && st.st_ino == at.st_ino &&
	       st.st_nlink == 1 && pwrite(fd, text, len, 0) == (ssize_t)len &&
	       (st.st_size <= (off_t)len || !ftruncate(fd, (off_t)len));
}

static int write_pointer(struct ipam_store *s, const char *ptr, const char *text)
{
	_cleanup_close_ int fd = -1;
	size_t len = strlen(text);
	int ret;

	if (pointer_in_place(s, ptr, text, len))
		return 0;
	fd = cni_state_create_tmp(s->dir_fd, IPAM_PTR_TMP);
	if (fd < 0)
		return fd;
	ret = write_all(fd, text, len);
	if (!ret && renameat(s->dir_fd, IPAM_PTR_TMP, s->dir_fd, ptr) < 0)
		ret = -errno;
	if (ret)
		unlinkat(s->dir_fd, IPAM_PTR_TMP, 0);
	return ret;
}

int ipam_store_reserve(struct ipam_store *s, const struct cni_addr *ip, const char *id,
		       const char *ifname, size_t set)
{
	_cleanup_free_ char *text = NULL;
	size_t len = strlen(id) + 2 + strlen(ifname) + 1;
	char name[64], ptr[64];
	int ret;

	if (s->dir_fd < 0 || s->lock_fd < 0)
		return -EBADF;
	ipam_ip_name(ip, name, sizeof(name));
	if (len > LEASE_MAX || check_snprintf(ptr, sizeof(ptr), "last_reserved_ip.%zu", set))
		return -ENAMETOOLONG;
	text = malloc(len);
	if (!text)
		return -ENOMEM;
	snprintf(text, len, "%s\r\n%s", id, ifname);
	mark_changed(s);
	ret = lease_tmp(s, text);
	if (ret)
		return ret;
	/* link() publishes a complete file, and fails if the address is taken. */
	if (linkat(s->dir_fd, IPAM_LEASE_TMP, s->dir_fd, name, 0) < 0)
		return -errno;
	/* The temp name now shares the lease's inode: the next lease gets a
	 * file of its own. */
	ipam_store_drop_tmp(s);
	ret = write_pointer(s, ptr, name);
	if (!ret && fsync(s->dir_fd) < 0)
		ret = -errno;
	if (!ret)
		ret = ipam_index_update(s, id, ifname, ip, true);
	if (ret) {
		unlinkat(s->dir_fd, name, 0);
		return ret;
	}
	return 0;
}

int ipam_store_release(struct ipam_store *s, const struct cni_addr *ip)
{
	struct ipam_lease l;
	int ret = ipam_store_lease(s, ip, &l);

	if (ret == -ENOENT)
		return 0;
	/* A lease we could not read for a transient reason stays. */
	if (ret && ret != -EBADMSG)
		return ret;
	mark_changed(s);
	ret = unlinkat(s->dir_fd, l.name, 0) < 0 && errno != ENOENT ? -errno : 0;
	if (!ret && fsync(s->dir_fd) < 0)
		ret = -errno;
	/* The index is a cache verified on every lookup: a stale entry left
	 * by a failure here is harmless. */
	if (!ret && l.id && ipam_index_update(s, l.id, l.ifname, ip, false))
		log_warn("cannot update the owner index of %s", s->dir);
	ipam_lease_clear(&l);
	return ret;
}

int ipam_store_release_owned(struct ipam_store *s, const char *id, const char *ifname,
			     const struct cni_addr *ips, size_t n)
{
	char name[64];

	if (!n)
		return 0;
	if (s->dir_fd < 0 || s->lock_fd < 0)
		return -EBADF;
	mark_changed(s);
	for (size_t i = 0; i < n; i++)
		if (unlinkat(s->dir_fd, ipam_ip_name(&ips[i], name, sizeof(name)), 0) < 0 &&
		    errno != ENOENT)
			return -errno;
	if (fsync(s->dir_fd) < 0)
		return -errno;
	ipam_index_forget(s, id, ifname);
	return 0;
}
