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

#include "base/cleanup.h"
#include "helpers.h"
#include "kernel/nl.h"
#include "kernel/rdma.h"
#include "kernel/rdma_lookup.h"
#include <rdma/ib_user_ioctl_verbs.h>

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
static const unsigned char MAC_A[6] = {0xaa, 0x00, 0x73, 0x3b, 0x29, 0x3e};

/* The pod interface ifindex with MAC_A; the host branch off. */
static struct cni_rdma_netdev nd_of(int ifindex)
{
	return (struct cni_rdma_netdev){.ifindex = ifindex, .mac = MAC_A, .mac_len = 6};
}

Test(rdma_lookup, bound_port_in_the_netdevs_namespace)
{
	struct cni_rdma_port ports[] = {
	    {.dev_index = 3, .dev_name = "rxe0", .port = 1, .ndev_index = 12},
	    {.dev_index = 4, .dev_name = "rxe1", .port = 1, .ndev_index = 13}};
	struct cni_rdma_dev devs[] = {{.index = 3, .name = "rxe0", .driver = RDMA_DRIVER_RXE},
				      {.index = 4, .name = "rxe1"}};
	struct cni_rdma_view there = {.ports = ports, .n_ports = 2, .devs = devs, .n_devs = 2};
	struct cni_rdma_netdev nd = nd_of(13);
	struct cni_rdma_found f;

	cr_assert_eq(cni_rdma_match_netdev(&there, NULL, &nd, &f), 0);
	cr_assert(f.n == 1 && f.index[0] == 4);
	cr_assert_str_eq(f.names[0], "rxe1");
	cr_assert_eq(f.how, CNI_RDMA_BY_NETDEV);
	cr_assert_str_eq(cni_rdma_how_name(f.how), "netdev");
	cr_assert(f.indexed, "step 3 gives indices");
	cr_assert_not(f.in_netns, "the netdev is the caller's");
	nd.ifindex = 12;
	cr_assert_eq(cni_rdma_match_netdev(&there, NULL, &nd, &f), 0);
	cr_assert(f.n == 1 && f.index[0] == 3, "rxe bound to it");
	nd.ifindex = 14;
	cr_assert_eq(cni_rdma_match_netdev(&there, NULL, &nd, &f), -ENODEV);
	cr_assert_str_eq(f.tried, "no device has a port bound to it");
	/* siw and rxe over the same netdev: two candidates, both named. */
	ports[0].ndev_index = 13;
	nd.ifindex = 13;
	cr_assert_eq(cni_rdma_match_netdev(&there, NULL, &nd, &f), -ENOTUNIQ);
	cr_assert_str_eq(f.tried, "each has a port bound to it: rxe0 (index 3) and rxe1 (index 4)");
}

/* Exclusive mode, rxe created from inside the pod: the pod's socket lists
 * nothing; the host's lists the device, its port without a netdev. */
static struct cni_rdma_port host_ports[] = {
    {.dev_index = 3, .dev_name = "rxe0", .port = 1},		      /* pod A's */
    {.dev_index = 5, .dev_name = "rxe9", .port = 1, .ndev_index = 2}, /* the host's */
    {.dev_index = 6, .dev_name = "rxe1", .port = 1}};		      /* pod B's */
static struct cni_rdma_dev host_devs[3];
static const struct cni_rdma_view here = {
    .ports = host_ports, .n_ports = 3, .devs = host_devs, .n_devs = 3};
static const struct cni_rdma_view nothing_there = {0};

static void host_list(void)
{
	host_devs[0] = (struct cni_rdma_dev){
	    .index = 3, .name = "rxe0", .node_guid = GUID_A, .driver = RDMA_DRIVER_RXE};
	host_devs[1] = (struct cni_rdma_dev){
	    .index = 5, .name = "rxe9", .node_guid = GUID_A, .driver = RDMA_DRIVER_RXE};
	host_devs[2] = (struct cni_rdma_dev){
	    .index = 6, .name = "rxe1", .node_guid = 0x1234, .driver = RDMA_DRIVER_SIW};
}

/* softRdmaByMac on, every check passing: the pod's netdev is deviceID's and
 * the node-wide scan found its MAC once (on itself). */
static struct cni_netns_mac_scan once = {.carriers = 1, .spaces = 40};

static struct cni_rdma_netdev nd_on(void)
{
	struct cni_rdma_netdev nd = nd_of(12);

	nd.by_mac = true;
	nd.of_device = true;
	nd.parent = "0000:03:01.2";
	nd.scan = &once;
	return nd;
}

/* Off (the default): the host's list is never searched, and the error
 * names the key that would allow it (security review 5, U1). */
Test(rdma_lookup, host_branch_off_takes_nothing_by_mac, .init = host_list)
{
	struct cni_rdma_netdev nd = nd_of(12);
	struct cni_rdma_found f;

	cr_assert_not(cni_rdma_match_needs_scan(&nothing_there, &here, &nd), "no scan when off");
	cr_assert_eq(cni_rdma_match_netdev(&nothing_there, &here, &nd, &f), -ENODEV);
	cr_assert_eq(f.n, 0);
	cr_assert_str_eq(f.tried, "no device has a port bound to it there; the host's devices "
				  "were not searched: \"softRdmaByMac\" is off in "
				  "/etc/ibcni/ibcni.conf (true takes an rxe or siw the pod "
				  "created over it, by its MAC)");
}

Test(rdma_lookup, host_branch_on_takes_the_proven_soft_device, .init = host_list)
{
	struct cni_rdma_netdev nd = nd_on();
	struct cni_rdma_found f;

	/* A host device over a netdev with the same MAC is the host's. */
	cr_assert(cni_rdma_match_needs_scan(&nothing_there, &here, &nd));
	cr_assert_eq(cni_rdma_match_netdev(&nothing_there, &here, &nd, &f), 0, "%s", f.tried);
	cr_assert(f.n == 1 && f.index[0] == 3 && !f.in_netns);
	cr_assert_str_eq(f.names[0], "rxe0");
	/* No GUID (IPoIB), another GUID: no match. */
	nd.mac_len = 20;
	cr_assert_eq(cni_rdma_match_netdev(&nothing_there, &here, &nd, &f), -ENODEV);
	nd.mac_len = 6;
	host_devs[0].node_guid = 0x9999;
	cr_assert_eq(cni_rdma_match_netdev(&nothing_there, &here, &nd, &f), -ENODEV);
	cr_assert(strstr(f.tried, "no soft RDMA device (rxe or siw by the driver ID ib_uverbs "
				  "reports) on the host has the node GUID"),
		  "%s", f.tried);
}

/* A hardware driver's device (bnxt_re derives its GUID from the MAC too)
 * is never taken by MAC, nor one whose driver the kernel did not tell
 * (ib_uverbs missing: RDMA_DRIVER_UNKNOWN): soft only when proven. */
Test(rdma_lookup, host_branch_never_takes_a_hardware_device, .init = host_list)
{
	static const uint32_t not_soft[] = {RDMA_DRIVER_BNXT_RE, RDMA_DRIVER_MLX5,
					    RDMA_DRIVER_UNKNOWN};
	struct cni_rdma_netdev nd = nd_on();
	struct cni_rdma_found f;

	for (size_t i = 0; i < ARRAY_SIZE(not_soft); i++) {
		host_devs[0].driver = not_soft[i];
		cr_assert_not(cni_rdma_match_needs_scan(&nothing_there, &here, &nd));
		cr_assert_eq(cni_rdma_match_netdev(&nothing_there, &here, &nd, &f), -ENODEV);
		cr_assert_eq(f.n, 0);
	}
}

/* Another interface on the node carries the MAC (the victim's, whose
 * device it is): refused, naming the MAC and the device. */
Test(rdma_lookup, host_branch_refuses_a_shared_mac, .init = host_list)
{
	struct cni_netns_mac_scan twice = {.carriers = 2, .spaces = 40};
	struct cni_rdma_netdev nd = nd_on();
	struct cni_rdma_found f;

	nd.scan = &twice;
	cr_assert_eq(cni_rdma_match_netdev(&nothing_there, &here, &nd, &f), -EADDRINUSE);
	cr_assert_eq(f.n, 0, "nothing taken");
	cr_assert_str_eq(f.tried,
			 "rxe0 has the node GUID of aa:00:73:3b:29:3e, but 2 interface(s) on the "
			 "node carry that MAC (40 namespaces looked into): another interface has "
			 "it, so the device may be another pod's");
	/* A scan that could not finish proves nothing either. */
	twice = (struct cni_netns_mac_scan){.failed = "/run/netns"};
	nd.scan_ret = -E2BIG;
	cr_assert_eq(cni_rdma_match_netdev(&nothing_there, &here, &nd, &f), -EADDRINUSE);
	cr_assert(strstr(f.tried, "cannot be told (/run/netns: Argument list too long)"), "%s",
		  f.tried);
}

/* The pod interface must be deviceID's netdev (a veth or another VF with
 * the victim's MAC is not). */
Test(rdma_lookup, host_branch_needs_the_devices_own_netdev, .init = host_list)
{
	struct cni_rdma_netdev nd = nd_on();
	struct cni_rdma_found f;

	nd.of_device = false;
	nd.parent = "";
	cr_assert_eq(cni_rdma_match_netdev(&nothing_there, &here, &nd, &f), -ENODEV);
	cr_assert_eq(f.n, 0);
	cr_assert_str_eq(f.tried, "the host's rxe0 has the node GUID of its MAC, but the netdev "
				  "is not deviceID's own (its device: none)");
}

/* Another pod's soft device with the GUID of a copied MAC: ambiguous,
 * never a guess (and no scan is needed to say so). */
Test(rdma_lookup, host_branch_two_candidates, .init = host_list)
{
	struct cni_rdma_netdev nd = nd_on();
	struct cni_rdma_found f;

	host_devs[2].node_guid = GUID_A;
	cr_assert_not(cni_rdma_match_needs_scan(&nothing_there, &here, &nd));
	cr_assert_eq(cni_rdma_match_netdev(&nothing_there, &here, &nd, &f), -ENOTUNIQ);
	cr_assert_str_eq(f.tried, "each has the node GUID of its MAC and no netdev on the host: "
				  "rxe0 (index 3) and rxe1 (index 6)");
}

Test(rdma_lookup, found_in_the_pod_already)
{
	struct cni_rdma_port pod_ports[] = {
	    {.dev_index = 3, .dev_name = "net1", .port = 1, .ndev_index = 12}};
	struct cni_rdma_view there = {.ports = pod_ports, .n_ports = 1}, empty = {0};
	struct cni_rdma_netdev nd = nd_of(12);
	struct cni_rdma_found f;

	cr_assert_eq(cni_rdma_match_netdev(&there, &empty, &nd, &f), 0);
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
	cr_assert(f.n == 1 && !strcmp(f.names[0], "mlx5_2") && f.how == CNI_RDMA_BY_PCI);
	cr_assert_not(f.indexed, "sysfs gives names");
	cr_assert_str_eq(cni_rdma_how_name(f.how), "PCI child", "the words messages use");
	cr_assert_eq(lookup("0000:03:00.3", "eth3", &f), 0);
	cr_assert(f.n == 1 && !strcmp(f.names[0], "mlx5_3") && f.how == CNI_RDMA_BY_AUX);
	cr_assert_str_eq(cni_rdma_how_name(f.how), "auxiliary child");
	cr_assert_eq(lookup("mlx5_core.sf.4", NULL, &f), 0);
	cr_assert(f.n == 1 && !strcmp(f.names[0], "mlx5_9") && f.how == CNI_RDMA_BY_AUX);
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
