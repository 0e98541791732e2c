// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "kernel/link.h"
#include "kernel/netns.h"
#include "kernel/rdma_move.h"
#include "rdmans.h"
#include "base/util.h"

/* The devices with their indices into the record before anything moves:
 * DEL looks them up by index, whatever the pod renames them to. */
static int keep(struct cni_sys *sys, struct cni_ctx *ctx, struct cni_rdma_found *f,
		struct rdmans_record *rec)
{
	const char *failed = NULL;
	int ret = cni_rdma_found_indices(sys, f, &failed);

	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE, "cannot find the RDMA device",
				  "%s: %s", failed, cni_rdma_strerror(ret));
	for (size_t i = 0; i < f->n; i++) {
		copy_str(rec->rdma[i], sizeof(rec->rdma[i]), f->names[i]);
		rec->rdma_index[i] = f->index[i];
	}
	rec->n_rdma = rec->n_rdma_index = (unsigned int)f->n;
	rec->has |= RDMANS_REC_HAS_RDMA_INDEX;
	return 0;
}

/* Into the pod (cni_rdma_send), under want when rdmaName gives one. */
static int send_all(struct cni_sys *sys, struct cni_ctx *ctx, int pod,
		    const struct cni_rdma_found *f, const char *want)
{
	const char *failed = NULL;
	int ret = cni_rdma_send(sys, f, pod, want, &failed);

	if (ret == -EOPNOTSUPP)
		return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE,
				  "the RDMA device cannot change network namespace", "%s: %s %s",
				  failed, cni_rdma_strerror(ret), cni_sys_ext_ack(sys));
	if (ret)
		return cni_rdma_send_error(sys, &ctx->err, ret, want, failed);
	return 0;
}

/* The identity of the namespace opened (the one the devices go into), so
 * that DEL enters the path only while it still names it: its cookie too,
 * as on kernels before 6.18 (no namespace ID) the inode is all the rest
 * tells, and a freed one goes to the next namespace. */
static int record_netns_id(struct cni_sys *sys, struct cni_ctx *ctx, int pod,
			   struct rdmans_record *rec)
{
	struct cni_netns_id id;
	int ret = cni_netns_id(pod, &id);

	if (!ret)
		ret = cni_netns_cookie(sys, pod, &id.cookie);
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_INTERNAL,
				  "cannot read the pod's network namespace", "%s: %s",
				  ctx->env.netns, strerror(-ret));
	rdmans_record_set_netns_id(
	    rec, &(struct rdmans_netns_id){
		     .dev = id.dev, .ino = id.ino, .nsid = id.nsid, .cookie = id.cookie});
	return 0;
}

/* What ADD carries from its checks to the move. */
struct add {
	int pod;
	char name[RDMANS_NAME_MAX + 1]; /* the record's */
	char want[CNI_RDMA_NAME_MAX];	/* rdmaName; "": none */
	struct rdmans_record rec;
	struct cni_rdma_found f;
};

/* Everything a request carries, checked before the first kernel request. */
static int validate(struct cni_sys *sys, struct cni_ctx *ctx, struct add *a)
{
	char dev[RDMANS_DEV_MAX];
	int ret = rdmans_args(ctx, true);

	if (!ret)
		ret = rdmans_configured_device(ctx->conf, dev, NULL, &ctx->err);
	if (!ret)
		ret = rdmans_rdma_name(ctx, a->want);
	if (ret)
		return ret;
	if (!ctx->conf->prev_result)
		return cni_errorf(
		    &ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG,
		    "rdma-ns must be chained after the plugin that creates the interface",
		    "no prevResult: list rdma-ns after ib-sriov (or sriov) in the conflist");
	ret = rdmans_ctx_record_name(ctx, a->name);
	if (ret)
		return ret;
	a->pod = cni_netns_open(sys, ctx->env.netns, &ctx->err);
	if (a->pod < 0)
		return a->pod;
	ret = record_netns_id(sys, ctx, a->pod, &a->rec);
	if (!ret)
		ret = rdmans_device(sys, ctx, a->pod, a->rec.deviceid);
	if (ret)
		return ret;
	ret = rdmans_devices_of(sys, ctx, a->pod, a->rec.deviceid, &a->f);
	if (!ret && *a->want && a->f.n > 1)
		return cni_errorf(
		    &ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG, "rdmaName names one RDMA device",
		    "%s has %zu RDMA devices (%s, %s%s); remove \"rdmaName\"", a->rec.deviceid,
		    a->f.n, a->f.names[0], a->f.names[1], a->f.n > 2 ? ", ..." : "");
	return ret;
}

/* The MTU of the pod's CNI_IFNAME as the previous plugin left it, the one
 * `ib-sriov doctor --pod` and CHECK compare with: none when the pod has no
 * such netdev (nothing to compare then). */
static void record_mtu(struct cni_sys *sys, int pod, const char *ifname, struct rdmans_record *rec)
{
	struct cni_link l;
	int saved = -1;

	if (cni_netns_enter(sys, pod, &saved))
		return;
	if (!cni_link_get(sys, ifname, 0, &l) && l.mtu) {
		rec->pod_mtu = l.mtu;
		rec->has |= RDMANS_REC_HAS_POD_MTU;
	}
	cni_netns_restore(sys, &saved);
}

/* The pod's namespace and name, when CNI_ARGS gives both and they fit:
 * what `ib-sriov doctor --pod` looks for; a runtime without them (not
 * Kubernetes) leaves the keys out. */
static void record_pod(struct cni_ctx *ctx, struct rdmans_record *rec)
{
	const char *ns = cni_args_get(&ctx->args, "K8S_POD_NAMESPACE");
	const char *pod = cni_args_get(&ctx->args, "K8S_POD_NAME");

	if (!ns || !pod || !*ns || !*pod || copy_str(rec->pod_ns, sizeof(rec->pod_ns), ns) ||
	    copy_str(rec->pod_name, sizeof(rec->pod_name), pod))
		return;
	rec->has |= RDMANS_REC_HAS_POD;
}

/* CNI_IFNAME's addresses in the previous result, for the doctor. */
static void record_addrs(const struct cni_ctx *ctx, struct rdmans_record *rec)
{
	struct cni_roce_want w;

	rdmans_roce_want(ctx, NULL, &w);
	for (unsigned int i = 0; i < w.n_addrs && i < RDMANS_MAX_DEVS; i++)
		cni_addr_str(&w.addrs[i], rec->pod_addrs[rec->n_pod_addrs++],
			     sizeof(rec->pod_addrs[0]));
	if (rec->n_pod_addrs)
		rec->has |= RDMANS_REC_HAS_POD_ADDRS;
}

int rdmans_add(struct cni_ctx *ctx)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	struct add a = {.pod = -1,
			.rec.has = RDMANS_REC_HAS_NETWORK | RDMANS_REC_HAS_CONTAINERID |
				   RDMANS_REC_HAS_IFNAME | RDMANS_REC_HAS_NETNS |
				   RDMANS_REC_HAS_DEVICEID | RDMANS_REC_HAS_RDMA};
	struct rdmans_record *rec = &a.rec;
	struct cni_error undo = {0};
	int ret = validate(&sys, ctx, &a);
	_cleanup_close_ int pod = a.pod;

	if (!ret)
		ret = rdmans_require_exclusive(&sys, ctx, false);
	if (!ret)
		ret = keep(&sys, ctx, &a.f, rec);
	if (ret)
		return ret;
	/* The record first: whatever happens next, DEL knows what to undo. */
	if (copy_str(rec->network, sizeof(rec->network), ctx->conf->name) ||
	    copy_str(rec->containerid, sizeof(rec->containerid), ctx->env.containerid) ||
	    copy_str(rec->ifname, sizeof(rec->ifname), ctx->env.ifname) ||
	    copy_str(rec->netns, sizeof(rec->netns), ctx->env.netns))
		return cni_errorf(&ctx->err, -ENAMETOOLONG, CNI_ERR_INVALID_ENV,
				  "CNI_NETNS is too long", "%s", ctx->env.netns);
	record_pod(ctx, rec);
	record_addrs(ctx, rec);
	record_mtu(&sys, pod, ctx->env.ifname, rec);
	ret = rdmans_record_save(a.name, rec);
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_IO, "cannot write the record",
				  "%s/%s: %s", RDMANS_STATE_DIR, a.name, strerror(-ret));
	ret = send_all(&sys, ctx, pod, &a.f, a.want);
	if (ret) {
		if (rdmans_release(&sys, a.name, rec, &undo))
			log_err("rollback incomplete: %s: %s", undo.msg, undo.details);
		return ret;
	}
	ctx->result = cni_result_dup(ctx->conf->prev_result);
	return ctx->result ? 0 : -ENOMEM;
}
