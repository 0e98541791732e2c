/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_ANNOUNCE_H
#define CNI_ANNOUNCE_H

#include <stddef.h>

#include "result.h"

/* Tell the Ethernet segment that addr now lives at mac on ifindex: a
 * gratuitous ARP for IPv4, an unsolicited neighbour advertisement (to
 * all-nodes, override set) for IPv6. Acts in the calling thread's network
 * namespace. 0 or -errno. */
int cni_announce(int ifindex, const unsigned char mac[6], const struct cni_prefix *addr);

#endif
