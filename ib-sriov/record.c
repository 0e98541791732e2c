// SPDX-License-Identifier: Apache-2.0
/* The attachment record on disk: its key table for the record codec. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "record.h"
#include "state/record.h"
#include "state/state.h"
#include "base/util.h"

#define REC(f) CNI_REC_AT(struct ibsriov_record, f)
#define VF(f)  CNI_REC_AT(struct cni_vf, f)
#define REQ    .opts = CNI_REC_REQUIRED

static const struct cni_rec_key vf_keys[] = {
    {"mask", CNI_REC_U32, VF(mask), REQ},
    {"vlan", CNI_REC_U32, VF(vlan)},
    {"qos", CNI_REC_U32, VF(qos)},
    {"proto", CNI_REC_U16, VF(vlan_proto)},
    {"min_tx_rate", CNI_REC_U32, VF(min_tx_rate)},
    {"max_tx_rate", CNI_REC_U32, VF(max_tx_rate)},
    {"spoofchk", CNI_REC_U32, VF(spoofchk)},
    {"trust", CNI_REC_U32, VF(trust)},
    {"link_state", CNI_REC_U32, VF(link_state)},
    {"node_guid", CNI_REC_GUID, VF(node_guid)},
    {"port_guid", CNI_REC_GUID, VF(port_guid)},
    {"mac", CNI_REC_MAC6, VF(mac)},
    {NULL},
};

static const struct cni_rec_table vf_table = {.keys = vf_keys};

#define ATTR(f) CNI_REC_AT(struct cni_link_attrs, f)

/* The netdev's own attributes; mask says which the kernel reported. */
static const struct cni_rec_key attr_keys[] = {
    {"mask", CNI_REC_U32, ATTR(mask), REQ},
    {"alias", CNI_REC_STR, ATTR(alias)},
    {"flags", CNI_REC_U32, ATTR(flags)},
    {"group", CNI_REC_U32, ATTR(group)},
    {"txqlen", CNI_REC_U32, ATTR(txqlen)},
    {"gso_max_size", CNI_REC_U32, ATTR(gso_max_size)},
    {"gso_max_segs", CNI_REC_U32, ATTR(gso_max_segs)},
    {"gro_max_size", CNI_REC_U32, ATTR(gro_max_size)},
    {"gso_ipv4_max_size", CNI_REC_U32, ATTR(gso_ipv4_max_size)},
    {"gro_ipv4_max_size", CNI_REC_U32, ATTR(gro_ipv4_max_size)},
    {NULL},
};

static const struct cni_rec_table attr_table = {.keys = attr_keys};

static const char *const kind_names[] = {"eth", "ib", "vfio", NULL};

#define NETDEV .flag = IBSRIOV_REC_HAS_NETDEV
#define RDMA_N .count_off = offsetof(struct ibsriov_record, n_rdma), .max = IBSRIOV_RECORD_RDMA_MAX

/* Keys an older build does not know it ignores (the codec reads known
 * keys only), so new optional keys keep records readable by it. */
static const struct cni_rec_key rec_keys[] = {
    {"version", CNI_REC_INT, REC(version)},
    {"network", CNI_REC_PSTR, REC(network), REQ},
    {"containerID", CNI_REC_PSTR, REC(container_id), REQ},
    {"ifname", CNI_REC_STR, REC(ifname), REQ},
    {"netns", CNI_REC_PSTR, REC(netns)},
    {"device", CNI_REC_STR, REC(device), REQ},
    {"kind", CNI_REC_ENUM, REC(kind), REQ, .names = kind_names},
    {"pf", CNI_REC_STR, REC(pf)},
    {"pf_ifindex", CNI_REC_INT, REC(pf_ifindex)},
    {"vf", CNI_REC_INT, REC(vf)},
    {"orig_name", CNI_REC_STR, REC(orig_name), NETDEV},
    {"tmpname", CNI_REC_STR, REC(tmpname), NETDEV},
    {"link_kind", CNI_REC_STR, REC(link_kind), NETDEV},
    {"orig_mtu", CNI_REC_U32, REC(orig_mtu), NETDEV},
    {"orig_up", CNI_REC_BOOL, REC(orig_up), NETDEV},
    {"orig_mac", CNI_REC_HWADDR, REC(orig_mac), NETDEV,
     .count_off = offsetof(struct ibsriov_record, orig_mac_len)},
    {"orig_ifindex", CNI_REC_INT, REC(orig_ifindex), NETDEV},
    {"pod_ifindex", CNI_REC_INT, REC(pod_ifindex), NETDEV},
    {"iflink", CNI_REC_INT, REC(iflink), NETDEV},
    {"attrs", CNI_REC_OBJ, REC(orig_attrs), .flag = IBSRIOV_REC_HAS_ATTRS, .sub = &attr_table},
    {"vf_orig", CNI_REC_OBJ, REC(vf_orig), .flag = IBSRIOV_REC_HAS_VF_ORIG, .sub = &vf_table},
    {"vf_changed", CNI_REC_U32, REC(vf_changed), .flag = IBSRIOV_REC_HAS_VF_ORIG},
    {"mac_unset", CNI_REC_FLAG, .flag = IBSRIOV_REC_MAC_UNSET},
    {"child", CNI_REC_FLAG, .flag = IBSRIOV_REC_HAS_CHILD},
    {"rdma", CNI_REC_STRS, offsetof(struct ibsriov_record, rdma),
     sizeof(((struct ibsriov_record *)0)->rdma[0]), .flag = IBSRIOV_REC_HAS_RDMA, RDMA_N},
    /* After "rdma": one index per name. */
    {"rdma_index", CNI_REC_U32S, REC(rdma_index), .flag = IBSRIOV_REC_HAS_RDMA_INDEX,
     .opts = CNI_REC_SAME_COUNT, RDMA_N},
    {"pf_passthrough", CNI_REC_FLAG, .flag = IBSRIOV_REC_PF_PASSTHROUGH},
    {"complete", CNI_REC_FLAG, .flag = IBSRIOV_REC_COMPLETE},
    {"go_twin", CNI_REC_STR, REC(go_twin), .flag = IBSRIOV_REC_HAS_GO_TWIN},
    {"mac", CNI_REC_MAC6, REC(mac), .flag = IBSRIOV_REC_HAS_MAC},
    {"guid", CNI_REC_GUID, REC(guid), .flag = IBSRIOV_REC_HAS_GUID},
    {"devinfo", CNI_REC_STR, REC(devinfo), .flag = IBSRIOV_REC_HAS_DEVINFO},
    {"ipam_conf", CNI_REC_PSTR, REC(ipam_conf), .flag = IBSRIOV_REC_HAS_IPAM},
    {"cni_path", CNI_REC_PSTR, REC(cni_path), .flag = IBSRIOV_REC_HAS_IPAM},
    {"rail_table", CNI_REC_U32, REC(rail_table), .flag = IBSRIOV_REC_HAS_RAIL},
    {"rail_priority", CNI_REC_U32, REC(rail_priority), .flag = IBSRIOV_REC_HAS_RAIL},
    {"rail_rules", CNI_REC_STRS, offsetof(struct ibsriov_record, rail_rules),
     IBSRIOV_RAIL_PREFIX_LEN, .flag = IBSRIOV_REC_HAS_RAIL,
     .count_off = offsetof(struct ibsriov_record, n_rail_rules), .max = IBSRIOV_RAIL_RULES_MAX},
    {"gen", CNI_REC_STR, REC(gen), .flag = IBSRIOV_REC_HAS_GEN},
    {"podNamespace", CNI_REC_STR, REC(pod_ns), .flag = IBSRIOV_REC_HAS_POD},
    {"podName", CNI_REC_STR, REC(pod_name), .flag = IBSRIOV_REC_HAS_POD},
    {"podMtu", CNI_REC_U32, REC(pod_mtu), .flag = IBSRIOV_REC_HAS_POD_MTU},
    {"podAddrs", CNI_REC_STRS, offsetof(struct ibsriov_record, pod_addrs), IBSRIOV_RAIL_PREFIX_LEN,
     .flag = IBSRIOV_REC_HAS_POD_ADDRS, .count_off = offsetof(struct ibsriov_record, n_pod_addrs),
     .max = IBSRIOV_RAIL_RULES_MAX},
    {NULL},
};

static const struct cni_rec_table rec_table = {.keys = rec_keys};

int ibsriov_record_name(const char *id, const char *ifname, char *buf, size_t len)
{
	int ret = check_snprintf(buf, len, "%s:%s", id, ifname);

	if (ret)
		return ret;
	if (strlen(buf) > IBSRIOV_RECORD_NAME_MAX)
		return -ENAMETOOLONG;
	if (!*id || !*ifname || strchr(buf, '/') || buf[0] == '.' || strchr(id, ':'))
		return -EINVAL;
	return 0;
}

/* Unique enough for its use: two ADDs of one record name never start in
 * the same nanosecond (read through the vDSO: no system call). */
static void record_gen(struct ibsriov_record *r)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (!check_snprintf(r->gen, sizeof(r->gen), "%lld.%09ld", (long long)ts.tv_sec,
			    (long)ts.tv_nsec))
		r->flags |= IBSRIOV_REC_HAS_GEN;
}

int ibsriov_record_init(struct ibsriov_record *r, const char *network, const char *id,
			const char *ifname, const char *netns)
{
	int ret;

	memset(r, 0, sizeof(*r));
	r->version = IBSRIOV_RECORD_VERSION;
	ret = ibsriov_record_name(id, ifname, r->name, sizeof(r->name));
	if (ret)
		return ret;
	if (copy_str(r->ifname, sizeof(r->ifname), ifname))
		return -EINVAL;
	r->network = strdup(network ? network : "");
	r->container_id = strdup(id);
	r->netns = strdup(netns ? netns : "");
	record_gen(r);
	return r->network && r->container_id && r->netns ? 0 : -ENOMEM;
}

void ibsriov_record_clear(struct ibsriov_record *r)
{
	free(r->network);
	free(r->container_id);
	free(r->netns);
	free(r->ipam_conf);
	free(r->cni_path);
	memset(r, 0, sizeof(*r));
}

char *ibsriov_record_text(const struct ibsriov_record *r)
{
	return cni_record_text(&rec_table, r, r->flags);
}

int ibsriov_record_from_json(struct json_object *o, struct ibsriov_record *r)
{
	bool changed_known;
	int ret;

	r->version = 1; /* 0.x records carry no version */
	ret = cni_record_decode(&rec_table, o, r, &r->flags);
	if (ret)
		return ret;
	/* 0.x moved the VF without noting its index in the pod: the kernel
	 * keeps the index across the move when it can. */
	if (r->version < 2 && !r->pod_ifindex)
		r->pod_ifindex = r->orig_ifindex;
	/* 0.x changed everything it recorded as an original. */
	changed_known = json_object_object_get_ex(o, "vf_changed", NULL);
	if ((r->flags & IBSRIOV_REC_HAS_VF_ORIG) && !changed_known)
		r->vf_changed = r->vf_orig.mask;
	return 0;
}
