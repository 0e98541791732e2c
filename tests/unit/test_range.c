// SPDX-License-Identifier: Apache-2.0
/* Range math: host-local's range_test.go and range_set_test.go scenarios. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <arpa/inet.h>

#include "helpers.h"
#include "range.h"

struct range_case {
	char subnet[48], start[48], end[48], gw[48];
	char want_start[48], want_end[48], want_gw[48];
	char error[160];
};

ParameterizedTestParameters(range, parse)
{
	static struct range_case cases[] = {
	    {"192.0.2.0/24", "", "", "", "192.0.2.1", "192.0.2.254", "192.0.2.1", ""},
	    {"192.0.2.0/25", "", "", "", "192.0.2.1", "192.0.2.126", "192.0.2.1", ""},
	    {"10.1.2.0/30", "", "", "", "10.1.2.1", "10.1.2.2", "10.1.2.1", ""},
	    {"2001:db8:1::/64", "", "", "", "2001:db8:1::1", "2001:db8:1:0:ffff:ffff:ffff:ffff",
	     "2001:db8:1::1", ""},
	    {"2001:db8:1::/126", "", "", "", "2001:db8:1::1", "2001:db8:1::3", "2001:db8:1::1", ""},
	    {"10.1.2.0/24", "10.1.2.40", "10.1.2.50", "10.1.2.254", "10.1.2.40", "10.1.2.50",
	     "10.1.2.254", ""},
	    {"0.0.0.0/24", "", "", "", "0.0.0.1", "0.0.0.254", "0.0.0.1", ""},
	    {"255.255.255.0/24", "", "", "", "255.255.255.1", "255.255.255.254", "255.255.255.1",
	     ""},
	    {"10.1.2.0/31", "", "", "", "", "", "",
	     "Network 10.1.2.0/31 too small to allocate from"},
	    {"10.1.2.1/32", "", "", "", "", "", "",
	     "Network 10.1.2.1/32 too small to allocate from"},
	    {"2001:db8::/127", "", "", "", "", "", "",
	     "Network 2001:db8::/127 too small to allocate from"},
	    {"10.1.2.1/24", "", "", "", "", "", "",
	     "Network has host bits set. For a subnet mask of length 24 the network address is "
	     "10.1.2.0"},
	    {"10.1.3.1/23", "", "", "", "", "", "",
	     "Network has host bits set. For a subnet mask of length 23 the network address is "
	     "10.1.2.0"},
	    {"2001:db8:1::1/64", "", "", "", "", "", "",
	     "Network has host bits set. For a subnet mask of length 64 the network address is "
	     "2001:db8:1::"},
	    {"2001:db8:1:1::/63", "", "", "", "", "", "",
	     "Network has host bits set. For a subnet mask of length 63 the network address is "
	     "2001:db8:1::"},
	    {"10.1.2.0/24", "10.1.3.1", "", "", "", "", "",
	     "RangeStart 10.1.3.1 not in network 10.1.2.0/24"},
	    {"10.1.2.0/24", "", "10.1.4.5", "", "", "", "",
	     "RangeEnd 10.1.4.5 not in network 10.1.2.0/24"},
	    {"10.1.2.0/24", "10.1.2.50", "10.1.2.40", "", "", "", "",
	     "rangeStart 10.1.2.50 is after rangeEnd 10.1.2.40"},
	    /* host-local accepts these and misbehaves; they are config errors here. */
	    {"10.8.0.0/24", "", "", "192.0.2.1", "", "", "",
	     "gateway 192.0.2.1 not in network 10.8.0.0/24"},
	    {"255.255.255.0/24", "255.255.255.255", "", "255.255.255.255", "", "", "",
	     "rangeStart 255.255.255.255 is after rangeEnd 255.255.255.254"},
	    {"10.1.2.0/24", "10.1.2.255", "", "", "", "", "",
	     "rangeStart 10.1.2.255 is after rangeEnd 10.1.2.254"},
	    {"10.9.0.0/30", "10.9.0.0", "10.9.0.1", "", "", "", "",
	     "range 10.9.0.0-10.9.0.1 has no address that can be leased (network, broadcast and "
	     "gateway are never leased)"},
	    {"nonsense", "", "", "", "", "", "", "invalid CIDR address: nonsense"},
	};

	return cr_make_param_array(struct range_case, cases, sizeof(cases) / sizeof(cases[0]));
}

static const char *opt(const char *s)
{
	return *s ? s : NULL;
}

ParameterizedTest(struct range_case *c, range, parse)
{
	struct ipam_range r;
	char why[256] = "", a[64];
	const struct ipam_range_spec spec = {c->subnet, opt(c->start), opt(c->end), opt(c->gw)};
	int ret = ipam_range_parse(&r, &spec, why, sizeof(why));

	if (*c->error) {
		cr_assert_eq(ret, -EINVAL, "%s accepted", c->subnet);
		cr_assert_str_eq(why, c->error);
		return;
	}
	cr_assert_eq(ret, 0, "%s: %s", c->subnet, why);
	cr_assert_str_eq(cni_addr_str(&r.start, a, sizeof(a)), c->want_start);
	cr_assert_str_eq(cni_addr_str(&r.end, a, sizeof(a)), c->want_end);
	cr_assert_str_eq(cni_addr_str(&r.gateway, a, sizeof(a)), c->want_gw);
}

static struct ipam_range mk(const char *subnet, const char *start, const char *end)
{
	struct ipam_range r;
	char why[256];

	cr_assert_eq(ipam_range_parse(&r, &(struct ipam_range_spec){subnet, start, end, NULL}, why,
				      sizeof(why)),
		     0, "%s", why);
	return r;
}

static struct cni_addr ip(const char *s)
{
	struct cni_addr a;

	cr_assert(cni_addr_parse(s, &a), "%s", s);
	return a;
}

Test(range, containment)
{
	struct ipam_range r4 = mk("192.0.2.0/24", "192.0.2.40", "192.0.2.50");
	struct ipam_range r6 = mk("2001:db8:1::/64", NULL, NULL);
	struct cni_addr a;

	a = ip("192.0.2.40");
	cr_assert(ipam_range_contains(&r4, &a));
	a = ip("192.0.2.50");
	cr_assert(ipam_range_contains(&r4, &a));
	a = ip("192.0.2.39");
	cr_assert_not(ipam_range_contains(&r4, &a));
	a = ip("192.0.2.51");
	cr_assert_not(ipam_range_contains(&r4, &a));
	a = ip("2001:db8:1::40");
	cr_assert_not(ipam_range_contains(&r4, &a));
	cr_assert(ipam_range_contains(&r6, &a));
	a = ip("2001:db8:2::40");
	cr_assert_not(ipam_range_contains(&r6, &a));
}

Test(range, overlap_table)
{
	struct ipam_range a[2], b[2];
	struct ipam_rangeset sa = {a, 1}, sb = {b, 1};

	a[0] = mk("10.0.0.0/24", NULL, NULL);
	b[0] = mk("10.0.1.0/24", NULL, NULL);
	cr_assert_not(ipam_rangesets_overlap(&sa, &sb), "non-overlapping");
	b[0] = mk("2001:db8::/64", NULL, NULL);
	cr_assert_not(ipam_rangesets_overlap(&sa, &sb), "different families");
	b[0] = mk("10.0.0.0/24", NULL, NULL);
	cr_assert(ipam_rangesets_overlap(&sa, &sb), "identical");
	b[0] = mk("10.0.0.0/20", NULL, NULL);
	cr_assert(ipam_rangesets_overlap(&sa, &sb), "containing");
	a[0] = mk("10.0.0.0/24", "10.0.0.1", "10.0.0.127");
	b[0] = mk("10.0.0.0/24", "10.0.0.128", "10.0.0.254");
	cr_assert_not(ipam_rangesets_overlap(&sa, &sb), "same subnet split");
	b[0] = mk("10.0.0.0/24", "10.0.0.127", "10.0.0.254");
	cr_assert(ipam_rangesets_overlap(&sa, &sb), "overlapping split");
}

Test(range, set_membership_and_messages)
{
	struct ipam_range r[2];
	struct ipam_rangeset s = {r, 2};
	struct cni_addr a = ip("172.16.1.5");
	char buf[256], why[256];

	r[0] = mk("192.168.0.0/24", NULL, NULL);
	r[1] = mk("172.16.1.0/24", NULL, NULL);
	cr_assert_eq(ipam_rangeset_find(&s, &a), 1);
	a = ip("192.168.99.99");
	cr_assert_eq(ipam_rangeset_find(&s, &a), -1);
	cr_assert_str_eq(ipam_rangeset_str(&s, buf, sizeof(buf)),
			 "192.168.0.1-192.168.0.254,172.16.1.1-172.16.1.254");
	cr_assert_eq(ipam_rangeset_check(&s, why, sizeof(why)), 0);
	r[1] = mk("192.168.0.0/23", NULL, NULL);
	cr_assert_eq(ipam_rangeset_check(&s, why, sizeof(why)), -EINVAL);
	cr_assert_str_eq(why,
			 "subnets 192.168.0.1-192.168.0.254 and 192.168.0.1-192.168.1.254 overlap");
	r[1] = mk("2001:db8::/64", NULL, NULL);
	cr_assert_eq(ipam_rangeset_check(&s, why, sizeof(why)), -EINVAL);
	cr_assert_str_eq(why, "mixed address families");
}

Test(range, top_of_the_address_space_does_not_overflow)
{
	struct cni_addr top = ip("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), next;
	struct ipam_range r = mk("ffff:ffff:ffff:ffff::/64", NULL, NULL);

	cr_assert_not(ipam_addr_next(&top, &next));
	cr_assert(ipam_range_contains(&r, &top), "IPv6 all-ones is leasable");
	top = ip("255.255.255.255");
	cr_assert_not(ipam_addr_next(&top, &next));
	cr_assert_geq(ipam_range_size(&r), 1ULL << 63, "a /64 saturates, never wraps");
}

Test(range, sizes_exclude_gateway_network_broadcast)
{
	struct ipam_range r = mk("10.9.0.0/30", NULL, NULL);

	cr_assert_eq(ipam_range_size(&r), 1); /* .1 is the gateway: only .2 */
	r = mk("10.9.0.0/30", "10.9.0.0", "10.9.0.3");
	cr_assert_eq(ipam_range_size(&r), 1, "network and broadcast never count");
	r = mk("2001:db8::/126", NULL, NULL);
	cr_assert_eq(ipam_range_size(&r), 2);
	r = mk("10.0.0.0/16", NULL, NULL);
	cr_assert_eq(ipam_range_size(&r), 65533);
}

/* ipIndex's math: index places after the range's first address. */
Test(range, index_counts_from_the_first_address)
{
	struct ipam_range r = mk("10.1.2.0/24", NULL, NULL);
	struct cni_addr a;
	char buf[INET6_ADDRSTRLEN];

	cr_assert(ipam_range_at(&r, 0, &a));
	cr_assert_str_eq(cni_addr_str(&a, buf, sizeof(buf)), "10.1.2.1");
	cr_assert(ipam_range_at(&r, 253, &a));
	cr_assert_str_eq(cni_addr_str(&a, buf, sizeof(buf)), "10.1.2.254");
	cr_assert_not(ipam_range_at(&r, 254, &a), "past rangeEnd (the broadcast)");
	cr_assert_str_eq(cni_addr_str(&a, buf, sizeof(buf)), "10.1.2.1");

	r = mk("10.56.0.0/16", "10.56.3.250", "10.56.4.10");
	cr_assert(ipam_range_at(&r, 0, &a));
	cr_assert_str_eq(cni_addr_str(&a, buf, sizeof(buf)), "10.56.3.250");
	cr_assert(ipam_range_at(&r, 6, &a), "the carry into the next byte");
	cr_assert_str_eq(cni_addr_str(&a, buf, sizeof(buf)), "10.56.4.0");
	cr_assert(ipam_range_at(&r, 16, &a));
	cr_assert_str_eq(cni_addr_str(&a, buf, sizeof(buf)), "10.56.4.10");
	cr_assert_not(ipam_range_at(&r, 17, &a));
	cr_assert_not(ipam_range_at(&r, 4294967295ULL, &a));
	cr_assert_not(ipam_range_at(&r, ~0ULL, &a));
}

Test(range, index_in_ipv6_and_at_the_top)
{
	struct ipam_range r = mk("2001:db8::/64", "2001:db8::ff00", NULL);
	struct cni_addr a;
	char buf[INET6_ADDRSTRLEN];

	cr_assert(ipam_range_at(&r, 0x100, &a));
	cr_assert_str_eq(cni_addr_str(&a, buf, sizeof(buf)), "2001:db8::1:0");
	cr_assert(ipam_range_at(&r, ~0ULL - 0xff00, &a), "the /64's last address");
	cr_assert_str_eq(cni_addr_str(&a, buf, sizeof(buf)), "2001:db8::ffff:ffff:ffff:ffff");
	cr_assert_not(ipam_range_at(&r, ~0ULL - 0xfeff, &a), "the carry out of the /64");
	r = mk("2001:db8::/126", NULL, NULL);
	cr_assert(ipam_range_at(&r, 2, &a));
	cr_assert_str_eq(cni_addr_str(&a, buf, sizeof(buf)), "2001:db8::3");
	cr_assert_not(ipam_range_at(&r, 3, &a));
	/* The family's last address: an index past it wraps, which is refused. */
	r = mk("255.255.255.0/24", "255.255.255.250", "255.255.255.254");
	cr_assert(ipam_range_at(&r, 4, &a));
	cr_assert_not(ipam_range_at(&r, 6, &a));
	cr_assert_not(ipam_range_at(&r, 0x100000000ULL, &a));
}
