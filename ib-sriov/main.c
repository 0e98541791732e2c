// SPDX-License-Identifier: Apache-2.0
#include <linux/capability.h>
#include <string.h>

#include "caps.h"
#include "ibsriov.h"

static const struct cni_plugin plugin = {
	.name = "ib-sriov",
	.about = "ib-sriov: SR-IOV VF plugin for InfiniBand and RoCE\n"
		 "admin: ib-sriov doctor [--json]",
	.add = ibsriov_add,
	.del = ibsriov_del,
	.check = ibsriov_check,
	.gc = ibsriov_gc,
	.status = ibsriov_status,
	.caps = CNI_CAP(CAP_NET_ADMIN) | CNI_CAP(CAP_SYS_ADMIN),
};

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "doctor"))
		return ibsriov_doctor_main(argc, argv);
	return cni_run(&plugin, argc, argv);
}
