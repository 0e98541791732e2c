/* SPDX-License-Identifier: Apache-2.0 */
#ifndef IPAM_ALLOC_H
#define IPAM_ALLOC_H

#include "range.h"
#include "protocol/result.h"
#include "store.h"

/* One address to lease: from set, range set number idx, to (id, ifname);
 * want NULL for the next free one. */
struct ipam_request {
	const struct ipam_rangeset *set;
	size_t idx;
	const char *id, *ifname;
	const struct cni_addr *want;
	bool held; /* want is leased to (id, ifname) already: only filled in */
};

/* Lease one address of req->set to (req->id, req->ifname): req->want when
 * it is given, else the next free one after last_reserved_ip.<idx> in
 * host-local's round-robin order (gateway, IPv4 network and broadcast
 * skipped). Fills out (address with the subnet's prefix, gateway). Errors
 * use host-local's messages: code 110 when exhausted, 111 when taken,
 * 7 when want cannot be leased from this set. With held, nothing is written. */
int ipam_alloc(struct ipam_store *s, const struct ipam_request *req, struct cni_ip *out,
	       struct cni_error *err);

#endif
