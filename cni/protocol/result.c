// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "protocol/result.h"
#include "base/util.h"

struct cni_result *cni_result_new(void)
{
	return calloc(1, sizeof(struct cni_result));
}

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void cni_result_free(struct cni_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_ifaces; i++) {
		free(r->ifaces[i].name);
		free(r->ifaces[i].mac);
		free(r->ifaces[i].sandbox);
		free(r->ifaces[i].socket_path);
		free(r->ifaces[i].pci_id);
	}
	free(r->ifaces);
	free(r->ips);
	free(r->routes);
	strv_free(r->dns.nameservers, r->dns.n_nameservers);
	strv_free(r->dns.search, r->dns.n_search);
	strv_free(r->dns.options, r->dns.n_options);
	free(r->dns.domain);
	free(r);
}

static void *grow(void *arr, size_t *n, size_t size)
{
	char *p = realloc(arr, (*n + 1) * size);

	if (!p)
		return NULL;
	memset(p + *n * size, 0, size);
	(*n)++;
	return p;
}

struct cni_iface *cni_result_add_iface(struct cni_result *r)
{
	struct cni_iface *p = grow(r->ifaces, &r->n_ifaces, sizeof(*p));

	if (!p)
		return NULL;
	r->ifaces = p;
	return &p[r->n_ifaces - 1];
}

struct cni_ip *cni_result_add_ip(struct cni_result *r)
{
	struct cni_ip *p = grow(r->ips, &r->n_ips, sizeof(*p));

	if (!p)
		return NULL;
	r->ips = p;
	p[r->n_ips - 1].iface = -1;
	return &p[r->n_ips - 1];
}

struct cni_route *cni_result_add_route(struct cni_result *r)
{
	struct cni_route *p = grow(r->routes, &r->n_routes, sizeof(*p));

	if (!p)
		return NULL;
	r->routes = p;
	return &p[r->n_routes - 1];
}

int cni_strv_add(char ***v, size_t *n, const char *s)
{
	char **p = realloc(*v, (*n + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	*v = p;
	p[*n] = strdup(s);
	if (!p[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

static int dup_strv(char ***dst, size_t *dn, char *const *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (cni_strv_add(dst, dn, src[i]))
			return -ENOMEM;
	return 0;
}

static int dup_iface_strs(struct cni_iface *d, const struct cni_iface *s)
{
	int ret = dup_str(&d->name, s->name);

	if (!ret)
		ret = dup_str(&d->mac, s->mac);
	if (!ret)
		ret = dup_str(&d->sandbox, s->sandbox);
	if (!ret)
		ret = dup_str(&d->socket_path, s->socket_path);
	if (!ret)
		ret = dup_str(&d->pci_id, s->pci_id);
	return ret;
}

static int dup_dns(struct cni_dns *d, const struct cni_dns *s)
{
	int ret = dup_strv(&d->nameservers, &d->n_nameservers, s->nameservers, s->n_nameservers);

	if (!ret)
		ret = dup_strv(&d->search, &d->n_search, s->search, s->n_search);
	if (!ret)
		ret = dup_strv(&d->options, &d->n_options, s->options, s->n_options);
	if (!ret)
		ret = dup_str(&d->domain, s->domain);
	return ret;
}

struct cni_result *cni_result_dup(const struct cni_result *src)
{
	struct cni_result *r = cni_result_new();
	int ret = 0;

	if (!r)
		return NULL;
	for (size_t i = 0; i < src->n_ifaces && !ret; i++) {
		const struct cni_iface *s = &src->ifaces[i];
		struct cni_iface *d = cni_result_add_iface(r);

		if (!d) {
			ret = -ENOMEM;
			break;
		}
		d->mtu = s->mtu;
		ret = dup_iface_strs(d, s);
	}
	if (!ret && src->n_ips) {
		r->ips = malloc(src->n_ips * sizeof(*r->ips));
		ret = r->ips ? 0 : -ENOMEM;
		if (!ret) {
			memcpy(r->ips, src->ips, src->n_ips * sizeof(*r->ips));
			r->n_ips = src->n_ips;
		}
	}
	if (!ret && src->n_routes) {
		r->routes = malloc(src->n_routes * sizeof(*r->routes));
		ret = r->routes ? 0 : -ENOMEM;
		if (!ret) {
			memcpy(r->routes, src->routes, src->n_routes * sizeof(*r->routes));
			r->n_routes = src->n_routes;
		}
	}
	if (!ret)
		ret = dup_dns(&r->dns, &src->dns);
	if (ret) {
		cni_result_free(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

struct cni_route cni_result_route_via(const struct cni_result *r, size_t i)
{
	struct cni_route rt = r->routes[i];

	for (size_t k = 0; !rt.gw.family && k < r->n_ips; k++)
		if (r->ips[k].address.family == rt.dst.family)
			rt.gw = r->ips[k].gateway;
	return rt;
}

/* --- encoding --- */

static int add_str(struct json_object *o, const char *key, const char *s)
{
	struct json_object *v = json_object_new_string(s);

	if (!v || json_object_object_add(o, key, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static int add_int(struct json_object *o, const char *key, int64_t n)
{
	struct json_object *v = json_object_new_int64(n);

	if (!v || json_object_object_add(o, key, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static int add_obj(struct json_object *o, const char *key, struct json_object *v)
{
	if (!v)
		return -ENOMEM;
	if (json_object_is_type(o, json_type_array)) {
		if (json_object_array_add(o, v)) {
			json_object_put(v);
			return -ENOMEM;
		}
		return 0;
	}
	if (json_object_object_add(o, key, v)) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

static int add_addr(struct json_object *o, const char *key, const struct cni_addr *a)
{
	char buf[INET6_ADDRSTRLEN];

	if (!a->family)
		return 0;
	return add_str(o, key, cni_addr_str(a, buf, sizeof(buf)));
}

static int add_prefix(struct json_object *o, const char *key, const struct cni_prefix *p)
{
	char buf[INET6_ADDRSTRLEN + 8];

	return add_str(o, key, cni_prefix_str(p, buf, sizeof(buf)));
}

static struct json_object *strv_json(char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++) {
		if (add_obj(a, NULL, json_object_new_string(v[i]))) {
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

static struct json_object *dns_json(const struct cni_dns *d)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	if (d->n_nameservers &&
	    add_obj(o, "nameservers", strv_json(d->nameservers, d->n_nameservers)))
		return NULL;
	if (d->domain && *d->domain && add_str(o, "domain", d->domain))
		return NULL;
	if (d->n_search && add_obj(o, "search", strv_json(d->search, d->n_search)))
		return NULL;
	if (d->n_options && add_obj(o, "options", strv_json(d->options, d->n_options)))
		return NULL;
	return steal_ptr(o);
}

static struct json_object *route_json(const struct cni_route *rt, bool rich)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();

	if (!o || add_prefix(o, "dst", &rt->dst) || add_addr(o, "gw", &rt->gw))
		return NULL;
	if (rich) {
		if ((rt->mtu && add_int(o, "mtu", rt->mtu)) ||
		    (rt->advmss && add_int(o, "advmss", rt->advmss)) ||
		    (rt->priority && add_int(o, "priority", rt->priority)) ||
		    (rt->has_table && add_int(o, "table", rt->table)) ||
		    (rt->has_scope && add_int(o, "scope", rt->scope)))
			return NULL;
	}
	return steal_ptr(o);
}

static struct json_object *iface_json(const struct cni_iface *i, bool rich)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();

	if (!o || add_str(o, "name", i->name ? i->name : ""))
		return NULL;
	if (i->mac && *i->mac && add_str(o, "mac", i->mac))
		return NULL;
	if (rich && i->mtu && add_int(o, "mtu", i->mtu))
		return NULL;
	if (i->sandbox && *i->sandbox && add_str(o, "sandbox", i->sandbox))
		return NULL;
	if (rich && i->socket_path && *i->socket_path && add_str(o, "socketPath", i->socket_path))
		return NULL;
	if (rich && i->pci_id && *i->pci_id && add_str(o, "pciID", i->pci_id))
		return NULL;
	return steal_ptr(o);
}

static struct json_object *ip_json(const struct cni_ip *ip, bool with_version)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	if (with_version && add_str(o, "version", ip->address.family == AF_INET ? "4" : "6"))
		return NULL;
	if (ip->iface >= 0 && add_int(o, "interface", ip->iface))
		return NULL;
	if (add_prefix(o, "address", &ip->address) || add_addr(o, "gateway", &ip->gateway))
		return NULL;
	return steal_ptr(o);
}

static int to_json_current(const struct cni_result *r, enum cni_version v, struct json_object *o)
{
	bool rich = v >= CNI_V100;
	struct json_object *arr;

	if (r->n_ifaces) {
		if (add_obj(o, "interfaces", arr = json_object_new_array()))
			return -ENOMEM;
		for (size_t i = 0; i < r->n_ifaces; i++)
			if (add_obj(arr, NULL, iface_json(&r->ifaces[i], rich)))
				return -ENOMEM;
	}
	if (r->n_ips) {
		if (add_obj(o, "ips", arr = json_object_new_array()))
			return -ENOMEM;
		for (size_t i = 0; i < r->n_ips; i++)
			if (add_obj(arr, NULL, ip_json(&r->ips[i], !rich)))
				return -ENOMEM;
	}
	if (r->n_routes) {
		if (add_obj(o, "routes", arr = json_object_new_array()))
			return -ENOMEM;
		for (size_t i = 0; i < r->n_routes; i++)
			if (add_obj(arr, NULL, route_json(&r->routes[i], rich)))
				return -ENOMEM;
	}
	return add_obj(o, "dns", dns_json(&r->dns));
}

static struct json_object *legacy_ipconfig(const struct cni_result *r, const struct cni_ip *ip)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();
	struct json_object *routes = NULL;

	if (!o || add_prefix(o, "ip", &ip->address) || add_addr(o, "gateway", &ip->gateway))
		return NULL;
	for (size_t i = 0; i < r->n_routes; i++) {
		if (r->routes[i].dst.family != ip->address.family)
			continue;
		if (!routes && add_obj(o, "routes", routes = json_object_new_array()))
			return NULL;
		if (add_obj(routes, NULL, route_json(&r->routes[i], false)))
			return NULL;
	}
	return steal_ptr(o);
}

static int to_json_legacy(const struct cni_result *r, enum cni_version v, struct json_object *o,
			  struct cni_error *err)
{
	const struct cni_ip *ip4 = NULL, *ip6 = NULL;

	for (size_t i = 0; i < r->n_ips; i++) {
		if (r->ips[i].address.family == AF_INET && !ip4)
			ip4 = &r->ips[i];
		if (r->ips[i].address.family == AF_INET6 && !ip6)
			ip6 = &r->ips[i];
	}
	if (!ip4 && !ip6)
		return cni_errorf(err, -EINVAL, CNI_ERR_INCOMPATIBLE_VERSION,
				  "cannot convert: no valid IP addresses",
				  "a %s result carries only IP addresses and this one has none; "
				  "use cniVersion 0.3.0 or later",
				  cni_version_str(v));
	if (ip4 && add_obj(o, "ip4", legacy_ipconfig(r, ip4)))
		return -ENOMEM;
	if (ip6 && add_obj(o, "ip6", legacy_ipconfig(r, ip6)))
		return -ENOMEM;
	return add_obj(o, "dns", dns_json(&r->dns));
}

int cni_result_to_json(const struct cni_result *r, enum cni_version v, struct json_object **out,
		       struct cni_error *err)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();
	int ret;

	*out = NULL;
	if (!o || add_str(o, "cniVersion", cni_version_str(v)))
		return -ENOMEM;
	if (v <= CNI_V020)
		ret = to_json_legacy(r, v, o, err);
	else
		ret = to_json_current(r, v, o);
	if (ret)
		return ret;
	*out = steal_ptr(o);
	return 0;
}

static bool ip_on(const struct cni_result *r, size_t i, const char *ifname)
{
	int k = r->ips[i].iface;

	if (k < 0 || (size_t)k >= r->n_ifaces)
		return r->n_ifaces <= 1;
	return r->ifaces[k].name && !strcmp(r->ifaces[k].name, ifname);
}

size_t cni_result_addrs_of(const struct cni_result *r, const char *ifname, struct cni_addr *out,
			   size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_ips && n < max; i++) {
		if (!ip_on(r, i, ifname))
			continue;
		out[n].family = r->ips[i].address.family;
		memcpy(out[n++].a, r->ips[i].address.a, sizeof(out[0].a));
	}
	return n;
}

unsigned int cni_result_mtu_of(const struct cni_result *r, const char *ifname)
{
	for (size_t i = 0; i < r->n_ifaces; i++)
		if (r->ifaces[i].name && !strcmp(r->ifaces[i].name, ifname) && r->ifaces[i].mtu > 0)
			return (unsigned int)r->ifaces[i].mtu;
	return 0;
}
