// SPDX-License-Identifier: Apache-2.0
/* ib-host-local's plugin table: its main and ib-sriov's builtin delegate
 * (cni_delegate_builtin) serve requests through it. */
#include <errno.h>
#include <limits.h>
#include <json-c/json.h>
#include <string.h>

#include "state/confine.h"
#include "conf.h"
#include "ipam.h"
#include "base/util.h"

/* --help; the README's "ib-host-local" section has the full story of each key. */
static const struct cni_plugin_key keys[] = {
    {"ipam.ranges", "range sets [[{subnet, rangeStart, rangeEnd, gateway}]], or \"node\""},
    {"ipam.subnet, rangeStart, ...", "the legacy single range"},
    {"ipam.routes", "copied into the result"},
    {"ipam.dataDir", "lease directory root (default /var/lib/cni/networks)"},
    {"ipam.resolvConf", "a resolv.conf whose entries become the result's dns"},
    {"args.cni.ips, runtimeConfig.ips", "requested addresses (CNI_ARGS IP= too)"},
    {"runtimeConfig.ipRanges", "range sets from the runtime, before the configured ones"},
    {"args.cni.ipIndex", "the address N after each set's first (CNI_ARGS IB_IP_INDEX= too)"},
    {"logLevel, logFile",
     "panic..debug (default info); <network>.log in /var/log/ibcni/ or ignored"},
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

int ipam_touches(const struct cni_conf *conf, char *buf, size_t len)
{
	struct json_object *v;
	const char *dir = IPAM_DEFAULT_DATA_DIR;
	char norm[PATH_MAX];

	if (!conf->ipam || !conf->name)
		return -EINVAL;
	if (json_object_object_get_ex(conf->ipam, "dataDir", &v)) {
		if (!json_object_is_type(v, json_type_string))
			return -EINVAL;
		if (*json_object_get_string(v))
			dir = json_object_get_string(v);
	}
	if (cni_path_normalise(dir, norm, sizeof(norm)) || strchr(conf->name, '/'))
		return -EINVAL;
	return check_snprintf(buf, len, "%s/%s", norm, conf->name);
}
