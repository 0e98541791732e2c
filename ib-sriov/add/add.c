// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "release/release.h"
#include "base/cleanup.h"
#include "protocol/devcheck.h"
#include "guid.h"
#include "add.h"
#include "protocol/delegate.h"
#include "devinfo.h"
#include "state/lock.h"
#include "kernel/netns.h"
#include "rail.h"
#include "base/util.h"

/* The pod's namespace and name, when CNI_ARGS gives both and they fit:
 * what `ib-sriov doctor --pod` looks for; a runtime without them (not
 * Kubernetes) leaves the keys out. */
static void record_pod(struct cni_ctx *ctx, struct ibsriov_record *r)
{
	const char *ns = cni_args_get(&ctx->args, "K8S_POD_NAMESPACE");
	const char *pod = cni_args_get(&ctx->args, "K8S_POD_NAME");

	if (!ns || !pod || !*ns || !*pod || copy_str(r->pod_ns, sizeof(r->pod_ns), ns) ||
	    copy_str(r->pod_name, sizeof(r->pod_name), pod))
		return;
	r->flags |= IBSRIOV_REC_HAS_POD;
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
	record_pod(ctx, r);
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
	ret = ibsriov_devinfo_name(a->ctx, a->devinfo, sizeof(a->devinfo));
	if (!ret)
		ret = cni_device_check(a->ctx, "deviceID", &dev, 1);
	if (!ret)
		ret = ibsriov_resolve_device(a);
	a->rdma_dev = a->pci.rdma_dev;
	return ret;
}

/* Under the VF lock, before any change: the VF as it is now. */
static int prepare(struct add *a, struct ibsriov_vf_table *vfs)
{
	bool undone = false;
	int ret = earlier_attempt(a, &undone);

	if (!ret)
		ret = ibsriov_resolve_links(a, undone);
	if (!ret)
		ret = ibsriov_guid_fallback(a, vfs);
	if (!ret)
		ret = ibsriov_check_fits(a);
	if (!ret)
		ret = ibsriov_pod_ifname_free(a);
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
			ret = ibsriov_resolve_links(a, false);
		if (!ret)
			ret = ibsriov_check_fits(a);
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

/* railTable and railSysctls on the pod interface, once it has its addresses. */
static int rails(struct add *a)
{
	struct ibsriov_pod pod = {.sys = a->sys,
				  .ctx = a->ctx,
				  .netns_fd = a->netns_fd,
				  .ifindex = a->vfio || a->pf_passthrough ? 0 : a->vf.ifindex};

	return ibsriov_rail_apply(&pod, &a->conf, &a->rec, a->ipam);
}

/* The addresses the IPAM gave the pod netdev, for the doctor (the result
 * ibsriov_build_result took from the IPAM's). */
static void note_addrs(struct add *a)
{
	const struct cni_result *res = a->ctx->result;
	struct ibsriov_record *r = &a->rec;

	for (size_t i = 0; res && !a->vfio && i < res->n_ips; i++) {
		struct cni_addr addr = {.family = res->ips[i].address.family};

		if (r->n_pod_addrs >= IBSRIOV_RAIL_RULES_MAX)
			break;
		memcpy(addr.a, res->ips[i].address.a, sizeof(addr.a));
		cni_addr_str(&addr, r->pod_addrs[r->n_pod_addrs], sizeof(r->pod_addrs[0]));
		r->n_pod_addrs++;
		r->flags |= IBSRIOV_REC_HAS_POD_ADDRS;
	}
}

/* The Go-format twin lets a downgraded node's DEL find the VF; then the
 * record says ADD finished, and which twin it left. */
static int finish(struct add *a)
{
	struct ibsriov_devinfo_gid gids[IBSRIOV_RAIL_RULES_MAX];
	struct ibsriov_devinfo d = {.pf_pci = a->pci.pf_addr, .rdma_dev = a->rdma_dev, .ib = a->ib};
	int ret;

	d.gids = gids;
	d.n_gids = ibsriov_roce_gids(a, gids, IBSRIOV_RAIL_RULES_MAX);
	if (!a->vfio && a->vf.mtu) {
		a->rec.pod_mtu = a->vf.mtu;
		a->rec.flags |= IBSRIOV_REC_HAS_POD_MTU;
	}
	note_addrs(a);
	ret = ibsriov_devinfo_write(&a->rec, &d, &a->ctx->err);

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
		ret = rails(&a);
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
