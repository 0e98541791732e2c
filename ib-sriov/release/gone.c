// SPDX-License-Identifier: Apache-2.0
/* An attachment whose pod is gone without DEL: told by its netns path (no
 * longer mounted, in a directory that shows this mount view the runtime's
 * namespace mounts) and the VF back on the host, and released as its DEL
 * would have: its leases through the IPAM config its record kept, then the
 * VF, then the record. ADD's heal (add/heal.c) and the node agent
 * (reconcile/) both call it. */
#include <errno.h>
#include <string.h>

#include "base/log.h"
#include "kernel/netns.h"
#include "protocol/delegate.h"
#include "release.h"

int ibsriov_pod_gone(struct cni_sys *sys, const struct ibsriov_record *r)
{
	int ret;

	/* No path recorded: nothing tells, so it is kept. */
	if (!r->netns || !*r->netns)
		return 0;
	ret = cni_netns_gone(r->netns);
	if (ret == -CNI_NETNS_NOT_MOUNT || ret == -CNI_NETNS_NO_MOUNTS)
		return ret;
	if (ret < 0)
		log_warn("cannot tell whether netns %s of %s is gone (%s): kept", r->netns, r->name,
			 strerror(-ret));
	if (ret <= 0)
		return 0;
	ret = ibsriov_netdev_back(sys, r);
	if (ret < 0)
		log_warn("netns %s of %s is gone, but the VF cannot be looked for (%s): kept",
			 r->netns, r->name, strerror(-ret));
	else if (!ret)
		log_info("netns %s of %s is gone, but VF %s is not back on the host: kept",
			 r->netns, r->name, r->device);
	return ret > 0;
}

/* The attachment's IPAM DEL, as its runtime would have sent it: the config
 * its record kept, else same (the request's own network, when it is the
 * record's), with the record's container ID and interface name. */
static int ipam_del(const struct ibsriov_record *r, const struct cni_conf *same,
		    const char *cni_path, struct cni_error *err)
{
	struct cni_env env = {.command = CNI_CMD_DEL,
			      .command_str = "DEL",
			      .containerid = r->container_id,
			      .netns = "",
			      .ifname = r->ifname,
			      .args = "",
			      .path = cni_path};
	struct cni_conf *kept = NULL;
	int ret = 0;

	if (r->cni_path && *r->cni_path)
		env.path = r->cni_path;
	if (r->ipam_conf && *r->ipam_conf) {
		char *raw = strdup(r->ipam_conf);

		if (!raw)
			return -ENOMEM;
		ret = cni_conf_parse(raw, strlen(raw), CNI_CMD_DEL, &kept, err);
		if (ret)
			return ret;
		same = kept;
	}
	if (same && same->ipam_type && *same->ipam_type)
		ret = cni_ipam_run(&env, same, CNI_CMD_DEL, err);
	else if (!kept)
		log_info("%s: no IPAM config recorded (a record of an older build): its leases, if "
			 "any, stay with its IPAM",
			 r->name);
	cni_conf_free(kept);
	return ret;
}

int ibsriov_release_gone(struct cni_sys *sys, struct ibsriov_record *r, const struct cni_conf *same,
			 const char *cni_path, struct cni_error *err)
{
	char *netns = r->netns;
	int ret = ipam_del(r, same, cni_path, err);

	if (ret)
		return ret;
	/* Its namespace is gone for good (the kernel gave the VF and its RDMA
	 * devices back to the host): no step looks at that path again. */
	r->netns = NULL;
	ret = ibsriov_release(sys, r, err);
	r->netns = netns;
	return ret;
}
