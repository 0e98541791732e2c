// SPDX-License-Identifier: Apache-2.0
/* The doctor's PFs and VFs: each SR-IOV PF, its VFs as sysfs, netlink and
 * the attachments see them, and what would keep a pod from using one. */
#include <linux/if_link.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <string.h>

#include "base/cleanup.h"
#include "doctor.h"
#include "guid.h"
#include "ibsriov.h"
#include "kernel/link.h"
#include "kernel/pci.h"
#include "kernel/rdma.h"
#include "kernel/verbs.h"
#include "port.h"

static const char *link_state_str(uint32_t s)
{
	return s == IFLA_VF_LINK_STATE_ENABLE	 ? "enable"
	       : s == IFLA_VF_LINK_STATE_DISABLE ? "disable"
						 : "auto";
}

/* The VF's GUID: the PF's VF info when it reports one, else the port GUID
 * in an IPoIB netdev's hardware address. */
static bool vf_guid(const struct cni_vf *info, const struct cni_link *l, uint64_t *g)
{
	if (info && (info->mask & CNI_VF_PORT_GUID)) {
		*g = info->port_guid;
		return true;
	}
	if (l && l->mac_len == 20) {
		*g = ibsriov_guid_from_hwaddr(l->mac, l->mac_len);
		return true;
	}
	return false;
}

/* What the doctor knows of one VF. */
struct vf_facts {
	struct cni_pci_vf vf;	   /* sysfs */
	const struct cni_vf *info; /* the PF's VF info, NULL when it has none */
	const char *held;	   /* the attachment holding it, NULL when none */
	bool ib, has_guid, pf_rdma;
	uint64_t guid;
};

static void vf_findings(struct doctor *d, const struct vf_facts *f)
{
	const struct cni_pci_vf *vf = &f->vf;
	const struct cni_vf *info = f->info;
	char fix[256], g[32];

	if (!*vf->driver) {
		snprintf(fix, sizeof(fix),
			 "bind it: echo %s > /sys/bus/pci/drivers/mlx5_core/bind "
			 "(or vfio-pci for vfioPciMode networks)",
			 vf->addr);
		doctor_finding(d, "warning", vf->addr, fix,
			       "VF %u of %s has no driver: no pod can use it", vf->vf_index,
			       vf->pf_addr);
		return;
	}
	if (!strcmp(vf->driver, "vfio-pci")) {
		doctor_finding(
		    d, "info", vf->addr,
		    "for a netdev VF, unbind it from vfio-pci and bind it to its network driver",
		    "VF %u of %s is bound to vfio-pci: only networks with vfioPciMode can use it "
		    "(passed through whole, no netdev, no GUID or pkey handling)",
		    vf->vf_index, vf->pf_addr);
		return;
	}
	if (f->held)
		return;
	if (!*vf->netdev)
		doctor_finding(
		    d, "warning", vf->addr,
		    "load its network driver (mlx5_core, and ib_ipoib for InfiniBand) or rebind it",
		    "VF %u of %s (driver %s) has no netdev on the host and no attachment holds it",
		    vf->vf_index, vf->pf_addr, vf->driver);
	if (f->ib && f->has_guid && ibsriov_guid_unset(f->guid))
		doctor_finding(
		    d, "warning", vf->addr,
		    "have the SR-IOV network operator assign VF GUIDs, run ib-kubernetes, or set "
		    "\"guidFallback\": true on the network (docs/guid.md)",
		    "VF %u of %s has GUID %s (unassigned): a pod gets it only with a GUID from its "
		    "network (runtimeConfig infinibandGUID, cni-args guid, ib-kubernetes); "
		    "otherwise "
		    "ADD fails with \"the VF has no valid GUID\"",
		    vf->vf_index, vf->pf_addr, cni_guid_str(f->guid, g, sizeof(g)));
	if (info && (info->mask & CNI_VF_LINK_STATE) &&
	    info->link_state == IFLA_VF_LINK_STATE_DISABLE)
		doctor_finding(
		    d, "warning", vf->addr,
		    "ip link set <PF> vf <N> state auto, or give the network a link_state",
		    "VF %u of %s has link state disable: its link never comes up", vf->vf_index,
		    vf->pf_addr);
	if (f->pf_rdma && !*vf->rdma_dev)
		doctor_finding(
		    d, "warning", vf->addr,
		    "load the RDMA driver (mlx5_ib); an RDMA device in a pod's namespace is not "
		    "visible here",
		    "VF %u of %s has no RDMA device though its PF has one", vf->vf_index,
		    vf->pf_addr);
}

/* A VF's RDMA port as it is now; one not ACTIVE is a warning with the fix,
 * and its state counts for the waitPortActiveMs hint (portwait.c). */
static void vf_port(struct doctor *d, struct json_object *o, const char *addr, const char *rdma_dev,
		    bool ib)
{
	unsigned int state, phys;
	char subject[CNI_PCI_ADDR_LEN + CNI_RDMA_NAME_MAX + 16];

	if (cni_pci_port_state(CNI_PCI_ROOT, addr, rdma_dev, 1, &state, &phys))
		return;
	doctor_put(o, "portState", doctor_str(cni_verbs_port_state_str((int)state)));
	doctor_put(o, "portPhysState", doctor_str(phys ? cni_verbs_phys_state_str(phys) : NULL));
	d->ports_seen++;
	d->ports_ib |= ib;
	if (state == CNI_VERBS_PORT_ACTIVE || state == CNI_VERBS_PORT_ACTIVE_DEFER) {
		d->ports_active++;
		return;
	}
	if (state == CNI_VERBS_PORT_DOWN)
		d->ports_down++;
	else
		d->ports_pending++;
	snprintf(subject, sizeof(subject), "%s (%s port 1)", addr, rdma_dev);
	doctor_finding(d, "warning", subject, ibsriov_port_fix((int)state, phys, ib),
		       "the VF's RDMA port is %s (physical state %s): a pod given it now starts "
		       "on a port that carries no RDMA traffic unless its network sets "
		       "waitPortActiveMs",
		       cni_verbs_port_state_str((int)state),
		       phys ? cni_verbs_phys_state_str(phys) : "unknown");
}

/* The VF's own report; f->ib, f->pf_rdma and f->info as its PF has them. */
static struct json_object *vf_report(struct doctor *d, const char *addr, struct vf_facts *f)
{
	struct json_object *o = json_object_new_object(), *h;
	const struct cni_vf *info = f->info;
	struct cni_pci_vf *vf = &f->vf;
	struct cni_link l;
	bool has_link;

	doctor_put(o, "pci", doctor_str(addr));
	if (cni_pci_vf_get(CNI_PCI_ROOT, addr, vf)) {
		doctor_put(o, "error", doctor_str("cannot read its sysfs topology"));
		return o;
	}
	if (json_object_object_get_ex(d->held, addr, &h))
		f->held = json_object_get_string(h);
	has_link = *vf->netdev && !cni_link_get(d->sys, vf->netdev, 0, &l);
	f->has_guid = f->ib && vf_guid(info, has_link ? &l : NULL, &f->guid);
	doctor_put(o, "vf", json_object_new_int(vf->vf_index));
	doctor_put(o, "driver", doctor_str(*vf->driver ? vf->driver : NULL));
	doctor_put(o, "netdev", doctor_str(*vf->netdev ? vf->netdev : NULL));
	doctor_put(o, "netdevUp", has_link ? json_object_new_boolean(l.flags & IFF_UP) : NULL);
	doctor_put(o, "rdmaDevice", doctor_str(*vf->rdma_dev ? vf->rdma_dev : NULL));
	doctor_put(o, "guid", f->has_guid ? doctor_guid_json(f->guid) : NULL);
	doctor_put(o, "guidSet",
		   f->has_guid ? json_object_new_boolean(!ibsriov_guid_unset(f->guid)) : NULL);
	doctor_put(o, "linkState",
		   info && (info->mask & CNI_VF_LINK_STATE)
		       ? doctor_str(link_state_str(info->link_state))
		       : NULL);
	doctor_put(o, "attachedBy", doctor_str(f->held));
	if (*vf->rdma_dev && !f->held)
		vf_port(d, o, addr, vf->rdma_dev, f->ib);
	vf_findings(d, f);
	return o;
}

static struct json_object *pf_report(struct doctor *d, const char *pf)
{
	struct json_object *o = json_object_new_object(), *vfs = json_object_new_array();
	char netdev[IFNAMSIZ] = "", drv[64] = "", rdma[1][CNI_RDMA_NAME_MAX];
	_cleanup_free_ struct cni_vf *info = NULL;
	unsigned int num = 0, total = 0;
	struct cni_link l;
	bool has_link, ib, pf_rdma;
	size_t n_info = 0;

	cni_pci_netdev(CNI_PCI_ROOT, pf, netdev);
	cni_pci_driver(CNI_PCI_ROOT, pf, drv, sizeof(drv));
	has_link = *netdev && !cni_link_get(d->sys, netdev, 0, &l);
	ib = has_link && l.type == ARPHRD_INFINIBAND;
	pf_rdma = cni_pci_rdma_devs(CNI_PCI_ROOT, pf, rdma, 1) > 0;
	if (has_link && cni_link_vfs_get(d->sys, l.ifindex, &info, &n_info, NULL))
		n_info = 0;
	doctor_put(o, "pci", doctor_str(pf));
	doctor_put(o, "driver", doctor_str(*drv ? drv : NULL));
	doctor_put(o, "netdev", doctor_str(*netdev ? netdev : NULL));
	doctor_put(o, "linkType", doctor_str(!has_link ? NULL : ib ? "InfiniBand" : "Ethernet"));
	if (!cni_pci_sriov_counts(CNI_PCI_ROOT, pf, &num, &total)) {
		doctor_put(o, "numVfs", json_object_new_int((int)num));
		doctor_put(o, "totalVfs", json_object_new_int((int)total));
	}
	for (unsigned int n = 0; n < DOCTOR_VFS_MAX; n++) {
		struct vf_facts f = {.ib = ib, .pf_rdma = pf_rdma};
		char vf[CNI_PCI_ADDR_LEN];

		if (cni_pci_vf_addr(CNI_PCI_ROOT, pf, n, vf))
			break;
		for (size_t i = 0; i < n_info; i++)
			if (info[i].vf == n)
				f.info = &info[i];
		json_object_array_add(vfs, vf_report(d, vf, &f));
	}
	doctor_put(o, "vfs", vfs);
	if (!json_object_array_length(vfs))
		doctor_finding(d, "info", pf,
			       "echo N > /sys/bus/pci/devices/<PF>/sriov_numvfs (or the SR-IOV "
			       "network operator's SriovNetworkNodePolicy)",
			       "SR-IOV PF %s has no VFs enabled", pf);
	return o;
}

void doctor_section_pfs(struct doctor *d)
{
	struct json_object *arr = json_object_new_array();
	char pfs[DOCTOR_PFS_MAX][CNI_PCI_ADDR_LEN];
	int n = cni_pci_sriov_pfs(CNI_PCI_ROOT, pfs, DOCTOR_PFS_MAX);

	for (int i = 0; i < n; i++)
		json_object_array_add(arr, pf_report(d, pfs[i]));
	doctor_put(d->root, "pfs", arr);
	if (n <= 0)
		doctor_finding(d, "warning", CNI_PCI_ROOT,
			       "enable SR-IOV on the NIC (firmware SRIOV_EN, then sriov_numvfs)",
			       "no SR-IOV PF here: ib-sriov has no VF to give a pod");
}
