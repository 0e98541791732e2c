// SPDX-License-Identifier: Apache-2.0
#include <linux/capability.h>
#include <string.h>

#include "protocol/caps.h"
#include "rdmans.h"

/* --help; the README's "rdma-ns" section has the full story of each key. */
static const struct cni_plugin_key keys[] = {
    {"deviceID, pciBusID", "the VF's PCI address or auxiliary device (Multus sets it)"},
    {"(neither)", "the pciID of the prevResult interface, else its netdev's device"},
    {"args.cni.debug", "true: debug logging (rdma-cni's key)"},
    {"logLevel, logFile",
     "panic..debug (default info); <network>.log in /var/log/ibcni/ or ignored"},
    {NULL, NULL},
};

static struct cni_plugin plugin = {
    .name = "rdma-ns",
    .about = "rdma-ns (also installed as rdma): moves a VF's RDMA devices into the pod network "
	     "namespace",
    .keys = keys,
    .admin = "  rdma-ns netns-mode [show]             the RDMA subsystem's netns mode\n"
	     "  rdma-ns netns-mode exclusive|shared   switch it (EBUSY: what is in the way)\n"
	     "  rdma-ns devices                       the RDMA devices visible here\n"
	     "  rdma-ns reconcile [--dry-run] [--grace SECONDS]\n"
	     "                                        release records of pods gone without DEL",
    .add = rdmans_add,
    .del = rdmans_del,
    .check = rdmans_check,
    .gc = rdmans_gc,
    .status = rdmans_status,
    .caps = CNI_CAP(CAP_NET_ADMIN) | CNI_CAP(CAP_SYS_ADMIN),
};

int main(int argc, char **argv)
{
	const char *base = argc > 0 ? strrchr(argv[0], '/') : NULL;

	/* Installed as rdma too (rdma-cni's "type"): the name in log lines
	 * follows the one the runtime ran; nothing else depends on it. */
	base = base ? base + 1 : argc > 0 ? argv[0] : "";
	if (!strcmp(base, "rdma"))
		plugin.name = "rdma";
	if (argc > 1 && !strcmp(argv[1], "netns-mode"))
		return rdmans_mode_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "devices"))
		return rdmans_devices_main();
	if (argc > 1 && !strcmp(argv[1], "reconcile"))
		return rdmans_reconcile_main(argc, argv);
	return cni_run(&plugin, argc, argv);
}
