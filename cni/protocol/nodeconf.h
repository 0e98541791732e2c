/* SPDX-License-Identifier: Apache-2.0 */
/* The node's own configuration, written by the admin (the installer), never
 * by a NAD: what a network definition may name on this node. */
#ifndef CNI_NODECONF_H
#define CNI_NODECONF_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "base/error.h"

#define CNI_NODECONF_PATH     "/etc/ibcni/ibcni.conf"
#define CNI_NODECONF_MAX_DIRS 16
/* Drop-ins: every "*.conf" in CNI_NODECONF_PATH ".d", read after the file itself. */
#define CNI_NODECONF_MAX_DROPINS 16
/* More than the known keys (a bound for the one-file-per-key check). */
#define CNI_NODECONF_MAX_KEYS 16
/* The file is a few lines; anything larger is not one we wrote. */
#define CNI_NODECONF_MAX_SIZE (64 * 1024)
/* The default of "allowedDataDirs": host-local's own default dataDir. */
#define CNI_NODECONF_DEFAULT_DATA_DIR "/var/lib/cni/networks"
#define CNI_NODECONF_DEFAULT_WAIT_MS  30000
/* The largest "maxWaitMs": the largest wait any NAD key accepts. */
#define CNI_NODECONF_MAX_WAIT_MS 600000

enum cni_device_check { CNI_DEVICE_CHECK_KUBELET = 0, CNI_DEVICE_CHECK_OFF };

/* "draDrivers": the DRA drivers whose claim devices the device check takes
 * as allocated (a DRA driver's name is a DNS subdomain of at most 63 bytes). */
#define CNI_NODECONF_MAX_DRA_DRIVERS 8
#define CNI_NODECONF_DRA_DRIVER_MAX  64 /* with its NUL */
/* The default: dra-driver-sriov's. */
#define CNI_NODECONF_DEFAULT_DRA_DRIVER "sriovnetwork.k8snetworkplumbingwg.io"

struct cni_nodeconf {
	/* "allowedDataDirs": absolute, normalised; default one entry,
	 * "/var/lib/cni/networks" */
	char *allowed_data_dirs[CNI_NODECONF_MAX_DIRS];
	size_t n_allowed_data_dirs;
	/* "deviceCheck": "kubelet" (default) | "off" */
	enum cni_device_check device_check;
	/* "draDrivers": default one entry, CNI_NODECONF_DEFAULT_DRA_DRIVER;
	 * an empty list takes no DRA claim device */
	char dra_drivers[CNI_NODECONF_MAX_DRA_DRIVERS][CNI_NODECONF_DRA_DRIVER_MAX];
	size_t n_dra_drivers;
	/* "maxWaitMs": cap of every wait a NAD asks for; default 30000 */
	unsigned int max_wait_ms;
	/* "ranges": network name -> its range sets on this node; NULL when none */
	struct json_object *ranges;
	/* The file that set "ranges" (for messages; "" when none) */
	char ranges_file[256];
	/* "reclaimLeases": `ib-sriov reconcile` frees ib-host-local leases
	 * whose owner is gone (another plugin may own leases in the same
	 * data directory, so only the admin can say); default false */
	bool reclaim_leases;
	/* "softRdmaByMac": rdma-ns may take, from the host's RDMA devices, a
	 * soft one (rxe, siw) by the node GUID of the pod interface's MAC, with
	 * the checks of docs/operators.md (a test node's opt-in); default false */
	bool soft_rdma_by_mac;
};

/* Fill *nc from path (NULL: CNI_NODECONF_PATH), then from every "*.conf" in path ".d" in name
 * order; absent files give the defaults. A file that is not a root-owned regular file (not
 * group/other writable), not JSON, has an unknown key, a bad value or a key another file set is an
 * error naming the file and the key. */
int cni_nodeconf_load(struct cni_nodeconf *nc, const char *path, struct cni_error *err);

/* Release what cni_nodeconf_load allocated; *nc is zeroed. NULL is ignored. */
void cni_nodeconf_free(struct cni_nodeconf *nc);

/* The defaults (what an absent file gives), static and read-only: for
 * contexts built without a file (unit tests, fuzzers). */
const struct cni_nodeconf *cni_nodeconf_defaults(void);

/* "ranges": {"<network name>": [[{subnet, rangeStart, rangeEnd, gateway}], ...]}, each
 * network's range sets on this node, exactly as ib-host-local's ipam.ranges (its
 * "ranges": "node" takes them). Bounded: networks, range sets, ranges per set. */
#define CNI_NODECONF_MAX_NETWORKS   64
#define CNI_NODECONF_MAX_RANGE_SETS 8
#define CNI_NODECONF_MAX_RANGES	    16
#define CNI_NODECONF_MAX_NETWORK    128 /* bytes of a network name */

/* Checks one network's range sets (the JSON list under key, e.g. "ranges.net1") as the
 * IPAM that reads them does: 0, or -EINVAL with the key path and the reason in why. */
typedef int (*cni_nodeconf_ranges_fn)(struct json_object *sets, const char *key, char *why,
				      size_t len);

/* Register the check every later load runs on each network's range sets (ib-host-local
 * and ib-sriov register ib-host-local's range parser); without one, only the shape and
 * the bounds are checked. */
void cni_nodeconf_ranges_checker(cni_nodeconf_ranges_fn fn);

/* The check a file's "ranges" object v passes when loaded (shape, bounds and the
 * registered checker), for a writer of the file (the installer): 0, or -EINVAL with
 * err naming path and the key as a load would. */
int cni_nodeconf_ranges_check(struct json_object *v, const char *path, struct cni_error *err);

/* The range sets of network on this node (a JSON list borrowed from nc), or NULL. */
struct json_object *cni_nodeconf_ranges(const struct cni_nodeconf *nc, const char *network);

/* An entry may instead be {"namespaces": [...], "ranges": <its range sets>}: only pods of
 * those namespaces (K8S_POD_NAMESPACE of CNI_ARGS) may use them. Bounded: names, bytes. */
#define CNI_NODECONF_MAX_NAMESPACES 64
#define CNI_NODECONF_MAX_NAMESPACE  63 /* a DNS label */

/* network's "namespaces" list (JSON strings, borrowed from nc), or NULL when its entry
 * has none: every namespace may use its ranges. */
struct json_object *cni_nodeconf_ranges_namespaces(const struct cni_nodeconf *nc,
						   const char *network);

/* Whether a pod of namespace ns may use network's node ranges: true without a list,
 * else only when ns is a namespace name (cni_nodeconf_namespace_ok) in it. */
bool cni_nodeconf_ranges_allow(const struct cni_nodeconf *nc, const char *network, const char *ns);

/* Whether s is a Kubernetes namespace name: a DNS label (a-z, 0-9, '-' not at either end,
 * 1 to CNI_NODECONF_MAX_NAMESPACE characters). */
bool cni_nodeconf_namespace_ok(const char *s);

#endif
