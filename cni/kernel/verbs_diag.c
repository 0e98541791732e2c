// SPDX-License-Identifier: Apache-2.0
/* The RoCE GID and MTU checks of an attachment (verbs_diag.h): no kernel
 * call here, only the decisions over the reads, so that the doctor and
 * CHECK say the same and the unit tier tests them without a device. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "kernel/verbs_diag.h"

unsigned int cni_verbs_roce_mtu(unsigned int netdev_mtu)
{
	/* GRH 40, UDP 8, BTH 12, XRC 4, AtomicETH 28, ICRC 4 (ib_verbs.h). */
	const unsigned int overhead = 40 + 8 + 12 + 4 + 28 + 4;
	unsigned int mtu = netdev_mtu > overhead ? netdev_mtu - overhead : 0;

	for (unsigned int ib = 4096; ib >= 256; ib /= 2)
		if (mtu >= ib)
			return ib;
	return 0;
}

/* addr as a GID: IPv6 as is, IPv4 mapped (RFC 4291 ::ffff:0:0/96). */
static void addr_gid(const struct cni_addr *addr, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (addr->family == AF_INET6) {
		memcpy(gid, addr->a, 16);
		return;
	}
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, addr->a, 4);
}

const struct cni_verbs_gid *cni_verbs_gid_of(const struct cni_verbs_dev *dev, unsigned int port,
					     const struct cni_addr *addr, int ifindex)
{
	uint8_t want[16];

	addr_gid(addr, want);
	for (unsigned int i = 0; i < dev->n_gids && i < CNI_VERBS_GIDS_MAX; i++) {
		const struct cni_verbs_gid *g = &dev->gids[i];

		if (g->port == port && g->type == CNI_VERBS_GID_ROCE_V2 &&
		    !memcmp(g->raw, want, 16) && (!ifindex || g->ndev_ifindex == (uint32_t)ifindex))
			return g;
	}
	return NULL;
}

/* Whether the netdev has any GID on the port: none means the device never
 * saw it (another namespace); some means it saw it, without this address. */
static bool netdev_has_gids(const struct cni_verbs_dev *dev, int ifindex)
{
	for (unsigned int i = 0; i < dev->n_gids && i < CNI_VERBS_GIDS_MAX; i++)
		if (dev->gids[i].port == 1 && dev->gids[i].ndev_ifindex == (uint32_t)ifindex)
			return true;
	return false;
}

enum cni_diag cni_verbs_gid_check(const struct cni_verbs_dev *dev, const struct cni_link *netdev,
				  const struct cni_addr *addr, uint32_t *index, char *what,
				  size_t len)
{
	const char *ifname = netdev->name;
	int ifindex = netdev->ifindex;
	const struct cni_verbs_gid *g = cni_verbs_gid_of(dev, 1, addr, ifindex);
	char a[INET6_ADDRSTRLEN + 8];

	cni_addr_str(addr, a, sizeof(a));
	if (g) {
		*index = g->index;
		snprintf(what, len,
			 "%s of %s is RoCE v2 GID index %u of %s port 1 (NCCL_IB_GID_INDEX=%u, "
			 "UCX_IB_GID_INDEX=%u)",
			 a, ifname, g->index, dev->name, g->index, g->index);
		return CNI_DIAG_INFO;
	}
	if (dev->gids_ret)
		snprintf(what, len,
			 "no RoCE v2 GID for %s of %s on %s port 1: its GID table cannot "
			 "be read (%s)",
			 a, ifname, dev->name, strerror(-dev->gids_ret));
	else if (!netdev_has_gids(dev, ifindex))
		snprintf(what, len,
			 "no RoCE v2 GID for %s of %s on %s port 1, and none for %s at all: the "
			 "RDMA device and %s are in different network namespaces (or were when "
			 "the address was added)",
			 a, ifname, dev->name, ifname, ifname);
	else
		snprintf(what, len,
			 "no RoCE v2 GID for %s of %s on %s port 1, though %s has GIDs there: the "
			 "address was added while the RDMA device was in another network namespace",
			 a, ifname, dev->name, ifname);
	return CNI_DIAG_ERROR;
}

const char *cni_verbs_gid_fix(const struct cni_verbs_dev *dev, int ifindex)
{
	if (!dev->gids_ret && !netdev_has_gids(dev, ifindex))
		return "move the RDMA device into the pod's namespace with its netdev "
		       "(rdmaIsolation, or rdma-ns chained after the netdev's plugin, in exclusive "
		       "mode), then recreate the pod so that its addresses are added with both "
		       "there";
	return "add the address again once the RDMA device is in the pod (ip addr del, then add, "
	       "in the pod), or recreate the pod";
}

enum cni_diag cni_verbs_mtu_check(const struct cni_verbs_dev *dev, const char *ifname,
				  unsigned int netdev_mtu, unsigned int expected, char *what,
				  size_t len)
{
	const struct cni_verbs_port *p = dev->n_ports ? &dev->ports[0] : NULL;
	bool roce = p && p->link_layer == CNI_VERBS_LL_ETH;
	unsigned int active = p ? p->active_mtu : 0;
	enum cni_diag v = CNI_DIAG_INFO;
	char rdma[160] = "";

	if (p && roce && expected && netdev_mtu < expected)
		snprintf(rdma, sizeof(rdma),
			 "; RoCE on %s port 1 runs at %u bytes (active MTU), "
			 "where %u gives %u",
			 dev->name, active, expected, cni_verbs_roce_mtu(expected));
	else if (p)
		snprintf(rdma, sizeof(rdma), "; %s on %s port 1 runs at %u bytes (active MTU)",
			 roce ? "RoCE" : "InfiniBand", dev->name, active);
	if (expected && netdev_mtu != expected) {
		v = netdev_mtu < expected ? CNI_DIAG_ERROR : CNI_DIAG_WARNING;
		snprintf(what, len, "%s's MTU is %u, ADD set %u%s", ifname, netdev_mtu, expected,
			 rdma);
	} else {
		snprintf(what, len, "%s's MTU is %u%s%s", ifname, netdev_mtu,
			 expected ? " (as ADD set)" : "", rdma);
	}
	return v;
}

const char *cni_verbs_mtu_fix(void)
{
	return "set the netdev's MTU back to the one ADD set (the network's \"mtu\"), or recreate "
	       "the pod; whatever lowered it in the pod lowers the RDMA MTU with it";
}

const char *cni_verbs_gid_str(const struct cni_verbs_gid *g, char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN];

	if (!inet_ntop(AF_INET6, g->raw, s, sizeof(s)))
		s[0] = '\0';
	snprintf(buf, len, "%s", s);
	return buf;
}

const char *cni_verbs_gid_type_str(uint32_t type)
{
	return type == CNI_VERBS_GID_IB	       ? "IB"
	       : type == CNI_VERBS_GID_ROCE_V1 ? "RoCE v1"
	       : type == CNI_VERBS_GID_ROCE_V2 ? "RoCE v2"
					       : "unknown";
}
