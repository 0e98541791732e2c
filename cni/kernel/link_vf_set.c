// SPDX-License-Identifier: Apache-2.0
/* VF settings on a PF (IFLA_VFINFO_LIST), the writing side: one setting
 * request encoded as iproute2 does it (link_vf.c reads the table). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "base/cleanup.h"
#include "kernel/link.h"
#include "kernel/link_nl.h"

/* The VF's VLAN: IFLA_VF_VLAN_LIST when the protocol is not 802.1Q (the
 * only way to name it), else IFLA_VF_VLAN as iproute2 sends it. A libnl
 * error code, as nla_put's. */
static int vlan_put(struct nl_msg *msg, const struct cni_vf *vf)
{
	struct ifla_vf_vlan_info v;
	struct nlattr *vl;
	int ret;

	if (!vf->vlan_proto || vf->vlan_proto == ETH_P_8021Q) {
		struct ifla_vf_vlan v1 = {.vf = vf->vf, .vlan = vf->vlan, .qos = vf->qos};

		return nla_put(msg, IFLA_VF_VLAN, sizeof(v1), &v1);
	}
	memset(&v, 0, sizeof(v));
	v.vf = vf->vf;
	v.vlan = vf->vlan;
	v.qos = vf->qos;
	v.vlan_proto = htons(vf->vlan_proto);
	vl = nla_nest_start(msg, IFLA_VF_VLAN_LIST);
	if (!vl)
		return -NLE_NOMEM;
	ret = nla_put(msg, IFLA_VF_VLAN_INFO, sizeof(v), &v);
	if (!ret)
		nla_nest_end(msg, vl);
	return ret;
}

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
	if (!ret && (vf->mask & CNI_VF_VLAN))
		ret = vlan_put(msg, vf);
	if (!ret && (vf->mask & CNI_VF_RATE)) {
		struct ifla_vf_rate r = {
		    .vf = vf->vf, .min_tx_rate = vf->min_tx_rate, .max_tx_rate = vf->max_tx_rate};

		ret = nla_put(msg, IFLA_VF_RATE, sizeof(r), &r);
	}
	if (!ret && (vf->mask & CNI_VF_SPOOFCHK)) {
		struct ifla_vf_spoofchk s = {.vf = vf->vf, .setting = vf->spoofchk};

		ret = nla_put(msg, IFLA_VF_SPOOFCHK, sizeof(s), &s);
	}
	if (!ret && (vf->mask & CNI_VF_TRUST)) {
		struct ifla_vf_trust t = {.vf = vf->vf, .setting = vf->trust};

		ret = nla_put(msg, IFLA_VF_TRUST, sizeof(t), &t);
	}
	if (!ret && (vf->mask & CNI_VF_LINK_STATE)) {
		struct ifla_vf_link_state l = {.vf = vf->vf, .link_state = vf->link_state};

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
	_cleanup_nl_msg_ struct nl_msg *msg = cni_link_msg(RTM_NEWLINK, 0, pf_ifindex);
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

int cni_link_vf_set(struct cni_sys *sys, int pf_ifindex, const struct cni_vf *vf)
{
	_cleanup_nl_msg_ struct nl_msg *msg = NULL;
	int ret = cni_link_vf_msg(pf_ifindex, vf, &msg);

	if (ret)
		return ret;
	return cni_link_talk(sys, msg, NULL, NULL);
}
