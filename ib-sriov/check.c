// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/cleanup.h"
#include "guid.h"
#include "ibsriov.h"
#include "protocol/delegate.h"
#include "kernel/netns.h"
#include "kernel/verbs.h"
#include "kernel/verbs_diag.h"
#include "rail.h"

static int mismatch(struct cni_ctx *ctx, const char *what, const char *want, const char *got)
{
	return cni_errorf(&ctx->err, -EINVAL, CNI_ERR_DEVICE, "CHECK failed",
			  "%s of %s: want %s, got %s", what, ctx->env.ifname, want, got);
}

/* A dump of the pod's addresses or routes the kernel refused: not "absent". */
static int cannot_list(struct cni_sys *sys, struct cni_ctx *ctx, const char *what, int ret)
{
	const char *ack = cni_sys_ext_ack(sys);

	return cni_errorf(&ctx->err, ret, CNI_ERR_INTERNAL, "CHECK failed",
			  "cannot list the %s of %s: %s%s%s", what, ctx->env.ifname, strerror(-ret),
			  *ack ? ": " : "", ack);
}

/* With rdmaIsolation the MTU is the RoCE check's (check_rdma), told as
 * the doctor tells it; rdma says so. */
static int check_pod(struct cni_sys *sys, struct cni_ctx *ctx, bool rdma)
{
	const struct cni_result *prev = ctx->conf->prev_result;
	struct cni_link l;
	char buf[64], want[64];
	int ret;

	ret = cni_link_get(sys, ctx->env.ifname, 0, &l);
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE, "CHECK failed",
				  "%s is not in the pod (%s)", ctx->env.ifname, strerror(-ret));
	cni_hw_str(l.mac, l.mac_len, buf, sizeof(buf));
	for (size_t i = 0; prev && i < prev->n_ifaces; i++) {
		const struct cni_iface *f = &prev->ifaces[i];

		if (!f->name || strcmp(f->name, ctx->env.ifname))
			continue;
		if (f->mac && *f->mac && strcasecmp(f->mac, buf))
			return mismatch(ctx, "hardware address", f->mac, buf);
		if (!rdma && f->mtu && (unsigned int)f->mtu != l.mtu) {
			snprintf(want, sizeof(want), "%d", f->mtu);
			snprintf(buf, sizeof(buf), "%u", l.mtu);
			return mismatch(ctx, "MTU", want, buf);
		}
	}
	if (!(l.flags & IFF_UP))
		return mismatch(ctx, "state", "up", "down");
	for (size_t i = 0; prev && i < prev->n_ips; i++) {
		ret = cni_link_has_addr(sys, l.ifindex, &prev->ips[i].address);
		if (ret < 0)
			return cannot_list(sys, ctx, "addresses", ret);
		if (ret != 1)
			return mismatch(ctx, "address",
					cni_prefix_str(&prev->ips[i].address, want, sizeof(want)),
					"absent");
	}
	for (size_t i = 0; prev && i < prev->n_routes; i++) {
		struct cni_route rt = cni_result_route_via(prev, i);

		ret = cni_link_has_route(sys, l.ifindex, &rt);
		if (ret < 0)
			return cannot_list(sys, ctx, "routes", ret);
		if (ret != 1)
			return mismatch(ctx, "route", cni_prefix_str(&rt.dst, want, sizeof(want)),
					"absent");
	}
	return 0;
}

bool ibsriov_check_guid(const struct ibsriov_conf *conf, const struct ibsriov_record *rec,
			uint64_t *guid)
{
	if (rec->kind != IBSRIOV_IB)
		return false;
	if (conf->has_guid) {
		*guid = conf->guid;
		return true;
	}
	/* The one guidFallback derived, else the VF's own: as ADD noted. */
	if (conf->guid_fallback && (rec->flags & IBSRIOV_REC_HAS_GUID)) {
		*guid = rec->guid;
		return true;
	}
	if ((rec->flags & IBSRIOV_REC_HAS_VF_ORIG) && (rec->vf_orig.mask & CNI_VF_PORT_GUID) &&
	    !ibsriov_guid_unset(rec->vf_orig.port_guid)) {
		*guid = rec->vf_orig.port_guid;
		return true;
	}
	return false;
}

/* What ADD left on the pod netdev: its MTU and addresses in the previous
 * result, else the record's (an MTU of 0: unknown). */
static void roce_want(struct cni_ctx *ctx, const struct ibsriov_record *rec,
		      struct cni_roce_want *w)
{
	const struct cni_result *prev = ctx->conf->prev_result;

	memset(w, 0, sizeof(*w));
	w->mtu = prev ? cni_result_mtu_of(prev, ctx->env.ifname) : 0;
	if (!w->mtu && rec->flags & IBSRIOV_REC_HAS_POD_MTU)
		w->mtu = rec->pod_mtu;
	if (prev)
		w->n_addrs = (unsigned int)cni_result_addrs_of(prev, ctx->env.ifname, w->addrs,
							       CNI_ROCE_WANT_MAX);
	for (unsigned int i = 0; !w->n_addrs && i < rec->n_pod_addrs; i++)
		cni_roce_want_add(w, rec->pod_addrs[i]);
}

/* With rdmaIsolation the pod's RDMA devices, through verbs in the pod:
 * listed, open, ports ACTIVE; on InfiniBand the port GUID ADD set
 * (ibsriov_check_guid) and, with pkeyEnforce, the pkey; then the RoCE GID
 * of each address and the MTU, with the doctor's texts (verbs_diag.h). */
static int check_rdma(struct cni_sys *sys, struct cni_ctx *ctx, int pod,
		      const struct ibsriov_conf *conf, const struct ibsriov_record *rec)
{
	struct cni_verbs_expect want = {0};
	static struct cni_roce_view v;
	struct cni_roce_want want_roce;
	int ret = 0;

	if (!(rec->flags & IBSRIOV_REC_HAS_RDMA))
		return 0;
	want.has_guid = ibsriov_check_guid(conf, rec, &want.port_guid);
	want.has_pkey = rec->kind == IBSRIOV_IB && conf->has_pkey && conf->pkey_enforce;
	want.pkey = conf->pkey;
	/* Under rdmaName when the config gives one (one device, ADD's rule). */
	for (unsigned int i = 0; !ret && i < rec->n_rdma; i++)
		ret = cni_verbs_check(pod, *conf->rdma_name ? conf->rdma_name : rec->rdma[i], &want,
				      &ctx->err);
	if (ret || !rec->n_rdma)
		return ret;
	cni_roce_read(sys, pod, *conf->rdma_name ? conf->rdma_name : rec->rdma[0], ctx->env.ifname,
		      &v);
	roce_want(ctx, rec, &want_roce);
	return cni_roce_check(&v, ctx->env.ifname, &want_roce, &ctx->err);
}

int ibsriov_check(struct cni_ctx *ctx)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	struct ibsriov_record rec;
	struct ibsriov_conf conf;
	_cleanup_close_ int fd = -1;
	int saved = -1, ret;

	ret = ibsriov_conf_load(ctx, &conf, false);
	if (ret)
		return ret;
	ret = ibsriov_record_find(ctx->env.containerid, ctx->env.ifname, ctx->env.netns, &rec);
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_UNKNOWN_CONTAINER, "CHECK failed",
				  "no attachment record for %s:%s (%s)", ctx->env.containerid,
				  ctx->env.ifname, strerror(-ret));
	if (strcmp(rec.device, conf.device)) {
		ret = mismatch(ctx, "device", conf.device, rec.device);
		goto out;
	}
	if (rec.kind != IBSRIOV_VFIO) {
		fd = cni_netns_open(&sys, ctx->env.netns, &ctx->err);
		ret = fd < 0 ? fd : cni_netns_enter(&sys, fd, &saved);
		if (!ret) {
			/* The rail's first: its routes are in a table of its own. */
			ret = ibsriov_rail_check(&sys, ctx, &conf, &rec);
			if (!ret)
				ret = check_pod(&sys, ctx, rec.flags & IBSRIOV_REC_HAS_RDMA);
			if (cni_netns_restore(&sys, &saved) && !ret)
				ret = cni_errorf(&ctx->err, -EIO, CNI_ERR_INTERNAL,
						 "cannot return to the host namespace", "after %s",
						 ctx->env.netns);
		}
		if (!ret)
			ret = check_rdma(&sys, ctx, fd, &conf, &rec);
	}
	if (!ret && ctx->conf->ipam_type && *ctx->conf->ipam_type)
		ret = cni_ipam_run(&ctx->env, ctx->conf, CNI_CMD_CHECK, &ctx->err);
out:
	ibsriov_record_clear(&rec);
	return ret;
}
