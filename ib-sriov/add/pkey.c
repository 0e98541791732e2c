// SPDX-License-Identifier: Apache-2.0
/* ADD's partition steps: the VF's pkey table waited on, and the IPoIB child
 * that joins the pod to a partition the VF netdev is not on. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>

#include "add.h"
#include "base/log.h"
#include "base/util.h"
#include "kernel/pci.h"
#include "kernel/verbs.h"

/* The VF's pkey table as an application sees it, through verbs; sysfs
 * when the device does not open (no uverbs, no provider for its driver). */
static int pkey_table(struct add *a, uint16_t *keys, size_t max)
{
	int n = cni_verbs_pkeys(a->pci.rdma_dev, 1, keys, max);

	if (n >= 0)
		return n;
	log_debug("pkey table of %s through verbs: %s; reading sysfs", a->pci.rdma_dev,
		  cni_verbs_strerror(n));
	return cni_pci_pkeys(CNI_PCI_ROOT, a->conf.device, a->pci.rdma_dev, 1, keys, max);
}

int ibsriov_pkey_present(struct add *a)
{
	uint64_t deadline = now_ms() + a->conf.pkey_wait_ms;
	uint16_t keys[128];
	int n;

	if (!a->conf.has_pkey || !a->conf.pkey_enforce)
		return 0;
	for (;;) {
		n = pkey_table(a, keys, 128);
		for (int i = 0; i < n; i++)
			if ((keys[i] & 0x7fff) == (a->conf.pkey & 0x7fff))
				return 0;
		if (now_ms() >= deadline)
			break;
		sleep_ms(100);
	}
	return cni_errorf(
	    &a->ctx->err, -ENOENT, CNI_ERR_DEVICE, "pkey not in the VF's pkey table",
	    "pkey %#06x is not in the table of %s port 1 (VF %s) after %u ms: the subnet "
	    "manager must add the VF's GUID to the partition",
	    a->conf.pkey, a->pci.rdma_dev, a->conf.device, a->conf.pkey_wait_ms);
}

/* The pod joins partition pkey through an IPoIB child of the VF's netdev
 * when the netdev itself is on another partition. The child (created under
 * the temporary name) is what moves into the pod; the VF netdev stays. */
int ibsriov_pkey_child(struct add *a)
{
	const char *tmp = a->rec.tmpname;
	struct cni_link child;
	int ret;

	if (!a->ib || a->vfio || !a->conf.has_pkey || !a->conf.pkey_enforce ||
	    (a->vf.ipoib && (a->vf.pkey & 0x7fff) == (a->conf.pkey & 0x7fff)))
		return 0;
	a->rec.flags |= IBSRIOV_REC_HAS_CHILD;
	ret = ibsriov_record_save(&a->rec);
	if (ret)
		return fail(a, ret, CNI_ERR_IO, "cannot update the attachment record", a->rec.name);
	if (!(a->vf.flags & IFF_UP) && (ret = cni_link_set_up(a->sys, a->vf.ifindex, true)))
		return fail(a, ret, CNI_ERR_INTERNAL, "cannot bring the VF netdev up", a->vf.name);
	ret = cni_link_ipoib_add(a->sys, a->vf.ifindex, tmp, a->conf.pkey, a->vf.ipoib_mode);
	if (!ret)
		ret = cni_link_get(a->sys, tmp, 0, &child);
	if (ret) {
		char what[64];

		snprintf(what, sizeof(what), "pkey %#06x on %s", a->conf.pkey, a->vf.name);
		return fail(a, ret, CNI_ERR_DEVICE, "cannot create the IPoIB child", what);
	}
	log_info("pkey %#06x: IPoIB child %s of %s", a->conf.pkey, tmp, a->vf.name);
	a->vf = child;
	return 0;
}
