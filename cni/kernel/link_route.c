// SPDX-License-Identifier: Apache-2.0
/* Source rules and routes in a table of their own (per-rail routing). */
#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "base/cleanup.h"
#include "kernel/link.h"
#include "kernel/link_nl.h"
#include "kernel/link_route.h"
#include "base/util.h"

static int alen(int family)
{
	return family == AF_INET ? 4 : 16;
}

struct nl_msg *cni_rule_msg(const struct cni_rule *r, bool add)
{
	_cleanup_nl_msg_ struct nl_msg *msg =
	    cni_link_req(add ? RTM_NEWRULE : RTM_DELRULE, add ? NLM_F_CREATE | NLM_F_EXCL : 0,
			 r->src.family, sizeof(struct fib_rule_hdr));
	struct fib_rule_hdr *h;

	if (!msg)
		return NULL;
	h = nlmsg_data(nlmsg_hdr(msg));
	h->src_len = (uint8_t)r->src.len;
	h->action = FR_ACT_TO_TBL;
	/* Tables past 255 exist only as FRA_TABLE (iproute2 does the same). */
	h->table = r->table < 256 ? (uint8_t)r->table : RT_TABLE_UNSPEC;
	if (nla_put_u32(msg, FRA_TABLE, r->table) < 0 ||
	    nla_put_u32(msg, FRA_PRIORITY, r->priority) < 0 ||
	    (r->src.len && nla_put(msg, FRA_SRC, alen(r->src.family), r->src.a) < 0))
		return NULL;
	return steal_ptr(msg);
}

static int rule_request(struct cni_sys *sys, const struct cni_rule *r, bool add)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_rule_msg(r, add);

	return msg ? cni_link_talk(sys, msg, NULL, NULL) : -ENOMEM;
}

int cni_rule_add(struct cni_sys *sys, const struct cni_rule *r)
{
	return rule_request(sys, r, true);
}

int cni_rule_del(struct cni_sys *sys, const struct cni_rule *r)
{
	return rule_request(sys, r, false);
}

static const struct nla_policy rule_policy[FRA_MAX + 1] = {
    [FRA_SRC] = {.minlen = 4, .maxlen = 16},
    [FRA_TABLE] = {.type = NLA_U32},
    [FRA_PRIORITY] = {.type = NLA_U32},
};

/* Selectors other than the source: a rule with one is never ours. */
static const int other_attrs[] = {FRA_DST,	   FRA_IIFNAME,	    FRA_OIFNAME,   FRA_FWMARK,
				  FRA_FWMASK,	   FRA_GOTO,	    FRA_UID_RANGE, FRA_IP_PROTO,
				  FRA_SPORT_RANGE, FRA_DPORT_RANGE, FRA_L3MDEV,	   FRA_TUN_ID};

int cni_rule_parse(struct nl_msg *msg, struct cni_rule *r)
{
	struct fib_rule_hdr *h = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[FRA_MAX + 1];
	int ret;

	if (nlmsg_hdr(msg)->nlmsg_type != RTM_NEWRULE)
		return -EPROTO;
	ret = cni_nl_parse(msg, sizeof(*h), tb, FRA_MAX, rule_policy);
	if (ret)
		return ret;
	if (h->family != AF_INET && h->family != AF_INET6)
		return -EAFNOSUPPORT;
	memset(r, 0, sizeof(*r));
	r->src.family = h->family;
	r->src.len = h->src_len;
	if (r->src.len > (unsigned int)alen(h->family) * 8)
		return -EPROTO;
	if (tb[FRA_SRC]) {
		if (nla_len(tb[FRA_SRC]) != alen(h->family))
			return -EPROTO;
		memcpy(r->src.a, nla_data(tb[FRA_SRC]), (size_t)alen(h->family));
	}
	r->table = tb[FRA_TABLE] ? nla_get_u32(tb[FRA_TABLE]) : h->table;
	r->priority = tb[FRA_PRIORITY] ? nla_get_u32(tb[FRA_PRIORITY]) : 0;
	r->other = h->action != FR_ACT_TO_TBL || h->dst_len || h->tos || h->flags;
	for (size_t i = 0; i < ARRAY_SIZE(other_attrs); i++)
		r->other |= other_attrs[i] <= FRA_MAX && tb[other_attrs[i]];
	return 0;
}

struct rule_walk {
	int (*fn)(const struct cni_rule *r, void *arg);
	void *arg;
};

static int rule_one(struct nl_msg *msg, void *arg)
{
	struct rule_walk *w = arg;
	struct cni_rule r;
	int ret = cni_rule_parse(msg, &r);

	if (ret == -EAFNOSUPPORT)
		return 0;
	return ret ? ret : w->fn(&r, w->arg);
}

int cni_rule_each(struct cni_sys *sys, int (*fn)(const struct cni_rule *r, void *arg), void *arg)
{
	/* AF_UNSPEC dumps the rules of every family in one exchange. */
	_cleanup_nl_msg_ struct nl_msg *msg =
	    cni_link_req(RTM_GETRULE, NLM_F_DUMP, AF_UNSPEC, sizeof(struct fib_rule_hdr));
	struct rule_walk w = {.fn = fn, .arg = arg};

	return msg ? cni_link_talk(sys, msg, rule_one, &w) : -ENOMEM;
}

struct nl_msg *cni_route_msg(int ifindex, const struct cni_route *rt, const struct cni_addr *src,
			     bool add)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_link_route_msg(ifindex, rt);
	struct nlmsghdr *h;

	if (!msg)
		return NULL;
	if (src && src->family && nla_put(msg, RTA_PREFSRC, alen(src->family), src->a) < 0)
		return NULL;
	if (!add) {
		/* The same route, to delete: only one that matches it goes. */
		h = nlmsg_hdr(msg);
		h->nlmsg_type = RTM_DELROUTE;
		h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	}
	return steal_ptr(msg);
}

int cni_route_add(struct cni_sys *sys, int ifindex, const struct cni_route *rt,
		  const struct cni_addr *src)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_route_msg(ifindex, rt, src, true);

	return msg ? cni_link_talk(sys, msg, NULL, NULL) : -ENOMEM;
}

int cni_route_del(struct cni_sys *sys, int ifindex, const struct cni_route *rt)
{
	_cleanup_nl_msg_ struct nl_msg *msg = cni_route_msg(ifindex, rt, NULL, false);

	return msg ? cni_link_talk(sys, msg, NULL, NULL) : -ENOMEM;
}

struct table_match {
	int ifindex;
	uint32_t table;
	const struct cni_route *want;
	bool found;
};

static int table_match(struct nl_msg *msg, void *arg)
{
	struct table_match *m = arg;
	const struct cni_route *w = m->want;
	size_t n = (size_t)alen(w->dst.family);
	struct cni_link_route r;
	int ret = cni_link_route_parse(msg, &r);

	if (ret == -EAFNOSUPPORT)
		return 0;
	if (ret)
		return ret;
	if (r.table == m->table && r.oif == m->ifindex && r.dst.family == w->dst.family &&
	    r.dst.len == w->dst.len && !memcmp(r.dst.a, w->dst.a, w->dst.len ? n : 0) &&
	    (!w->gw.family || (r.gw.family && !memcmp(r.gw.a, w->gw.a, n))))
		m->found = true;
	return 0;
}

int cni_route_in_table(struct cni_sys *sys, int ifindex, const struct cni_route *rt, uint32_t table)
{
	_cleanup_nl_msg_ struct nl_msg *msg =
	    cni_link_req(RTM_GETROUTE, NLM_F_DUMP, rt->dst.family, sizeof(struct rtmsg));
	struct table_match m = {.ifindex = ifindex, .table = table, .want = rt};
	int ret;

	if (!msg)
		return -ENOMEM;
	ret = cni_link_talk(sys, msg, table_match, &m);
	if (!ret)
		ret = m.found;
	return ret;
}
