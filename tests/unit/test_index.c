// SPDX-License-Identifier: Apache-2.0
/* The owner index (store_index.c): lookups by owner, legacy leases, the
 * token that says whether the index is current, and the lease files that
 * always win over it. */
#include <criterion/criterion.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

#include "base/cleanup.h"
#include "ipam_fixture.h"

TestSuite(index, .init = setup, .fini = teardown);

Test(index, legacy_files_and_pointer_are_not_owners)
{
	struct cni_addr *ips;
	size_t n;
	bool legacy;

	struct cni_error err = {0};

	/* Files written behind the index's back (by host-local, which takes the
	 * same lock): the next open rebuilds the index. */
	ipam_store_close(&st);
	write_file("10.1.2.7", "legacy-ctr\n");
	write_file("10.1.2.8", "mix\r\neth0");
	write_file("10.1.2.9", "mix");
	write_file("last_reserved_ip.0", "10.1.2.102");
	write_file("README", "hello");

	cr_assert_eq(ipam_store_open(&st, data, data, "net", true, &err), 0);
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

/* A store host-local made (no index) is read and released by scanning. */
Test(index, del_without_an_index_finds_owners_by_scanning)
{
	struct ipam_store s;
	struct cni_error err = {0};
	struct cni_addr *ips = NULL, a = ip("10.1.2.7");
	size_t n = 0;
	bool legacy;

	tree_mkdir(data, "hl");
	tree_put(data, "hl/lock", "");
	tree_put(data, "hl/10.1.2.7", "ctr\r\neth0");
	cr_assert_eq(ipam_store_open(&s, data, data, "hl", false, &err), 0, "%s", err.details);
	cr_assert_eq(ipam_store_owned(&s, "ctr", "eth0", &ips, &n, &legacy), 0);
	cr_assert_eq(n, 1);
	cr_assert_eq(memcmp(&ips[0], &a, sizeof(a)), 0);
	cr_assert_eq(ipam_store_release_owned(&s, "ctr", "eth0", ips, n), 0);
	ipam_store_close(&s);
	free(ips);
	cr_assert_not(exists("hl/10.1.2.7"));
	cr_assert_not(exists(".ib-host-local/hl"));
}

Test(index, an_owners_leases_released_at_once)
{
	struct cni_addr a = ip("10.1.2.2"), b = ip("10.1.2.3"), c = ip("10.1.2.4"), *ips = NULL;
	struct cni_error err = {0};
	size_t n;
	bool legacy;

	cr_assert_eq(ipam_store_reserve(&st, &a, "c1", "eth0", 0), 0);
	cr_assert_eq(ipam_store_reserve(&st, &b, "c1", "eth0", 1), 0);
	cr_assert_eq(ipam_store_reserve(&st, &c, "c2", "eth0", 0), 0);
	cr_assert(exists(".ib-host-local/net/owners/c1@65746830"));
	cr_assert_eq(ipam_store_owned(&st, "c1", "eth0", &ips, &n, &legacy), 0);
	cr_assert(n == 2 && !legacy);
	cr_assert_eq(ipam_store_release_owned(&st, "c1", "eth0", ips, n), 0);
	free(ips);
	cr_assert_not(exists("net/10.1.2.2"));
	cr_assert_not(exists("net/10.1.2.3"));
	cr_assert_not(exists(".ib-host-local/net/owners/c1@65746830"), "the owner's entry went");
	cr_assert(exists("net/10.1.2.4"), "another owner's lease stays");
	cr_assert(exists(".ib-host-local/net/owners/c2@65746830"));
	/* Released twice (a retried DEL): nothing left, no error. */
	cr_assert_eq(ipam_store_release_owned(&st, "c1", "eth0", &a, 1), 0);
	ipam_store_close(&st);
	cr_assert_eq(ipam_store_open(&st, data, data, "net", false, &err), 0);
	cr_assert_not(st.rebuilt, "sealed: the index agrees with the directory");
	cr_assert_eq(ipam_store_owned(&st, "c2", "eth0", &ips, &n, &legacy), 0);
	cr_assert(n == 1 && !ipam_addr_cmp(&ips[0], &c));
	free(ips);
	/* A legacy bare-ID lease, found and released as such. */
	write_file("10.1.2.5", "old");
	ipam_store_close(&st);
	cr_assert_eq(ipam_store_open(&st, data, data, "net", false, &err), 0);
	cr_assert_eq(ipam_store_owned(&st, "old", "eth0", &ips, &n, &legacy), 0);
	cr_assert(n == 1 && legacy);
	cr_assert_eq(ipam_store_release_owned(&st, "old", NULL, ips, n), 0);
	free(ips);
	cr_assert_not(exists("net/10.1.2.5"));
	cr_assert_not(exists(".ib-host-local/net/owners/old@"));
}

/* FS_IMMUTABLE_FL on the token; false where the filesystem has no such flag. */
static bool token_immutable(bool on)
{
	_cleanup_close_ int fd = open(path_in(".ib-host-local/net/token"), O_RDONLY | O_CLOEXEC);
	int flags = 0;

	if (fd < 0 || ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		return false;
	flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
	return ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
}

Test(index, a_token_that_cannot_be_written_is_still_read)
{
	struct cni_addr a = ip("10.1.2.2"), *ips = NULL;
	struct cni_error err = {0};
	size_t n;
	bool legacy;

	cr_assert_eq(ipam_store_reserve(&st, &a, "c1", "eth0", 0), 0);
	ipam_store_close(&st);
	if (!token_immutable(true))
		cr_skip_test("no immutable flag on this filesystem: the token is always writable");
	cr_assert_eq(ipam_store_open(&st, data, data, "net", false, &err), 0, "%s", err.details);
	cr_assert_not(st.rebuilt, "the token is read, not rewritten");
	cr_assert_eq(ipam_store_owned(&st, "c1", "eth0", &ips, &n, &legacy), 0);
	cr_assert(n == 1 && !ipam_addr_cmp(&ips[0], &a), "n %zu", n);
	free(ips);
	ipam_store_close(&st);
	cr_assert(token_immutable(false));
}

Test(index, the_token_is_rewritten_in_place_and_spoilt_while_changing)
{
	struct cni_addr a = ip("10.1.2.2"), b = ip("10.1.2.3");
	_cleanup_free_ char *tok = NULL;
	struct cni_error err = {0};
	struct stat st1, st2;
	int fd;

	cr_assert_eq(ipam_store_reserve(&st, &a, "c1", "eth0", 0), 0);
	ipam_store_close(&st);
	cr_assert_eq(stat(path_in(".ib-host-local/net/token"), &st1), 0);
	cr_assert_eq(ipam_store_open(&st, data, data, "net", true, &err), 0);
	cr_assert_not(st.rebuilt, "the sealed token matches");
	cr_assert_eq(ipam_store_reserve(&st, &b, "c2", "eth0", 0), 0);
	cr_assert_eq(read_file(path_in(".ib-host-local/net/token"), 256, &tok, NULL), 0);
	cr_assert_eq(tok[0], '!', "spoilt while the directory changes: %s", tok);
	ipam_store_close(&st);
	cr_assert_eq(stat(path_in(".ib-host-local/net/token"), &st2), 0);
	cr_assert_eq(st1.st_ino, st2.st_ino, "rewritten in place, no new file");
	cr_assert_eq(ipam_store_open(&st, data, data, "net", true, &err), 0);
	cr_assert_not(st.rebuilt, "resealed");
	ipam_store_close(&st);

	/* What a kill after the spoiling leaves: a temp lease, a spoilt token. */
	write_file(IPAM_LEASE_TMP, "c3\r\neth0");
	fd = open(path_in(".ib-host-local/net/token"), O_WRONLY);
	cr_assert_eq(pwrite(fd, "!", 1, 0), 1);
	close(fd);
	cr_assert_eq(ipam_store_open(&st, data, data, "net", true, &err), 0);
	cr_assert(st.rebuilt, "a spoilt token is no token");
	cr_assert_not(exists("net/" IPAM_LEASE_TMP), "swept with the rebuild");
	ipam_store_close(&st);

	/* A longer token than the next one: cut to length, so it matches. */
	fd = open(path_in(".ib-host-local/net/token"), O_WRONLY | O_APPEND);
	cr_assert_eq(write(fd, "                                        ", 40), 40);
	close(fd);
	cr_assert_eq(ipam_store_open(&st, data, data, "net", true, &err), 0);
	cr_assert(st.rebuilt);
	ipam_store_close(&st);
	free(tok);
	tok = NULL;
	cr_assert_eq(read_file(path_in(".ib-host-local/net/token"), 256, &tok, NULL), 0);
	cr_assert_eq(strchr(tok, '\n') - tok + 1, (long)strlen(tok), "no tail left: %s", tok);
	cr_assert_eq(ipam_store_open(&st, data, data, "net", true, &err), 0);
	cr_assert_not(st.rebuilt);
}

Test(index, a_lease_rewritten_in_place_wins_over_the_index)
{
	struct cni_addr a = ip("10.1.2.20"), *ips;
	struct cni_error err = {0};
	size_t n;
	bool legacy;
	int fd;

	cr_assert_eq(ipam_store_reserve(&st, &a, "ctr", "eth0", 0), 0);
	ipam_store_close(&st);
	/* As host-local's tests do: the same inode, the directory untouched. */
	fd = open(path_in("net/10.1.2.20"), O_WRONLY | O_TRUNC);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, "ctr", 3), 3);
	close(fd);
	cr_assert_eq(ipam_store_open(&st, data, data, "net", false, &err), 0);
	cr_assert_not(st.rebuilt, "the token still matches");
	cr_assert_eq(ipam_store_owned(&st, "ctr", "eth0", &ips, &n, &legacy), 0);
	cr_assert(n == 1 && legacy, "n %zu legacy %d", n, legacy);
	free(ips);
	cr_assert(st.rebuilt, "the disagreement rebuilt the index");
	cr_assert_eq(ipam_store_release(&st, &a), 0);
	cr_assert_not(exists("net/10.1.2.20"));
}

Test(index, index_follows_reserve_and_release)
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
