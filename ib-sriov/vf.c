// SPDX-License-Identifier: Apache-2.0
/* Undoing what ADD did to a VF: its netdev back from the pod, its PF-side
 * settings back to what the record says they were. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "guid.h"
#include "ibsriov.h"
#include "json.h"
#include "lock.h"
#include "netns.h"
#include "state.h"
#include "rdma.h"
#include "util.h"

/* The kernel refuses settings it does not know; restore what we changed. */
int ibsriov_vf_restore(const struct ibsriov_record *r)
{
	struct json_object *o = NULL;
	struct cni_vf vf = { 0 };
	const char *mac;
	int pf = (int)ibsriov_rec_int(r, "pf_ifindex", 0), ret;
	struct cni_link link;

	if (!json_object_object_get_ex(r->o, "vf_orig", &o) || !pf)
		return 0;
	vf.vf = (uint32_t)ibsriov_rec_int(r, "vf", 0);
	json_object_object_foreach(o, key, val)
	{
		int64_t n = json_object_get_int64(val);

		if (!strcmp(key, "mask"))
			vf.mask = (uint32_t)n;
		else if (!strcmp(key, "vlan"))
			vf.vlan = (uint32_t)n;
		else if (!strcmp(key, "qos"))
			vf.qos = (uint32_t)n;
		else if (!strcmp(key, "proto"))
			vf.vlan_proto = (uint16_t)n;
		else if (!strcmp(key, "min_tx_rate"))
			vf.min_tx_rate = (uint32_t)n;
		else if (!strcmp(key, "max_tx_rate"))
			vf.max_tx_rate = (uint32_t)n;
		else if (!strcmp(key, "spoofchk"))
			vf.spoofchk = (uint32_t)n;
		else if (!strcmp(key, "trust"))
			vf.trust = (uint32_t)n;
		else if (!strcmp(key, "link_state"))
			vf.link_state = (uint32_t)n;
		else if (!strcmp(key, "node_guid"))
			vf.node_guid = (uint64_t)n;
		else if (!strcmp(key, "port_guid"))
			vf.port_guid = (uint64_t)n;
	}
	/* An unset admin MAC reads back as zeros, and zeros clear it again. */
	mac = json_object_get_string(cni_json_get(o, "mac"));
	if ((vf.mask & CNI_VF_MAC) && (!mac || !ibsriov_hw_parse(mac, vf.mac, 6)))
		vf.mask &= ~(uint32_t)CNI_VF_MAC;
	if (!vf.mask)
		return 0;
	/* The PF may have been renamed or re-created: look it up again. */
	if (cni_link_get(ibsriov_rec_str(r, "pf"), 0, &link) == 0)
		pf = link.ifindex;
	ret = cni_link_vf_set(pf, &vf);
	/* Like ADD, a GUID takes effect when the driver re-initialises the VF. */
	if (!ret && (vf.mask & CNI_VF_NODE_GUID) && strcmp(ibsriov_rec_str(r, "kind"), "vfio")) {
		char name[IFNAMSIZ];

		ret = cni_pci_rebind(CNI_PCI_ROOT, ibsriov_rec_str(r, "device"));
		if (!ret)
			ret = cni_pci_wait_netdev(CNI_PCI_ROOT, ibsriov_rec_str(r, "device"),
						  IBSRIOV_NETDEV_WAIT_MS, name);
	}
	return ret;
}

/* Find the VF netdev in the current namespace by any name it may have. */
static int find_here(const struct ibsriov_record *r, const char *const *names, size_t n,
		     struct cni_link *l)
{
	for (size_t i = 0; i < n; i++)
		if (*names[i] && cni_link_get(names[i], 0, l) == 0)
			return 0;
	return -ENODEV;
}

/* In the pod: down, temporary name, back to the host namespace. */
static int leave_pod(const struct ibsriov_record *r, int host_fd, struct cni_error *err)
{
	const char *names[] = { ibsriov_rec_str(r, "ifname"), ibsriov_rec_str(r, "tmpname") };
	_cleanup_close_ int pod = -1;
	struct cni_error ignored = { 0 };
	struct cni_link l;
	int saved = -1, ret;

	if (!*ibsriov_rec_str(r, "netns"))
		return 0;
	pod = cni_netns_open(ibsriov_rec_str(r, "netns"), &ignored);
	if (pod < 0)
		return 0;	/* the pod is gone: the kernel took the VF back */
	ret = cni_netns_enter(pod, &saved);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot enter the pod network namespace",
				  "%s: %s", ibsriov_rec_str(r, "netns"), strerror(-ret));
	ret = find_here(r, names, ARRAY_SIZE(names), &l);
	if (ret == -ENODEV) {
		ret = 0;	/* not in the pod (never moved, or already back) */
		goto out;
	}
	if (ibsriov_rec_int(r, "child", 0)) {
		/* An IPoIB child of ours: it goes away, the VF netdev never left. */
		ret = cni_link_delete(l.ifindex);
		goto out;
	}
	ret = cni_link_set_up(l.ifindex, false);
	if (!ret && strcmp(l.name, ibsriov_rec_str(r, "tmpname")))
		ret = cni_link_rename(l.ifindex, ibsriov_rec_str(r, "tmpname"));
	if (!ret)
		ret = cni_link_move(l.ifindex, host_fd);
	if (ret)
		cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot move the VF back to the host",
			   "%s in %s: %s %s", l.name, ibsriov_rec_str(r, "netns"), strerror(-ret),
			   cni_link_ext_ack());
out:
	cni_netns_restore(&saved);
	return ret;
}

int ibsriov_netdev_release(const struct ibsriov_record *r, struct cni_error *err)
{
	char pci_name[IFNAMSIZ] = "";
	const char *names[] = { ibsriov_rec_str(r, "tmpname"), ibsriov_rec_str(r, "orig_name"),
				pci_name };
	_cleanup_close_ int host = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	const char *orig = ibsriov_rec_str(r, "orig_name");
	struct cni_link l;
	int ret;

	if (host < 0)
		return -errno;
	if (!strcmp(ibsriov_rec_str(r, "kind"), "vfio"))
		return 0;
	ret = leave_pod(r, host, err);
	if (ret)
		return ret;
	cni_pci_netdev(CNI_PCI_ROOT, ibsriov_rec_str(r, "device"), pci_name);
	if (ibsriov_rec_int(r, "child", 0)) {
		/* A child that never reached the pod; then the parent's state. */
		if (cni_link_get(names[0], 0, &l) == 0 && (ret = cni_link_delete(l.ifindex)))
			return cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot delete the IPoIB child",
					  "%s: %s", names[0], strerror(-ret));
		if (find_here(r, names + 1, ARRAY_SIZE(names) - 1, &l) == 0 &&
		    !ibsriov_rec_int(r, "orig_up", 0))
			return cni_link_set_up(l.ifindex, false);
		return 0;
	}
	if (find_here(r, names, ARRAY_SIZE(names), &l))
		return 0;	/* gone with its pod (a virtual VF) or never had one */
	ret = cni_link_set_up(l.ifindex, false);
	if (!ret && *orig && strcmp(l.name, orig))
		ret = cni_link_rename(l.ifindex, orig);
	if (!ret && ibsriov_rec_int(r, "orig_mtu", 0) &&
	    l.mtu != (unsigned int)ibsriov_rec_int(r, "orig_mtu", 0))
		ret = cni_link_set_mtu(l.ifindex, (unsigned int)ibsriov_rec_int(r, "orig_mtu", 0));
	if (!ret && *ibsriov_rec_str(r, "orig_mac") && !strcmp(ibsriov_rec_str(r, "kind"), "eth")) {
		unsigned char mac[6];

		if (ibsriov_mac_parse(ibsriov_rec_str(r, "orig_mac"), mac))
			ret = cni_link_set_mac(l.ifindex, mac, 6);
	}
	if (!ret && ibsriov_rec_int(r, "orig_up", 0))
		ret = cni_link_set_up(l.ifindex, true);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot restore the VF netdev",
				  "%s (%s): %s %s", l.name, orig, strerror(-ret), cni_link_ext_ack());
	return 0;
}

/* The RDMA devices that rdmaIsolation moved, back from the pod. */
static int rdma_release(const struct ibsriov_record *r, struct cni_error *err)
{
	struct json_object *list = NULL;
	struct cni_error ignored = { 0 };
	const char *names[8], *failed = NULL;
	_cleanup_close_ int pod = -1;
	size_t n = 0;
	int ret;

	if (!json_object_object_get_ex(r->o, "rdma", &list) || !json_object_array_length(list))
		return 0;
	pod = cni_netns_open(ibsriov_rec_str(r, "netns"), &ignored);
	if (pod < 0)
		return 0;	/* the pod is gone: the kernel took the devices back */
	for (size_t i = 0; i < json_object_array_length(list) && n < 8; i++)
		names[n++] = json_object_get_string(json_object_array_get_idx(list, i));
	ret = cni_rdma_return(pod, names, n, &failed);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_DEVICE, "cannot move the RDMA device back to the host",
				  "%s: %s %s", failed ? failed : "(entering the pod)", cni_rdma_strerror(ret),
				  cni_rdma_ext_ack());
	return 0;
}

int ibsriov_lock(const char *kind, const char *pci, struct cni_error *err)
{
	char path[PATH_MAX];
	int ret = cni_state_mkdir(IBSRIOV_LOCK_DIR);

	if (ret)
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot create the lock directory", "%s: %s",
				  IBSRIOV_LOCK_DIR, strerror(-ret));
	if (check_snprintf(path, sizeof(path), "%s/%s-%s.lock", IBSRIOV_LOCK_DIR, kind, pci))
		return -ENAMETOOLONG;
	return cni_lock_acquire(path, IBSRIOV_LOCK_WAIT_MS, err);
}

int ibsriov_release_locked(struct ibsriov_record *r, struct cni_error *err)
{
	int lock = ibsriov_lock("vf", ibsriov_rec_str(r, "device"), err), ret;

	if (lock < 0)
		return lock;
	ret = ibsriov_release(r, err);
	cni_lock_release(lock);
	return ret;
}

int ibsriov_release(struct ibsriov_record *r, struct cni_error *err)
{
	int ret = ibsriov_netdev_release(r, err) ?: rdma_release(r, err);

	if (ret)
		return ret;
	ret = ibsriov_vf_restore(r);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_INTERNAL, "cannot restore the VF's settings on its PF",
				  "PF %s VF %lld: %s %s", ibsriov_rec_str(r, "pf"),
				  (long long)ibsriov_rec_int(r, "vf", 0), strerror(-ret), cni_link_ext_ack());
	ret = ibsriov_record_remove(r);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_IO, "cannot remove the attachment record", "%s/%s: %s",
				  IBSRIOV_STATE_DIR, r->name, strerror(-ret));
	return 0;
}
