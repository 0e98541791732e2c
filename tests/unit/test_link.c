// SPDX-License-Identifier: Apache-2.0
/* VF-settings messages built by cni/kernel/link.c, decoded with libnl's parser. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "helpers.h"
#include "kernel/link.h"

/* Parse the single IFLA_VF_INFO nest of a request into tb. */
static void vf_attrs(struct nl_msg *msg, struct nlattr *tb[IFLA_VF_MAX + 1], int ifindex)
{
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct ifinfomsg *ifi = nlmsg_data(h);
	struct nlattr *top[IFLA_MAX + 1], *info;
	int rem, n = 0;

	cr_assert_eq(h->nlmsg_type, RTM_NEWLINK);
	cr_assert_eq(h->nlmsg_flags & (NLM_F_REQUEST | NLM_F_ACK), NLM_F_REQUEST | NLM_F_ACK);
	cr_assert_eq(h->nlmsg_flags & (NLM_F_CREATE | NLM_F_EXCL), 0, "a set must not create");
	cr_assert_eq(ifi->ifi_index, ifindex);
	cr_assert_eq(ifi->ifi_family, AF_UNSPEC);
	cr_assert_eq(nlmsg_parse(h, sizeof(*ifi), top, IFLA_MAX, NULL), 0);
	cr_assert_not_null(top[IFLA_VFINFO_LIST]);
	nla_for_each_nested (info, top[IFLA_VFINFO_LIST], rem) {
		cr_assert_eq(nla_type(info), IFLA_VF_INFO);
		cr_assert_eq(nla_parse_nested(tb, IFLA_VF_MAX, info, NULL), 0);
		n++;
	}
	cr_assert_eq(n, 1, "one IFLA_VF_INFO per request, as iproute2 sends");
}

Test(link, ethernet_vf_message_attribute_by_attribute)
{
	struct cni_vf vf = {
	    .vf = 3,
	    .mask = CNI_VF_MAC | CNI_VF_VLAN | CNI_VF_RATE | CNI_VF_SPOOFCHK | CNI_VF_TRUST |
		    CNI_VF_LINK_STATE,
	    .mac = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55},
	    .vlan = 100,
	    .qos = 3,
	    .vlan_proto = ETH_P_8021Q,
	    .min_tx_rate = 100,
	    .max_tx_rate = 1000,
	    .spoofchk = 0,
	    .trust = 1,
	    .link_state = IFLA_VF_LINK_STATE_ENABLE,
	};
	struct nlattr *tb[IFLA_VF_MAX + 1];
	struct nl_msg *msg;

	cr_assert_eq(cni_link_vf_msg(7, &vf, &msg), 0);
	vf_attrs(msg, tb, 7);
	struct ifla_vf_mac *mac = nla_data(tb[IFLA_VF_MAC]);
	struct ifla_vf_vlan *vlan = nla_data(tb[IFLA_VF_VLAN]);
	struct ifla_vf_rate *rate = nla_data(tb[IFLA_VF_RATE]);
	struct ifla_vf_spoofchk *sc = nla_data(tb[IFLA_VF_SPOOFCHK]);
	struct ifla_vf_trust *tr = nla_data(tb[IFLA_VF_TRUST]);
	struct ifla_vf_link_state *ls = nla_data(tb[IFLA_VF_LINK_STATE]);

	cr_assert_eq(nla_len(tb[IFLA_VF_MAC]), sizeof(*mac));
	cr_assert_eq(mac->vf, 3);
	cr_assert_arr_eq(mac->mac, vf.mac, 6);
	cr_assert_eq(nla_len(tb[IFLA_VF_VLAN]), sizeof(*vlan));
	cr_assert(vlan->vf == 3 && vlan->vlan == 100 && vlan->qos == 3);
	cr_assert_null(tb[IFLA_VF_VLAN_LIST], "802.1Q goes as IFLA_VF_VLAN like iproute2");
	cr_assert(rate->vf == 3 && rate->min_tx_rate == 100 && rate->max_tx_rate == 1000);
	cr_assert(sc->vf == 3 && sc->setting == 0);
	cr_assert(tr->vf == 3 && tr->setting == 1);
	cr_assert(ls->vf == 3 && ls->link_state == IFLA_VF_LINK_STATE_ENABLE);
	cr_assert_null(tb[IFLA_VF_IB_NODE_GUID]);
	cr_assert_null(tb[IFLA_VF_TX_RATE]);
	nlmsg_free(msg);
}

Test(link, qinq_vlan_uses_vlan_list)
{
	struct cni_vf vf = {
	    .vf = 1, .mask = CNI_VF_VLAN, .vlan = 4094, .qos = 7, .vlan_proto = ETH_P_8021AD};
	struct nlattr *tb[IFLA_VF_MAX + 1], *vi[IFLA_VF_VLAN_INFO_MAX + 1];
	struct nl_msg *msg;

	cr_assert_eq(cni_link_vf_msg(2, &vf, &msg), 0);
	vf_attrs(msg, tb, 2);
	cr_assert_null(tb[IFLA_VF_VLAN]);
	cr_assert_not_null(tb[IFLA_VF_VLAN_LIST]);
	cr_assert_eq(nla_parse_nested(vi, IFLA_VF_VLAN_INFO_MAX, tb[IFLA_VF_VLAN_LIST], NULL), 0);
	struct ifla_vf_vlan_info *v = nla_data(vi[IFLA_VF_VLAN_INFO]);

	cr_assert(v->vf == 1 && v->vlan == 4094 && v->qos == 7);
	cr_assert_eq(v->vlan_proto, htons(ETH_P_8021AD), "protocol in network order");
	nlmsg_free(msg);
}

Test(link, infiniband_guids)
{
	struct cni_vf vf = {.vf = 0,
			    .mask = CNI_VF_NODE_GUID | CNI_VF_PORT_GUID | CNI_VF_LINK_STATE,
			    .node_guid = 0x0011223344556677ULL,
			    .port_guid = 0x8899aabbccddeeffULL,
			    .link_state = IFLA_VF_LINK_STATE_AUTO};
	struct nlattr *tb[IFLA_VF_MAX + 1];
	struct nl_msg *msg;

	cr_assert_eq(cni_link_vf_msg(9, &vf, &msg), 0);
	vf_attrs(msg, tb, 9);
	struct ifla_vf_guid node, port; /* attributes are only 4-byte aligned */

	cr_assert_eq(nla_len(tb[IFLA_VF_IB_NODE_GUID]), sizeof(node));
	memcpy(&node, nla_data(tb[IFLA_VF_IB_NODE_GUID]), sizeof(node));
	memcpy(&port, nla_data(tb[IFLA_VF_IB_PORT_GUID]), sizeof(port));
	cr_assert(node.vf == 0 && node.guid == 0x0011223344556677ULL);
	cr_assert(port.vf == 0 && port.guid == 0x8899aabbccddeeffULL);
	cr_assert_null(tb[IFLA_VF_MAC], "nothing unrequested");
	nlmsg_free(msg);
}

Test(link, decode_round_trip)
{
	struct cni_vf in = {.vf = 5,
			    .mask = CNI_VF_MAC | CNI_VF_VLAN | CNI_VF_TRUST | CNI_VF_SPOOFCHK |
				    CNI_VF_RATE | CNI_VF_LINK_STATE | CNI_VF_NODE_GUID |
				    CNI_VF_PORT_GUID,
			    .mac = {2, 0, 0, 0, 0, 9},
			    .vlan = 10,
			    .qos = 1,
			    .vlan_proto = ETH_P_8021AD,
			    .trust = 1,
			    .spoofchk = 1,
			    .min_tx_rate = 1,
			    .max_tx_rate = 2,
			    .link_state = 2,
			    .node_guid = 1,
			    .port_guid = 2};
	struct cni_vf out[2];
	struct nl_msg *msg;

	cr_assert_eq(cni_link_vf_msg(1, &in, &msg), 0);
	cr_assert_eq(cni_link_vfs_parse(msg, out, 2), 1);
	cr_assert_eq(out[0].vf, in.vf);
	cr_assert_eq(out[0].mask, in.mask);
	cr_assert_arr_eq(out[0].mac, in.mac, 6);
	cr_assert(out[0].vlan == in.vlan && out[0].qos == in.qos &&
		  out[0].vlan_proto == in.vlan_proto);
	cr_assert(out[0].trust == 1 && out[0].spoofchk == 1 && out[0].link_state == 2);
	cr_assert(out[0].min_tx_rate == 1 && out[0].max_tx_rate == 2);
	cr_assert(out[0].node_guid == 1 && out[0].port_guid == 2);
	nlmsg_free(msg);
}

Test(link, empty_request_refused)
{
	struct cni_vf vf = {.vf = 0};
	struct nl_msg *msg;

	cr_assert_eq(cni_link_vf_msg(1, &vf, &msg), -EINVAL);
	cr_assert_null(msg);
}

Test(link, ipoib_child_message)
{
	struct nlattr *tb[IFLA_MAX + 1], *li[IFLA_INFO_MAX + 1], *ib[IFLA_IPOIB_MAX + 1];
	struct nl_msg *msg;
	struct nlmsghdr *h;

	cr_assert_eq(cni_link_ipoib_msg(12, "ibcni12", 0x8001, 1, &msg), 0);
	h = nlmsg_hdr(msg);
	cr_assert_eq(h->nlmsg_type, RTM_NEWLINK);
	cr_assert_eq(h->nlmsg_flags & (NLM_F_CREATE | NLM_F_EXCL), NLM_F_CREATE | NLM_F_EXCL);
	cr_assert_eq(nlmsg_parse(h, sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL), 0);
	cr_assert_str_eq(nla_get_string(tb[IFLA_IFNAME]), "ibcni12");
	cr_assert_eq(nla_get_u32(tb[IFLA_LINK]), 12);
	cr_assert_eq(nla_parse_nested(li, IFLA_INFO_MAX, tb[IFLA_LINKINFO], NULL), 0);
	cr_assert_str_eq(nla_get_string(li[IFLA_INFO_KIND]), "ipoib");
	cr_assert_eq(nla_parse_nested(ib, IFLA_IPOIB_MAX, li[IFLA_INFO_DATA], NULL), 0);
	cr_assert_eq(nla_get_u16(ib[IFLA_IPOIB_PKEY]), 0x8001);
	cr_assert_eq(nla_get_u16(ib[IFLA_IPOIB_MODE]), 1);
	nlmsg_free(msg);
	cr_assert_eq(cni_link_ipoib_msg(12, "0123456789abcdef", 0x8001, 0, &msg), -ENAMETOOLONG);
}

/* The route messages ib-sriov sends, split with libnl's own parser. */
Test(link, route_message_layout)
{
	struct cni_route def = {.dst = {.family = AF_INET, .len = 0},
				.gw = {.family = AF_INET, .a = {10, 5, 0, 1}},
				.has_table = true,
				.table = 100,
				.priority = 7};
	struct cni_route big = {.dst = {.family = AF_INET6, .a = {0xfd, 0, 0, 6}, .len = 48},
				.has_table = true,
				.table = 300,
				.mtu = 1400,
				.advmss = 1300};
	struct nlattr *tb[RTA_MAX + 1], *mx[RTAX_MAX + 1];
	struct nl_msg *msg = cni_link_route_msg(4, &def);
	struct rtmsg *rtm = nlmsg_data(nlmsg_hdr(msg));

	cr_assert_eq(nlmsg_hdr(msg)->nlmsg_flags,
		     NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL);
	cr_assert_eq(nlmsg_parse(nlmsg_hdr(msg), sizeof(*rtm), tb, RTA_MAX, NULL), 0);
	cr_assert(rtm->rtm_family == AF_INET && rtm->rtm_dst_len == 0 && rtm->rtm_table == 100);
	cr_assert(rtm->rtm_scope == RT_SCOPE_UNIVERSE && rtm->rtm_type == RTN_UNICAST &&
		  rtm->rtm_protocol == RTPROT_BOOT);
	cr_assert_null(tb[RTA_DST], "a default route has no RTA_DST, as iproute2 sends it");
	cr_assert_eq(nla_get_u32(tb[RTA_TABLE]), 100);
	cr_assert_eq(nla_get_u32(tb[RTA_PRIORITY]), 7);
	cr_assert_eq(nla_get_u32(tb[RTA_OIF]), 4);
	cr_assert_eq(nla_len(tb[RTA_GATEWAY]), 4);
	cr_assert_arr_eq(nla_data(tb[RTA_GATEWAY]), def.gw.a, 4);
	cr_assert_null(tb[RTA_METRICS]);
	nlmsg_free(msg);

	msg = cni_link_route_msg(5, &big);
	rtm = nlmsg_data(nlmsg_hdr(msg));
	cr_assert_eq(nlmsg_parse(nlmsg_hdr(msg), sizeof(*rtm), tb, RTA_MAX, NULL), 0);
	cr_assert_eq(rtm->rtm_table, RT_TABLE_UNSPEC, "table 300 only fits RTA_TABLE");
	cr_assert_eq(nla_get_u32(tb[RTA_TABLE]), 300);
	cr_assert_eq(rtm->rtm_scope, RT_SCOPE_LINK, "no gateway: on-link");
	cr_assert_eq(nla_len(tb[RTA_DST]), 16);
	cr_assert_arr_eq(nla_data(tb[RTA_DST]), big.dst.a, 16);
	cr_assert_null(tb[RTA_GATEWAY]);
	cr_assert_eq(nla_parse_nested(mx, RTAX_MAX, tb[RTA_METRICS], NULL), 0);
	cr_assert(nla_get_u32(mx[RTAX_MTU]) == 1400 && nla_get_u32(mx[RTAX_ADVMSS]) == 1300);
	nlmsg_free(msg);
}

/* A reply as the kernel would send it: header, then attributes. */
static struct nl_msg *reply(int type, const void *hdr, size_t len)
{
	struct nl_msg *msg = nlmsg_alloc_simple(type, 0);

	cr_assert_eq(nlmsg_append(msg, (void *)(uintptr_t)hdr, len, NLMSG_ALIGNTO), 0);
	return msg;
}

Test(link, link_reply_policy)
{
	struct ifinfomsg ifi = {.ifi_index = 9, .ifi_type = 32, .ifi_flags = 1};
	unsigned char gid[20] = {0x80, 0, 0, 0x48, 0xfe, 0x80};
	struct nl_msg *msg = reply(RTM_NEWLINK, &ifi, sizeof(ifi));
	struct nlattr *li, *data;
	struct cni_link l;

	nla_put_string(msg, IFLA_IFNAME, "ib0.8001");
	nla_put_u32(msg, IFLA_MTU, 2044);
	nla_put(msg, IFLA_ADDRESS, sizeof(gid), gid);
	li = nla_nest_start(msg, IFLA_LINKINFO);
	nla_put_string(msg, IFLA_INFO_KIND, "ipoib");
	data = nla_nest_start(msg, IFLA_INFO_DATA);
	nla_put_u16(msg, IFLA_IPOIB_PKEY, 0x8001);
	nla_put_u16(msg, IFLA_IPOIB_MODE, 1);
	nla_nest_end(msg, data);
	nla_nest_end(msg, li);
	nla_put_u32(msg, IFLA_MAX + 9, 1); /* from a newer kernel: skipped */
	cr_assert_eq(cni_link_parse(msg, &l), 0);
	cr_assert(l.ifindex == 9 && l.type == 32 && l.flags == 1 && l.mtu == 2044);
	cr_assert_str_eq(l.name, "ib0.8001");
	cr_assert_eq(l.mac_len, 20);
	cr_assert_arr_eq(l.mac, gid, 20);
	cr_assert(l.ipoib && l.pkey == 0x8001 && l.ipoib_mode == 1);
	cr_assert_eq(l.num_vf, -1);
	nlmsg_free(msg);

	/* Each malformed attribute is refused by the policy, not read past. */
	msg = reply(RTM_NEWLINK, &ifi, sizeof(ifi));
	nla_put(msg, IFLA_MTU, 2, "\x01\x02");
	cr_assert_eq(cni_link_parse(msg, &l), -EPROTO, "a 2-byte u32");
	nlmsg_free(msg);
	msg = reply(RTM_NEWLINK, &ifi, sizeof(ifi));
	nla_put(msg, IFLA_IFNAME, 4, "eth0");
	cr_assert_eq(cni_link_parse(msg, &l), -EPROTO, "a name without its NUL");
	nlmsg_free(msg);
	msg = reply(RTM_NEWLINK, &ifi, sizeof(ifi));
	nla_put(msg, IFLA_ADDRESS, CNI_MAC_MAX + 1, "0123456789abcdef0123456789abcdef!");
	cr_assert_eq(cni_link_parse(msg, &l), -EPROTO, "an address longer than ours");
	nlmsg_free(msg);
	msg = reply(RTM_NEWLINK, &ifi, 8);
	cr_assert_eq(cni_link_parse(msg, &l), -EPROTO, "a truncated header");
	nlmsg_free(msg);
	msg = reply(RTM_NEWADDR, &ifi, sizeof(ifi));
	cr_assert_eq(cni_link_parse(msg, &l), -EPROTO, "another type");
	nlmsg_free(msg);
}

/* What DEL restores, as a reply carries it: alias, flags, group, queue
 * length, GSO/GRO limits (the IPv4 ones by number: 6.3's, newer than the
 * headers), and the altnames counted; absent ones are not in the mask. */
Test(link, link_reply_netdev_attributes)
{
	struct ifinfomsg ifi = {.ifi_index = 9, .ifi_flags = IFF_UP | IFF_NOARP | IFF_PROMISC};
	struct nl_msg *msg = reply(RTM_NEWLINK, &ifi, sizeof(ifi));
	struct nlattr *props;
	struct cni_link l;

	nla_put_string(msg, IFLA_IFNAME, "vf0");
	nla_put_string(msg, IFLA_IFALIAS, "A\033[31mred");
	nla_put_u32(msg, IFLA_GROUP, 7);
	nla_put_u32(msg, IFLA_TXQLEN, 5);
	nla_put_u32(msg, IFLA_GSO_MAX_SIZE, 1000);
	nla_put_u32(msg, IFLA_GSO_MAX_SEGS, 10);
	nla_put_u32(msg, IFLA_GRO_MAX_SIZE, 2000);
	nla_put_u32(msg, 63, 3000); /* IFLA_GSO_IPV4_MAX_SIZE */
	nla_put_u32(msg, 64, 4000); /* IFLA_GRO_IPV4_MAX_SIZE */
	props = nla_nest_start(msg, IFLA_PROP_LIST);
	nla_put_string(msg, IFLA_ALT_IFNAME, "eth0");
	nla_put_string(msg, IFLA_ALT_IFNAME, "ibcni7");
	nla_put_string(msg, IFLA_ALT_IFNAME, "x");
	nla_nest_end(msg, props);
	cr_assert_eq(cni_link_parse(msg, &l), 0);
	cr_assert_eq(l.attrs.mask, 0x1ff);
	cr_assert_str_eq(l.attrs.alias, "A\033[31mred");
	cr_assert_eq(l.attrs.flags, IFF_NOARP | IFF_PROMISC, "UP is state, not restored");
	cr_assert(l.attrs.group == 7 && l.attrs.txqlen == 5);
	cr_assert(l.attrs.gso_max_size == 1000 && l.attrs.gso_max_segs == 10 &&
		  l.attrs.gro_max_size == 2000);
	cr_assert(l.attrs.gso_ipv4_max_size == 3000 && l.attrs.gro_ipv4_max_size == 4000);
	cr_assert_eq(l.n_altnames, 3);
	nlmsg_free(msg);

	/* An older kernel: no alias, no limits, no altnames. */
	msg = reply(RTM_NEWLINK, &ifi, sizeof(ifi));
	nla_put_u32(msg, IFLA_TXQLEN, 1000);
	cr_assert_eq(cni_link_parse(msg, &l), 0);
	cr_assert_eq(l.attrs.mask, CNI_LINK_A_ALIAS | CNI_LINK_A_FLAGS | CNI_LINK_A_TXQLEN);
	cr_assert_str_eq(l.attrs.alias, "");
	cr_assert_eq(l.n_altnames, 0);
	nlmsg_free(msg);

	msg = reply(RTM_NEWLINK, &ifi, sizeof(ifi));
	nla_put(msg, IFLA_GROUP, 2, "\x01\x02");
	cr_assert_eq(cni_link_parse(msg, &l), -EPROTO, "a 2-byte group");
	nlmsg_free(msg);
}

Test(link, address_reply_policy)
{
	struct ifaddrmsg v4 = {.ifa_family = AF_INET, .ifa_prefixlen = 24, .ifa_index = 3};
	struct ifaddrmsg v6 = {.ifa_family = AF_INET6,
			       .ifa_prefixlen = 64,
			       .ifa_index = 3,
			       .ifa_flags = IFA_F_TENTATIVE};
	unsigned char a4[4] = {10, 0, 0, 2}, peer[4] = {10, 0, 0, 9};
	unsigned char a6[16] = {0xfd, 0, [15] = 2};
	struct nl_msg *msg = reply(RTM_NEWADDR, &v4, sizeof(v4));
	struct cni_link_addr a;

	nla_put(msg, IFA_ADDRESS, 4, peer);
	nla_put(msg, IFA_LOCAL, 4, a4);
	cr_assert_eq(cni_link_addr_parse(msg, &a), 0);
	cr_assert(a.ifindex == 3 && a.addr.family == AF_INET && a.addr.len == 24);
	cr_assert_arr_eq(a.addr.a, a4, 4, "IFA_LOCAL is the address, IFA_ADDRESS the peer");
	nlmsg_free(msg);

	msg = reply(RTM_NEWADDR, &v6, sizeof(v6));
	nla_put(msg, IFA_ADDRESS, 16, a6);
	nla_put_u32(msg, IFA_FLAGS, IFA_F_TENTATIVE | IFA_F_NODAD | IFA_F_DADFAILED);
	cr_assert_eq(cni_link_addr_parse(msg, &a), 0);
	cr_assert_arr_eq(a.addr.a, a6, 16);
	cr_assert_eq(a.flags, IFA_F_TENTATIVE | IFA_F_NODAD | IFA_F_DADFAILED,
		     "IFA_FLAGS replaces the 8-bit header flags");
	nlmsg_free(msg);

	msg = reply(RTM_NEWADDR, &v6, sizeof(v6));
	nla_put(msg, IFA_ADDRESS, 4, a4);
	cr_assert_eq(cni_link_addr_parse(msg, &a), -EPROTO, "4 bytes for an IPv6 address");
	nlmsg_free(msg);
	msg = reply(RTM_NEWADDR, &v4, sizeof(v4));
	nla_put(msg, IFA_LOCAL, 2, a4);
	cr_assert_eq(cni_link_addr_parse(msg, &a), -EPROTO, "shorter than the policy's minimum");
	nlmsg_free(msg);
	msg = reply(RTM_NEWADDR, &v4, sizeof(v4));
	cr_assert_eq(cni_link_addr_parse(msg, &a), -EPROTO, "no address at all");
	nlmsg_free(msg);
}

Test(link, route_reply_policy)
{
	struct rtmsg rtm = {.rtm_family = AF_INET, .rtm_dst_len = 0, .rtm_table = 254};
	unsigned char gw[4] = {10, 0, 0, 1};
	struct nl_msg *msg = reply(RTM_NEWROUTE, &rtm, sizeof(rtm));
	struct cni_link_route r;

	nla_put_u32(msg, RTA_TABLE, 1000);
	nla_put_u32(msg, RTA_OIF, 6);
	nla_put(msg, RTA_GATEWAY, 4, gw);
	cr_assert_eq(cni_link_route_parse(msg, &r), 0);
	cr_assert(r.oif == 6 && r.table == 1000 && r.dst.len == 0 && r.gw.family == AF_INET);
	cr_assert_arr_eq(r.gw.a, gw, 4);
	cr_assert_arr_eq(r.dst.a, "\0\0\0\0", 4, "no RTA_DST: the zero address");
	nlmsg_free(msg);

	msg = reply(RTM_NEWROUTE, &rtm, sizeof(rtm));
	nla_put(msg, RTA_OIF, 2, gw);
	cr_assert_eq(cni_link_route_parse(msg, &r), -EPROTO, "a 2-byte oif");
	nlmsg_free(msg);
	rtm.rtm_family = AF_INET6;
	msg = reply(RTM_NEWROUTE, &rtm, sizeof(rtm));
	nla_put(msg, RTA_DST, 4, gw);
	cr_assert_eq(cni_link_route_parse(msg, &r), -EPROTO, "an IPv4-sized IPv6 destination");
	nlmsg_free(msg);
	rtm.rtm_family = AF_MPLS;
	msg = reply(RTM_NEWROUTE, &rtm, sizeof(rtm));
	cr_assert_eq(cni_link_route_parse(msg, &r), -EAFNOSUPPORT);
	nlmsg_free(msg);
}

Test(link, vf_reply_policy)
{
	struct ifinfomsg ifi = {.ifi_index = 2};
	struct nl_msg *msg = reply(RTM_NEWLINK, &ifi, sizeof(ifi));
	struct nlattr *list = nla_nest_start(msg, IFLA_VFINFO_LIST);
	struct nlattr *info = nla_nest_start(msg, IFLA_VF_INFO);
	struct cni_vf vfs[1];

	/* A VF entry whose IFLA_VF_MAC is shorter than struct ifla_vf_mac. */
	nla_put(msg, IFLA_VF_MAC, 8, "\0\0\0\0\2\0\0\0");
	nla_nest_end(msg, info);
	nla_nest_end(msg, list);
	cr_assert_eq(cni_link_vfs_parse(msg, vfs, 1), -EPROTO);
	nlmsg_free(msg);
}
