/* SPDX-License-Identifier: Apache-2.0 */
/* The owner index of a store: <dataDir>/.ib-host-local/<network>/owners/
 * holds one file per owner ("<id>@<hex ifname>", "<id>@" for legacy bare-ID
 * leases) listing its addresses, and token the lease directory's identity
 * and change times as of our last write. It is a cache: rebuilt from the
 * lease files whenever the token does not match, and checked against them
 * on every lookup. */
#ifndef IPAM_INDEX_H
#define IPAM_INDEX_H

#include "store.h"

/* Whether the token matches the lease directory as it is now. The token
 * is kept open (s->token_fd) to be rewritten in place: only a regular file
 * with one link is, anything else reads as no token. */
bool ipam_index_current(struct ipam_store *s);

/* Rebuild every owner file from the lease files (s->rebuilt is set). */
int ipam_index_rebuild(struct ipam_store *s);

/* Before the first change of an open: spoil the token (or drop it), so that
 * a run killed before ipam_index_seal() leaves the next one to rebuild. */
void ipam_index_invalidate(struct ipam_store *s);

/* After the last change: record the lease directory's token. */
void ipam_index_seal(struct ipam_store *s);

/* Add (or drop) ip in the owner file of (id, ifname); owners whose key
 * would be too long are not indexed (found by scanning). */
int ipam_index_update(struct ipam_store *s, const char *id, const char *ifname,
		      const struct cni_addr *ip, bool add);

/* Drop the owner file of (id, ifname) (ifname NULL: legacy) whole: its
 * leases were all released. */
void ipam_index_forget(struct ipam_store *s, const char *id, const char *ifname);

/* Append to *ips the addresses the index gives (id, ifname) (ifname NULL:
 * legacy) that their lease files confirm. -ESTALE when a lease file names
 * another owner (the file wins: rebuild and ask again), -ENAMETOOLONG when
 * the owner is not indexed (scan instead). */
int ipam_index_lookup(struct ipam_store *s, const char *id, const char *ifname,
		      struct cni_addr **ips, size_t *n);

/* True when lease l belongs to (id, ifname); ifname NULL: a legacy lease. */
bool ipam_lease_owned_by(const struct ipam_lease *l, const char *id, const char *ifname);

/* Append ip to the array *ips of *n. 0 or -ENOMEM. */
int ipam_push_ip(struct cni_addr **ips, size_t *n, const struct cni_addr *ip);

#endif
