// SPDX-License-Identifier: Apache-2.0
#include <linux/capability.h>
#include <string.h>

#include "caps.h"
#include "rdmans.h"

static const struct cni_plugin plugin = {
	.name = "rdma-ns",
	.about = "rdma-ns: moves a VF's RDMA devices into the pod network namespace\n"
		 "admin: rdma-ns netns-mode [show|exclusive|shared] | rdma-ns devices",
	.add = rdmans_add,
	.del = rdmans_del,
	.check = rdmans_check,
	.gc = rdmans_gc,
	.status = rdmans_status,
	.caps = CNI_CAP(CAP_NET_ADMIN) | CNI_CAP(CAP_SYS_ADMIN),
};

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "netns-mode"))
		return rdmans_mode_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "devices"))
		return rdmans_devices_main();
	return cni_run(&plugin, argc, argv);
}
