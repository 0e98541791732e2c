/* SPDX-License-Identifier: Apache-2.0 */
/* The node's own configuration, written by the admin (the installer), never
 * by a NAD: what a network definition may name on this node. */
#ifndef CNI_NODECONF_H
#define CNI_NODECONF_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

#define CNI_NODECONF_PATH     "/etc/ibcni/ibcni.conf"
#define CNI_NODECONF_MAX_DIRS 16
/* The file is a few lines; anything larger is not one we wrote. */
#define CNI_NODECONF_MAX_SIZE (64 * 1024)
/* The default of "allowedDataDirs": host-local's own default dataDir. */
#define CNI_NODECONF_DEFAULT_DATA_DIR "/var/lib/cni/networks"
#define CNI_NODECONF_DEFAULT_WAIT_MS  30000
/* The largest "maxWaitMs": the largest wait any NAD key accepts. */
#define CNI_NODECONF_MAX_WAIT_MS 600000

enum cni_device_check { CNI_DEVICE_CHECK_KUBELET = 0, CNI_DEVICE_CHECK_OFF };

struct cni_nodeconf {
	/* "allowedDataDirs": absolute, normalised; default one entry,
	 * "/var/lib/cni/networks" */
	char *allowed_data_dirs[CNI_NODECONF_MAX_DIRS];
	size_t n_allowed_data_dirs;
	/* "deviceCheck": "kubelet" (default) | "off" */
	enum cni_device_check device_check;
	/* "maxWaitMs": cap of every wait a NAD asks for; default 30000 */
	unsigned int max_wait_ms;
	/* "reclaimLeases": `ib-sriov reconcile` frees ib-host-local leases
	 * whose owner is gone (another plugin may own leases in the same
	 * data directory, so only the admin can say); default false */
	bool reclaim_leases;
};

/* Fill *nc from path (NULL: CNI_NODECONF_PATH); an absent file gives the defaults. A file that
 * is not a root-owned regular file (not group/other writable), not JSON, or has an unknown key
 * or a bad value is an error naming the file and the key. */
int cni_nodeconf_load(struct cni_nodeconf *nc, const char *path, struct cni_error *err);

/* Release what cni_nodeconf_load allocated; *nc is zeroed. NULL is ignored. */
void cni_nodeconf_free(struct cni_nodeconf *nc);

/* The defaults (what an absent file gives), static and read-only: for
 * contexts built without a file (unit tests, fuzzers). */
const struct cni_nodeconf *cni_nodeconf_defaults(void);

#endif
