// SPDX-License-Identifier: Apache-2.0
/* The VF netdev back from the pod and as the host had it: found only when
 * it proves to be the VF, its altnames dropped in the pod, moved and named
 * in one request (the name checked in the host only), then name, MTU, MAC,
 * the attributes ADD recorded and its state put back on the host.
 *
 * As everywhere in release: only a definite answer (the netns is gone, the
 * device is gone) lets a step be skipped. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "release.h"
#include "base/cleanup.h"
#include "ibsriov.h"
#include "kernel/netns.h"
#include "base/util.h"

/* Find the VF netdev in the current namespace: by recorded ifindex, then
 * by name; only a verified link counts. -ENODEV when none; any other error
 * of the lookup is returned as it is (not "gone"). */
static int find_here(struct cni_sys *sys, const struct ibsriov_record *r, const char *const *names,
		     size_t n, bool pod, struct cni_link *l)
{
	int idx = pod ? r->pod_ifindex : 0, ret;

	if (idx) {
		ret = cni_link_get(sys, NULL, idx, l);
		if (ret == 0 && ibsriov_vf_is_ours(r, l, pod))
			return 0;
		if (ret && ret != -ENODEV)
			return ret;
	}
	for (size_t i = 0; i < n; i++) {
		if (!*names[i])
			continue;
		ret = cni_link_get(sys, names[i], 0, l);
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

/* The pod's attempts at a move and what each asks the kernel to name the
 * VF in the host: the recorded name, else one the kernel picks. */
#define MOVE_TRIES 3

/* In the pod, the VF l down: its alternative names dropped (none may
 * reach the host), then moved and named in one request, the name checked
 * in the host only. -EEXIST from the kernel is either a refused move (a
 * name of the VF is taken in the host, or the pod added an altname since)
 * or a done move whose rename failed: the VF's absence from the pod tells. */
static int move_out(struct cni_sys *sys, const struct ibsriov_record *r, struct cni_link *l,
		    int host_fd)
{
	const char *target = *r->orig_name ? r->orig_name : r->tmpname;
	int ret = -EEXIST;

	for (int i = 0; i < MOVE_TRIES && ret == -EEXIST; i++) {
		struct cni_link now;
		int again;

		ret = l->n_altnames ? cni_link_altnames_clear(sys, l->ifindex) : 0;
		if (!ret)
			ret = cni_link_move_named(sys, l->ifindex, host_fd, i ? "dev%d" : target);
		if (ret != -EEXIST)
			break;
		again = cni_link_get(sys, NULL, l->ifindex, &now);
		if (again == -ENODEV || (!again && !ibsriov_vf_is_ours(r, &now, true)))
			return 0; /* moved; netdev_restore names it */
		if (again)
			return again;
		*l = now;
	}
	return ret;
}

/* In the pod: down, alternative names dropped, back to the host namespace. */
static int leave_pod(struct cni_sys *sys, const struct ibsriov_record *r, int host_fd,
		     struct cni_error *err)
{
	/* The host name too: an ADD whose rename in the pod failed left it. */
	const char *names[] = {r->ifname, r->tmpname, r->orig_name};
	_cleanup_close_ int pod = -1;
	struct cni_link l;
	int saved = -1, ret;

	ret = ibsriov_open_pod(sys, r, &pod, err);
	if (ret || pod < 0)
		return ret;
	ret = cni_netns_enter(sys, pod, &saved);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_INTERNAL,
				  "cannot enter the pod network namespace", "%s: %s", r->netns,
				  strerror(-ret));
	ret = find_here(sys, r, names, ARRAY_SIZE(names), true, &l);
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
		ret = cni_link_delete(sys, l.ifindex);
		goto out;
	}
	ret = l.flags & IFF_UP ? cni_link_set_up(sys, l.ifindex, false) : 0;
	if (!ret)
		ret = move_out(sys, r, &l, host_fd);
	if (ret == -EEXIST)
		cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot move the VF back to the host",
			   "%s in %s: its name or an alternative name the pod keeps adding is "
			   "taken in the host (%s, or any devN tried); the record stays for the "
			   "next DEL or GC %s",
			   l.name, r->netns, *r->orig_name ? r->orig_name : r->tmpname,
			   cni_sys_ext_ack(sys));
	else if (ret)
		cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot move the VF back to the host",
			   "%s in %s: %s %s", l.name, r->netns, strerror(-ret),
			   cni_sys_ext_ack(sys));
out:
	if (cni_netns_restore(sys, &saved) && !ret)
		ret = cni_errorf(err, -EIO, CNI_ERR_INTERNAL, "cannot return to the host namespace",
				 "after %s", r->netns);
	return ret;
}

/* A child that never reached the pod; then the parent's state. */
static int find_on_host(struct cni_sys *sys, const struct ibsriov_record *r, struct cni_link *l);

static int child_release(struct cni_sys *sys, const struct ibsriov_record *r, struct cni_error *err)
{
	struct cni_link l;
	int ret = cni_link_get(sys, r->tmpname, 0, &l);

	if (ret && ret != -ENODEV)
		return cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot look for the IPoIB child",
				  "%s: %s", r->tmpname, strerror(-ret));
	if (!ret && !strcmp(l.kind, "ipoib") && (ret = cni_link_delete(sys, l.ifindex)))
		return cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot delete the IPoIB child",
				  "%s: %s", r->tmpname, strerror(-ret));
	ret = find_on_host(sys, r, &l);
	if (ret == 0 && !r->orig_up)
		ret = cni_link_set_up(sys, l.ifindex, false);
	return ret == -ENODEV ? 0 : ret;
}

/* The netdev's own MAC. After "no admin MAC" was restored (zeros) the VF
 * must say its MAC again even when the netdev still has it: igb, for one,
 * drops its filter with the admin MAC and reports zeros until the VF sets
 * one. The kernel skips a change to the same address, so it goes through
 * a neighbour address first. */
static int restore_mac(struct cni_sys *sys, const struct ibsriov_record *r,
		       const struct cni_link *l)
{
	unsigned char other[6];
	int ret;

	if ((r->flags & IBSRIOV_REC_MAC_UNSET) && (r->vf_changed & CNI_VF_MAC) &&
	    !memcmp(l->mac, r->orig_mac, 6)) {
		memcpy(other, r->orig_mac, 6);
		other[5] ^= 1;
		ret = cni_link_set_mac(sys, l->ifindex, other, 6);
		if (ret)
			return ret;
	} else if (!memcmp(l->mac, r->orig_mac, 6)) {
		return 0;
	}
	return cni_link_set_mac(sys, l->ifindex, r->orig_mac, 6);
}

/* Down for the rename and the rest (back from the pod it usually is
 * already); every name the pod gave it dropped, here too (a pod that is
 * gone returned it with them); then name, MTU, MAC, the attributes ADD
 * recorded, and the state as found. *what names a refused step. */
static int restore_netdev(struct cni_sys *sys, const struct ibsriov_record *r,
			  const struct cni_link *l, const char **what)
{
	int ret = 0;

	*what = "down";
	if (l->flags & IFF_UP)
		ret = cni_link_set_up(sys, l->ifindex, false);
	if (!ret && l->n_altnames) {
		*what = "alternative names";
		ret = cni_link_altnames_clear(sys, l->ifindex);
	}
	if (!ret && *r->orig_name && strcmp(l->name, r->orig_name)) {
		*what = "name";
		ret = cni_link_rename(sys, l->ifindex, r->orig_name);
	}
	if (!ret && r->orig_mtu && l->mtu != r->orig_mtu) {
		*what = "mtu";
		ret = cni_link_set_mtu(sys, l->ifindex, r->orig_mtu);
	}
	if (!ret && r->orig_mac_len == 6 && r->kind == IBSRIOV_ETH) {
		*what = "mac";
		ret = restore_mac(sys, r, l);
	}
	if (!ret && (r->flags & IBSRIOV_REC_HAS_ATTRS))
		ret = cni_link_attrs_set(sys, l->ifindex, &r->orig_attrs, &l->attrs, what);
	if (!ret && r->orig_up) {
		*what = "up";
		ret = cni_link_set_up(sys, l->ifindex, true);
	}
	return ret;
}

/* Step one: the netdev out of the pod (verified, or left), nothing
 * restored yet: the PF side goes first, since a driver may refuse the
 * VF's own MAC change while an admin MAC is set (igb, untrusted). */
int ibsriov_netdev_leave(struct cni_sys *sys, const struct ibsriov_record *r, struct cni_error *err)
{
	_cleanup_close_ int host = -1;

	if (r->kind == IBSRIOV_VFIO || !(r->flags & IBSRIOV_REC_HAS_NETDEV))
		return 0;
	host = cni_netns_open_current(sys);
	if (host < 0)
		return cni_errorf(err, host, CNI_ERR_INTERNAL, "cannot open the host namespace",
				  "%s", strerror(-host));
	return leave_pod(sys, r, host, err);
}

/* The VF netdev on the host. Back from a deleted pod (or after a rebind)
 * it keeps the pod's name (or devN, or a new one): sysfs's netdev of the
 * PCI function is the one name that holds, and no pod can put a link in
 * the host's namespace; other names must prove they are the VF. */
static int find_on_host(struct cni_sys *sys, const struct ibsriov_record *r, struct cni_link *l)
{
	const char *names[] = {r->tmpname, r->orig_name};
	char pci_name[IFNAMSIZ] = "";
	int ret;

	if (cni_pci_netdev(CNI_PCI_ROOT, r->device, pci_name) == 0) {
		ret = cni_link_get(sys, pci_name, 0, l);
		if (ret != -ENODEV)
			return ret;
	}
	ret = find_here(sys, r, names, ARRAY_SIZE(names), false, l);
	if (ret != -ENODEV)
		return ret;
	/* Back under a name no record holds (its pod name, or devN when the
	 * host had that): the index is kept across a move when it can be. */
	for (int i = 0; i < 2; i++) {
		int idx = i ? r->orig_ifindex : r->pod_ifindex;

		if (!idx || (ret = cni_link_get(sys, NULL, idx, l)) == -ENODEV)
			continue;
		if (ret || ibsriov_vf_is_ours(r, l, false))
			return ret;
	}
	return -ENODEV;
}

int ibsriov_netdev_back(struct cni_sys *sys, const struct ibsriov_record *r)
{
	struct cni_link l;
	int ret;

	/* Nothing of it was in the pod's namespace to come back (an IPoIB
	 * child dies with it; its parent never left). */
	if (r->kind == IBSRIOV_VFIO || !(r->flags & IBSRIOV_REC_HAS_NETDEV) ||
	    (r->flags & IBSRIOV_REC_HAS_CHILD))
		return 1;
	ret = find_on_host(sys, r, &l);
	if (ret == -ENODEV)
		return 0;
	return ret ? ret : 1;
}

/* Step two, after the PF side: name, MTU, MAC and state as found. */
int ibsriov_netdev_restore(struct cni_sys *sys, const struct ibsriov_record *r,
			   struct cni_error *err)
{
	const char *what = NULL;
	struct cni_link l;
	int ret;

	if (r->kind == IBSRIOV_VFIO || !(r->flags & IBSRIOV_REC_HAS_NETDEV))
		return 0;
	if (r->flags & IBSRIOV_REC_HAS_CHILD)
		return child_release(sys, r, err);
	ret = find_on_host(sys, r, &l);
	if (ret == -ENODEV)
		return 0; /* gone with its pod (a virtual VF) or never had one */
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot look for the VF netdev",
				  "%s: %s", r->device, strerror(-ret));
	ret = restore_netdev(sys, r, &l, &what);
	if (ret == -EEXIST && !strcmp(what, "name"))
		return cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot restore the VF netdev",
				  "%s: its name %s is taken in the host by another link; rename "
				  "that one, the record stays for the next DEL or GC",
				  l.name, r->orig_name);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot restore the VF netdev",
				  "%s (%s) refused its %s: %s %s", l.name, r->orig_name, what,
				  strerror(-ret), cni_sys_ext_ack(sys));
	return 0;
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

int ibsriov_open_pod(struct cni_sys *sys, const struct ibsriov_record *r, int *fd,
		     struct cni_error *err)
{
	struct cni_error scratch = {0};

	*fd = -1;
	if (!r->netns || !*r->netns)
		return 0;
	*fd = cni_netns_open(sys, r->netns, &scratch);
	if (*fd >= 0)
		return 0;
	if (*fd == -ENOENT) {
		*fd = -1;
		return 0; /* the pod is gone: the kernel took the VF back */
	}
	return cni_error_adopt(err, &scratch, *fd);
}
