/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_ANNOUNCE_H
#define CNI_ANNOUNCE_H

#include "kernel/sys.h"
#include "kernel/link.h"

/* Have the kernel tell the Ethernet segment where every address of link
 * now lives (as the caller last read it: index, name, MAC; in the calling
 * thread's network namespace): a gratuitous ARP
 * for each IPv4 address and an unsolicited neighbour advertisement (to
 * all-nodes, override set) for each IPv6 address past DAD. Call it after
 * the addresses are in place and DAD is over. The link keeps arp_notify and
 * ndisc_notify set, so a later MAC change in the pod is announced as well.
 * 0 or -errno. */
int cni_announce(struct cni_sys *sys, const struct cni_link *link);

#endif
