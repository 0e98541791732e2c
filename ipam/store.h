/* SPDX-License-Identifier: Apache-2.0 */
/* host-local's on-disk store, byte for byte: <dataDir>/<network>/<ip> holds
 * "id\r\nifname", last_reserved_ip.<set> the set's round-robin pointer,
 * <dir>/lock the flock both implementations take. Beside it, in
 * <dataDir>/.ib-host-local/<network>/, an owner index (store_index.c) that makes
 * ADD and DEL independent of the number of leases; the per-IP files stay
 * the truth. Everything under dataDir is reached from directory fds, never
 * through a link, and every file is opened non-blocking and read bounded. */
#ifndef IPAM_STORE_H
#define IPAM_STORE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "protocol/result.h"

#define IPAM_LOCK_TIMEOUT_MS 30000 /* IBCNI_LOCK_TIMEOUT_MS overrides it */
#define IPAM_INDEX_DIR	     ".ib-host-local"
#define IPAM_LEASE_TMP	     ".ib-host-local.lease.tmp" /* beside the leases, for link() */
#define IPAM_PTR_TMP	     ".ib-host-local.ptr.tmp"	/* a pointer on its way to rename() */
#define IPAM_LIST_MAX	     (1 << 18) /* directory entries read before giving up */

struct ipam_store {
	char *dir;     /* <dataDir>/<network>, for messages; "" when not open */
	int dir_fd;    /* the lease directory; -1 when absent (nothing leased) */
	int idx_fd;    /* <dataDir>/.ib-host-local/<network> */
	int owners_fd; /* its owners/ */
	int lock_fd;
	int token_fd;	  /* the index token, kept to be rewritten in place; -1 */
	size_t token_len; /* its length as read or last written */
	size_t list_max;  /* IPAM_LIST_MAX; tests lower it */
	bool changed;	  /* dir changed: refresh the index token on close */
	bool rebuilt;	  /* the index was rebuilt by this open */
	bool tmp_ready;	  /* IPAM_LEASE_TMP holds tmp_text, fsync'ed */
	char *tmp_text;	  /* what it holds then (allocated) */
};

/* Make s a store not (or no longer) open: ipam_store_close() on it does
 * nothing. */
void ipam_store_init(struct ipam_store *s);

/* A lease as found on disk. ifname is NULL for a legacy bare-ID file; id is
 * NULL for a file that is empty, unparsable or not a regular file. */
struct ipam_lease {
	struct cni_addr ip;
	char name[64]; /* the file name */
	char *id;
	char *ifname;
};

/* Open the store of network under data_dir (normalised), which is root (an
 * allowed data directory of the node) or below it, take its lock (bounded;
 * code 11) and make sure the owner index matches the directory. With
 * create, missing directories are made (0700) from root down, never
 * root's parent; without, an absent lease directory (or one with no lock
 * file: nobody ever leased there) opens as an empty store, nothing is
 * created, and a missing owner index is not made (owners are scanned).
 * root NULL (dataDir not allowed on this node) opens an empty store and
 * touches nothing. Refusals (links, foreign or shared directories, a
 * filesystem that is not a disk one or tmpfs) are code 7 naming
 * ipam.dataDir. On failure s is left closed. */
int ipam_store_open(struct ipam_store *s, const char *root, const char *data_dir,
		    const char *network, bool create, struct cni_error *err);

/* Refresh the index token, drop the temp file, release the lock. */
void ipam_store_close(struct ipam_store *s);

/* Lease ip to (id, ifname) atomically: the file appears complete or not at
 * all; -EEXIST when taken. Moves last_reserved_ip.<set> to ip. */
int ipam_store_reserve(struct ipam_store *s, const struct cni_addr *ip, const char *id,
		       const char *ifname, size_t set);

/* Remove the lease of ip (and its index entry); absent is success. A lease
 * that cannot be read for a transient reason is left in place (error). */
int ipam_store_release(struct ipam_store *s, const struct cni_addr *ip);

/* The round-robin pointer of a set; -ENOENT when absent or not an address,
 * another -errno when it could not be read. */
int ipam_store_last_reserved(struct ipam_store *s, size_t set, struct cni_addr *ip);

/* Release ips[n], the leases ipam_store_owned() just found for (id, ifname)
 * (ifname NULL: legacy) under the same lock: not read again, the directory
 * fsync'ed once, the owner's index entry dropped whole. Absent is success. */
int ipam_store_release_owned(struct ipam_store *s, const char *id, const char *ifname,
			     const struct cni_addr *ips, size_t n);

/* Addresses leased to (id, ifname); when none, those of a legacy bare-ID
 * file of id (and *legacy is set). The lease files decide: an index entry
 * they contradict rebuilds the index. Caller frees *ips. */
int ipam_store_owned(struct ipam_store *s, const char *id, const char *ifname,
		     struct cni_addr **ips, size_t *n, bool *legacy);

/* Read one lease file; -ENOENT when ip is free, -EBADMSG when the file is
 * empty, unparsable or not a regular file (the address stays taken), any
 * other -errno a transient failure. Free with ipam_lease_clear(). */
int ipam_store_lease(struct ipam_store *s, const struct cni_addr *ip, struct ipam_lease *lease);

/* Call fn on every entry of the directory named as an IP address, one at a
 * time (bad files have id NULL; fn may take l's strings, setting them NULL),
 * so memory does not grow with the directory. Stops at fn's first error;
 * more than s->list_max entries is -E2BIG. */
typedef int (*ipam_lease_fn)(struct ipam_lease *l, void *arg);
int ipam_store_each(struct ipam_store *s, ipam_lease_fn fn, void *arg);

/* Every entry of the directory named as an IP address, parsed or not (bad
 * files have id NULL); more than s->list_max entries is -E2BIG. Caller
 * frees with ipam_leases_free(). */
int ipam_store_list(struct ipam_store *s, struct ipam_lease **leases, size_t *n);

/* Free a lease's owner strings / a list from ipam_store_list(). */
void ipam_lease_clear(struct ipam_lease *l);
void ipam_leases_free(struct ipam_lease *l, size_t n);

/* The file name of ip, as Go's net.IP.String() prints it. */
const char *ipam_ip_name(const struct cni_addr *ip, char *buf, size_t len);

/* How lease, pointer and index files are read: read_fileat, or a test's
 * fault injection. */
extern int (*ipam_store_read)(int dirfd, const char *name, size_t max, char **out, size_t *len);

#endif
