// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/route.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "link.h"
#include "nl.h"
#include "util.h"

const char *cni_link_ext_ack(void)
{
	return cni_nl_ext_ack();
}

static struct nl_msg *link_msg(int type, int flags, int ifindex)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };
	struct nl_msg *msg = nlmsg_alloc_simple(type, flags | NLM_F_REQUEST);

	if (!msg)
		return NULL;
	if (nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Fault injection for the rollback tests: IBCNI_LINK_FAILPOINT=N makes the
 * Nth change request of this process fail with EIO before it is sent. */
static bool failpoint(void)
{
	static long n = -1;
	static long seen;
	const char *s;

	if (n < 0) {
		s = getenv("IBCNI_LINK_FAILPOINT");
		n = s ? strtol(s, NULL, 10) : 0;
	}
	return n > 0 && ++seen == n;
}

static int route_talk(struct nl_msg *msg, cni_nl_parse_fn parse, void *arg)
{
	_cleanup_nl_sock_ struct nl_sock *sk = NULL;
	int type = nlmsg_hdr(msg)->nlmsg_type;

	if (type != RTM_GETLINK && type != RTM_GETADDR && type != RTM_GETROUTE && failpoint())
		return -EIO;
	sk = cni_nl_open(NETLINK_ROUTE);
	if (!sk)
		return -errno;
	return cni_nl_talk(sk, msg, parse, arg);
}

/* --- reading links --- */

static struct nla_policy vf_policy[IFLA_VF_MAX + 1] = {
	[IFLA_VF_MAC] = { .minlen = sizeof(struct ifla_vf_mac) },
	[IFLA_VF_VLAN] = { .minlen = sizeof(struct ifla_vf_vlan) },
	[IFLA_VF_VLAN_LIST] = { .type = NLA_NESTED },
	[IFLA_VF_TX_RATE] = { .minlen = sizeof(struct ifla_vf_tx_rate) },
	[IFLA_VF_RATE] = { .minlen = sizeof(struct ifla_vf_rate) },
	[IFLA_VF_SPOOFCHK] = { .minlen = sizeof(struct ifla_vf_spoofchk) },
	[IFLA_VF_LINK_STATE] = { .minlen = sizeof(struct ifla_vf_link_state) },
	[IFLA_VF_TRUST] = { .minlen = sizeof(struct ifla_vf_trust) },
	[IFLA_VF_IB_NODE_GUID] = { .minlen = sizeof(struct ifla_vf_guid) },
	[IFLA_VF_IB_PORT_GUID] = { .minlen = sizeof(struct ifla_vf_guid) },
};

static int vf_vlan_list_parse(struct nlattr *list, struct cni_vf *vf)
{
	struct nlattr *a;
	int rem;

	/* The kernel reports one entry per VF today; the first one is the VF's. */
	nla_for_each_nested(a, list, rem) {
		struct ifla_vf_vlan_info v;

		if (nla_type(a) != IFLA_VF_VLAN_INFO || nla_len(a) < (int)sizeof(v))
			continue;
		memcpy(&v, nla_data(a), sizeof(v));
		vf->vlan = v.vlan;
		vf->qos = v.qos;
		vf->vlan_proto = ntohs(v.vlan_proto);
		vf->mask |= CNI_VF_VLAN;
		break;
	}
	return 0;
}

/* Netlink attributes are only 4-byte aligned; ifla_vf_guid holds a u64. */
#define nla_copy(dst, a) memcpy(&(dst), nla_data(a), sizeof(dst))

static int vf_info_parse(struct nlattr *info, struct cni_vf *vf)
{
	struct nlattr *tb[IFLA_VF_MAX + 1];
	struct ifla_vf_mac mac;
	struct ifla_vf_vlan vlan;
	struct ifla_vf_rate rate;
	struct ifla_vf_spoofchk spoofchk;
	struct ifla_vf_trust trust;
	struct ifla_vf_link_state state;
	struct ifla_vf_guid guid;
	int ret;

	memset(vf, 0, sizeof(*vf));
	ret = nla_parse_nested(tb, IFLA_VF_MAX, info, vf_policy);
	if (ret < 0)
		return cni_nl_errno(ret);
	/* Every VF entry the kernel sends carries IFLA_VF_MAC: it names the VF. */
	if (!tb[IFLA_VF_MAC])
		return -EPROTO;
	nla_copy(mac, tb[IFLA_VF_MAC]);
	vf->vf = mac.vf;
	memcpy(vf->mac, mac.mac, 6);
	vf->mask |= CNI_VF_MAC;
	if (tb[IFLA_VF_VLAN]) {
		nla_copy(vlan, tb[IFLA_VF_VLAN]);
		vf->vlan = vlan.vlan;
		vf->qos = vlan.qos;
		vf->vlan_proto = ETH_P_8021Q;
		vf->mask |= CNI_VF_VLAN;
	}
	if (tb[IFLA_VF_VLAN_LIST])
		vf_vlan_list_parse(tb[IFLA_VF_VLAN_LIST], vf);
	if (tb[IFLA_VF_RATE]) {
		nla_copy(rate, tb[IFLA_VF_RATE]);
		vf->min_tx_rate = rate.min_tx_rate;
		vf->max_tx_rate = rate.max_tx_rate;
		vf->mask |= CNI_VF_RATE;
	}
	if (tb[IFLA_VF_SPOOFCHK]) {
		nla_copy(spoofchk, tb[IFLA_VF_SPOOFCHK]);
		vf->spoofchk = spoofchk.setting;
		vf->mask |= CNI_VF_SPOOFCHK;
	}
	if (tb[IFLA_VF_TRUST]) {
		nla_copy(trust, tb[IFLA_VF_TRUST]);
		vf->trust = trust.setting;
		vf->mask |= CNI_VF_TRUST;
	}
	if (tb[IFLA_VF_LINK_STATE]) {
		nla_copy(state, tb[IFLA_VF_LINK_STATE]);
		vf->link_state = state.link_state;
		vf->mask |= CNI_VF_LINK_STATE;
	}
	if (tb[IFLA_VF_IB_NODE_GUID]) {
		nla_copy(guid, tb[IFLA_VF_IB_NODE_GUID]);
		vf->node_guid = guid.guid;
		vf->mask |= CNI_VF_NODE_GUID;
	}
	if (tb[IFLA_VF_IB_PORT_GUID]) {
		nla_copy(guid, tb[IFLA_VF_IB_PORT_GUID]);
		vf->port_guid = guid.guid;
		vf->mask |= CNI_VF_PORT_GUID;
	}
	return 0;
}

int cni_link_vfs_parse(struct nl_msg *msg, struct cni_vf *vfs, size_t max)
{
	struct nlattr *tb[IFLA_MAX + 1], *a;
	size_t n = 0;
	int rem, ret;

	ret = nlmsg_parse(nlmsg_hdr(msg), sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL);
	if (ret < 0)
		return cni_nl_errno(ret);
	if (!tb[IFLA_VFINFO_LIST])
		return 0;
	nla_for_each_nested(a, tb[IFLA_VFINFO_LIST], rem) {
		if (nla_type(a) != IFLA_VF_INFO)
			continue;
		if (n == max)
			return -ENOBUFS;
		ret = vf_info_parse(a, &vfs[n]);
		if (ret)
			return ret;
		n++;
	}
	return (int)n;
}

struct link_reply {
	struct cni_link *link;
	struct cni_vf *vfs;
	size_t n_vfs;
	bool want_vfs;
};

static int link_parse(struct nl_msg *msg, void *arg)
{
	struct link_reply *r = arg;
	struct nlattr *tb[IFLA_MAX + 1];
	struct ifinfomsg *ifi = nlmsg_data(nlmsg_hdr(msg));
	struct cni_link *l = r->link;
	int ret;

	if (nlmsg_hdr(msg)->nlmsg_type != RTM_NEWLINK)
		return 0;
	ret = nlmsg_parse(nlmsg_hdr(msg), sizeof(*ifi), tb, IFLA_MAX, NULL);
	if (ret < 0)
		return cni_nl_errno(ret);
	memset(l, 0, sizeof(*l));
	l->ifindex = ifi->ifi_index;
	l->type = ifi->ifi_type;
	l->flags = ifi->ifi_flags;
	l->num_vf = -1;
	if (tb[IFLA_IFNAME])
		nla_strlcpy(l->name, tb[IFLA_IFNAME], sizeof(l->name));
	if (tb[IFLA_MTU])
		l->mtu = nla_get_u32(tb[IFLA_MTU]);
	if (tb[IFLA_NUM_VF])
		l->num_vf = (int)nla_get_u32(tb[IFLA_NUM_VF]);
	if (tb[IFLA_ADDRESS] && nla_len(tb[IFLA_ADDRESS]) <= CNI_MAC_MAX) {
		l->mac_len = (unsigned int)nla_len(tb[IFLA_ADDRESS]);
		memcpy(l->mac, nla_data(tb[IFLA_ADDRESS]), l->mac_len);
	}
	if (tb[IFLA_LINKINFO]) {
		struct nlattr *li[IFLA_INFO_MAX + 1], *ib[IFLA_IPOIB_MAX + 1];

		if (nla_parse_nested(li, IFLA_INFO_MAX, tb[IFLA_LINKINFO], NULL) == 0 &&
		    li[IFLA_INFO_KIND])
			nla_strlcpy(l->kind, li[IFLA_INFO_KIND], sizeof(l->kind));
		if (!strcmp(l->kind, "ipoib") && li[IFLA_INFO_DATA] &&
		    nla_parse_nested(ib, IFLA_IPOIB_MAX, li[IFLA_INFO_DATA], NULL) == 0) {
			l->ipoib = true;
			if (ib[IFLA_IPOIB_PKEY])
				l->pkey = nla_get_u16(ib[IFLA_IPOIB_PKEY]);
			if (ib[IFLA_IPOIB_MODE])
				l->ipoib_mode = nla_get_u16(ib[IFLA_IPOIB_MODE]);
		}
	}
	if (r->want_vfs && l->num_vf > 0) {
		r->vfs = calloc((size_t)l->num_vf, sizeof(*r->vfs));
		if (!r->vfs)
			return -ENOMEM;
		ret = cni_link_vfs_parse(msg, r->vfs, (size_t)l->num_vf);
		if (ret < 0)
			return ret;
		r->n_vfs = (size_t)ret;
	}
	return 0;
}

static int link_query(const char *name, int ifindex, struct link_reply *r)
{
	_cleanup_nl_msg_ struct nl_msg *msg = link_msg(RTM_GETLINK, NLM_F_ACK, ifindex);
	int ret;

	if (!msg)
		return -ENOMEM;
	if (!ifindex) {
		if (!name || strlen(name) >= IFNAMSIZ)
			return -ENAMETOOLONG;
		if (nla_put_string(msg, IFLA_IFNAME, name) < 0)
			return -ENOMEM;
	}
	if (nla_put_u32(msg, IFLA_EXT_MASK, r->want_vfs ? RTEXT_FILTER_VF : 0) < 0)
		return -ENOMEM;
	r->link->ifindex = 0;
	ret = route_talk(msg, link_parse, r);
	if (!ret && !r->link->ifindex)
		return -ENODEV;
	return ret;
}

int cni_link_get(const char *name, int ifindex, struct cni_link *link)
{
	struct link_reply r = { .link = link };

	return link_query(name, ifindex, &r);
}

int cni_link_vfs_get(int pf_ifindex, struct cni_vf **vfs, size_t *n)
{
	struct cni_link link;
	struct link_reply r = { .link = &link, .want_vfs = true };
	int ret;

	*vfs = NULL;
	*n = 0;
	ret = link_query(NULL, pf_ifindex, &r);
	if (ret) {
		free(r.vfs);
		return ret;
	}
	*vfs = r.vfs;
	*n = r.n_vfs;
	return 0;
}

/* --- changing links --- */

static int link_change(int ifindex, unsigned int flags, unsigned int change,
		       int attr, const void *data, size_t len)
{
	_cleanup_nl_msg_ struct nl_msg *msg = link_msg(RTM_NEWLINK, NLM_F_ACK, ifindex);
	struct ifinfomsg *ifi;

	if (!msg)
		return -ENOMEM;
	ifi = nlmsg_data(nlmsg_hdr(msg));
	ifi->ifi_flags = flags;
	ifi->ifi_change = change;
	if (attr && nla_put(msg, attr, (int)len, data) < 0)
		return -ENOMEM;
	return route_talk(msg, NULL, NULL);
}

int cni_link_set_up(int ifindex, bool up)
{
	return link_change(ifindex, up ? IFF_UP : 0, IFF_UP, 0, NULL, 0);
}

int cni_link_rename(int ifindex, const char *name)
{
	if (strlen(name) >= IFNAMSIZ)
		return -ENAMETOOLONG;
	return link_change(ifindex, 0, 0, IFLA_IFNAME, name, strlen(name) + 1);
}

int cni_link_set_mtu(int ifindex, unsigned int mtu)
{
	uint32_t v = mtu;

	return link_change(ifindex, 0, 0, IFLA_MTU, &v, sizeof(v));
}

int cni_link_set_mac(int ifindex, const unsigned char *mac, size_t len)
{
	if (!len || len > CNI_MAC_MAX)
		return -EINVAL;
	return link_change(ifindex, 0, 0, IFLA_ADDRESS, mac, len);
}

int cni_link_move(int ifindex, int netns_fd)
{
	uint32_t fd = (uint32_t)netns_fd;

	return link_change(ifindex, 0, 0, IFLA_NET_NS_FD, &fd, sizeof(fd));
}

int cni_link_ipoib_msg(int parent, const char *name, uint16_t pkey, uint16_t mode,
		       struct nl_msg **out)
{
	_cleanup_nl_msg_ struct nl_msg *msg =
		link_msg(RTM_NEWLINK, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, 0);
	struct nlattr *info, *data;

	*out = NULL;
	if (!msg)
		return -ENOMEM;
	if (strlen(name) >= IFNAMSIZ)
		return -ENAMETOOLONG;
	if (nla_put_string(msg, IFLA_IFNAME, name) < 0 ||
	    nla_put_u32(msg, IFLA_LINK, (uint32_t)parent) < 0 ||
	    !(info = nla_nest_start(msg, IFLA_LINKINFO)) ||
	    nla_put_string(msg, IFLA_INFO_KIND, "ipoib") < 0 ||
	    !(data = nla_nest_start(msg, IFLA_INFO_DATA)) ||
	    nla_put_u16(msg, IFLA_IPOIB_PKEY, pkey) < 0 ||
	    nla_put_u16(msg, IFLA_IPOIB_MODE, mode) < 0)
		return -ENOMEM;
	nla_nest_end(msg, data);
	nla_nest_end(msg, info);
	*out = steal_ptr(msg);
	return 0;
}

int cni_link_ipoib_add(int parent, const char *name, uint16_t pkey, uint16_t mode)
{
	_cleanup_nl_msg_ struct nl_msg *msg = NULL;
	int ret = cni_link_ipoib_msg(parent, name, pkey, mode, &msg);

	return ret ? ret : route_talk(msg, NULL, NULL);
}

int cni_link_delete(int ifindex)
{
	_cleanup_nl_msg_ struct nl_msg *msg = link_msg(RTM_DELLINK, NLM_F_ACK, ifindex);

	return msg ? route_talk(msg, NULL, NULL) : -ENOMEM;
}

/* --- VF settings on the PF --- */

static int vf_put(struct nl_msg *msg, const struct cni_vf *vf)
{
	struct nlattr *list, *info;
	int ret = 0;

	list = nla_nest_start(msg, IFLA_VFINFO_LIST);
	info = list ? nla_nest_start(msg, IFLA_VF_INFO) : NULL;
	if (!info)
		return -ENOMEM;
	if (vf->mask & CNI_VF_MAC) {
		struct ifla_vf_mac m;

		/* Zeroed whole: padding must not carry stack bytes to the kernel. */
		memset(&m, 0, sizeof(m));
		m.vf = vf->vf;
		memcpy(m.mac, vf->mac, 6);
		ret = nla_put(msg, IFLA_VF_MAC, sizeof(m), &m);
	}
	if (!ret && (vf->mask & CNI_VF_VLAN)) {
		if (vf->vlan_proto && vf->vlan_proto != ETH_P_8021Q) {
			struct ifla_vf_vlan_info v;
			struct nlattr *vl;

			memset(&v, 0, sizeof(v));
			v.vf = vf->vf;
			v.vlan = vf->vlan;
			v.qos = vf->qos;
			v.vlan_proto = htons(vf->vlan_proto);
			vl = nla_nest_start(msg, IFLA_VF_VLAN_LIST);

			ret = vl ? nla_put(msg, IFLA_VF_VLAN_INFO, sizeof(v), &v) : -NLE_NOMEM;
			if (!ret)
				nla_nest_end(msg, vl);
		} else {
			struct ifla_vf_vlan v = { .vf = vf->vf, .vlan = vf->vlan, .qos = vf->qos };

			ret = nla_put(msg, IFLA_VF_VLAN, sizeof(v), &v);
		}
	}
	if (!ret && (vf->mask & CNI_VF_RATE)) {
		struct ifla_vf_rate r = { .vf = vf->vf, .min_tx_rate = vf->min_tx_rate,
					  .max_tx_rate = vf->max_tx_rate };

		ret = nla_put(msg, IFLA_VF_RATE, sizeof(r), &r);
	}
	if (!ret && (vf->mask & CNI_VF_SPOOFCHK)) {
		struct ifla_vf_spoofchk s = { .vf = vf->vf, .setting = vf->spoofchk };

		ret = nla_put(msg, IFLA_VF_SPOOFCHK, sizeof(s), &s);
	}
	if (!ret && (vf->mask & CNI_VF_TRUST)) {
		struct ifla_vf_trust t = { .vf = vf->vf, .setting = vf->trust };

		ret = nla_put(msg, IFLA_VF_TRUST, sizeof(t), &t);
	}
	if (!ret && (vf->mask & CNI_VF_LINK_STATE)) {
		struct ifla_vf_link_state l = { .vf = vf->vf, .link_state = vf->link_state };

		ret = nla_put(msg, IFLA_VF_LINK_STATE, sizeof(l), &l);
	}
	if (!ret && (vf->mask & CNI_VF_NODE_GUID)) {
		struct ifla_vf_guid g;

		memset(&g, 0, sizeof(g));
		g.vf = vf->vf;
		g.guid = vf->node_guid;

		ret = nla_put(msg, IFLA_VF_IB_NODE_GUID, sizeof(g), &g);
	}
	if (!ret && (vf->mask & CNI_VF_PORT_GUID)) {
		struct ifla_vf_guid g;

		memset(&g, 0, sizeof(g));
		g.vf = vf->vf;
		g.guid = vf->port_guid;

		ret = nla_put(msg, IFLA_VF_IB_PORT_GUID, sizeof(g), &g);
	}
	if (ret)
		return cni_nl_errno(ret);
	nla_nest_end(msg, info);
	nla_nest_end(msg, list);
	return 0;
}

int cni_link_vf_msg(int pf_ifindex, const struct cni_vf *vf, struct nl_msg **out)
{
	_cleanup_nl_msg_ struct nl_msg *msg = link_msg(RTM_NEWLINK, NLM_F_ACK, pf_ifindex);
	int ret;

	*out = NULL;
	if (!msg)
		return -ENOMEM;
	if (!vf->mask)
		return -EINVAL;
	ret = vf_put(msg, vf);
	if (ret)
		return ret;
	*out = steal_ptr(msg);
	return 0;
}

int cni_link_vf_set(int pf_ifindex, const struct cni_vf *vf)
{
	_cleanup_nl_msg_ struct nl_msg *msg = NULL;
	int ret = cni_link_vf_msg(pf_ifindex, vf, &msg);

	if (ret)
		return ret;
	return route_talk(msg, NULL, NULL);
}

/* --- addresses and routes (libnl-route objects) --- */

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
	return route_talk(msg, NULL, NULL);
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
	return route_talk(msg, NULL, NULL);
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
	ret = route_talk(msg, addr_parse, &m);
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
	ret = route_talk(msg, route_parse, &m);
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
		ret = route_talk(msg, dad_parse, &d);
		if (ret || !d.tentative)
			return ret;
		if (now_ms() >= deadline)
			return -ETIMEDOUT;
		sleep_ms(50);
	}
}
