// SPDX-License-Identifier: Apache-2.0
/* VF settings on a PF (IFLA_VFINFO_LIST), the reading side: the PF's VF
 * table as the kernel reports it (link_vf_set.c writes one setting). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "kernel/link.h"
#include "kernel/link_nl.h"

static const struct nla_policy vf_policy[IFLA_VF_MAX + 1] = {
    [IFLA_VF_MAC] = {.minlen = sizeof(struct ifla_vf_mac)},
    [IFLA_VF_VLAN] = {.minlen = sizeof(struct ifla_vf_vlan)},
    [IFLA_VF_VLAN_LIST] = {.type = NLA_NESTED},
    [IFLA_VF_TX_RATE] = {.minlen = sizeof(struct ifla_vf_tx_rate)},
    [IFLA_VF_RATE] = {.minlen = sizeof(struct ifla_vf_rate)},
    [IFLA_VF_SPOOFCHK] = {.minlen = sizeof(struct ifla_vf_spoofchk)},
    [IFLA_VF_LINK_STATE] = {.minlen = sizeof(struct ifla_vf_link_state)},
    [IFLA_VF_TRUST] = {.minlen = sizeof(struct ifla_vf_trust)},
    [IFLA_VF_IB_NODE_GUID] = {.minlen = sizeof(struct ifla_vf_guid)},
    [IFLA_VF_IB_PORT_GUID] = {.minlen = sizeof(struct ifla_vf_guid)},
};

static const struct nla_policy vlan_list_policy[IFLA_VF_VLAN_INFO_MAX + 1] = {
    [IFLA_VF_VLAN_INFO] = {.minlen = sizeof(struct ifla_vf_vlan_info)},
};

static const struct nla_policy vfinfo_list_policy[IFLA_MAX + 1] = {
    [IFLA_VFINFO_LIST] = {.type = NLA_NESTED},
};

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
	ret = cni_nl_parse_nested(info, tb, IFLA_VF_MAX, vf_policy);
	if (ret)
		return ret;
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
	if (tb[IFLA_VF_VLAN_LIST]) {
		/* One entry per VF today: the VF's own VLAN, with its protocol. */
		struct nlattr *vl[IFLA_VF_VLAN_INFO_MAX + 1];
		struct ifla_vf_vlan_info v;

		ret = cni_nl_parse_nested(tb[IFLA_VF_VLAN_LIST], vl, IFLA_VF_VLAN_INFO_MAX,
					  vlan_list_policy);
		if (ret)
			return ret;
		if (vl[IFLA_VF_VLAN_INFO]) {
			nla_copy(v, vl[IFLA_VF_VLAN_INFO]);
			vf->vlan = v.vlan;
			vf->qos = v.qos;
			vf->vlan_proto = ntohs(v.vlan_proto);
			vf->mask |= CNI_VF_VLAN;
		}
	}
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

	ret = cni_nl_parse(msg, sizeof(struct ifinfomsg), tb, IFLA_MAX, vfinfo_list_policy);
	if (ret)
		return ret;
	if (!tb[IFLA_VFINFO_LIST])
		return 0;
	nla_for_each_nested (a, tb[IFLA_VFINFO_LIST], rem) {
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

/* One IFLA_VF_INFO at most, as Linux 6.x fills it for an InfiniBand PF
 * (rtnl_fill_vfinfo: MAC, broadcast, VLAN, its list, rates, spoofchk, link
 * state, RSS query, trust, both GUIDs: 236 bytes with its header) and the counters (a nest
 * of eight padded u64s) a kernel that ignores RTEXT_FILTER_SKIP_STATS adds. */
#define CNI_LINK_VF_INFO_MAX (236 + NLA_HDRLEN + 8 * (2 * NLA_HDRLEN + 8))
/* The most VFs a PF has (mlx5's limit; the PCI function space of a bus). */
#define CNI_LINK_VFS_MAX 127
/* The link's other attributes (name, stats, qdisc, properties) and headers. */
#define CNI_LINK_REPLY_BASE (4 * 1024)
_Static_assert(CNI_LINK_REPLY_BASE + CNI_LINK_VFS_MAX * CNI_LINK_VF_INFO_MAX <= CNI_NL_MSG_MAX,
	       "the receive buffer must hold a 127-VF PF's reply whole");

/* A PF's link with its VF list, sized by the link's IFLA_NUM_VF. The list
 * may be shorter: the kernel skips a VF whose settings its driver cannot
 * read at that moment (rtnl_fill_vfinfo: i40e and ice refuse while a VF
 * resets), and one VF's reset must not fail another tenant's ADD. Callers
 * look their VF up by its number; one that needs every VF compares the
 * count with IFLA_NUM_VF. No list at all is a PF that reports no VF
 * settings (a driver without ndo_get_vf_config). */
struct vfs_reply {
	struct cni_link_reply base;
	struct cni_vf *vfs;
	size_t n_vfs;
};

static int vfs_reply_parse(struct nl_msg *msg, struct cni_link_reply *base)
{
	struct vfs_reply *r = base->more_arg;
	int ret;

	if (r->base.link->num_vf <= 0)
		return 0;
	r->vfs = calloc((size_t)r->base.link->num_vf, sizeof(*r->vfs));
	if (!r->vfs)
		return -ENOMEM;
	ret = cni_link_vfs_parse(msg, r->vfs, (size_t)r->base.link->num_vf);
	if (ret < 0)
		return ret;
	r->n_vfs = (size_t)ret;
	return 0;
}

int cni_link_vfs_get(struct cni_sys *sys, int pf_ifindex, struct cni_vf **vfs, size_t *n,
		     int *num_vf)
{
	struct cni_link link;
	/* Without the VFs' counters: the driver reads each from the device (a
	 * firmware command per VF on mlx5), and nothing here uses them. */
	struct vfs_reply r = {.base = {.link = &link,
				       .ext_mask = RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS,
				       .more = vfs_reply_parse}};
	int ret;

	r.base.more_arg = &r;
	*vfs = NULL;
	*n = 0;
	ret = cni_link_query(sys, NULL, pf_ifindex, &r.base);
	if (ret) {
		free(r.vfs);
		return ret;
	}
	*vfs = r.vfs;
	*n = r.n_vfs;
	if (num_vf)
		*num_vf = link.num_vf;
	return 0;
}
