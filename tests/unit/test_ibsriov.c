// SPDX-License-Identifier: Apache-2.0
/* ib-sriov's configuration table and value parsers. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <stdio.h>

#include "guid.h"
#include "helpers.h"
#include "ibsriov.h"

struct conf_case {
	char keys[200]; /* spliced into a valid config */
	char cni_args[64];
	int code;	   /* 0: accepted */
	char details[200]; /* expected details (exact), or "" */
};

static int load_args_on(const struct cni_nodeconf *node, const char *keys, const char *cni_args,
			struct ibsriov_conf *c, struct cni_ctx *ctx)
{
	char *raw;

	memset(ctx, 0, sizeof(*ctx));
	cr_assert(asprintf(&raw,
			   "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"ib-sriov\"%s%s}",
			   *keys ? "," : "", keys) > 0);
	cr_assert_eq(cni_conf_parse(raw, strlen(raw), CNI_CMD_ADD, &ctx->own_conf, &ctx->err), 0,
		     "%s", ctx->err.details);
	ctx->conf = ctx->own_conf;
	ctx->node = node;
	cr_assert_eq(cni_args_parse(cni_args, &ctx->args, &ctx->err), 0);
	return ibsriov_conf_load(ctx, c, false);
}

static int load(const char *keys, const char *cni_args, struct ibsriov_conf *c, struct cni_ctx *ctx)
{
	return load_args_on(cni_nodeconf_defaults(), keys, cni_args, c, ctx);
}

static int load_on(const struct cni_nodeconf *node, const char *keys, struct ibsriov_conf *c,
		   struct cni_ctx *ctx)
{
	return load_args_on(node, keys, "", c, ctx);
}

static void unload(struct cni_ctx *ctx)
{
	cni_args_free(&ctx->args);
	cni_conf_free(ctx->own_conf);
}

ParameterizedTestParameters(ibsriov, config_table)
{
	static struct conf_case cases[] = {
	    {"\"deviceID\":\"0000:3b:00.2\"", "", 0, ""},
	    {"\"pciBusID\":\"3b:00.2\"", "", 0, ""},
	    {"", "", 7,
	     "Multus sets \"deviceID\" to the VF the device plugin allocated; check the network's "
	     "resourceName annotation"},
	    {"\"deviceID\":\"3b:00\"", "", 7,
	     "\"deviceID\" is \"3b:00\"; it must be a PCI address like 0000:3b:00.2"},
	    {"\"deviceID\":5", "", 7, "\"deviceID\" must be a string"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"pciBusID\":\"0000:3b:00.3\"", "", 7,
	     "\"pciBusID\" (0000:3b:00.3) and \"deviceID\" (0000:3b:00.2) name different devices"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"guid\":\"02:00:00:00:00:00:00:01\"", "", 0, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"guid\":\"00:00:00:00:00:00:00:00\"", "", 7,
	     "guid is \"00:00:00:00:00:00:00:00\"; a GUID is 8 hex bytes like "
	     "02:00:00:00:00:00:00:01, not all zeros"},
	    /* ib-sriov-cni accepts all ones (the driver's "no GUID"). */
	    {"\"deviceID\":\"0000:3b:00.2\",\"args\":{\"cni\":{\"guid\":\"ff:ff:ff:ff:ff:ff:ff:"
	     "ff\"}}",
	     "", 0, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"runtimeConfig\":{\"infinibandGUID\":\"02:00:00:00:00:"
	     "00:00\"}",
	     "", 7,
	     "runtimeConfig.infinibandGUID is \"02:00:00:00:00:00:00\"; a GUID is 8 hex bytes like "
	     "02:00:00:00:00:00:00:01, not all zeros"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"pkey\":\"0x8001\"", "", 0, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"pkey\":\"0x5\"", "", 0, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"pkey\":\"\"", "", 0, ""},
	    /* A key that can never be valid is refused even where pkeyEnforce is
	     * off (ib-kubernetes would act on it). */
	    {"\"deviceID\":\"0000:3b:00.2\",\"pkey\":\"0x0000\"", "", 7,
	     "\"pkey\" is \"0x0000\"; it must be a partition key like \"0x8001\" "
	     "(hex or decimal, 15-bit key plus the membership bit, not 0)"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"pkey\":\"0x8000\"", "", 7,
	     "\"pkey\" is \"0x8000\"; it must be a partition key like \"0x8001\" "
	     "(hex or decimal, 15-bit key plus the membership bit, not 0)"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"pkey\":\"0x10000\"", "", 7,
	     "\"pkey\" is \"0x10000\"; it must be a partition key like \"0x8001\" "
	     "(hex or decimal, 15-bit key plus the membership bit, not 0)"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"pkey\":\"abc\"", "", 7,
	     "\"pkey\" is \"abc\"; it must be a partition key like \"0x8001\" "
	     "(hex or decimal, 15-bit key plus the membership bit, not 0)"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"pkey\":\"0x\"", "", 7,
	     "\"pkey\" is \"0x\"; it must be a partition key like \"0x8001\" "
	     "(hex or decimal, 15-bit key plus the membership bit, not 0)"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"pkey\":\"-1\"", "", 7,
	     "\"pkey\" is \"-1\"; it must be a partition key like \"0x8001\" "
	     "(hex or decimal, 15-bit key plus the membership bit, not 0)"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"pkey\":\"0x8001 \"", "", 7,
	     "\"pkey\" is \"0x8001 \"; it must be a partition key like \"0x8001\" "
	     "(hex or decimal, 15-bit key plus the membership bit, not 0)"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"pkey\":\"partition-5\"", "", 7,
	     "\"pkey\" is \"partition-5\"; it must be a partition key like \"0x8001\" "
	     "(hex or decimal, 15-bit key plus the membership bit, not 0)"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"pkey\":\"0x10000\",\"pkeyEnforce\":true", "", 7,
	     "\"pkey\" is \"0x10000\"; it must be a partition key like \"0x8001\" "
	     "(hex or decimal, 15-bit key plus the membership bit, not 0)"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"pkeyEnforce\":\"yes\"", "", 7,
	     "\"pkeyEnforce\" must be true or false"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"dns\":{\"nameservers\":\"1.1.1.1\"}", "", 7, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"dns\":{\"nameservers\":[\"1.1.1.1\"]}", "", 0, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"link_state\":\"enable\"", "", 0, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"link_state\":\"on\"", "", 7,
	     "\"link_state\" is \"on\"; it must be \"auto\", \"enable\" or \"disable\""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"vlan\":4094,\"vlanQoS\":7,\"vlanProto\":\"802.1ad\"",
	     "", 0, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"vlan\":4095", "", 7,
	     "\"vlan\" is 4095; it must be from 0 to 4094"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"vlan\":\"5\"", "", 7,
	     "\"vlan\" must be an integer from 0 to 4094"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"vlan\":1,\"vlanQoS\":8", "", 7,
	     "\"vlanQoS\" is 8; it must be from 0 to 7"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"vlanQoS\":1", "", 7,
	     "\"vlanQoS\" and \"vlanProto\" need \"vlan\""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"vlan\":1,\"vlanProto\":\"qinq\"", "", 7,
	     "\"vlanProto\" is \"qinq\"; it must be \"802.1q\" or \"802.1ad\""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"vlan\":0,\"vlanQoS\":3", "", 7,
	     "\"vlan\" 0 takes no \"vlanQoS\" or \"vlanProto\""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"spoofchk\":\"on\",\"trust\":\"off\"", "", 0, ""},
	    /* sriov-cni takes anything but "on" as off; only what the operators
	     * render is taken here ("" leaves the VF as it is). */
	    {"\"deviceID\":\"0000:3b:00.2\",\"spoofchk\":\"\",\"trust\":\"\"", "", 0, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"spoofchk\":\"maybe\"", "", 7,
	     "\"spoofchk\" is \"maybe\"; it must be \"on\" or \"off\""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"spoofchk\":\"OFF\"", "", 7,
	     "\"spoofchk\" is \"OFF\"; it must be \"on\" or \"off\""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"trust\":\"yes\"", "", 7,
	     "\"trust\" is \"yes\"; it must be \"on\" or \"off\""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"trust\":true", "", 7, "\"trust\" must be a string"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"min_tx_rate\":200,\"max_tx_rate\":100", "", 7,
	     "\"min_tx_rate\" (200) is above \"max_tx_rate\" (100)"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"max_tx_rate\":-1", "", 7,
	     "\"max_tx_rate\" is -1; it must be from 0 to 4294967295"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"mac\":\"02:00:00:00:00:01\"", "", 0, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"mac\":\"03:00:00:00:00:01\"", "", 7,
	     "\"mac\" is \"03:00:00:00:00:01\"; it must be a unicast MAC like 02:00:00:00:00:01"},
	    {"\"deviceID\":\"0000:3b:00.2\"", "IgnoreUnknown=1;MAC=00:00:00:00:00:00", 7,
	     "\"mac\" is \"00:00:00:00:00:00\"; it must be a unicast MAC like 02:00:00:00:00:01"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"mtu\":9000", "", 0, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"mtu\":67", "", 7,
	     "\"mtu\" is 67; it must be from 68 to 65535"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"rdmaIsolation\":\"yes\"", "", 7,
	     "\"rdmaIsolation\" must be true or false"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"ibKubernetesEnabled\":true", "", 11, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"ibKubernetesEnabled\":true,\"args\":{\"cni\":{"
	     "\"mellanox.infiniband.app\":\"configured\"}}",
	     "", 7, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"ibKubernetesEnabled\":true,\"args\":{\"cni\":{"
	     "\"mellanox.infiniband.app\":\"configured\",\"guid\":\"02:00:00:00:00:00:00:09\"}}",
	     "", 0, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"netdevWaitMs\":700000", "", 7,
	     "\"netdevWaitMs\" is 700000; it must be from 0 to 600000"},
	    /* T10: the node's maxWaitMs (30000 by default) caps what a NAD asks. */
	    {"\"deviceID\":\"0000:3b:00.2\",\"netdevWaitMs\":30000,\"pkeyWaitMs\":0", "", 0, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"netdevWaitMs\":30001", "", 7,
	     "\"netdevWaitMs\" is 30001; this node allows waits of at most 30000 ms "
	     "(\"maxWaitMs\" in /etc/ibcni/ibcni.conf)"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"pkeyWaitMs\":600000", "", 7,
	     "\"pkeyWaitMs\" is 600000; this node allows waits of at most 30000 ms "
	     "(\"maxWaitMs\" in /etc/ibcni/ibcni.conf)"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"waitPortActiveMs\":30000", "", 0, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"waitPortActiveMs\":30001", "", 7,
	     "\"waitPortActiveMs\" is 30001; this node allows waits of at most 30000 ms "
	     "(\"maxWaitMs\" in /etc/ibcni/ibcni.conf)"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"waitPortActiveMs\":-1", "", 7,
	     "\"waitPortActiveMs\" is -1; it must be from 0 to 600000"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"waitPortActiveMs\":\"5\"", "", 7,
	     "\"waitPortActiveMs\" must be an integer from 0 to 600000"},
	    {"\"deviceID\":\"0000:3b:00.2\",\"unknownKey\":{\"x\":1}", "", 0, ""},
	    {"\"deviceID\":\"0000:3b:00.2\",\"ipam\":{\"type\":\"../host-local\"}", "", 7,
	     "\"ipam.type\" is \"../host-local\"; it must be a plugin name found on CNI_PATH"},
	};

	return cr_make_param_array(struct conf_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct conf_case *tc, ibsriov, config_table)
{
	struct ibsriov_conf c;
	struct cni_ctx ctx;
	int ret = load(tc->keys, tc->cni_args, &c, &ctx);

	if (!tc->code) {
		cr_assert_eq(ret, 0, "%s: %s", tc->keys, ctx.err.details);
	} else {
		cr_assert_lt(ret, 0, "%s accepted", tc->keys);
		cr_assert_eq(ctx.err.code, tc->code, "%s: code %d (%s)", tc->keys, ctx.err.code,
			     ctx.err.details);
		if (*tc->details)
			cr_assert_str_eq(ctx.err.details, tc->details);
	}
	cni_args_free(&ctx.args);
	cni_conf_free(ctx.own_conf);
}

/* The node's maxWaitMs: what a NAD may ask, and the defaults lowered to it. */
Test(ibsriov, waits_capped_by_the_node)
{
	struct cni_nodeconf node = *cni_nodeconf_defaults();
	const char *big = "\"deviceID\":\"0000:3b:00.2\",\"pkeyWaitMs\":600000";
	struct ibsriov_conf c;
	struct cni_ctx ctx;

	cr_assert_eq(load("\"deviceID\":\"0000:3b:00.2\"", "", &c, &ctx), 0);
	cr_assert_eq(c.netdev_wait_ms, IBSRIOV_NETDEV_WAIT_MS);
	cr_assert_eq(c.pkey_wait_ms, IBSRIOV_PKEY_WAIT_MS);
	unload(&ctx);
	node.max_wait_ms = 600000;
	cr_assert_eq(load_on(&node, big, &c, &ctx), 0, "%s", ctx.err.details);
	cr_assert_eq(c.pkey_wait_ms, 600000);
	unload(&ctx);
	node.max_wait_ms = 500;
	cr_assert_lt(load_on(&node, big, &c, &ctx), 0);
	cr_assert_str_eq(ctx.err.details,
			 "\"pkeyWaitMs\" is 600000; this node allows waits of at most 500 ms "
			 "(\"maxWaitMs\" in /etc/ibcni/ibcni.conf)");
	unload(&ctx);
	cr_assert_eq(load_on(&node, "\"deviceID\":\"0000:3b:00.2\"", &c, &ctx), 0);
	cr_assert_eq(c.netdev_wait_ms, 500, "the default lowered to the cap");
	cr_assert_eq(c.pkey_wait_ms, 500);
	unload(&ctx);
}

Test(ibsriov, values_land_where_they_belong)
{
	struct ibsriov_conf c;
	struct cni_ctx ctx;

	cr_assert_eq(load("\"deviceID\":\"3B:00.2\",\"runtimeConfig\":{\"infinibandGUID\":\"00:11:"
			  "22:33:44:55:66:77\"},"
			  "\"args\":{\"cni\":{\"guid\":\"02:00:00:00:00:00:00:01\"}},\"guid\":\"02:"
			  "00:00:00:00:00:00:02\","
			  "\"vlan\":100,\"vlanQoS\":2,\"vlanProto\":\"802.1AD\",\"min_tx_rate\":5,"
			  "\"link_state\":\"disable\"",
			  "", &c, &ctx),
		     0, "%s", ctx.err.details);
	cr_assert_str_eq(c.device, "0000:3b:00.2");
	cr_assert(c.has_guid);
	cr_assert_eq(c.guid, 0x0011223344556677ULL, "runtimeConfig wins");
	cr_assert_str_eq(c.guid_from, "runtimeConfig.infinibandGUID");
	cr_assert_eq(c.vf.mask, CNI_VF_VLAN | CNI_VF_RATE | CNI_VF_LINK_STATE);
	cr_assert(c.vf.vlan == 100 && c.vf.qos == 2 && c.vf.vlan_proto == ETH_P_8021AD);
	cr_assert(c.vf.min_tx_rate == 5 && c.vf.max_tx_rate == 0);
	cr_assert_eq(c.vf.link_state, IFLA_VF_LINK_STATE_DISABLE);
	cr_assert_eq(c.netdev_wait_ms, IBSRIOV_NETDEV_WAIT_MS);
	cni_args_free(&ctx.args);
	cni_conf_free(ctx.own_conf);
	/* The MAC: runtimeConfig, then CNI_ARGS, then the key. */
	cr_assert_eq(load("\"deviceID\":\"0000:3b:00.2\",\"mac\":\"02:00:00:00:00:03\"",
			  "IgnoreUnknown=1;MAC=02:00:00:00:00:02", &c, &ctx),
		     0);
	cr_assert_eq(c.vf.mac[5], 2);
	cr_assert(c.has_mac && (c.vf.mask & CNI_VF_MAC));
	cni_args_free(&ctx.args);
	cni_conf_free(ctx.own_conf);
}

Test(ibsriov, guid_parser)
{
	uint64_t g;
	char buf[32];

	cr_assert(cni_guid_parse("00:11:22:33:44:55:66:77", &g));
	cr_assert_eq(g, 0x0011223344556677ULL);
	cr_assert(cni_guid_parse("AA:bb:CC:dd:EE:ff:00:01", &g));
	cr_assert_str_eq(cni_guid_str(g, buf, sizeof(buf)), "aa:bb:cc:dd:ee:ff:00:01");
	cr_assert_not(cni_guid_parse("00:11:22:33:44:55:66", &g));
	cr_assert_not(cni_guid_parse("00:11:22:33:44:55:66:777", &g));
	cr_assert_not(cni_guid_parse("00-11-22-33-44-55-66-77", &g));
	cr_assert_not(cni_guid_parse("0g:11:22:33:44:55:66:77", &g));
	cr_assert(ibsriov_guid_unset(0));
	cr_assert(ibsriov_guid_unset(UINT64_MAX));
	cr_assert_not(ibsriov_guid_unset(1));
}

Test(ibsriov, guid_from_ipoib_address)
{
	unsigned char hw[20] = {0x00, 0x00, 0x01, 0x07, 0xfe, 0x80, 0,	  0,	0,    0,
				0,    0,    0x02, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77};

	cr_assert_eq(ibsriov_guid_from_hwaddr(hw, 20), 0x0211223344556677ULL);
	cr_assert_eq(ibsriov_guid_from_hwaddr(hw, 6), 0, "not IPoIB");
}

Test(ibsriov, mac_and_pkey_parsers)
{
	unsigned char mac[6];
	uint16_t pkey;
	char buf[32];

	cr_assert(cni_mac_parse("02:aa:bb:cc:dd:ee", mac));
	cr_assert_str_eq(cni_hw_str(mac, 6, buf, sizeof(buf)), "02:aa:bb:cc:dd:ee");
	cr_assert_not(cni_mac_parse("01:00:5e:00:00:01", mac), "multicast");
	cr_assert_not(cni_mac_parse("00:00:00:00:00:00", mac), "zero");
	cr_assert_not(cni_mac_parse("02:aa:bb:cc:dd", mac));
	cr_assert(ibsriov_pkey_parse("0x8001", &pkey) && pkey == 0x8001);
	cr_assert(ibsriov_pkey_parse("0x7fff", &pkey) && pkey == 0x7fff);
	cr_assert(ibsriov_pkey_parse("0xffff", &pkey) && pkey == 0xffff, "the default partition");
	cr_assert(ibsriov_pkey_parse("32769", &pkey) && pkey == 0x8001);
	cr_assert_not(ibsriov_pkey_parse("0x0000", &pkey));
	cr_assert_not(ibsriov_pkey_parse("0x8000", &pkey));
	cr_assert_not(ibsriov_pkey_parse("0x10000", &pkey));
	cr_assert_not(ibsriov_pkey_parse("-1", &pkey));
	cr_assert_not(ibsriov_pkey_parse("pkey", &pkey));
}
