// SPDX-License-Identifier: Apache-2.0
/* `ib-sriov doctor --pod`'s checks of one attachment and the RoCE decisions
 * CHECK shares with it (cni/kernel/verbs_diag.c), against the fake kernel
 * and the fake verbs view. The InfiniBand items (port GUID, pkey, LID) are
 * tested here, one tier down, as no tier has an InfiniBand fabric; the
 * RoCE faults on a real device (rxe) are the vm-rdma tier's. */
#include <criterion/criterion.h>
#include <infiniband/verbs.h>
#include <arpa/inet.h>
#include <net/if_arp.h>
#include <string.h>

#include "base/cleanup.h"
#include "doctor/doctor.h"
#include "fake_kernel.h"
#include "fake_verbs.h"
#include "kernel/verbs_diag.h"

/* Shared mode reads sysfs under CNI_PCI_ROOT: no test here uses it. */
const char *fake_path(const char *what)
{
	static char buf[160];

	snprintf(buf, sizeof(buf), "/nonexistent/ibcni-unit/%s", what);
	return buf;
}

static struct cni_sys sys = CNI_SYS_INIT;
static struct doctor d;

static void setup(void)
{
	memset(&fk, 0, sizeof(fk));
	fake_verbs_reset();
	d = (struct doctor){
	    .sys = &sys, .root = json_object_new_object(), .findings = json_object_new_array()};
	/* The pod netdev, seen from "here" (the check's fd -1: no namespace). */
	fk.links[0] = (struct fake_link){
	    .exists = true, .ifindex = 7, .name = "net1", .type = ARPHRD_ETHER, .mtu = 1500};
	fk.n = 1;
}

static void teardown(void)
{
	json_object_put(d.findings);
	json_object_put(d.root);
}

TestSuite(doctor_pod, .init = setup, .fini = teardown);

static void add_addr(const char *s)
{
	struct cni_link_addr *a = &fk.addrs[fk.n_addrs++];

	a->ifindex = 7;
	a->addr.family = strchr(s, ':') ? AF_INET6 : AF_INET;
	inet_pton(a->addr.family, s, a->addr.a);
	a->addr.len = a->addr.family == AF_INET ? 24 : 64;
}

static void add_gid(struct fake_verbs_dev *f, const char *v4, uint32_t index, uint32_t type,
		    uint32_t ifindex)
{
	struct fake_verbs_gid *g = &f->gids[f->n_gids++];

	memset(g->raw, 0, 16);
	g->raw[10] = g->raw[11] = 0xff;
	inet_pton(AF_INET, v4, g->raw + 12);
	g->index = index;
	g->port = 1;
	g->type = type;
	g->ifindex = ifindex;
}

/* The findings of check id as "severity: what" lines. */
static char *findings(const char *check)
{
	static char out[4096];
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(d.findings); i++) {
		struct json_object *f = json_object_array_get_idx(d.findings, i), *c, *s, *w;

		json_object_object_get_ex(f, "check", &c);
		json_object_object_get_ex(f, "severity", &s);
		json_object_object_get_ex(f, "what", &w);
		if (strcmp(json_object_get_string(c), check))
			continue;
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s: %s", n ? "\n" : "",
				      json_object_get_string(s), json_object_get_string(w));
	}
	return out;
}

static struct json_object *run(const struct doctor_att *a)
{
	struct json_object *o = json_object_new_object();

	doctor_pod_check(&d, a, -1, o);
	return o;
}

static const char *js(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v)
		   ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN)
		   : "(absent)";
}

Test(doctor_pod, roce_healthy_names_each_gid_index)
{
	struct fake_verbs_dev *f = fake_verbs_add("rxe0", false);
	struct doctor_att a = {.plugin = "rdma-ns",
			       .id = "c1",
			       .ifname = "net1",
			       .rdma = "rxe0",
			       .exclusive = true,
			       .want.mtu = 1500};
	_cleanup_json_ struct json_object *o;

	add_addr("10.56.0.2");
	add_addr("fe80::1");
	add_gid(f, "10.56.0.2", 3, CNI_VERBS_GID_ROCE_V1, 7);
	add_gid(f, "10.56.0.2", 5, CNI_VERBS_GID_ROCE_V2, 7);
	o = run(&a);
	cr_assert_eq(d.errors + d.warnings, 0, "only info: %s", js(d.root, "x"));
	cr_assert_str_eq(findings("gid"), "info: 10.56.0.2 of net1 is RoCE v2 GID index 5 of rxe0 "
					  "port 1 (NCCL_IB_GID_INDEX=5, UCX_IB_GID_INDEX=5)");
	cr_assert_str_eq(js(o, "gids"), "[{\"address\":\"10.56.0.2\",\"index\":5,\"gid\":\"::ffff:"
					"10.56.0.2\",\"type\":\"RoCE v2\"}]");
	cr_assert_str_eq(findings("mtu"),
			 "info: net1's MTU is 1500 (as ADD set); RoCE on rxe0 port 1 "
			 "runs at 1024 bytes (active MTU)");
	cr_assert_str_eq(js(o, "port"),
			 "{\"state\":\"ACTIVE\",\"physState\":\"LinkUp\",\"activeMtu\":1024}");
	cr_assert_str_eq(js(o, "charDevices"),
			 "[\"\\/dev\\/infiniband\\/uverbs0\",\"\\/dev\\/infiniband\\/rdma_cm\"]");
	cr_assert_str_eq(js(o, "linkLayer"), "\"Ethernet\"");
	cr_assert_str_eq(js(o, "guid"), "(absent)", "no InfiniBand keys on RoCE");
}

Test(doctor_pod, roce_missing_gid_names_the_cause)
{
	struct fake_verbs_dev *f = fake_verbs_add("rxe0", false);
	struct doctor_att a = {
	    .plugin = "rdma-ns", .ifname = "net1", .rdma = "rxe0", .exclusive = true};
	_cleanup_json_ struct json_object *o;

	add_addr("10.56.0.2");
	add_addr("10.56.0.9");
	add_gid(f, "10.56.0.2", 1, CNI_VERBS_GID_ROCE_V2, 7);
	o = run(&a);
	cr_assert_eq(d.errors, 1);
	cr_assert_str_eq(
	    findings("gid"),
	    "info: 10.56.0.2 of net1 is RoCE v2 GID index 1 of rxe0 port 1 "
	    "(NCCL_IB_GID_INDEX=1, UCX_IB_GID_INDEX=1)\n"
	    "error: no RoCE v2 GID for 10.56.0.9 of net1 on rxe0 port 1, though net1 has "
	    "GIDs there: the address was added while the RDMA device was in another "
	    "network namespace");
	cr_assert_str_eq(js(o, "gids"),
			 "[{\"address\":\"10.56.0.2\",\"index\":1,\"gid\":\"::ffff:10.56.0.2\","
			 "\"type\":\"RoCE v2\"},"
			 "{\"address\":\"10.56.0.9\",\"index\":null,\"gid\":null,\"type\":null}]");
}

Test(doctor_pod, roce_no_gid_of_the_netdev_means_another_namespace)
{
	struct fake_verbs_dev *f = fake_verbs_add("rxe0", false);
	struct cni_roce_view v;
	struct cni_error err = {0};

	add_addr("10.56.0.2");
	add_gid(f, "10.56.0.2", 1, CNI_VERBS_GID_ROCE_V2, 99); /* a host netdev's */
	cni_roce_read(&sys, -1, "rxe0", "net1", &v);
	cr_assert_eq(v.verbs_ret, 0);
	cr_assert_eq(v.n_addrs, 1);
	cr_assert_eq(cni_roce_check(&v, "net1", &(struct cni_roce_want){0}, &err), -ENOENT);
	cr_assert_str_eq(err.details,
			 "no RoCE v2 GID for 10.56.0.2 of net1 on rxe0 port 1, and none "
			 "for net1 at all: the RDMA device and net1 are in different "
			 "network namespaces (or were when the address was added)");
	cr_assert_eq(err.code, CNI_ERR_DEVICE);
	cr_assert_str_eq(err.msg, "CHECK failed");
}

/* An address ADD gave, removed in the pod since: its GID went with it, so
 * nothing of the GID table names it; the doctor and CHECK say which. */
Test(doctor_pod, roce_address_removed_after_add)
{
	struct fake_verbs_dev *f = fake_verbs_add("rxe0", false);
	struct doctor_att a = {
	    .plugin = "rdma-ns", .ifname = "net1", .rdma = "rxe0", .exclusive = true};
	struct cni_roce_want want = {0};
	struct cni_roce_view v;
	struct cni_error err = {0};
	_cleanup_json_ struct json_object *o;

	add_addr("10.56.0.2");
	add_gid(f, "10.56.0.2", 1, CNI_VERBS_GID_ROCE_V2, fk.links[0].ifindex);
	cr_assert(cni_roce_want_add(&a.want, "10.56.0.2"));
	cr_assert(cni_roce_want_add(&a.want, "10.56.0.7/24"));
	cr_assert(!cni_roce_want_add(&a.want, "not an address"));
	o = run(&a);
	cr_assert_str_eq(findings("gid"),
			 "error: 10.56.0.7, which ADD gave net1, is no longer on it: no RoCE v2 "
			 "GID of rxe0 port 1 carries it, and a peer that reaches the pod at "
			 "10.56.0.7 fails (rdma_resolve_addr, RTR)\n"
			 "info: 10.56.0.2 of net1 is RoCE v2 GID index 1 of rxe0 port 1 "
			 "(NCCL_IB_GID_INDEX=1, UCX_IB_GID_INDEX=1)");
	/* CHECK: the same text; with the address there, it passes. */
	cni_roce_read(&sys, -1, "rxe0", "net1", &v);
	want = a.want;
	cr_assert_eq(cni_roce_check(&v, "net1", &want, &err), -ENOENT);
	cr_assert_str_eq(err.details,
			 "10.56.0.7, which ADD gave net1, is no longer on it: no RoCE v2 GID of "
			 "rxe0 port 1 carries it, and a peer that reaches the pod at 10.56.0.7 "
			 "fails (rdma_resolve_addr, RTR)");
	want.n_addrs = 1;
	cr_assert_eq(cni_roce_check(&v, "net1", &want, &err), 0);
}

Test(doctor_pod, mtu_lowered_after_add_is_an_error_with_the_rdma_mtu)
{
	struct fake_verbs_dev *f = fake_verbs_add("rxe0", false);
	struct doctor_att a = {.plugin = "ib-sriov",
			       .ifname = "net1",
			       .rdma = "rxe0",
			       .exclusive = true,
			       .want.mtu = 1500};
	struct cni_roce_view v;
	struct cni_error err = {0};
	_cleanup_json_ struct json_object *o;

	fk.links[0].mtu = 1000;
	f->ports[0].active_mtu = IBV_MTU_512;
	o = run(&a);
	cr_assert_str_eq(findings("mtu"),
			 "error: net1's MTU is 1000, ADD set 1500; RoCE on rxe0 port 1 "
			 "runs at 512 bytes (active MTU), where 1500 gives 1024");
	cr_assert_str_eq(js(o, "netdevMtu"), "1000");
	cr_assert_str_eq(js(o, "expectedMtu"), "1500");
	/* CHECK: the same text. */
	cni_roce_read(&sys, -1, "rxe0", "net1", &v);
	cr_assert_eq(cni_roce_check(&v, "net1", &(struct cni_roce_want){.mtu = 1500}, &err),
		     -ERANGE);
	cr_assert_str_eq(err.details,
			 "net1's MTU is 1000, ADD set 1500; RoCE on rxe0 port 1 runs at "
			 "512 bytes (active MTU), where 1500 gives 1024");
	/* Raised: a warning; CHECK passes. */
	fk.links[0].mtu = 9000;
	cni_roce_read(&sys, -1, "rxe0", "net1", &v);
	cr_assert_eq(cni_roce_check(&v, "net1", &(struct cni_roce_want){.mtu = 1500}, &err), 0);
}

Test(doctor_pod, roce_mtu_derivation)
{
	cr_assert_eq(cni_verbs_roce_mtu(9000), 4096);
	cr_assert_eq(cni_verbs_roce_mtu(4200), 4096);
	cr_assert_eq(cni_verbs_roce_mtu(4191), 2048);
	cr_assert_eq(cni_verbs_roce_mtu(1500), 1024);
	cr_assert_eq(cni_verbs_roce_mtu(1120), 1024);
	cr_assert_eq(cni_verbs_roce_mtu(1119), 512);
	cr_assert_eq(cni_verbs_roce_mtu(1000), 512);
	cr_assert_eq(cni_verbs_roce_mtu(600), 256);
	cr_assert_eq(cni_verbs_roce_mtu(351), 0);
	cr_assert_eq(cni_verbs_roce_mtu(0), 0);
}

Test(doctor_pod, gid_table_unreadable)
{
	struct fake_verbs_dev *f = fake_verbs_add("rxe0", false);
	struct cni_roce_view v;
	struct cni_error err = {0};

	f->gid_table_ret = -EOPNOTSUPP;
	add_addr("10.56.0.2");
	cni_roce_read(&sys, -1, "rxe0", "net1", &v);
	cr_assert_eq(v.dev.gids_ret, -EOPNOTSUPP);
	cr_assert_eq(cni_roce_check(&v, "net1", &(struct cni_roce_want){0}, &err), -ENOENT);
	cr_assert(strstr(err.details, "its GID table cannot be read"), "%s", err.details);
}

Test(doctor_pod, infiniband_healthy)
{
	struct doctor_att a = {.plugin = "ib-sriov",
			       .ifname = "net1",
			       .rdma = "mlx5_1",
			       .exclusive = true,
			       .ib = true,
			       .has_guid = true,
			       .guid = 0x0200000000000009ULL};
	_cleanup_json_ struct json_object *o;

	fake_verbs_add("mlx5_1", true);
	fk.links[0].type = ARPHRD_INFINIBAND;
	fk.links[0].pkey = 0x8001;
	o = run(&a);
	cr_assert_eq(d.errors + d.warnings, 0);
	cr_assert_str_eq(findings("guid"), "info: mlx5_1 port 1 GUID 0200000000000009");
	cr_assert_str_eq(findings("pkey"),
			 "info: net1: pkey 0x8001 in the table of mlx5_1 port 1 (2 entries)");
	cr_assert_str_eq(findings("lid"), "info: mlx5_1 port 1 LID 7");
	cr_assert_str_eq(findings("gid"), "", "no RoCE GID check on InfiniBand");
	cr_assert_str_eq(js(o, "pkeys"), "[\"0xffff\",\"0x8001\"]");
	cr_assert_str_eq(js(o, "lid"), "7");
	cr_assert_str_eq(js(o, "linkLayer"), "\"InfiniBand\"");
}

Test(doctor_pod, infiniband_guid_pkey_lid_faults)
{
	struct doctor_att a = {.plugin = "ib-sriov",
			       .ifname = "net1",
			       .rdma = "mlx5_1",
			       .exclusive = true,
			       .ib = true,
			       .has_guid = true,
			       .guid = 0x42};
	struct fake_verbs_dev *f = fake_verbs_add("mlx5_1", true);
	_cleanup_json_ struct json_object *o;

	fk.links[0].type = ARPHRD_INFINIBAND;
	fk.links[0].pkey = 0x8002;
	o = run(&a);
	cr_assert_str_eq(findings("guid"),
			 "error: mlx5_1 port 1 has GUID 0200000000000009, ADD set "
			 "0000000000000042");
	cr_assert_str_eq(findings("pkey"),
			 "error: net1: pkey 0x8002 is not in the table of mlx5_1 port 1 "
			 "(2 entries)");
	json_object_put(o);
	teardown();
	setup();
	fk.links[0].type = ARPHRD_INFINIBAND;
	f = fake_verbs_add("mlx5_1", true);
	f->ports[0].guid = 0;
	o = run(&a);
	cr_assert_str_eq(findings("guid"),
			 "error: mlx5_1 port 1 has GUID 0: the subnet manager cannot "
			 "admit it");
}

Test(doctor_pod, port_not_active_names_the_cause)
{
	struct doctor_att a = {.plugin = "ib-sriov",
			       .ifname = "net1",
			       .rdma = "mlx5_1",
			       .exclusive = true,
			       .ib = true};
	struct fake_verbs_dev *f = fake_verbs_add("mlx5_1", true);
	_cleanup_json_ struct json_object *o;
	struct json_object *fix;

	f->ports[0].state = IBV_PORT_INIT;
	o = run(&a);
	cr_assert_str_eq(findings("port"), "error: mlx5_1 port 1 is INIT (physical state LinkUp)");
	for (size_t i = 0; i < json_object_array_length(d.findings); i++)
		if (json_object_object_get_ex(json_object_array_get_idx(d.findings, i), "fix",
					      &fix) &&
		    strstr(json_object_get_string(fix), "subnet manager"))
			return;
	cr_assert_fail("no fix names the subnet manager");
}

Test(doctor_pod, exclusive_device_on_the_host)
{
	struct doctor_att a = {.plugin = "rdma-ns",
			       .ifname = "net1",
			       .rdma = "mlx5_1",
			       .exclusive = true,
			       .has_index = true,
			       .rdma_index = 5};
	_cleanup_json_ struct json_object *o;

	/* libibverbs lists nothing here (the fake's ENOSYS), the host has it. */
	o = run(&a);
	cr_assert_str_eq(findings("rdma-device"),
			 "error: mlx5_1 is not in the pod's network namespace: "
			 "it is in the host's, as mlx5_1 (exclusive mode)");
	cr_assert_str_eq(findings("port"), "", "nothing about a port it cannot read");
	cr_assert_eq(d.errors, 1);
}
