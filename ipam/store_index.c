// SPDX-License-Identifier: Apache-2.0
/* The owner index (see store_priv.h), and the lookups by owner it serves. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

#define OWNERS_MAX (1 << 20) /* bytes of one owner file */
#define TOKEN	   "token"
#define TOKEN_MAX  255 /* bytes of a token file */

/* True when lease l belongs to (id, ifname); ifname NULL: a legacy lease. */
static bool owned_by(const struct ipam_lease *l, const char *id, const char *ifname)
{
	if (!l->id || strcmp(l->id, id))
		return false;
	if (!ifname)
		return !l->ifname;
	return l->ifname && !strcmp(l->ifname, ifname);
}

/* Append ip to the array *ips of *n. 0 or -ENOMEM. */
static int push_ip(struct cni_addr **ips, size_t *n, const struct cni_addr *ip)
{
	struct cni_addr *p = realloc(*ips, (*n + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	*ips = p;
	p[(*n)++] = *ip;
	return 0;
}

/* "<id>@<hex ifname>", or "<id>@" for a legacy lease; false when it would
 * not be a safe file name. */
static bool owner_key(const char *id, const char *ifname, char *buf, size_t len)
{
	size_t used, n;

	if (check_snprintf(buf, len, "%s@", id) || strlen(buf) > CNI_STATE_NAME_MAX ||
	    strchr(id, '/') || id[0] == '.')
		return false;
	used = strlen(buf);
	n = ifname ? strlen(ifname) : 0;
	return used + 2 * n <= CNI_STATE_NAME_MAX &&
	       !cni_hex_str((const unsigned char *)ifname, n, 0, buf + used, len - used);
}

static int token_text(struct ipam_store *s, char *buf, size_t len)
{
	struct stat st;

	if (fstat(s->dir_fd, &st) < 0)
		return -errno;
	return check_snprintf(buf, len, "%ju %ju %lld.%09ld %lld.%09ld\n", (uintmax_t)st.st_dev,
			      (uintmax_t)st.st_ino, (long long)st.st_mtim.tv_sec,
			      st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

static void token_close(struct ipam_store *s)
{
	if (s->token_fd >= 0)
		close(s->token_fd);
	s->token_fd = -1;
}

bool ipam_index_current(struct ipam_store *s)
{
	char now[128], saved[TOKEN_MAX + 1];
	struct stat st;
	ssize_t n;

	token_close(s);
	if (token_text(s, now, sizeof(now)))
		return false;
	s->token_fd =
	    openat(s->idx_fd, TOKEN, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	/* A store that cannot be written (a read-only mount, an immutable
	 * token) is still read. */
	if (s->token_fd < 0 && (errno == EROFS || errno == EACCES || errno == EPERM))
		s->token_fd = openat(s->idx_fd, TOKEN,
				     O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (s->token_fd < 0)
		return false;
	/* Rewritten in place later: a second link would be written through. */
	if (fstat(s->token_fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    st.st_size > TOKEN_MAX || (n = pread(s->token_fd, saved, TOKEN_MAX, 0)) < 0) {
		token_close(s);
		return false;
	}
	saved[n] = '\0';
	s->token_len = (size_t)n;
	return !strcmp(saved, now);
}

void ipam_index_invalidate(struct ipam_store *s)
{
	if (s->idx_fd < 0)
		return; /* no index (see ipam_store_open) */
	/* A first byte no token starts with: in place, no file created. */
	if (s->token_fd >= 0 && pwrite(s->token_fd, "!", 1, 0) == 1)
		return;
	token_close(s);
	if (unlinkat(s->idx_fd, TOKEN, 0) < 0 && errno != ENOENT)
		log_warn("cannot drop the index token of %s: %s", s->dir, strerror(errno));
}

void ipam_index_seal(struct ipam_store *s)
{
	char now[128];
	size_t len;

	if (s->idx_fd < 0)
		return;
	if (token_text(s, now, sizeof(now)))
		return;
	len = strlen(now);
	/* In place when we hold it; a token torn by a crash here only costs a
	 * rebuild. Not durable either way, for the same reason. */
	if (s->token_fd >= 0 && pwrite(s->token_fd, now, len, 0) == (ssize_t)len &&
	    (len >= s->token_len || ftruncate(s->token_fd, (off_t)len) == 0)) {
		s->token_len = len;
		return;
	}
	token_close(s);
	cni_state_write_at(s->idx_fd, TOKEN, now, len, false);
}

/* Empty owners/ (everything in it is ours and rebuilt). */
static int owners_clear(struct ipam_store *s)
{
	_cleanup_dir_ DIR *d = cni_state_stream(s->owners_fd);
	struct dirent *e;
	size_t seen = 0;

	if (!d)
		return -errno;
	while ((errno = 0, e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (++seen > s->list_max)
			return -E2BIG;
		if (unlinkat(s->owners_fd, e->d_name, 0) < 0 && errno != ENOENT)
			return -errno;
	}
	return errno ? -errno : 0;
}

/* Add name's line to owner file key: appended, or (fresh) to a file this
 * call creates, -EEXIST when there is one. */
static int owners_put(struct ipam_store *s, const char *key, const char *name, bool fresh)
{
	_cleanup_close_ int fd = -1;
	char line[80];
	struct stat st;

	if (check_snprintf(line, sizeof(line), "%s\n", name))
		return -ENAMETOOLONG;
	fd = openat(s->owners_fd, key,
		    O_WRONLY | O_CREAT | (fresh ? O_EXCL : O_APPEND) | O_NOFOLLOW | O_NONBLOCK |
			O_CLOEXEC,
		    0600);
	if (fd < 0)
		return -errno;
	/* One O_EXCL made is a regular file; an existing one may be anything. */
	if (!fresh && fstat(fd, &st) < 0)
		return -errno;
	if (!fresh && !S_ISREG(st.st_mode))
		return -EINVAL;
	return write_all(fd, line, strlen(line));
}

struct rebuild {
	struct ipam_store *s;
	size_t n;
};

static int rebuild_one(struct ipam_lease *l, void *arg)
{
	struct rebuild *r = arg;
	char key[NAME_MAX + 2];

	r->n++;
	if (l->id && owner_key(l->id, l->ifname, key, sizeof(key)))
		return owners_put(r->s, key, l->name, false);
	return 0;
}

/* Lease by lease, never the whole directory in memory: the peak does not
 * grow with the number of leases. */
int ipam_index_rebuild(struct ipam_store *s)
{
	struct rebuild r = {.s = s};
	int ret;

	if (s->owners_fd < 0)
		return 0;
	ipam_index_invalidate(s);
	ret = owners_clear(s);
	if (!ret)
		ret = ipam_store_each(s, rebuild_one, &r);
	if (ret)
		return ret;
	s->rebuilt = true;
	log_debug("rebuilt the owner index of %s from %zu leases", s->dir, r.n);
	return 0;
}

/* The owner file of key, NULL (and 0) when there is none; -ESTALE when
 * what is there is no owner file (not a regular file, too big). */
static int owners_read(struct ipam_store *s, const char *key, char **buf)
{
	int ret = ipam_store_read(s->owners_fd, key, OWNERS_MAX, buf, NULL);

	switch (-ret) {
	case ENOENT:
		return 0;
	case EINVAL:
	case EFBIG:
	case ELOOP:
	case ENXIO:
		return -ESTALE;
	default:
		return ret;
	}
}

/* A new owner's file, written where it is: 1 when it cannot be (one
 * exists, or the token is not spoilt). Only while the token is spoilt
 * (s->changed): a kill halfway leaves a torn file the next open's rebuild
 * replaces. */
static int owners_create(struct ipam_store *s, const char *key, const char *name)
{
	int ret = s->changed ? owners_put(s, key, name, true) : 1;

	return ret == -EEXIST || ret == -ENAMETOOLONG ? 1 : ret;
}

int ipam_index_update(struct ipam_store *s, const char *id, const char *ifname,
		      const struct cni_addr *ip, bool add)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char *out = NULL;
	char key[NAME_MAX + 2], name[64];
	size_t used = 0, cap;
	int ret;

	if (s->owners_fd < 0)
		return 0;
	if (!owner_key(id, ifname, key, sizeof(key)))
		return 0; /* such owners are found by scanning */
	ipam_ip_name(ip, name, sizeof(name));
	/* The usual ADD: an owner with no file yet. */
	if (add && (ret = owners_create(s, key, name)) <= 0)
		return ret;
	ret = owners_read(s, key, &buf);
	if (ret && ret != -ESTALE)
		return ret; /* a bad owner file is replaced below */
	cap = (buf ? strlen(buf) : 0) + strlen(name) + 2;
	out = malloc(cap);
	if (!out)
		return -ENOMEM;
	for (char *save = NULL, *line = buf ? strtok_r(buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strcmp(line, name))
			used += (size_t)snprintf(out + used, cap - used, "%s\n", line);
	}
	if (add)
		used += (size_t)snprintf(out + used, cap - used, "%s\n", name);
	/* A cache: atomic, not durable (see ipam_index_invalidate()). */
	if (used)
		return cni_state_write_at(s->owners_fd, key, out, used, false);
	return unlinkat(s->owners_fd, key, 0) < 0 && errno != ENOENT ? -errno : 0;
}

void ipam_index_forget(struct ipam_store *s, const char *id, const char *ifname)
{
	char key[NAME_MAX + 2];

	if (s->owners_fd < 0)
		return;
	/* A cache verified on every lookup: one left behind is only stale. */
	if (owner_key(id, ifname, key, sizeof(key)) && unlinkat(s->owners_fd, key, 0) < 0 &&
	    errno != ENOENT)
		/* Append to *ips the addresses the index gives (id, ifname) (ifname NULL:
		 * legacy) that their lease files confirm. -ESTALE when a lease file names
		 * another owner (the file wins: rebuild and ask again), -ENAMETOOLONG when
		 * the owner is not indexed (scan instead). */
		log_warn("cannot update the owner index of %s: %s", s->dir, strerror(errno));
}

static int index_lookup(struct ipam_store *s, const char *id, const char *ifname,
			struct cni_addr **ips, size_t *n)
{
	_cleanup_free_ char *buf = NULL;
	char key[NAME_MAX + 2];
	int ret;

	if (s->owners_fd < 0)
		return -ENAMETOOLONG; /* no index: every owner is scanned for */
	if (!owner_key(id, ifname, key, sizeof(key)))
		return -ENAMETOOLONG;
	ret = owners_read(s, key, &buf);
	if (ret || !buf)
		return ret;
	for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct ipam_lease l;
		struct cni_addr ip;

		if (!cni_addr_parse(line, &ip))
			return -ESTALE;
		ret = ipam_store_lease(s, &ip, &l);
		/* Gone: a release whose index update a failure skipped; the
		 * rebuild drops the stale entry (else it stays for ever). */
		if (ret == -ENOENT)
			return -ESTALE;
		/* Unreadable: not this owner's lease, whatever the index says. */
		if (ret == -EBADMSG)
			continue;
		if (ret)
			return ret;
		if (owned_by(&l, id, ifname))
			ret = push_ip(ips, n, &ip);
		else
			ret = -ESTALE; /* rewritten in place: the file wins */
		ipam_lease_clear(&l);
		if (ret)
			return ret;
	}
	return 0;
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

	return owned_by(l, o->id, o->ifname) ? push_ip(o->ips, o->n, &l->ip) : 0;
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
	int ret = index_lookup(s, id, ifname, ips, n);

	if (ret == -ESTALE) {
		/* A lease rewritten in place (the directory did not change):
		 * the file wins. */
		log_info("the owner index of %s disagrees with a lease file; rebuilding it",
			 s->dir);
		forget(ips, n);
		ret = ipam_index_rebuild(s);
		if (!ret)
			ret = index_lookup(s, id, ifname, ips, n);
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
