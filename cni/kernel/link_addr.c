// SPDX-License-Identifier: Apache-2.0
/* Addresses and routes, the queries CHECK needs, per-link sysctls and DAD. */
#include <errno.h>
#include <fcntl.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "kernel/link.h"
#include "kernel/link_nl.h"
#include "base/util.h"

static int addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

/* As `ip addr add|del ADDR/LEN dev IFINDEX`: the local address, and the
 * same as the peer address of a link that is not point-to-point. */
static int addr_request(struct cni_sys *sys, int ifindex, const struct cni_prefix *p, bool add,
			uint32_t flags)
{
	_cleanup_nl_msg_ struct nl_msg *msg =
	    cni_link_req(add ? RTM_NEWADDR : RTM_DELADDR, add ? NLM_F_CREATE | NLM_F_EXCL : 0,
			 p->family, sizeof(struct ifaddrmsg));
	struct ifaddrmsg *ifa;
	int alen = addr_len(p->family);

	if (!msg)
		return -ENOMEM;
	ifa = nlmsg_data(nlmsg_hdr(msg));
	ifa->ifa_prefixlen = (uint8_t)p->len;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (uint32_t)ifindex;
	if (nla_put(msg, IFA_LOCAL, alen, p->a) < 0 || nla_put(msg, IFA_ADDRESS, alen, p->a) < 0 ||
	    (flags && nla_put_u32(msg, IFA_FLAGS, flags) < 0))
		return -ENOMEM;
	return cni_link_talk(sys, msg, NULL, NULL);
}

int cni_link_addr_add(struct cni_sys *sys, int ifindex, const struct cni_prefix *addr)
{
	return addr_request(sys, ifindex, addr, true, 0);
}

int cni_link_addr_add_flags(struct cni_sys *sys, int ifindex, const struct cni_prefix *addr,
			    uint32_t flags)
{
	return addr_request(sys, ifindex, addr, true, flags);
}

int cni_link_addr_del(struct cni_sys *sys, int ifindex, const struct cni_prefix *addr)
{
	return addr_request(sys, ifindex, addr, false, 0);
}

/* Route metrics (RTA_METRICS) of rt, as `ip route add ... mtu M advmss A`. */
static int route_put_metrics(struct nl_msg *msg, const struct cni_route *rt)
{
	struct nlattr *m;

	if (!rt->mtu && !rt->advmss)
		return 0;
	m = nla_nest_start(msg, RTA_METRICS);
	if (!m || (rt->mtu && nla_put_u32(msg, RTAX_MTU, (uint32_t)rt->mtu) < 0) ||
	    (rt->advmss && nla_put_u32(msg, RTAX_ADVMSS, (uint32_t)rt->advmss) < 0))
		return -ENOMEM;
	nla_nest_end(msg, m);
	return 0;
}

struct nl_msg *cni_link_route_msg(int ifindex, const struct cni_route *rt)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_link_req(RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL,
							   rt->dst.family, sizeof(struct rtmsg));
	uint32_t table = rt->has_table ? (uint32_t)rt->table : RT_TABLE_MAIN;
	int alen = addr_len(rt->dst.family);
	struct rtmsg *rtm;

	if (!msg)
		return NULL;
	rtm = nlmsg_data(nlmsg_hdr(msg));
	rtm->rtm_dst_len = (uint8_t)rt->dst.len;
	/* Tables past 255 exist only as RTA_TABLE (iproute2 does the same). */
	rtm->rtm_table = table < 256 ? (uint8_t)table : RT_TABLE_UNSPEC;
	rtm->rtm_protocol = RTPROT_BOOT;
	rtm->rtm_type = RTN_UNICAST;
	/* Without a scope: through a gateway is global, without one on-link. */
	rtm->rtm_scope = rt->has_scope	 ? (uint8_t)rt->scope
			 : rt->gw.family ? RT_SCOPE_UNIVERSE
					 : RT_SCOPE_LINK;
	if (nla_put_u32(msg, RTA_TABLE, table) < 0 ||
	    (rt->dst.len && nla_put(msg, RTA_DST, alen, rt->dst.a) < 0) ||
	    (rt->priority && nla_put_u32(msg, RTA_PRIORITY, (uint32_t)rt->priority) < 0) ||
	    route_put_metrics(msg, rt) < 0 ||
	    (rt->gw.family && nla_put(msg, RTA_GATEWAY, addr_len(rt->gw.family), rt->gw.a) < 0) ||
	    nla_put_u32(msg, RTA_OIF, (uint32_t)ifindex) < 0)
		return NULL;
	return steal_ptr(msg);
}

int cni_link_route_add(struct cni_sys *sys, int ifindex, const struct cni_route *rt)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_link_route_msg(ifindex, rt);

	return msg ? cni_link_talk(sys, msg, NULL, NULL) : -ENOMEM;
}

/* --- queries for CHECK --- */

static const struct nla_policy addr_policy[IFA_MAX + 1] = {
    [IFA_ADDRESS] = {.minlen = 4, .maxlen = 16},
    [IFA_LOCAL] = {.minlen = 4, .maxlen = 16},
    [IFA_FLAGS] = {.type = NLA_U32},
};

/* Copy an address attribute of family into p; -EPROTO when its length is
 * not the family's. */
static int addr_get(struct nlattr *a, int family, unsigned char *p)
{
	if (nla_len(a) != addr_len(family))
		return -EPROTO;
	memcpy(p, nla_data(a), (size_t)nla_len(a));
	return 0;
}

int cni_link_addr_parse(struct nl_msg *msg, struct cni_link_addr *out)
{
	struct ifaddrmsg *ifa = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[IFA_MAX + 1], *a;
	int ret;

	if (nlmsg_hdr(msg)->nlmsg_type != RTM_NEWADDR)
		return -EPROTO;
	ret = cni_nl_parse(msg, sizeof(*ifa), tb, IFA_MAX, addr_policy);
	if (ret)
		return ret;
	if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
		return -EAFNOSUPPORT;
	memset(out, 0, sizeof(*out));
	out->ifindex = (int)ifa->ifa_index;
	out->addr.family = ifa->ifa_family;
	out->addr.len = ifa->ifa_prefixlen;
	if (out->addr.len > (unsigned int)addr_len(ifa->ifa_family) * 8)
		return -EPROTO; /* a forged reply; the kernel never sends one */
	/* The wider IFA_FLAGS replaces the header's 8 bits when present. */
	out->flags = tb[IFA_FLAGS] ? nla_get_u32(tb[IFA_FLAGS]) : ifa->ifa_flags;
	/* IFA_LOCAL is the address itself; IPv6 sends IFA_ADDRESS only. */
	a = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	return a ? addr_get(a, out->addr.family, out->addr.a) : -EPROTO;
}

struct addr_match {
	int ifindex;
	const struct cni_prefix *want;
	bool found;
};

static int addr_match(struct nl_msg *msg, void *arg)
{
	struct addr_match *m = arg;
	struct cni_link_addr a;
	int ret = cni_link_addr_parse(msg, &a);

	if (ret)
		return ret;
	if (a.ifindex == m->ifindex && a.addr.family == m->want->family &&
	    a.addr.len == m->want->len &&
	    !memcmp(a.addr.a, m->want->a, (size_t)addr_len(a.addr.family)))
		m->found = true;
	return 0;
}

/* Dump the addresses of family, each to parse. */
static int addr_dump(struct cni_sys *sys, int family, cni_nl_parse_fn parse, void *arg)
{
	_cleanup_nl_msg_ struct nl_msg *msg =
	    cni_link_req(RTM_GETADDR, NLM_F_DUMP, family, sizeof(struct ifaddrmsg));

	return msg ? cni_link_talk(sys, msg, parse, arg) : -ENOMEM;
}

struct addr_list {
	int ifindex;
	struct cni_link_addr *out;
	size_t max, n;
};

static int addr_collect(struct nl_msg *msg, void *arg)
{
	struct addr_list *l = arg;
	struct cni_link_addr a;
	int ret = cni_link_addr_parse(msg, &a);

	if (ret == -EAFNOSUPPORT)
		return 0;
	if (ret)
		return ret;
	if (a.ifindex == l->ifindex && l->n < l->max)
		l->out[l->n++] = a;
	return 0;
}

int cni_link_addrs(struct cni_sys *sys, int ifindex, struct cni_link_addr *out, size_t max)
{
	struct addr_list l = {.ifindex = ifindex, .out = out, .max = max};
	int ret = addr_dump(sys, AF_INET, addr_collect, &l);

	if (!ret)
		ret = addr_dump(sys, AF_INET6, addr_collect, &l);
	return ret ? ret : (int)l.n;
}

int cni_link_has_addr(struct cni_sys *sys, int ifindex, const struct cni_prefix *addr)
{
	struct addr_match m = {.ifindex = ifindex, .want = addr};
	int ret = addr_dump(sys, addr->family, addr_match, &m);

	return ret ? ret : m.found;
}

static const struct nla_policy route_policy[RTA_MAX + 1] = {
    [RTA_DST] = {.minlen = 4, .maxlen = 16},
    [RTA_GATEWAY] = {.minlen = 4, .maxlen = 16},
    [RTA_OIF] = {.type = NLA_U32},
    [RTA_TABLE] = {.type = NLA_U32},
};

int cni_link_route_parse(struct nl_msg *msg, struct cni_link_route *out)
{
	struct rtmsg *rtm = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[RTA_MAX + 1];
	int ret;

	if (nlmsg_hdr(msg)->nlmsg_type != RTM_NEWROUTE)
		return -EPROTO;
	ret = cni_nl_parse(msg, sizeof(*rtm), tb, RTA_MAX, route_policy);
	if (ret)
		return ret;
	if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6)
		return -EAFNOSUPPORT;
	memset(out, 0, sizeof(*out));
	out->dst.family = rtm->rtm_family;
	out->dst.len = rtm->rtm_dst_len;
	if (out->dst.len > (unsigned int)addr_len(rtm->rtm_family) * 8)
		return -EPROTO;
	out->table = tb[RTA_TABLE] ? nla_get_u32(tb[RTA_TABLE]) : rtm->rtm_table;
	/* A multipath route has no RTA_OIF: oif stays 0. */
	if (tb[RTA_OIF])
		out->oif = (int)nla_get_u32(tb[RTA_OIF]);
	if (tb[RTA_DST] && (ret = addr_get(tb[RTA_DST], rtm->rtm_family, out->dst.a)))
		return ret;
	if (tb[RTA_GATEWAY]) {
		out->gw.family = rtm->rtm_family;
		ret = addr_get(tb[RTA_GATEWAY], rtm->rtm_family, out->gw.a);
	}
	return ret;
}

struct route_match {
	int ifindex;
	const struct cni_route *want;
	bool found;
};

static int route_match(struct nl_msg *msg, void *arg)
{
	struct route_match *m = arg;
	const struct cni_route *w = m->want;
	size_t alen = (size_t)addr_len(w->dst.family);
	struct cni_link_route r;
	int ret = cni_link_route_parse(msg, &r);

	if (ret)
		return ret;
	/* A missing RTA_DST is the zero address: dst stays zeroed. */
	if (r.oif == m->ifindex && r.dst.family == w->dst.family && r.dst.len == w->dst.len &&
	    !memcmp(r.dst.a, w->dst.a, w->dst.len ? alen : 0) &&
	    (!w->gw.family || (r.gw.family && !memcmp(r.gw.a, w->gw.a, alen))))
		m->found = true;
	return 0;
}

int cni_link_has_route(struct cni_sys *sys, int ifindex, const struct cni_route *rt)
{
	_cleanup_nl_msg_ struct nl_msg *msg =
	    cni_link_req(RTM_GETROUTE, NLM_F_DUMP, rt->dst.family, sizeof(struct rtmsg));
	struct route_match m = {.ifindex = ifindex, .want = rt};
	int ret;

	if (!msg)
		return -ENOMEM;
	ret = cni_link_talk(sys, msg, route_match, &m);
	return ret ? ret : m.found;
}

/* --- IPv6 --- */

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000 /* <linux/if.h>, which clashes with <net/if.h> */
#endif

/* Open net.ipv4|ipv6.conf.<name>.<key> of the calling thread's namespace
 * (procfs resolves /proc/sys/net against the opener's namespace). */
static int conf_open(int family, const char *name, const char *key, int flags)
{
	char path[128];
	int fd;

	/* The name comes from the kernel or CNI_IFNAME; still, never a path. */
	if (!*name || strlen(name) >= IFNAMSIZ || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, "..") || strchr(key, '/') ||
	    check_snprintf(path, sizeof(path), "/proc/sys/net/%s/conf/%s/%s",
			   family == AF_INET6 ? "ipv6" : "ipv4", name, key))
		return -EINVAL;
	fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? -errno : fd;
}

int cni_link_conf_set(int family, const char *name, const char *key, const char *value)
{
	_cleanup_close_ int fd = conf_open(family, name, key, O_WRONLY);
	size_t len = strlen(value);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = write(fd, value, len);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int cni_link_conf_get(int family, const char *name, const char *key, char *buf, size_t len)
{
	_cleanup_close_ int fd = conf_open(family, name, key, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	if (len < 2)
		return -EINVAL;
	n = read(fd, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	/* One value and its newline: a longer one is not what we compare. */
	if ((size_t)n == len - 1 && buf[n - 1] != '\n')
		return -EOVERFLOW;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The link ifindex is still the one named name in this namespace: a pod
 * holding CAP_NET_ADMIN may rename its links at any time. */
static int conf_name_is(struct cni_sys *sys, int ifindex, const char *name)
{
	struct cni_link l;
	int ret = cni_link_get(sys, NULL, ifindex, &l);

	if (ret)
		return ret;
	return strcmp(l.name, name) ? -ESTALE : 0;
}

int cni_link_conf_apply(struct cni_sys *sys, const struct cni_link_conf *c, size_t *failed)
{
	int ret = conf_name_is(sys, c->ifindex, c->name);

	*failed = 0;
	/* Checked before and after: the values written and read are the link's. */
	for (size_t i = 0; !ret && i < c->n; i++) {
		*failed = i;
		c->got[i][0] = '\0';
		if (c->value[i])
			ret = cni_link_conf_set(c->family, c->name, c->key[i], c->value[i]);
		if (!ret)
			ret = cni_link_conf_get(c->family, c->name, c->key[i], c->got[i],
						sizeof(c->got[i]));
	}
	if (!ret)
		ret = conf_name_is(sys, c->ifindex, c->name);
	return ret;
}

int cni_link_ipv6_enable(const char *name)
{
	return cni_link_conf_set(AF_INET6, name, "disable_ipv6", "0");
}

struct dad_scan {
	int ifindex;
	bool tentative;
};

static int dad_parse(struct nl_msg *msg, void *arg)
{
	struct dad_scan *d = arg;
	struct cni_link_addr a;
	int ret = cni_link_addr_parse(msg, &a);

	if (ret)
		return ret;
	if (a.ifindex == d->ifindex && (a.flags & IFA_F_TENTATIVE) && !(a.flags & IFA_F_DADFAILED))
		d->tentative = true;
	return 0;
}

int cni_link_wait_dad(struct cni_sys *sys, int ifindex, unsigned int timeout_ms)
{
	uint64_t deadline = now_ms() + timeout_ms;
	struct cni_link l;
	int ret;

	for (;;) {
		struct dad_scan d = {.ifindex = ifindex};

		ret = cni_link_get(sys, NULL, ifindex, &l);
		if (ret)
			return ret;
		if (!(l.flags & IFF_LOWER_UP))
			return 0;
		ret = addr_dump(sys, AF_INET6, dad_parse, &d);
		if (ret || !d.tentative)
			return ret;
		if (now_ms() >= deadline)
			return -ETIMEDOUT;
		sleep_ms(50);
	}
}
