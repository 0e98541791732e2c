// SPDX-License-Identifier: Apache-2.0
/* The node configuration's "ranges" (nodeconf.h): each network's entry, its
 * shape, bounds and namespaces, and the look-ups the IPAM makes; and the error
 * every part of the file gives. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "protocol/nodeconf.h"
#include "protocol/nodeconf_priv.h"

/* Code 7 with the file named first: every problem of the file is the
 * admin's to fix there, whatever the request said. */
int cni_nodeconf_bad(struct cni_error *err, int ret, const char *path, const char *fmt, ...)
{
	char why[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return cni_errorf(err, ret, CNI_ERR_INVALID_CONFIG, "invalid node configuration", "%s: %s",
			  path, why);
}

/* "ranges": its shape and bounds here, each network's range sets by the checker the
 * plugin registered (ib-host-local's own parser), so the rules are never written twice. */
static cni_nodeconf_ranges_fn ranges_check;

void cni_nodeconf_ranges_checker(cni_nodeconf_ranges_fn fn)
{
	ranges_check = fn;
}

/* network's entry: its list of range sets, or {"namespaces", "ranges"}. */
static struct json_object *entry(const struct cni_nodeconf *nc, const char *network)
{
	struct json_object *v;

	if (!nc || !nc->ranges || !network || !json_object_object_get_ex(nc->ranges, network, &v))
		return NULL;
	return v;
}

struct json_object *cni_nodeconf_ranges(const struct cni_nodeconf *nc, const char *network)
{
	struct json_object *v = entry(nc, network), *sets;

	if (json_object_is_type(v, json_type_object))
		return json_object_object_get_ex(v, "ranges", &sets) ? sets : NULL;
	return v;
}

struct json_object *cni_nodeconf_ranges_namespaces(const struct cni_nodeconf *nc,
						   const char *network)
{
	struct json_object *v = entry(nc, network), *list;

	if (json_object_is_type(v, json_type_object) &&
	    json_object_object_get_ex(v, "namespaces", &list))
		return list;
	return NULL;
}

bool cni_nodeconf_namespace_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > CNI_NODECONF_MAX_NAMESPACE || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789-", s[i]))
			return false;
	return true;
}

bool cni_nodeconf_ranges_allow(const struct cni_nodeconf *nc, const char *network, const char *ns)
{
	struct json_object *list = cni_nodeconf_ranges_namespaces(nc, network);

	if (!list)
		return true;
	if (!cni_nodeconf_namespace_ok(ns))
		return false;
	for (size_t i = 0; i < json_object_array_length(list); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(list, i)), ns))
			return true;
	return false;
}

/* One network's list of range sets: 1..MAX sets, each 1..MAX range objects. */
static int ranges_shape(struct json_object *sets, const char *key, const char *path,
			struct cni_error *err)
{
	size_t n = 0;

	if (json_object_is_type(sets, json_type_array))
		n = json_object_array_length(sets);
	if (!n || n > CNI_NODECONF_MAX_RANGE_SETS)
		return cni_nodeconf_bad(err, -EINVAL, path,
					"\"%s\" must be a list of 1 to %d range sets "
					"[[{\"subnet\": ...}], ...], as ipam.ranges",
					key, CNI_NODECONF_MAX_RANGE_SETS);
	for (size_t i = 0; i < n; i++) {
		struct json_object *set = json_object_array_get_idx(sets, i);
		size_t m = 0;

		if (json_object_is_type(set, json_type_array))
			m = json_object_array_length(set);
		if (!m || m > CNI_NODECONF_MAX_RANGES)
			return cni_nodeconf_bad(err, -EINVAL, path,
						"\"%s[%zu]\" must be a list of 1 to %d ranges", key,
						i, CNI_NODECONF_MAX_RANGES);
		for (size_t j = 0; j < m; j++)
			if (!json_object_is_type(json_object_array_get_idx(set, j),
						 json_type_object))
				return cni_nodeconf_bad(
				    err, -EINVAL, path,
				    "\"%s[%zu][%zu]\" must be an object {\"subnet\": "
				    "...}",
				    key, i, j);
	}
	return 0;
}

/* "namespaces": 1..MAX Kubernetes namespace names (DNS labels), each once. */
static int namespaces(struct json_object *list, const char *key, const char *path,
		      struct cni_error *err)
{
	size_t n = 0;

	if (json_object_is_type(list, json_type_array))
		n = json_object_array_length(list);
	if (!n || n > CNI_NODECONF_MAX_NAMESPACES)
		return cni_nodeconf_bad(
		    err, -EINVAL, path,
		    "\"%s.namespaces\" must be a list of 1 to %d pod namespaces; leave "
		    "the key out to let every namespace use the ranges",
		    key, CNI_NODECONF_MAX_NAMESPACES);
	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(list, i);
		const char *ns = json_object_get_string(e);

		if (!json_object_is_type(e, json_type_string) || !cni_nodeconf_namespace_ok(ns))
			return cni_nodeconf_bad(
			    err, -EINVAL, path,
			    "\"%s.namespaces[%zu]\" is %s; a namespace is a DNS label "
			    "(a-z, 0-9 and '-', at most %d characters)",
			    key, i, json_object_to_json_string(e), CNI_NODECONF_MAX_NAMESPACE);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(json_object_get_string(json_object_array_get_idx(list, j)), ns))
				return cni_nodeconf_bad(err, -EINVAL, path,
							"\"%s.namespaces\" names \"%s\" twice", key,
							ns);
	}
	return 0;
}

/* A network's entry: its list of range sets, or {"namespaces": [...],
 * "ranges": <that list>}, which only those pod namespaces may use; *sets
 * becomes the list. */
static int ranges_entry(struct json_object **sets, const char *key, const char *path,
			struct cni_error *err)
{
	struct json_object *v = *sets, *list = NULL;

	if (!json_object_is_type(v, json_type_object))
		return 0;
	json_object_object_foreach (v, k, e) {
		(void)e;
		if (strcmp(k, "namespaces") && strcmp(k, "ranges"))
			return cni_nodeconf_bad(
			    err, -EINVAL, path,
			    "\"%s\" has an unknown key \"%s\"; an entry is a list of range "
			    "sets or {\"namespaces\": [...], \"ranges\": [[...]]}",
			    key, k);
	}
	if (!json_object_object_get_ex(v, "namespaces", &list) ||
	    !json_object_object_get_ex(v, "ranges", sets))
		return cni_nodeconf_bad(
		    err, -EINVAL, path,
		    "\"%s\" must have both \"namespaces\" and \"ranges\" (or be the "
		    "list of range sets alone, for every namespace)",
		    key);
	return namespaces(list, key, path, err);
}

int cni_nodeconf_parse_ranges(struct cni_nodeconf *nc, struct json_object *v, const char *path,
			      struct cni_error *err)
{
	char key[CNI_NODECONF_MAX_NETWORK + 16], why[512];
	int ret;

	if (!json_object_is_type(v, json_type_object) ||
	    json_object_object_length(v) > CNI_NODECONF_MAX_NETWORKS)
		return cni_nodeconf_bad(err, -EINVAL, path,
					"\"ranges\" must be an object of at most %d networks "
					"{\"<network name>\": [[{\"subnet\": ...}]]}",
					CNI_NODECONF_MAX_NETWORKS);
	json_object_object_foreach (v, name, sets) {
		if (!*name || strlen(name) > CNI_NODECONF_MAX_NETWORK)
			return cni_nodeconf_bad(
			    err, -EINVAL, path,
			    "\"ranges\" has a network name of %zu bytes; a name is 1 to "
			    "%d bytes, the network's \"name\"",
			    strlen(name), CNI_NODECONF_MAX_NETWORK);
		snprintf(key, sizeof(key), "ranges.%s", name);
		ret = ranges_entry(&sets, key, path, err);
		if (!ret)
			ret = ranges_shape(sets, key, path, err);
		if (ret)
			return ret;
		if (ranges_check && ranges_check(sets, key, why, sizeof(why)))
			return cni_nodeconf_bad(err, -EINVAL, path, "%s", why);
	}
	nc->ranges = json_object_get(v);
	return 0;
}

int cni_nodeconf_ranges_check(struct json_object *v, const char *path, struct cni_error *err)
{
	struct cni_nodeconf scratch = {0};
	int ret = cni_nodeconf_parse_ranges(&scratch, v, path, err);

	json_object_put(scratch.ranges);
	return ret;
}
