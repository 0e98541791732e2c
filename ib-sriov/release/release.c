// SPDX-License-Identifier: Apache-2.0
/* Undoing what ADD did to a VF: its PF-side settings back to what the
 * record says they were, its RDMA devices back from the pod, in the order
 * ibsriov_release gives (the netdev's part is netdev.c).
 *
 * The rule for every undo step: only a definite answer (the netns is gone,
 * the device is gone) lets it be skipped; any other error fails the
 * command and keeps the record, so the runtime's retry finishes the job. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "release.h"
#include "base/cleanup.h"
#include "guid.h"
#include "devinfo.h"
#include "ibsriov.h"
#include "state/lock.h"
#include "kernel/netns.h"
#include "state/state.h"
#include "kernel/rdma.h"
#include "kernel/rdma_move.h"
#include "rail.h"
#include "base/util.h"

/* PF-side settings, one request each, in the reverse of ADD's order. */
static const struct {
	uint32_t bits;
	const char *name;
} vf_settings[] = {
    {CNI_VF_LINK_STATE, "link_state"},
    {CNI_VF_TRUST, "trust"},
    {CNI_VF_SPOOFCHK, "spoofchk"},
    {CNI_VF_RATE, "min_tx_rate/max_tx_rate"},
    {CNI_VF_VLAN, "vlan/vlanQoS/vlanProto"},
    {CNI_VF_MAC, "mac"},
    {CNI_VF_NODE_GUID | CNI_VF_PORT_GUID, "guid"},
};

const char *ibsriov_vf_setting_name(uint32_t bits)
{
	for (size_t i = 0; i < ARRAY_SIZE(vf_settings); i++)
		if (vf_settings[i].bits & bits)
			return vf_settings[i].name;
	return "?";
}

/* Whether cur already holds want's value for the setting bits. */
static bool vf_same(const struct cni_vf *cur, const struct cni_vf *want, uint32_t bits)
{
	if ((cur->mask & bits) != bits)
		return false;
	switch (bits) {
	case CNI_VF_LINK_STATE:
		return cur->link_state == want->link_state;
	case CNI_VF_TRUST:
		return cur->trust == want->trust;
	case CNI_VF_SPOOFCHK:
		return cur->spoofchk == want->spoofchk;
	case CNI_VF_RATE:
		return cur->min_tx_rate == want->min_tx_rate &&
		       cur->max_tx_rate == want->max_tx_rate;
	case CNI_VF_VLAN:
		return cur->vlan == want->vlan && cur->qos == want->qos &&
		       (!want->vlan || cur->vlan_proto == want->vlan_proto);
	case CNI_VF_MAC:
		return !memcmp(cur->mac, want->mac, 6);
	default:
		return cur->node_guid == want->node_guid && cur->port_guid == want->port_guid;
	}
}

static int pf_ifindex(struct cni_sys *sys, const struct ibsriov_record *r)
{
	struct cni_link link;

	/* The PF may have been renamed or re-created: look it up again. */
	if (*r->pf && cni_link_get(sys, r->pf, 0, &link) == 0)
		return link.ifindex;
	return r->pf_ifindex;
}

int ibsriov_vf_restore(struct cni_sys *sys, const struct ibsriov_record *r, const char **what)
{
	struct cni_vf orig = r->vf_orig, *vfs = NULL, *cur = NULL;
	size_t n = 0;
	int pf, ret = 0;

	*what = NULL;
	/* Nothing changed, nothing to restore: the PF is not even looked up. */
	if (!(r->flags & IBSRIOV_REC_HAS_VF_ORIG) || !r->vf_changed || !(pf = pf_ifindex(sys, r)))
		return 0;
	orig.vf = (uint32_t)r->vf;
	/* "No admin MAC" is restored as such: zeros clear it. */
	if (r->flags & IBSRIOV_REC_MAC_UNSET)
		memset(orig.mac, 0, sizeof(orig.mac));
	if (cni_link_vfs_get(sys, pf, &vfs, &n, NULL) == 0)
		for (size_t i = 0; i < n; i++)
			if (vfs[i].vf == orig.vf)
				cur = &vfs[i];
	for (size_t i = 0; !ret && i < ARRAY_SIZE(vf_settings); i++) {
		uint32_t bits = vf_settings[i].bits & r->vf_changed;
		struct cni_vf one = orig;

		if (!bits || (cur && !(r->flags & IBSRIOV_REC_MAC_UNSET && bits == CNI_VF_MAC) &&
			      vf_same(cur, &orig, bits)))
			continue;
		one.mask = bits;
		ret = cni_link_vf_set(sys, pf, &one);
		if (ret)
			*what = vf_settings[i].name;
		/* Like ADD, a GUID takes effect when the driver re-initialises the VF. */
		if (!ret && (bits & CNI_VF_NODE_GUID) && r->kind != IBSRIOV_VFIO) {
			char name[IFNAMSIZ];

			ret = cni_pci_rebind(CNI_PCI_ROOT, r->device);
			if (!ret)
				ret = cni_pci_wait_netdev(CNI_PCI_ROOT, r->device,
							  IBSRIOV_NETDEV_WAIT_MS, name);
			if (ret)
				*what = "rebind after the GUID";
		}
	}
	free(vfs);
	return ret;
}

/* The RDMA devices that rdmaIsolation moved, back from the pod: by index
 * (a pod may rename them), by name for a record of an older build. */
static int rdma_release(struct cni_sys *sys, const struct ibsriov_record *r, struct cni_error *err)
{
	struct cni_rdma_ref refs[IBSRIOV_RECORD_RDMA_MAX];
	_cleanup_close_ int pod = -1;
	const char *failed = NULL;
	int ret;

	if (!(r->flags & IBSRIOV_REC_HAS_RDMA) || !r->n_rdma)
		return 0;
	ret = ibsriov_open_pod(sys, r, &pod, err);
	if (ret || pod < 0)
		return ret;
	for (unsigned int i = 0; i < r->n_rdma; i++)
		refs[i] = (struct cni_rdma_ref){.name = r->rdma[i],
						.index = r->rdma_index[i],
						.has_index = r->flags & IBSRIOV_REC_HAS_RDMA_INDEX};
	ret = cni_rdma_return(sys, pod, refs, r->n_rdma, &failed);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_DEVICE,
				  "cannot move the RDMA device back to the host", "%s: %s %s",
				  failed ? failed : "(entering the pod)", cni_rdma_strerror(ret),
				  cni_sys_ext_ack(sys));
	return 0;
}

int ibsriov_lock(const char *kind, const char *pci, struct cni_error *err)
{
	return ibsriov_lock_wait(kind, pci, IBSRIOV_LOCK_WAIT_MS, err);
}

int ibsriov_lock_wait(const char *kind, const char *pci, unsigned int wait_ms,
		      struct cni_error *err)
{
	_cleanup_close_ int dir =
	    cni_state_opendir(IBSRIOV_LOCK_DIR, CNI_DIR_CREATE | CNI_DIR_PRIVATE);
	char name[NAME_MAX + 1], path[PATH_MAX];

	if (dir < 0)
		return cni_errorf(err, dir, CNI_ERR_IO, "cannot create the lock directory",
				  "%s: %s", IBSRIOV_LOCK_DIR, strerror(-dir));
	if (check_snprintf(name, sizeof(name), "%s-%s.lock", kind, pci) ||
	    check_snprintf(path, sizeof(path), "%s/%s", IBSRIOV_LOCK_DIR, name))
		return -ENAMETOOLONG;
	return cni_lock_acquireat(dir, name, path, wait_ms, err);
}

int ibsriov_record_hold(const struct ibsriov_record *seen, unsigned int wait_ms,
			struct ibsriov_record *now, struct cni_error *err)
{
	int lock = ibsriov_lock_wait("vf", seen->device, wait_ms, err), ret;

	memset(now, 0, sizeof(*now));
	if (lock < 0)
		return lock;
	/* seen was read before the lock: a healing ADD or the agent may have
	 * released it since, and the VF may be another pod's by now. */
	ret = ibsriov_record_reload(seen, now);
	if (!ret)
		return lock;
	cni_lock_release(lock);
	if (ret == -ENOENT)
		return ret;
	return cni_errorf(err, ret, CNI_ERR_IO, "cannot read the attachment record again",
			  "%s/%s: %s; nothing was undone, retry", IBSRIOV_STATE_DIR, seen->name,
			  strerror(-ret));
}

int ibsriov_release_locked(struct cni_sys *sys, const struct ibsriov_record *seen,
			   struct cni_error *err)
{
	struct ibsriov_record now;
	int lock = ibsriov_record_hold(seen, IBSRIOV_LOCK_WAIT_MS, &now, err), ret;

	if (lock == -ENOENT) {
		log_info("%s of container %s was released by another since it was read (VF %s): "
			 "nothing to undo",
			 seen->ifname, seen->container_id, seen->device);
		return 1;
	}
	if (lock < 0)
		return lock;
	ret = ibsriov_release(sys, &now, err);
	ibsriov_record_clear(&now);
	cni_lock_release(lock);
	return ret;
}

/* railTable's rules out of the pod, while the netdev is still there. */
static int rail_release(struct cni_sys *sys, const struct ibsriov_record *r, struct cni_error *err)
{
	_cleanup_close_ int pod = -1;
	int ret;

	if (!(r->flags & IBSRIOV_REC_HAS_RAIL) || !r->n_rail_rules)
		return 0;
	ret = ibsriov_open_pod(sys, r, &pod, err);
	if (ret || pod < 0)
		return ret;
	return ibsriov_rail_undo(sys, r, pod, err);
}

int ibsriov_release(struct cni_sys *sys, struct ibsriov_record *r, struct cni_error *err)
{
	const char *what;
	int ret = rail_release(sys, r, err);

	if (!ret)
		ret = ibsriov_netdev_leave(sys, r, err);

	if (!ret)
		ret = rdma_release(sys, r, err);
	if (ret)
		return ret;
	ret = ibsriov_vf_restore(sys, r, &what);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_DEVICE,
				  "cannot restore the VF's settings on its PF",
				  "PF %s VF %d refused %s: %s %s", r->pf, r->vf, what ? what : "?",
				  strerror(-ret), cni_sys_ext_ack(sys));
	ret = ibsriov_netdev_restore(sys, r, err);
	if (!ret)
		ret = ibsriov_devinfo_remove(r, err);
	if (ret)
		return ret;
	ret = ibsriov_record_remove(r);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot remove the attachment record",
				  "%s/%s: %s", IBSRIOV_STATE_DIR, r->name, strerror(-ret));
	return 0;
}
