// SPDX-License-Identifier: Apache-2.0
/* railTable/railKeepMain/railSysctls: the keys, the "auto" table, and the
 * rule and route messages cni/kernel/link_route.c builds (decoded with
 * libnl's parser). */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <stdio.h>

#include "helpers.h"
#include "ibsriov.h"
#include "kernel/link_route.h"
#include "rail.h"
#include "base/cleanup.h"

static int load(const char *keys, struct ibsriov_conf *c, struct cni_ctx *ctx)
{
	char *raw;
	int ret;

	memset(ctx, 0, sizeof(*ctx));
	cr_assert(asprintf(&raw,
			   "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"ib-sriov\","
			   "\"deviceID\":\"0000:3b:00.2\"%s%s}",
			   *keys ? "," : "", keys) > 0);
	cr_assert_eq(cni_conf_parse(raw, strlen(raw), CNI_CMD_ADD, &ctx->own_conf, &ctx->err), 0);
	ctx->conf = ctx->own_conf;
	ctx->node = cni_nodeconf_defaults();
	cr_assert_eq(cni_args_parse("", &ctx->args, &ctx->err), 0);
	ret = ibsriov_conf_load(ctx, c, false);
	cni_args_free(&ctx->args);
	cni_conf_free(ctx->own_conf);
	return ret;
}

Test(rail, table_values)
{
	static const struct {
		const char *keys;
		bool ok;
		uint32_t table;
	} cases[] = {
	    {"\"railTable\":1", true, 1},	    {"\"railTable\":252", true, 252},
	    {"\"railTable\":256", true, 256},	    {"\"railTable\":4294967295", true, 4294967295u},
	    {"\"railTable\":0", false, 0},	    {"\"railTable\":253", false, 0},
	    {"\"railTable\":254", false, 0},	    {"\"railTable\":255", false, 0},
	    {"\"railTable\":4294967296", false, 0}, {"\"railTable\":-1", false, 0},
	    {"\"railTable\":\"100\"", false, 0},    {"\"railTable\":\"Auto\"", false, 0},
	    {"\"railTable\":2.0", false, 0},
	};
	struct ibsriov_conf c;
	struct cni_ctx ctx;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret = load(cases[i].keys, &c, &ctx);

		if (cases[i].ok) {
			cr_assert_eq(ret, 0, "%s: %s", cases[i].keys, ctx.err.details);
			cr_assert(c.rail.on && !c.rail.automatic && c.rail.table == cases[i].table,
				  "%s", cases[i].keys);
			continue;
		}
		cr_assert_lt(ret, 0, "%s accepted", cases[i].keys);
		cr_assert_eq(ctx.err.code, CNI_ERR_INVALID_CONFIG);
		cr_assert(strstr(ctx.err.details, "\"railTable\" is "), "%s: %s", cases[i].keys,
			  ctx.err.details);
		cr_assert(strstr(ctx.err.details, "or \"auto\""), "%s", ctx.err.details);
	}
}

Test(rail, auto_and_the_other_keys)
{
	struct ibsriov_conf c;
	struct cni_ctx ctx;

	cr_assert_eq(load("", &c, &ctx), 0);
	cr_assert(!c.rail.on && !c.rail.sysctls && !c.rail.keep_main, "off by default");
	cr_assert(!ibsriov_rail_owns_routes(&c));
	cr_assert_eq(load("\"railTable\":\"auto\",\"railSysctls\":true", &c, &ctx), 0);
	cr_assert(c.rail.on && c.rail.automatic && c.rail.sysctls && !c.rail.keep_main);
	cr_assert(ibsriov_rail_owns_routes(&c));
	cr_assert_eq(load("\"railTable\":7,\"railKeepMain\":true", &c, &ctx), 0);
	cr_assert(c.rail.keep_main && !ibsriov_rail_owns_routes(&c), "main keeps its routes");
	cr_assert_lt(load("\"railKeepMain\":true", &c, &ctx), 0);
	cr_assert_str_eq(
	    ctx.err.details,
	    "\"railKeepMain\" is set without \"railTable\"; set \"railTable\" (a number "
	    "or \"auto\") or drop \"railKeepMain\"");
	cr_assert_lt(load("\"railSysctls\":1", &c, &ctx), 0);
	cr_assert(strstr(ctx.err.details, "railSysctls"), "%s", ctx.err.details);
	cr_assert_lt(load("\"railSysctls\":true,\"vfioPciMode\":true", &c, &ctx), 0);
	cr_assert(strstr(ctx.err.details, "\"railSysctls\" is set with \"vfioPciMode\""), "%s",
		  ctx.err.details);
}

/* "auto" is 10000 + the pod interface's index: distinct indices give
 * distinct tables, none of them 0 or 253-255, all within 32 bits. */
Test(rail, auto_table_derivation)
{
	cr_assert_eq(ibsriov_rail_auto_table(1), 10001);
	cr_assert_eq(ibsriov_rail_auto_table(7), 10007);
	cr_assert_eq(ibsriov_rail_auto_table(0x7fffffff), 10000u + 0x7fffffffu);
	for (int i = 1; i < 5000; i++) {
		uint32_t t = ibsriov_rail_auto_table(i);

		cr_assert(t > 255 && t != ibsriov_rail_auto_table(i + 1));
	}
}

Test(rail, rule_message_layout)
{
	struct cni_rule r = {.src = {.family = AF_INET, .a = {10, 60, 0, 11}, .len = 32},
			     .table = 10007,
			     .priority = IBSRIOV_RAIL_PRIORITY};
	struct nlattr *tb[FRA_MAX + 1];
	struct nl_msg *msg = cni_rule_msg(&r, true);
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct fib_rule_hdr *frh = nlmsg_data(h);
	struct cni_rule back;

	cr_assert_eq(h->nlmsg_type, RTM_NEWRULE);
	cr_assert_eq(h->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL);
	cr_assert_eq(nlmsg_parse(h, sizeof(*frh), tb, FRA_MAX, NULL), 0);
	cr_assert(frh->family == AF_INET && frh->src_len == 32 && frh->dst_len == 0);
	cr_assert_eq(frh->action, FR_ACT_TO_TBL);
	cr_assert_eq(frh->table, RT_TABLE_UNSPEC, "table 10007 only fits FRA_TABLE");
	cr_assert_eq(nla_get_u32(tb[FRA_TABLE]), 10007);
	cr_assert_eq(nla_get_u32(tb[FRA_PRIORITY]), 32700);
	cr_assert_eq(nla_len(tb[FRA_SRC]), 4);
	cr_assert_arr_eq(nla_data(tb[FRA_SRC]), r.src.a, 4);
	cr_assert_null(tb[FRA_DST]);
	cr_assert_null(tb[FRA_IIFNAME]);
	/* Decoded as a dump reply is: the same rule, nothing else matched on. */
	cr_assert_eq(cni_rule_parse(msg, &back), 0);
	cr_assert(back.table == 10007 && back.priority == 32700 && !back.other);
	cr_assert(back.src.family == AF_INET && back.src.len == 32 &&
		  !memcmp(back.src.a, r.src.a, 4));
	nlmsg_free(msg);

	r = (struct cni_rule){.src = {.family = AF_INET6, .a = {0xfd, 0, 0, 0x56}, .len = 128},
			      .table = 100};
	msg = cni_rule_msg(&r, false);
	h = nlmsg_hdr(msg);
	frh = nlmsg_data(h);
	cr_assert_eq(h->nlmsg_type, RTM_DELRULE);
	cr_assert_eq(h->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK, "a delete never creates");
	cr_assert_eq(nlmsg_parse(h, sizeof(*frh), tb, FRA_MAX, NULL), 0);
	cr_assert(frh->family == AF_INET6 && frh->src_len == 128 && frh->table == 100);
	cr_assert_eq(nla_len(tb[FRA_SRC]), 16);
	cr_assert_arr_eq(nla_data(tb[FRA_SRC]), r.src.a, 16);
	nlmsg_free(msg);
}

/* A reply as the kernel would send it: header, then attributes. */
static struct nl_msg *reply(const struct fib_rule_hdr *hdr)
{
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_NEWRULE, 0);

	cr_assert_eq(nlmsg_append(msg, (void *)(uintptr_t)hdr, sizeof(*hdr), NLMSG_ALIGNTO), 0);
	return msg;
}

Test(rail, rule_reply_policy)
{
	struct fib_rule_hdr h = {.family = AF_INET, .action = FR_ACT_TO_TBL, .table = 254};
	unsigned char a[4] = {10, 0, 0, 1};
	struct nl_msg *msg = reply(&h);
	struct cni_rule r;

	nla_put_u32(msg, FRA_PRIORITY, 32766);
	cr_assert_eq(cni_rule_parse(msg, &r), 0);
	cr_assert(r.table == 254 && r.priority == 32766 && r.src.len == 0 && !r.other,
		  "from all lookup main: the header's table");
	nlmsg_free(msg);
	msg = reply(&h);
	nla_put_string(msg, FRA_IIFNAME, "net1");
	cr_assert_eq(cni_rule_parse(msg, &r), 0);
	cr_assert(r.other, "an iif rule is not a source rule");
	nlmsg_free(msg);
	h.src_len = 32;
	msg = reply(&h);
	nla_put(msg, FRA_SRC, 2, a);
	cr_assert_eq(cni_rule_parse(msg, &r), -EPROTO, "a 2-byte source");
	nlmsg_free(msg);
	h.src_len = 33;
	msg = reply(&h);
	cr_assert_eq(cni_rule_parse(msg, &r), -EPROTO, "a /33");
	nlmsg_free(msg);
	h.src_len = 0;
	h.action = FR_ACT_UNREACHABLE;
	msg = reply(&h);
	cr_assert_eq(cni_rule_parse(msg, &r), 0);
	cr_assert(r.other, "not a lookup");
	nlmsg_free(msg);
}

Test(rail, table_route_messages)
{
	struct cni_route rt = {.dst = {.family = AF_INET, .a = {10, 60, 0, 0}, .len = 24},
			       .has_table = true,
			       .table = 10007};
	struct cni_addr src = {.family = AF_INET, .a = {10, 60, 0, 11}};
	struct nlattr *tb[RTA_MAX + 1];
	struct nl_msg *msg = cni_route_msg(9, &rt, &src, true);
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct rtmsg *rtm = nlmsg_data(h);

	cr_assert_eq(h->nlmsg_type, RTM_NEWROUTE);
	cr_assert_eq(h->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL);
	cr_assert_eq(nlmsg_parse(h, sizeof(*rtm), tb, RTA_MAX, NULL), 0);
	cr_assert(rtm->rtm_dst_len == 24 && rtm->rtm_scope == RT_SCOPE_LINK);
	cr_assert_eq(nla_get_u32(tb[RTA_TABLE]), 10007);
	cr_assert_eq(nla_get_u32(tb[RTA_OIF]), 9);
	cr_assert_arr_eq(nla_data(tb[RTA_PREFSRC]), src.a, 4);
	nlmsg_free(msg);

	msg = cni_route_msg(9, &rt, NULL, false);
	h = nlmsg_hdr(msg);
	cr_assert_eq(h->nlmsg_type, RTM_DELROUTE);
	cr_assert_eq(h->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	cr_assert_eq(nlmsg_parse(h, sizeof(*rtm), tb, RTA_MAX, NULL), 0);
	cr_assert_null(tb[RTA_PREFSRC]);
	cr_assert_eq(nla_get_u32(tb[RTA_OIF]), 9, "only the route through the interface goes");
	nlmsg_free(msg);
}
