// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "lock.h"
#include "log.h"
#include "state.h"
#include "store.h"
#include "util.h"

#define LEASE_MAX 4096	/* id (Go trims it) + "\r\n" + ifname, with room to spare */

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

static int sub(char *buf, size_t len, const char *dir, const char *name)
{
	return check_snprintf(buf, len, "%s/%s", dir, name);
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

static int lease_read(const char *dir, const char *name, struct ipam_lease *l)
{
	_cleanup_free_ char *buf = NULL;
	char path[PATH_MAX];
	int ret;

	if (sub(path, sizeof(path), dir, name))
		return -ENAMETOOLONG;
	ret = read_file(path, LEASE_MAX, &buf, NULL);
	if (ret)
		return ret == -EFBIG ? -EBADMSG : ret;
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
	return lease_read(s->dir, l->name, l);
}

int ipam_store_list(struct ipam_store *s, struct ipam_lease **out, size_t *n)
{
	DIR *d = opendir(s->dir);
	struct ipam_lease *list = NULL;
	struct dirent *e;
	size_t used = 0;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		struct ipam_lease l = { 0 };
		struct ipam_lease *p;

		/* Only files named as IP addresses are leases; never lock or
		 * last_reserved_ip.*. */
		if (!cni_addr_parse(e->d_name, &l.ip) || strlen(e->d_name) >= sizeof(l.name))
			continue;
		copy_str(l.name, sizeof(l.name), e->d_name);
		ret = lease_read(s->dir, l.name, &l);
		if (ret == -ENOENT)
			continue;
		if (ret && ret != -EBADMSG)
			break;
		ret = 0;
		p = realloc(list, (used + 1) * sizeof(*p));
		if (!p) {
			ipam_lease_clear(&l);
			ret = -ENOMEM;
			break;
		}
		list = p;
		list[used++] = l;
	}
	closedir(d);
	if (ret) {
		ipam_leases_free(list, used);
		return ret;
	}
	*out = list;
	*n = used;
	return 0;
}

/* --- the owner index --- */

/* "<id>@<hex ifname>", or "<id>@" for a legacy lease; false when too long. */
static bool owner_key(const char *id, const char *ifname, char *buf, size_t len)
{
	size_t used;

	if (check_snprintf(buf, len, "%s@", id) || strlen(buf) > NAME_MAX || strchr(id, '/') ||
	    !strcmp(id, ".") || !strcmp(id, ".."))
		return false;
	used = strlen(buf);
	for (const unsigned char *p = (const unsigned char *)(ifname ? ifname : ""); *p; p++) {
		if (used + 3 > len || used + 2 > NAME_MAX)
			return false;
		snprintf(buf + used, len - used, "%02x", *p);
		used += 2;
	}
	return true;
}

static int owners_path(struct ipam_store *s, const char *key, char *buf, size_t len)
{
	return check_snprintf(buf, len, "%s/owners/%s", s->idx, key);
}

/* Add (or drop) ip in the owner's index file. */
static int index_update(struct ipam_store *s, const char *id, const char *ifname,
			const struct cni_addr *ip, bool add)
{
	_cleanup_free_ char *buf = NULL;
	char key[NAME_MAX + 2], path[PATH_MAX], dir[PATH_MAX], name[64], *out;
	size_t used = 0, cap;
	int ret;

	if (!owner_key(id, ifname, key, sizeof(key)))
		return 0;	/* such owners are found by scanning */
	if (owners_path(s, key, path, sizeof(path)) || sub(dir, sizeof(dir), s->idx, "owners"))
		return -ENAMETOOLONG;
	ipam_ip_name(ip, name, sizeof(name));
	ret = read_file(path, 1 << 20, &buf, NULL);
	if (ret && ret != -ENOENT)
		return ret;
	cap = (buf ? strlen(buf) : 0) + strlen(name) + 2;
	out = malloc(cap);
	if (!out)
		return -ENOMEM;
	for (char *save = NULL, *line = buf ? strtok_r(buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strcmp(line, name))
			continue;
		used += (size_t)snprintf(out + used, cap - used, "%s\n", line);
	}
	if (add)
		used += (size_t)snprintf(out + used, cap - used, "%s\n", name);
	/* The index is a cache: atomic, not durable (see mark_changed()). */
	if (used)
		ret = cni_state_write_cache(dir, key, out, used);
	else
		ret = unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	free(out);
	return ret;
}

static int token_text(struct ipam_store *s, char *buf, size_t len)
{
	struct stat st;

	if (stat(s->dir, &st) < 0)
		return -errno;
	return check_snprintf(buf, len, "%ju %ju %lld %ld\n", (uintmax_t)st.st_dev,
			      (uintmax_t)st.st_ino, (long long)st.st_mtim.tv_sec,
			      st.st_mtim.tv_nsec);
}

static int rm_dir_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int fd;

	if (!d)
		return -errno;
	fd = dirfd(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(fd, e->d_name, 0);
	closedir(d);
	return 0;
}

/* The per-IP files are the truth: rebuild every owner file from them. */
static int index_rebuild(struct ipam_store *s)
{
	struct ipam_lease *leases;
	char owners[PATH_MAX];
	size_t n;
	int ret;

	if (sub(owners, sizeof(owners), s->idx, "owners"))
		return -ENAMETOOLONG;
	rm_dir_files(owners);
	ret = ipam_store_list(s, &leases, &n);
	if (ret)
		return ret;
	for (size_t i = 0; i < n && !ret; i++) {
		char key[NAME_MAX + 2], path[PATH_MAX], line[80];
		_cleanup_close_ int fd = -1;

		if (!leases[i].id || !owner_key(leases[i].id, leases[i].ifname, key, sizeof(key)) ||
		    owners_path(s, key, path, sizeof(path)))
			continue;
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0) {
			ret = -errno;
			break;
		}
		snprintf(line, sizeof(line), "%s\n", leases[i].name);
		ret = write_all(fd, line, strlen(line));
	}
	ipam_leases_free(leases, n);
	if (!ret) {
		s->rebuilt = true;
		log_debug("rebuilt the owner index of %s from %zu leases", s->dir, n);
	}
	return ret;
}

static int index_check(struct ipam_store *s)
{
	_cleanup_free_ char *saved = NULL;
	char now[128], path[PATH_MAX];

	if (sub(path, sizeof(path), s->idx, "token") || token_text(s, now, sizeof(now)))
		return index_rebuild(s);
	if (read_file(path, 256, &saved, NULL) || strcmp(saved, now))
		return index_rebuild(s);
	return 0;
}

/* Overwrite a small file in place, as host-local writes its pointer: no new
 * inode per write. For files whose loss or tearing is harmless (the
 * round-robin pointer, the index token). */
static int write_in_place(const char *path, const char *data)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	size_t len = strlen(data);
	int ret;

	if (fd < 0)
		return -errno;
	ret = write_all(fd, data, len);
	if (!ret && (ftruncate(fd, (off_t)len) < 0 || fchmod(fd, 0600) < 0))
		ret = -errno;
	return ret;
}

/* --- opening and closing --- */

int ipam_store_open(struct ipam_store *s, const char *data_dir, const char *network,
		    struct cni_error *err)
{
	char path[PATH_MAX];
	int ret;

	memset(s, 0, sizeof(*s));
	s->lock_fd = -1;
	if (check_snprintf(s->dir, sizeof(s->dir), "%s/%s", data_dir, network) ||
	    check_snprintf(s->idx, sizeof(s->idx), "%s/%s/%s", data_dir, IPAM_INDEX_DIR, network))
		return cni_errorf(err, -ENAMETOOLONG, CNI_ERR_INVALID_CONFIG,
				  "invalid configuration", "ipam.dataDir is too long");
	ret = cni_state_mkdir(s->dir);
	if (!ret && !sub(path, sizeof(path), s->idx, "owners"))
		ret = cni_state_mkdir(path);
	if (!ret && !sub(path, sizeof(path), s->idx, "tmp"))
		ret = cni_state_mkdir(path);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot create the lease directory",
				  "%s: %s", s->dir, strerror(-ret));
	if (sub(path, sizeof(path), s->dir, "lock"))
		return -ENAMETOOLONG;
	s->lock_fd = cni_lock_acquire(path, lock_timeout(), err);
	if (s->lock_fd < 0)
		return s->lock_fd;
	/* A crash between writing a temporary file and publishing it leaves
	 * the file behind; nothing else uses this directory. */
	if (!sub(path, sizeof(path), s->idx, "tmp"))
		rm_dir_files(path);
	ret = index_check(s);
	if (ret) {
		cni_lock_release(s->lock_fd);
		s->lock_fd = -1;
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot index the lease directory",
				  "%s: %s", s->dir, strerror(-ret));
	}
	return 0;
}

void ipam_store_close(struct ipam_store *s)
{
	char now[128], path[PATH_MAX];

	if (s->lock_fd < 0)
		return;
	/* Written last: a crash before this leaves a stale token, so the next
	 * caller rebuilds the index rather than trusting it. */
	if ((s->changed || s->rebuilt) && !token_text(s, now, sizeof(now)) &&
	    !sub(path, sizeof(path), s->idx, "token"))
		write_in_place(path, now);
	cni_lock_release(s->lock_fd);
	s->lock_fd = -1;
}

/* --- leasing --- */

/* Before the first change, empty the token: until close() writes a new
 * one, an interrupted run leaves no valid token and the next open rebuilds
 * the index. */
static void mark_changed(struct ipam_store *s)
{
	char path[PATH_MAX];

	if (s->changed)
		return;
	s->changed = true;
	if (!sub(path, sizeof(path), s->idx, "token"))
		write_in_place(path, "");
}

/* Write data to a fresh 0600 file in the index's tmp dir; path returned.
 * durable: fsync'ed before it is published. */
static int tmp_file(struct ipam_store *s, const char *data, char *path, size_t len,
		    bool durable)
{
	_cleanup_close_ int fd = -1;
	int ret;

	if (check_snprintf(path, len, "%s/tmp/.XXXXXX", s->idx))
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, data, strlen(data));
	if (!ret && (fchmod(fd, 0600) < 0 || (durable && fsync(fd) < 0)))
		ret = -errno;
	if (ret)
		unlink(path);
	return ret;
}

int ipam_store_reserve(struct ipam_store *s, const struct cni_addr *ip, const char *id,
		       const char *ifname, size_t set)
{
	char name[64], dst[PATH_MAX], tmp[PATH_MAX], ptr[PATH_MAX], text[LEASE_MAX];
	int ret;

	ipam_ip_name(ip, name, sizeof(name));
	if (sub(dst, sizeof(dst), s->dir, name) ||
	    check_snprintf(text, sizeof(text), "%s\r\n%s", id, ifname) ||
	    check_snprintf(ptr, sizeof(ptr), "%s/last_reserved_ip.%zu", s->dir, set))
		return -ENAMETOOLONG;
	ret = tmp_file(s, text, tmp, sizeof(tmp), true);
	if (ret)
		return ret;
	mark_changed(s);
	/* link() publishes a complete file, and fails if the address is taken. */
	ret = link(tmp, dst) < 0 ? -errno : 0;
	unlink(tmp);
	if (ret)
		return ret;
	/* The pointer only steers round robin: losing it to a crash is harmless. */
	ret = write_in_place(ptr, name);
	if (!ret)
		ret = fsync_dir(s->dir);
	if (!ret)
		ret = index_update(s, id, ifname, ip, true);
	if (ret) {
		unlink(dst);
		return ret;
	}
	return 0;
}

int ipam_store_release(struct ipam_store *s, const struct cni_addr *ip)
{
	struct ipam_lease l;
	char path[PATH_MAX];
	int ret = ipam_store_lease(s, ip, &l);

	if (ret == -ENOENT)
		return 0;
	if (sub(path, sizeof(path), s->dir, l.name)) {
		ipam_lease_clear(&l);
		return -ENAMETOOLONG;
	}
	mark_changed(s);
	if (unlink(path) < 0 && errno != ENOENT) {
		ret = -errno;
		ipam_lease_clear(&l);
		return ret;
	}
	ret = fsync_dir(s->dir);
	if (l.id)
		index_update(s, l.id, l.ifname, ip, false);
	ipam_lease_clear(&l);
	return ret;
}

int ipam_store_last_reserved(struct ipam_store *s, size_t set, struct cni_addr *ip)
{
	_cleanup_free_ char *buf = NULL;
	char path[PATH_MAX];
	int ret;

	if (check_snprintf(path, sizeof(path), "%s/last_reserved_ip.%zu", s->dir, set))
		return -ENAMETOOLONG;
	ret = read_file(path, 128, &buf, NULL);
	if (ret)
		return ret == -EFBIG ? -ENOENT : ret;
	buf[strcspn(buf, " \t\r\n")] = '\0';
	return cni_addr_parse(buf, ip) ? 0 : -ENOENT;
}

/* --- lookups by owner --- */

static bool owner_is(const struct ipam_lease *l, const char *id, const char *ifname)
{
	if (!l->id || strcmp(l->id, id))
		return false;
	if (!ifname)
		return !l->ifname;
	return l->ifname && !strcmp(l->ifname, ifname);
}

static int push_ip(struct cni_addr **ips, size_t *n, const struct cni_addr *ip)
{
	struct cni_addr *p = realloc(*ips, (*n + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	*ips = p;
	p[(*n)++] = *ip;
	return 0;
}

static int owned_scan(struct ipam_store *s, const char *id, const char *ifname,
		      struct cni_addr **ips, size_t *n)
{
	struct ipam_lease *leases;
	size_t count;
	int ret = ipam_store_list(s, &leases, &count);

	for (size_t i = 0; !ret && i < count; i++)
		if (owner_is(&leases[i], id, ifname))
			ret = push_ip(ips, n, &leases[i].ip);
	if (count)
		ipam_leases_free(leases, count);
	return ret;
}

/* Leases of exactly (id, ifname) — ifname NULL for legacy bare-ID files. */
static int owned_exact(struct ipam_store *s, const char *id, const char *ifname,
		       struct cni_addr **ips, size_t *n)
{
	_cleanup_free_ char *buf = NULL;
	char key[NAME_MAX + 2], path[PATH_MAX];
	int ret;

	if (!owner_key(id, ifname, key, sizeof(key)))
		return owned_scan(s, id, ifname, ips, n);
	if (owners_path(s, key, path, sizeof(path)))
		return -ENAMETOOLONG;
	ret = read_file(path, 1 << 20, &buf, NULL);
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct ipam_lease l;
		struct cni_addr ip;

		/* Trust, but verify: the file decides who owns the address. */
		if (!cni_addr_parse(line, &ip) || ipam_store_lease(s, &ip, &l))
			continue;
		if (owner_is(&l, id, ifname))
			ret = push_ip(ips, n, &ip);
		ipam_lease_clear(&l);
		if (ret)
			return ret;
	}
	return 0;
}

int ipam_store_owned(struct ipam_store *s, const char *id, const char *ifname,
		     struct cni_addr **ips, size_t *n, bool *legacy)
{
	int ret;

	*ips = NULL;
	*n = 0;
	*legacy = false;
	ret = owned_exact(s, id, ifname, ips, n);
	if (ret || *n)
		return ret;
	*legacy = true;
	return owned_exact(s, id, NULL, ips, n);
}
