// SPDX-License-Identifier: Apache-2.0
/* Undoing what ADD did to a VF: its netdev back from the pod, its PF-side
 * settings back to what the record says they were.
 *
 * The rule for every undo step: only a definite answer (the netns is gone,
 * the device is gone) lets it be skipped; any other error fails the
 * command and keeps the record, so the runtime's retry finishes the job. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "guid.h"
#include "ibsriov.h"
#include "lock.h"
#include "netns.h"
#include "state.h"
#include "rdma.h"
#include "util.h"

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

static int pf_ifindex(const struct ibsriov_record *r)
{
	struct cni_link link;

	/* The PF may have been renamed or re-created: look it up again. */
	if (*r->pf && cni_link_get(r->pf, 0, &link) == 0)
		return link.ifindex;
	return r->pf_ifindex;
}

int ibsriov_vf_restore(const struct ibsriov_record *r, const char **what)
{
	struct cni_vf orig = r->vf_orig, *vfs = NULL, *cur = NULL;
	size_t n = 0;
	int pf, ret = 0;

	*what = NULL;
	/* Nothing changed, nothing to restore: the PF is not even looked up. */
	if (!(r->flags & IBSRIOV_REC_HAS_VF_ORIG) || !r->vf_changed || !(pf = pf_ifindex(r)))
		return 0;
	orig.vf = (uint32_t)r->vf;
	/* "No admin MAC" is restored as such: zeros clear it. */
	if (r->flags & IBSRIOV_REC_MAC_UNSET)
		memset(orig.mac, 0, sizeof(orig.mac));
	if (cni_link_vfs_get(pf, &vfs, &n) == 0)
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
		ret = cni_link_vf_set(pf, &one);
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

/* Is l the recorded VF (or its IPoIB child), and not something a pod built
 * to look like it? The kernel's parent device cannot be forged; without it
 * (a virtual VF, or a kernel before 5.16) the recorded ifindex and kind
 * must match. pod: l was found in the pod's netns. */
bool ibsriov_vf_is_ours(const struct ibsriov_record *r, const struct cni_link *l, bool pod)
{
	if (*l->parent_bus) {
		if (strcmp(l->parent_bus, "pci") || strcmp(l->parent_dev, r->device))
			return false;
		/* An IPoIB child (ours, or one the pod made) shares the VF's
		 * parent: in the pod the recorded index tells them apart. */
		return !pod || !r->pod_ifindex || l->ifindex == r->pod_ifindex;
	}
	if (!((r->pod_ifindex && l->ifindex == r->pod_ifindex) ||
	      (!pod && r->orig_ifindex && l->ifindex == r->orig_ifindex)))
		return false;
	/* A virtual VF (the simulated node's veth) also keeps its peer on the
	 * host: one made in the pod has its peer beside it, not elsewhere. */
	if (pod && r->iflink && r->iflink != r->orig_ifindex &&
	    (l->iflink != r->iflink || !l->iflink_elsewhere))
		return false;
	/* 0.x records did not keep the kind. */
	return r->version < 2 || !strcmp(l->kind, r->link_kind);
}

/* Find the VF netdev in the current namespace: by recorded ifindex, then
 * by name; only a verified link counts. -ENODEV when none; any other error
 * of the lookup is returned as it is (not "gone"). */
static int find_here(const struct ibsriov_record *r, const char *const *names, size_t n, bool pod,
		     struct cni_link *l)
{
	int idx = pod ? r->pod_ifindex : 0, ret;

	if (idx) {
		ret = cni_link_get(NULL, idx, l);
		if (ret == 0 && ibsriov_vf_is_ours(r, l, pod))
			return 0;
		if (ret && ret != -ENODEV)
			return ret;
	}
	for (size_t i = 0; i < n; i++) {
		if (!*names[i])
			continue;
		ret = cni_link_get(names[i], 0, l);
		if (ret == -ENODEV)
			continue;
		if (ret)
			return ret;
		if (ibsriov_vf_is_ours(r, l, pod))
			return 0;
		log_warn("%s in %s is not VF %s: left where it is", l->name,
			 pod ? r->netns : "the host", r->device);
	}
	return -ENODEV;
}

/* Open the pod's netns; 0 with *fd -1 when it is gone (ENOENT). */
static int open_pod(const struct ibsriov_record *r, int *fd, struct cni_error *err)
{
	struct cni_error scratch = {0};

	*fd = -1;
	if (!r->netns || !*r->netns)
		return 0;
	*fd = cni_netns_open(r->netns, &scratch);
	if (*fd >= 0)
		return 0;
	if (*fd == -ENOENT) {
		*fd = -1;
		return 0; /* the pod is gone: the kernel took the VF back */
	}
	return cni_error_adopt(err, &scratch, *fd);
}

/* The pod's attempts at a move and what each asks the kernel to name the
 * VF in the host: the recorded name, else one the kernel picks. */
#define MOVE_TRIES 3

/* In the pod, the VF l down: its alternative names dropped (none may
 * reach the host), then moved and named in one request, the name checked
 * in the host only. -EEXIST from the kernel is either a refused move (a
 * name of the VF is taken in the host, or the pod added an altname since)
 * or a done move whose rename failed: the VF's absence from the pod tells. */
static int move_out(const struct ibsriov_record *r, struct cni_link *l, int host_fd)
{
	const char *target = *r->orig_name ? r->orig_name : r->tmpname;
	int ret = -EEXIST;

	for (int i = 0; i < MOVE_TRIES && ret == -EEXIST; i++) {
		struct cni_link now;
		int again;

		ret = l->n_altnames ? cni_link_altnames_clear(l->ifindex) : 0;
		if (!ret)
			ret = cni_link_move_named(l->ifindex, host_fd, i ? "dev%d" : target);
		if (ret != -EEXIST)
			break;
		again = cni_link_get(NULL, l->ifindex, &now);
		if (again == -ENODEV || (!again && !ibsriov_vf_is_ours(r, &now, true)))
			return 0; /* moved; netdev_restore names it */
		if (again)
			return again;
		*l = now;
	}
	return ret;
}

/* In the pod: down, alternative names dropped, back to the host namespace. */
static int leave_pod(const struct ibsriov_record *r, int host_fd, struct cni_error *err)
{
	/* The host name too: an ADD whose rename in the pod failed left it. */
	const char *names[] = {r->ifname, r->tmpname, r->orig_name};
	_cleanup_close_ int pod = -1;
	struct cni_link l;
	int saved = -1, ret;

	ret = open_pod(r, &pod, err);
	if (ret || pod < 0)
		return ret;
	ret = cni_netns_enter(pod, &saved);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_INTERNAL,
				  "cannot enter the pod network namespace", "%s: %s", r->netns,
				  strerror(-ret));
	ret = find_here(r, names, ARRAY_SIZE(names), true, &l);
	if (ret == -ENODEV) {
		ret = 0; /* not in the pod (never moved, or already back) */
		goto out;
	}
	if (ret) {
		cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot look for the VF in the pod",
			   "%s: %s", r->netns, strerror(-ret));
		goto out;
	}
	if (r->flags & IBSRIOV_REC_HAS_CHILD) {
		/* An IPoIB child of ours: it goes away, the VF netdev never left. */
		ret = cni_link_delete(l.ifindex);
		goto out;
	}
	ret = l.flags & IFF_UP ? cni_link_set_up(l.ifindex, false) : 0;
	if (!ret)
		ret = move_out(r, &l, host_fd);
	if (ret == -EEXIST)
		cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot move the VF back to the host",
			   "%s in %s: its name or an alternative name the pod keeps adding is "
			   "taken in the host (%s, or any devN tried); the record stays for the "
			   "next DEL or GC %s",
			   l.name, r->netns, *r->orig_name ? r->orig_name : r->tmpname,
			   cni_link_ext_ack());
	else if (ret)
		cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot move the VF back to the host",
			   "%s in %s: %s %s", l.name, r->netns, strerror(-ret), cni_link_ext_ack());
out:
	if (cni_netns_restore(&saved) && !ret)
		ret = cni_errorf(err, -EIO, CNI_ERR_INTERNAL, "cannot return to the host namespace",
				 "after %s", r->netns);
	return ret;
}

/* A child that never reached the pod; then the parent's state. */
static int find_on_host(const struct ibsriov_record *r, struct cni_link *l);

static int child_release(const struct ibsriov_record *r, struct cni_error *err)
{
	struct cni_link l;
	int ret = cni_link_get(r->tmpname, 0, &l);

	if (ret && ret != -ENODEV)
		return cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot look for the IPoIB child",
				  "%s: %s", r->tmpname, strerror(-ret));
	if (!ret && !strcmp(l.kind, "ipoib") && (ret = cni_link_delete(l.ifindex)))
		return cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot delete the IPoIB child",
				  "%s: %s", r->tmpname, strerror(-ret));
	ret = find_on_host(r, &l);
	if (ret == 0 && !r->orig_up)
		ret = cni_link_set_up(l.ifindex, false);
	return ret == -ENODEV ? 0 : ret;
}

/* The netdev's own MAC. After "no admin MAC" was restored (zeros) the VF
 * must say its MAC again even when the netdev still has it: igb, for one,
 * drops its filter with the admin MAC and reports zeros until the VF sets
 * one. The kernel skips a change to the same address, so it goes through
 * a neighbour address first. */
static int restore_mac(const struct ibsriov_record *r, const struct cni_link *l)
{
	unsigned char other[6];
	int ret;

	if ((r->flags & IBSRIOV_REC_MAC_UNSET) && (r->vf_changed & CNI_VF_MAC) &&
	    !memcmp(l->mac, r->orig_mac, 6)) {
		memcpy(other, r->orig_mac, 6);
		other[5] ^= 1;
		ret = cni_link_set_mac(l->ifindex, other, 6);
		if (ret)
			return ret;
	} else if (!memcmp(l->mac, r->orig_mac, 6)) {
		return 0;
	}
	return cni_link_set_mac(l->ifindex, r->orig_mac, 6);
}

/* Down for the rename and the rest (back from the pod it usually is
 * already); every name the pod gave it dropped, here too (a pod that is
 * gone returned it with them); then name, MTU, MAC, the attributes ADD
 * recorded, and the state as found. *what names a refused step. */
static int restore_netdev(const struct ibsriov_record *r, const struct cni_link *l,
			  const char **what)
{
	int ret = 0;

	*what = "down";
	if (l->flags & IFF_UP)
		ret = cni_link_set_up(l->ifindex, false);
	if (!ret && l->n_altnames) {
		*what = "alternative names";
		ret = cni_link_altnames_clear(l->ifindex);
	}
	if (!ret && *r->orig_name && strcmp(l->name, r->orig_name)) {
		*what = "name";
		ret = cni_link_rename(l->ifindex, r->orig_name);
	}
	if (!ret && r->orig_mtu && l->mtu != r->orig_mtu) {
		*what = "mtu";
		ret = cni_link_set_mtu(l->ifindex, r->orig_mtu);
	}
	if (!ret && r->orig_mac_len == 6 && r->kind == IBSRIOV_ETH) {
		*what = "mac";
		ret = restore_mac(r, l);
	}
	if (!ret && (r->flags & IBSRIOV_REC_HAS_ATTRS))
		ret = cni_link_attrs_set(l->ifindex, &r->orig_attrs, &l->attrs, what);
	if (!ret && r->orig_up) {
		*what = "up";
		ret = cni_link_set_up(l->ifindex, true);
	}
	return ret;
}

/* Step one: the netdev out of the pod (verified, or left), nothing
 * restored yet: the PF side goes first, since a driver may refuse the
 * VF's own MAC change while an admin MAC is set (igb, untrusted). */
static int netdev_leave(const struct ibsriov_record *r, struct cni_error *err)
{
	_cleanup_close_ int host = -1;

	if (r->kind == IBSRIOV_VFIO || !(r->flags & IBSRIOV_REC_HAS_NETDEV))
		return 0;
	host = cni_netns_open_current();
	if (host < 0)
		return cni_errorf(err, host, CNI_ERR_INTERNAL, "cannot open the host namespace",
				  "%s", strerror(-host));
	return leave_pod(r, host, err);
}

/* The VF netdev on the host. Back from a deleted pod (or after a rebind)
 * it keeps the pod's name (or devN, or a new one): sysfs's netdev of the
 * PCI function is the one name that holds, and no pod can put a link in
 * the host's namespace; other names must prove they are the VF. */
static int find_on_host(const struct ibsriov_record *r, struct cni_link *l)
{
	const char *names[] = {r->tmpname, r->orig_name};
	char pci_name[IFNAMSIZ] = "";
	int ret;

	if (cni_pci_netdev(CNI_PCI_ROOT, r->device, pci_name) == 0) {
		ret = cni_link_get(pci_name, 0, l);
		if (ret != -ENODEV)
			return ret;
	}
	ret = find_here(r, names, ARRAY_SIZE(names), false, l);
	if (ret != -ENODEV)
		return ret;
	/* Back under a name no record holds (its pod name, or devN when the
	 * host had that): the index is kept across a move when it can be. */
	for (int i = 0; i < 2; i++) {
		int idx = i ? r->orig_ifindex : r->pod_ifindex;

		if (!idx || (ret = cni_link_get(NULL, idx, l)) == -ENODEV)
			continue;
		if (ret || ibsriov_vf_is_ours(r, l, false))
			return ret;
	}
	return -ENODEV;
}

/* Step two, after the PF side: name, MTU, MAC and state as found. */
static int netdev_restore(const struct ibsriov_record *r, struct cni_error *err)
{
	const char *what = NULL;
	struct cni_link l;
	int ret;

	if (r->kind == IBSRIOV_VFIO || !(r->flags & IBSRIOV_REC_HAS_NETDEV))
		return 0;
	if (r->flags & IBSRIOV_REC_HAS_CHILD)
		return child_release(r, err);
	ret = find_on_host(r, &l);
	if (ret == -ENODEV)
		return 0; /* gone with its pod (a virtual VF) or never had one */
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot look for the VF netdev",
				  "%s: %s", r->device, strerror(-ret));
	ret = restore_netdev(r, &l, &what);
	if (ret == -EEXIST && !strcmp(what, "name"))
		return cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot restore the VF netdev",
				  "%s: its name %s is taken in the host by another link; rename "
				  "that one, the record stays for the next DEL or GC",
				  l.name, r->orig_name);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot restore the VF netdev",
				  "%s (%s) refused its %s: %s %s", l.name, r->orig_name, what,
				  strerror(-ret), cni_link_ext_ack());
	return 0;
}

/* The RDMA devices that rdmaIsolation moved, back from the pod: by index
 * (a pod may rename them), by name for a record of an older build. */
static int rdma_release(const struct ibsriov_record *r, struct cni_error *err)
{
	struct cni_rdma_ref refs[IBSRIOV_RECORD_RDMA_MAX];
	_cleanup_close_ int pod = -1;
	const char *failed = NULL;
	int ret;

	if (!(r->flags & IBSRIOV_REC_HAS_RDMA) || !r->n_rdma)
		return 0;
	ret = open_pod(r, &pod, err);
	if (ret || pod < 0)
		return ret;
	for (unsigned int i = 0; i < r->n_rdma; i++)
		refs[i] = (struct cni_rdma_ref){.name = r->rdma[i],
						.index = r->rdma_index[i],
						.has_index = r->flags & IBSRIOV_REC_HAS_RDMA_INDEX};
	ret = cni_rdma_return(pod, refs, r->n_rdma, &failed);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_DEVICE,
				  "cannot move the RDMA device back to the host", "%s: %s %s",
				  failed ? failed : "(entering the pod)", cni_rdma_strerror(ret),
				  cni_rdma_ext_ack());
	return 0;
}

int ibsriov_lock(const char *kind, const char *pci, struct cni_error *err)
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
	return cni_lock_acquireat(dir, name, path, IBSRIOV_LOCK_WAIT_MS, err);
}

int ibsriov_release_locked(struct ibsriov_record *r, struct cni_error *err)
{
	int lock = ibsriov_lock("vf", r->device, err), ret;

	if (lock < 0)
		return lock;
	ret = ibsriov_release(r, err);
	cni_lock_release(lock);
	return ret;
}

int ibsriov_release(struct ibsriov_record *r, struct cni_error *err)
{
	const char *what;
	int ret = netdev_leave(r, err) ?: rdma_release(r, err);

	if (ret)
		return ret;
	ret = ibsriov_vf_restore(r, &what);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_DEVICE,
				  "cannot restore the VF's settings on its PF",
				  "PF %s VF %d refused %s: %s %s", r->pf, r->vf, what ?: "?",
				  strerror(-ret), cni_link_ext_ack());
	ret = netdev_restore(r, err);
	if (ret)
		return ret;
	ret = ibsriov_record_remove(r);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot remove the attachment record",
				  "%s/%s: %s", IBSRIOV_STATE_DIR, r->name, strerror(-ret));
	return 0;
}
