// SPDX-License-Identifier: Apache-2.0
/* ib-host-local's plugin table: its main and ib-sriov's builtin delegate
 * (cni_delegate_builtin) serve requests through it. */
#include "ipam.h"

/* --help; the README's "ib-host-local" section has the full story of each key. */
static const struct cni_plugin_key keys[] = {
    {"ipam.ranges", "range sets [[{subnet, rangeStart, rangeEnd, gateway}]]"},
    {"ipam.subnet, rangeStart, ...", "the legacy single range"},
    {"ipam.routes", "copied into the result"},
    {"ipam.dataDir", "lease directory root (default /var/lib/cni/networks)"},
    {"ipam.resolvConf", "a resolv.conf whose entries become the result's dns"},
    {"args.cni.ips, runtimeConfig.ips", "requested addresses (CNI_ARGS IP= too)"},
    {"runtimeConfig.ipRanges", "range sets from the runtime, before the configured ones"},
    {"logLevel, logFile", "panic..debug (default info); a file in /var/log/ibcni/"},
    {NULL, NULL},
};

const struct cni_plugin ipam_plugin = {
    .name = "ib-host-local",
    .about = "ib-host-local: host-local compatible IPAM (store-compatible with host-local)",
    .keys = keys,
    .add = ipam_add,
    .del = ipam_del,
    .check = ipam_check,
    .gc = ipam_gc,
    .status = ipam_status,
};
