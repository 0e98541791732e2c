/* SPDX-License-Identifier: Apache-2.0 */
/* Policy routing over rtnetlink (link_route.c): source rules (RTM_*RULE)
 * and routes in a table of their own, as `ip rule` and `ip route ... table`
 * lay them out. Every call acts in the calling thread's network namespace
 * on sys's socket for it and returns 0 or the kernel's negative errno. */
#ifndef CNI_LINK_ROUTE_H
#define CNI_LINK_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/sys.h"
#include "base/addr.h"

struct nl_msg;

/* One rule "from src lookup table" at priority (FR_ACT_TO_TBL). A rule as
 * dumped also says whether it matches on anything besides its source
 * (other: iif, oif, fwmark, tos, destination, ...) or acts otherwise. */
struct cni_rule {
	struct cni_prefix src;
	uint32_t table;
	uint32_t priority;
	bool other;
};

/* Build the RTM_NEWRULE (add) or RTM_DELRULE (!add) for r, as `ip rule
 * add|del from SRC lookup TABLE priority P` does (FRA_TABLE always, the
 * header's table too when it fits 8 bits). NULL on ENOMEM. */
struct nl_msg *cni_rule_msg(const struct cni_rule *r, bool add);

/* Add that rule (-EEXIST when an identical one is there) or delete it
 * (-ENOENT when none matches: only an identical rule is ever removed). */
int cni_rule_add(struct cni_sys *sys, const struct cni_rule *r);
int cni_rule_del(struct cni_sys *sys, const struct cni_rule *r);

/* Decode an RTM_NEWRULE message (a dump reply or a built request). -EPROTO
 * for another type or a malformed message, -EAFNOSUPPORT for a rule that is
 * neither IPv4 nor IPv6. */
int cni_rule_parse(struct nl_msg *msg, struct cni_rule *r);

/* Call fn for every IPv4 and IPv6 rule of the namespace (one dump); fn's
 * non-zero return ends the walk and is returned. */
int cni_rule_each(struct cni_sys *sys, int (*fn)(const struct cni_rule *r, void *arg), void *arg);

/* Build the RTM_NEWROUTE (add) or RTM_DELROUTE (!add) for rt through
 * ifindex (as cni_link_route_msg() lays it out), with src as its preferred
 * source (RTA_PREFSRC) when src->family is set. NULL on ENOMEM. */
struct nl_msg *cni_route_msg(int ifindex, const struct cni_route *rt, const struct cni_addr *src,
			     bool add);

/* Add that route (-EEXIST when the table has it) or delete it (-ESRCH or
 * -ENOENT when the table has no route through ifindex like it). */
int cni_route_add(struct cni_sys *sys, int ifindex, const struct cni_route *rt,
		  const struct cni_addr *src);
int cni_route_del(struct cni_sys *sys, int ifindex, const struct cni_route *rt);

/* True (1) when table holds a route to rt->dst through ifindex (via
 * rt->gw when set), 0 when not, or -errno. */
int cni_route_in_table(struct cni_sys *sys, int ifindex, const struct cni_route *rt,
		       uint32_t table);

#endif
