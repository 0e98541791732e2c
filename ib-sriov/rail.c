// SPDX-License-Identifier: Apache-2.0
/* Per-rail source routing: a VF's connected and IPAM routes in a table of
 * its own, "from <address> lookup <table>" for each of its addresses, and
 * the ARP sysctls that keep a rail's addresses answered on that rail only
 * (what sbr + tuning do after each rail, in the same process). */
#include <errno.h>
#include <inttypes.h>
#include <linux/if_addr.h>
#include <stdio.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/json.h"
#include "base/util.h"
#include "kernel/link_route.h"
#include "kernel/netns.h"
#include "rail.h"

/* One ADD's view, as ibsriov_rail_apply was given it. */
struct rail_add {
	const struct ibsriov_pod *pod;
	const struct ibsriov_conf *conf;
	struct ibsriov_record *rec;
	const struct cni_result *ipam;
};

static int fail(const struct rail_add *a, int ret, int code, const char *msg, const char *what)
{
	return cni_errorf(&a->pod->ctx->err, ret, code, msg, "%s: %s%s%s", what, strerror(-ret),
			  *cni_sys_ext_ack(a->pod->sys) ? ": " : "", cni_sys_ext_ack(a->pod->sys));
}

/* The connected route of address p: its prefix through the interface. */
static struct cni_route connected(const struct cni_prefix *p, uint32_t table)
{
	struct cni_route rt = {.dst = *p, .has_table = true, .table = (int)table};
	unsigned int bits = p->len, n = p->family == AF_INET ? 4 : 16;

	for (unsigned int i = 0; i<n; i++, bits = bits> 8 ? bits - 8 : 0)
		rt.dst.a[i] &= (unsigned char)(bits >= 8 ? 0xff : (0xff00 >> bits) & 0xff);
	return rt;
}

static struct cni_rule rule_of(const struct cni_prefix *p, uint32_t table, uint32_t priority)
{
	struct cni_rule r = {.src = *p, .table = table, .priority = priority};

	r.src.len = p->family == AF_INET ? 32 : 128;
	return r;
}

struct taken {
	uint32_t table;
	struct cni_rule found;
	bool hit;
};

static int table_taken(const struct cni_rule *r, void *arg)
{
	struct taken *t = arg;

	if (r->table != t->table)
		return 0;
	t->found = *r;
	t->hit = true;
	return 1;
}

/* The table, chosen or derived, and no rule of the pod looks it up yet
 * (another rail's, or the pod's own). */
static int pick_table(struct rail_add *a, uint32_t *table)
{
	const struct ibsriov_rail_conf *rc = &a->conf->rail;
	struct taken t = {0};
	char src[64] = "all";
	int ret;

	*table = rc->automatic ? ibsriov_rail_auto_table(a->pod->ifindex) : rc->table;
	t.table = *table;
	ret = cni_rule_each(a->pod->sys, table_taken, &t);
	if (ret < 0)
		return fail(a, ret, CNI_ERR_INTERNAL, "cannot list the pod's rules", "railTable");
	if (!t.hit)
		return 0;
	if (t.found.src.len)
		cni_prefix_str(&t.found.src, src, sizeof(src));
	return cni_errorf(&a->pod->ctx->err, -EEXIST, CNI_ERR_INVALID_CONFIG,
			  "invalid configuration",
			  "\"railTable\" is table %" PRIu32 " for %s, which a rule of the pod "
			  "already looks up (from %s priority %" PRIu32 "); give each rail its own "
			  "number, or \"auto\"",
			  *table, a->pod->ctx->env.ifname, src, t.found.priority);
}

/* The connected route of every address and every IPAM route, in table. */
static int table_routes(struct rail_add *a, uint32_t table)
{
	const struct cni_result *r = a->ipam;
	char what[96];
	int ret = 0;

	for (size_t i = 0; !ret && i < r->n_ips; i++) {
		struct cni_route rt = connected(&r->ips[i].address, table);
		struct cni_addr src = {0};

		/* As the kernel's own: IPv4's with the address as its source;
		 * IPv6's without (its address may still be tentative). */
		if (r->ips[i].address.family == AF_INET) {
			src.family = AF_INET;
			memcpy(src.a, r->ips[i].address.a, sizeof(src.a));
		}
		ret = cni_route_add(a->pod->sys, a->pod->ifindex, &rt, &src);
		if (ret)
			return fail(a, ret, CNI_ERR_INTERNAL, "railTable: cannot add a route",
				    cni_prefix_str(&rt.dst, what, sizeof(what)));
	}
	for (size_t i = 0; !ret && i < r->n_routes; i++) {
		struct cni_route rt = cni_result_route_via(r, i);

		rt.has_table = true;
		rt.table = (int)table;
		ret = cni_route_add(a->pod->sys, a->pod->ifindex, &rt, NULL);
		/* With railKeepMain, main has them too (configure_ip). */
		if (ret)
			return fail(a, ret, CNI_ERR_INTERNAL, "railTable: cannot add a route",
				    cni_prefix_str(&rt.dst, what, sizeof(what)));
	}
	return 0;
}

/* The rules, recorded before the first is added; on a failure the record
 * keeps only those added. */
static int table_rules(struct rail_add *a, uint32_t table)
{
	const struct cni_result *r = a->ipam;
	struct ibsriov_record *rec = a->rec;
	unsigned int n = 0;
	int ret;

	if (r->n_ips > IBSRIOV_RAIL_RULES_MAX)
		return cni_errorf(
		    &a->pod->ctx->err, -E2BIG, CNI_ERR_INVALID_CONFIG, "invalid configuration",
		    "\"railTable\": the IPAM gave %zu addresses; a rail takes at most %d", r->n_ips,
		    IBSRIOV_RAIL_RULES_MAX);
	rec->rail_table = table;
	rec->rail_priority = IBSRIOV_RAIL_PRIORITY;
	for (size_t i = 0; i < r->n_ips; i++) {
		struct cni_rule ru = rule_of(&r->ips[i].address, table, IBSRIOV_RAIL_PRIORITY);

		cni_prefix_str(&ru.src, rec->rail_rules[i], sizeof(rec->rail_rules[i]));
	}
	rec->n_rail_rules = (unsigned int)r->n_ips;
	rec->flags |= IBSRIOV_REC_HAS_RAIL;
	ret = ibsriov_record_save(rec);
	if (ret)
		return fail(a, ret, CNI_ERR_IO, "cannot update the attachment record", rec->name);
	for (; n < r->n_ips; n++) {
		struct cni_rule ru = rule_of(&r->ips[n].address, table, IBSRIOV_RAIL_PRIORITY);

		ret = cni_rule_add(a->pod->sys, &ru);
		if (ret)
			break;
	}
	if (!ret)
		return 0;
	ret = fail(a, ret, CNI_ERR_INTERNAL, "railTable: cannot add a rule", rec->rail_rules[n]);
	rec->n_rail_rules = n;
	if (ibsriov_record_save(rec))
		log_warn("cannot trim the record's rail rules; DEL deletes %u of them",
			 (unsigned int)r->n_ips);
	return ret;
}

/* The ARP flux settings (docs/architecture.md "Rails"): reply to ARP only
 * for addresses of the interface asked, announce only those, and loose
 * reverse-path filtering. IPv6 has no counterpart to set. */
static const char *const sysctl_keys[] = {"arp_ignore", "arp_announce", "rp_filter"};
static const char *const sysctl_values[] = {"1", "2", "2"};

/* Write (when write) and read back each of them on the pod interface. */
static int rail_sysctls(struct cni_sys *sys, struct cni_ctx *ctx, int ifindex, bool write)
{
	static const char *const none[ARRAY_SIZE(sysctl_keys)];
	char got[ARRAY_SIZE(sysctl_keys)][CNI_LINK_CONF_VALUE];
	struct cni_link_conf c = {.family = AF_INET,
				  .ifindex = ifindex,
				  .name = ctx->env.ifname,
				  .n = ARRAY_SIZE(sysctl_keys),
				  .key = sysctl_keys,
				  .value = write ? sysctl_values : none,
				  .got = got};
	size_t i;
	int ret = cni_link_conf_apply(sys, &c, &i);

	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_INTERNAL,
				  "railSysctls: cannot set a sysctl", "net.ipv4.conf.%s.%s: %s",
				  ctx->env.ifname, sysctl_keys[i], strerror(-ret));
	for (i = 0; i < ARRAY_SIZE(sysctl_keys); i++)
		if (strcmp(got[i], sysctl_values[i]))
			return cni_errorf(
			    &ctx->err, -EINVAL, CNI_ERR_DEVICE,
			    write ? "railSysctls: a sysctl did not keep its value" : "CHECK failed",
			    "railSysctls: net.ipv4.conf.%s.%s is %s, want %s", ctx->env.ifname,
			    sysctl_keys[i], got[i], sysctl_values[i]);
	return 0;
}

int ibsriov_rail_apply(const struct ibsriov_pod *pod, const struct ibsriov_conf *conf,
		       struct ibsriov_record *rec, const struct cni_result *ipam)
{
	struct rail_add one = {.pod = pod, .conf = conf, .rec = rec, .ipam = ipam}, *a = &one;
	const struct ibsriov_rail_conf *rc = &a->conf->rail;
	uint32_t table = 0;
	int saved = -1, ret;

	if ((!rc->on || !a->ipam) && !rc->sysctls)
		return 0;
	/* vfioPciMode is refused with the keys; a driver found bound to
	 * vfio-pci (or a PF passed through) leaves no netdev either. */
	if (!a->pod->ifindex)
		return cni_errorf(&a->pod->ctx->err, -EINVAL, CNI_ERR_INVALID_CONFIG,
				  "invalid configuration",
				  "\"%s\" is set, but %s is bound to vfio-pci: the pod gets no "
				  "netdev to route; drop the key or bind the VF to its driver",
				  rc->on ? "railTable" : "railSysctls", a->conf->device);
	ret = cni_netns_enter(a->pod->sys, a->pod->netns_fd, &saved);
	if (ret)
		return fail(a, ret, CNI_ERR_INTERNAL, "cannot enter the pod network namespace",
			    a->pod->ctx->env.netns);
	if (rc->on && a->ipam) {
		ret = pick_table(a, &table);
		if (!ret)
			ret = table_routes(a, table);
		if (!ret)
			ret = table_rules(a, table);
	}
	if (!ret && rc->sysctls)
		ret = rail_sysctls(a->pod->sys, a->pod->ctx, a->pod->ifindex, true);
	cni_netns_restore(a->pod->sys, &saved);
	return ret;
}

static int differs(struct cni_ctx *ctx, const char *key, const char *what, const char *detail)
{
	return cni_errorf(&ctx->err, -EINVAL, CNI_ERR_DEVICE, "CHECK failed", "%s: %s of %s %s",
			  key, what, ctx->env.ifname, detail);
}

struct rule_find {
	struct cni_rule want;
	bool found;
};

static int rule_is(const struct cni_rule *r, void *arg)
{
	struct rule_find *f = arg;
	const struct cni_rule *w = &f->want;

	if (!r->other && r->table == w->table && r->priority == w->priority &&
	    r->src.family == w->src.family && r->src.len == w->src.len &&
	    !memcmp(r->src.a, w->src.a, sizeof(r->src.a)))
		f->found = true;
	return f->found;
}

/* The routes prev gives (connected and IPAM) in the recorded table. */
static int check_table(struct cni_sys *sys, struct cni_ctx *ctx, const struct ibsriov_record *r,
		       int ifindex)
{
	const struct cni_result *prev = ctx->conf->prev_result;
	char what[96], detail[160];
	int ret;

	for (size_t i = 0; prev && i < prev->n_ips + prev->n_routes; i++) {
		struct cni_route rt;

		if (i < prev->n_ips)
			rt = connected(&prev->ips[i].address, r->rail_table);
		else
			rt = cni_result_route_via(prev, i - prev->n_ips);
		ret = cni_route_in_table(sys, ifindex, &rt, r->rail_table);
		if (ret < 0)
			return cni_errorf(&ctx->err, ret, CNI_ERR_INTERNAL, "CHECK failed",
					  "railTable: cannot list the routes: %s", strerror(-ret));
		if (!ret) {
			snprintf(detail, sizeof(detail), "is not in table %" PRIu32, r->rail_table);
			return differs(ctx, "railTable",
				       cni_prefix_str(&rt.dst, what, sizeof(what)), detail);
		}
	}
	return 0;
}

/* The record's rules, each present exactly as added. */
static int check_rules(struct cni_sys *sys, struct cni_ctx *ctx, const struct ibsriov_record *r)
{
	char detail[160];
	int ret;

	for (unsigned int i = 0; i < r->n_rail_rules; i++) {
		struct rule_find f = {
		    .want = {.table = r->rail_table, .priority = r->rail_priority}};

		if (!cni_prefix_parse(r->rail_rules[i], &f.want.src))
			continue; /* never written so */
		ret = cni_rule_each(sys, rule_is, &f);
		if (ret < 0)
			return cni_errorf(&ctx->err, ret, CNI_ERR_INTERNAL, "CHECK failed",
					  "railTable: cannot list the rules: %s", strerror(-ret));
		if (!f.found) {
			snprintf(detail, sizeof(detail),
				 "lookup %" PRIu32 " priority %" PRIu32 " is absent", r->rail_table,
				 r->rail_priority);
			return differs(ctx, "railTable", r->rail_rules[i], detail);
		}
	}
	return 0;
}

int ibsriov_rail_check(struct cni_sys *sys, struct cni_ctx *ctx, const struct ibsriov_conf *c,
		       const struct ibsriov_record *r)
{
	struct cni_link l;
	char want[64];
	int ret;

	if (!c->rail.on && !c->rail.sysctls)
		return 0;
	ret = cni_link_get(sys, ctx->env.ifname, 0, &l);
	if (ret)
		return cni_errorf(&ctx->err, ret, CNI_ERR_DEVICE, "CHECK failed",
				  "%s is not in the pod (%s)", ctx->env.ifname, strerror(-ret));
	if (c->rail.on && !(r->flags & IBSRIOV_REC_HAS_RAIL) && ctx->conf->prev_result &&
	    ctx->conf->prev_result->n_ips)
		return differs(ctx, "railTable", "the routing", "was set up without a rail table");
	if (c->rail.on && (r->flags & IBSRIOV_REC_HAS_RAIL)) {
		snprintf(want, sizeof(want), "is %" PRIu32 ", want %" PRIu32, r->rail_table,
			 c->rail.table);
		if (!c->rail.automatic && c->rail.table != r->rail_table)
			return differs(ctx, "railTable", "the table", want);
		ret = check_rules(sys, ctx, r);
		if (!ret)
			ret = check_table(sys, ctx, r, l.ifindex);
		if (ret)
			return ret;
	}
	return c->rail.sysctls ? rail_sysctls(sys, ctx, l.ifindex, false) : 0;
}

int ibsriov_rail_undo(struct cni_sys *sys, const struct ibsriov_record *r, int pod_fd,
		      struct cni_error *err)
{
	int saved = -1, ret;

	if (!(r->flags & IBSRIOV_REC_HAS_RAIL) || !r->n_rail_rules)
		return 0;
	ret = cni_netns_enter(sys, pod_fd, &saved);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_INTERNAL,
				  "cannot enter the pod network namespace", "%s", r->netns);
	for (unsigned int i = 0; !ret && i < r->n_rail_rules; i++) {
		struct cni_rule ru = {.table = r->rail_table, .priority = r->rail_priority};

		if (!cni_prefix_parse(r->rail_rules[i], &ru.src))
			continue;
		/* Only an identical rule is deleted; one the pod removed is fine. */
		ret = cni_rule_del(sys, &ru);
		if (ret == -ENOENT || ret == -ESRCH)
			ret = 0;
		if (ret)
			ret = cni_errorf(err, ret, CNI_ERR_INTERNAL,
					 "railTable: cannot delete a rule",
					 "from %s lookup %" PRIu32 ": %s %s", r->rail_rules[i],
					 r->rail_table, strerror(-ret), cni_sys_ext_ack(sys));
	}
	cni_netns_restore(sys, &saved);
	return ret;
}
