// SPDX-License-Identifier: Apache-2.0
/* Addresses and routes (libnl-route objects), the queries CHECK needs,
 * IPv6 enablement and DAD. */
#include <errno.h>
#include <fcntl.h>
#include <linux/rtnetlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/route.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "link.h"
#include "link_nl.h"
#include "util.h"

static struct nl_addr *to_nl_addr(int family, const unsigned char *a, unsigned int len)
{
	struct nl_addr *n = nl_addr_build(family, a, family == AF_INET ? 4 : 16);

	if (n)
		nl_addr_set_prefixlen(n, (int)len);
	return n;
}

static int addr_request(int ifindex, const struct cni_prefix *p, bool add)
{
	struct rtnl_addr *addr = rtnl_addr_alloc();
	struct nl_addr *local = to_nl_addr(p->family, p->a, p->len);
	_cleanup_nl_msg_ struct nl_msg *msg = NULL;
	int ret = -ENOMEM;

	if (addr && local) {
		rtnl_addr_set_ifindex(addr, ifindex);
		rtnl_addr_set_family(addr, p->family);
		ret = rtnl_addr_set_local(addr, local);
		if (!ret)
			rtnl_addr_set_prefixlen(addr, (int)p->len);
		if (!ret)
			ret = add ? rtnl_addr_build_add_request(addr, NLM_F_CREATE | NLM_F_EXCL, &msg) :
				    rtnl_addr_build_delete_request(addr, 0, &msg);
		ret = ret < 0 ? cni_nl_errno(ret) : 0;
	}
	nl_addr_put(local);
	rtnl_addr_put(addr);
	if (ret)
		return ret;
	nlmsg_hdr(msg)->nlmsg_flags |= NLM_F_ACK;
	return cni_link_talk(msg, NULL, NULL);
}

int cni_link_addr_add(int ifindex, const struct cni_prefix *addr)
{
	return addr_request(ifindex, addr, true);
}

int cni_link_addr_del(int ifindex, const struct cni_prefix *addr)
{
	return addr_request(ifindex, addr, false);
}

static int route_build(int ifindex, const struct cni_route *rt, struct rtnl_route **out)
{
	struct rtnl_route *r = rtnl_route_alloc();
	struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
	struct nl_addr *dst = to_nl_addr(rt->dst.family, rt->dst.a, rt->dst.len);
	int ret = -ENOMEM;

	if (r && nh && dst) {
		rtnl_route_set_family(r, (uint8_t)rt->dst.family);
		rtnl_route_set_table(r, rt->has_table ? (uint32_t)rt->table : RT_TABLE_MAIN);
		rtnl_route_set_protocol(r, RTPROT_BOOT);
		ret = rtnl_route_set_dst(r, dst);
		if (!ret && rt->has_scope)
			rtnl_route_set_scope(r, (uint8_t)rt->scope);
		if (!ret && rt->priority)
			rtnl_route_set_priority(r, (uint32_t)rt->priority);
		if (!ret && rt->mtu)
			ret = rtnl_route_set_metric(r, RTAX_MTU, (unsigned int)rt->mtu);
		if (!ret && rt->advmss)
			ret = rtnl_route_set_metric(r, RTAX_ADVMSS, (unsigned int)rt->advmss);
		rtnl_route_nh_set_ifindex(nh, ifindex);
		if (!ret && rt->gw.family) {
			struct nl_addr *gw = nl_addr_build(rt->gw.family, rt->gw.a,
							   rt->gw.family == AF_INET ? 4 : 16);

			if (!gw)
				ret = -NLE_NOMEM;
			else
				rtnl_route_nh_set_gateway(nh, gw);
			nl_addr_put(gw);
		}
		if (!ret) {
			rtnl_route_add_nexthop(r, nh);
			nh = NULL;
		}
		ret = ret < 0 ? cni_nl_errno(ret) : 0;
	}
	nl_addr_put(dst);
	if (nh)
		rtnl_route_nh_free(nh);
	if (ret) {
		rtnl_route_put(r);
		return ret;
	}
	*out = r;
	return 0;
}

int cni_link_route_add(int ifindex, const struct cni_route *rt)
{
	_cleanup_nl_msg_ struct nl_msg *msg = NULL;
	struct rtnl_route *r = NULL;
	int ret = route_build(ifindex, rt, &r);

	if (ret)
		return ret;
	ret = rtnl_route_build_add_request(r, NLM_F_CREATE | NLM_F_EXCL, &msg);
	rtnl_route_put(r);
	if (ret < 0)
		return cni_nl_errno(ret);
	nlmsg_hdr(msg)->nlmsg_flags |= NLM_F_ACK;
	return cni_link_talk(msg, NULL, NULL);
}

/* --- queries for CHECK --- */

struct addr_match {
	int ifindex;
	const struct cni_prefix *want;
	bool found;
};

static int addr_parse(struct nl_msg *msg, void *arg)
{
	struct addr_match *m = arg;
	struct ifaddrmsg *ifa = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[IFA_MAX + 1];
	struct nlattr *a;

	if (nlmsg_hdr(msg)->nlmsg_type != RTM_NEWADDR ||
	    nlmsg_parse(nlmsg_hdr(msg), sizeof(*ifa), tb, IFA_MAX, NULL) < 0)
		return 0;
	a = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	if ((int)ifa->ifa_index != m->ifindex || !a || ifa->ifa_family != m->want->family ||
	    ifa->ifa_prefixlen != m->want->len)
		return 0;
	if (nla_len(a) == (m->want->family == AF_INET ? 4 : 16) &&
	    !memcmp(nla_data(a), m->want->a, (size_t)nla_len(a)))
		m->found = true;
	return 0;
}

int cni_link_has_addr(int ifindex, const struct cni_prefix *addr)
{
	struct ifaddrmsg ifa = { .ifa_family = (uint8_t)addr->family };
	_cleanup_nl_msg_ struct nl_msg *msg = nlmsg_alloc_simple(RTM_GETADDR,
								  NLM_F_REQUEST | NLM_F_DUMP);
	struct addr_match m = { .ifindex = ifindex, .want = addr };
	int ret;

	if (!msg || nlmsg_append(msg, &ifa, sizeof(ifa), NLMSG_ALIGNTO) < 0)
		return -ENOMEM;
	ret = cni_link_talk(msg, addr_parse, &m);
	return ret ? ret : m.found;
}

struct route_match {
	int ifindex;
	const struct cni_route *want;
	bool found;
};

static int route_parse(struct nl_msg *msg, void *arg)
{
	struct route_match *m = arg;
	struct rtmsg *rtm = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[RTA_MAX + 1];
	size_t alen = m->want->dst.family == AF_INET ? 4 : 16;
	static const unsigned char zero[16];

	if (nlmsg_hdr(msg)->nlmsg_type != RTM_NEWROUTE ||
	    nlmsg_parse(nlmsg_hdr(msg), sizeof(*rtm), tb, RTA_MAX, NULL) < 0)
		return 0;
	if (rtm->rtm_family != m->want->dst.family || rtm->rtm_dst_len != m->want->dst.len)
		return 0;
	if (!tb[RTA_OIF] || (int)nla_get_u32(tb[RTA_OIF]) != m->ifindex)
		return 0;
	if (m->want->dst.len &&
	    (!tb[RTA_DST] || memcmp(nla_data(tb[RTA_DST]), m->want->dst.a, alen)))
		return 0;
	if (!m->want->dst.len && tb[RTA_DST] && memcmp(nla_data(tb[RTA_DST]), zero, alen))
		return 0;
	if (m->want->gw.family &&
	    (!tb[RTA_GATEWAY] || memcmp(nla_data(tb[RTA_GATEWAY]), m->want->gw.a, alen)))
		return 0;
	m->found = true;
	return 0;
}

int cni_link_has_route(int ifindex, const struct cni_route *rt)
{
	struct rtmsg rtm = { .rtm_family = (uint8_t)rt->dst.family };
	_cleanup_nl_msg_ struct nl_msg *msg = nlmsg_alloc_simple(RTM_GETROUTE,
								  NLM_F_REQUEST | NLM_F_DUMP);
	struct route_match m = { .ifindex = ifindex, .want = rt };
	int ret;

	if (!msg || nlmsg_append(msg, &rtm, sizeof(rtm), NLMSG_ALIGNTO) < 0)
		return -ENOMEM;
	ret = cni_link_talk(msg, route_parse, &m);
	return ret ? ret : m.found;
}

/* --- IPv6 --- */

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000	/* <linux/if.h>, which clashes with <net/if.h> */
#endif

int cni_link_ipv6_enable(const char *name)
{
	char path[128];
	int fd, ret = 0;

	if (strlen(name) >= IFNAMSIZ || strchr(name, '/') ||
	    check_snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", name))
		return -EINVAL;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "0", 1) != 1)
		ret = -errno;
	close(fd);
	return ret;
}

struct dad_scan {
	int ifindex;
	bool tentative;
};

static int dad_parse(struct nl_msg *msg, void *arg)
{
	struct dad_scan *d = arg;
	struct ifaddrmsg *ifa = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[IFA_MAX + 1];
	uint32_t flags;

	if (nlmsg_hdr(msg)->nlmsg_type != RTM_NEWADDR || (int)ifa->ifa_index != d->ifindex ||
	    nlmsg_parse(nlmsg_hdr(msg), sizeof(*ifa), tb, IFA_MAX, NULL) < 0)
		return 0;
	flags = tb[IFA_FLAGS] ? nla_get_u32(tb[IFA_FLAGS]) : ifa->ifa_flags;
	if ((flags & IFA_F_TENTATIVE) && !(flags & IFA_F_DADFAILED))
		d->tentative = true;
	return 0;
}

int cni_link_wait_dad(int ifindex, unsigned int timeout_ms)
{
	uint64_t deadline = now_ms() + timeout_ms;
	struct cni_link l;
	int ret;

	for (;;) {
		struct ifaddrmsg ifa = { .ifa_family = AF_INET6 };
		_cleanup_nl_msg_ struct nl_msg *msg =
			nlmsg_alloc_simple(RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP);
		struct dad_scan d = { .ifindex = ifindex };

		ret = cni_link_get(NULL, ifindex, &l);
		if (ret)
			return ret;
		if (!(l.flags & IFF_LOWER_UP))
			return 0;
		if (!msg || nlmsg_append(msg, &ifa, sizeof(ifa), NLMSG_ALIGNTO) < 0)
			return -ENOMEM;
		ret = cni_link_talk(msg, dad_parse, &d);
		if (ret || !d.tentative)
			return ret;
		if (now_ms() >= deadline)
			return -ETIMEDOUT;
		sleep_ms(50);
	}
}
