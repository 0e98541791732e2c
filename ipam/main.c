// SPDX-License-Identifier: Apache-2.0
#include <errno.h>

#include "cni.h"

static int not_ready(struct cni_ctx *ctx)
{
	return cni_errorf(&ctx->err, -ENOSYS, CNI_ERR_INTERNAL,
			  "ib-host-local is not implemented in this build", NULL);
}

static const struct cni_plugin plugin = {
	.name = "ib-host-local",
	.about = "ib-host-local: host-local compatible IPAM",
	.add = not_ready,
	.del = not_ready,
	.check = not_ready,
};

int main(int argc, char **argv)
{
	return cni_run(&plugin, argc, argv);
}
