// SPDX-License-Identifier: Apache-2.0
/* The node's "ranges" (cni/protocol/nodeconf.c), ib-host-local's "ranges": "node"
 * (ipam/noderanges.c) and ipIndex's keys (ipam/ipindex.c). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "base/cleanup.h"
#include "conf.h"
#include "ipam.h"
#include "protocol/nodeconf.h"
#include "helpers.h"

static char dir[64];
static char path[128];

static void setup(void)
{
	make_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/ibcni.conf", dir);
	cni_nodeconf_ranges_checker(ipam_node_ranges_check);
}

static void teardown(void)
{
	cni_nodeconf_ranges_checker(NULL);
	rm_tree(dir);
}

TestSuite(noderanges, .init = setup, .fini = teardown);

static void put(const char *text)
{
	tree_put(dir, "ibcni.conf", text);
	cr_assert_eq(chmod(path, 0644), 0);
}

#define NODE_RANGES                                                                                \
	"{\"ranges\": {\"ib0\": [[{\"subnet\": \"10.56.0.0/16\", \"rangeStart\": "                 \
	"\"10.56.3.0\", \"rangeEnd\": \"10.56.3.255\"}], [{\"subnet\": \"fd00:56::/64\"}]], "      \
	"\"ib1\": [[{\"subnet\": \"10.57.3.0/24\"}]]}}"

Test(noderanges, each_network_has_its_sets)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};
	struct json_object *v;

	put(NODE_RANGES);
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	v = cni_nodeconf_ranges(&nc, "ib0");
	cr_assert(v && json_object_array_length(v) == 2);
	v = cni_nodeconf_ranges(&nc, "ib1");
	cr_assert(v && json_object_array_length(v) == 1);
	cr_assert_null(cni_nodeconf_ranges(&nc, "ib2"));
	cr_assert_null(cni_nodeconf_ranges(&nc, NULL));
	cr_assert_null(cni_nodeconf_ranges(cni_nodeconf_defaults(), "ib0"));
	cni_nodeconf_free(&nc);
	cr_assert_null(nc.ranges);
}

struct bad_case {
	char text[240];
	char want[200];
};

ParameterizedTestParameters(noderanges, bad_ranges)
{
	static struct bad_case cases[] = {
	    {"{\"ranges\": []}", "\"ranges\" must be an object of at most 64 networks"},
	    {"{\"ranges\": {\"n\": []}}", "\"ranges.n\" must be a list of 1 to 8 range sets"},
	    {"{\"ranges\": {\"n\": \"node\"}}", "\"ranges.n\" must be a list of 1 to 8"},
	    {"{\"ranges\": {\"n\": [{\"subnet\": \"10.0.0.0/24\"}]}}",
	     "\"ranges.n[0]\" must be a list of 1 to 16 ranges"},
	    {"{\"ranges\": {\"n\": [[]]}}", "\"ranges.n[0]\" must be a list of 1 to 16 ranges"},
	    {"{\"ranges\": {\"n\": [[\"10.0.0.0/24\"]]}}",
	     "\"ranges.n[0][0]\" must be an object {\"subnet\": ...}"},
	    {"{\"ranges\": {\"\": [[{\"subnet\": \"10.0.0.0/24\"}]]}}",
	     "\"ranges\" has a network name of 0 bytes"},
	    {"{\"ranges\": {\"n\": [[{\"subnet\": \"10.0.0.0/33\"}]]}}",
	     "\"ranges.n\": invalid range set 0: invalid CIDR address: 10.0.0.0/33 "
	     "(ranges.n[0][0])"},
	    {"{\"ranges\": {\"n\": [[{\"subnet\": \"10.0.0.0/24\", \"rangeStart\": "
	     "\"10.0.1.1\"}]]}}",
	     "\"ranges.n\": invalid range set 0: RangeStart 10.0.1.1 not in network"},
	    {"{\"ranges\": {\"n\": [[{\"subnet\": \"10.0.0.0/24\"}, {\"subnet\": "
	     "\"fd00::/64\"}]]}}",
	     "\"ranges.n\": invalid range set 0:"},
	    {"{\"ranges\": {\"n\": [[{\"subnet\": \"10.0.0.0/24\"}], [{\"subnet\": "
	     "\"10.0.0.0/25\"}]]}}",
	     "\"ranges.n\": range set 0 overlaps with 1 (range sets must not share addresses)"},
	    {"{\"ranges\": {\"n\": [[{\"subnet\": 5}]]}}", "\"ranges.n\":"},
	    {"{\"ranges\": {\"n\": {\"ranges\": [[{\"subnet\": \"10.0.0.0/24\"}]]}}}",
	     "\"ranges.n\" must have both \"namespaces\" and \"ranges\""},
	    {"{\"ranges\": {\"n\": {\"namespaces\": [\"a\"]}}}",
	     "\"ranges.n\" must have both \"namespaces\" and \"ranges\""},
	    {"{\"ranges\": {\"n\": {\"namespaces\": [\"a\"], \"sets\": []}}}",
	     "\"ranges.n\" has an unknown key \"sets\""},
	    {"{\"ranges\": {\"n\": {\"namespaces\": [], \"ranges\": [[{\"subnet\": "
	     "\"10.0.0.0/24\"}]]}}}",
	     "\"ranges.n.namespaces\" must be a list of 1 to 64 pod namespaces"},
	    {"{\"ranges\": {\"n\": {\"namespaces\": \"a\", \"ranges\": [[{\"subnet\": "
	     "\"10.0.0.0/24\"}]]}}}",
	     "\"ranges.n.namespaces\" must be a list"},
	    {"{\"ranges\": {\"n\": {\"namespaces\": [\"Team_A\"], \"ranges\": "
	     "[[{\"subnet\": \"10.0.0.0/24\"}]]}}}",
	     "\"ranges.n.namespaces[0]\" is \"Team_A\"; a namespace is a DNS label"},
	    {"{\"ranges\": {\"n\": {\"namespaces\": [\"a\", 5], \"ranges\": [[{\"subnet\": "
	     "\"10.0.0.0/24\"}]]}}}",
	     "\"ranges.n.namespaces[1]\" is 5"},
	    {"{\"ranges\": {\"n\": {\"namespaces\": [\"a\", \"a\"], \"ranges\": "
	     "[[{\"subnet\": \"10.0.0.0/24\"}]]}}}",
	     "\"ranges.n.namespaces\" names \"a\" twice"},
	    {"{\"ranges\": {\"n\": {\"namespaces\": [\"a\"], \"ranges\": []}}}",
	     "\"ranges.n\" must be a list of 1 to 8 range sets"},
	    {"{\"ranges\": {\"n\": {\"namespaces\": [\"a\"], \"ranges\": [[{\"subnet\": "
	     "\"10.0.0.0/33\"}]]}}}",
	     "\"ranges.n\": invalid range set 0: invalid CIDR address"},
	};
	return cr_make_param_array(struct bad_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_case *c, noderanges, bad_ranges)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};
	char prefix[160];

	put(c->text);
	cr_assert_lt(cni_nodeconf_load(&nc, path, &err), 0, "accepted: want %s", c->want);
	cr_assert_eq(err.code, 7);
	snprintf(prefix, sizeof(prefix), "%s: ", path);
	cr_assert_eq(strncmp(err.details, prefix, strlen(prefix)), 0, "%s", err.details);
	cr_assert(strstr(err.details, c->want), "details \"%s\", want \"%s\"", err.details,
		  c->want);
	cr_assert_null(nc.ranges, "a failed load leaves nothing to free");
}

Test(noderanges, counts_are_bounded)
{
	char text[8192] = "{\"ranges\": {";
	struct cni_nodeconf nc;
	struct cni_error err = {0};

	/* 9 range sets for one network, then 65 networks. */
	strcat(text, "\"n\": [");
	for (int i = 0; i < 9; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "%s[{\"subnet\": \"10.%d.0.0/24\"}]", i ? "," : "", i);
	strcat(text, "]}}");
	put(text);
	cr_assert_lt(cni_nodeconf_load(&nc, path, &err), 0);
	cr_assert(strstr(err.details, "\"ranges.n\" must be a list of 1 to 8 range sets"), "%s",
		  err.details);
	memset(&err, 0, sizeof(err));
	strcpy(text, "{\"ranges\": {");
	for (int i = 0; i < 65; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "%s\"n%d\": [[{\"subnet\": \"10.%d.0.0/24\"}]]", i ? "," : "", i, i);
	strcat(text, "}}");
	put(text);
	cr_assert_lt(cni_nodeconf_load(&nc, path, &err), 0);
	cr_assert(strstr(err.details, "at most 64 networks"), "%s", err.details);
}

Test(noderanges, without_a_checker_only_the_shape_is_checked)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};

	cni_nodeconf_ranges_checker(NULL);
	put("{\"ranges\": {\"n\": [[{\"subnet\": \"10.0.0.0/33\"}]]}}");
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cni_nodeconf_free(&nc);
}

/* The verb load() runs (ADD unless a test says otherwise). */
static enum cni_command load_cmd = CNI_CMD_ADD;

/* ipam_conf_load of an ADD (load_cmd) for network name with ipam keys, on node nc. */
static int load(const char *name, const char *ipam, const char *args, const char *cni_args,
		const struct cni_nodeconf *nc, struct ipam_conf *c, struct cni_ctx *ctx)
{
	struct cni_error err = {0};
	struct cni_conf *conf;
	char *raw;
	int ret;

	cr_assert(asprintf(&raw,
			   "{\"cniVersion\":\"1.0.0\",\"name\":\"%s\",\"type\":\"x\",%s"
			   "\"ipam\":{\"type\":\"ib-host-local\",%s}}",
			   name, args, ipam) > 0);
	cr_assert_eq(cni_conf_parse(raw, strlen(raw), CNI_CMD_ADD, &conf, &err), 0, "%s",
		     err.details);
	memset(ctx, 0, sizeof(*ctx));
	ctx->conf = ctx->own_conf = conf;
	ctx->node = nc;
	ctx->env.command = load_cmd;
	cr_assert_eq(cni_args_parse(cni_args, &ctx->args, &ctx->err), 0);
	ret = ipam_conf_load(ctx, load_cmd == CNI_CMD_DEL || load_cmd == CNI_CMD_GC, c);
	if (!ret)
		ret = ipam_index_load(ctx, c);
	return ret;
}

static void ctx_free(struct cni_ctx *ctx, struct ipam_conf *c)
{
	ipam_conf_free(c);
	cni_args_free(&ctx->args);
	cni_conf_free(ctx->own_conf);
}

static const char *set_str(const struct ipam_conf *c, size_t i)
{
	static char buf[256];

	return ipam_rangeset_str(&c->sets[i], buf, sizeof(buf));
}

Test(noderanges, node_takes_the_nodes_sets_for_the_network)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};
	struct ipam_conf c;
	struct cni_ctx ctx;

	put(NODE_RANGES);
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(load("ib0", "\"ranges\": \"node\"", "", "", &nc, &c, &ctx), 0, "%s: %s",
		     ctx.err.msg, ctx.err.details);
	cr_assert_eq(c.n_sets, 2);
	cr_assert_str_eq(set_str(&c, 0), "10.56.3.0-10.56.3.255");
	cr_assert_str_eq(set_str(&c, 1), "fd00:56::1-fd00:56::ffff:ffff:ffff:ffff");
	ctx_free(&ctx, &c);

	/* Inside the list: the node's sets where "node" stands, the NAD's after. */
	cr_assert_eq(load("ib1", "\"ranges\": [\"node\", [{\"subnet\": \"fd00:57::/64\"}]]", "", "",
			  &nc, &c, &ctx),
		     0, "%s: %s", ctx.err.msg, ctx.err.details);
	cr_assert_eq(c.n_sets, 2);
	cr_assert_str_eq(set_str(&c, 0), "10.57.3.1-10.57.3.254");
	cr_assert_str_eq(set_str(&c, 1), "fd00:57::1-fd00:57::ffff:ffff:ffff:ffff");
	ctx_free(&ctx, &c);

	/* Twice is refused; an overlap with the NAD's own set too. */
	cr_assert_lt(load("ib1", "\"ranges\": [\"node\", \"node\"]", "", "", &nc, &c, &ctx), 0);
	cr_assert_eq(ctx.err.code, 7);
	cr_assert(strstr(ctx.err.details, "ipam.ranges[1]: \"node\" may stand for one range set"),
		  "%s", ctx.err.details);
	ctx_free(&ctx, &c);
	cr_assert_lt(load("ib1", "\"ranges\": [\"node\", [{\"subnet\": \"10.57.0.0/16\"}]]", "", "",
			  &nc, &c, &ctx),
		     0);
	cr_assert_str_eq(ctx.err.msg, "range set 0 overlaps with 1");
	ctx_free(&ctx, &c);
	cni_nodeconf_free(&nc);
}

Test(noderanges, no_entry_names_node_network_file_and_fix)
{
	struct cni_nodeconf nc;
	struct cni_error err = {0};
	struct ipam_conf c;
	struct cni_ctx ctx;
	struct utsname u;
	char want[512];

	cr_assert_eq(uname(&u), 0);
	put(NODE_RANGES);
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_lt(load("ib9", "\"ranges\": \"node\"", "", "", &nc, &c, &ctx), 0);
	cr_assert_eq(ctx.err.code, 7);
	cr_assert_str_eq(ctx.err.msg, "no ranges for this node");
	snprintf(want, sizeof(want),
		 "ipam.ranges is \"node\" but node %s has no range sets for network \"ib9\" in "
		 "/etc/ibcni/ibcni.conf.d/ranges.conf or /etc/ibcni/ibcni.conf "
		 "(\"ranges\".\"ib9\"); add the network to the node's entry "
		 "(key %s) of the installer's ranges ConfigMap and rerun the installer "
		 "(--node-ranges-dir, --node-name)",
		 u.nodename, u.nodename);
	cr_assert_str_eq(ctx.err.details, want);
	ctx_free(&ctx, &c);
	/* No file at all (the defaults): the same. */
	cr_assert_lt(load("ib0", "\"ranges\": \"node\"", "", "", cni_nodeconf_defaults(), &c, &ctx),
		     0);
	cr_assert_str_eq(ctx.err.msg, "no ranges for this node");
	ctx_free(&ctx, &c);
	/* DEL goes by owner: the missing entry does not stop it. */
	cni_nodeconf_free(&nc);
}

Test(noderanges, ip_index_keys)
{
	struct ipam_conf c;
	struct cni_ctx ctx;
	const char *ranges = "\"ranges\": [[{\"subnet\": \"10.1.0.0/24\"}]]";

	cr_assert_eq(load("n", ranges, "", "", NULL, &c, &ctx), 0);
	cr_assert_not(c.has_index);
	ctx_free(&ctx, &c);
	cr_assert_eq(load("n", ranges, "", "IB_IP_INDEX=7", NULL, &c, &ctx), 0, "%s",
		     ctx.err.details);
	cr_assert(c.has_index && c.index == 7);
	cr_assert_str_eq(c.index_from, "CNI_ARGS IB_IP_INDEX");
	ctx_free(&ctx, &c);
	/* args.cni wins. */
	cr_assert_eq(load("n", ranges, "\"args\":{\"cni\":{\"ipIndex\":4294967295}},",
			  "IB_IP_INDEX=7", NULL, &c, &ctx),
		     0, "%s", ctx.err.details);
	cr_assert(c.has_index && c.index == 4294967295ULL);
	cr_assert_str_eq(c.index_from, "args.cni.ipIndex");
	ctx_free(&ctx, &c);

	static const struct {
		const char *args, *cni_args, *want;
	} bad[] = {
	    {"\"args\":{\"cni\":{\"ipIndex\":-1}},", "",
	     "args.cni.ipIndex is -1; it must be an integer from 0 to 4294967295"},
	    {"\"args\":{\"cni\":{\"ipIndex\":4294967296}},", "", "args.cni.ipIndex is 4294967296"},
	    {"\"args\":{\"cni\":{\"ipIndex\":\"3\"}},", "", "args.cni.ipIndex is \"3\""},
	    {"\"args\":{\"cni\":{\"ipIndex\":1.5}},", "", "args.cni.ipIndex is 1.5"},
	    {"", "IB_IP_INDEX=x", "CNI_ARGS IB_IP_INDEX is x"},
	    {"", "IB_IP_INDEX=-2", "CNI_ARGS IB_IP_INDEX is -2"},
	    {"", "IB_IP_INDEX=4294967296", "CNI_ARGS IB_IP_INDEX is 4294967296"},
	    {"", "IB_IP_INDEX=3;IP=10.1.0.9",
	     "CNI_ARGS IB_IP_INDEX and requested ips (IP=, args.cni.ips, runtimeConfig.ips) "
	     "cannot be combined"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		cr_assert_lt(load("n", ranges, bad[i].args, bad[i].cni_args, NULL, &c, &ctx), 0,
			     "%s", bad[i].want);
		cr_assert_eq(ctx.err.code, 7);
		cr_assert(strstr(ctx.err.details, bad[i].want), "\"%s\", want \"%s\"",
			  ctx.err.details, bad[i].want);
		ctx_free(&ctx, &c);
	}
}

#define NS_RANGES                                                                                  \
	"{\"ranges\": {\"ib0\": {\"namespaces\": [\"team-a\", \"team-b\"], \"ranges\": "           \
	"[[{\"subnet\": \"10.56.3.0/24\"}]]}, \"ib1\": [[{\"subnet\": \"10.57.3.0/24\"}]]}}"

/* An entry with "namespaces": only pods of those namespaces (K8S_POD_NAMESPACE of
 * CNI_ARGS) take its sets on ADD and CHECK; DEL and GC go by owner. */
Test(noderanges, namespaces_limit_who_takes_the_sets)
{
	static const enum cni_command any[] = {CNI_CMD_DEL, CNI_CMD_GC, CNI_CMD_STATUS};
	struct cni_nodeconf nc;
	struct cni_error err = {0};
	struct ipam_conf c;
	struct cni_ctx ctx;
	char want[640];

	put(NS_RANGES);
	cr_assert_eq(cni_nodeconf_load(&nc, path, &err), 0, "%s", err.details);
	cr_assert_eq(json_object_array_length(cni_nodeconf_ranges_namespaces(&nc, "ib0")), 2);
	cr_assert_null(cni_nodeconf_ranges_namespaces(&nc, "ib1"));
	cr_assert(cni_nodeconf_ranges_allow(&nc, "ib0", "team-b"));
	cr_assert_not(cni_nodeconf_ranges_allow(&nc, "ib0", "team-c"));
	cr_assert_not(cni_nodeconf_ranges_allow(&nc, "ib0", NULL));
	cr_assert(cni_nodeconf_ranges_allow(&nc, "ib1", NULL), "no list: every namespace");
	cr_assert_eq(
	    load("ib0", "\"ranges\": \"node\"", "", "K8S_POD_NAMESPACE=team-a", &nc, &c, &ctx), 0,
	    "%s: %s", ctx.err.msg, ctx.err.details);
	cr_assert_str_eq(set_str(&c, 0), "10.56.3.1-10.56.3.254");
	ctx_free(&ctx, &c);
	/* Another namespace: code 7 naming it, the network, the file and the fix. */
	cr_assert_lt(
	    load("ib0", "\"ranges\": \"node\"", "", "K8S_POD_NAMESPACE=team-c", &nc, &c, &ctx), 0);
	cr_assert_eq(ctx.err.code, 7);
	cr_assert_str_eq(ctx.err.msg, "namespace not allowed the node's ranges");
	snprintf(want, sizeof(want),
		 "pod namespace \"team-c\" may not use the node's ranges of network \"ib0\": "
		 "they are for namespaces team-a, team-b (\"ranges\".\"ib0\".\"namespaces\" in "
		 "%s); use a network of the namespace's own, or the node's admin adds \"team-c\" "
		 "to the list in the installer's ranges ConfigMap",
		 path);
	cr_assert_str_eq(ctx.err.details, want);
	cr_assert_eq(c.n_sets, 0);
	ctx_free(&ctx, &c);
	/* Only the first K8S_POD_NAMESPACE counts; the config's "args" cannot set it. */
	cr_assert_lt(load("ib0", "\"ranges\": \"node\"",
			  "\"args\":{\"cni\":{\"K8S_POD_NAMESPACE\":\"team-a\"}},",
			  "IgnoreUnknown=1;K8S_POD_NAMESPACE=team-c;K8S_POD_NAMESPACE=team-a", &nc,
			  &c, &ctx),
		     0);
	cr_assert_eq(ctx.err.code, 7);
	ctx_free(&ctx, &c);
	/* None, or not a namespace name: code 4. */
	cr_assert_lt(load("ib0", "\"ranges\": \"node\"", "", "", &nc, &c, &ctx), 0);
	cr_assert_eq(ctx.err.code, 4);
	cr_assert(strstr(ctx.err.details, "CNI_ARGS has no valid K8S_POD_NAMESPACE"), "%s",
		  ctx.err.details);
	ctx_free(&ctx, &c);
	cr_assert_lt(
	    load("ib0", "\"ranges\": \"node\"", "", "K8S_POD_NAMESPACE=Team-A", &nc, &c, &ctx), 0);
	cr_assert_eq(ctx.err.code, 4);
	ctx_free(&ctx, &c);
	/* An entry without the list: as before, whatever the namespace. */
	cr_assert_eq(
	    load("ib1", "\"ranges\": \"node\"", "", "K8S_POD_NAMESPACE=team-c", &nc, &c, &ctx), 0,
	    "%s", ctx.err.details);
	ctx_free(&ctx, &c);
	cr_assert_eq(load("ib1", "\"ranges\": \"node\"", "", "", &nc, &c, &ctx), 0);
	ctx_free(&ctx, &c);
	/* DEL, GC and STATUS take no address and name no pod. */
	for (size_t i = 0; i < sizeof(any) / sizeof(any[0]); i++) {
		load_cmd = any[i];
		cr_assert_eq(load("ib0", "\"ranges\": \"node\"", "", "", &nc, &c, &ctx), 0,
			     "verb %d: %s", (int)any[i], ctx.err.details);
		cr_assert_eq(c.n_sets, 1);
		ctx_free(&ctx, &c);
	}
	load_cmd = CNI_CMD_ADD;
	cni_nodeconf_free(&nc);
}
