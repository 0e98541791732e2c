// SPDX-License-Identifier: Apache-2.0
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
#include "state/confine.h"
#include "index.h"
#include "state/lock.h"
#include "base/log.h"
#include "state/state.h"
#include "store.h"
#include "base/util.h"

#define LEASE_MAX 4096 /* id (Go trims it) + "\r\n" + ifname, with room to spare */

int (*ipam_store_read)(int dirfd, const char *name, size_t max, char **out,
		       size_t *len) = read_fileat;

const char *ipam_ip_name(const struct cni_addr *ip, char *buf, size_t len)
{
	return cni_addr_str(ip, buf, len);
}

static unsigned int lock_timeout(void)
{
	const char *s = getenv("IBCNI_LOCK_TIMEOUT_MS");
	uint64_t v;

	if (s && !parse_u64(s, 10, 3600000, &v))
		return (unsigned int)v;
	return IPAM_LOCK_TIMEOUT_MS;
}

/* A file that is there but is no lease anyone can own: too big, not a
 * regular file (FIFO, device, directory, socket) or a link. Only these and
 * ENOENT are definite answers; anything else (EIO, ENOMEM) is transient. */
static int definite(int ret)
{
	switch (-ret) {
	case EFBIG:
	case EINVAL:
	case ELOOP:
	case ENXIO:
	case ENODEV:
	case EISDIR:
	case EBADMSG:
		return -EBADMSG;
	default:
		return ret;
	}
}

/* --- lease files --- */

void ipam_lease_clear(struct ipam_lease *l)
{
	free(l->id);
	free(l->ifname);
	l->id = l->ifname = NULL;
}

void ipam_leases_free(struct ipam_lease *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ipam_lease_clear(&l[i]);
	free(l);
}

/* Go compares TrimSpace(content) with "id\r\nifname", or with "id" for the
 * files written before 2018. */
static int lease_parse(char *buf, struct ipam_lease *l)
{
	char *end, *sep;

	while (isspace((unsigned char)*buf))
		buf++;
	end = buf + strlen(buf);
	while (end > buf && isspace((unsigned char)end[-1]))
		*--end = '\0';
	if (!*buf)
		return -EBADMSG;
	sep = strstr(buf, "\r\n");
	if (sep) {
		*sep = '\0';
		l->ifname = strdup(sep + 2);
		if (!l->ifname)
			return -ENOMEM;
	}
	l->id = strdup(buf);
	return l->id ? 0 : -ENOMEM;
}

static int lease_read(struct ipam_store *s, struct ipam_lease *l)
{
	_cleanup_free_ char *buf = NULL;
	int ret;

	if (s->dir_fd < 0)
		return -ENOENT;
	ret = definite(ipam_store_read(s->dir_fd, l->name, LEASE_MAX, &buf, NULL));
	if (!ret)
		ret = lease_parse(buf, l);
	if (ret)
		ipam_lease_clear(l);
	return ret;
}

int ipam_store_lease(struct ipam_store *s, const struct cni_addr *ip, struct ipam_lease *l)
{
	memset(l, 0, sizeof(*l));
	l->ip = *ip;
	ipam_ip_name(ip, l->name, sizeof(l->name));
	return lease_read(s, l);
}

int ipam_store_each(struct ipam_store *s, ipam_lease_fn fn, void *arg)
{
	_cleanup_dir_ DIR *d = NULL;
	size_t seen = 0;
	struct dirent *e;
	int ret = 0;

	if (s->dir_fd < 0)
		return 0;
	d = cni_state_stream(s->dir_fd);
	if (!d)
		return -errno;
	while ((errno = 0, e = readdir(d))) {
		struct ipam_lease l = {0};

		if (++seen > s->list_max + 2) /* "." and ".." */
			return -E2BIG;
		/* Only files named as IP addresses are leases; never lock or
		 * last_reserved_ip.*. */
		if (!cni_addr_parse(e->d_name, &l.ip) || strlen(e->d_name) >= sizeof(l.name))
			continue;
		copy_str(l.name, sizeof(l.name), e->d_name);
		ret = lease_read(s, &l);
		if (ret == -ENOENT)
			continue;
		if (!ret || ret == -EBADMSG)
			ret = fn(&l, arg);
		ipam_lease_clear(&l);
		if (ret)
			return ret;
	}
	return errno ? -errno : 0;
}

struct lease_list {
	struct ipam_lease *v;
	size_t used, cap;
};

/* Keeps the lease (its strings move into the list). */
static int list_push(struct ipam_lease *l, void *arg)
{
	struct lease_list *list = arg;

	if (list->used == list->cap) {
		size_t want = list->cap ? list->cap * 2 : 64;
		struct ipam_lease *p = realloc(list->v, want * sizeof(*p));

		if (!p)
			return -ENOMEM;
		list->v = p;
		list->cap = want;
	}
	list->v[list->used++] = *l;
	l->id = l->ifname = NULL;
	return 0;
}

int ipam_store_list(struct ipam_store *s, struct ipam_lease **out, size_t *n)
{
	struct lease_list list = {0};
	int ret = ipam_store_each(s, list_push, &list);

	if (ret) {
		ipam_leases_free(list.v, list.used);
		list.v = NULL;
		list.used = 0;
	}
	*out = list.v;
	*n = list.used;
	return ret;
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
	ret = root < 0 ? root : s->idx_fd < 0 ? s->idx_fd : s->owners_fd;
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

int ipam_store_open(struct ipam_store *s, const char *root, const char *data_dir,
		    const char *network, bool create, struct cni_error *err)
{
	const unsigned int mk = create ? CNI_DIR_CREATE : 0;
	_cleanup_close_ int data = -1;
	_cleanup_free_ char *lock = NULL;
	size_t n = strlen(data_dir) + 1 + strlen(network) + 1;
	bool created;
	int ret;

	ipam_store_init(s);
	/* Allocated, as the lock's path below: deep in a delegated ADD, two
	 * PATH_MAX buffers on the stack were two more pages to fault in. */
	if (n > PATH_MAX)
		return cni_errorf(err, -ENAMETOOLONG, CNI_ERR_INVALID_CONFIG,
				  "invalid configuration", "ipam.dataDir is too long");
	s->dir = malloc(n);
	lock = malloc(n + strlen("/lock"));
	if (!s->dir || !lock) {
		ipam_store_close(s);
		return -ENOMEM;
	}
	snprintf(s->dir, n, "%s/%s", data_dir, network);
	snprintf(lock, n + strlen("/lock"), "%s/lock", s->dir);
	if (!root)
		return 0; /* not allowed here: nothing is touched (see store.h) */
	data = open_data_dir(root, data_dir, create, err);
	if (data == -ENOENT && !create)
		return 0; /* nothing was ever leased: an empty store */
	if (data < 0)
		return data;
	s->dir_fd = cni_state_opendirat(data, network, mk | CNI_DIR_PRIVATE, &created);
	if (s->dir_fd == -ENOENT && !create)
		return 0;
	if (s->dir_fd < 0)
		return dir_error(err, s->dir_fd, s->dir, data_dir);
	ret = lease_dir_usable(s, created, create, data_dir, err);
	if (ret) {
		ipam_store_close(s);
		return ret > 0 ? 0 : ret;
	}
	s->lock_fd = cni_lock_acquireat(s->dir_fd, "lock", lock, lock_timeout(), err);
	ret = s->lock_fd < 0 ? s->lock_fd : open_index(s, data, data_dir, network, create, err);
	if (ret)
		goto fail;
	/* Any doubt about the token (absent, unreadable, spoilt by a killed
	 * run) costs a rebuild from the truth, never a wrong answer; only a
	 * killed run leaves temp files, and it leaves the token spoilt. */
	if (s->idx_fd >= 0 && !ipam_index_current(s)) {
		sweep(s);
		ret = ipam_index_rebuild(s);
	}
	if (ret) {
		cni_errorf(err, ret, CNI_ERR_IO, "cannot index the lease directory", "%s: %s",
			   s->dir, ret == -E2BIG ? "too many entries" : strerror(-ret));
		goto fail;
	}
	return 0;
fail:
	ipam_store_close(s);
	return ret;
}

static void drop_tmp(struct ipam_store *s)
{
	if (s->tmp_ready)
		unlinkat(s->dir_fd, IPAM_LEASE_TMP, 0);
	s->tmp_ready = false;
}

void ipam_store_close(struct ipam_store *s)
{
	if (s->dir_fd >= 0 && s->lock_fd >= 0) {
		drop_tmp(s);
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

/* --- leasing --- */

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
	drop_tmp(s);
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
		drop_tmp(s);
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
	drop_tmp(s);
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

int ipam_store_last_reserved(struct ipam_store *s, size_t set, struct cni_addr *ip)
{
	_cleanup_free_ char *buf = NULL;
	char name[64];
	int ret;

	if (s->dir_fd < 0)
		return -ENOENT;
	if (check_snprintf(name, sizeof(name), "last_reserved_ip.%zu", set))
		return -ENAMETOOLONG;
	ret = definite(ipam_store_read(s->dir_fd, name, 128, &buf, NULL));
	if (ret)
		return ret == -EBADMSG ? -ENOENT : ret;
	buf[strcspn(buf, " \t\r\n")] = '\0';
	return cni_addr_parse(buf, ip) ? 0 : -ENOENT;
}

/* --- lookups by owner --- */

struct owner_scan {
	const char *id, *ifname;
	struct cni_addr **ips;
	size_t *n;
};

static int owned_one(struct ipam_lease *l, void *arg)
{
	struct owner_scan *o = arg;

	return ipam_lease_owned_by(l, o->id, o->ifname) ? ipam_push_ip(o->ips, o->n, &l->ip) : 0;
}

/* Lease by lease: memory does not grow with the directory. */
static int owned_scan(struct ipam_store *s, const char *id, const char *ifname,
		      struct cni_addr **ips, size_t *n)
{
	struct owner_scan o = {.id = id, .ifname = ifname, .ips = ips, .n = n};

	return ipam_store_each(s, owned_one, &o);
}

static void forget(struct cni_addr **ips, size_t *n)
{
	free(*ips);
	*ips = NULL;
	*n = 0;
}

/* Leases of exactly (id, ifname) — ifname NULL for legacy bare-ID files. */
static int owned_exact(struct ipam_store *s, const char *id, const char *ifname,
		       struct cni_addr **ips, size_t *n)
{
	int ret = ipam_index_lookup(s, id, ifname, ips, n);

	if (ret == -ESTALE) {
		/* A lease rewritten in place (the directory did not change):
		 * the file wins. */
		log_info("the owner index of %s disagrees with a lease file; rebuilding it",
			 s->dir);
		forget(ips, n);
		ret = ipam_index_rebuild(s) ?: ipam_index_lookup(s, id, ifname, ips, n);
	}
	if (ret == -ESTALE || ret == -ENAMETOOLONG) {
		forget(ips, n);
		ret = owned_scan(s, id, ifname, ips, n);
	}
	return ret;
}

int ipam_store_owned(struct ipam_store *s, const char *id, const char *ifname,
		     struct cni_addr **ips, size_t *n, bool *legacy)
{
	int ret;

	*ips = NULL;
	*n = 0;
	*legacy = false;
	if (s->dir_fd < 0)
		return 0;
	ret = owned_exact(s, id, ifname, ips, n);
	if (ret || *n)
		return ret;
	*legacy = true;
	return owned_exact(s, id, NULL, ips, n);
}
