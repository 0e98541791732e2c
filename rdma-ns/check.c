// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/util.h"
#include "kernel/netns.h"
#include "rdmans.h"
#include "kernel/verbs.h"
#include "kernel/verbs_diag.h"

/* The RoCE GID of each address of CNI_IFNAME and its MTU, with the texts
 * `ib-sriov doctor --pod` gives (cni/kernel/verbs_diag.h). A pod without
 * that netdev (rdma-ns chained where no netdev has CNI_IFNAME) has nothing
 * to check. */
static int check_roce(struct cni_sys *sys, struct cni_ctx *ctx, int pod,
		      const struct rdmans_record *rec, const char *rdma)
{
	static struct cni_roce_view v;
	struct cni_roce_want want;

	cni_roce_read(sys, pod, rdma, ctx->env.ifname, &v);
	if (v.link_ret == -ENODEV)
		return 0;
	rdmans_roce_want(ctx, rec, &want);
	return cni_roce_check(&v, ctx->env.ifname, &want, &ctx->err);
}

/* Every recorded device is visible in the pod, and usable there as an
 * application would use it: listed and opened by libibverbs in the pod's
 * namespace, every port ACTIVE. */
static int check_devices(struct cni_sys *sys, struct cni_ctx *ctx, int pod,
			 const struct rdmans_record *rec, const char *want)
{
	struct cni_rdma_dev d[RDMANS_MAX_DEVS];
	int saved = -1, ret = cni_netns_enter(sys, pod, &saved);

	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_INTERNAL, "cannot enter the pod",
				  "%s: %s", ctx->env.netns, strerror(-ret));
	/* By index when recorded: the name is the pod's to change. */
	for (unsigned int i = 0; !ret && i < rec->n_rdma; i++) {
		bool by_index = rec->has & RDMANS_REC_HAS_RDMA_INDEX;

		ret = cni_rdma_dev_get(sys, by_index ? NULL : rec->rdma[i], rec->rdma_index[i],
				       &d[i]);
		if (ret)
			cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE, "CHECK failed",
				   "RDMA device %s is not in the pod: %s", rec->rdma[i],
				   cni_rdma_strerror(ret));
		else if (*want && strcmp(d[i].name, want))
			ret = cni_errorf(&ctx->err, -EINVAL, CNI_ERR_DEVICE, "CHECK failed",
					 "RDMA device %s is %s in the pod, not \"%s\" (rdmaName)",
					 rec->rdma[i], d[i].name, want);
	}
	cni_netns_restore(sys, &saved);
	for (unsigned int i = 0; !ret && i < rec->n_rdma; i++)
		ret = cni_verbs_check(pod, d[i].name, NULL, &ctx->err);
	if (!ret && rec->n_rdma)
		ret = check_roce(sys, ctx, pod, rec, d[0].name);
	return ret;
}

/* CNI_NETNS is the namespace ADD moved the devices into (a record of an
 * older build has no identity to compare). */
static int same_netns(struct cni_sys *sys, struct cni_ctx *ctx, int pod,
		      const struct rdmans_record *rec, const char *name)
{
	char now[RDMANS_NETNS_ID_MAX];
	struct cni_netns_id found;
	int ret = rdmans_netns_is_recorded(sys, rec, pod, &found);

	if (ret < 0)
		return cni_errorf(&ctx->err, ret, CNI_ERR_INTERNAL,
				  "cannot read the pod's network namespace", "%s: %s",
				  ctx->env.netns, strerror(-ret));
	if (ret == 1)
		return 0;
	if (rdmans_netns_id_text(&found, now))
		copy_str(now, sizeof(now), "?");
	return cni_errorf(&ctx->err, -ESTALE, CNI_ERR_DEVICE, "CHECK failed",
			  "CNI_NETNS %s is network namespace %s, not %s that ADD moved the RDMA "
			  "devices into (recorded in %s/%s)",
			  ctx->env.netns, now, rec->netns_id, RDMANS_STATE_DIR, name);
}

int rdmans_check(struct cni_ctx *ctx)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	char name[NAME_MAX + 1], fresh[RDMANS_NAME_MAX + 1], want[CNI_RDMA_NAME_MAX];
	struct rdmans_record rec;
	_cleanup_close_ int pod = -1;
	int ret;

	ret = rdmans_args(ctx, true);
	if (!ret)
		ret = rdmans_ctx_record_name(ctx, fresh);
	if (!ret)
		ret = rdmans_rdma_name(ctx, want);
	if (ret)
		return ret;
	pod = cni_netns_open(&sys, ctx->env.netns, &ctx->err);
	if (pod < 0)
		return pod;
	ret = rdmans_find_record(ctx, &rec, name);
	if (!ret)
		ret = same_netns(&sys, ctx, pod, &rec, name);
	if (!ret)
		return check_devices(&sys, ctx, pod, &rec, want);
	if (ret == -ENOENT)
		ret = rdmans_check_rdmacni(&sys, ctx, pod);
	if (ret == -ENOENT)
		return cni_errorf(&ctx->err, ret, CNI_ERR_UNKNOWN_CONTAINER, "CHECK failed",
				  "no record %s/%s (nor an rdma-cni cache entry)", RDMANS_STATE_DIR,
				  fresh);
	return ret;
}
