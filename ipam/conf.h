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
	/* ipIndex (ADD only, ipam_index_load): the address index places after
	 * each set's first address is the one asked for. */
	bool has_index;
	unsigned long long index;
	const char *index_from; /* "args.cni.ipIndex" or "CNI_ARGS IB_IP_INDEX" */
};

/* Parse the request as host-local does (same keys, same order, same
 * checks, code 7). With ranges_optional, bad or missing ranges only leave
 * n_sets at 0: DEL must release by owner whatever the ranges say. */
int ipam_conf_load(struct cni_ctx *ctx, bool ranges_optional, struct ipam_conf *c);

/* The nameservers, search and options of the resolv.conf at path (under
 * /etc or /run, a regular file, bounded) into dns: 0, or code 7 naming it. */
int ipam_resolv_conf(const char *path, struct cni_dns *dns, struct cni_error *err);

/* A new, empty range set appended to c; NULL when out of memory. */
struct ipam_rangeset *ipam_conf_new_set(struct ipam_conf *c);

/* One range object ({subnet, rangeStart, rangeEnd, gateway}, where in
 * messages) parsed and appended to set: 0, or code 7 with host-local's text. */
int ipam_conf_parse_range(struct ipam_conf *c, struct ipam_rangeset *set, struct json_object *o,
			  const char *where, struct cni_error *err);

/* One range set (a JSON list of range objects, key[i] in messages) parsed and
 * checked as one of ipam.ranges, appended to c: 0, or code 7 naming key[i]. */
int ipam_conf_parse_set(struct ipam_conf *c, struct json_object *list, const char *key, size_t i,
			struct cni_error *err);

/* Code 7 when two of c's range sets share an address. */
int ipam_conf_sets_apart(const struct ipam_conf *c, struct cni_error *err);

/* True when ipam.ranges v is "node" or a list with a "node" entry (noderanges.c). */
bool ipam_conf_names_node(struct json_object *v);

/* ipam.ranges v naming "node": this node's range sets for c->name from the node
 * configuration, in place of each "node" (at most one), the others parsed as
 * usual. No entry for the network: code 7 naming node, network, file and fix. */
int ipam_conf_node_ranges(struct cni_ctx *ctx, struct ipam_conf *c, struct json_object *v,
			  const char *key, struct cni_error *err);

/* For ADD and CHECK of network net: code 7 when the node's "ranges" entry
 * for net lists "namespaces" and the pod's (CNI_ARGS K8S_POD_NAMESPACE) is
 * not one (code 4 without one), whatever ranges the config names; else 0. */
int ipam_conf_node_namespace(struct cni_ctx *ctx, const char *net, struct cni_error *err);

/* args.cni.ipIndex, else CNI_ARGS IB_IP_INDEX, into c (ipindex.c): 0, or
 * code 7 naming the key (not an integer 0..2^32-1, or with requested ips). */
int ipam_index_load(struct cni_ctx *ctx, struct ipam_conf *c);

/* Free what ipam_conf_load() allocated; c is left zeroed. */
void ipam_conf_free(struct ipam_conf *c);

#endif
