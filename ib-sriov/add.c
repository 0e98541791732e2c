// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "announce.h"
#include "caps.h"
#include "cleanup.h"
#include "guid.h"
#include "add.h"
#include "ipam.h"
#include "json.h"
#include "lock.h"
#include "netns.h"
#include "rdma.h"
#include "state.h"
#include "util.h"

/* Resolve the VF from deviceID and check the request fits it. */
static int resolve(struct add *a)
{
	struct ibsriov_conf *c = &a->conf;
	struct cni_error *err = &a->ctx->err;
	int ret = cni_pci_vf_get(CNI_PCI_ROOT, c->device, &a->pci);

	if (ret == -ENODEV)
		return cni_errorf(err, ret, CNI_ERR_DEVICE, "device not found",
				  "deviceID %s is not under %s/devices; is it the VF the device plugin allocated?",
				  c->device, CNI_PCI_ROOT);
	if (ret == -ENOTTY)
		return cni_errorf(err, ret, CNI_ERR_INVALID_CONFIG, "deviceID is not a VF",
				  "%s has no physfn link: ib-sriov needs an SR-IOV virtual function", c->device);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_DEVICE, "cannot read the VF's topology", "%s: %s",
				  c->device, strerror(-ret));
	a->vfio = !strcmp(a->pci.driver, "vfio-pci");
	if (c->vfio && !a->vfio)
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, "vfioPciMode is set but the VF is not bound to vfio-pci",
				  "%s is bound to \"%s\"", c->device, a->pci.driver);
	if (!*a->pci.pf_netdev || cni_link_get(a->pci.pf_netdev, 0, &a->pf))
		return cni_errorf(err, -ENODEV, CNI_ERR_DEVICE, "the VF's PF has no netdev",
				  "PF %s of %s: the PF driver must be loaded", a->pci.pf_addr, c->device);
	if (a->vfio) {
		a->ib = a->pf.type == ARPHRD_INFINIBAND;
		return 0;
	}
	if (!*a->pci.netdev || cni_link_get(a->pci.netdev, 0, &a->vf))
		return cni_errorf(err, -ENODEV, CNI_ERR_DEVICE, "the VF has no netdev",
				  "%s (bound to \"%s\"): load its network driver (mlx5_core, ib_ipoib), or "
				  "bind it to vfio-pci and set vfioPciMode", c->device, a->pci.driver);
	a->ib = a->vf.type == ARPHRD_INFINIBAND;
	return 0;
}

static int check_fits(struct add *a)
{
	struct ibsriov_conf *c = &a->conf;
	struct cni_error *err = &a->ctx->err;
	uint32_t eth_only = CNI_VF_MAC | CNI_VF_VLAN | CNI_VF_SPOOFCHK | CNI_VF_TRUST | CNI_VF_RATE;
	char g[32];

	if (a->ib && (c->vf.mask & eth_only))
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG,
				  "Ethernet settings on an InfiniBand VF",
				  "%s is InfiniBand: mac, vlan, spoofchk, trust and rates apply to RoCE VFs only",
				  c->device);
	if (!a->ib && (c->has_guid || c->has_pkey))
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG,
				  "InfiniBand settings on an Ethernet VF",
				  "%s is Ethernet (RoCE): a GUID (%s) or pkey applies to InfiniBand VFs only",
				  c->device, c->has_guid ? c->guid_from : "pkey");
	if (c->rdma_isolation && !a->vfio) {
		int ret = cni_rdma_require_exclusive(err, CNI_ERR_RDMA_MODE);

		if (ret)
			return ret;
		if (!a->pci.rdma_dev[0])
			return cni_errorf(err, -ENODEV, CNI_ERR_DEVICE, "the VF has no RDMA device",
					  "rdmaIsolation is set but %s has nothing under infiniband/ in sysfs",
					  c->device);
	}
	if (a->ib && !a->vfio && !c->has_guid &&
	    ibsriov_guid_unset(ibsriov_guid_from_hwaddr(a->vf.mac, a->vf.mac_len)))
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, "the VF has no valid GUID",
				  "VF %s reports GUID %s and none was given: pass one as runtimeConfig."
				  "infinibandGUID (capability infinibandGUID), as cni-args \"guid\", from "
				  "ib-kubernetes, or have the SR-IOV operator assign VF GUIDs", a->vf.name,
				  ibsriov_guid_str(ibsriov_guid_from_hwaddr(a->vf.mac, a->vf.mac_len), g,
						   sizeof(g)));
	if (c->has_pkey && a->pci.rdma_dev[0] == '\0')
		return cni_errorf(err, -ENODEV, CNI_ERR_DEVICE, "the VF has no RDMA device",
				  "pkey %#06x needs the pkey table under %s/infiniband/", c->pkey,
				  c->device);
	return 0;
}

static int pod_ifname_free(struct add *a)
{
	struct cni_link l;
	int saved = -1, ret;

	if (a->vfio)
		return 0;
	ret = cni_netns_enter(a->netns_fd, &saved);
	if (ret)
		return fail(a, ret, CNI_ERR_INTERNAL, "cannot enter the pod network namespace",
			    a->ctx->env.netns);
	ret = cni_link_get(a->ctx->env.ifname, 0, &l);
	cni_netns_restore(&saved);
	if (!ret)
		return cni_errorf(&a->ctx->err, -EEXIST, CNI_ERR_INVALID_CONFIG,
				  "the interface name is taken in the pod",
				  "%s already exists in %s; choose another CNI_IFNAME", a->ctx->env.ifname,
				  a->ctx->env.netns);
	return 0;
}

/* The record, before the first change: what the VF looked like. */
static int record_start(struct add *a)
{
	char buf[64];
	struct cni_ctx *ctx = a->ctx;
	int ret = ibsriov_record_name(ctx->env.containerid, ctx->env.ifname, a->rec.name,
				      sizeof(a->rec.name));

	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_INVALID_ENV, "invalid attachment name",
				  "%s-%s", ctx->env.containerid, ctx->env.ifname);
	a->rec.o = json_object_new_object();
	if (!a->rec.o)
		return -ENOMEM;
	ibsriov_rec_set_str(&a->rec, "network", ctx->conf->name);
	ibsriov_rec_set_str(&a->rec, "containerID", ctx->env.containerid);
	ibsriov_rec_set_str(&a->rec, "ifname", ctx->env.ifname);
	ibsriov_rec_set_str(&a->rec, "netns", ctx->env.netns);
	ibsriov_rec_set_str(&a->rec, "device", a->conf.device);
	ibsriov_rec_set_str(&a->rec, "kind", a->vfio ? "vfio" : a->ib ? "ib" : "eth");
	ibsriov_rec_set_str(&a->rec, "pf", a->pf.name);
	ibsriov_rec_set_int(&a->rec, "pf_ifindex", a->pf.ifindex);
	ibsriov_rec_set_int(&a->rec, "vf", a->pci.vf_index);
	if (!a->vfio) {
		ibsriov_rec_set_str(&a->rec, "orig_name", a->vf.name);
		ibsriov_rec_set_int(&a->rec, "orig_mtu", a->vf.mtu);
		ibsriov_rec_set_int(&a->rec, "orig_up", !!(a->vf.flags & IFF_UP));
		ibsriov_rec_set_str(&a->rec, "orig_mac", ibsriov_hw_str(a->vf.mac, a->vf.mac_len,
									 buf, sizeof(buf)) ?: "");
		snprintf(buf, sizeof(buf), "ibcni%d", a->vf.ifindex);
		ibsriov_rec_set_str(&a->rec, "tmpname", buf);
	}
	ret = ibsriov_record_save(&a->rec);
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_IO, "cannot write the attachment record",
				  "%s/%s: %s", IBSRIOV_STATE_DIR, a->rec.name, strerror(-ret));
	return 0;
}

static void keep_orig(struct json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

/* PF-side settings: the originals into the record first, then the change. */
static int apply_vf(struct add *a)
{
	struct cni_vf want = a->conf.vf, *vfs = NULL, *cur = NULL;
	struct json_object *orig;
	char mac[32];
	size_t n = 0;
	int ret;

	if (a->ib && a->conf.has_guid &&
	    ibsriov_guid_from_hwaddr(a->vf.mac, a->vf.mac_len) != a->conf.guid) {
		want.mask |= CNI_VF_NODE_GUID | CNI_VF_PORT_GUID;
		want.node_guid = want.port_guid = a->conf.guid;
	}
	if (!want.mask)
		return 0;
	want.vf = (uint32_t)a->pci.vf_index;
	cni_link_vfs_get(a->pf.ifindex, &vfs, &n);
	for (size_t i = 0; i < n; i++)
		if (vfs[i].vf == want.vf)
			cur = &vfs[i];
	/* A PF that reports no VF settings cannot take an admin MAC; the MAC
	 * then goes on the VF netdev only (move_in). */
	if (!cur && want.mask == CNI_VF_MAC) {
		log_info("PF %s reports no VF settings: MAC set on the VF netdev only", a->pf.name);
		free(vfs);
		return 0;
	}

	orig = json_object_new_object();
	if (!orig) {
		free(vfs);
		return -ENOMEM;
	}
	/* Only what the PF reported can be put back. */
	keep_orig(orig, "mask", cur ? (int64_t)(want.mask & cur->mask) : 0);
	if (cur) {
		keep_orig(orig, "vlan", cur->vlan);
		keep_orig(orig, "qos", cur->qos);
		keep_orig(orig, "proto", cur->vlan_proto);
		keep_orig(orig, "min_tx_rate", cur->min_tx_rate);
		keep_orig(orig, "max_tx_rate", cur->max_tx_rate);
		keep_orig(orig, "spoofchk", cur->spoofchk);
		keep_orig(orig, "trust", cur->trust);
		keep_orig(orig, "link_state", cur->link_state);
		keep_orig(orig, "node_guid", (int64_t)cur->node_guid);
		keep_orig(orig, "port_guid", (int64_t)cur->port_guid);
		json_object_object_add(orig, "mac", json_object_new_string(
							 ibsriov_hw_str(cur->mac, 6, mac, sizeof(mac))));
	}
	free(vfs);
	json_object_object_add(a->rec.o, "vf_orig", orig);
	ret = ibsriov_record_save(&a->rec);
	if (ret)
		return fail(a, ret, CNI_ERR_IO, "cannot update the attachment record", a->rec.name);
	ret = cni_link_vf_set(a->pf.ifindex, &want);
	if (ret) {
		char what[96];

		snprintf(what, sizeof(what), "PF %s refused the settings of VF %d", a->pf.name,
			 a->pci.vf_index);
		return fail(a, ret, CNI_ERR_DEVICE, "cannot configure the VF on its PF", what);
	}
	log_info("configured VF %d on PF %s", a->pci.vf_index, a->pf.name);
	return 0;
}

/* A new GUID takes effect when the VF's driver re-initialises it. */
static int rebind(struct add *a)
{
	char name[IFNAMSIZ];
	int lock, ret;

	if (!a->ib || !a->conf.has_guid || a->vfio ||
	    ibsriov_guid_from_hwaddr(a->vf.mac, a->vf.mac_len) == a->conf.guid)
		return 0;
	lock = ibsriov_lock("pf", a->pci.pf_addr, &a->ctx->err);
	if (lock < 0)
		return lock;
	ret = cni_pci_rebind(CNI_PCI_ROOT, a->conf.device);
	cni_lock_release(lock);
	if (ret)
		return fail(a, ret, CNI_ERR_DEVICE, "cannot rebind the VF to apply its GUID", a->conf.device);
	/* Never trust the old name: find the netdev under the PCI device again. */
	ret = cni_pci_wait_netdev(CNI_PCI_ROOT, a->conf.device, a->conf.netdev_wait_ms, name);
	if (!ret)
		ret = cni_link_get(name, 0, &a->vf);
	if (ret)
		return fail(a, ret, CNI_ERR_DEVICE, "the VF's netdev did not come back after the rebind",
			    a->conf.device);
	return 0;
}

static int pkey_present(struct add *a)
{
	uint64_t deadline = now_ms() + a->conf.pkey_wait_ms;
	uint16_t keys[128];
	int n;

	if (!a->conf.has_pkey)
		return 0;
	for (;;) {
		n = cni_pci_pkeys(CNI_PCI_ROOT, a->conf.device, a->pci.rdma_dev, 1, keys, 128);
		for (int i = 0; i < n; i++)
			if ((keys[i] & 0x7fff) == (a->conf.pkey & 0x7fff))
				return 0;
		if (now_ms() >= deadline)
			break;
		sleep_ms(100);
	}
	return cni_errorf(&a->ctx->err, -ENOENT, CNI_ERR_DEVICE, "pkey not in the VF's pkey table",
			  "pkey %#06x is not in the table of %s port 1 (VF %s) after %u ms: the subnet "
			  "manager must add the VF's GUID to the partition", a->conf.pkey,
			  a->pci.rdma_dev, a->conf.device, a->conf.pkey_wait_ms);
}

/* The pod joins partition pkey through an IPoIB child of the VF's netdev
 * when the netdev itself is on another partition. The child (created under
 * the temporary name) is what moves into the pod; the VF netdev stays. */
static int pkey_child(struct add *a)
{
	const char *tmp = ibsriov_rec_str(&a->rec, "tmpname");
	struct cni_link child;
	int ret;

	if (!a->ib || a->vfio || !a->conf.has_pkey ||
	    (a->vf.ipoib && (a->vf.pkey & 0x7fff) == (a->conf.pkey & 0x7fff)))
		return 0;
	ibsriov_rec_set_int(&a->rec, "child", 1);
	ret = ibsriov_record_save(&a->rec);
	if (ret)
		return fail(a, ret, CNI_ERR_IO, "cannot update the attachment record", a->rec.name);
	if (!(a->vf.flags & IFF_UP) && (ret = cni_link_set_up(a->vf.ifindex, true)))
		return fail(a, ret, CNI_ERR_INTERNAL, "cannot bring the VF netdev up", a->vf.name);
	ret = cni_link_ipoib_add(a->vf.ifindex, tmp, a->conf.pkey, a->vf.ipoib_mode);
	if (!ret)
		ret = cni_link_get(tmp, 0, &child);
	if (ret) {
		char what[64];

		snprintf(what, sizeof(what), "pkey %#06x on %s", a->conf.pkey, a->vf.name);
		return fail(a, ret, CNI_ERR_DEVICE, "cannot create the IPoIB child", what);
	}
	log_info("pkey %#06x: IPoIB child %s of %s", a->conf.pkey, tmp, a->vf.name);
	a->vf = child;
	return 0;
}

int ibsriov_add(struct cni_ctx *ctx)
{
	struct add a = { .ctx = ctx, .netns_fd = -1 };
	struct cni_error undo = { 0 };
	bool ipam_done = false;
	int lock = -1, ret;

	ret = ibsriov_conf_load(ctx, &a.conf, false) ?: resolve(&a) ?: check_fits(&a);
	if (ret)
		return ret;
	a.netns_fd = cni_netns_open(ctx->env.netns, &ctx->err);
	if (a.netns_fd < 0)
		return a.netns_fd;
	ret = pod_ifname_free(&a);
	if (ret)
		goto out;
	lock = ibsriov_lock("vf", a.conf.device, &ctx->err);
	if (lock < 0) {
		ret = lock;
		goto out;
	}
	ret = record_start(&a);
	if (ret)
		goto out;
	ret = apply_vf(&a) ?: rebind(&a) ?: pkey_present(&a);
	if (ret)
		goto undo;
	if (!a.vfio) {
		ibsriov_rec_set_int(&a.rec, "orig_ifindex", a.vf.ifindex);
		ret = ibsriov_rdma_in(&a);
		if (!ret && a.conf.rdma_isolation) {
			/* The ULP netdev was re-created: find it by PCI address again. */
			char name[IFNAMSIZ];

			ret = cni_pci_wait_netdev(CNI_PCI_ROOT, a.conf.device, a.conf.netdev_wait_ms, name);
			ret = ret ?: cni_link_get(name, 0, &a.vf);
			if (ret)
				fail(&a, ret, CNI_ERR_DEVICE, "the VF netdev did not come back after the RDMA move",
				     a.conf.device);
		}
		/* After the RDMA move: it re-creates the VF's IPoIB netdev, and
		 * with it any child. */
		if (!ret)
			ret = pkey_child(&a);
		if (!ret)
			ret = ibsriov_move_in(&a);
		if (ret)
			goto undo;
	}
	/* The IPAM plugin runs outside every lock. */
	cni_lock_release(lock);
	lock = -1;
	if (!a.vfio && ctx->conf->ipam_type) {
		ret = cni_ipam_add(&ctx->env, ctx->conf, &a.ipam, &ctx->err);
		if (ret)
			goto undo;
		ipam_done = true;
		if (!a.ipam->n_ips) {
			ret = cni_errorf(&ctx->err, -EINVAL, CNI_ERR_DELEGATE,
					 "IPAM plugin returned missing IP config",
					 "%s gave no addresses", ctx->conf->ipam_type);
			goto undo;
		}
		ret = ibsriov_configure_ip(&a);
		if (ret)
			goto undo;
	}
	ret = ibsriov_build_result(&a);
	if (ret)
		goto undo;
	ibsriov_rec_set_int(&a.rec, "complete", 1);
	ibsriov_record_save(&a.rec);
	goto out;

undo:
	/* Reverse order: addresses go with the netdev; then IPAM, netdev, PF. */
	if (ipam_done)
		cni_ipam_run(&ctx->env, ctx->conf, CNI_CMD_DEL, &undo);
	if (lock < 0)
		lock = ibsriov_lock("vf", a.conf.device, &undo);
	if (ibsriov_release(&a.rec, &undo))
		log_err("rollback incomplete: %s: %s", undo.msg, undo.details);
out:
	cni_lock_release(lock);
	if (a.netns_fd >= 0)
		close(a.netns_fd);
	cni_result_free(a.ipam);
	json_object_put(a.rec.o);
	return ret;
}
