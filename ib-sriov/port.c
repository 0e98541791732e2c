// SPDX-License-Identifier: Apache-2.0
/* What to do about an RDMA port that is not ACTIVE: one text per state,
 * so that ADD's "waitPortActiveMs" failure and the doctor say the same. */
#include "kernel/verbs.h"
#include "port.h"

const char *ibsriov_port_fix(int state, unsigned int phys, bool ib)
{
	switch (state) {
	case CNI_VERBS_PORT_DOWN:
		/* rxe and mlx5 RoCE report Disabled for a netdev without carrier. */
		if (!ib)
			return "a RoCE port follows its netdev's carrier: check the cable, the "
			       "PF's link and the VF's \"link_state\" (\"auto\" or \"enable\")";
		if (phys == 3)
			return "the port is disabled (physical state Disabled): enable it on the "
			       "switch or with ibportstate, and check the VF's \"link_state\"";
		if (phys == 2)
			return "the port is polling for a peer (physical state Polling): check the "
			       "cable and the switch port";
		return "no physical link: check the cable and the switch port, and the VF's "
		       "\"link_state\" (\"auto\" or \"enable\")";
	case CNI_VERBS_PORT_INIT:
		return "the subnet manager has not configured the port: check that a subnet "
		       "manager (opensm, UFM) runs on the fabric and sees this port, or raise "
		       "waitPortActiveMs";
	case CNI_VERBS_PORT_ARMED:
		return "the subnet manager is bringing the port up (ARMED): raise "
		       "waitPortActiveMs";
	case CNI_VERBS_PORT_NOP:
		return "the port reports no state yet (NOP): the device is still starting; "
		       "raise waitPortActiveMs";
	default:
		return "raise waitPortActiveMs, or check the port with ibstat";
	}
}
