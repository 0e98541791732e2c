/* SPDX-License-Identifier: Apache-2.0 */
/* Every network namespace of the node, looked into read-only: what a proof
 * that a pod cannot forge needs ("no other netdev on the node has this MAC"). */
#ifndef CNI_NETNS_SCAN_H
#define CNI_NETNS_SCAN_H

#include "kernel/sys.h"

/* The most namespaces looked into, and /proc entries looked at: past either
 * the scan proves nothing (-E2BIG). A node runs a few hundred pods. */
#define CNI_NETNS_SCAN_NS_MAX	4096
#define CNI_NETNS_SCAN_PROC_MAX 131072

struct cni_netns_mac_scan {
	const unsigned char *mac; /* the hardware address counted */
	unsigned int len;
	int pod_fd;	       /* a namespace counted whatever lists it; -1: none */
	unsigned int carriers; /* out: netdevs with mac, over every namespace */
	unsigned int spaces;   /* out: namespaces looked into */
	char failed[128];      /* out: the path whose namespace could not be read */
};

/* Count the netdevs with s->mac in the caller's namespace, s->pod_fd's and
 * every network namespace of /run/netns, /var/run/netns and /proc/<pid>/ns/net,
 * each once (nsfs device and inode). Entries are opened O_PATH and checked to
 * be nsfs before they are opened for setns (a FIFO never blocks), entered one at a
 * time and only read (one link dump). 0, -E2BIG past the bounds, or the -errno
 * of a namespace that could not be read (s->failed names it). */
int cni_netns_count_mac(struct cni_sys *sys, struct cni_netns_mac_scan *s);

#endif
