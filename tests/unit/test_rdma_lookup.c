// SPDX-License-Identifier: Apache-2.0
/* The RDMA device lookup rdma-ns and rdmaIsolation share
 * (cni/kernel/rdma_lookup.c): its order, its netdev rule on dumps as the
 * kernel gives them to each socket, its errors; the Linux 7 requests (a
 * move carrying a name, the port dump) and a forged extended ack. */
#include <criterion/criterion.h>
#include <errno.h>
#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <rdma/rdma_netlink.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "kernel/nl.h"
#include "kernel/rdma.h"
#include "kernel/rdma_lookup.h"

static struct cni_sys test_sys = CNI_SYS_INIT;
static struct cni_sys *const sys = &test_sys;

Test(rdma_msg, move_with_a_name_and_rename)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX + 1];
	struct nl_msg *msg = cni_rdma_msg_move_named(7, 42, "net1");

	cr_assert_eq(nlmsg_hdr(msg)->nlmsg_type, 5122);
	cr_assert_eq(nlmsg_hdr(msg)->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	cr_assert_eq(nlmsg_parse(nlmsg_hdr(msg), 0, tb, RDMA_NLDEV_ATTR_MAX, NULL), 0);
	cr_assert_eq(nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 7);
	cr_assert_eq(nla_get_u32(tb[RDMA_NLDEV_NET_NS_FD]), 42);
	cr_assert_str_eq(nla_get_string(tb[RDMA_NLDEV_ATTR_DEV_NAME]), "net1");
	/* index 1, then the name (NUL-terminated, padded), then the fd */
	cr_assert_eq(nlmsg_hdr(msg)->nlmsg_len, 16 + 8 + 8 + 12);
	nlmsg_free(msg);
	msg = cni_rdma_msg_rename(7, "mlx5_3");
	cr_assert_eq(nlmsg_parse(nlmsg_hdr(msg), 0, tb, RDMA_NLDEV_ATTR_MAX, NULL), 0);
	cr_assert_null(tb[RDMA_NLDEV_NET_NS_FD], "a rename stays where it is");
	cr_assert_str_eq(nla_get_string(tb[RDMA_NLDEV_ATTR_DEV_NAME]), "mlx5_3");
	nlmsg_free(msg);
	msg = cni_rdma_msg_port_dump(3);
	cr_assert_eq(nlmsg_hdr(msg)->nlmsg_type, 5125, "PORT_GET");
	cr_assert_eq(nlmsg_hdr(msg)->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP);
	/* The kernel dumps one device's ports: without DEV_INDEX it refuses,
	 * in an NLMSG_DONE that libnl reads as an empty dump. */
	cr_assert_eq(nlmsg_hdr(msg)->nlmsg_len, 24);
	cr_assert_eq(nlmsg_parse(nlmsg_hdr(msg), 0, tb, RDMA_NLDEV_ATTR_MAX, NULL), 0);
	cr_assert_eq(nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 3);
	nlmsg_free(msg);
}

/* A PORT_GET reply: the netdev attributes only when the socket is in the
 * netdev's namespace (the kernel's fill_port_info). */
static struct nl_msg *port_reply(uint32_t dev, const char *name, uint32_t ndev)
{
	struct nl_msg *msg = nlmsg_alloc_simple(5125, NLM_F_MULTI);

	nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, dev);
	nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_NAME, name);
	nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	nla_put_u64(msg, RDMA_NLDEV_ATTR_CAP_FLAGS, 0);
	nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_STATE, 4);
	if (ndev) {
		nla_put_u32(msg, RDMA_NLDEV_ATTR_NDEV_INDEX, ndev);
		nla_put_string(msg, RDMA_NLDEV_ATTR_NDEV_NAME, "net1");
	}
	return msg;
}

Test(rdma_msg, port_reply_parsing)
{
	struct cni_rdma_port p;
	struct nl_msg *msg = port_reply(3, "rxe0", 12);

	cr_assert_eq(cni_rdma_parse_port(msg, &p), 0);
	cr_assert(p.dev_index == 3 && p.port == 1 && p.ndev_index == 12);
	cr_assert_str_eq(p.dev_name, "rxe0");
	nlmsg_free(msg);
	msg = port_reply(3, "rxe0", 0);
	cr_assert_eq(cni_rdma_parse_port(msg, &p), 0);
	cr_assert_eq(p.ndev_index, 0, "the netdev is in another namespace");
	nlmsg_free(msg);
	msg = nlmsg_alloc_simple(5125, NLM_F_MULTI);
	nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	cr_assert_eq(cni_rdma_parse_port(msg, &p), -EPROTO, "no port index");
	nlmsg_free(msg);
}

/* The kernel's refusal of a move into a namespace that has the name, as
 * Linux 7 words it: NLMSG_ERROR, capped, with the text. */
Test(rdma_msg, forged_extended_ack)
{
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_ERROR, NLM_F_CAPPED | NLM_F_ACK_TLVS);
	struct nlmsgerr *e = nlmsg_reserve(msg, sizeof(*e), NLMSG_ALIGNTO);
	char text[CNI_SYS_EXT_ACK];

	e->error = -EEXIST;
	e->msg = (struct nlmsghdr){.nlmsg_len = 44, .nlmsg_type = 5122};
	nla_put_string(msg, NLMSGERR_ATTR_MSG,
		       "Device name already exists in the target net namespace");
	cni_nl_ext_ack(nlmsg_hdr(msg), text);
	cr_assert_str_eq(text, "Device name already exists in the target net namespace");
	/* Without the TLV flag there is no text to trust. */
	nlmsg_hdr(msg)->nlmsg_flags = NLM_F_CAPPED;
	cni_nl_ext_ack(nlmsg_hdr(msg), text);
	cr_assert_str_empty(text);
	/* A length that lies is no text either. */
	nlmsg_hdr(msg)->nlmsg_flags = NLM_F_CAPPED | NLM_F_ACK_TLVS;
	nlmsg_hdr(msg)->nlmsg_len = 20;
	cni_nl_ext_ack(nlmsg_hdr(msg), text);
	cr_assert_str_empty(text);
	nlmsg_free(msg);
}

Test(rdma_msg, guid_of_mac_is_what_rxe_reports)
{
	/* tests/fixtures/rdma-replies.txt: rxe0 over aa:00:73:3b:29:3e. */
	static const unsigned char mac[6] = {0xaa, 0x00, 0x73, 0x3b, 0x29, 0x3e};

	cr_assert_eq(cni_rdma_guid_of_mac(mac, 6), 0xa80073fffe3b293eULL);
	cr_assert_eq(cni_rdma_guid_of_mac(mac, 20), 0, "IPoIB: no such rule");
}

Test(rdma_msg, names)
{
	char name[70];

	cr_assert(cni_rdma_name_valid("net1") && cni_rdma_name_valid("mlx5_3") &&
		  cni_rdma_name_valid("rail0.a:b-c"));
	memset(name, 'a', 63);
	name[63] = '\0';
	cr_assert(cni_rdma_name_valid(name), "63 bytes: IB_DEVICE_NAME_MAX - 1");
	name[63] = 'a';
	name[64] = '\0';
	cr_assert_not(cni_rdma_name_valid(name));
	static const char *const bad[] = {"",	"../x",	    "a/b",  "mlx5_%d", "a b", ".a",  "-a",
					  "_a", "\xc3\xa9", "a\nb", "a\"b",    "a$b", "a\\b"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_not(cni_rdma_name_valid(bad[i]), "%s", bad[i]);
}

/* "<want>_<index>_" then 16 lowercase hex digits. */
static bool unpredictable(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(name, prefix, n) || strlen(name + n) != 16)
		return false;
	return strspn(name + n, "0123456789abcdef") == 16;
}

Test(rdma_msg, home_names_recorded_derived_then_unpredictable)
{
	char out[CNI_RDMA_NAME_MAX], first[CNI_RDMA_NAME_MAX] = "";

	cr_assert_eq(cni_rdma_home_name("mlx5_3", 7, 0, out), 0);
	cr_assert_str_eq(out, "mlx5_3", "the recorded host name first");
	cr_assert_eq(cni_rdma_home_name("mlx5_3", 7, 1, out), 0);
	cr_assert_str_eq(out, "mlx5_3_7", "then <name>_<index>");
	for (unsigned int k = 2; k < CNI_RDMA_HOME_TRIES; k++) {
		cr_assert_eq(cni_rdma_home_name("mlx5_3", 7, k, out), 0);
		cr_assert(unpredictable(out, "mlx5_3_7_"), "attempt %u: %s", k, out);
		cr_assert(cni_rdma_name_valid(out), "%s", out);
		cr_assert_str_neq(out, first, "a new random name each time");
		memcpy(first, out, sizeof(first));
	}
	cr_assert_eq(cni_rdma_home_name("mlx5_3", 7, CNI_RDMA_HOME_TRIES, out), -ENOTUNIQ,
		     "bounded");
	cr_assert_geq(CNI_RDMA_HOME_TRIES, 4, "a few unpredictable names before giving up");
	cr_assert_eq(cni_rdma_home_name("", 2, 1, out), 0);
	cr_assert_str_eq(out, "rdma_2", "a record without a name");
}

/* A 63-byte recorded name is cut so that the suffix always fits. */
Test(rdma_msg, home_names_fit)
{
	char want[CNI_RDMA_NAME_MAX], out[CNI_RDMA_NAME_MAX];

	memset(want, 'a', sizeof(want) - 1);
	want[sizeof(want) - 1] = '\0';
	cr_assert_eq(cni_rdma_home_name(want, 4294967295u, 0, out), 0);
	cr_assert_str_eq(out, want);
	cr_assert_eq(cni_rdma_home_name(want, 4294967295u, 1, out), 0);
	cr_assert_eq(strlen(out), CNI_RDMA_NAME_MAX - 1);
	cr_assert_str_eq(out + CNI_RDMA_NAME_MAX - 1 - 11, "_4294967295");
	cr_assert_eq(cni_rdma_home_name(want, 4294967295u, 2, out), 0);
	cr_assert_eq(strlen(out), CNI_RDMA_NAME_MAX - 1);
	cr_assert(unpredictable(out + CNI_RDMA_NAME_MAX - 1 - 28, "_4294967295_"), "%s", out);
	cr_assert_eq(strspn(out, "a"), CNI_RDMA_NAME_MAX - 1 - 28);
}

/* --- the netdev rule, on dumps as each socket sees them --- */

#define GUID_A 0xa80073fffe3b293eULL /* rxe over aa:00:73:3b:29:3e */

Test(rdma_lookup, bound_port_in_the_netdevs_namespace)
{
	struct cni_rdma_port ports[] = {
	    {.dev_index = 3, .dev_name = "rxe0", .port = 1, .ndev_index = 12},
	    {.dev_index = 4, .dev_name = "rxe1", .port = 1, .ndev_index = 13}};
	struct cni_rdma_view there = {.ports = ports, .n_ports = 2};
	struct cni_rdma_found f;

	cr_assert_eq(cni_rdma_match_netdev(&there, NULL, 13, 0, &f), 0);
	cr_assert(f.n == 1 && f.index[0] == 4);
	cr_assert_str_eq(f.names[0], "rxe1");
	cr_assert_str_eq(f.how, "netdev");
	cr_assert_not(f.in_netns, "the netdev is the caller's");
	cr_assert_eq(cni_rdma_match_netdev(&there, NULL, 14, 0, &f), -ENODEV);
	/* siw and rxe over the same netdev: two candidates, both named. */
	ports[0].ndev_index = 13;
	cr_assert_eq(cni_rdma_match_netdev(&there, NULL, 13, 0, &f), -ENOTUNIQ);
	cr_assert_str_eq(f.tried, "each has a port bound to it: rxe0 (index 3) and rxe1 (index 4)");
}

/* Exclusive mode, rxe created from inside the pod: the pod's socket lists
 * nothing; the host's lists the device, its port without a netdev. */
Test(rdma_lookup, exclusive_mode_needs_the_second_proof)
{
	struct cni_rdma_port host_ports[] = {
	    {.dev_index = 3, .dev_name = "rxe0", .port = 1},		      /* pod A's */
	    {.dev_index = 5, .dev_name = "rxe9", .port = 1, .ndev_index = 2}, /* the host's */
	    {.dev_index = 6, .dev_name = "rxe1", .port = 1}};		      /* pod B's */
	struct cni_rdma_dev host_devs[] = {{.index = 3, .name = "rxe0", .node_guid = GUID_A},
					   {.index = 5, .name = "rxe9", .node_guid = GUID_A},
					   {.index = 6, .name = "rxe1", .node_guid = 0x1234}};
	struct cni_rdma_view there = {0},
			     here = {
				 .ports = host_ports, .n_ports = 3, .devs = host_devs, .n_devs = 3};
	struct cni_rdma_found f;

	/* A host device over a netdev with the same MAC is the host's. */
	cr_assert_eq(cni_rdma_match_netdev(&there, &here, 12, GUID_A, &f), 0);
	cr_assert(f.n == 1 && f.index[0] == 3 && !f.in_netns);
	cr_assert_str_eq(f.names[0], "rxe0");
	/* The name alone proves nothing; no GUID (IPoIB), no match. */
	cr_assert_eq(cni_rdma_match_netdev(&there, &here, 12, 0, &f), -ENODEV);
	cr_assert_eq(cni_rdma_match_netdev(&there, &here, 12, 0x9999, &f), -ENODEV);
	/* Another pod's netdev with a copied MAC: ambiguous, never a guess. */
	host_devs[2].node_guid = GUID_A;
	cr_assert_eq(cni_rdma_match_netdev(&there, &here, 12, GUID_A, &f), -ENOTUNIQ);
	cr_assert_str_eq(f.tried, "each has the node GUID of its MAC and no netdev on the host: "
				  "rxe0 (index 3) and rxe1 (index 6)");
}

Test(rdma_lookup, found_in_the_pod_already)
{
	struct cni_rdma_port pod_ports[] = {
	    {.dev_index = 3, .dev_name = "net1", .port = 1, .ndev_index = 12}};
	struct cni_rdma_view there = {.ports = pod_ports, .n_ports = 1}, here = {0};
	struct cni_rdma_found f;

	cr_assert_eq(cni_rdma_match_netdev(&there, &here, 12, GUID_A, &f), 0);
	cr_assert(f.in_netns, "the pod's socket lists it: it is in the pod");
}

/* --- the order, on a sysfs tree --- */

static char root[64];

static void tree(void)
{
	make_tmpdir(root, sizeof(root));
	tree_mkdir(root, "pci/devices/0000:03:00.2/infiniband/mlx5_2");
	tree_mkdir(root, "pci/devices/0000:03:00.3/mlx5_core.rdma.3/infiniband/mlx5_3");
	tree_mkdir(root, "pci/devices/0000:03:00.3/net/eth3");
	tree_mkdir(root, "pci/devices/0000:03:00.4/net/eth4");
	tree_mkdir(root, "aux/devices");
	tree_link(root, "../../pci/devices/0000:03:00.3/mlx5_core.rdma.3",
		  "aux/devices/mlx5_core.rdma.3");
	tree_mkdir(root, "aux/devices/mlx5_core.sf.4/infiniband/mlx5_9");
}

static void untree(void)
{
	rm_tree(root);
}

static int lookup(const char *dev, const char *ifname, struct cni_rdma_found *f)
{
	char pci[128], aux[128];
	struct cni_rdma_query q = {
	    .device = dev, .pci_root = pci, .aux_root = aux, .netns_fd = -1, .ifname = ifname};

	snprintf(pci, sizeof(pci), "%s/pci", root);
	snprintf(aux, sizeof(aux), "%s/aux", root);
	return cni_rdma_lookup(sys, &q, f);
}

Test(rdma_lookup, order_pci_then_auxiliary, .init = tree, .fini = untree)
{
	struct cni_rdma_found f;

	cr_assert_eq(lookup("0000:03:00.2", "eth2", &f), 0);
	cr_assert(f.n == 1 && !strcmp(f.names[0], "mlx5_2") && !strcmp(f.how, "PCI child"));
	cr_assert_eq(lookup("0000:03:00.3", "eth3", &f), 0);
	cr_assert(f.n == 1 && !strcmp(f.names[0], "mlx5_3") && !strcmp(f.how, "auxiliary child"));
	cr_assert_eq(lookup("mlx5_core.sf.4", NULL, &f), 0);
	cr_assert(f.n == 1 && !strcmp(f.names[0], "mlx5_9") && !strcmp(f.how, "auxiliary child"));
}

Test(rdma_lookup, error_names_what_was_tried, .init = tree, .fini = untree)
{
	struct cni_rdma_found f;
	char want[600];

	cr_assert_eq(lookup("0000:03:00.4", NULL, &f), -ENODEV);
	snprintf(want, sizeof(want),
		 "PCI child (%s/pci/devices/0000:03:00.4/infiniband/: none), auxiliary child "
		 "(the function's auxiliary devices: none), netdev (none given)",
		 root);
	cr_assert_str_eq(f.tried, want);
	/* The netdev step in this namespace: no such netdev here. */
	cr_assert_eq(lookup("0000:03:00.4", "ibcni-nonesuch", &f), -ENODEV);
	cr_assert(strstr(f.tried, ", netdev ibcni-nonesuch in this namespace ("), "%s", f.tried);
}

Test(rdma_msg, kernels_with_names_per_netns)
{
	cr_assert(cni_rdma_release_names_per_netns("7.3.4+deb13-amd64"));
	cr_assert(cni_rdma_release_names_per_netns("7.10.0"));
	cr_assert(cni_rdma_release_names_per_netns("8.0.1"));
	cr_assert_not(cni_rdma_release_names_per_netns("7.2.9"));
	cr_assert_not(cni_rdma_release_names_per_netns("6.12.48+deb13-amd64"));
	cr_assert_not(cni_rdma_release_names_per_netns("garbage"));
}
