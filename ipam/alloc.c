// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"

struct iter {
	const struct ipam_rangeset *set;
	size_t ri; /* current range */
	struct cni_addr cur, start;
	bool has_cur, has_start;
};

/* host-local's RangeIter.Next(): false once it is back where it started. */
static bool iter_next(struct iter *it, size_t *range)
{
	for (;;) {
		const struct ipam_range *r = &it->set->r[it->ri];

		if (!it->has_cur) {
			it->cur = r->start;
			it->has_cur = true;
			it->start = it->cur;
			it->has_start = true;
		} else {
			if (!ipam_addr_cmp(&it->cur, &r->end)) {
				it->ri = (it->ri + 1) % it->set->n;
				r = &it->set->r[it->ri];
				it->cur = r->start;
			} else {
				ipam_addr_next(&it->cur, &it->cur);
			}
			if (!it->has_start) {
				it->start = it->cur;
				it->has_start = true;
			} else if (!ipam_addr_cmp(&it->cur, &it->start)) {
				return false;
			}
		}
		if (!ipam_addr_cmp(&it->cur, &r->gateway) || ipam_range_reserved(r, &it->cur))
			continue;
		*range = it->ri;
		return true;
	}
}

static void fill(struct cni_ip *out, const struct ipam_range *r, const struct cni_addr *ip)
{
	memset(out, 0, sizeof(*out));
	out->address.family = ip->family;
	memcpy(out->address.a, ip->a, sizeof(out->address.a));
	out->address.len = r->subnet.len;
	out->gateway = r->gateway;
	out->iface = -1;
}

static int alloc_requested(struct ipam_store *s, const struct ipam_request *req, struct cni_ip *out,
			   struct cni_error *err)
{
	const struct ipam_rangeset *set = req->set;
	const struct cni_addr *want = req->want;
	char ip[INET6_ADDRSTRLEN], desc[1024], msg[sizeof(err->msg)];
	int ri = ipam_rangeset_find(set, want);
	const struct ipam_range *r;
	int ret;

	cni_addr_str(want, ip, sizeof(ip));
	ipam_rangeset_str(set, desc, sizeof(desc));
	if (ri < 0) {
		snprintf(msg, sizeof(msg), "%s not in range set %.180s", ip, desc);
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, msg, NULL);
	}
	r = &set->r[ri];
	if (!ipam_addr_cmp(want, &r->gateway)) {
		snprintf(msg, sizeof(msg), "requested ip %s is subnet's gateway", ip);
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, msg, NULL);
	}
	if (req->held) {
		fill(out, r, want);
		return 0;
	}
	if (ipam_range_reserved(r, want)) {
		snprintf(msg, sizeof(msg), "requested ip %s is the network or broadcast address",
			 ip);
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, msg,
				  "IPv4 network and broadcast addresses are never leased");
	}
	ret = ipam_store_reserve(s, want, req->id, req->ifname, req->idx);
	if (ret == -EEXIST) {
		snprintf(msg, sizeof(msg),
			 "requested IP address %s is not available in range set %.160s", ip, desc);
		return cni_errorf(err, ret, CNI_ERR_ADDRESS_TAKEN, msg, NULL);
	}
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot write a lease", "%s: %s", ip,
				  strerror(-ret));
	fill(out, r, want);
	return 0;
}

int ipam_alloc(struct ipam_store *s, const struct ipam_request *req, struct cni_ip *out,
	       struct cni_error *err)
{
	const struct ipam_rangeset *set = req->set;
	const size_t idx = req->idx;
	struct iter it = {.set = set};
	struct cni_addr last;
	char desc[1024], msg[sizeof(err->msg)];
	size_t ri;
	int ret;

	if (req->want)
		return alloc_requested(s, req, out, err);
	/* Round robin: start after the last address this set handed out. */
	ret = ipam_store_last_reserved(s, idx, &last);
	if (ret && ret != -ENOENT)
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot read the round-robin pointer",
				  "%s/last_reserved_ip.%zu: %s", s->dir, idx, strerror(-ret));
	if (!ret) {
		int at = ipam_rangeset_find(set, &last);

		if (at >= 0) {
			it.ri = (size_t)at;
			it.cur = last;
			it.has_cur = true;
		}
	}
	while (iter_next(&it, &ri)) {
		ret = ipam_store_reserve(s, &it.cur, req->id, req->ifname, idx);
		if (ret == -EEXIST)
			continue;
		if (ret)
			return cni_errorf(err, ret, CNI_ERR_IO, "cannot write a lease", "%s: %s",
					  s->dir, strerror(-ret));
		fill(out, &set->r[ri], &it.cur);
		return 0;
	}
	snprintf(msg, sizeof(msg), "no IP addresses available in range set: %.200s",
		 ipam_rangeset_str(set, desc, sizeof(desc)));
	return cni_errorf(err, -ENOSPC, CNI_ERR_NO_ADDRESS, msg, NULL);
}
