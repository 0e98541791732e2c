// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <linux/capability.h>

#include "caps.h"
#include "cni.h"

/* Not built yet: every command says so instead of pretending. */
static int not_ready(struct cni_ctx *ctx)
{
	return cni_errorf(&ctx->err, -ENOSYS, CNI_ERR_INTERNAL,
			  "rdma-ns is not implemented in this build",
			  "this build of ibcni ships the runtime only; use a release that includes rdma-ns");
}

static const struct cni_plugin plugin = {
	.name = "rdma-ns",
	.about = "rdma-ns: moves a VF's RDMA device into the pod network namespace",
	.add = not_ready,
	.del = not_ready,
	.check = not_ready,
	.caps = CNI_CAP(CAP_NET_ADMIN) | CNI_CAP(CAP_SYS_ADMIN),
};

int main(int argc, char **argv)
{
	return cni_run(&plugin, argc, argv);
}
