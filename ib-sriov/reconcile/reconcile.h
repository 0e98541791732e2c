/* SPDX-License-Identifier: Apache-2.0 */
/* The node agent's pass (reconcile.c), shared with its lease part
 * (leases.c) and rdma-ns's part (rdmans.c). */
#ifndef IBSRIOV_RECONCILE_H
#define IBSRIOV_RECONCILE_H

#include <limits.h>
#include <stdbool.h>
#include <time.h>

#include "ibsriov.h"
#include "kernel/netns.h"

/* The command line. */
struct reconcile_opts {
	bool dry_run;
	unsigned int grace; /* seconds: records and leases younger are left */
	unsigned int every; /* seconds between passes; 0: one pass */
};

/* One pass: its counts and what its steps share. */
struct reconcile_pass {
	const struct reconcile_opts *o;
	struct cni_sys *sys;
	time_t now;
	char self_dir[PATH_MAX]; /* this binary's directory: rdma-ns, ib-host-local */
	const char *cni_path;	 /* for records that kept none */
	unsigned int records, released, kept, skipped, leases;
	struct cni_netns_blind blind; /* said once, at the pass's end */
};

/* Whether r's pod is gone (ibsriov_pod_gone); a view that cannot tell is
 * noted in p->blind. */
bool reconcile_gone(struct reconcile_pass *p, const struct ibsriov_record *r);

/* Whether a SIGTERM or SIGINT is pending (the agent keeps them blocked and
 * ends between two records, or at once while it waits). */
bool reconcile_stop(void);

/* Whether a state file (mtime) is younger than the grace; unknown (not
 * statable) counts as young. *age gets its age in seconds. */
bool reconcile_young(const struct reconcile_pass *p, int dirfd, const char *name, long *age);

/* rdma-ns's records: `rdma-ns reconcile` from self_dir with the same
 * flags, its counts added to p (rdmans.c). */
void reconcile_rdmans(struct reconcile_pass *p);

/* Whether any ib-sriov or rdma-ns record is of container id. */
bool reconcile_has_record(const char *id);

/* ib-host-local leases whose owner is gone, when the node's config has
 * "reclaimLeases": true (leases.c). */
void reconcile_leases(struct reconcile_pass *p);

#endif
