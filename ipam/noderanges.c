// SPDX-License-Identifier: Apache-2.0
/* "ranges": "node": a NAD is cluster-wide, a host-local store is per node, so
 * one NAD range would hand the same addresses out on every node. The admin's
 * node configuration gives each node its own range sets per network instead
 * ("ranges" in /etc/ibcni/ibcni.conf, written by the installer from the
 * ConfigMap entry of the node); the store, leases, DEL, CHECK and GC are
 * those of any range. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "conf.h"
#include "ipam.h"
#include "base/util.h"

#define NODE "node"

static bool is_node(struct json_object *v)
{
	return json_object_is_type(v, json_type_string) && !strcmp(json_object_get_string(v), NODE);
}

bool ipam_conf_names_node(struct json_object *v)
{
	if (is_node(v))
		return true;
	if (!json_object_is_type(v, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(v); i++)
		if (is_node(json_object_array_get_idx(v, i)))
			return true;
	return false;
}

/* The entry's "namespaces", listed into out[size] (cut with "...") for a message. */
static void list_str(struct json_object *list, char *out, size_t size)
{
	size_t at = 0;

	out[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		if (check_snprintf(out + at, size - at, "%s%s", i ? ", " : "",
				   json_object_get_string(json_object_array_get_idx(list, i)))) {
			memcpy(out + size - 4, "...", 4);
			return;
		}
		at += strlen(out + at);
	}
}

/* An entry with "namespaces" is for pods of those namespaces only: an ADD or CHECK
 * of another's (K8S_POD_NAMESPACE from the runtime's CNI_ARGS, never the config) is
 * refused, whatever ranges its config names (the node's, or the block written out
 * as its own: the same lease directory), so a NAD that names its network like
 * another tenant's cannot draw on, or exhaust, that tenant's block. DEL, GC and
 * STATUS name no pod, take no address. */
int ipam_conf_node_namespace(struct cni_ctx *ctx, const char *net, struct cni_error *err)
{
	const struct cni_nodeconf *node = ctx->node ? ctx->node : cni_nodeconf_defaults();
	struct json_object *list = cni_nodeconf_ranges_namespaces(node, net);
	const char *ns = cni_args_get(&ctx->args, "K8S_POD_NAMESPACE");
	const char *file = *node->ranges_file ? node->ranges_file : CNI_NODECONF_PATH;
	char allowed[512];

	if (!list || (ctx->env.command != CNI_CMD_ADD && ctx->env.command != CNI_CMD_CHECK) ||
	    cni_nodeconf_ranges_allow(node, net, ns))
		return 0;
	list_str(list, allowed, sizeof(allowed));
	if (!cni_nodeconf_namespace_ok(ns))
		return cni_errorf(
		    err, -EINVAL, CNI_ERR_INVALID_ENV, "CNI_ARGS does not name the pod's namespace",
		    "the node's ranges of network \"%s\" are for pods of namespaces %s only "
		    "(\"ranges\".\"%s\".\"namespaces\" in %s), but CNI_ARGS has no valid "
		    "K8S_POD_NAMESPACE (the container runtime sets it for kubelet's pods)",
		    net, allowed, net, file);
	return cni_errorf(err, -EPERM, CNI_ERR_INVALID_CONFIG,
			  "namespace not allowed the node's ranges",
			  "pod namespace \"%s\" may not use the node's ranges of network \"%s\": "
			  "they are for namespaces %s (\"ranges\".\"%s\".\"namespaces\" in %s); "
			  "use a network of the namespace's own, or the node's admin adds \"%s\" "
			  "to the list in the installer's ranges ConfigMap",
			  ns, net, allowed, net, file, ns);
}

/* The node's sets for c->name, each parsed as ipam.ranges would be. */
static int node_sets(struct cni_ctx *ctx, struct ipam_conf *c, struct cni_error *err)
{
	const struct cni_nodeconf *node = ctx->node ? ctx->node : cni_nodeconf_defaults();
	struct json_object *sets = cni_nodeconf_ranges(node, c->name);
	char where[CNI_NODECONF_MAX_NETWORK + 64];
	struct utsname u;
	int ret;

	if (!sets) {
		if (uname(&u))
			snprintf(u.nodename, sizeof(u.nodename), "(unknown)");
		return cni_errorf(
		    err, -ENOENT, CNI_ERR_INVALID_CONFIG, "no ranges for this node",
		    "ipam.ranges is \"node\" but node %s has no range sets for "
		    "network \"%s\" in %s.d/ranges.conf or %s (\"ranges\".\"%s\"); add "
		    "the network to "
		    "the node's entry (key %s) of the installer's ranges ConfigMap "
		    "and rerun the installer (--node-ranges-dir, --node-name)",
		    u.nodename, c->name ? c->name : "", CNI_NODECONF_PATH, CNI_NODECONF_PATH,
		    c->name ? c->name : "", u.nodename);
	}
	snprintf(where, sizeof(where), "%s ranges.%s", CNI_NODECONF_PATH, c->name);
	for (size_t i = 0; i < json_object_array_length(sets); i++) {
		ret = ipam_conf_parse_set(c, json_object_array_get_idx(sets, i), where, i, err);
		if (ret)
			return ret;
	}
	return 0;
}

int ipam_conf_node_ranges(struct cni_ctx *ctx, struct ipam_conf *c, struct json_object *v,
			  const char *key, struct cni_error *err)
{
	bool seen = false;
	int ret;

	if (is_node(v))
		return node_sets(ctx, c, err);
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		struct json_object *e = json_object_array_get_idx(v, i);

		if (!is_node(e)) {
			ret = ipam_conf_parse_set(c, e, key, i, err);
		} else if (seen) {
			ret = cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG,
					 "invalid configuration",
					 "%s[%zu]: \"node\" may stand for one range set of %s only "
					 "once (it brings all of this node's sets for the network)",
					 key, i, key);
		} else {
			seen = true;
			ret = node_sets(ctx, c, err);
		}
		if (ret)
			return ret;
	}
	return 0;
}

int ipam_node_ranges_check(struct json_object *sets, const char *key, char *why, size_t len)
{
	struct ipam_conf c = {0};
	struct cni_error err = {0};
	int ret = 0;

	for (size_t i = 0; i < json_object_array_length(sets) && !ret; i++)
		ret = ipam_conf_parse_set(&c, json_object_array_get_idx(sets, i), key, i, &err);
	if (!ret)
		ret = ipam_conf_sets_apart(&c, &err);
	if (ret == -EINVAL)
		snprintf(why, len, "\"%s\": %s (%s)", key, err.msg, err.details);
	else if (ret)
		snprintf(why, len, "\"%s\": %s", key, strerror(-ret));
	ipam_conf_free(&c);
	return ret ? -EINVAL : 0;
}
