// SPDX-License-Identifier: Apache-2.0
/* Reading the lease files and the round-robin pointers. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "state/state.h"
#include "store_priv.h"

int (*ipam_store_read)(int dirfd, const char *name, size_t max, char **out,
		       size_t *len) = read_fileat;

const char *ipam_ip_name(const struct cni_addr *ip, char *buf, size_t len)
{
	return cni_addr_str(ip, buf, len);
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
