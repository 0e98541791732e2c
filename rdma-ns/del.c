// SPDX-License-Identifier: Apache-2.0
#include <errno.h>

#include "rdmans.h"
#include "state/state.h"

int rdmans_del(struct cni_ctx *ctx)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	struct rdmans_record rec;
	char name[NAME_MAX + 1];
	int ret;

	rdmans_args(ctx, false);
	ret = rdmans_find_record(ctx, &rec, name);
	if (!ret)
		return rdmans_release(&sys, name, &rec, &ctx->err);
	if (ret != -ENOENT)
		return ret;
	/* A killed ADD's temp file of this attachment's record name. */
	if (!rdmans_record_name(ctx->conf->name, ctx->env.containerid, ctx->env.ifname, name) &&
	    cni_state_remove_tmp(RDMANS_STATE_DIR, name) > 0)
		log_info("removed %s/.%s.tmp, left by a killed ADD", RDMANS_STATE_DIR, name);
	/* Not ours: perhaps rdma-cni's, from before an upgrade. */
	return rdmans_release_rdmacni(&sys, ctx);
}
