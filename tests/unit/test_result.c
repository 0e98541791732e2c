// SPDX-License-Identifier: Apache-2.0
/* Results: exact JSON for every version and the whole conversion matrix. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <sys/socket.h>

#pragma GCC diagnostic ignored "-Wformat-nonliteral"

#include "base/cleanup.h"
#include "helpers.h"
#include "base/json.h"
#include "protocol/result.h"

#define DNS                                                                                        \
	"\"dns\":{\"nameservers\":[\"10.1.2.53\"],\"domain\":\"example.com\","                     \
	"\"search\":[\"example.com\"],\"options\":[\"ndots:2\"]}"

/* What each family of versions can carry, printed in each family's form.
 * Index [content][form]: content 0 = 1.x, 1 = 0.3/0.4, 2 = 0.1/0.2. */
static const char *const forms[3][3] = {
    {
	"{\"cniVersion\":\"%s\",\"interfaces\":[{\"name\":\"eth0\",\"mac\":\"02:00:00:00:00:01\","
	"\"mtu\":1500,\"sandbox\":\"/var/run/netns/p\",\"socketPath\":\"/run/vhu.sock\","
	"\"pciID\":\"0000:03:00.2\"}],"
	"\"ips\":[{\"interface\":0,\"address\":\"10.1.2.5/24\",\"gateway\":\"10.1.2.1\"},"
	"{\"interface\":0,\"address\":\"2001:db8::5/64\",\"gateway\":\"2001:db8::1\"}],"
	"\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.2.1\",\"mtu\":9000,\"advmss\":8960,"
	"\"priority\":10,\"table\":100,\"scope\":0},"
	"{\"dst\":\"2001:db8:1::/48\"}]," DNS "}",
	"{\"cniVersion\":\"%s\",\"interfaces\":[{\"name\":\"eth0\",\"mac\":\"02:00:00:00:00:01\","
	"\"sandbox\":\"/var/run/netns/p\"}],"
	"\"ips\":[{\"version\":\"4\",\"interface\":0,\"address\":\"10.1.2.5/"
	"24\",\"gateway\":\"10.1.2.1\"},"
	"{\"version\":\"6\",\"interface\":0,\"address\":\"2001:db8::5/"
	"64\",\"gateway\":\"2001:db8::1\"}],"
	"\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.2.1\"},{\"dst\":\"2001:db8:1::/"
	"48\"}]," DNS "}",
	"{\"cniVersion\":\"%s\",\"ip4\":{\"ip\":\"10.1.2.5/24\",\"gateway\":\"10.1.2.1\","
	"\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.2.1\"}]},"
	"\"ip6\":{\"ip\":\"2001:db8::5/64\",\"gateway\":\"2001:db8::1\","
	"\"routes\":[{\"dst\":\"2001:db8:1::/48\"}]}," DNS "}",
    },
    {
	"{\"cniVersion\":\"%s\",\"interfaces\":[{\"name\":\"eth0\",\"mac\":\"02:00:00:00:00:01\","
	"\"sandbox\":\"/var/run/netns/p\"}],"
	"\"ips\":[{\"interface\":0,\"address\":\"10.1.2.5/24\",\"gateway\":\"10.1.2.1\"},"
	"{\"interface\":0,\"address\":\"2001:db8::5/64\",\"gateway\":\"2001:db8::1\"}],"
	"\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.2.1\"},{\"dst\":\"2001:db8:1::/"
	"48\"}]," DNS "}",
	NULL,
	NULL,
    },
    {
	"{\"cniVersion\":\"%s\",\"ips\":[{\"address\":\"10.1.2.5/24\",\"gateway\":\"10.1.2.1\"},"
	"{\"address\":\"2001:db8::5/64\",\"gateway\":\"2001:db8::1\"}],"
	"\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.2.1\"},{\"dst\":\"2001:db8:1::/"
	"48\"}]," DNS "}",
	"{\"cniVersion\":\"%s\",\"ips\":[{\"version\":\"4\",\"address\":\"10.1.2.5/"
	"24\",\"gateway\":\"10.1.2.1\"},"
	"{\"version\":\"6\",\"address\":\"2001:db8::5/64\",\"gateway\":\"2001:db8::1\"}],"
	"\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.2.1\"},{\"dst\":\"2001:db8:1::/"
	"48\"}]," DNS "}",
	NULL,
    },
};

static int family_of(enum cni_version v)
{
	return v >= CNI_V100 ? 0 : v >= CNI_V030 ? 1 : 2;
}

/* The expected text of content c (what a source family carries) printed in
 * form f; a poorer source loses what its own form cannot hold. */
static void expected(int c, enum cni_version v, char *buf, size_t len)
{
	static const int pick[3][3][2] = {
	    {{0, 0}, {0, 1}, {0, 2}},
	    {{1, 0}, {0, 1}, {0, 2}},
	    {{2, 0}, {2, 1}, {0, 2}},
	};
	int f = family_of(v);

	snprintf(buf, len, forms[pick[c][f][0]][pick[c][f][1]], cni_version_str(v));
}

static struct json_object *parse(const char *s)
{
	const char *why;
	struct json_object *o = cni_json_parse(s, strlen(s), &why);

	cr_assert_not_null(o, "%s: %s", s, why);
	return o;
}

static char *encode(const struct cni_result *r, enum cni_version v)
{
	struct cni_error err = {0};
	_cleanup_json_ struct json_object *o = NULL;

	cr_assert_eq(cni_result_to_json(r, v, &o, &err), 0, "%s", err.msg);
	return cni_json_dump(o, false);
}

struct pair {
	int from, to;
};

ParameterizedTestParameters(result, conversion_matrix)
{
	static struct pair pairs[CNI_VERSION_COUNT * CNI_VERSION_COUNT];

	for (int i = 0; i < CNI_VERSION_COUNT; i++)
		for (int j = 0; j < CNI_VERSION_COUNT; j++)
			pairs[i * CNI_VERSION_COUNT + j] = (struct pair){i, j};
	return cr_make_param_array(struct pair, pairs, sizeof(pairs) / sizeof(pairs[0]));
}

ParameterizedTest(struct pair *p, result, conversion_matrix)
{
	char in[2048], want[2048];
	struct cni_error err = {0};
	struct cni_result *r;
	_cleanup_json_ struct json_object *o = NULL;
	_cleanup_free_ char *got = NULL;
	int content = family_of((enum cni_version)p->from);

	expected(content, (enum cni_version)p->from, in, sizeof(in));
	o = parse(in);
	cr_assert_eq(cni_result_from_json(o, CNI_V010, &r, &err), 0, "%s: %s", err.msg,
		     err.details);
	got = encode(r, (enum cni_version)p->to);
	expected(content, (enum cni_version)p->to, want, sizeof(want));
	cr_assert_str_eq(got, want, "%s -> %s", cni_version_str((enum cni_version)p->from),
			 cni_version_str((enum cni_version)p->to));
	cni_result_free(r);
}

Test(result, legacy_needs_an_address)
{
	struct cni_result *r = cni_result_new();
	struct cni_error err = {0};
	struct json_object *o;
	struct cni_iface *i = cni_result_add_iface(r);

	i->name = strdup("eth0");
	cr_assert_lt(cni_result_to_json(r, CNI_V020, &o, &err), 0);
	assert_cni_error(&err, 1, "cannot convert: no valid IP addresses");
	cni_result_free(r);
}

Test(result, ipam_result_has_no_interfaces_and_empty_dns)
{
	struct cni_result *r = cni_result_new();
	struct cni_ip *ip = cni_result_add_ip(r);
	_cleanup_free_ char *s = NULL;

	cr_assert(cni_prefix_parse("10.22.0.2/29", &ip->address));
	cr_assert(cni_addr_parse("10.22.0.1", &ip->gateway));
	s = encode(r, CNI_V100);
	cr_assert_str_eq(s, "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.22.0.2/29\","
			    "\"gateway\":\"10.22.0.1\"}],\"dns\":{}}");
	free(s);
	s = encode(r, CNI_V031);
	cr_assert_str_eq(s, "{\"cniVersion\":\"0.3.1\",\"ips\":[{\"version\":\"4\",\"address\":"
			    "\"10.22.0.2/29\",\"gateway\":\"10.22.0.1\"}],\"dns\":{}}");
	free(s);
	s = encode(r, CNI_V010);
	cr_assert_str_eq(s, "{\"cniVersion\":\"0.1.0\",\"ip4\":{\"ip\":\"10.22.0.2/29\","
			    "\"gateway\":\"10.22.0.1\"},\"dns\":{}}");
	cni_result_free(r);
}

Test(result, addresses_print_as_go_does)
{
	struct cni_prefix p;
	struct cni_addr a;
	char buf[64];

	cr_assert(cni_prefix_parse("2001:0db8:0000::0005/64", &p));
	cr_assert_str_eq(cni_prefix_str(&p, buf, sizeof(buf)), "2001:db8::5/64");
	cr_assert(cni_prefix_parse("::ffff:10.1.2.3/120", &p));
	cr_assert_eq(p.family, AF_INET);
	cr_assert_str_eq(cni_prefix_str(&p, buf, sizeof(buf)), "10.1.2.3/24");
	cr_assert_not(cni_prefix_parse("10.1.2.3/33", &p));
	cr_assert_not(cni_prefix_parse("10.1.2.3/+1", &p));
	cr_assert_not(cni_prefix_parse("10.1.2.3", &p));
	cr_assert(cni_addr_parse("fd00::1", &a));
	cr_assert_str_eq(cni_addr_str(&a, buf, sizeof(buf)), "fd00::1");
}

Test(result, decode_errors_name_the_field)
{
	static const char *const bad[][2] = {
	    {"{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"x\"}]}", "ips[].address: x"},
	    {"{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.1/8\",\"interface\":3}]}",
	     "ips[].interface: indexes past the interfaces list"},
	    {"{\"cniVersion\":\"0.4.0\",\"ips\":[{\"version\":\"5\",\"address\":\"10.0.0.1/8\"}]}",
	     "ips[].version: 5"},
	    {"{\"cniVersion\":\"1.0.0\",\"routes\":[{\"gw\":\"10.0.0.1\"}]}",
	     "routes[].dst: missing or not a string"},
	    {"{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"fd00::1/64\"}}",
	     "ip4: holds an address of the other family"},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		_cleanup_json_ struct json_object *o = parse(bad[i][0]);
		struct cni_error err = {0};
		struct cni_result *r;

		cr_assert_lt(cni_result_from_json(o, CNI_V100, &r, &err), 0, "%s", bad[i][0]);
		assert_cni_error(&err, 6, "failed to decode result");
		cr_assert_str_eq(err.details, bad[i][1]);
	}
}

Test(result, dup_is_deep)
{
	_cleanup_json_ struct json_object *o = NULL;
	struct cni_error err = {0};
	struct cni_result *r, *d;
	char in[2048];
	_cleanup_free_ char *a = NULL;
	_cleanup_free_ char *b = NULL;

	expected(0, CNI_V110, in, sizeof(in));
	o = parse(in);
	cr_assert_eq(cni_result_from_json(o, CNI_V110, &r, &err), 0);
	d = cni_result_dup(r);
	a = encode(r, CNI_V110);
	cni_result_free(r);
	b = encode(d, CNI_V110);
	cr_assert_str_eq(a, b);
	cni_result_free(d);
}

Test(result, route_fields_range_checked)
{
	static const char *const bad[][2] = {
	    {"\"scope\":256", "\"routes[1].scope\" is 256; it must be from 0 to 255"},
	    {"\"table\":-1", "\"routes[1].table\" is -1; it must be from 0 to 2147483647"},
	    {"\"table\":4294967295",
	     "\"routes[1].table\" is 4294967295; it must be from 0 to 2147483647"},
	    {"\"mtu\":-1", "\"routes[1].mtu\" is -1; it must be from 0 to 65535"},
	    {"\"mtu\":65536", "\"routes[1].mtu\" is 65536; it must be from 0 to 65535"},
	    {"\"advmss\":-40", "\"routes[1].advmss\" is -40; it must be from 0 to 65535"},
	    {"\"priority\":-1", "\"routes[1].priority\" is -1; it must be from 0 to 2147483647"},
	};
	char in[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		_cleanup_json_ struct json_object *o = NULL;
		struct cni_error err = {0};
		struct cni_result *r;

		snprintf(in, sizeof(in),
			 "{\"cniVersion\":\"1.1.0\",\"routes\":[{\"dst\":\"10.0.0.0/8\"},"
			 "{\"dst\":\"0.0.0.0/0\",%s}]}",
			 bad[i][0]);
		o = parse(in);
		cr_assert_lt(cni_result_from_json(o, CNI_V110, &r, &err), 0, "%s", in);
		assert_cni_error(&err, 7, "invalid configuration");
		cr_assert_str_eq(err.details, bad[i][1]);
	}
}

Test(result, route_field_edges_accepted)
{
	_cleanup_json_ struct json_object *o =
	    parse("{\"cniVersion\":\"1.1.0\",\"routes\":[{\"dst\":\"0.0.0.0/0\",\"scope\":255,"
		  "\"table\":2147483647,\"mtu\":65535,\"advmss\":0,\"priority\":2147483647}]}");
	struct cni_error err = {0};
	struct cni_result *r;

	cr_assert_eq(cni_result_from_json(o, CNI_V110, &r, &err), 0, "%s", err.details);
	cr_assert_eq(r->routes[0].scope, 255);
	cr_assert_eq(r->routes[0].table, 2147483647);
	cr_assert_eq(r->routes[0].mtu, 65535);
	cni_result_free(r);
}

Test(result, escaped_nul_in_a_result_string)
{
	_cleanup_json_ struct json_object *o =
	    parse("{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"eth0\\u0000x\"}]}");
	struct cni_error err = {0};
	struct cni_result *r;

	cr_assert_lt(cni_result_from_json(o, CNI_V100, &r, &err), 0);
	assert_cni_error(&err, 7, "invalid configuration");
	cr_assert_str_eq(err.details, "\"name\" contains a NUL character (\\u0000)");
}
