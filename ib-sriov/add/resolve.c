// SPDX-License-Identifier: Apache-2.0
/* What the VF is, read before ADD changes anything: the device deviceID
 * names (a VF, or a PF passed through), its PF's and its own netdevs, and
 * whether the configuration fits it. Only reads: a failure here leaves
 * the node as it was. */
#include <errno.h>
#include <net/if_arp.h>
#include <string.h>

#include "add.h"
#include "base/util.h"
#include "guid.h"
#include "kernel/netns.h"

/* A PF bound to vfio-pci is passed through whole, as ib-sriov-cni does:
 * nothing to configure, only a record and a result. */
static int resolve_pf(struct add *a)
{
	struct ibsriov_conf *c = &a->conf;
	int ret = cni_pci_driver(CNI_PCI_ROOT, c->device, a->pci.driver, sizeof(a->pci.driver));

	if (ret && ret != -ENOENT)
		return cni_errorf(&a->ctx->err, ret, CNI_ERR_DEVICE,
				  "cannot read the device's driver", "%s: %s", c->device,
				  strerror(-ret));
	if (strcmp(a->pci.driver, "vfio-pci"))
		return cni_errorf(
		    &a->ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG, "deviceID is not a VF",
		    "%s has no physfn link and is bound to \"%s\": ib-sriov needs an SR-IOV "
		    "virtual function, or a PF bound to vfio-pci (vfioPciMode)",
		    c->device, *a->pci.driver ? a->pci.driver : "no driver");
	copy_str(a->pci.addr, sizeof(a->pci.addr), c->device);
	a->pci.vf_index = -1;
	a->vfio = a->pf_passthrough = true;
	log_info("%s is a PF bound to vfio-pci: passed through whole", c->device);
	return 0;
}

/* The device deviceID names, from sysfs alone: before any side effect
 * (the lock file included), so a bad deviceID leaves nothing behind. */
int ibsriov_resolve_device(struct add *a)
{
	struct ibsriov_conf *c = &a->conf;
	struct cni_error *err = &a->ctx->err;
	int ret = cni_pci_vf_get(CNI_PCI_ROOT, c->device, &a->pci);

	if (ret == -ENODEV)
		return cni_errorf(err, ret, CNI_ERR_DEVICE, "device not found",
				  "deviceID %s is not under %s/devices; is it the VF the device "
				  "plugin allocated?",
				  c->device, CNI_PCI_ROOT);
	if (ret == -ENOTTY)
		return resolve_pf(a);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_DEVICE, "cannot read the VF's topology",
				  "%s: %s", c->device, strerror(-ret));
	a->vfio = !strcmp(a->pci.driver, "vfio-pci");
	if (c->vfio && !a->vfio)
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG,
				  "vfioPciMode is set but the VF is not bound to vfio-pci",
				  "%s is bound to \"%s\"", c->device, a->pci.driver);
	if (!*a->pci.pf_netdev)
		return cni_errorf(err, -ENODEV, CNI_ERR_DEVICE, "the VF's PF has no netdev",
				  "PF %s of %s: the PF driver must be loaded", a->pci.pf_addr,
				  c->device);
	return 0;
}

/* The PF's and the VF's netdevs as they are now, under the VF lock (fresh:
 * sysfs read again when an earlier attempt was just undone). */
int ibsriov_resolve_links(struct add *a, bool fresh)
{
	struct ibsriov_conf *c = &a->conf;
	struct cni_error *err = &a->ctx->err;

	if (a->pf_passthrough)
		return 0;
	if (a->vfio) {
		if (ibsriov_pf_link(a))
			return -ENODEV;
		a->ib = a->pf.type == ARPHRD_INFINIBAND;
		return 0;
	}
	/* The PF by name from sysfs; its link is read when a VF setting needs it. */
	copy_str(a->pf.name, sizeof(a->pf.name), a->pci.pf_netdev);
	if (fresh)
		cni_pci_netdev(CNI_PCI_ROOT, c->device, a->pci.netdev);
	if (!*a->pci.netdev || cni_link_get(a->sys, a->pci.netdev, 0, &a->vf))
		return cni_errorf(
		    err, -ENODEV, CNI_ERR_DEVICE, "the VF has no netdev",
		    "%s (bound to \"%s\"): load its network driver (mlx5_core, ib_ipoib), or "
		    "bind it to vfio-pci and set vfioPciMode",
		    c->device, a->pci.driver);
	a->ib = a->vf.type == ARPHRD_INFINIBAND;
	return 0;
}

int ibsriov_check_fits(struct add *a)
{
	struct ibsriov_conf *c = &a->conf;
	struct cni_error *err = &a->ctx->err;
	uint32_t eth_only = CNI_VF_MAC | CNI_VF_VLAN | CNI_VF_SPOOFCHK | CNI_VF_TRUST | CNI_VF_RATE;
	char g[32];

	if (a->ib && (c->vf.mask & eth_only))
		return cni_errorf(
		    err, -EINVAL, CNI_ERR_INVALID_CONFIG, "Ethernet settings on an InfiniBand VF",
		    "%s is InfiniBand: mac, vlan, spoofchk, trust and rates apply to RoCE VFs only",
		    c->device);
	if (a->pf_passthrough &&
	    (c->vf.mask || c->has_guid || c->pkey_enforce || c->rdma_isolation))
		return cni_errorf(
		    err, -EINVAL, CNI_ERR_INVALID_CONFIG, "settings for a passed-through PF",
		    "%s is a PF bound to vfio-pci: VF settings, a GUID, pkeyEnforce and "
		    "rdmaIsolation apply to VFs only",
		    c->device);
	if (!a->ib && c->has_guid)
		return cni_errorf(
		    err, -EINVAL, CNI_ERR_INVALID_CONFIG, "InfiniBand settings on an Ethernet VF",
		    "%s is Ethernet (RoCE): the GUID from %s applies to InfiniBand VFs only",
		    c->device, c->guid_from);
	if (!a->ib && c->has_pkey) {
		/* ib-sriov-cni ignores a pkey on RoCE; so do we, saying so. */
		log_info("%s is Ethernet (RoCE): pkey %#06x ignored", c->device, c->pkey);
		c->has_pkey = false;
	}
	if (c->rdma_isolation && !a->vfio) {
		int ret = cni_rdma_require_exclusive(a->sys, err, CNI_ERR_RDMA_MODE);

		struct cni_rdma_found f;

		if (!ret)
			ret = ibsriov_rdma_find(a, &f);
		if (ret)
			return ret;
	}
	if (a->ib && !a->vfio && !c->has_guid &&
	    ibsriov_guid_unset(ibsriov_guid_from_hwaddr(a->vf.mac, a->vf.mac_len)))
		return cni_errorf(
		    err, -EINVAL, CNI_ERR_INVALID_CONFIG, "the VF has no valid GUID",
		    "VF %s reports GUID %s and none was given: pass one as runtimeConfig."
		    "infinibandGUID (capability infinibandGUID), as cni-args \"guid\", from "
		    "ib-kubernetes, have the SR-IOV operator assign VF GUIDs, or set "
		    "\"guidFallback\": true (a GUID derived from the PF's, docs/guid.md)",
		    a->vf.name,
		    cni_guid_str(ibsriov_guid_from_hwaddr(a->vf.mac, a->vf.mac_len), g, sizeof(g)));
	if (c->has_pkey && c->pkey_enforce && a->pci.rdma_dev[0] == '\0')
		return cni_errorf(err, -ENODEV, CNI_ERR_DEVICE, "the VF has no RDMA device",
				  "pkey %#06x needs the pkey table under %s/infiniband/", c->pkey,
				  c->device);
	return ibsriov_port_wait_fits(a);
}

int ibsriov_pod_ifname_free(struct add *a)
{
	struct cni_link l;
	int saved = -1, ret;

	if (a->vfio)
		return 0;
	ret = cni_netns_enter(a->sys, a->netns_fd, &saved);
	if (ret)
		return fail(a, ret, CNI_ERR_INTERNAL, "cannot enter the pod network namespace",
			    a->ctx->env.netns);
	ret = cni_link_get(a->sys, a->ctx->env.ifname, 0, &l);
	cni_netns_restore(a->sys, &saved);
	if (!ret)
		return cni_errorf(&a->ctx->err, -EEXIST, CNI_ERR_INVALID_CONFIG,
				  "the interface name is taken in the pod",
				  "%s already exists in %s; choose another CNI_IFNAME",
				  a->ctx->env.ifname, a->ctx->env.netns);
	return 0;
}
