/* SPDX-License-Identifier: Apache-2.0 */
/* Address math for ib-host-local: ranges and range sets (pure, no I/O). */
#ifndef IPAM_RANGE_H
#define IPAM_RANGE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "protocol/result.h"

struct ipam_range {
	struct cni_prefix subnet;   /* network address, host bits zero */
	struct cni_addr start, end; /* inclusive */
	struct cni_addr gateway;    /* family 0 when none */
};

/* A pool of disjoint, same-family ranges; one address is leased per set. */
struct ipam_rangeset {
	struct ipam_range *r;
	size_t n;
};

/* Compare two addresses of one family: <0, 0, >0. */
int ipam_addr_cmp(const struct cni_addr *a, const struct cni_addr *b);

/* a + 1 into *out; false when a is the family's last address. */
bool ipam_addr_next(const struct cni_addr *a, struct cni_addr *out);

/* The network and last (all-ones host part) address of a prefix. */
void ipam_prefix_first(const struct cni_prefix *p, struct cni_addr *out);
void ipam_prefix_last(const struct cni_prefix *p, struct cni_addr *out);

/* True when addr lies inside prefix p. */
bool ipam_prefix_contains(const struct cni_prefix *p, const struct cni_addr *addr);

/* True for the IPv4 network and broadcast addresses of r's subnet: they are
 * never leased, whatever the bounds say. */
bool ipam_range_reserved(const struct ipam_range *r, const struct cni_addr *addr);

/* True when addr is within [start, end] of r (and its subnet). */
bool ipam_range_contains(const struct ipam_range *r, const struct cni_addr *addr);

/* Index of the range of set s holding addr, or -1. */
int ipam_rangeset_find(const struct ipam_rangeset *s, const struct cni_addr *addr);

/* "start-end" and "start-end,start-end" as host-local prints them. */
const char *ipam_range_str(const struct ipam_range *r, char *buf, size_t len);
const char *ipam_rangeset_str(const struct ipam_rangeset *s, char *buf, size_t len);

/* One range as the configuration gives it: its strings, NULL when absent. */
struct ipam_range_spec {
	const char *subnet, *start, *end, *gateway;
};

/* Fill defaults and validate one range as host-local does, plus: rangeStart
 * after rangeEnd, a gateway outside the subnet and a range with no leasable
 * address are errors. -EINVAL with host-local's wording in why. */
int ipam_range_parse(struct ipam_range *r, const struct ipam_range_spec *spec, char *why,
		     size_t len);

/* Validate a set: one family, no overlaps inside it; -EINVAL with why. */
int ipam_rangeset_check(const struct ipam_rangeset *s, char *why, size_t len);

/* True when the two sets share an address. */
bool ipam_rangesets_overlap(const struct ipam_rangeset *a, const struct ipam_rangeset *b);

/* How many addresses of r may be leased (gateway and IPv4 network/broadcast
 * excluded), saturating at UINT64_MAX. */
unsigned long long ipam_range_size(const struct ipam_range *r);

/* The address index places after r's first address (start; index 0 is
 * start) into *out: true, or false (out = start) when it lies past end. */
bool ipam_range_at(const struct ipam_range *r, unsigned long long index, struct cni_addr *out);

#endif
