// SPDX-License-Identifier: Apache-2.0
/* guidFallback: a GUID for an InfiniBand VF that has none (all zeros or all
 * ones) when none was given. It is derived from the PF's port GUID and the
 * VF index (guid.c; docs/guid.md proves it unique) and then goes the way
 * of a given GUID: originals recorded, set on the PF, the rebind, DEL's
 * restore of what the VF had, one attachment per GUID on the node. */
#include <errno.h>
#include <stdlib.h>

#include "add.h"
#include "base/cleanup.h"
#include "base/log.h"
#include "guid.h"

/* The VF's GUID now: its IPoIB address, or (vfio-bound, no netdev) the
 * PF's VF table; false when neither tells. */
static bool current_guid(const struct add *a, const struct cni_vf *vfs, size_t n, uint64_t *g)
{
	if (!a->vfio) {
		*g = ibsriov_guid_from_hwaddr(a->vf.mac, a->vf.mac_len);
		return true;
	}
	for (size_t i = 0; i < n; i++)
		if (vfs[i].vf == (uint32_t)a->pci.vf_index && (vfs[i].mask & CNI_VF_PORT_GUID)) {
			*g = vfs[i].port_guid;
			return true;
		}
	return false;
}

/* Code 7 when another VF of the PF has g as its node or port GUID now (an
 * admin's or another tool's): two ports with one GUID break the fabric. */
static int taken(struct add *a, const struct cni_vf *vfs, size_t n, uint64_t g)
{
	char s[32];

	for (size_t i = 0; i < n; i++) {
		if (vfs[i].vf == (uint32_t)a->pci.vf_index)
			continue;
		if (!((vfs[i].mask & CNI_VF_NODE_GUID) && vfs[i].node_guid == g) &&
		    !((vfs[i].mask & CNI_VF_PORT_GUID) && vfs[i].port_guid == g))
			continue;
		return cni_errorf(&a->ctx->err, -EADDRINUSE, CNI_ERR_INVALID_CONFIG,
				  "the GUID guidFallback derives is in use",
				  "guidFallback gives VF %d of PF %s the GUID %s, which VF %u of "
				  "that PF already has; clear that VF's GUID or give this one a "
				  "GUID (runtimeConfig.infinibandGUID, args.cni.guid)",
				  a->pci.vf_index, a->pf.name, cni_guid_str(g, s, sizeof(s)),
				  vfs[i].vf);
	}
	return 0;
}

int ibsriov_guid_fallback(struct add *a, struct ibsriov_vf_table *t)
{
	struct ibsriov_conf *c = &a->conf;
	uint64_t cur = 0, pf, g;
	char s[2][32];
	int ret;

	if (!c->guid_fallback || c->has_guid || a->pf_passthrough)
		return 0;
	if (!a->ib) {
		log_info("%s is Ethernet (RoCE): guidFallback ignored", c->device);
		return 0;
	}
	ret = ibsriov_vf_table(a, t);
	if (ret)
		return ret;
	if (!current_guid(a, t->vfs, t->n, &cur) || !ibsriov_guid_unset(cur))
		return 0;
	/* The derived GUID must be checked against every VF's. */
	if (t->num_vf > 0 && t->n < (size_t)t->num_vf)
		return cni_errorf(&a->ctx->err, -EAGAIN, CNI_ERR_TRY_AGAIN,
				  "guidFallback cannot read every VF's GUID",
				  "PF %s reported %zu of its %d VFs (the driver skips a VF it "
				  "cannot read, one resetting): the GUID derived for VF %d cannot "
				  "be checked against the others; retry",
				  a->pf.name, t->n, t->num_vf, a->pci.vf_index);
	pf = ibsriov_guid_from_hwaddr(a->pf.mac, a->pf.mac_len);
	g = ibsriov_guid_derive(pf, (unsigned int)a->pci.vf_index);
	if (!g)
		return cni_errorf(
		    &a->ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG,
		    "guidFallback cannot derive a GUID",
		    "guidFallback derives VF %d's GUID from its PF's port GUID, and PF %s has %s, "
		    "not one a vendor assigned (universal, individual); give the VF a GUID "
		    "(runtimeConfig.infinibandGUID, args.cni.guid) or remove guidFallback",
		    a->pci.vf_index, a->pf.name, cni_guid_str(pf, s[0], sizeof(s[0])));
	ret = taken(a, t->vfs, t->n, g);
	if (ret)
		return ret;
	c->has_guid = true;
	c->guid = g;
	c->guid_from = "guidFallback";
	log_info("VF %s has GUID %s: guidFallback gives it %s", c->device,
		 cni_guid_str(cur, s[0], sizeof(s[0])), cni_guid_str(g, s[1], sizeof(s[1])));
	return 0;
}
