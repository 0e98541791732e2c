// SPDX-License-Identifier: Apache-2.0
/* The doctor's hint for "waitPortActiveMs" (portwait.c): the VFs' RDMA
 * ports as they are now, and the value to give this node's networks. */
#include <stdio.h>

#include "doctor.h"
#include "protocol/nodeconf.h"

/* An InfiniBand VF whose GUID ADD sets is rebound, and its port stays INIT
 * until the subnet manager's next sweep (opensm's sweep_interval defaults
 * to 10 s): a sweep and a margin. A RoCE port follows its netdev's carrier,
 * up within a few seconds of the netdev. */
#define HINT_IB_MS  15000
#define HINT_ETH_MS 5000

void doctor_section_portwait(struct doctor *d)
{
	struct json_object *o = json_object_new_object();
	struct cni_nodeconf nc = {0};
	struct cni_error err = {0};
	unsigned int cap, ms = d->ports_ib ? HINT_IB_MS : HINT_ETH_MS;
	char why[512];

	cap = cni_nodeconf_load(&nc, NULL, &err) ? cni_nodeconf_defaults()->max_wait_ms
						 : nc.max_wait_ms;
	cni_nodeconf_free(&nc);
	if (ms > cap)
		ms = cap;
	snprintf(why, sizeof(why),
		 "%s; capped by maxWaitMs (%u ms). ADD logs \"<device> port 1 is ACTIVE after "
		 "N ms\": the largest N seen on this node is the measured need",
		 d->ports_ib ? "InfiniBand: a VF whose GUID is set at ADD is INIT until the "
			       "subnet manager's next sweep (opensm: every 10 s)"
			     : "RoCE: the port follows the netdev's carrier",
		 cap);
	doctor_put(o, "recommendedMs", d->ports_seen ? json_object_new_int((int)ms) : NULL);
	doctor_put(o, "maxWaitMs", json_object_new_int((int)cap));
	doctor_put(o, "portsSeen", json_object_new_int((int)d->ports_seen));
	doctor_put(o, "portsActive", json_object_new_int((int)d->ports_active));
	doctor_put(o, "portsPending", json_object_new_int((int)d->ports_pending));
	doctor_put(o, "portsDown", json_object_new_int((int)d->ports_down));
	doctor_put(o, "why", d->ports_seen ? doctor_str(why) : NULL);
	doctor_put(d->root, "waitPortActiveMs", o);
	if (!d->ports_seen)
		return;
	doctor_finding(d, "info", "waitPortActiveMs",
		       "set \"waitPortActiveMs\": the recommended value in each ib-sriov network "
		       "(NAD) of this node",
		       "%u of %u free VF RDMA ports are ACTIVE now (%u coming up, %u down); "
		       "recommended \"waitPortActiveMs\": %u (%s)",
		       d->ports_active, d->ports_seen, d->ports_pending, d->ports_down, ms, why);
}
