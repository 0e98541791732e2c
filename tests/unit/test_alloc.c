// SPDX-License-Identifier: Apache-2.0
/* The allocator and the store: host-local's allocator_test.go scenarios on a
 * real temporary store, plus crash leftovers, legacy files and modes. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "cleanup.h"
#include "helpers.h"
#include "store.h"
#include "util.h"

static char data[64];
static struct ipam_store st;

static void setup(void)
{
	struct cni_error err = { 0 };

	make_tmpdir(data, sizeof(data));
	cr_assert_eq(ipam_store_open(&st, data, "net", &err), 0, "%s", err.details);
}

static void teardown(void)
{
	ipam_store_close(&st);
	rm_tree(data);
}

TestSuite(alloc, .init = setup, .fini = teardown);

static struct cni_addr ip(const char *s)
{
	struct cni_addr a;

	cr_assert(cni_addr_parse(s, &a), "%s", s);
	return a;
}

/* A set from "subnet[,subnet...]" with default bounds. */
static struct ipam_rangeset set_of(const char *subnets)
{
	static struct ipam_range r[4];
	char buf[256], why[256], *save = NULL;
	size_t n = 0;

	snprintf(buf, sizeof(buf), "%s", subnets);
	for (char *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save))
		cr_assert_eq(ipam_range_parse(&r[n++], s, NULL, NULL, NULL, why, sizeof(why)), 0,
			     "%s", why);
	return (struct ipam_rangeset){ r, n };
}

static void write_file(const char *name, const char *content)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/net/%s", data, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
}

static char *alloc_str(const struct ipam_rangeset *s, const char *id, const char *want,
		       struct cni_error *err)
{
	static char out[64];
	struct cni_ip got;
	struct cni_addr w;

	if (want)
		w = ip(want);
	memset(err, 0, sizeof(*err));
	if (ipam_alloc(&st, s, 0, id, "eth0", want ? &w : NULL, &got, err))
		return NULL;
	cni_prefix_str(&got.address, out, sizeof(out));
	return out;
}

struct rr_case {
	char subnets[96];
	char last[48];
	char taken[96];
	char want[48];
};

ParameterizedTestParameters(alloc, round_robin_table)
{
	static struct rr_case cases[] = {
		{ "192.168.1.0/29", "", "", "192.168.1.2/29" },
		{ "2001:db8:1::/64", "", "", "2001:db8:1::2/64" },
		{ "10.0.0.0/30", "", "", "10.0.0.2/30" },
		{ "10.0.0.0/29", "", "10.0.0.2", "10.0.0.3/29" },
		{ "10.0.0.0/29", "10.0.0.5", "", "10.0.0.6/29" },
		{ "10.0.0.0/29", "10.0.0.3", "10.0.0.4,10.0.0.5", "10.0.0.6/29" },
		{ "10.0.0.0/29", "10.0.0.5", "10.0.0.6", "10.0.0.2/29" },
		{ "10.0.0.0/29", "10.0.0.128", "10.0.0.2", "10.0.0.3/29" },
		{ "10.0.0.0/29", "10.0.0.3", "10.0.0.2,10.0.0.4,10.0.0.5,10.0.0.6", "10.0.0.3/29" },
		{ "10.0.0.0/30,10.0.1.0/30", "", "", "10.0.0.2/30" },
		{ "10.0.0.0/30,10.0.1.0/30", "10.0.0.2", "", "10.0.1.2/30" },
		{ "10.0.0.0/30,10.0.1.0/30,10.0.2.0/30", "10.0.2.2", "", "10.0.0.2/30" },
	};

	return cr_make_param_array(struct rr_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct rr_case *c, alloc, round_robin_table, .init = setup, .fini = teardown)
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
	assert_cni_error(&err, 110, "no IP addresses available in range set: 192.168.1.1-192.168.1.6");
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
			 "requested IP address 192.168.1.5 is not available in range set 192.168.1.1-192.168.1.6");
	cr_assert_null(alloc_str(&s, "b", "192.168.1.7", &err));
	assert_cni_error(&err, 7, "192.168.1.7 not in range set 192.168.1.1-192.168.1.6");
	cr_assert_null(alloc_str(&s, "b", "192.168.1.1", &err));
	assert_cni_error(&err, 7, "requested ip 192.168.1.1 is subnet's gateway");
}

Test(alloc, explicit_bounds_never_lease_network_or_broadcast)
{
	static struct ipam_range r[2];
	struct ipam_rangeset s = { r, 2 };
	struct cni_error err;
	char why[256];

	cr_assert_eq(ipam_range_parse(&r[0], "192.168.1.0/24", "192.168.1.0", "192.168.1.255",
				      NULL, why, sizeof(why)), 0);
	cr_assert_eq(ipam_range_parse(&r[1], "192.168.2.0/24", "192.168.2.0", NULL, NULL, why,
				      sizeof(why)), 0);
	write_file("last_reserved_ip.0", "192.168.1.254");
	/* host-local would hand out .255, then 192.168.2.0. */
	cr_assert_str_eq(alloc_str(&s, "a", NULL, &err), "192.168.2.2/24");
	cr_assert_null(alloc_str(&s, "b", "192.168.1.255", &err));
	assert_cni_error(&err, 7, "requested ip 192.168.1.255 is the network or broadcast address");
}

static mode_t mode_of(const char *name)
{
	char path[256];
	struct stat st_;

	snprintf(path, sizeof(path), "%s/net/%s", data, name);
	cr_assert_eq(lstat(path, &st_), 0, "%s", path);
	return st_.st_mode & 07777;
}

Test(alloc, store_bytes_and_modes)
{
	struct ipam_rangeset s = set_of("10.1.2.0/24");
	_cleanup_free_ char *lease = NULL;
	_cleanup_free_ char *last = NULL;
	struct cni_error err;
	char path[256];

	umask(0);
	cr_assert_str_eq(alloc_str(&s, "dummy", NULL, &err), "10.1.2.2/24");
	snprintf(path, sizeof(path), "%s/net/10.1.2.2", data);
	cr_assert_eq(read_file(path, 64, &lease, NULL), 0);
	cr_assert_str_eq(lease, "dummy\r\neth0");
	snprintf(path, sizeof(path), "%s/net/last_reserved_ip.0", data);
	cr_assert_eq(read_file(path, 64, &last, NULL), 0);
	cr_assert_str_eq(last, "10.1.2.2");
	cr_assert_eq(mode_of("10.1.2.2"), 0600);
	cr_assert_eq(mode_of("last_reserved_ip.0"), 0600);
	cr_assert_eq(mode_of("lock"), 0600);
	cr_assert_eq(mode_of("."), 0700);
}

Test(alloc, legacy_files_and_pointer_are_not_owners)
{
	struct cni_addr *ips;
	size_t n;
	bool legacy;

	struct cni_error err = { 0 };

	/* Files written behind the index's back (by host-local, which takes the
	 * same lock): the next open rebuilds the index. */
	ipam_store_close(&st);
	write_file("10.1.2.7", "legacy-ctr\n");
	write_file("10.1.2.8", "mix\r\neth0");
	write_file("10.1.2.9", "mix");
	write_file("last_reserved_ip.0", "10.1.2.102");
	write_file("README", "hello");

	cr_assert_eq(ipam_store_open(&st, data, "net", &err), 0);
	cr_assert(st.rebuilt);
	cr_assert_eq(ipam_store_owned(&st, "legacy-ctr", "eth0", &ips, &n, &legacy), 0);
	cr_assert(n == 1 && legacy);
	free(ips);
	cr_assert_eq(ipam_store_owned(&st, "mix", "eth0", &ips, &n, &legacy), 0);
	cr_assert(n == 1 && !legacy, "exact match first");
	cr_assert_eq(ips[0].a[3], 8);
	free(ips);
	cr_assert_eq(ipam_store_owned(&st, "10.1.2.102", "eth0", &ips, &n, &legacy), 0);
	cr_assert_eq(n, 0, "last_reserved_ip.* never matches a container ID");
	free(ips);
	cr_assert_eq(ipam_store_owned(&st, "hello", "eth0", &ips, &n, &legacy), 0);
	cr_assert_eq(n, 0, "files not named as an IP never match");
	free(ips);
}

Test(alloc, crash_leftovers)
{
	struct ipam_lease *leases;
	struct cni_addr *ips;
	size_t n;
	bool legacy;
	char path[256];
	int fd;

	/* An empty lease (a host-local crash between create and write) and a
	 * stray temporary file of ours. */
	struct cni_error err = { 0 };

	ipam_store_close(&st);
	write_file("10.1.2.3", "");
	snprintf(path, sizeof(path), "%s/.ib-host-local/net/tmp/.abc123", data);
	fd = open(path, O_WRONLY | O_CREAT, 0600);
	cr_assert(fd >= 0);
	close(fd);

	cr_assert_eq(ipam_store_open(&st, data, "net", &err), 0);
	cr_assert_eq(access(path, F_OK), -1, "temporary files are swept on rebuild");
	cr_assert_eq(ipam_store_list(&st, &leases, &n), 0);
	cr_assert_eq(n, 1);
	cr_assert_null(leases[0].id, "an empty file has no owner");
	ipam_leases_free(leases, n);
	cr_assert_eq(ipam_store_owned(&st, "", "eth0", &ips, &n, &legacy), 0);
	cr_assert_eq(n, 0);
	free(ips);
	/* The address stays taken: nobody can lease over it. */
	struct cni_addr a = ip("10.1.2.3");

	cr_assert_eq(ipam_store_reserve(&st, &a, "x", "eth0", 0), -EEXIST);
}

Test(alloc, index_follows_reserve_and_release)
{
	struct cni_addr a = ip("10.1.2.20"), b = ip("fd00::20"), *ips;
	size_t n;
	bool legacy;

	cr_assert_eq(ipam_store_reserve(&st, &a, "ctr", "net1", 0), 0);
	cr_assert_eq(ipam_store_reserve(&st, &b, "ctr", "net1", 1), 0);
	cr_assert_eq(ipam_store_owned(&st, "ctr", "net1", &ips, &n, &legacy), 0);
	cr_assert_eq(n, 2);
	free(ips);
	cr_assert_eq(ipam_store_release(&st, &a), 0);
	cr_assert_eq(ipam_store_owned(&st, "ctr", "net1", &ips, &n, &legacy), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(ips[0].family, AF_INET6);
	free(ips);
	cr_assert_eq(ipam_store_release(&st, &a), 0, "twice is fine");
}
