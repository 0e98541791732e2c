/* SPDX-License-Identifier: Apache-2.0 */
#ifndef IPAM_CONF_H
#define IPAM_CONF_H

#include <limits.h>
#include <stdbool.h>

#include "protocol/cni.h"
#include "range.h"

#define IPAM_DEFAULT_DATA_DIR "/var/lib/cni/networks"

/* ib-host-local's view of a request; strings borrowed from the ctx. */
struct ipam_conf {
	const char *name;
	char data_dir[PATH_MAX]; /* normalised */
	/* The node's allowed data directory data_dir is (under); NULL when
	 * none is, which only DEL and GC accept (they then touch nothing). */
	const char *data_root;
	struct ipam_rangeset *sets;
	size_t n_sets;
	struct cni_addr *requested; /* in order: CNI_ARGS IP, args.cni.ips, runtimeConfig.ips */
	size_t n_requested;
	struct cni_result *tmpl; /* routes and dns for the result */
};

/* Parse the request as host-local does (same keys, same order, same
 * checks, code 7). With ranges_optional, bad or missing ranges only leave
 * n_sets at 0: DEL must release by owner whatever the ranges say. */
int ipam_conf_load(struct cni_ctx *ctx, bool ranges_optional, struct ipam_conf *c);

/* The nameservers, search and options of the resolv.conf at path (under
 * /etc or /run, a regular file, bounded) into dns: 0, or code 7 naming it. */
int ipam_resolv_conf(const char *path, struct cni_dns *dns, struct cni_error *err);

/* Free what ipam_conf_load() allocated; c is left zeroed. */
void ipam_conf_free(struct ipam_conf *c);

#endif
