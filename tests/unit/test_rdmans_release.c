// SPDX-License-Identifier: Apache-2.0
/* rdma-ns's release (rdma-ns/release.c, DEL's, GC's, reconcile's and ADD's
 * rollback) against the fake kernel: it moves the recorded devices home
 * from the recorded namespace only while the path still names it. A path
 * that now names another namespace (a recycled /proc/<pid>/ns/net) is the
 * pod's namespace gone: nothing is returned from there, the record goes
 * (security review 5, U6). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "fake_kernel.h"
#include "fake_paths.h"
#include "helpers.h"
#include "rdmans.h"
#include "state/state.h"

static char base[64];

const char *fake_path(const char *what)
{
	static char buf[4][160];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", base, what);
	return p;
}

#define NAME "rdma-net:ctr1:net1"

/* The device, mlx5_1 (index 5), in the pod's namespace at "/pod". */
static void setup(void)
{
	make_tmpdir(base, sizeof(base));
	memset(&fk, 0, sizeof(fk));
	fk.pod_fd = -1;
	fk.fail_at = -1;
	fk.rdma_in_pod = true;
	fk.pod_id =
	    (struct cni_netns_id){.dev = 4, .ino = 4026532173, .nsid = 4109, .cookie = 4109};
}

static void teardown(void)
{
	rm_tree(base);
}

/* The record ADD writes for the namespace id, on disk; NULL: an older
 * build's, without the identity. */
static void record(struct rdmans_record *rec, const struct rdmans_netns_id *id)
{
	_cleanup_free_ char *text = NULL;

	*rec = (struct rdmans_record){.has = RDMANS_REC_HAS_NETWORK | RDMANS_REC_HAS_CONTAINERID |
					     RDMANS_REC_HAS_IFNAME | RDMANS_REC_HAS_NETNS |
					     RDMANS_REC_HAS_DEVICEID | RDMANS_REC_HAS_RDMA |
					     RDMANS_REC_HAS_RDMA_INDEX,
				      .network = "rdma-net",
				      .containerid = "ctr1",
				      .ifname = "net1",
				      .netns = "/pod",
				      .deviceid = "0000:03:01.1",
				      .rdma = {"mlx5_1"},
				      .n_rdma = 1,
				      .rdma_index = {5},
				      .n_rdma_index = 1};
	if (id)
		rdmans_record_set_netns_id(rec, id);
	text = rdmans_record_text(rec);
	cr_assert_not_null(text);
	cr_assert_eq(cni_state_write_text(fake_path("rdma-ns"), NAME, text), 0);
}

static bool record_there(void)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/" NAME, fake_path("rdma-ns"));
	return access(path, F_OK) == 0;
}

static int release(const struct rdmans_record *rec)
{
	_cleanup_sys_ struct cni_sys sys = CNI_SYS_INIT;
	struct cni_error err = {0};
	int ret = rdmans_release(&sys, NAME, rec, &err);

	cr_assert_eq(ret, 0, "%s: %s", err.msg, err.details);
	return ret;
}

/* Another namespace at the path: nothing returned from it, record gone. */
static void another_namespace(const struct rdmans_netns_id *recorded)
{
	struct rdmans_record rec;

	record(&rec, recorded);
	release(&rec);
	cr_assert_eq(fk.rdma_returns, 0, "an RDMA return was attempted in another namespace");
	cr_assert(fk.rdma_in_pod, "the other namespace's device was taken home");
	cr_assert_not(record_there(), "the record was kept");
}

/* The recorded namespace: the device goes home, the record too. */
static void same_namespace(const struct rdmans_netns_id *recorded)
{
	struct rdmans_record rec;

	record(&rec, recorded);
	release(&rec);
	cr_assert_eq(fk.rdma_returns, 1);
	cr_assert_not(fk.rdma_in_pod, "the device stayed in the pod");
	cr_assert_not(record_there(), "the record was kept");
}

Test(release, another_inode_is_not_entered, .init = setup, .fini = teardown)
{
	another_namespace(&(struct rdmans_netns_id){.dev = 4, .ino = 4026532245, .nsid = 4109});
}

/* The inode of a freed namespace goes to the next one; the kernel's
 * namespace ID, when both sides have it, tells them apart. */
Test(release, reused_inode_other_id_is_not_entered, .init = setup, .fini = teardown)
{
	another_namespace(&(struct rdmans_netns_id){.dev = 4, .ino = 4026532173, .nsid = 9});
}

Test(release, another_device_is_not_entered, .init = setup, .fini = teardown)
{
	another_namespace(&(struct rdmans_netns_id){.dev = 5, .ino = 4026532173, .nsid = 4109});
}

Test(release, recorded_namespace_entered, .init = setup, .fini = teardown)
{
	same_namespace(&(struct rdmans_netns_id){.dev = 4, .ino = 4026532173, .nsid = 4109});
}

/* An ID on one side only (a kernel before NS_GET_ID at ADD): device and
 * inode decide. */
Test(release, recorded_without_id_entered, .init = setup, .fini = teardown)
{
	same_namespace(&(struct rdmans_netns_id){.dev = 4, .ino = 4026532173});
}

/* A record of an older build has no identity: taken as it is (an upgrade
 * never strands a pod). */
Test(release, older_record_entered, .init = setup, .fini = teardown)
{
	same_namespace(NULL);
	cr_assert_eq(fk.cookie_reads, 0, "no cookie to compare, yet the path was entered");
}

/* A kernel before 6.18 (no namespace ID on either side): the reused inode
 * matches, the cookie ADD recorded tells the namespaces apart. */
Test(release, reused_inode_other_cookie_is_not_entered, .init = setup, .fini = teardown)
{
	fk.pod_id.nsid = 0;
	another_namespace(&(struct rdmans_netns_id){.dev = 4, .ino = 4026532173, .cookie = 77});
	cr_assert_eq(fk.cookie_reads, 1);
}

Test(release, recorded_cookie_entered, .init = setup, .fini = teardown)
{
	fk.pod_id.nsid = 0;
	same_namespace(&(struct rdmans_netns_id){.dev = 4, .ino = 4026532173, .cookie = 4109});
	cr_assert_eq(fk.cookie_reads, 1);
}

/* The cookie is read (the path entered) only when device and inode match:
 * another inode is told without it. And a record without a cookie (an
 * earlier build of this release, a kernel before 5.14) is told as before. */
Test(release, cookie_read_only_when_the_inode_matches, .init = setup, .fini = teardown)
{
	another_namespace(&(struct rdmans_netns_id){.dev = 4, .ino = 4026532245, .cookie = 4109});
	cr_assert_eq(fk.cookie_reads, 0);
}

Test(release, recorded_without_cookie_entered, .init = setup, .fini = teardown)
{
	fk.pod_id.nsid = 0;
	same_namespace(&(struct rdmans_netns_id){.dev = 4, .ino = 4026532173});
	cr_assert_eq(fk.cookie_reads, 0);
}
