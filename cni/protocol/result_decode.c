// SPDX-License-Identifier: Apache-2.0
/* Results as JSON of any spec version into the one model. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "protocol/result.h"
#include "base/util.h"

static int bad(struct cni_error *err, const char *what, const char *value)
{
	return cni_errorf(err, -EINVAL, CNI_ERR_DECODE, "failed to decode result", "%s: %s", what,
			  value ? value : "missing or not a string");
}

/* A string with an escaped NUL fills err (code 7) before the caller's
 * code 6, which then leaves it alone. */
static int get_str(struct json_object *o, const char *key, const char **out, struct cni_error *err)
{
	struct json_object *v = cni_json_get(o, key);

	*out = NULL;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return -EINVAL;
	return cni_json_str(v, key, out, err);
}

static int get_int(struct json_object *o, const char *key, bool *has, int *out)
{
	struct json_object *v = cni_json_get(o, key);
	int64_t n;

	*out = 0;
	if (has)
		*has = false;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_int))
		return -EINVAL;
	n = json_object_get_int64(v);
	if (n < INT32_MIN || n > INT32_MAX)
		return -ERANGE;
	*out = (int)n;
	if (has)
		*has = true;
	return 0;
}

static int parse_prefix_field(struct json_object *o, const char *key, const char *where,
			      struct cni_prefix *p, struct cni_error *err)
{
	const char *s;
	char what[96];

	snprintf(what, sizeof(what), "%s.%s", where, key);
	if (get_str(o, key, &s, err) || !s)
		return bad(err, what, NULL);
	if (!cni_prefix_parse(s, p))
		return bad(err, what, s);
	return 0;
}

static int parse_addr_field(struct json_object *o, const char *key, const char *where,
			    struct cni_addr *a, struct cni_error *err)
{
	const char *s;
	char what[96];

	snprintf(what, sizeof(what), "%s.%s", where, key);
	memset(a, 0, sizeof(*a));
	if (get_str(o, key, &s, err))
		return bad(err, what, NULL);
	if (s && *s && !cni_addr_parse(s, a))
		return bad(err, what, s);
	return 0;
}

/* A route integer in the range of the kernel field it lands in: outside
 * it, it would be applied truncated (scope 256 as 0, table -1 as 4294967295).
 * table and priority are u32 in the kernel but int in our model. */
struct route_int {
	const char *key;
	int max;
	bool *has; /* NULL: absent reads as 0 */
	int *out;
};

static int route_int(struct json_object *o, size_t idx, const struct route_int *f,
		     struct cni_error *err)
{
	int ret = get_int(o, f->key, f->has, f->out);
	char what[64];

	if (!ret && *f->out >= 0 && *f->out <= f->max)
		return 0;
	snprintf(what, sizeof(what), "routes[%zu].%s", idx, f->key);
	if (ret == -EINVAL)
		return bad(err, what, "not an integer");
	return cni_errorf(err, -ERANGE, CNI_ERR_INVALID_CONFIG, "invalid configuration",
			  "\"%s\" is %s; it must be from 0 to %d", what,
			  json_object_to_json_string(cni_json_get(o, f->key)), f->max);
}

static int parse_route(struct cni_result *r, struct json_object *o, size_t idx,
		       struct cni_error *err)
{
	struct cni_route *rt;

	if (!json_object_is_type(o, json_type_object))
		return bad(err, "routes", "an entry is not an object");
	rt = cni_result_add_route(r);
	if (!rt)
		return -ENOMEM;
	if (parse_prefix_field(o, "dst", "routes[]", &rt->dst, err) ||
	    parse_addr_field(o, "gw", "routes[]", &rt->gw, err))
		return -EINVAL;
	const struct route_int f[] = {
	    {"mtu", 65535, NULL, &rt->mtu},
	    {"advmss", 65535, NULL, &rt->advmss},
	    {"priority", INT32_MAX, NULL, &rt->priority},
	    {"table", INT32_MAX, &rt->has_table, &rt->table},
	    {"scope", 255, &rt->has_scope, &rt->scope},
	};

	int ret = 0;

	for (size_t k = 0; !ret && k < ARRAY_SIZE(f); k++)
		ret = route_int(o, idx, &f[k], err);
	return ret;
}

int cni_result_add_routes_json(struct cni_result *r, struct json_object *arr, struct cni_error *err)
{
	int ret;

	if (!arr)
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return bad(err, "routes", "not a list");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		ret = parse_route(r, json_object_array_get_idx(arr, i), i, err);
		if (ret)
			return ret;
	}
	return 0;
}

static int parse_routes(struct cni_result *r, struct json_object *o, struct cni_error *err)
{
	return cni_result_add_routes_json(r, cni_json_get(o, "routes"), err);
}

static int parse_strv(struct json_object *o, const char *key, char ***v, size_t *n,
		      struct cni_error *err)
{
	struct json_object *arr = cni_json_get(o, key);

	if (!arr)
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return bad(err, key, "not a list of strings");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *s = json_object_array_get_idx(arr, i);

		const char *str;

		if (!json_object_is_type(s, json_type_string))
			return bad(err, key, "not a list of strings");
		if (cni_json_str(s, key, &str, err))
			return -EINVAL;
		if (cni_strv_add(v, n, str))
			return -ENOMEM;
	}
	return 0;
}

/* A result's "dns" object, in every version (ib-sriov also decodes a
 * network's own top-level "dns" this way, wrapped as a result). */
static int parse_dns(struct cni_dns *d, struct json_object *o, struct cni_error *err)
{
	const char *domain;
	int ret;

	if (!o)
		return 0;
	if (!json_object_is_type(o, json_type_object))
		return bad(err, "dns", "not an object");
	if (get_str(o, "domain", &domain, err))
		return bad(err, "dns.domain", NULL);
	if (domain && !(d->domain = strdup(domain)))
		return -ENOMEM;
	ret = parse_strv(o, "nameservers", &d->nameservers, &d->n_nameservers, err);
	if (!ret)
		ret = parse_strv(o, "search", &d->search, &d->n_search, err);
	if (!ret)
		ret = parse_strv(o, "options", &d->options, &d->n_options, err);
	return ret;
}

static int parse_iface(struct cni_result *r, struct json_object *o, struct cni_error *err)
{
	struct cni_iface *i;
	const char *s[5];
	char **dst[5];
	int ret = 0;

	if (!json_object_is_type(o, json_type_object))
		return bad(err, "interfaces", "an entry is not an object");
	i = cni_result_add_iface(r);
	if (!i)
		return -ENOMEM;
	if (get_str(o, "name", &s[0], err) || get_str(o, "mac", &s[1], err) ||
	    get_str(o, "sandbox", &s[2], err) || get_str(o, "socketPath", &s[3], err) ||
	    get_str(o, "pciID", &s[4], err) || get_int(o, "mtu", NULL, &i->mtu))
		return bad(err, "interfaces[]", "a field has the wrong type");
	dst[0] = &i->name;
	dst[1] = &i->mac;
	dst[2] = &i->sandbox;
	dst[3] = &i->socket_path;
	dst[4] = &i->pci_id;
	for (size_t k = 0; !ret && k < ARRAY_SIZE(dst); k++)
		ret = dup_str(dst[k], s[k]);
	return ret;
}

static int parse_ip(struct cni_result *r, struct json_object *o, bool versioned,
		    struct cni_error *err)
{
	struct cni_ip *ip;
	const char *ver;
	bool has;

	if (!json_object_is_type(o, json_type_object))
		return bad(err, "ips", "an entry is not an object");
	ip = cni_result_add_ip(r);
	if (!ip)
		return -ENOMEM;
	if (parse_prefix_field(o, "address", "ips[]", &ip->address, err) ||
	    parse_addr_field(o, "gateway", "ips[]", &ip->gateway, err))
		return -EINVAL;
	if (get_int(o, "interface", &has, &ip->iface) || (has && ip->iface < 0))
		return bad(err, "ips[].interface", "not a non-negative integer");
	if (!has)
		ip->iface = -1;
	if (ip->iface >= 0 && (size_t)ip->iface >= r->n_ifaces)
		return bad(err, "ips[].interface", "indexes past the interfaces list");
	if (versioned &&
	    (get_str(o, "version", &ver, err) || (ver && strcmp(ver, "4") && strcmp(ver, "6"))))
		return bad(err, "ips[].version", ver);
	return 0;
}

static int parse_current(struct cni_result *r, struct json_object *o, enum cni_version v,
			 struct cni_error *err)
{
	struct json_object *arr;
	int ret;

	if ((arr = cni_json_get(o, "interfaces"))) {
		if (!json_object_is_type(arr, json_type_array))
			return bad(err, "interfaces", "not a list");
		for (size_t i = 0; i < json_object_array_length(arr); i++)
			if (parse_iface(r, json_object_array_get_idx(arr, i), err))
				return -EINVAL;
	}
	if ((arr = cni_json_get(o, "ips"))) {
		if (!json_object_is_type(arr, json_type_array))
			return bad(err, "ips", "not a list");
		for (size_t i = 0; i < json_object_array_length(arr); i++)
			if (parse_ip(r, json_object_array_get_idx(arr, i), v < CNI_V100, err))
				return -EINVAL;
	}
	ret = parse_routes(r, o, err);
	if (!ret)
		ret = parse_dns(&r->dns, cni_json_get(o, "dns"), err);
	return ret;
}

static int parse_legacy_ip(struct cni_result *r, struct json_object *o, const char *key, int family,
			   struct cni_error *err)
{
	struct json_object *c = cni_json_get(o, key);
	struct cni_ip *ip;

	if (!c)
		return 0;
	if (!json_object_is_type(c, json_type_object))
		return bad(err, key, "not an object");
	ip = cni_result_add_ip(r);
	if (!ip)
		return -ENOMEM;
	if (parse_prefix_field(c, "ip", key, &ip->address, err) ||
	    parse_addr_field(c, "gateway", key, &ip->gateway, err))
		return -EINVAL;
	if (ip->address.family != family)
		return bad(err, key, "holds an address of the other family");
	return parse_routes(r, c, err);
}

int cni_result_from_json(struct json_object *o, enum cni_version dflt, struct cni_result **out,
			 struct cni_error *err)
{
	struct cni_result *r;
	enum cni_version v = dflt;
	const char *vs;
	int ret;

	*out = NULL;
	if (!json_object_is_type(o, json_type_object))
		return bad(err, "result", "not an object");
	if (get_str(o, "cniVersion", &vs, err))
		return bad(err, "cniVersion", NULL);
	if (vs && !cni_version_parse(vs, &v))
		return cni_version_unsupported(vs, err);
	r = cni_result_new();
	if (!r)
		return -ENOMEM;
	if (v <= CNI_V020) {
		ret = parse_legacy_ip(r, o, "ip4", AF_INET, err);
		if (!ret)
			ret = parse_legacy_ip(r, o, "ip6", AF_INET6, err);
		if (!ret)
			ret = parse_dns(&r->dns, cni_json_get(o, "dns"), err);
	} else {
		ret = parse_current(r, o, v, err);
	}
	if (ret) {
		cni_result_free(r);
		return ret;
	}
	*out = r;
	return 0;
}
