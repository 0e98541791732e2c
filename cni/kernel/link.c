// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "kernel/link.h"
#include "kernel/link_nl.h"
#include "kernel/nl.h"
#include "base/util.h"

struct nl_msg *cni_link_req(int type, int flags, int family, size_t hdrlen)
{
	struct nl_msg *msg;
	unsigned char *hdr;

	/* Changes are acked; a GET (rtnetlink's kind 2, as the kernel tells
	 * them apart) is answered by its reply or an error, one read. NLM_F_DUMP's
	 * bits overlap NLM_F_EXCL's: compare all of them. */
	if ((flags & NLM_F_DUMP) != NLM_F_DUMP && (type & 3) != 2)
		flags |= NLM_F_ACK;
	msg = nlmsg_alloc_simple(type, flags | NLM_F_REQUEST);
	if (!msg)
		return NULL;
	hdr = nlmsg_reserve(msg, hdrlen, NLMSG_ALIGNTO);
	if (!hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	/* nlmsg_reserve zeroes the padding only; the header is ours to clear. */
	memset(hdr, 0, hdrlen);
	hdr[0] = (unsigned char)family;
	return msg;
}

struct nl_msg *cni_link_msg(int type, int flags, int ifindex)
{
	struct nl_msg *msg = cni_link_req(type, flags, AF_UNSPEC, sizeof(struct ifinfomsg));

	if (msg)
		((struct ifinfomsg *)nlmsg_data(nlmsg_hdr(msg)))->ifi_index = ifindex;
	return msg;
}

/* Fault injection for the rollback tests: IBCNI_LINK_FAILPOINT=N makes the
 * Nth change request of this process fail with EIO before it is sent. */
static bool failpoint(void)
{
	static int64_t n = -1;
	static int64_t seen;
	const char *s;
	uint64_t v;

	if (n < 0) {
		s = getenv("IBCNI_LINK_FAILPOINT");
		n = s && !parse_u64(s, 10, 1000000, &v) ? (int64_t)v : 0;
	}
	return n > 0 && ++seen == n;
}

int cni_link_talk(struct cni_sys *sys, struct nl_msg *msg, cni_nl_parse_fn parse, void *arg)
{
	int type = nlmsg_hdr(msg)->nlmsg_type;

	if (type != RTM_GETLINK && type != RTM_GETADDR && type != RTM_GETROUTE && failpoint())
		return -EIO;
	return cni_nl_request(sys, NETLINK_ROUTE, msg, parse, arg);
}

/* --- reading links --- */

static const struct nla_policy link_policy[CNI_IFLA_MAX + 1] = {
    [IFLA_IFNAME] = {.type = NLA_STRING, .maxlen = IFNAMSIZ},
    [IFLA_MTU] = {.type = NLA_U32},
    [IFLA_IFALIAS] = {.type = NLA_STRING, .maxlen = CNI_IFALIASZ},
    [IFLA_GROUP] = {.type = NLA_U32},
    [IFLA_TXQLEN] = {.type = NLA_U32},
    [IFLA_GSO_MAX_SIZE] = {.type = NLA_U32},
    [IFLA_GSO_MAX_SEGS] = {.type = NLA_U32},
    [IFLA_GRO_MAX_SIZE] = {.type = NLA_U32},
    [CNI_IFLA_GSO_IPV4_MAX_SIZE] = {.type = NLA_U32},
    [CNI_IFLA_GRO_IPV4_MAX_SIZE] = {.type = NLA_U32},
    [IFLA_PROP_LIST] = {.type = NLA_NESTED},
    [IFLA_NUM_VF] = {.type = NLA_U32},
    [IFLA_ADDRESS] = {.maxlen = CNI_MAC_MAX},
    [IFLA_LINKINFO] = {.type = NLA_NESTED},
    [IFLA_VFINFO_LIST] = {.type = NLA_NESTED},
};

static const struct nla_policy linkinfo_policy[IFLA_INFO_MAX + 1] = {
    [IFLA_INFO_KIND] = {.type = NLA_STRING},
    [IFLA_INFO_DATA] = {.type = NLA_NESTED},
};

static const struct nla_policy ipoib_policy[IFLA_IPOIB_MAX + 1] = {
    [IFLA_IPOIB_PKEY] = {.type = NLA_U16},
    [IFLA_IPOIB_MODE] = {.type = NLA_U16},
};

static int linkinfo_parse(struct nlattr *info, struct cni_link *l)
{
	struct nlattr *li[IFLA_INFO_MAX + 1], *ib[IFLA_IPOIB_MAX + 1];
	int ret = cni_nl_parse_nested(info, li, IFLA_INFO_MAX, linkinfo_policy);

	if (ret)
		return ret;
	if (li[IFLA_INFO_KIND])
		nla_strlcpy(l->kind, li[IFLA_INFO_KIND], sizeof(l->kind));
	if (strcmp(l->kind, "ipoib") || !li[IFLA_INFO_DATA])
		return 0;
	ret = cni_nl_parse_nested(li[IFLA_INFO_DATA], ib, IFLA_IPOIB_MAX, ipoib_policy);
	if (ret)
		return ret;
	l->ipoib = true;
	if (ib[IFLA_IPOIB_PKEY])
		l->pkey = nla_get_u16(ib[IFLA_IPOIB_PKEY]);
	if (ib[IFLA_IPOIB_MODE])
		l->ipoib_mode = nla_get_u16(ib[IFLA_IPOIB_MODE]);
	return 0;
}

/* The u32 attributes DEL restores, and where they go. */
static const struct {
	int attr;
	uint32_t bit;
	size_t off;
} u32_attrs[] = {
    {IFLA_GROUP, CNI_LINK_A_GROUP, offsetof(struct cni_link_attrs, group)},
    {IFLA_TXQLEN, CNI_LINK_A_TXQLEN, offsetof(struct cni_link_attrs, txqlen)},
    {IFLA_GSO_MAX_SIZE, CNI_LINK_A_GSO_MAX_SIZE, offsetof(struct cni_link_attrs, gso_max_size)},
    {IFLA_GSO_MAX_SEGS, CNI_LINK_A_GSO_MAX_SEGS, offsetof(struct cni_link_attrs, gso_max_segs)},
    {IFLA_GRO_MAX_SIZE, CNI_LINK_A_GRO_MAX_SIZE, offsetof(struct cni_link_attrs, gro_max_size)},
    {CNI_IFLA_GSO_IPV4_MAX_SIZE, CNI_LINK_A_GSO_IPV4_MAX_SIZE,
     offsetof(struct cni_link_attrs, gso_ipv4_max_size)},
    {CNI_IFLA_GRO_IPV4_MAX_SIZE, CNI_LINK_A_GRO_IPV4_MAX_SIZE,
     offsetof(struct cni_link_attrs, gro_ipv4_max_size)},
};

int cni_link_u32_attr(uint32_t bit, int *attr, size_t *off)
{
	for (size_t i = 0; i < ARRAY_SIZE(u32_attrs); i++)
		if (u32_attrs[i].bit == bit) {
			*attr = u32_attrs[i].attr;
			*off = u32_attrs[i].off;
			return 0;
		}
	return -EINVAL;
}

static void attrs_parse(struct nlattr **tb, unsigned int ifi_flags, struct cni_link *l)
{
	struct cni_link_attrs *a = &l->attrs;
	struct nlattr *pos;
	int rem;

	a->mask = CNI_LINK_A_ALIAS | CNI_LINK_A_FLAGS;
	a->flags = ifi_flags & CNI_LINK_RESTORED_FLAGS;
	if (tb[IFLA_IFALIAS])
		nla_strlcpy(a->alias, tb[IFLA_IFALIAS], sizeof(a->alias));
	for (size_t i = 0; i < ARRAY_SIZE(u32_attrs); i++)
		if (tb[u32_attrs[i].attr]) {
			*(uint32_t *)(void *)((char *)a + u32_attrs[i].off) =
			    nla_get_u32(tb[u32_attrs[i].attr]);
			a->mask |= u32_attrs[i].bit;
		}
	if (tb[IFLA_PROP_LIST])
		nla_for_each_nested (pos, tb[IFLA_PROP_LIST], rem)
			l->n_altnames += nla_type(pos) == IFLA_ALT_IFNAME;
}

int cni_link_parse(struct nl_msg *msg, struct cni_link *l)
{
	struct nlattr *tb[CNI_IFLA_MAX + 1];
	struct ifinfomsg *ifi = nlmsg_data(nlmsg_hdr(msg));
	int ret;

	if (nlmsg_hdr(msg)->nlmsg_type != RTM_NEWLINK)
		return -EPROTO;
	ret = cni_nl_parse(msg, sizeof(*ifi), tb, CNI_IFLA_MAX, link_policy);
	if (ret)
		return ret;
	memset(l, 0, sizeof(*l));
	attrs_parse(tb, ifi->ifi_flags, l);
	l->ifindex = ifi->ifi_index;
	l->type = ifi->ifi_type;
	l->flags = ifi->ifi_flags;
	l->num_vf = -1;
	if (tb[IFLA_IFNAME])
		nla_strlcpy(l->name, tb[IFLA_IFNAME], sizeof(l->name));
	if (tb[IFLA_MTU])
		l->mtu = nla_get_u32(tb[IFLA_MTU]);
	/* The device behind the netdev, which a pod cannot forge (5.16+). */
	if (tb[IFLA_PARENT_DEV_BUS_NAME] && tb[IFLA_PARENT_DEV_NAME]) {
		nla_strlcpy(l->parent_bus, tb[IFLA_PARENT_DEV_BUS_NAME], sizeof(l->parent_bus));
		nla_strlcpy(l->parent_dev, tb[IFLA_PARENT_DEV_NAME], sizeof(l->parent_dev));
	}
	if (tb[IFLA_LINK])
		l->iflink = (int)nla_get_u32(tb[IFLA_LINK]);
	l->iflink_elsewhere = tb[IFLA_LINK_NETNSID] != NULL;
	if (tb[IFLA_NUM_VF])
		l->num_vf = (int)nla_get_u32(tb[IFLA_NUM_VF]);
	if (tb[IFLA_ADDRESS]) {
		l->mac_len = (unsigned int)nla_len(tb[IFLA_ADDRESS]);
		memcpy(l->mac, nla_data(tb[IFLA_ADDRESS]), l->mac_len);
	}
	return tb[IFLA_LINKINFO] ? linkinfo_parse(tb[IFLA_LINKINFO], l) : 0;
}

static int link_parse(struct nl_msg *msg, void *arg)
{
	struct cni_link_reply *r = arg;
	int ret = cni_link_parse(msg, r->link);

	if (ret || !r->more)
		return ret;
	return r->more(msg, r);
}

int cni_link_query(struct cni_sys *sys, const char *name, int ifindex, struct cni_link_reply *r)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_link_msg(RTM_GETLINK, 0, ifindex);
	int ret;

	if (!msg)
		return -ENOMEM;
	if (!ifindex) {
		if (!name || strlen(name) >= IFNAMSIZ)
			return -ENAMETOOLONG;
		if (nla_put_string(msg, IFLA_IFNAME, name) < 0)
			return -ENOMEM;
	}
	if (nla_put_u32(msg, IFLA_EXT_MASK, r->ext_mask) < 0)
		return -ENOMEM;
	r->link->ifindex = 0;
	ret = cni_link_talk(sys, msg, link_parse, r);
	if (!ret && !r->link->ifindex)
		return -ENODEV;
	return ret;
}

int cni_link_get(struct cni_sys *sys, const char *name, int ifindex, struct cni_link *link)
{
	struct cni_link_reply r = {.link = link};

	return cni_link_query(sys, name, ifindex, &r);
}

int cni_link_find_mac(struct cni_sys *sys, const unsigned char *mac, unsigned int len,
		      const char *want, char name[IFNAMSIZ])
{
	struct if_nameindex *list = if_nameindex(), *p;
	int ret = -ENODEV, seen = 0;

	if (!list)
		return -errno;
	/* The pod may create links: a bounded look, whatever it made. */
	for (p = list; p->if_index && seen++ < 4096; p++) {
		struct cni_link l;

		if (cni_link_get(sys, NULL, (int)p->if_index, &l) || l.mac_len != len ||
		    memcmp(l.mac, mac, len))
			continue;
		if (ret || (want && !strcmp(l.name, want))) {
			copy_str(name, IFNAMSIZ, l.name);
			ret = 0;
		}
	}
	if_freenameindex(list);
	return ret;
}

/* What a link dump counts: the links with one hardware address. */
struct mac_count {
	const unsigned char *mac;
	unsigned int len, n;
};

static int mac_count_parse(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CNI_IFLA_MAX + 1];
	struct mac_count *c = arg;
	int ret;

	if (nlmsg_hdr(msg)->nlmsg_type != RTM_NEWLINK)
		return -EPROTO;
	ret = cni_nl_parse(msg, sizeof(struct ifinfomsg), tb, CNI_IFLA_MAX, link_policy);
	if (ret)
		return ret;
	if (tb[IFLA_ADDRESS] && (unsigned int)nla_len(tb[IFLA_ADDRESS]) == c->len &&
	    !memcmp(nla_data(tb[IFLA_ADDRESS]), c->mac, c->len))
		c->n++;
	return 0;
}

int cni_link_count_mac(struct cni_sys *sys, const unsigned char *mac, unsigned int len,
		       unsigned int *n)
{
	_cleanup_nl_msg_ struct nl_msg *msg =
	    cni_link_req(RTM_GETLINK, NLM_F_DUMP, AF_UNSPEC, sizeof(struct ifinfomsg));
	struct mac_count c = {.mac = mac, .len = len};
	int ret;

	if (!msg)
		return -ENOMEM;
	/* No VF lists: a PF's would make each reply large. */
	if (nla_put_u32(msg, IFLA_EXT_MASK, 0) < 0)
		return -ENOMEM;
	ret = cni_link_talk(sys, msg, mac_count_parse, &c);
	*n = c.n;
	return ret;
}

/* --- changing links --- */

/* One RTM_NEWLINK for ifindex with the ifinfomsg flags and change, and
 * attr (0: none) with len bytes of data. */
static int link_change(struct cni_sys *sys, int ifindex, const struct ifinfomsg *hdr, int attr,
		       const void *data, size_t len)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_link_msg(RTM_NEWLINK, 0, ifindex);
	struct ifinfomsg *ifi;

	if (!msg)
		return -ENOMEM;
	ifi = nlmsg_data(nlmsg_hdr(msg));
	ifi->ifi_flags = hdr->ifi_flags;
	ifi->ifi_change = hdr->ifi_change;
	if (attr && nla_put(msg, attr, (int)len, data) < 0)
		return -ENOMEM;
	return cni_link_talk(sys, msg, NULL, NULL);
}

int cni_link_change_flags(struct cni_sys *sys, int ifindex, unsigned int flags, unsigned int change)
{
	struct ifinfomsg hdr = {.ifi_flags = flags, .ifi_change = change};

	return link_change(sys, ifindex, &hdr, 0, NULL, 0);
}

int cni_link_change_attr(struct cni_sys *sys, int ifindex, int attr, const void *data, size_t len)
{
	struct ifinfomsg hdr = {0};

	return link_change(sys, ifindex, &hdr, attr, data, len);
}

int cni_link_set_up(struct cni_sys *sys, int ifindex, bool up)
{
	return cni_link_change_flags(sys, ifindex, up ? IFF_UP : 0, IFF_UP);
}

int cni_link_rename(struct cni_sys *sys, int ifindex, const char *name)
{
	if (strlen(name) >= IFNAMSIZ)
		return -ENAMETOOLONG;
	return cni_link_change_attr(sys, ifindex, IFLA_IFNAME, name, strlen(name) + 1);
}

int cni_link_set_mtu(struct cni_sys *sys, int ifindex, unsigned int mtu)
{
	uint32_t v = mtu;

	return cni_link_change_attr(sys, ifindex, IFLA_MTU, &v, sizeof(v));
}

int cni_link_set_mac(struct cni_sys *sys, int ifindex, const unsigned char *mac, size_t len)
{
	if (!len || len > CNI_MAC_MAX)
		return -EINVAL;
	return cni_link_change_attr(sys, ifindex, IFLA_ADDRESS, mac, len);
}

int cni_link_notify_peers(struct cni_sys *sys, const struct cni_link *link)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_link_msg(RTM_NEWLINK, 0, link->ifindex);

	if (!msg)
		return -ENOMEM;
	if (!link->mac_len || link->mac_len > CNI_MAC_MAX)
		return -EINVAL;
	if (nla_put(msg, IFLA_ADDRESS, (int)link->mac_len, link->mac) < 0)
		return -ENOMEM;
	return cni_nl_request(sys, NETLINK_ROUTE, msg, NULL, NULL);
}

int cni_link_move(struct cni_sys *sys, int ifindex, int netns_fd)
{
	uint32_t fd = (uint32_t)netns_fd;

	return cni_link_change_attr(sys, ifindex, IFLA_NET_NS_FD, &fd, sizeof(fd));
}

int cni_link_ipoib_msg(int parent, const char *name, uint16_t pkey, uint16_t mode,
		       struct nl_msg **out)
{
	_cleanup_nl_msg_ struct nl_msg *msg =
	    cni_link_msg(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, 0);
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

int cni_link_ipoib_add(struct cni_sys *sys, int parent, const char *name, uint16_t pkey,
		       uint16_t mode)
{
	_cleanup_nl_msg_ struct nl_msg *msg = NULL;
	int ret = cni_link_ipoib_msg(parent, name, pkey, mode, &msg);

	return ret ? ret : cni_link_talk(sys, msg, NULL, NULL);
}

int cni_link_delete(struct cni_sys *sys, int ifindex)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_link_msg(RTM_DELLINK, 0, ifindex);

	return msg ? cni_link_talk(sys, msg, NULL, NULL) : -ENOMEM;
}
