// SPDX-License-Identifier: Apache-2.0
/* The store (store.c, store_write.c, store_lease.c): the bytes and modes
 * host-local reads, crash leftovers, the dataDir checks, and a store under
 * attack: links, planted files, foreign directories, faults. */
#include <criterion/criterion.h>

#include "base/cleanup.h"
#include "ipam_fixture.h"

TestSuite(store, .init = setup, .fini = teardown);

static mode_t mode_of(const char *name)
{
	char path[256];
	struct stat st_;

	snprintf(path, sizeof(path), "%s/net/%s", data, name);
	cr_assert_eq(lstat(path, &st_), 0, "%s", path);
	return st_.st_mode & 07777;
}

Test(store, store_bytes_and_modes)
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

Test(store, crash_leftovers)
{
	struct ipam_lease *leases;
	struct cni_addr *ips;
	size_t n;
	bool legacy;
	char tmp[256], old[256];
	struct stat sb;

	/* An empty lease (a host-local crash between create and write), our
	 * lease temp file (a kill before link() or before its unlink) and the
	 * tmp/ directory of older builds. */
	struct cni_error err = {0};

	ipam_store_close(&st);
	write_file("10.1.2.3", "");
	write_file(IPAM_LEASE_TMP, "killed\r\neth0");
	snprintf(tmp, sizeof(tmp), "%s/net/%s", data, IPAM_LEASE_TMP);
	snprintf(old, sizeof(old), "%s/.ib-host-local/net/tmp", data);
	cr_assert_eq(mkdir(old, 0700), 0);
	tree_put(old, ".abc123", "x");

	cr_assert_eq(ipam_store_open(&st, data, data, "net", false, &err), 0);
	cr_assert_eq(stat(tmp, &sb), -1, "the lease temp file is removed on open");
	cr_assert_eq(stat(old, &sb), -1, "older builds' tmp/ is removed on open");
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

static mode_t mode_at(const char *rel)
{
	struct stat sb;

	cr_assert_eq(lstat(path_in(rel), &sb), 0, "%s", rel);
	return sb.st_mode & 07777;
}

static int open_err(const char *network, bool create, struct cni_error *err)
{
	struct ipam_store s;
	int ret;

	memset(err, 0, sizeof(*err));
	ret = ipam_store_open(&s, data, data, network, create, err);
	ipam_store_close(&s);
	return ret;
}

Test(store, lease_directories_are_never_chmoded_and_must_be_private)
{
	struct cni_error err;

	/* host-local's own directory (0755): used as it is. */
	tree_mkdir(data, "hl");
	chmod(path_in("hl"), 0755);
	tree_put(data, "hl/lock", "");
	cr_assert_eq(open_err("hl", true, &err), 0, "%s", err.details);
	cr_assert_eq(mode_at("hl"), 0755);
	/* Writable by others: code 7 naming dataDir, nothing changed or created. */
	tree_mkdir(data, "wide");
	chmod(path_in("wide"), 0777);
	for (int create = 0; create < 2; create++) {
		cr_assert_eq(open_err("wide", create, &err), -EPERM);
		assert_cni_error(&err, 7, "unsafe lease directory");
		cr_assert(strstr(err.details, "ipam.dataDir"), "%s", err.details);
		cr_assert_eq(mode_at("wide"), 0777);
		cr_assert_not(exists("wide/lock"));
	}
	if (geteuid() == 0) {
		tree_mkdir(data, "theirs");
		cr_assert_eq(chown(path_in("theirs"), 65534, 65534), 0);
		cr_assert_eq(open_err("theirs", true, &err), -EPERM);
		assert_cni_error(&err, 7, "unsafe lease directory");
	}
}

Test(store, a_directory_that_is_not_a_lease_directory_is_left_alone)
{
	struct cni_error err;

	/* "dataDir":"/","name":"etc": files, no lock. */
	tree_mkdir(data, "etc");
	chmod(path_in("etc"), 0755);
	tree_put(data, "etc/passwd", "root:x:0:0");
	cr_assert_eq(open_err("etc", true, &err), -ENOTEMPTY);
	assert_cni_error(&err, 7, "not a lease directory");
	cr_assert(strstr(err.details, "ipam.dataDir"), "%s", err.details);
	/* DEL, CHECK, GC: nothing was ever leased there; nothing is created. */
	cr_assert_eq(open_err("etc", false, &err), 0);
	cr_assert_eq(err.code, 0);
	cr_assert_not(exists("etc/lock"));
	cr_assert_not(exists(".ib-host-local/etc"));
	cr_assert_eq(mode_at("etc"), 0755);
	cr_assert_eq(open_err("absent", false, &err), 0);
	cr_assert_not(exists("absent"));
	/* An empty one (a crash between mkdir and lock) is taken. */
	tree_mkdir(data, "empty");
	cr_assert_eq(open_err("empty", true, &err), 0, "%s", err.details);
	cr_assert(exists("empty/lock"));
}

/* R1b: DEL of a directory that holds another program's "lock" (dpkg's)
 * changes nothing: the lock keeps its mode, no index appears. */
Test(store, an_existing_lock_keeps_its_mode_and_del_makes_no_index)
{
	struct cni_error err;

	tree_mkdir(data, "dpkg");
	chmod(path_in("dpkg"), 0755);
	tree_put(data, "dpkg/lock", "");
	tree_put(data, "dpkg/status", "Package: x");
	cr_assert_eq(chmod(path_in("dpkg/lock"), 0640), 0);
	cr_assert_eq(open_err("dpkg", false, &err), 0, "%s", err.details);
	cr_assert_eq(mode_at("dpkg/lock"), 0640);
	cr_assert_not(exists(".ib-host-local/dpkg"));
	/* ADD takes it (it has a lock) and indexes it, still without a chmod. */
	cr_assert_eq(open_err("dpkg", true, &err), 0, "%s", err.details);
	cr_assert_eq(mode_at("dpkg/lock"), 0640);
	cr_assert(exists(".ib-host-local/dpkg/owners"));
}

Test(store, links_under_data_dir_are_never_followed)
{
	static const char *const planted[] = {".ib-host-local", ".ib-host-local/net",
					      ".ib-host-local/net/owners", "net"};
	struct cni_error err;

	ipam_store_close(&st);
	tree_mkdir(data, "victim");
	tree_put(data, "victim/keep", "precious");
	tree_put(data, "victim/10.1.2.2", "ctr\r\neth0");
	tree_put(data, "victim/lock", "");
	for (size_t i = 0; i < ARRAY_SIZE(planted); i++) {
		char cmd[512];

		/* What DEL used to empty, swapped for a link to a host directory. */
		snprintf(cmd, sizeof(cmd), "rm -rf '%s/%s'", data, planted[i]);
		cr_assert_eq(system(cmd), 0);
		tree_link(data, path_in("victim"), planted[i]);
		cr_assert_eq(open_err("net", false, &err), -ELOOP, "%s", planted[i]);
		assert_cni_error(&err, 7, "invalid ipam.dataDir");
		cr_assert_eq(open_err("net", true, &err), -ELOOP, "%s", planted[i]);
		cr_assert(exists("victim/keep") && exists("victim/10.1.2.2"), "%s", planted[i]);
		cr_assert_eq(unlink(path_in(planted[i])), 0);
		cr_assert_eq(open_err("net", true, &err), 0, "%s", err.details);
	}
	/* A link anywhere in dataDir itself. */
	tree_link(data, data, "alias");
	memset(&err, 0, sizeof(err));
	cr_assert_eq(ipam_store_open(&st, path_in("alias"), path_in("alias"), "net", true, &err),
		     -ELOOP);
	assert_cni_error(&err, 7, "invalid ipam.dataDir");
	ipam_store_close(&st);
}

Test(store, planted_files_never_hang_and_never_become_leases, .timeout = 20)
{
	struct ipam_rangeset s = set_of("10.1.2.0/29");
	struct cni_addr a = ip("10.1.2.2");
	struct ipam_lease *leases;
	struct cni_error err;
	char huge[256];
	size_t n;
	int fd;

	ipam_store_close(&st);
	cr_assert_eq(mkfifo(path_in("net/10.1.2.2"), 0600), 0);
	tree_mkdir(data, "net/10.1.2.3");
	tree_link(data, "/dev/zero", "net/10.1.2.4");
	snprintf(huge, sizeof(huge), "%s", path_in("net/10.1.2.5"));
	fd = open(huge, O_WRONLY | O_CREAT, 0600);
	cr_assert_eq(ftruncate(fd, 64 << 20), 0);
	close(fd);
	cr_assert_eq(mkfifo(path_in("net/last_reserved_ip.0"), 0600), 0);
	cr_assert_eq(unlink(path_in(".ib-host-local/net/token")), 0);
	cr_assert_eq(mkfifo(path_in(".ib-host-local/net/token"), 0600), 0);
	memset(&err, 0, sizeof(err));
	cr_assert_eq(ipam_store_open(&st, data, data, "net", true, &err), 0, "%s", err.details);
	cr_assert(st.rebuilt, "a FIFO token is no token");
	cr_assert_eq(ipam_store_list(&st, &leases, &n), 0);
	cr_assert_eq(n, 4);
	for (size_t i = 0; i < n; i++)
		cr_assert_null(leases[i].id, "%s has no owner", leases[i].name);
	ipam_leases_free(leases, n);
	cr_assert_eq(ipam_store_reserve(&st, &a, "x", "eth0", 0), -EEXIST);
	/* An owner file that is a FIFO: the index is rebuilt, then replaced. */
	cr_assert_eq(mkfifo(path_in(".ib-host-local/net/owners/ctr@65746830"), 0600), 0);
	struct cni_addr *ips = NULL;
	bool legacy;

	cr_assert_eq(ipam_store_owned(&st, "ctr", "eth0", &ips, &n, &legacy), 0);
	cr_assert_eq(n, 0);
	free(ips);
	cr_assert_eq(mkfifo(path_in(".ib-host-local/net/owners/ctr@65746830"), 0600), 0);
	/* The FIFO pointer reads as no pointer: round robin starts over. */
	cr_assert_str_eq(alloc_str(&s, "ctr", NULL, &err), "10.1.2.6/29");
	ipam_store_close(&st);
	/* A FIFO lock: an error, not a hang. */
	cr_assert_eq(unlink(path_in("net/lock")), 0);
	cr_assert_eq(mkfifo(path_in("net/lock"), 0600), 0);
	cr_assert_lt(open_err("net", true, &err), 0);
	assert_cni_error(&err, 5, "cannot open lock file");
}

Test(store, listing_is_bounded)
{
	struct ipam_lease *leases;
	size_t n;

	for (int i = 0; i < 8; i++) {
		char name[32];

		snprintf(name, sizeof(name), "10.9.9.%d", i + 1);
		write_file(name, "c\r\neth0");
	}
	st.list_max = 5;
	cr_assert_eq(ipam_store_list(&st, &leases, &n), -E2BIG);
	st.list_max = 10;
	cr_assert_eq(ipam_store_list(&st, &leases, &n), 0);
	cr_assert_eq(n, 8);
	ipam_leases_free(leases, n);
}

Test(store, pointer_and_token_are_replaced_not_written_through)
{
	struct cni_addr a = ip("10.1.2.2"), b = ip("10.1.2.3");
	_cleanup_free_ char *ptr = NULL;
	_cleanup_free_ char *tok = NULL;

	cr_assert_eq(ipam_store_reserve(&st, &a, "c1", "eth0", 0), 0);
	ipam_store_close(&st);
	cr_assert_eq(link(path_in("net/last_reserved_ip.0"), path_in("ptr-link")), 0);
	cr_assert_eq(link(path_in(".ib-host-local/net/token"), path_in("token-link")), 0);
	struct cni_error err = {0};

	cr_assert_eq(ipam_store_open(&st, data, data, "net", true, &err), 0);
	cr_assert_eq(ipam_store_reserve(&st, &b, "c2", "eth0", 0), 0);
	ipam_store_close(&st);
	cr_assert_eq(read_file(path_in("ptr-link"), 64, &ptr, NULL), 0);
	cr_assert_str_eq(ptr, "10.1.2.2");
	cr_assert_eq(read_file(path_in("token-link"), 256, &tok, NULL), 0);
	free(ptr);
	cr_assert_eq(read_file(path_in("net/last_reserved_ip.0"), 64, &ptr, NULL), 0);
	cr_assert_str_eq(ptr, "10.1.2.3");
	cr_assert_eq(ipam_store_open(&st, data, data, "net", true, &err), 0);
}

Test(store, the_pointer_is_rewritten_in_place_and_cut_to_length)
{
	struct cni_addr a = ip("10.1.2.10"), b = ip("10.1.2.2");
	_cleanup_free_ char *ptr = NULL;
	struct stat st1, st2;

	cr_assert_eq(ipam_store_reserve(&st, &a, "c1", "eth0", 0), 0);
	cr_assert_eq(stat(path_in("net/last_reserved_ip.0"), &st1), 0);
	cr_assert_eq(ipam_store_reserve(&st, &b, "c2", "eth0", 0), 0);
	cr_assert_eq(stat(path_in("net/last_reserved_ip.0"), &st2), 0);
	cr_assert_eq(st1.st_ino, st2.st_ino, "the same file, as host-local writes it");
	cr_assert_eq(read_file(path_in("net/last_reserved_ip.0"), 64, &ptr, NULL), 0);
	cr_assert_str_eq(ptr, "10.1.2.2", "no tail of the longer address");
	cr_assert_not(exists("net/" IPAM_PTR_TMP));
}

Test(store, every_lease_is_its_own_file_and_the_temp_file_goes)
{
	struct ipam_rangeset s = set_of("10.1.2.0/28");
	struct stat x, y;
	struct cni_error err;

	/* Probing over taken addresses reuses one temp file; each published
	 * lease still gets an inode of its own. */
	for (int i = 2; i < 9; i++) {
		struct cni_addr t = ip("10.1.2.0");

		t.a[3] = (unsigned char)i;
		cr_assert_eq(ipam_store_reserve(&st, &t, "other", "eth0", 1), 0);
	}
	cr_assert_str_eq(alloc_str(&s, "ctr", NULL, &err), "10.1.2.9/28");
	cr_assert_str_eq(alloc_str(&s, "ctr2", NULL, &err), "10.1.2.10/28");
	cr_assert_eq(stat(path_in("net/10.1.2.9"), &x), 0);
	cr_assert_eq(stat(path_in("net/10.1.2.10"), &y), 0);
	cr_assert_neq(x.st_ino, y.st_ino);
	cr_assert_eq(x.st_nlink, 1);
	cr_assert_eq(y.st_nlink, 1);
	cr_assert_not(exists("net/" IPAM_LEASE_TMP), "published and unlinked");
	ipam_store_close(&st);
	cr_assert_not(exists("net/" IPAM_LEASE_TMP));
}

/* Fault injection: reads of one name fail with EIO. */
static const char *eio_name;

static int eio_read(int dirfd, const char *name, size_t max, char **out, size_t *len)
{
	if (eio_name && !strcmp(name, eio_name)) {
		*out = NULL;
		return -EIO;
	}
	return read_fileat(dirfd, name, max, out, len);
}

Test(store, a_transient_error_fails_and_deletes_nothing)
{
	struct cni_addr a = ip("10.1.2.2"), b = ip("10.1.2.3"), *ips = NULL;
	struct ipam_rangeset s = set_of("10.1.2.0/29");
	struct ipam_lease *leases = NULL;
	struct cni_error err = {0};
	size_t n = 0;
	bool legacy;

	cr_assert_eq(ipam_store_reserve(&st, &a, "ctr", "eth0", 0), 0);
	cr_assert_eq(ipam_store_reserve(&st, &b, "ctr", "eth0", 1), 0);
	ipam_store_read = eio_read;
	eio_name = "10.1.2.3";
	cr_assert_eq(ipam_store_owned(&st, "ctr", "eth0", &ips, &n, &legacy), -EIO);
	free(ips);
	cr_assert_eq(ipam_store_release(&st, &b), -EIO);
	cr_assert_eq(ipam_store_list(&st, &leases, &n), -EIO);
	cr_assert(exists("net/10.1.2.2") && exists("net/10.1.2.3"));
	eio_name = "ctr@65746830"; /* the owner file */
	cr_assert_eq(ipam_store_owned(&st, "ctr", "eth0", &ips, &n, &legacy), -EIO);
	free(ips);
	eio_name = "last_reserved_ip.0";
	cr_assert_null(alloc_str(&s, "other", NULL, &err));
	assert_cni_error(&err, 5, "cannot read the round-robin pointer");
	ipam_store_close(&st);
	/* Through the binary's path: a rebuild that cannot read a lease fails
	 * the open, and nothing is removed. */
	write_file("10.1.2.4", "late\r\neth0");
	eio_name = "10.1.2.4";
	memset(&err, 0, sizeof(err));
	cr_assert_eq(ipam_store_open(&st, data, data, "net", false, &err), -EIO);
	assert_cni_error(&err, 5, "cannot index the lease directory");
	cr_assert(exists("net/10.1.2.4"));
	ipam_store_read = read_fileat;
	eio_name = NULL;
	cr_assert_eq(ipam_store_open(&st, data, data, "net", false, &err), 0);
}
