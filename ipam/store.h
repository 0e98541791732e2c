/* SPDX-License-Identifier: Apache-2.0 */
/* host-local's on-disk store, byte for byte: <dataDir>/<network>/<ip> holds
 * "id\r\nifname", last_reserved_ip.<set> the set's round-robin pointer,
 * <dir>/lock the flock both implementations take. Beside it, in
 * <dataDir>/.ib-host-local/<network>/, an owner index that makes ADD and
 * DEL independent of the number of leases; the per-IP files stay the truth
 * and the index is rebuilt from them whenever the directory changed behind
 * our back. */
#ifndef IPAM_STORE_H
#define IPAM_STORE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "result.h"

#define IPAM_LOCK_TIMEOUT_MS 30000	/* IBCNI_LOCK_TIMEOUT_MS overrides it */
#define IPAM_INDEX_DIR ".ib-host-local"

struct ipam_store {
	char dir[PATH_MAX];	/* <dataDir>/<network> */
	char idx[PATH_MAX];	/* <dataDir>/.ib-host-local/<network> */
	int lock_fd;
	bool changed;		/* dir changed: refresh the index token on close */
	bool rebuilt;		/* the index was rebuilt by this open */
};

/* A lease as found on disk. ifname is NULL for a legacy bare-ID file. */
struct ipam_lease {
	struct cni_addr ip;
	char name[64];		/* the file name */
	char *id;
	char *ifname;
};

/* Create the directories (0700), take the lock (bounded; code 11) and make
 * sure the owner index matches the directory. */
int ipam_store_open(struct ipam_store *s, const char *data_dir, const char *network,
		    struct cni_error *err);

/* Refresh the index token and release the lock. */
void ipam_store_close(struct ipam_store *s);

/* Lease ip to (id, ifname) atomically: the file appears complete or not at
 * all; -EEXIST when taken. Moves last_reserved_ip.<set> to ip. */
int ipam_store_reserve(struct ipam_store *s, const struct cni_addr *ip, const char *id,
		       const char *ifname, size_t set);

/* Remove the lease of ip (and its index entry); absent is success. */
int ipam_store_release(struct ipam_store *s, const struct cni_addr *ip);

/* The round-robin pointer of a set; -ENOENT when absent or unreadable. */
int ipam_store_last_reserved(struct ipam_store *s, size_t set, struct cni_addr *ip);

/* Addresses leased to (id, ifname); when none, those of a legacy bare-ID
 * file of id (and *legacy is set). Caller frees *ips. */
int ipam_store_owned(struct ipam_store *s, const char *id, const char *ifname,
		     struct cni_addr **ips, size_t *n, bool *legacy);

/* Read one lease file; -ENOENT when ip is free, -EBADMSG when the file is
 * empty or unparsable. Free with ipam_lease_clear(). */
int ipam_store_lease(struct ipam_store *s, const struct cni_addr *ip,
		     struct ipam_lease *lease);

/* Every file of the directory named as an IP address, parsed or not (bad
 * files have id NULL). Caller frees with ipam_leases_free(). */
int ipam_store_list(struct ipam_store *s, struct ipam_lease **leases, size_t *n);

/* Free a lease's owner strings / a list from ipam_store_list(). */
void ipam_lease_clear(struct ipam_lease *l);
void ipam_leases_free(struct ipam_lease *l, size_t n);

/* The file name of ip, as Go's net.IP.String() prints it. */
const char *ipam_ip_name(const struct cni_addr *ip, char *buf, size_t len);

#endif
