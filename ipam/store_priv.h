/* SPDX-License-Identifier: Apache-2.0 */
/* The store's own header, included only by store*.c: what the store's files
 * call in one another. The calls go one way, store.c (open, close) ->
 * store_write.c (leasing, releasing) -> store_index.c (the owner index,
 * lookups by owner) -> store_lease.c (reading lease files), so that each
 * can be read without the ones above it.
 *
 * The owner index: <dataDir>/.ib-host-local/<network>/owners/ holds one
 * file per owner ("<id>@<hex ifname>", "<id>@" for legacy bare-ID leases)
 * listing its addresses, and token the lease directory's identity and
 * change times as of our last write. It is a cache: rebuilt from the lease
 * files whenever the token does not match, and checked against them on
 * every lookup. */
#ifndef IPAM_STORE_PRIV_H
#define IPAM_STORE_PRIV_H

#include "store.h"

#define LEASE_MAX 4096 /* id (Go trims it) + "\r\n" + ifname, with room to spare */

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

/* Remove IPAM_LEASE_TMP when this open wrote it (s->tmp_ready). */
void ipam_store_drop_tmp(struct ipam_store *s);

#endif
