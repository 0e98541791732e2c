// SPDX-License-Identifier: Apache-2.0
/* The allocator (alloc.c): host-local's allocator_test.go scenarios on a
 * real temporary store, round robin, requested addresses, exhaustion. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "ipam_fixture.h"

TestSuite(alloc, .init = setup, .fini = teardown);

struct rr_case {
	char subnets[96];
	char last[48];
	char taken[96];
	char want[48];
};

ParameterizedTestParameters(alloc, round_robin_table)
{
	static struct rr_case cases[] = {
	    {"192.168.1.0/29", "", "", "192.168.1.2/29"},
	    {"2001:db8:1::/64", "", "", "2001:db8:1::2/64"},
	    {"10.0.0.0/30", "", "", "10.0.0.2/30"},
	    {"10.0.0.0/29", "", "10.0.0.2", "10.0.0.3/29"},
	    {"10.0.0.0/29", "10.0.0.5", "", "10.0.0.6/29"},
	    {"10.0.0.0/29", "10.0.0.3", "10.0.0.4,10.0.0.5", "10.0.0.6/29"},
	    {"10.0.0.0/29", "10.0.0.5", "10.0.0.6", "10.0.0.2/29"},
	    {"10.0.0.0/29", "10.0.0.128", "10.0.0.2", "10.0.0.3/29"},
	    {"10.0.0.0/29", "10.0.0.3", "10.0.0.2,10.0.0.4,10.0.0.5,10.0.0.6", "10.0.0.3/29"},
	    {"10.0.0.0/30,10.0.1.0/30", "", "", "10.0.0.2/30"},
	    {"10.0.0.0/30,10.0.1.0/30", "10.0.0.2", "", "10.0.1.2/30"},
	    {"10.0.0.0/30,10.0.1.0/30,10.0.2.0/30", "10.0.2.2", "", "10.0.0.2/30"},
	};

	return cr_make_param_array(struct rr_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct rr_case *c, alloc, round_robin_table)
{
	struct ipam_rangeset s = set_of(c->subnets);
	struct cni_error err;
	char buf[96], *save = NULL;
	const char *got;

	snprintf(buf, sizeof(buf), "%s", c->taken);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		struct cni_addr a = ip(t);

		cr_assert_eq(ipam_store_reserve(&st, &a, "other", "eth0", 9), 0);
	}
	if (*c->last)
		write_file("last_reserved_ip.0", c->last);
	got = alloc_str(&s, "ctr", NULL, &err);
	cr_assert_not_null(got, "%s", err.msg);
	cr_assert_str_eq(got, c->want, "%s last=%s taken=%s", c->subnets, c->last, c->taken);
}

Test(alloc, never_the_broadcast_then_exhausted)
{
	struct ipam_rangeset s = set_of("192.168.1.0/29");
	struct cni_error err;
	char id[16];

	for (int i = 2; i <= 6; i++) {
		char want[32];

		snprintf(id, sizeof(id), "c%d", i);
		snprintf(want, sizeof(want), "192.168.1.%d/29", i);
		cr_assert_str_eq(alloc_str(&s, id, NULL, &err), want);
	}
	cr_assert_null(alloc_str(&s, "c7", NULL, &err));
	assert_cni_error(&err, 110,
			 "no IP addresses available in range set: 192.168.1.1-192.168.1.6");
}

Test(alloc, released_address_is_not_reused_at_once)
{
	struct ipam_rangeset s = set_of("192.168.1.0/29");
	struct cni_error err;
	struct cni_addr a = ip("192.168.1.2");

	cr_assert_str_eq(alloc_str(&s, "a", NULL, &err), "192.168.1.2/29");
	cr_assert_eq(ipam_store_release(&st, &a), 0);
	cr_assert_str_eq(alloc_str(&s, "b", NULL, &err), "192.168.1.3/29");
}

Test(alloc, requested_addresses)
{
	struct ipam_rangeset s = set_of("192.168.1.0/29");
	struct cni_error err;

	cr_assert_str_eq(alloc_str(&s, "a", "192.168.1.5", &err), "192.168.1.5/29");
	cr_assert_null(alloc_str(&s, "b", "192.168.1.5", &err));
	assert_cni_error(&err, 111,
			 "requested IP address 192.168.1.5 is not available in range set "
			 "192.168.1.1-192.168.1.6");
	cr_assert_null(alloc_str(&s, "b", "192.168.1.7", &err));
	assert_cni_error(&err, 7, "192.168.1.7 not in range set 192.168.1.1-192.168.1.6");
	cr_assert_null(alloc_str(&s, "b", "192.168.1.1", &err));
	assert_cni_error(&err, 7, "requested ip 192.168.1.1 is subnet's gateway");
}

Test(alloc, explicit_bounds_never_lease_network_or_broadcast)
{
	static struct ipam_range r[2];
	struct ipam_rangeset s = {r, 2};
	struct cni_error err;
	char why[256];

	cr_assert_eq(ipam_range_parse(&r[0],
				      &(struct ipam_range_spec){"192.168.1.0/24", "192.168.1.0",
								"192.168.1.255", NULL},
				      why, sizeof(why)),
		     0);
	cr_assert_eq(
	    ipam_range_parse(&r[1],
			     &(struct ipam_range_spec){"192.168.2.0/24", "192.168.2.0", NULL, NULL},
			     why, sizeof(why)),
	    0);
	write_file("last_reserved_ip.0", "192.168.1.254");
	/* host-local would hand out .255, then 192.168.2.0. */
	cr_assert_str_eq(alloc_str(&s, "a", NULL, &err), "192.168.2.2/24");
	cr_assert_null(alloc_str(&s, "b", "192.168.1.255", &err));
	assert_cni_error(&err, 7, "requested ip 192.168.1.255 is the network or broadcast address");
}
