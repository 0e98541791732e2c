// SPDX-License-Identifier: Apache-2.0
/* Opening a store (its directories checked, its lock taken, its owner
 * index made current) and closing it. */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
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
#include "state/confine.h"
#include "state/lock.h"
#include "state/state.h"
#include "store_priv.h"

static unsigned int lock_timeout(void)
{
	const char *s = getenv("IBCNI_LOCK_TIMEOUT_MS");
	uint64_t v;

	if (s && !parse_u64(s, 10, 3600000, &v))
		return (unsigned int)v;
	return IPAM_LOCK_TIMEOUT_MS;
}

/* --- opening and closing --- */

/* A refused directory on the way to the leases: code 7 naming dataDir. */
static int dir_error(struct cni_error *err, int ret, const char *path, const char *data_dir)
{
	switch (-ret) {
	case ELOOP:
		return cni_errorf(err, ret, CNI_ERR_INVALID_CONFIG, "invalid ipam.dataDir",
				  "%s: a path component is a symbolic link; ipam.dataDir (%s) must "
				  "name the real directory",
				  path, data_dir);
	case ENOTDIR:
	case EINVAL:
		return cni_errorf(
		    err, ret, CNI_ERR_INVALID_CONFIG, "invalid ipam.dataDir",
		    "%s: not a directory, or a \".\" or \"..\" component (ipam.dataDir %s)", path,
		    data_dir);
	case EPERM:
		return cni_errorf(err, ret, CNI_ERR_INVALID_CONFIG, "unsafe lease directory",
				  "%s is not owned by root or is writable by group or others; "
				  "leases must be root's alone: chown root and chmod go-w it, or "
				  "choose another ipam.dataDir (now %s)",
				  path, data_dir);
	default:
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot open the lease directory", "%s: %s",
				  path, strerror(-ret));
	}
}

/* dataDir, made (from its allowed root down, never above) only on ADD and
 * only on an ordinary filesystem: code 7 naming ipam.dataDir otherwise. */
static int open_data_dir(const char *root, const char *data_dir, bool create, struct cni_error *err)
{
	const char *fs = NULL;
	char buf[32];
	int fd = cni_state_opendir_under(root, data_dir, create ? CNI_DIR_CREATE : 0, &fs, buf,
					 sizeof(buf));

	if (fd == -EXDEV)
		return cni_errorf(err, fd, CNI_ERR_INVALID_CONFIG, "invalid ipam.dataDir",
				  "ipam.dataDir %s is on a %s filesystem, where ibcni keeps no "
				  "leases; name a directory on a disk filesystem or tmpfs",
				  data_dir, fs);
	if (fd == -ENOENT && create)
		return cni_errorf(err, fd, CNI_ERR_INVALID_CONFIG, "invalid ipam.dataDir",
				  "the parent of %s, the allowed data directory ipam.dataDir %s "
				  "is under, does not exist; ibcni creates %s and below only",
				  root, data_dir, root);
	if (fd < 0 && fd != -ENOENT)
		return dir_error(err, fd, data_dir, data_dir);
	return fd;
}

/* 1 when the directory has no entry but "." and "..", 0 when it has. */
static int dir_empty(int dirfd)
{
	_cleanup_dir_ DIR *d = cni_state_stream(dirfd);
	struct dirent *e;

	if (!d)
		return -errno;
	while ((errno = 0, e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			return 0;
	return errno ? -errno : 1;
}

/* Both implementations create "lock" with the directory. An existing
 * directory without one was never a lease directory ("dataDir":"/",
 * "name":"etc"): nothing to release there, and nothing to lease unless it
 * is empty. 0: use it; 1: treat as empty, touch nothing; <0: refused. */
static int lease_dir_usable(struct ipam_store *s, bool created, bool create, const char *data_dir,
			    struct cni_error *err)
{
	struct stat st;
	int ret;

	if (created || !fstatat(s->dir_fd, "lock", &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	if (errno != ENOENT)
		return cni_errorf(err, -errno, CNI_ERR_IO, "cannot open lock file", "%s/lock: %s",
				  s->dir, strerror(errno));
	if (!create)
		return 1;
	ret = dir_empty(s->dir_fd);
	if (ret < 0)
		return dir_error(err, ret, s->dir, data_dir);
	/* What made it non-empty may be the lock itself: a first ADD that
	 * created the directory took its lock since we looked. */
	if (!ret && !fstatat(s->dir_fd, "lock", &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	if (!ret)
		return cni_errorf(err, -ENOTEMPTY, CNI_ERR_INVALID_CONFIG, "not a lease directory",
				  "%s holds files but no lock file, so it is not a lease "
				  "directory; choose another ipam.dataDir (now %s) or network name",
				  s->dir, data_dir);
	return 0;
}

/* Apart, so that its path buffer is not on every open's stack. */
static __attribute__((noinline)) int index_error(struct cni_error *err, int ret,
						 const char *data_dir, const char *network)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s/%s", data_dir, IPAM_INDEX_DIR, network);
	return dir_error(err, ret, path, data_dir);
}

/* The owner index, made on ADD only (create): DEL, CHECK and GC of a
 * store without one (host-local's, or one only ever read) run without it,
 * finding owners by scanning, and leave nothing behind. */
static int open_index(struct ipam_store *s, int data, const char *data_dir, const char *network,
		      bool create, struct cni_error *err)
{
	const unsigned int f = (create ? CNI_DIR_CREATE : 0) | CNI_DIR_PRIVATE;
	_cleanup_close_ int root = cni_state_opendirat(data, IPAM_INDEX_DIR, f, NULL);
	int ret;

	if (root >= 0)
		s->idx_fd = cni_state_opendirat(root, network, f, NULL);
	if (root >= 0 && s->idx_fd >= 0)
		s->owners_fd = cni_state_opendirat(s->idx_fd, "owners", f, NULL);
	if (s->owners_fd >= 0)
		return 0;
	ret = s->owners_fd;
	if (s->idx_fd < 0)
		ret = s->idx_fd;
	if (root < 0)
		ret = root;
	if (ret == -ENOENT && !create) {
		if (s->idx_fd >= 0)
			close(s->idx_fd);
		s->idx_fd = -1;
		return 0;
	}
	return index_error(err, ret, data_dir, network);
}

/* Temp files a killed run left: ours beside the leases, and the tmp/
 * directory of older builds. */
static void sweep(struct ipam_store *s)
{
	_cleanup_dir_ DIR *d = NULL;
	struct dirent *e;
	int fd;

	if (unlinkat(s->dir_fd, IPAM_LEASE_TMP, 0) == 0 ||
	    unlinkat(s->dir_fd, IPAM_PTR_TMP, 0) == 0)
		log_info("removed a temporary file a killed run left in %s", s->dir);
	fd = cni_state_opendirat(s->idx_fd, "tmp", 0, NULL);
	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	for (size_t seen = 0; (e = readdir(d)) && seen < s->list_max; seen++)
		unlinkat(fd, e->d_name, 0);
	unlinkat(s->idx_fd, "tmp", AT_REMOVEDIR);
}

static char no_dir[] = "";

void ipam_store_init(struct ipam_store *s)
{
	s->dir = no_dir;
	s->tmp_text = NULL;
	s->dir_fd = s->idx_fd = s->owners_fd = s->lock_fd = s->token_fd = -1;
	s->token_len = 0;
	s->list_max = IPAM_LIST_MAX;
	s->changed = s->rebuilt = s->tmp_ready = false;
}

/* <dataDir>/<network> in s->dir and the path of its lock in *lock, both
 * allocated: deep in a delegated ADD, two PATH_MAX buffers on the stack
 * were two more pages to fault in. */
static int store_paths(struct ipam_store *s, const char *data_dir, const char *network, char **lock,
		       struct cni_error *err)
{
	size_t n = strlen(data_dir) + 1 + strlen(network) + 1;

	if (n > PATH_MAX)
		return cni_errorf(err, -ENAMETOOLONG, CNI_ERR_INVALID_CONFIG,
				  "invalid configuration", "ipam.dataDir is too long");
	s->dir = malloc(n);
	*lock = malloc(n + strlen("/lock"));
	if (!s->dir || !*lock)
		return -ENOMEM;
	snprintf(s->dir, n, "%s/%s", data_dir, network);
	snprintf(*lock, n + strlen("/lock"), "%s/lock", s->dir);
	return 0;
}

/* One unwind path: on failure s is closed (as ipam_store_init() leaves it),
 * so a caller's ipam_store_close() does nothing more. ret 1 (from
 * lease_dir_usable()) closes it too, and opens an empty store. */
int ipam_store_open(struct ipam_store *s, const char *root, const char *data_dir,
		    const char *network, bool create, struct cni_error *err)
{
	const unsigned int mk = create ? CNI_DIR_CREATE : 0;
	char *lock = NULL;
	int data = -1;
	bool created;
	int ret;

	ipam_store_init(s);
	ret = store_paths(s, data_dir, network, &lock, err);
	if (ret || !root)
		goto out; /* root NULL: not allowed here, nothing is touched (see store.h) */
	data = open_data_dir(root, data_dir, create, err);
	if (data == -ENOENT && !create)
		goto out; /* nothing was ever leased: an empty store */
	if (data < 0) {
		ret = data;
		goto out;
	}
	s->dir_fd = cni_state_opendirat(data, network, mk | CNI_DIR_PRIVATE, &created);
	if (s->dir_fd == -ENOENT && !create)
		goto out;
	if (s->dir_fd < 0) {
		ret = dir_error(err, s->dir_fd, s->dir, data_dir);
		goto out;
	}
	ret = lease_dir_usable(s, created, create, data_dir, err);
	if (ret)
		goto out;
	s->lock_fd = cni_lock_acquireat(s->dir_fd, "lock", lock, lock_timeout(), err);
	ret = s->lock_fd;
	if (ret >= 0)
		ret = open_index(s, data, data_dir, network, create, err);
	/* Any doubt about the token (absent, unreadable, spoilt by a killed
	 * run) costs a rebuild from the truth, never a wrong answer; only a
	 * killed run leaves temp files, and it leaves the token spoilt. */
	if (!ret && s->idx_fd >= 0 && !ipam_index_current(s)) {
		sweep(s);
		ret = ipam_index_rebuild(s);
		if (ret)
			cni_errorf(err, ret, CNI_ERR_IO, "cannot index the lease directory",
				   "%s: %s", s->dir,
				   ret == -E2BIG ? "too many entries" : strerror(-ret));
	}
out:
	if (ret)
		ipam_store_close(s);
	free(lock);
	if (data >= 0)
		close(data);
	if (ret > 0)
		ret = 0;
	return ret;
}

void ipam_store_close(struct ipam_store *s)
{
	if (s->dir_fd >= 0 && s->lock_fd >= 0) {
		ipam_store_drop_tmp(s);
		/* Written last: a crash before this leaves no token, so the
		 * next caller rebuilds the index rather than trusting it. */
		if ((s->changed || s->rebuilt) && s->idx_fd >= 0)
			ipam_index_seal(s);
	}
	cni_lock_release(s->lock_fd);
	if (s->token_fd >= 0)
		close(s->token_fd);
	if (s->owners_fd >= 0)
		close(s->owners_fd);
	if (s->idx_fd >= 0)
		close(s->idx_fd);
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	if (s->dir != no_dir)
		free(s->dir);
	free(s->tmp_text);
	ipam_store_init(s);
}
