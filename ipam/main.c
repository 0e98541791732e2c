// SPDX-License-Identifier: Apache-2.0
#include "cni.h"
#include "ipam.h"

static const struct cni_plugin plugin = {
	.name = "ib-host-local",
	.about = "ib-host-local: host-local compatible IPAM (store-compatible with host-local)",
	.add = ipam_add,
	.del = ipam_del,
	.check = ipam_check,
	.gc = ipam_gc,
	.status = ipam_status,
};

int main(int argc, char **argv)
{
	return cni_run(&plugin, argc, argv);
}
