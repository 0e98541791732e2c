// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <string.h>

#include "rdmans.h"

int rdmans_del(struct cni_ctx *ctx)
{
	char record[NAME_MAX + 1];

	rdmans_args(ctx);

	/* An attachment we never recorded has nothing to undo. */
	if (rdmans_record_name(ctx, record, sizeof(record)))
		return 0;
	return rdmans_release(record, &ctx->err);
}
