// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>

#include "ibsriov.h"
#include "ipam.h"
#include "state.h"

int ibsriov_del(struct cni_ctx *ctx)
{
	struct ibsriov_record rec = { 0 };
	struct ibsriov_conf conf;
	char name[NAME_MAX + 1];
	int ret, ipam_ret = 0;

	/* DEL must work with whatever it is given: only a valid attachment
	 * name is needed to find the record. */
	ibsriov_conf_load(ctx, &conf, true);
	memset(&ctx->err, 0, sizeof(ctx->err));
	/* IPAM DEL always runs, netns or record or not. */
	if (ctx->conf->ipam_type)
		ipam_ret = cni_ipam_run(&ctx->env, ctx->conf, CNI_CMD_DEL, &ctx->err);
	ret = ibsriov_record_name(ctx->env.containerid, ctx->env.ifname, name, sizeof(name));
	if (!ret)
		ret = ibsriov_record_load(name, &rec);
	if (ret == -ENOENT) {
		log_info("no record for %s: nothing to undo", name);
		return ipam_ret;
	}
	if (ret) {
		log_warn("record %s/%s is unreadable (%s); removing it", IBSRIOV_STATE_DIR, name,
			 strerror(-ret));
		cni_state_remove(IBSRIOV_STATE_DIR, name);
		return ipam_ret;
	}
	ret = ibsriov_release_locked(&rec, &ctx->err);
	json_object_put(rec.o);
	return ret ? ret : ipam_ret;
}
