// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "kernel/link.h"
#include "kernel/netns.h"
#include "rdmans.h"
#include "base/util.h"

/* Each device's index into the record before anything moves: DEL looks
 * them up by it, whatever the pod renames them to. */
static int resolve_all(struct cni_sys *sys, struct cni_ctx *ctx, struct rdmans_record *rec)
{
	if (rec->has & RDMANS_REC_HAS_RDMA_INDEX)
		return 0; /* found through netlink, index and all */
	for (unsigned int i = 0; i < rec->n_rdma; i++) {
		struct cni_rdma_dev d;
		int ret = cni_rdma_dev_get(sys, rec->rdma[i], 0, &d);

		if (ret)
			return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE,
					  "cannot find the RDMA device", "%s: %s", rec->rdma[i],
					  cni_rdma_strerror(ret));
		rec->rdma_index[i] = d.index;
	}
	rec->n_rdma_index = rec->n_rdma;
	rec->has |= RDMANS_REC_HAS_RDMA_INDEX;
	return 0;
}

/* rdmaName on a kernel that cannot name a device as it moves it. */
static int no_names(struct cni_ctx *ctx, const char *name, const char *want)
{
	return cni_errorf(&ctx->err, -ENOSYS, CNI_ERR_INVALID_CONFIG,
			  "rdmaName needs RDMA device names per network namespace",
			  "\"rdmaName\" is \"%s\" but this kernel names RDMA devices once for "
			  "the whole node: it renamed %s without moving it (undone). Remove "
			  "rdmaName, or run Linux 7 or later (ib-sriov doctor says which)",
			  want, name);
}

/* Into the pod, under want when rdmaName gives one. */
static int move_one(struct cni_sys *sys, struct cni_ctx *ctx, int pod,
		    const struct rdmans_record *rec, unsigned int i, const char *want)
{
	struct cni_rdma_dev d = {.index = rec->rdma_index[i]};
	int ret;

	if (!*want)
		return cni_rdma_move(sys, rec->rdma_index[i], pod);
	copy_str(d.name, sizeof(d.name), rec->rdma[i]);
	ret = cni_rdma_move_named(sys, &d, pod, want);
	return ret == -ENOSYS ? no_names(ctx, rec->rdma[i], want) : ret;
}

static int move_all(struct cni_sys *sys, struct cni_ctx *ctx, int pod,
		    const struct rdmans_record *rec, const char *want)
{
	for (unsigned int i = 0; i < rec->n_rdma; i++) {
		const char *name = rec->rdma[i];
		int ret = move_one(sys, ctx, pod, rec, i, want);

		if (ret == -ENOSYS)
			return ret;
		if (ret == -EOPNOTSUPP)
			return cni_errorf(
			    &ctx->err, ret, CNI_ERR_DEVICE,
			    "the RDMA device cannot change network namespace",
			    "%s: its driver does not support moving between network namespaces "
			    "(soft RDMA drivers such as rxe and siw never do) %s",
			    name, cni_sys_ext_ack(sys));
		if (ret)
			return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE,
					  "cannot move the RDMA device into the pod", "%s: %s %s",
					  name, cni_rdma_strerror(ret), cni_sys_ext_ack(sys));
		log_info("moved RDMA device %s into %s%s%s", name, ctx->env.netns,
			 *want ? " as " : "", want);
	}
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

/* Everything a request carries, checked before the first kernel request. */
static int validate(struct cni_sys *sys, struct cni_ctx *ctx, int *pod,
		    char name[RDMANS_NAME_MAX + 1], struct rdmans_record *rec,
		    char want[CNI_RDMA_NAME_MAX])
{
	char dev[RDMANS_DEV_MAX];
	int ret = rdmans_args(ctx, true);

	if (!ret)
		ret = rdmans_configured_device(ctx->conf, dev, NULL, &ctx->err);
	if (!ret)
		ret = rdmans_rdma_name(ctx, want);
	if (ret)
		return ret;
	if (!ctx->conf->prev_result)
		return cni_errorf(
		    &ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG,
		    "rdma-ns must be chained after the plugin that creates the interface",
		    "no prevResult: list rdma-ns after ib-sriov (or sriov) in the conflist");
	ret = rdmans_ctx_record_name(ctx, name);
	if (ret)
		return ret;
	*pod = cni_netns_open(sys, ctx->env.netns, &ctx->err);
	if (*pod < 0)
		return *pod;
	ret = record_netns_id(sys, ctx, *pod, rec);
	if (!ret)
		ret = rdmans_device(sys, ctx, *pod, rec->deviceid);
	if (ret)
		return ret;
	ret = rdmans_devices_of(sys, ctx, *pod, rec);
	if (!ret && *want && rec->n_rdma > 1)
		return cni_errorf(
		    &ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG, "rdmaName names one RDMA device",
		    "%s has %u RDMA devices (%s, %s%s); remove \"rdmaName\"", rec->deviceid,
		    rec->n_rdma, rec->rdma[0], rec->rdma[1], rec->n_rdma > 2 ? ", ..." : "");
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

int rdmans_add(struct cni_ctx *ctx)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	struct rdmans_record rec = {.has = RDMANS_REC_HAS_NETWORK | RDMANS_REC_HAS_CONTAINERID |
					   RDMANS_REC_HAS_IFNAME | RDMANS_REC_HAS_NETNS |
					   RDMANS_REC_HAS_DEVICEID | RDMANS_REC_HAS_RDMA};
	char name[RDMANS_NAME_MAX + 1], want[CNI_RDMA_NAME_MAX];
	_cleanup_close_ int pod = -1;
	struct cni_error undo = {0};
	int ret;

	ret = validate(&sys, ctx, &pod, name, &rec, want);
	if (!ret)
		ret = rdmans_require_exclusive(&sys, ctx, false);
	if (!ret)
		ret = resolve_all(&sys, ctx, &rec);
	if (ret)
		return ret;
	/* The record first: whatever happens next, DEL knows what to undo. */
	if (copy_str(rec.network, sizeof(rec.network), ctx->conf->name) ||
	    copy_str(rec.containerid, sizeof(rec.containerid), ctx->env.containerid) ||
	    copy_str(rec.ifname, sizeof(rec.ifname), ctx->env.ifname) ||
	    copy_str(rec.netns, sizeof(rec.netns), ctx->env.netns))
		return cni_errorf(&ctx->err, -ENAMETOOLONG, CNI_ERR_INVALID_ENV,
				  "CNI_NETNS is too long", "%s", ctx->env.netns);
	record_pod(ctx, &rec);
	record_mtu(&sys, pod, ctx->env.ifname, &rec);
	ret = rdmans_record_save(name, &rec);
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_IO, "cannot write the record",
				  "%s/%s: %s", RDMANS_STATE_DIR, name, strerror(-ret));
	ret = move_all(&sys, ctx, pod, &rec, want);
	if (ret) {
		if (rdmans_release(&sys, name, &rec, &undo))
			log_err("rollback incomplete: %s: %s", undo.msg, undo.details);
		return ret;
	}
	ctx->result = cni_result_dup(ctx->conf->prev_result);
	return ctx->result ? 0 : -ENOMEM;
}
