// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kernel/announce.h"
#include "protocol/caps.h"
#include "base/cleanup.h"
#include "protocol/devcheck.h"
#include "guid.h"
#include "add.h"
#include "protocol/delegate.h"
#include "devinfo.h"
#include "portwait.h"
#include "base/json.h"
#include "state/lock.h"
#include "kernel/netns.h"
#include "kernel/rdma.h"
#include "rail.h"
#include "state/state.h"
#include "base/util.h"
#include "kernel/verbs.h"

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
static int resolve_device(struct add *a)
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
static int resolve_links(struct add *a, bool fresh)
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

static int check_fits(struct add *a)
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
		    ibsriov_guid_str(ibsriov_guid_from_hwaddr(a->vf.mac, a->vf.mac_len), g,
				     sizeof(g)));
	if (c->has_pkey && c->pkey_enforce && a->pci.rdma_dev[0] == '\0')
		return cni_errorf(err, -ENODEV, CNI_ERR_DEVICE, "the VF has no RDMA device",
				  "pkey %#06x needs the pkey table under %s/infiniband/", c->pkey,
				  c->device);
	return ibsriov_port_wait_fits(a);
}

static int pod_ifname_free(struct add *a)
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

/* The record, before the first change: what the VF looked like. */
static int record_start(struct add *a)
{
	struct cni_ctx *ctx = a->ctx;
	struct ibsriov_record *r = &a->rec;
	int ret = ibsriov_record_init(r, ctx->conf->name, ctx->env.containerid, ctx->env.ifname,
				      ctx->env.netns);

	if (ret == -ENOMEM)
		return ret;
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_INVALID_ENV, "invalid attachment name",
				  "CNI_CONTAINERID and CNI_IFNAME together exceed %d bytes",
				  IBSRIOV_RECORD_NAME_MAX);
	copy_str(r->device, sizeof(r->device), a->conf.device);
	r->kind = a->vfio ? IBSRIOV_VFIO : a->ib ? IBSRIOV_IB : IBSRIOV_ETH;
	copy_str(r->pf, sizeof(r->pf), a->pf.name);
	r->pf_ifindex = a->pf.ifindex;
	r->vf = a->pci.vf_index;
	if (a->pf_passthrough)
		r->flags |= IBSRIOV_REC_PF_PASSTHROUGH;
	/* Named before the file exists, so that every release removes it. */
	copy_str(r->devinfo, sizeof(r->devinfo), a->devinfo);
	r->flags |= IBSRIOV_REC_HAS_DEVINFO;
	if (!a->vfio) {
		r->flags |= IBSRIOV_REC_HAS_NETDEV;
		copy_str(r->orig_name, sizeof(r->orig_name), a->vf.name);
		copy_str(r->link_kind, sizeof(r->link_kind), a->vf.kind);
		r->orig_mtu = a->vf.mtu;
		r->orig_up = a->vf.flags & IFF_UP;
		r->orig_mac_len = a->vf.mac_len <= CNI_MAC_MAX ? a->vf.mac_len : 0;
		memcpy(r->orig_mac, a->vf.mac, r->orig_mac_len);
		/* The kernel keeps the ifindex across the move when it can. */
		r->orig_ifindex = r->pod_ifindex = a->vf.ifindex;
		r->iflink = a->vf.iflink;
		/* The IPoIB child's name on the host; the VF netdev itself moves
		 * under its pod name in one request, never under this one. */
		snprintf(r->tmpname, sizeof(r->tmpname), "ibcni%d", a->vf.ifindex);
		/* What the pod may change and DEL puts back, as the host has it. */
		r->orig_attrs = a->vf.attrs;
		r->flags |= IBSRIOV_REC_HAS_ATTRS;
	}
	ibsriov_held_note(a);
	ibsriov_heal_note(a);
	ret = ibsriov_record_save(r);
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_IO, "cannot write the attachment record",
				  "%s/%s: %s", IBSRIOV_STATE_DIR, r->name, strerror(-ret));
	return 0;
}

/* A record of this attachment from an earlier attempt: a complete one is
 * refused (DEL it first); an unfinished one (a killed or failed ADD) is
 * undone first, so the retry starts from the VF as the first attempt
 * found it and records those originals, not its own half-done state. */
static int earlier_attempt(struct add *a, bool *undone)
{
	struct cni_ctx *ctx = a->ctx;
	struct ibsriov_record old;
	int ret = ibsriov_record_find(ctx->env.containerid, ctx->env.ifname, ctx->env.netns, &old);

	if (ret == -ENOENT || ret == -ESTALE)
		return 0;
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_IO, "cannot read the attachment record",
				  "%s:%s: %s", ctx->env.containerid, ctx->env.ifname,
				  strerror(-ret));
	if (old.flags & IBSRIOV_REC_COMPLETE) {
		ret = cni_errorf(&ctx->err, -EEXIST, CNI_ERR_INVALID_CONFIG, "already attached",
				 "%s of container %s holds VF %s: DEL it before adding it again",
				 ctx->env.ifname, ctx->env.containerid, old.device);
	} else {
		log_info("undoing an unfinished ADD of %s before retrying it", old.name);
		/* It may have got its addresses before it was killed: the
		 * retry's own IPAM ADD would find them taken (host-local's
		 * "duplicate allocation"). The IPAM releases by owner. */
		ret = ctx->conf->ipam_type && *ctx->conf->ipam_type
			  ? cni_ipam_run(&ctx->env, ctx->conf, CNI_CMD_DEL, &ctx->err)
			  : 0;
		if (!ret)
			ret = ibsriov_release(a->sys, &old, &ctx->err);
		*undone = true;
	}
	ibsriov_record_clear(&old);
	return ret;
}

/* Before any side effect: the attachment's name, then (before sysfs is
 * read) whether kubelet gave the pod this device, then the device. */
static int validate(struct add *a)
{
	const char *dev = a->conf.device;
	int ret = ibsriov_record_name(a->ctx->env.containerid, a->ctx->env.ifname, a->rec.name,
				      sizeof(a->rec.name));

	if (ret)
		return cni_errorf(&a->ctx->err, ret, CNI_ERR_INVALID_ENV, "invalid attachment name",
				  "CNI_CONTAINERID and CNI_IFNAME together exceed %d bytes",
				  IBSRIOV_RECORD_NAME_MAX);
	ret = ibsriov_devinfo_name(a);
	if (!ret)
		ret = cni_device_check(a->ctx, "deviceID", &dev, 1);
	if (ret)
		return ret;
	return resolve_device(a);
}

/* Under the VF lock, before any change: the VF as it is now. */
static int prepare(struct add *a, struct ibsriov_vf_table *vfs)
{
	bool undone = false;
	int ret = earlier_attempt(a, &undone);

	if (!ret)
		ret = resolve_links(a, undone);
	if (!ret)
		ret = ibsriov_guid_fallback(a, vfs);
	if (!ret)
		ret = check_fits(a);
	if (!ret)
		ret = pod_ifname_free(a);
	return ret;
}

/* Everything up to the pod's interface, under the VF lock. */
static int attach(struct add *a, struct ibsriov_vf_table *vfs)
{
	int ret = ibsriov_vf_apply(a, vfs);

	if (!ret)
		ret = ibsriov_vf_rebind(a);
	if (!ret)
		ret = ibsriov_vf_mac_follow(a);
	if (!ret)
		ret = ibsriov_pkey_present(a);

	if (ret || a->vfio)
		return ret;
	a->rec.orig_ifindex = a->vf.ifindex;
	ret = ibsriov_rdma_in(a);
	if (!ret && a->conf.rdma_isolation) {
		/* The ULP netdev was re-created: find it by PCI address again. */
		char name[IFNAMSIZ];

		ret =
		    cni_pci_wait_netdev(CNI_PCI_ROOT, a->conf.device, a->conf.netdev_wait_ms, name);
		if (!ret)
			ret = cni_link_get(a->sys, name, 0, &a->vf);
		if (ret)
			return fail(a, ret, CNI_ERR_DEVICE,
				    "the VF netdev did not come back after the RDMA move",
				    a->conf.device);
	}
	/* After the RDMA move: it re-creates the VF's IPoIB netdev, and with
	 * it any child. */
	if (!ret)
		ret = ibsriov_pkey_child(a);
	if (!ret)
		ret = ibsriov_move_in(a);
	/* Up in the pod: the port's state is the one the pod will use. */
	if (!ret)
		ret = ibsriov_port_wait(a);
	return ret;
}

/* Node-wide, so that no other ADD records the same MAC or GUID between
 * the check and this record. A device another attachment holds (two pods
 * on one vfio-bound VF, or a VF whose pod is alive but not yet DELed) is
 * refused in the same pass; one whose pod is gone is released first
 * (heal.c), outside the node lock, and the VF (and VF table) read again. */
static int claim(struct add *a, struct ibsriov_vf_table *vfs)
{
	int held, ret;

	for (;;) {
		held = ibsriov_lock("addr", "node", &a->ctx->err);
		ret = held;
		if (held >= 0)
			ret = ibsriov_others_free(a);
		if (!ret)
			ret = record_start(a);
		cni_lock_release(held);
		if (ret != -ESTALE || !a->has_stale)
			return ret;
		ret = ibsriov_heal(a);
		ibsriov_vf_table_forget(vfs);
		if (!ret)
			ret = resolve_links(a, false);
		if (!ret)
			ret = check_fits(a);
		if (ret)
			return ret;
	}
}

/* IPAM, outside every lock; a vfio-bound RoCE VF gets its addresses too
 * (DPDK applications read them from the network status), unconfigured. */
static int run_ipam(struct add *a, bool *done)
{
	struct cni_ctx *ctx = a->ctx;
	int ret;

	if (!ctx->conf->ipam_type || !*ctx->conf->ipam_type || (a->vfio && a->ib) ||
	    a->pf_passthrough)
		return 0;
	ret = cni_ipam_add(&ctx->env, ctx->conf, &a->ipam, &ctx->err);
	if (ret)
		return ret;
	*done = true;
	if (!a->ipam->n_ips)
		return cni_errorf(&ctx->err, -EINVAL, CNI_ERR_DELEGATE,
				  "IPAM plugin returned missing IP config", "%s gave no addresses",
				  ctx->conf->ipam_type);
	return a->vfio ? 0 : ibsriov_configure_ip(a);
}

/* The Go-format twin lets a downgraded node's DEL find the VF; then the
 * record says ADD finished, and which twin it left. */
static int finish(struct add *a)
{
	int ret = ibsriov_devinfo_write(a);

	if (ret)
		return ret;
	ret = ibsriov_gocache_save(&a->rec, cni_version_str(a->ctx->conf->version),
				   a->ctx->conf->ipam_type);
	a->rec.flags |= IBSRIOV_REC_COMPLETE;
	if (!ret)
		ret = ibsriov_record_save(&a->rec);
	if (ret)
		return fail(a, ret, CNI_ERR_IO, "cannot update the attachment record", a->rec.name);
	return 0;
}

/* The VF lock again for the rollback, once the record is on disk: a GC or
 * DEL may have released it meanwhile, and the VF be another pod's. */
static int relock(struct add *a, struct cni_error *err)
{
	struct ibsriov_record now;
	int lock = ibsriov_record_hold(&a->rec, IBSRIOV_LOCK_WAIT_MS, &now, err);

	if (lock < 0)
		log_warn("%s: the VF is not rolled back: %s", a->rec.name,
			 lock == -ENOENT ? "another released the record during the ADD"
					 : err->details);
	ibsriov_record_clear(&now);
	return lock;
}

int ibsriov_add(struct cni_ctx *ctx)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	struct add a = {.ctx = ctx, .sys = &sys, .netns_fd = -1};
	struct ibsriov_vf_table vfs = {0};
	struct cni_error undo = {0};
	bool ipam_done = false;
	int lock = -1, ret;

	ret = ibsriov_conf_load(ctx, &a.conf, false);
	if (!ret)
		ret = validate(&a);
	if (ret)
		return ret;
	a.netns_fd = cni_netns_open(&sys, ctx->env.netns, &ctx->err);
	if (a.netns_fd < 0)
		return a.netns_fd;
	lock = ibsriov_lock("vf", a.conf.device, &ctx->err);
	if (lock < 0) {
		ret = lock;
		goto out;
	}
	ret = prepare(&a, &vfs);
	if (ret)
		goto out;
	ret = claim(&a, &vfs);
	if (ret)
		goto out;
	ret = attach(&a, &vfs);
	if (ret)
		goto undo;
	cni_lock_release(lock);
	lock = -1;
	ret = run_ipam(&a, &ipam_done);
	if (!ret)
		ret = ibsriov_rail_apply(&a);
	if (!ret)
		ret = ibsriov_build_result(&a);
	if (!ret)
		ret = finish(&a);
	if (ret)
		goto undo;
	goto out;

undo:
	/* Reverse order: addresses go with the netdev; then IPAM, netdev, PF. */
	if (ipam_done)
		cni_ipam_run(&ctx->env, ctx->conf, CNI_CMD_DEL, &undo);
	if (lock < 0)
		lock = relock(&a, &undo);
	if (lock >= 0 && ibsriov_release(&sys, &a.rec, &undo))
		log_err("rollback incomplete, the record stays for DEL: %s: %s", undo.msg,
			undo.details);
out:
	cni_lock_release(lock);
	if (a.netns_fd >= 0)
		close(a.netns_fd);
	cni_result_free(a.ipam);
	ibsriov_vf_table_forget(&vfs);
	ibsriov_record_clear(&a.rec);
	ibsriov_record_clear(&a.stale);
	return ret;
}
