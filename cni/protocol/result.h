/* SPDX-License-Identifier: Apache-2.0 */
#ifndef CNI_RESULT_H
#define CNI_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#include "base/addr.h"
#include "base/error.h"
#include "protocol/version.h"

struct cni_iface {
	char *name;
	char *mac;
	int mtu;
	char *sandbox;
	char *socket_path;
	char *pci_id;
};

struct cni_ip {
	struct cni_prefix address;
	struct cni_addr gateway;
	int iface; /* index into interfaces, -1 for none */
};

struct cni_dns {
	char **nameservers;
	size_t n_nameservers;
	char *domain;
	char **search;
	size_t n_search;
	char **options;
	size_t n_options;
};

/* One model for every spec version; the JSON form is chosen when printing. */
struct cni_result {
	struct cni_iface *ifaces;
	size_t n_ifaces;
	struct cni_ip *ips;
	size_t n_ips;
	struct cni_route *routes;
	size_t n_routes;
	struct cni_dns dns;
};

/* A zeroed result, or NULL (ENOMEM). Free with cni_result_free(). */
struct cni_result *cni_result_new(void);

/* Free r and everything it holds; NULL is ignored. */
void cni_result_free(struct cni_result *r);

/* Append a zeroed element; NULL on ENOMEM. Pointers stay valid until the
 * next append to the same list. */
struct cni_iface *cni_result_add_iface(struct cni_result *r);
struct cni_ip *cni_result_add_ip(struct cni_result *r);
struct cni_route *cni_result_add_route(struct cni_result *r);

/* Append s (copied) to a string list; 0 or -ENOMEM. */
int cni_strv_add(char ***v, size_t *n, const char *s);

/* Route i of r, its gw filled, when unset, with the gateway of r's first
 * address of the same family: how a result's routes are installed. */
struct cni_route cni_result_route_via(const struct cni_result *r, size_t i);

/* Deep copy of src into a new result; NULL on ENOMEM. */
struct cni_result *cni_result_dup(const struct cni_result *src);

/* The addresses r gives the interface ifname (an address whose
 * "interface" names it, or names none when r has at most one), the first
 * max of them into out (no prefix length): how many. */
size_t cni_result_addrs_of(const struct cni_result *r, const char *ifname, struct cni_addr *out,
			   size_t max);

/* The MTU r gives the interface ifname, 0 when none. */
unsigned int cni_result_mtu_of(const struct cni_result *r, const char *ifname);

/* Encode r as a result of version v. Converting to 0.1.0/0.2.0 keeps the first
 * IPv4 and IPv6 address and fails (code 1) when there is none. */
int cni_result_to_json(const struct cni_result *r, enum cni_version v, struct json_object **out,
		       struct cni_error *err);

/* Decode a result in its own cniVersion (defaulting to dflt when absent);
 * bad content is code 6 naming the field. */
int cni_result_from_json(struct json_object *o, enum cni_version dflt, struct cni_result **out,
			 struct cni_error *err);

/* Append the routes of a JSON list ([{dst, gw, mtu, ...}]) to r; bad
 * entries are code 6 naming the field. */
int cni_result_add_routes_json(struct cni_result *r, struct json_object *list,
			       struct cni_error *err);

#endif
