// SPDX-License-Identifier: Apache-2.0
#include <linux/capability.h>
#include <string.h>

#include "../ipam/ipam.h"
#include "protocol/builtin.h"
#include "protocol/caps.h"
#include "ibsriov.h"

/* --help; the README's "ib-sriov" section has the full story of each key. */
static const struct cni_plugin_key keys[] = {
    {"deviceID, pciBusID", "the VF's PCI address (Multus sets it), 0000:3b:00.2 or 3b:00.2"},
    {"runtimeConfig.infinibandGUID", "IB: the VF's GUID; also args.cni.guid, then guid"},
    {"guidFallback", "IB: a derived GUID for a VF without one (docs/guid.md)"},
    {"pkey", "IB: partition for ib-kubernetes, e.g. \"0x8001\" (not acted on)"},
    {"pkeyEnforce, pkeyWaitMs", "IB: pkey must be in the VF's table; IPoIB child"},
    {"link_state", "auto, enable or disable"},
    {"ibKubernetesEnabled", "IB: wait for ib-kubernetes' GUID (error 11 until then)"},
    {"vfioPciMode", "VF bound to vfio-pci: GUID and link state only, no netdev"},
    {"rdmaIsolation", "also move the VF's RDMA devices (exclusive netns mode)"},
    {"mac, runtimeConfig.mac", "Eth: admin MAC of the VF (CNI_ARGS MAC= too)"},
    {"vlan, vlanQoS, vlanProto", "Eth: 0-4094, 0-7, 802.1q or 802.1ad"},
    {"spoofchk, trust", "Eth: \"on\" or \"off\""},
    {"min_tx_rate, max_tx_rate", "Eth: Mbps, min <= max"},
    {"mtu", "the pod interface's MTU"},
    {"netdevWaitMs", "IB: wait for the netdev after a GUID rebind (default 10000)"},
    {"waitPortActiveMs", "wait for the VF's RDMA port to be ACTIVE (default 0: no wait)"},
    {"CNIDeviceInfoFile", "runtimeConfig: where the device-info file goes (Multus' name)"},
    {"railTable", "a table for this rail's routes and source rules, or \"auto\""},
    {"railKeepMain, railSysctls", "main keeps the routes too; ARP flux sysctls"},
    {"ipam", "IPAM delegate: ib-host-local, host-local, whereabouts, ..."},
    {"dns", "DNS for the result when the IPAM gives none"},
    {"logLevel, logFile",
     "panic..debug (default info); <network>.log in /var/log/ibcni/ or ignored"},
    {NULL, NULL},
};

static const struct cni_plugin plugin = {
    .name = "ib-sriov",
    .about = "ib-sriov: SR-IOV VF plugin for InfiniBand and RoCE",
    .keys = keys,
    .admin =
	"  ib-sriov doctor [--json]              what will make pods fail on this node, each\n"
	"                                        finding with its fix\n"
	"  ib-sriov doctor --pod NAMESPACE/NAME [--json]\n"
	"  ib-sriov doctor --netns PATH [--json]\n"
	"                                        why RDMA fails in one pod: each ibcni attachment\n"
	"                                        checked from inside it (device, port, RoCE GID\n"
	"                                        index per address, MTU, IB GUID/pkey/LID)\n"
	"  ib-sriov reconcile [--dry-run] [--grace SECONDS] [--every SECONDS]\n"
	"                                        the node agent: release attachments of pods\n"
	"                                        gone without DEL (docs/operators.md)",
    .add = ibsriov_add,
    .del = ibsriov_del,
    .check = ibsriov_check,
    .gc = ibsriov_gc,
    .status = ibsriov_status,
    .caps = CNI_CAP(CAP_NET_ADMIN) | CNI_CAP(CAP_SYS_ADMIN),
};

/* ib-host-local is linked in: when CNI_PATH's ib-host-local is the one built
 * from this code, IPAM requests are served here instead of exec'ed. */
static const struct cni_builtin host_local = {
    .type = "ib-host-local",
    .plugin = &ipam_plugin,
    .id = &ipam_build_id,
    .serve = cni_run_builtin,
    /* Leases reached from /var/lib/cni without crossing a mount are on the
     * filesystem ib-sriov keeps its own records on (IBSRIOV_STATE_DIR) and
     * are served here; anything else in a child under the deadline. */
    .touches = ipam_touches,
    .inline_root = "/var/lib/cni",
};

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "doctor"))
		return ibsriov_doctor_main(argc, argv);
	/* Before the builtin: outside a CNI request there is no node config
	 * for it to borrow, so the agent's IPAM requests are exec'ed. */
	if (argc > 1 && !strcmp(argv[1], "reconcile"))
		return ibsriov_reconcile_main(argc, argv);
	cni_delegate_builtin(&host_local);
	/* The node's "ranges" are checked as the built-in ib-host-local reads them. */
	cni_nodeconf_ranges_checker(ipam_node_ranges_check);
	return cni_run(&plugin, argc, argv);
}
