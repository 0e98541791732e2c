// SPDX-License-Identifier: Apache-2.0
/* guidFallback's GUID (ib-sriov/guid.c, docs/guid.md): known vectors, the
 * bits that keep it off every vendor GUID, injectivity over (PF GUID, VF
 * index), the key's parsing, and the netlink request that sets it. */
#include <criterion/criterion.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <stdlib.h>

#include "guid.h"
#include "helpers.h"
#include "ibsriov.h"

/* Port GUIDs as vendors assign them: NVIDIA/Mellanox OUIs (three share byte
 * 0xb8), ConnectX's OUI:03:00:serial and plain consecutive numbering. */
static const uint64_t ouis[] = {0x0002c9, 0xb8599f, 0xb8cef6, 0xb83fd2,
				0x98039b, 0x248a07, 0x0c42a1, 0xe41d2d};

Test(guid_fallback, known_vectors)
{
	char s[32];

	cr_assert_eq(ibsriov_guid_derive(0x0002c90300a1b2c3ULL, 0), 0x0202c90300a1b2c3ULL);
	cr_assert_eq(ibsriov_guid_derive(0x0002c90300a1b2c3ULL, 1), 0x0202c80300a1b2c3ULL);
	cr_assert_eq(ibsriov_guid_derive(0x0002c90300a1b2c3ULL, 127), 0x0202b60300a1b2c3ULL);
	cr_assert_eq(ibsriov_guid_derive(0x0002c90300a1b2c3ULL, 0x100), 0x0203c90300a1b2c3ULL);
	cr_assert_eq(ibsriov_guid_derive(0xb8599f0300e4a7c2ULL, 5), 0xba599a0300e4a7c2ULL);
	cr_assert_eq(ibsriov_guid_derive(0xb8599f0300e4a7c2ULL, 0xffff), 0xbaa6600300e4a7c2ULL);
	cr_assert_str_eq(cni_guid_str(ibsriov_guid_derive(0x248a070300123456ULL, 2), s, sizeof(s)),
			 "26:8a:05:03:00:12:34:56");
}

Test(guid_fallback, only_from_a_vendor_guid_and_a_vf_index)
{
	cr_assert_eq(ibsriov_guid_derive(0, 0), 0, "unset PF GUID");
	cr_assert_eq(ibsriov_guid_derive(UINT64_MAX, 0), 0, "unset PF GUID");
	cr_assert_eq(ibsriov_guid_derive(0x0202c90300a1b2c3ULL, 0), 0, "locally administered");
	cr_assert_eq(ibsriov_guid_derive(0x0102c90300a1b2c3ULL, 0), 0, "group bit");
	cr_assert_eq(ibsriov_guid_derive(0x0002c90300a1b2c3ULL, 0x10000), 0, "VF index > 65535");
	cr_assert(ibsriov_guid_vendor(0x0002c90300a1b2c3ULL));
	cr_assert_not(ibsriov_guid_vendor(0x0202c90300a1b2c3ULL));
}

/* Every derived GUID: local bit set, group bit clear, so never zero, never
 * all ones, never a vendor's (any PF's, port's, node's) GUID; and one PF's
 * 65536 VF indices give 65536 GUIDs. */
Test(guid_fallback, never_a_vendor_guid_nor_unset)
{
	for (size_t o = 0; o < sizeof(ouis) / sizeof(ouis[0]); o++) {
		uint64_t pf = ouis[o] << 40 | 0x0300a1b2c3ULL;
		uint64_t *seen = calloc(65536, sizeof(*seen));

		cr_assert_not_null(seen);
		for (unsigned int v = 0; v <= 0xffff; v++) {
			uint64_t g = ibsriov_guid_derive(pf, v);

			cr_assert(g & IBSRIOV_GUID_LOCAL, "%#llx", (unsigned long long)g);
			cr_assert_not(g & IBSRIOV_GUID_GROUP);
			cr_assert_not(ibsriov_guid_unset(g));
			cr_assert_not(ibsriov_guid_vendor(g));
			/* Invertible: the VF index is read back from bits 40..55. */
			cr_assert_eq((g ^ pf ^ IBSRIOV_GUID_LOCAL) >> IBSRIOV_GUID_VF_SHIFT, v);
			seen[v] = g;
		}
		for (unsigned int v = 1; v <= 0xffff; v++)
			cr_assert_neq(seen[v], seen[v - 1]);
		free(seen);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Injective over (PF GUID, VF index): 8 OUIs x 2 numbering schemes x 64
 * consecutive PF GUIDs (the ports and HCAs a vendor numbers in a row) x
 * 128 VFs, all distinct and none a PF GUID of the set. */
Test(guid_fallback, injective_over_pf_guids_and_vf_indices)
{
	enum { N_OUI = sizeof(ouis) / sizeof(ouis[0]), N_PF = 64, N_VF = 128 };
	size_t n = 0, total = (size_t)N_OUI * 2 * N_PF * N_VF;
	uint64_t *all = calloc(total + (size_t)N_OUI * 2 * N_PF, sizeof(*all));

	cr_assert_not_null(all);
	for (size_t o = 0; o < N_OUI; o++)
		for (int scheme = 0; scheme < 2; scheme++)
			for (uint64_t p = 0; p < N_PF; p++) {
				uint64_t low = scheme ? 0x0300a1b2c0ULL + p : p;
				uint64_t pf = ouis[o] << 40 | low;

				all[n++] = pf; /* the PFs themselves */
				for (unsigned int v = 0; v < N_VF; v++)
					all[n++] = ibsriov_guid_derive(pf, v);
			}
	qsort(all, n, sizeof(*all), cmp_u64);
	for (size_t i = 1; i < n; i++)
		cr_assert_neq(all[i], all[i - 1], "collision at %#llx", (unsigned long long)all[i]);
	free(all);
}

/* The one collision the argument allows: two PF GUIDs that differ in OUI
 * bytes 1-2 alone, by exactly v ^ v' (docs/guid.md, "Across nodes"). */
Test(guid_fallback, the_documented_limit)
{
	uint64_t a = 0x0002c90300a1b2c3ULL, b = a ^ (3ULL << IBSRIOV_GUID_VF_SHIFT);

	cr_assert_eq(ibsriov_guid_derive(a, 1), ibsriov_guid_derive(b, 2));
	cr_assert_neq(ibsriov_guid_derive(a, 1), ibsriov_guid_derive(b, 1));
}

static int load(const char *keys, struct ibsriov_conf *c, struct cni_ctx *ctx)
{
	char *raw;

	memset(ctx, 0, sizeof(*ctx));
	cr_assert(asprintf(&raw,
			   "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"ib-sriov\","
			   "\"deviceID\":\"0000:3b:00.2\"%s}",
			   keys) > 0);
	cr_assert_eq(cni_conf_parse(raw, strlen(raw), CNI_CMD_ADD, &ctx->own_conf, &ctx->err), 0);
	ctx->conf = ctx->own_conf;
	ctx->node = cni_nodeconf_defaults();
	return ibsriov_conf_load(ctx, c, false);
}

Test(guid_fallback, key_parsing)
{
	struct ibsriov_conf c;
	struct cni_ctx ctx;

	cr_assert_eq(load("", &c, &ctx), 0);
	cr_assert_not(c.guid_fallback, "off by default");
	cni_conf_free(ctx.own_conf);
	cr_assert_eq(load(",\"guidFallback\":true", &c, &ctx), 0, "%s", ctx.err.details);
	cr_assert(c.guid_fallback);
	cr_assert_not(c.has_guid, "derived at ADD, from the VF, not here");
	cni_conf_free(ctx.own_conf);
	cr_assert_eq(load(",\"guidFallback\":\"yes\"", &c, &ctx), -EINVAL);
	cr_assert_eq(ctx.err.code, CNI_ERR_INVALID_CONFIG);
	cr_assert(strstr(ctx.err.details, "guidFallback"), "%s", ctx.err.details);
	cni_conf_free(ctx.own_conf);
}

/* The wire: the request that sets the derived GUID, decoded with libnl as
 * the kernel would (one IFLA_VF_INFO, node and port GUID alike). */
Test(guid_fallback, the_request_that_sets_it)
{
	uint64_t g = ibsriov_guid_derive(0x0002c90300a1b2c3ULL, 1);
	struct cni_vf vf = {
	    .vf = 1, .mask = CNI_VF_NODE_GUID | CNI_VF_PORT_GUID, .node_guid = g, .port_guid = g};
	struct nlattr *top[IFLA_MAX + 1], *tb[IFLA_VF_MAX + 1], *info;
	struct ifla_vf_guid node, port;
	struct nl_msg *msg;
	int rem, n = 0;

	cr_assert_eq(cni_link_vf_msg(4, &vf, &msg), 0);
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct ifinfomsg *ifi = nlmsg_data(h);

	cr_assert_eq(h->nlmsg_type, RTM_NEWLINK);
	cr_assert_eq(ifi->ifi_index, 4, "sent to the PF");
	cr_assert_eq(nlmsg_parse(h, sizeof(*ifi), top, IFLA_MAX, NULL), 0);
	nla_for_each_nested (info, top[IFLA_VFINFO_LIST], rem) {
		cr_assert_eq(nla_parse_nested(tb, IFLA_VF_MAX, info, NULL), 0);
		n++;
	}
	cr_assert_eq(n, 1);
	memcpy(&node, nla_data(tb[IFLA_VF_IB_NODE_GUID]), sizeof(node));
	memcpy(&port, nla_data(tb[IFLA_VF_IB_PORT_GUID]), sizeof(port));
	cr_assert(node.vf == 1 && node.guid == 0x0202c80300a1b2c3ULL);
	cr_assert(port.vf == 1 && port.guid == 0x0202c80300a1b2c3ULL);
	cr_assert_null(tb[IFLA_VF_MAC]);
	nlmsg_free(msg);
	/* DEL's request: the zero GUID the VF had, put back as such. */
	vf.node_guid = vf.port_guid = 0;
	cr_assert_eq(cni_link_vf_msg(4, &vf, &msg), 0);
	h = nlmsg_hdr(msg);
	cr_assert_eq(nlmsg_parse(h, sizeof(struct ifinfomsg), top, IFLA_MAX, NULL), 0);
	nla_for_each_nested (info, top[IFLA_VFINFO_LIST], rem)
		cr_assert_eq(nla_parse_nested(tb, IFLA_VF_MAX, info, NULL), 0);
	memcpy(&port, nla_data(tb[IFLA_VF_IB_PORT_GUID]), sizeof(port));
	cr_assert(port.vf == 1 && port.guid == 0);
	nlmsg_free(msg);
}
