// SPDX-License-Identifier: Apache-2.0
/* rdma-ns's configuration beside the device keys (device.c): args.cni, the
 * rdmaName key, the record's name from the request, and the RDMA netns mode
 * every verb but DEL and GC requires. */
#include <errno.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "protocol/conf_table.h"
#include "rdmans.h"
#include "base/util.h"

int rdmans_require_exclusive(struct cni_sys *sys, struct cni_ctx *ctx, bool for_status)
{
	return cni_rdma_require_exclusive(sys, &ctx->err,
					  for_status ? CNI_ERR_NOT_AVAILABLE : CNI_ERR_RDMA_MODE);
}

/* rdma-cni's args.cni.debug: debug logging, wherever the log goes. */
static const struct cni_conf_key args_keys[] = {
    CNI_CONF_BOOL("debug", 0),
};

int rdmans_args(struct cni_ctx *ctx, bool strict)
{
	struct cni_error bad = {0};
	bool debug = false;
	struct cni_conf_load l = {
	    .obj = ctx->conf->args_cni, .prefix = "args.cni", .dst = &debug, .err = &bad};
	int ret = cni_conf_load(&l, args_keys, ARRAY_SIZE(args_keys));

	if (!ret && debug)
		cni_log_set_level(CNI_LOG_DEBUG);
	if (ret != -EINVAL)
		return 0;
	if (strict)
		return cni_error_adopt(&ctx->err, &bad, ret);
	/* Cleanup must not depend on a config edit. */
	log_warn("ignored: %s: %s", bad.msg, bad.details);
	return 0;
}

/* rdma-ns's own keys beside deviceID and pciBusID (device.c). */
static const struct cni_conf_key rdmans_keys[] = {
    CNI_CONF_RDMA_NAME("rdmaName", 0),
};

int rdmans_rdma_name(struct cni_ctx *ctx, char name[CNI_RDMA_NAME_MAX])
{
	struct cni_conf_load l = {
	    .obj = ctx->conf->root, .dst = name, .err = &ctx->err, .ifname = ctx->env.ifname};

	return cni_conf_load(&l, rdmans_keys, ARRAY_SIZE(rdmans_keys));
}

int rdmans_ctx_record_name(struct cni_ctx *ctx, char buf[RDMANS_NAME_MAX + 1])
{
	if (rdmans_record_name(ctx->conf->name, ctx->env.containerid, ctx->env.ifname, buf))
		return cni_errorf(&ctx->err, -ENAMETOOLONG, CNI_ERR_INVALID_ENV,
				  "container ID, network name and interface name are too long",
				  "rdma-ns names its record <network>:<containerID>:<ifname>, at "
				  "most %d bytes; here %zu + %zu + %zu",
				  RDMANS_NAME_MAX, strlen(ctx->conf->name),
				  strlen(ctx->env.containerid), strlen(ctx->env.ifname));
	return 0;
}

void rdmans_roce_want(const struct cni_ctx *ctx, const struct rdmans_record *rec,
		      struct cni_roce_want *w)
{
	const struct cni_result *prev = ctx->conf->prev_result;

	memset(w, 0, sizeof(*w));
	w->mtu = prev ? cni_result_mtu_of(prev, ctx->env.ifname) : 0;
	if (!w->mtu && rec && rec->has & RDMANS_REC_HAS_POD_MTU)
		w->mtu = rec->pod_mtu;
	if (prev)
		w->n_addrs = (unsigned int)cni_result_addrs_of(prev, ctx->env.ifname, w->addrs,
							       CNI_ROCE_WANT_MAX);
	for (unsigned int i = 0; !w->n_addrs && rec && i < rec->n_pod_addrs; i++)
		cni_roce_want_add(w, rec->pod_addrs[i]);
}
