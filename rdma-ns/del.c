// SPDX-License-Identifier: Apache-2.0
#include <errno.h>

#include "rdmans.h"

int rdmans_del(struct cni_ctx *ctx)
{
	struct rdmans_record rec;
	char name[NAME_MAX + 1];
	int ret;

	rdmans_args(ctx, false);
	ret = rdmans_find_record(ctx, &rec, name);
	if (!ret)
		return rdmans_release(name, &rec, &ctx->err);
	if (ret != -ENOENT)
		return ret;
	/* Not ours: perhaps rdma-cni's, from before an upgrade. */
	return rdmans_release_rdmacni(ctx);
}
