// SPDX-License-Identifier: Apache-2.0
/* VF-settings messages built by cni/link.c, decoded with libnl's parser. */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "helpers.h"
#include "link.h"

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
	nla_for_each_nested(info, top[IFLA_VFINFO_LIST], rem) {
		cr_assert_eq(nla_type(info), IFLA_VF_INFO);
		cr_assert_eq(nla_parse_nested(tb, IFLA_VF_MAX, info, NULL), 0);
		n++;
	}
	cr_assert_eq(n, 1, "one IFLA_VF_INFO per request, as iproute2 sends");
}

Test(link, ethernet_vf_message_attribute_by_attribute)
{
	struct cni_vf vf = {
		.vf = 3, .mask = CNI_VF_MAC | CNI_VF_VLAN | CNI_VF_RATE | CNI_VF_SPOOFCHK |
				 CNI_VF_TRUST | CNI_VF_LINK_STATE,
		.mac = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 }, .vlan = 100, .qos = 3,
		.vlan_proto = ETH_P_8021Q, .min_tx_rate = 100, .max_tx_rate = 1000,
		.spoofchk = 0, .trust = 1, .link_state = IFLA_VF_LINK_STATE_ENABLE,
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
	struct cni_vf vf = { .vf = 1, .mask = CNI_VF_VLAN, .vlan = 4094, .qos = 7,
			     .vlan_proto = ETH_P_8021AD };
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
	struct cni_vf vf = { .vf = 0, .mask = CNI_VF_NODE_GUID | CNI_VF_PORT_GUID |
					      CNI_VF_LINK_STATE,
			     .node_guid = 0x0011223344556677ULL, .port_guid = 0x8899aabbccddeeffULL,
			     .link_state = IFLA_VF_LINK_STATE_AUTO };
	struct nlattr *tb[IFLA_VF_MAX + 1];
	struct nl_msg *msg;

	cr_assert_eq(cni_link_vf_msg(9, &vf, &msg), 0);
	vf_attrs(msg, tb, 9);
	struct ifla_vf_guid node, port;	/* attributes are only 4-byte aligned */

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
	struct cni_vf in = { .vf = 5, .mask = CNI_VF_MAC | CNI_VF_VLAN | CNI_VF_TRUST |
					      CNI_VF_SPOOFCHK | CNI_VF_RATE | CNI_VF_LINK_STATE |
					      CNI_VF_NODE_GUID | CNI_VF_PORT_GUID,
			     .mac = { 2, 0, 0, 0, 0, 9 }, .vlan = 10, .qos = 1,
			     .vlan_proto = ETH_P_8021AD, .trust = 1, .spoofchk = 1,
			     .min_tx_rate = 1, .max_tx_rate = 2, .link_state = 2,
			     .node_guid = 1, .port_guid = 2 };
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
	struct cni_vf vf = { .vf = 0 };
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
