// SPDX-License-Identifier: Apache-2.0
/* ADD's steps on the VF as its PF configures it: the PF-side settings (read,
 * recorded, then applied one by one), the rebind that applies a GUID, and
 * the admin MAC followed onto the netdev. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "release/release.h"
#include "add.h"
#include "base/cleanup.h"
#include "base/log.h"
#include "base/util.h"
#include "guid.h"
#include "kernel/pci.h"
#include "state/lock.h"

/* Whether the VF had no administrative MAC. mlx5 reports zeros then; igb
 * and others report the VF's own MAC, which an admin MAC would equal too:
 * there, restoring "unset" is what leaves the VF free to pick its MAC. */
static bool admin_mac_unset(const struct add *a, const struct cni_vf *cur)
{
	static const unsigned char zero[6];

	if (!memcmp(cur->mac, zero, 6))
		return true;
	if (!strcmp(a->pci.driver, "mlx5_core"))
		return false;
	return a->vf.mac_len == 6 && !memcmp(cur->mac, a->vf.mac, 6);
}

int ibsriov_vf_table(struct add *a, struct ibsriov_vf_table *t)
{
	int ret;

	if (t->read)
		return 0;
	ret = ibsriov_pf_link(a);
	if (ret)
		return ret;
	ret = cni_link_vfs_get(a->sys, a->pf.ifindex, &t->vfs, &t->n, &t->num_vf);
	if (ret)
		return fail(a, ret, CNI_ERR_DEVICE, "cannot read the VF table of the PF",
			    a->pf.name);
	t->read = true;
	return 0;
}

void ibsriov_vf_table_forget(struct ibsriov_vf_table *t)
{
	free(t->vfs);
	*t = (struct ibsriov_vf_table){0};
}

/* The VF's current PF-side settings; ADD changes nothing it cannot read
 * back, so nothing it cannot restore. -ENOENT when the PF reports none. */
static int read_vf(struct add *a, struct ibsriov_vf_table *t, const struct cni_vf *want,
		   struct cni_vf *cur)
{
	int ret = ibsriov_vf_table(a, t);

	if (ret)
		return ret;
	for (size_t i = 0; i < t->n; i++)
		if (t->vfs[i].vf == want->vf) {
			*cur = t->vfs[i];
			return 0;
		}
	return -ENOENT;
}

/* PF-side settings: the originals into the record first, then one
 * request per setting, so a refusal names its setting and changes nothing
 * the rollback would then have to put back. */
int ibsriov_vf_apply(struct add *a, struct ibsriov_vf_table *t)
{
	static const uint32_t order[] = {CNI_VF_NODE_GUID | CNI_VF_PORT_GUID,
					 CNI_VF_MAC,
					 CNI_VF_VLAN,
					 CNI_VF_RATE,
					 CNI_VF_SPOOFCHK,
					 CNI_VF_TRUST,
					 CNI_VF_LINK_STATE};
	struct cni_vf want = a->conf.vf, cur = {0};
	uint32_t missing;
	char what[128];
	int ret;

	if (a->ib && a->conf.has_guid &&
	    ibsriov_guid_from_hwaddr(a->vf.mac, a->vf.mac_len) != a->conf.guid) {
		want.mask |= CNI_VF_NODE_GUID | CNI_VF_PORT_GUID;
		want.node_guid = want.port_guid = a->conf.guid;
	}
	if (!want.mask)
		return 0;
	want.vf = (uint32_t)a->pci.vf_index;
	ret = read_vf(a, t, &want, &cur);
	if (ret && ret != -ENOENT)
		return ret;
	/* A PF that reports no VF settings cannot take an admin MAC; the MAC
	 * then goes on the VF netdev only (move_in). */
	if (ret && want.mask == CNI_VF_MAC) {
		log_info("PF %s reports no VF settings: MAC set on the VF netdev only", a->pf.name);
		return 0;
	}
	missing = ret ? want.mask : want.mask & ~cur.mask;
	if (missing)
		return cni_errorf(
		    &a->ctx->err, -EOPNOTSUPP, CNI_ERR_DEVICE,
		    "the PF does not report a VF setting the network asks for",
		    "PF %s does not report %s of VF %d: ib-sriov changes nothing it cannot "
		    "read back and restore; remove the key or use a PF driver that reports it",
		    a->pf.name, ibsriov_vf_setting_name(missing), a->pci.vf_index);
	a->rec.vf_orig = cur;
	a->rec.vf_orig.mask = want.mask;
	a->rec.vf_changed = want.mask;
	a->rec.flags |= IBSRIOV_REC_HAS_VF_ORIG;
	if ((want.mask & CNI_VF_MAC) && admin_mac_unset(a, &cur))
		a->rec.flags |= IBSRIOV_REC_MAC_UNSET;
	ret = ibsriov_record_save(&a->rec);
	if (ret)
		return fail(a, ret, CNI_ERR_IO, "cannot update the attachment record", a->rec.name);
	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		struct cni_vf one = want;

		one.mask = want.mask & order[i];
		if (!one.mask)
			continue;
		ret = cni_link_vf_set(a->sys, a->pf.ifindex, &one);
		if (ret) {
			/* Refused as a whole: nothing of it to restore. */
			a->rec.vf_changed &= ~one.mask;
			snprintf(what, sizeof(what), "PF %s refused %s of VF %d", a->pf.name,
				 ibsriov_vf_setting_name(one.mask), a->pci.vf_index);
			return fail(a, ret, CNI_ERR_DEVICE, "cannot configure the VF on its PF",
				    what);
		}
	}
	log_info("configured VF %d on PF %s", a->pci.vf_index, a->pf.name);
	return 0;
}

/* The VF's driver re-initialises it (under the PF's lock); its netdev is
 * then found again by PCI address, never by its old name. */
static int rebind_vf(struct add *a, const char *why)
{
	char name[IFNAMSIZ], what[96];
	int lock, ret;

	lock = ibsriov_lock("pf", a->pci.pf_addr, &a->ctx->err);
	if (lock < 0)
		return lock;
	ret = cni_pci_rebind(CNI_PCI_ROOT, a->conf.device);
	cni_lock_release(lock);
	snprintf(what, sizeof(what), "%s (%s)", a->conf.device, why);
	if (ret)
		return fail(a, ret, CNI_ERR_DEVICE, "cannot rebind the VF", what);
	ret = cni_pci_wait_netdev(CNI_PCI_ROOT, a->conf.device, a->conf.netdev_wait_ms, name);
	if (!ret)
		ret = cni_link_get(a->sys, name, 0, &a->vf);
	if (ret)
		return fail(a, ret, CNI_ERR_DEVICE,
			    "the VF's netdev did not come back after the rebind", what);
	return 0;
}

/* A new GUID takes effect when the VF's driver re-initialises it. */
int ibsriov_vf_rebind(struct add *a)
{
	if (!a->ib || !a->conf.has_guid || a->vfio ||
	    ibsriov_guid_from_hwaddr(a->vf.mac, a->vf.mac_len) == a->conf.guid)
		return 0;
	return rebind_vf(a, "to apply its GUID");
}

/* The admin MAC on the netdev too, before the move. Some drivers (igb,
 * untrusted VF) refuse the VF's own change to it once it is set: the
 * netdev takes the admin MAC when the driver re-initialises the VF. */
int ibsriov_vf_mac_follow(struct add *a)
{
	const unsigned char *mac = a->conf.vf.mac;
	int ret;

	if (a->ib || a->vfio || !(a->rec.vf_changed & CNI_VF_MAC) ||
	    (a->vf.mac_len == 6 && !memcmp(a->vf.mac, mac, 6)))
		return 0;
	ret = cni_link_set_mac(a->sys, a->vf.ifindex, mac, 6);
	if (ret == -EADDRNOTAVAIL || ret == -EPERM)
		return rebind_vf(a, "to apply its admin MAC");
	if (ret)
		return fail(a, ret, CNI_ERR_INTERNAL, "cannot set the VF netdev's MAC", a->vf.name);
	return cni_link_get(a->sys, NULL, a->vf.ifindex, &a->vf);
}

/* The PF's link (its index, type), read once. */
int ibsriov_pf_link(struct add *a)
{
	if (a->pf.ifindex)
		return 0;
	if (cni_link_get(a->sys, a->pci.pf_netdev, 0, &a->pf))
		return cni_errorf(
		    &a->ctx->err, -ENODEV, CNI_ERR_DEVICE, "the VF's PF has no netdev",
		    "PF %s of %s: the PF driver must be loaded", a->pci.pf_addr, a->conf.device);
	a->rec.pf_ifindex = a->pf.ifindex;
	return 0;
}
